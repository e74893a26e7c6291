"""Board editors: every tap is a small request that edits, validates, re-scores and renders.

``POST /t/<id>/tap`` and ``POST /t/<id>/field`` apply one change to the stored document
through the game's board kit, validate the new document with the engine (``game.parse``)
and answer with the ``#editor`` fragment: the board and the live breakdown together. An
invalid change stores nothing and answers 422 with the reason inline; an edit made from a
stale page answers 409 with the current board: ``v`` (the tag of the player's sheet the page
was drawn from) for taps and fields, ``tv`` (the table's version) for undo and redo. A change
this phone may not make (another player's board, a finished table; see
:mod:`scorepad.web.access`) answers 403 with the board and the reason.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from flask import Blueprint, Response, current_app, g, request, url_for
from flask_babel import gettext, ngettext  # type: ignore[import-untyped]

from scorepad.boardfile import BoardError
from scorepad.games import Game
from scorepad.scoring import Result
from scorepad.share import pinned, pins_of
from scorepad.web import access, db, doubts
from scorepad.web.boards import (
    BoardKit,
    EditRefused,
    cell_name,
    edited_player,
    game,
    kit,
    player_index,
    reads_photos,
    refuse_edit,
    whole_number,
)
from scorepad.web.htmx import is_htmx, page_or_fragment
from scorepad.web.vocab import N_, sentence

bp = Blueprint("editor", __name__)

Change = Callable[[BoardKit, db.StoredTable, int], tuple[dict[str, Any], dict[str, Any]]]


def game_and_kit(stored: db.StoredTable) -> tuple[Game, BoardKit]:
    board_kit = kit(stored.game)
    if board_kit is None:
        raise db.NotFound("no editor for this game")
    return game(stored.game), board_kit


def scored(game: Game, doc: dict[str, Any], parsed: Any = None) -> tuple[Result | None, list[str]]:
    """The result of a stored document (``parsed`` when already validated), or its problems."""
    try:
        return game.score(parsed if parsed is not None else game.parse(doc)), []
    except BoardError as err:
        return None, err.problems


#: Results kept per worker and app (its database), by table and version: a version's
#: document and meta never change (every edit stores a new version), and each phone's poll,
#: the big screen, the results and the statistics (up to ``players.STATS_TABLES``) ask for
#: the same ones. About 50 KB each. (A database restored from a backup reuses versions:
#: restart the workers after a restore.)
RESULTS_KEPT = 600
_results_lock = threading.Lock()


def _results() -> OrderedDict[tuple[str, int], tuple[Result | None, list[str]]]:
    """This app's results, oldest used first."""
    results: OrderedDict[tuple[str, int], tuple[Result | None, list[str]]]
    results = current_app.extensions.setdefault("scorepad.results", OrderedDict())
    return results


def table_result(stored: db.StoredTable, parsed: Any = None) -> tuple[Result | None, list[str]]:
    """The table's result: the game's own once it is over (a kit's ``final_result``:
    Spring Meadow's ledger, whose winner is not the board's as it stands after the last
    phase), else the stored document scored (:func:`scored`). Results are shared, so
    nobody may change one."""
    known = known_result(stored.id, stored.version)
    if known is not None:
        return known
    engine, board_kit = game_and_kit(stored)
    final = getattr(board_kit, "final_result", None)
    over = final(stored.doc, stored.meta) if final is not None else None
    answer = (over, []) if over is not None else scored(engine, stored.doc, parsed)
    going_on = getattr(board_kit, "in_progress", None)  # Spring Meadow's pins so far
    if over is None and going_on is not None and answer[0] is not None:
        answer = (going_on(stored.meta, answer[0]), answer[1])
    results = _results()
    with _results_lock:
        results[(stored.id, stored.version)] = answer
        while len(results) > RESULTS_KEPT:
            results.popitem(last=False)
    return answer


def known_result(table_id: str, version: int) -> tuple[Result | None, list[str]] | None:
    """The result of that version of the table if this worker scored it already, else None
    (the statistics read only what changed since)."""
    results = _results()
    with _results_lock:
        answer: tuple[Result | None, list[str]] | None = results.get((table_id, version))
        if answer is not None:
            results.move_to_end((table_id, version))
        return answer


bp.add_app_template_global(cell_name)
bp.add_app_template_global(doubts.unchecked, name="unchecked")  # said before finishing
bp.add_app_template_global(pinned)  # "Clara 1, Boris 1": a game's pins so far
bp.add_app_template_global(is_htmx)  # a fragment's render, not a page's (nor a history restore)


