"""Tables of players: the list, a new table, import and export, results, check a paper sheet."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence, Set
from typing import Any

from flask import Blueprint, Response, make_response, request
from flask_babel import gettext  # type: ignore[import-untyped]

from scorepad import games
from scorepad.boardfile import BoardError, loads, readable_name
from scorepad.games import spring_meadow
from scorepad.stats import player_key
from scorepad.web import access, db, doubts
from scorepad.web.boards import EditRefused, kit, kits, player_index, whole_number
from scorepad.web.editor import boards_context, decided, game_and_kit, table_result
from scorepad.web.htmx import error_page, page_or_fragment, redirect_to
from scorepad.web.i18n import YEAR
from scorepad.web.players import roster
from scorepad.web.vocab import N_, recap, sentence, term

bp = Blueprint("tables", __name__)

MAX_NAME = 40


@bp.get("/")
def index() -> Response:
    return page_or_fragment(
        "tables/index.html",
        "tables/_list.html",
        tables=db.list_summaries(access.device()),
        titles={name: g.title for name, g in games.available().items()},
    )


# --- new table ---------------------------------------------------------------------------------


def _new_context(
    game_name: str | None, values: dict[str, str], message: str | None = None
) -> dict[str, Any]:
    available = kits()
    if game_name not in available:
        game_name = next(iter(available), None)
    board_kit = available.get(game_name) if game_name else None
    return {
        "games": [(name, games.get(name).title) for name in available],
        "chosen": game_name,
        "kit": board_kit,
        "options": board_kit.options_context() if board_kit else {},
        "values": values,
        "message": message,
        "roster": roster(access.device()),
    }


#: The new-table form remembers in this cookie, per browser, the game last started and each
#: game's options (the layout, side, variant...): a group that plays again starts the same
#: way with a tap. Player names are not kept (the roster suggests them).
LAST_NEW = "newtable"
OPTION = re.compile(r"[a-z][a-z0-9_]{0,31}")


def remembered() -> dict[str, Any]:
    """What the cookie remembers: ``{"game": name, "options": {name: {field: value}}}``;
    anything else in it (an old or edited cookie) is ignored."""
    try:
        data = json.loads(request.cookies.get(LAST_NEW, "{}"))
    except (ValueError, RecursionError):  # an edited cookie: deeply nested "[[[[..."
        return {}
    if not isinstance(data, dict) or not isinstance(data.get("options", {}), dict):
        return {}
    return data


def game_options(form: Any) -> dict[str, str]:
    """A new-table form's options: every field but the game, the names and the token."""
    return {
        k: str(v)[:80]
        for k, v in form.items()
        if OPTION.fullmatch(k) and k not in ("game", "csrf_token") and not k.startswith("name_")
    }


@bp.get("/new")
def new() -> Response:
    last = remembered()
    game_name = request.args.get("game") or last.get("game")
    game_name = game_name if isinstance(game_name, str) else None
    values = dict(request.args)
    # The game's remembered options win over the fields of another game's form, which a
    # switch of the game select sends along.
    saved = last.get("options", {}).get(game_name)
    if isinstance(saved, dict):
        values.update(game_options(saved))
    ctx = _new_context(game_name, values)
    return page_or_fragment("tables/new.html", "tables/_new_form.html", **ctx)


@bp.post("/new")
def create() -> Response:
    form = request.form
    game_name = form.get("game", "")
    board_kit = kit(game_name)
    if board_kit is None:
        ctx = _new_context(None, dict(form), gettext("Choose one of the listed games."))
        return page_or_fragment("tables/new.html", "tables/_new_form.html", 422, **ctx)
    try:
        names = _player_names(form, board_kit.MAX_PLAYERS)
        doc, meta = board_kit.new_table(form, names)
        games.get(game_name).parse(doc)
    except (EditRefused, BoardError) as err:
        message = sentence(err.problems[0]) if isinstance(err, BoardError) else str(err)
        ctx = _new_context(game_name, dict(form), message)
        ctx["clashing"] = _clashing_seats(form, board_kit.MAX_PLAYERS)
        return page_or_fragment("tables/new.html", "tables/_new_form.html", 422, **ctx)
    title = f"{games.get(game_name).title}: {', '.join(names)}"
    table_id = db.create_table(game_name, title, doc, meta, host=access.ensure_device())
    resp = redirect_to("editor.show", table_id=table_id)
    options = {**remembered().get("options", {}), game_name: game_options(form)}
    last = json.dumps({"game": game_name, "options": options}, separators=(",", ":"))
    resp.set_cookie(LAST_NEW, last, max_age=YEAR, samesite="Lax", httponly=True)
    return resp


