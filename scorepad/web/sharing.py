"""Sharing a table's results: a CSV sheet, a plain-text recap for a chat, a PNG results card.

Thin routes over :mod:`scorepad.share` and :mod:`scorepad.render.card`; each answers 409
when the table cannot be scored as stored (there is no result to share yet). Files are
named after the game, the day and the table, so a download is recognisable later.
"""

from __future__ import annotations

from flask import Blueprint, Response, make_response, request
from flask_babel import gettext  # type: ignore[import-untyped]

from scorepad.render.card import results_card
from scorepad.scoring import Result
from scorepad.share import closing_lines, labels, pins_of, to_csv
from scorepad.web import db
from scorepad.web.editor import decided, table_result
from scorepad.web.htmx import error_page, holds_version, versioned
from scorepad.web.vocab import headline, recap, term, tiebreak_line, words

bp = Blueprint("sharing", __name__)


def _result(stored: db.StoredTable) -> Result | None:
    result, _problems = table_result(stored)
    return result


def _unscorable() -> Response:
    return error_page(
        409,
        gettext("Nothing to share yet"),
        gettext("This table cannot be scored as stored; fix its boards first."),
    )


def _labels(result: Result) -> dict[str, str]:
    """The CSV and card column labels in the player's language."""
    names = {k: term(v) for k, v in labels(result).items()}
    if not words().english:  # the column holds one player a row
        names.update(player=str(gettext("Player")))
        if not pins_of(result):  # "Rank (by pins)" is a term already
            names["rank"] = str(gettext("Rank"))
        names["total"] = str(gettext("Total"))
    return names


def _unchanged(table_id: str) -> Response | None:
    """A ``304`` when the phone already holds this version's file, found before anything is
    scored or drawn (the PNG card costs a few hundred milliseconds)."""
    version, _finished = db.table_state(table_id)
    return versioned(make_response("", 304), version) if holds_version(version) else None


def _versioned(resp: Response, stored: db.StoredTable) -> Response:
    """Cheap repeats: the same table version, in the same language, is the same file
    (``304`` on revalidation)."""
    versioned(resp, stored.version).make_conditional(request)  # a 304 when it can be
    if resp.status_code == 412 and request.headers.get("If-Match", "").strip() == "*":
        resp.status_code = 200  # "*" matches any version (werkzeug's is_strong ignores it)
    elif resp.status_code == 412:  # If-Match named another version: say so, not the file
        return error_page(
            412,
            gettext("This table has changed"),
            gettext("The file asked for is of another version of this table; load it again."),
        )
    return resp


@bp.get("/t/<table_id>/results.csv")
def csv(table_id: str) -> Response:
    if (same := _unchanged(table_id)) is not None:
        return same
    stored = db.get_table(table_id)
    result = _result(stored)
    if result is None:
        return _unscorable()
    # A byte-order mark, so spreadsheets read the players' names (often Cyrillic) as UTF-8.
    # In Russian and Ukrainian spreadsheets a comma is the decimal mark and ";" splits columns.
    delimiter = "," if words().english else ";"
    resp = make_response("\ufeff" + to_csv(result, _labels(result), delimiter))
    resp.mimetype = "text/csv"  # text types get "; charset=utf-8"
    resp.headers["Content-Disposition"] = f'attachment; filename="{stored.file_name("csv")}"'
    return _versioned(resp, stored)


@bp.get("/t/<table_id>/recap.txt")
def recap_text(table_id: str) -> Response:
    if (same := _unchanged(table_id)) is not None:
        return same
    stored = db.get_table(table_id)
    result = _result(stored)
    if result is None:
        return _unscorable()
    resp = make_response(recap(result, decided(stored, result)))
    resp.mimetype = "text/plain"
    resp.headers["Content-Disposition"] = f'inline; filename="{stored.file_name("txt")}"'
    return _versioned(resp, stored)


@bp.get("/t/<table_id>/card.png")
def card(table_id: str) -> Response:
    if (same := _unchanged(table_id)) is not None:
        return same
    stored = db.get_table(table_id)
    result = _result(stored)
    if result is None:
        return _unscorable()
    tiebreaks = closing_lines(result, term, tiebreak_line)  # a kids' game says so too
    head = headline(result, decided(stored, result))
    card_png = results_card(result, stored.doc, _labels(result), head, tiebreaks)
    resp = make_response(card_png)
    resp.mimetype = "image/png"
    resp.headers["Content-Disposition"] = f'inline; filename="{stored.file_name("png")}"'
    return _versioned(resp, stored)