@bp.app_template_global()
def decided(stored: db.StoredTable | None, result: Result) -> bool:
    """Whether the result names winners rather than leaders: the table is finished, or its
    game is over (a Spring Meadow player took a second pin). Templates ask it too."""
    return bool(stored and stored.finished) or bool(pins_of(result))


def boards_context(stored: db.StoredTable) -> dict[str, Any]:
    """The table scored, with every player's board drawn (results and the big screen)."""
    engine, board_kit = game_and_kit(stored)
    result, problems = table_result(stored)
    # A photo's cells left to check are outlined where they can be checked, the editor (its
    # list and legend): here they could not be cleared and said nothing (a finished table
    # kept them for good).
    shown = {**stored.meta, "photos": {}} if stored.meta.get("photos") else stored.meta
    boards = [
        board_kit.board(stored.doc, shown, i, result)
        for i in range(len(stored.doc.get("players", [])))
    ]
    return {
        "table": stored,
        "game": engine,
        "kit": board_kit,
        "result": result,
        "problems": problems,
        "boards": boards,
    }


def editor_context(
    stored: db.StoredTable,
    player: int,
    message: str | None = None,
    kind: str = "error",
    parsed: Any = None,
    rights: access.Rights | None = None,
) -> dict[str, Any]:
    engine, board_kit = game_and_kit(stored)
    result, problems = table_result(stored, parsed)
    if rights is None:
        rights = access.rights(stored)
    return {
        "table": stored,
        "rights": rights,
        "can_edit": rights.can_edit(player),
        "sheet_tag": sheet_tag(stored.doc, player),
        "game": engine,
        "kit": board_kit,
        "player": player,
        "names": [p["name"] for p in stored.doc["players"]],
        "board": board_kit.board(stored.doc, stored.meta, player, result),
        "result": result,
        "problems": problems,
        "message": message,
        "message_kind": kind,
        "photos": reads_photos(board_kit),
        **steps_allowed(stored, rights),
        "photo": {
            **doubts.photo_of(stored.meta, player),
            "id": doubts.evidence_ids(stored.id, stored.meta, [player])[0],  # on every tap
        },
    }


def steps_allowed(stored: db.StoredTable, rights: access.Rights) -> dict[str, Any]:
    """Whether this phone may undo and redo the table's last step (the history is the
    table's, one line for every board): a seated phone may not revert a step on another
    player's board, so its button is disabled and says why, instead of refusing after the
    press. The host, or everyone when allowed, may take every step: no query then."""
    undo, redo, why = stored.can_undo, stored.can_redo, None
    if rights.can_edit_any and not rights.can_edit_all and (undo or redo):
        back, forward = db.steps_around(stored.id, stored.version)
        why = _refusal(rights, stored, back)
        undo, redo = undo and why is None, redo and _refusal(rights, stored, forward) is None
    # What the live poll compares with the buttons on screen (static/live.js): another
    # phone's step can allow or forbid them without changing this phone's board.
    state = f"{'u' if undo else ''}{'r' if redo else ''}:{why or ''}"
    return {"can_undo": undo, "can_redo": redo, "undo_refused": why, "steps_state": state}


def _refusal(rights: access.Rights, stored: db.StoredTable, step: db.Step | None) -> str | None:
    """Why this phone may not take a history ``step`` (``access.check_change``), or None."""
    if step is None:
        return None
    try:
        access.check_change(rights, stored, *step, _names(stored))
    except access.Forbidden as err:
        return str(err)
    return None


def sheet_tag(doc: dict[str, Any], player: int) -> str:
    """A short fingerprint of what one player's editor shows and edits: the table's shared
    part (its options: table rules, side, layouts, the active player) and their board, as
    two halves of TAG_HALF characters, shared then board (a refusal then says which
    changed). A form drawn before another phone changed either is stale (409), and the live
    poll redraws it."""
    shared = {k: v for k, v in doc.items() if k != "players"}
    return _fingerprint(shared) + _fingerprint(doc["players"][player])


#: Characters in each half of a sheet tag (4 bytes, hexadecimal).
TAG_HALF = 8


def _fingerprint(part: Any) -> str:
    text = json.dumps(part, sort_keys=True, separators=(",", ":"))
    return hashlib.blake2b(text.encode(), digest_size=4).hexdigest()