def _player_names(form: Any, most: int) -> list[str]:
    typed = [form.get(f"name_{i}", "").strip() for i in range(most)]
    seats = [i + 1 for i, n in enumerate(typed) if n]  # as the form numbers its fields
    names = [typed[i - 1] for i in seats]
    if not names:
        raise EditRefused(gettext("Add at least one player's name, in seat order."))
    problem = name_problem(names, seats)
    if problem:
        raise EditRefused(problem)
    return names


def name_problem(names: list[str], seats: list[int] | None = None) -> str | None:
    """Why these player names cannot sit at one table: a name too long for the screens, a
    name nobody can read (no visible character, or a control character), or two names the
    statistics would take for one player ("Anna" and "anna ", :func:`.stats.player_key`)."""
    seen: dict[str, str] = {}
    # Named by seat (a file's name may be unshowable): the form's field numbers, ``seats``,
    # or else the player's place in the list.
    for seat, name in zip(seats or range(1, len(names) + 1), names, strict=True):
        if len(name) > MAX_NAME:  # an imported file's names too
            return str(
                gettext(
                    "Player names are at most %(n)s characters (player %(seat)s's has %(m)s).",
                    n=MAX_NAME,
                    seat=seat,
                    m=len(name),
                )
            )
        if not readable_name(name):
            return str(
                gettext(
                    "A player's name needs a visible character, and no control one (player "
                    "%(seat)s's).",
                    seat=seat,
                )
            )
        if player_key(name) in seen:
            return str(
                gettext(
                    "Two players are called “%(name)s”: names must differ (add an initial).",
                    name=seen[player_key(name)],
                )
            )
        seen[player_key(name)] = name
    return None


def _clashing_seats(form: Any, most: int) -> set[int]:
    """The seats whose names another seat repeats (letter case aside), marked on the form."""
    keys = [player_key(form.get(f"name_{i}", "")) for i in range(most)]
    return {i for i, k in enumerate(keys) if k and keys.count(k) > 1}


# --- import and export -------------------------------------------------------------------------


@bp.get("/import")
def import_form() -> Response:
    return page_or_fragment("tables/import.html", "tables/_import_form.html", message=None)


def is_photo(data: bytes) -> bool:
    """Whether an upload begins as a photo does (JPEG, PNG, WebP, HEIC): one chosen on the
    import screen is pointed to the photo button, not called text that is not UTF-8."""
    return (
        data.startswith((b"\xff\xd8\xff", b"\x89PNG\r\n"))
        or (data.startswith(b"RIFF") and data[8:12] == b"WEBP")
        or data[4:8] == b"ftyp"
    )


PHOTO_NOT_A_FILE = N_(
    "this is a photo, not a board file: open the table's board and use “Read a photo of "
    "the board” there"
)


