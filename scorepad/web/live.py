"""Live tables: every phone sees the others' progress, and a read-only big screen.

Every page of a table carries ``<div id="live">``, which htmx polls every :data:`POLL_MS`
(:data:`FINISHED_POLL_MS` once finished; config ``LIVE_POLL_MS`` and ``FINISHED_POLL_MS``)
(``GET /t/<id>/live?view=…&v=<version>``). The poll reads one small row:

- unchanged (``v`` is the stored version): **204** with no body, nothing swapped; a client
  sending ``If-None-Match`` with the last ``ETag`` gets **304**;
- changed: **200** with a new ``#live`` (carrying the new version) and the parts of the page
  that show the table, swapped out of band: the standings and player tabs of an editor, the
  whole big screen, the results;
- finished: editors and results are sent to the final results (``HX-Redirect``), the big
  screen shows them. A finished table's pages go on polling, every :data:`FINISHED_POLL_MS`:
  when the host reopens it, they come back to life without a reload;
- gone (the host deleted it): **286**, htmx's "stop polling", with a message for the
  page's banner that the table was deleted (``static/live.js`` then makes the page inert,
  so that its board no longer looks editable).

Finishing a table moves its version on, so a finished table is noticed like any edit.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, make_response, render_template, request, url_for

from scorepad.web import db
from scorepad.web.boards import player_index
from scorepad.web.editor import boards_context, editor_context
from scorepad.web.htmx import holds_version, is_htmx, page_or_fragment, versioned
from scorepad.web.seats import join_code

bp = Blueprint("live", __name__)

#: How often pages poll; with the request itself, an edit shows on every phone within 2 s.
POLL_MS = 1500
#: How often the pages of a finished table poll (only a reopening changes them).
FINISHED_POLL_MS = 15_000
VIEWS = ("editor", "screen", "results")
#: htmx stops polling an element whose poll is answered with this status.
STOP_POLLING = 286


@bp.get("/t/<table_id>/live")
def poll(table_id: str) -> Response:
    view = request.args.get("view", "editor")
    if view not in VIEWS:
        view = "editor"
    try:
        version, finished = db.table_state(table_id)
    except db.NotFound:
        if not is_htmx():
            raise  # the usual 404 page, naming nothing
        return gone()
    if request.args.get("v") == str(version) or holds_version(version):
        return versioned(make_response("", 204 if request.args.get("v") else 304), version)
    stored = db.get_table(table_id)
    if finished and view != "screen":
        resp = make_response("", 204)
        resp.headers["HX-Redirect"] = url_for("tables.results", table_id=table_id)
        return resp
    ctx = screen_context(stored) if view == "screen" else view_context(stored, view)
    html = render_template("live/_poll.html", view=view, **ctx)
    return versioned(make_response(html), version)


def gone() -> Response:
    """A poll of a table no longer stored: its page was drawn from it, so the host deleted
    it (deleting is the only way a table goes). The answer stops the polling (a 404 was
    asked again every 1.5 s) and says so in the page's banner."""
    resp = make_response(render_template("live/_gone.html"), STOP_POLLING)
    resp.headers["HX-Retarget"] = "#flash"
    resp.headers["HX-Reswap"] = "innerHTML"
    return resp


def view_context(stored: db.StoredTable, view: str) -> dict[str, Any]:
    if view == "results":
        from scorepad.web.tables import results_context

        return results_context(stored)
    player = player_index(stored.doc, request.args.get("p"))
    return editor_context(stored, player)


def screen_context(stored: db.StoredTable) -> dict[str, Any]:
    """Standings and every board, read-only, for a tablet or a TV."""
    return {
        **boards_context(stored),
        "names": [p.get("name", "") for p in stored.doc.get("players", [])],
        # A solo game has no one to invite (its editor shows no code either).
        "code": join_code(stored) if len(stored.doc.get("players", [])) > 1 else None,
    }


@bp.get("/t/<table_id>/screen")
def screen(table_id: str) -> Response:
    """The big-screen view: no editing, large type, live (slowly once the table is finished)."""
    ctx = screen_context(db.get_table(table_id))
    return page_or_fragment("live/screen.html", "live/_screen.html", **ctx)