def stale_message(seen: str, doc: dict[str, Any], player: int) -> str:
    """Why a change drawn on a board since changed is refused: the board itself, or only
    the table's shared part (a phase recorded, the rules changed: the board looked the
    same); "tap" again for a tap, "change it" again for a field."""
    board_moved = seen[TAG_HALF:] != sheet_tag(doc, player)[TAG_HALF:]
    tapped = request.endpoint == "editor.tap"
    if board_moved:
        return str(gettext(STALE_SHEET if tapped else STALE_SHEET_FIELD))
    return str(gettext(STALE_SHARED if tapped else STALE_SHARED_FIELD))


def render_editor(
    stored: db.StoredTable,
    player: int,
    message: str | None = None,
    status: int = 200,
    parsed: Any = None,
    rights: access.Rights | None = None,
    kind: str | None = None,
) -> Response:
    """The editor page or fragment; the message is an error from status 400, else ``kind``
    ("info" by default, "warning" for a result the player should look at twice)."""
    kind = "error" if status >= 400 else (kind or "info")
    ctx = editor_context(stored, player, message, kind, parsed, rights)
    return page_or_fragment("editor/page.html", "editor/_editor.html", status, **ctx)


@bp.get("/t/<table_id>")
def show(table_id: str) -> Response:
    stored = db.get_table(table_id)
    rights = access.rights(stored)
    chosen = request.args.get("p")
    if chosen is None and rights.seat is not None:  # a phone opens on its own board
        chosen = str(rights.seat)
    player = player_index(stored.doc, chosen)
    resp = render_editor(stored, player, rights=rights)
    if request.args.get("tab") and is_htmx():  # a player's tab: htmx keeps the history
        resp.headers["HX-Push-Url"] = url_for("editor.show", table_id=table_id, p=player)
    return resp


@bp.get("/t/<table_id>/search")
def search(table_id: str) -> Response:
    """Seasons: cards whose names match the query; the page, or just the matches for htmx."""
    stored = db.get_table(table_id)
    _game, board_kit = game_and_kit(stored)
    finder = getattr(board_kit, "search", None)
    if finder is None:
        raise db.NotFound("this game has no card search")
    player = player_index(stored.doc, request.args.get("p"))
    query = request.args.get("q", "")[:60]
    ctx = editor_context(stored, player)
    ctx.update(query=query, matches=finder(query))
    return page_or_fragment("editor/page.html", f"boards/{board_kit.MODULE}/_search.html", **ctx)


@bp.post("/t/<table_id>/tap")
def tap(table_id: str) -> Response:
    """One tap; a tap on a cell a photo left in doubt also marks it checked (unless ``keep``:
    Harmonies' "other height" button, pressed until the height is right)."""
    keep = bool(request.form.get("keep"))
    return edit(
        table_id,
        lambda k, s, p: (
            k.tap(s.doc, s.meta, p, request.form),
            s.meta if keep else doubts.checked(s.meta, p, doubts.tapped_cells(request.form)),
        ),
    )


@bp.post("/t/<table_id>/field")
def field(table_id: str) -> Response:
    return edit(table_id, lambda k, s, p: k.set_field(s.doc, s.meta, p, request.form))


@bp.post("/t/<table_id>/undo")
def undo(table_id: str) -> Response:
    return _step(table_id, db.undo, N_("Undone on %(name)s's board."), N_("Undone for the table."))


@bp.post("/t/<table_id>/redo")
def redo(table_id: str) -> Response:
    return _step(table_id, db.redo, N_("Redone on %(name)s's board."), N_("Redone for the table."))


STALE_SHEET = N_("This sheet was changed on another device; here it is now. Tap again.")
STALE_SHEET_FIELD = N_(
    "This sheet was changed on another device; here it is now. Make your change again."
)
#: The board is as it was, but the table's shared part changed (a phase, the rules).
STALE_SHARED = N_(
    "The table was changed on another device (a phase recorded or its rules); here it is "
    "now. Tap again."
)
STALE_SHARED_FIELD = N_(
    "The table was changed on another device (a phase recorded or its rules); here it is "
    "now. Make your change again."
)
#: A tap sent again after its connection dropped: the first sending may have been stored.
STALE_RETRY = N_(
    "The connection dropped while this tap was sent, so it may be saved already: here is "
    "the board as stored. Check it before tapping again."
)
STALE_TABLE = N_("The table was changed on another device; here it is now. Try again.")
#: Why a change is refused, and its status: the board does not allow it (422), the phone
#: may not make it (403), another phone changed the table first (409).
REFUSALS = (EditRefused, access.Forbidden, db.Conflict)