@bp.post("/import")
def import_file() -> Response:
    upload = request.files.get("file")
    text: bytes | str = (
        upload.read() if upload and upload.filename else request.form.get("text", "")
    )
    source = upload.filename if upload and upload.filename else "pasted text"
    try:
        if (not text or not text.strip()) and upload and upload.filename:
            # A file was chosen: saying "choose a board file" sent the player looking for
            # a button they had used.
            raise BoardError(
                [gettext("the file is empty: choose the .json file a table's Export saved")]
            )
        if not text or not text.strip():
            raise BoardError([gettext("choose a board file or paste its JSON text")])
        if isinstance(text, bytes) and is_photo(text):
            raise BoardError([gettext(PHOTO_NOT_A_FILE)])
        doc = loads(text)
        meta: dict[str, Any] = {"imported": source[:100]}
        if spring_meadow.is_game_file(doc):  # its recorded phases, then the board
            phases, doc = spring_meadow.read_game_file(doc)
            meta["phases"] = phases
        game, _table = games.parse(doc)
        names = [p["name"] for p in doc["players"]]
        problem = name_problem(names)
        if problem:
            raise BoardError([problem])
    except BoardError as err:
        return page_or_fragment(
            "tables/import.html",
            "tables/_import_form.html",
            422,
            message=gettext(
                "%(file)s cannot be imported; nothing was stored.", file=upload.filename[:100]
            )
            if upload and upload.filename
            else gettext("This board file cannot be imported; nothing was stored."),
            problems=err.problems[:20],
            more=max(0, len(err.problems) - 20),
        )
    title = f"{game.title}: {', '.join(names)}"
    table_id = db.create_table(game.name, title, doc, meta, host=access.ensure_device())
    return redirect_to("editor.show", table_id=table_id)


@bp.get("/t/<table_id>/export")
def export(table_id: str) -> Response:
    stored = db.get_table(table_id)
    # A Spring Meadow game with recorded phases saves them too (a game file,
    # spring_meadow.read_game_file), or importing it again would lose the pins.
    phases = stored.meta.get("phases") or []
    saved = [*phases, stored.doc] if phases else stored.doc
    body = json.dumps(saved, indent=1, ensure_ascii=False) + "\n"
    resp = make_response(body)
    resp.mimetype = "application/json"
    resp.headers["Content-Disposition"] = f'attachment; filename="{stored.file_name("json")}"'
    resp.headers["Cache-Control"] = "private, no-store"  # a table's whole state, as it is now
    return resp


@bp.post("/t/<table_id>/delete")
def delete(table_id: str) -> Response:
    access.require_host(db.get_table(table_id))
    db.delete_table(table_id)
    return redirect_to("tables.index")


# --- results and the paper check -------------------------------------------------------------


def results_context(stored: db.StoredTable) -> dict[str, Any]:
    ctx = boards_context(stored)
    return {
        **ctx,
        "photos": doubts.evidence_ids(stored.id, stored.meta, range(len(ctx["boards"]))),
        "rights": access.rights(stored),
        "recap": recap(ctx["result"], decided(stored, ctx["result"])) if ctx["result"] else "",
    }


@bp.get("/t/<table_id>/results")
def results(table_id: str) -> Response:
    ctx = results_context(db.get_table(table_id))
    return page_or_fragment("tables/results.html", "tables/_results.html", **ctx)


@bp.route("/t/<table_id>/check", methods=["GET", "POST"])
def check(table_id: str) -> Response:
    stored = db.get_table(table_id)
    game, board_kit = game_and_kit(stored)
    result, _problems = table_result(stored)
    if result is None:  # nothing to check a paper sheet against: the editor says what is wrong
        return error_page(
            409,
            gettext("Nothing to check yet"),
            gettext("This table cannot be scored as stored; fix its boards first."),
        )
    source = request.form if request.method == "POST" else request.args
    chosen = source.get("p")
    if chosen is None:  # a seated phone checks its own paper sheet first, as it edits
        seat = access.rights(stored).seat
        chosen = None if seat is None else str(seat)
    here = player_index(stored.doc, chosen)
    shown = game.categories_of(result)  # the rows the results show (a solo game's own)
    sheets = paper_sheets(source, here, len(stored.doc["players"]), {*shown, "total"})
    switched = source.get("to")  # a player's tab, carrying what was typed for the others
    player = here if switched is None else player_index(stored.doc, switched)
    lines = sheets.pop(player, {})
    app = result.players[player]
    rows = [paper_row(lines, key, label, app.categories[key]) for key, label in shown.items()]
    total = paper_row(lines, "total", "Total", app.total)
    message = next((r["refused"] for r in [*rows, total] if r["refused"]), None)
    # The category whose evidence is outlined: the one asked for, unless the paper now
    # agrees on it (an old page's Enter sent the first difference button), else the first
    # to differ.
    asked = source.get("focus") if switched is None else None
    agreed = {str(r["key"]) for r in rows if r["diff"] == 0}
    focus = asked if asked in shown and asked not in agreed else None
    focus = focus or next((str(r["key"]) for r in rows if r["diff"]), None)
    board = board_kit.board(stored.doc, stored.meta, player, result, highlight=focus)
    status = 422 if message else 200
    return page_or_fragment(
        "tables/check.html",
        "tables/_check.html",
        status,
        table=stored,
        game=game,
        kit=board_kit,
        result=result,
        player=player,
        names=[p["name"] for p in stored.doc["players"]],
        rows=rows,
        total=total,
        added=added_up(rows, total),
        focus=focus,
        focus_label=shown.get(focus or ""),
        board=board,
        message=message,
        kept=kept_fields(sheets),
    )