def refusal_status(err: Exception) -> int:
    """The status answering one of ``REFUSALS``."""
    if isinstance(err, EditRefused):
        return 422
    return 403 if isinstance(err, access.Forbidden) else 409


def _seen_version() -> int | None:
    """The table's version the phone saw (``tv``); none sent (no JavaScript) is taken as
    the latest, but a value that is no version is refused rather than taken as none."""
    raw = request.form.get("tv", "").strip()
    seen = whole_number(raw)
    if raw and seen is None:
        raise EditRefused(gettext("That step names no version of this table: nothing changed."))
    return seen


def _step(
    table_id: str, move: Callable[..., db.StoredTable], done: str, done_table: str
) -> Response:
    """Undo or redo one step of the table's history, if this phone saw the table as it is
    (``tv``) and may edit every board the step changes. Said on the board it changed
    (``done``), or ``done_table`` for a step that changed none (table rules, a recorded
    phase, the picnic tile's holder)."""
    found = access.rights_at(table_id)
    before: list[db.StoredTable] = []

    def guard(current: db.StoredTable, doc: dict[str, Any], meta: dict[str, Any]) -> None:
        now = found.at(current)
        access.check_change(now, current, doc, meta, _names(current))
        before.append(current)

    try:
        stored = move(table_id, _seen_version(), guard)
    except REFUSALS as err:
        current = db.get_table(table_id)
        if finished_meanwhile(current):
            return _finished_meanwhile(current)
        message = gettext(STALE_TABLE) if isinstance(err, db.Conflict) else str(err)
        return _answer(current, message, refusal_status(err), found)
    names = _names(stored)
    moved = bool(before) and before[-1].version != stored.version  # not at an end of history
    changed = access.changed_boards(before[-1].doc, stored.doc) if moved else []
    changed = [i for i in changed if i < len(names)]
    # A recorded phase is the table's step even when its winner's marmots changed a board,
    # and so is a change of the table's rules (a Harmonies side switch empties every board).
    phased = moved and before[-1].meta.get("phases") != stored.meta.get("phases")
    ruled = moved and before[-1].doc.get("options") != stored.doc.get("options")
    if not changed or phased or ruled:
        # A step of the table's own (its rules, a recorded phase) is said; one that only
        # marked a photo's doubts checked shows itself (the outlines are back).
        shared = moved and (before[-1].doc != stored.doc or phased or ruled)
        said = " ".join([gettext(done_table), *table_changes(before[-1], stored)])
        return _answer(stored, said if shared else None, 200, found)
    # Shown on the board it changed, and said: a step on another player's tab went unseen.
    said = gettext(done, name=names[changed[0]])
    resp = _answer(stored, said, 200, found, changed[0])
    if changed[0] != player_index(stored.doc, request.form.get("p")):
        # The address follows the board shown, as a tab's does: a reload opens this board.
        resp.headers["HX-Replace-Url"] = url_for("editor.show", table_id=stored.id, p=changed[0])
    return resp


def table_changes(before: db.StoredTable, after: db.StoredTable) -> list[str]:
    """What a step of the table's own changed, as undo and redo say it ("Valley Express,
    2 settlements: 5 → 4."): the board shows no trace of it, only the totals move. The
    table's rules are the game's kit's to say (``rule_changes``: its rules as they score,
    defaults filled in, so an imported table's missing option is no change)."""
    said = []
    phases = len(before.meta.get("phases", [])), len(after.meta.get("phases", []))
    if phases[0] != phases[1]:
        said.append(gettext("The record of phase %(n)s.", n=max(phases)))
    rule_changes = getattr(kit(after.game), "rule_changes", None)
    if rule_changes is not None:
        said += rule_changes(before.doc.get("options") or {}, after.doc.get("options") or {})
    return said


def _answer(
    stored: db.StoredTable,
    message: str | None,
    status: int,
    found: access.Rights,
    player: int | None = None,
) -> Response:
    if player is None:
        player = player_index(stored.doc, request.form.get("p"))
    now = found.at(stored)
    return render_editor(stored, player, message, status, rights=now)


def require_editable(found: access.Rights, stored: db.StoredTable, player: int) -> access.Rights:
    """The phone's rights as ``stored`` stands (:meth:`access.Rights.at`);
    :class:`access.Forbidden` saying why if it may not edit ``player``'s board."""
    rights = found.at(stored)
    if rights.can_edit(player):
        return rights
    access.check_change(rights, stored, stored.doc, stored.meta, _names(stored))
    if rights.freed:
        raise access.Forbidden(access.seat_freed(_names(stored)[player]))
    raise access.Forbidden(
        gettext(
            "This is %(name)s's board: only %(name)s's phone or the host can edit it.",
            name=_names(stored)[player],
        )
    )


def _names(stored: db.StoredTable) -> list[str]:
    return [p.get("name", "") for p in stored.doc.get("players", [])]


def edit(table_id: str, change: Change, board: bool = True) -> Response:
    """Apply ``change`` to the player's board (``p``, seen as ``v``) and answer the editor.
    A change to the boards (``board``; marking a photo's doubt checked is none) is refused
    when the table takes no more (:func:`refuse_edit`)."""
    seen = request.form.get("v")
    player = 0
    parsed: Any = None
    found = access.rights_at(table_id)

    def apply(stored: db.StoredTable) -> tuple[dict[str, Any], dict[str, Any]]:
        nonlocal player, parsed
        engine, board_kit = game_and_kit(stored)
        player = edited_player(stored.doc, request.form.get("p"))
        now = require_editable(found, stored, player)
        if seen and seen != sheet_tag(stored.doc, player):
            raise db.Conflict("the sheet changed on another device")
        if board:
            refuse_edit(board_kit, stored.meta)
        doc, meta = change(board_kit, stored, player)
        access.check_change(now, stored, doc, meta, _names(stored))
        try:
            parsed = engine.parse(doc)
        except BoardError as err:
            added = _added_problems(engine, stored.doc, err.problems)
            if added:
                raise EditRefused(_sentence(added)) from None
        return doc, meta

    try:
        stored = db.edit_table(table_id, apply)
    except REFUSALS as err:
        message = str(err)
        current = db.get_table(table_id)
        if finished_meanwhile(current):
            return _finished_meanwhile(current)
        if isinstance(err, db.Conflict):
            message = (
                gettext(STALE_RETRY)
                if request.form.get("retry")
                else stale_message(seen or "", current.doc, player)
            )
        return _answer(current, message, refusal_status(err), found)
    # An edit that changed nothing returns the stored table, which ``parsed`` validated too.
    now = found.at(stored)
    note = g.pop("edit_note", None)  # what a kit's change wants said (a phase recorded)
    return render_editor(stored, player, note, parsed=parsed, rights=now)


def _added_problems(engine: Any, before: dict[str, Any], problems: list[str]) -> list[str]:
    """The problems a change brings that the stored table did not have. A table stored
    under a rule since tightened (Seasons' energy reserve, 5 December) is invalid as it
    stands; refusing every change for any problem anywhere locked every sheet of it, the
    one that would mend it included. A change adding none is taken; the rest still show."""
    try:
        engine.parse(before)
    except BoardError as err:
        return [p for p in problems if p not in err.problems]
    return problems


def finished_meanwhile(current: db.StoredTable) -> bool:
    """Whether a refused change came from an editor drawn before the host finished the
    table (its ``tv`` older than the finished table's version)."""
    seen = request.form.get("tv") or str(current.version)
    return current.finished and is_htmx() and seen != str(current.version)


def _finished_meanwhile(stored: db.StoredTable) -> Response:
    """A change from an editor drawn before the host finished the table: the phone goes to
    the final result, as the live poll takes the other phones there (its refusal's answer
    carried the new version, and the poll then saw nothing new to act on)."""
    resp = Response("", 204)
    resp.headers["HX-Redirect"] = url_for("tables.results", table_id=stored.id)
    return resp


#: "player 'Anna', cell (0, 1): ..." or "..., square (3, 4): ...": the engine names the
#: place, which an edit refused on the player's own board need not (nor can: no coordinates
#: are printed on it); the player knows where they tapped.
_WHERE = re.compile(r"player .*, (?:cell|square) \(-?\d+, -?\d+\): (?P<why>.+)", re.DOTALL)


def _sentence(problems: list[str]) -> str:
    """The engine's first problem, readable on a phone: "Not allowed: ..." ."""
    where = _WHERE.fullmatch(problems[0])
    why = sentence(where["why"] if where else problems[0])
    first = gettext("Not allowed: %(why)s", why=why)
    more = len(problems) - 1
    if more:
        first += ngettext(" (and %(num)d more)", " (and %(num)d more)", more)
    return str(first).rstrip(".") + "."