#: The largest score a paper sheet's line is taken to hold (either sign).
PAPER_MOST = 9999
#: A typed line longer than this is no score: it is neither kept nor echoed whole.
PAPER_CHARS = 20
_KEPT = re.compile(r"keep_(\d{1,3})_(\w{1,40})")


def paper_sheets(
    source: Mapping[str, str], here: int, count: int, keys: Set[str]
) -> dict[int, dict[str, str]]:
    """Every player's typed paper lines, as ``{player: {"cat_<key>": text}}``: the player on
    screen (``here``) types into ``cat_<key>``; the other players' lines ride along in hidden
    ``keep_<player>_<key>`` fields, so switching between players' tabs loses nothing typed.
    Only the check's lines (``keys``) of the table's players are read, and a line longer
    than any score is cut (:func:`_cut`): nothing else is echoed back."""
    sheets: dict[int, dict[str, str]] = {}
    for name, text in source.items():
        if (kept := _KEPT.fullmatch(name)) and kept[2] in keys:
            index, key = int(kept[1]), kept[2]
            if index < count and index != here:
                sheets.setdefault(index, {})[f"cat_{key}"] = _cut(text)
        elif name.startswith("cat_") and name.removeprefix("cat_") in keys:
            sheets.setdefault(here, {})[name] = _cut(text)
    return sheets


def _cut(text: str) -> str:
    """A typed line as kept: at most ``PAPER_CHARS``, and a longer one marked cut ("…"),
    so that it is still refused as no number rather than read as its first digits."""
    text = text.strip()
    return text if len(text) <= PAPER_CHARS else text[: PAPER_CHARS - 1] + "…"


def kept_fields(sheets: Mapping[int, Mapping[str, str]]) -> list[tuple[str, str]]:
    """The hidden fields that carry the players not on screen (``paper_sheets`` reads them)."""
    return [
        (f"keep_{index}_{name.removeprefix('cat_')}", text)
        for index, lines in sorted(sheets.items())
        for name, text in lines.items()
        if text
    ]


def paper_row(source: Mapping[str, str], key: str, label: str, app: int) -> dict[str, Any]:
    """One line of the paper check: what the paper says (typed in field ``cat_<key>``),
    Scorepad's count and the difference; ``refused`` says why a typed value is no number."""
    raw = (source.get(f"cat_{key}") or "").strip()
    paper = whole_number(raw) if raw else None
    if paper is not None and abs(paper) > PAPER_MOST:
        paper = None  # no sheet holds such a score: a slip of the keyboard
    refused = None
    if raw and paper is None:
        refused = gettext(
            "%(category)s: write the number from the paper sheet (a whole number).",
            category=term(label),
        )
    return {
        "key": key,
        "label": label,
        "raw": raw,  # cut already (paper_sheets): a refusal echoes no essay
        "paper": paper,
        "app": app,
        "diff": None if paper is None else paper - app,
        "refused": refused,
    }


def added_up(rows: Sequence[Mapping[str, Any]], total: Mapping[str, Any]) -> int | None:
    """What the paper's categories add up to, when every one and the total were typed and
    the total says otherwise: the hand's addition slipped (each category may still be right)."""
    papers = [r["paper"] for r in rows]
    if total["paper"] is None or any(p is None for p in papers):
        return None
    added = sum(papers)
    return added if added != total["paper"] else None
