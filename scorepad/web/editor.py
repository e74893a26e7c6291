"""Board editors: every tap is a small request that edits, validates, re-scores and renders.

``POST /t/<id>/tap`` and ``POST /t/<id>/field`` apply one change to the stored document
through the game's board kit, validate the new document with the engine (``game.parse``)
and answer with the ``#editor`` fragment: the board and the live breakdown together. An
invalid change stores nothing and answers 422 with the reason inline; an edit made from a
stale page (``v`` is not the stored version) answers 409 with the current board.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

from flask import Blueprint, Response, request

from scorepad.boardfile import BoardError
from scorepad.games import Game
from scorepad.scoring import Result
from scorepad.web import db
from scorepad.web.boards import BoardKit, EditRefused, game, kit, player_index
from scorepad.web.htmx import page_or_fragment

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


def editor_context(
    stored: db.StoredTable,
    player: int,
    message: str | None = None,
    kind: str = "error",
    parsed: Any = None,
) -> dict[str, Any]:
    engine, board_kit = game_and_kit(stored)
    result, problems = scored(engine, stored.doc, parsed)
    return {
        "table": stored,
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
    }


def sheet_tag(doc: dict[str, Any], player: int) -> str:
    """A short fingerprint of one player's part of the document."""
    text = json.dumps(doc["players"][player], sort_keys=True, separators=(",", ":"))
    return hashlib.blake2b(text.encode(), digest_size=6).hexdigest()


def render_editor(
    stored: db.StoredTable,
    player: int,
    message: str | None = None,
    status: int = 200,
    parsed: Any = None,
) -> Response:
    kind = "error" if status >= 400 else "info"
    ctx = editor_context(stored, player, message, kind, parsed)
    return page_or_fragment("editor/page.html", "editor/_editor.html", status, **ctx)


@bp.get("/t/<table_id>")
def show(table_id: str) -> Response:
    stored = db.get_table(table_id)
    return render_editor(stored, player_index(stored.doc, request.args.get("p")))


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
    return _edit(table_id, lambda k, s, p: (k.tap(s.doc, s.meta, p, request.form), s.meta))


@bp.post("/t/<table_id>/field")
def field(table_id: str) -> Response:
    return _edit(table_id, lambda k, s, p: k.set_field(s.doc, s.meta, p, request.form))


@bp.post("/t/<table_id>/undo")
def undo(table_id: str) -> Response:
    stored = db.undo(table_id)
    return render_editor(stored, player_index(stored.doc, request.form.get("p")))


@bp.post("/t/<table_id>/redo")
def redo(table_id: str) -> Response:
    stored = db.redo(table_id)
    return render_editor(stored, player_index(stored.doc, request.form.get("p")))


def _edit(table_id: str, change: Change) -> Response:
    seen = request.form.get("v")
    player = 0
    parsed: Any = None

    def apply(stored: db.StoredTable) -> tuple[dict[str, Any], dict[str, Any]]:
        nonlocal player, parsed
        engine, board_kit = game_and_kit(stored)
        player = player_index(stored.doc, request.form.get("p"))
        if seen and seen != sheet_tag(stored.doc, player):
            raise db.Conflict("the sheet changed on another device")
        doc, meta = change(board_kit, stored, player)
        try:
            parsed = engine.parse(doc)
        except BoardError as err:
            raise EditRefused(_sentence(err.problems)) from None
        return doc, meta

    try:
        stored = db.edit_table(table_id, apply)
    except EditRefused as err:
        stored = db.get_table(table_id)
        return render_editor(stored, player, str(err), 422)
    except db.Conflict:
        stored = db.get_table(table_id)
        player = player_index(stored.doc, request.form.get("p"))
        note = "This sheet was changed on another device; here it is now. Tap again."
        return render_editor(stored, player, note, 409)
    # An edit that changed nothing returns the stored table, which ``parsed`` validated too.
    return render_editor(stored, player, parsed=parsed)


def _sentence(problems: list[str]) -> str:
    """The engine's first problem, readable on a phone: "Not allowed: ..." ."""
    first = problems[0]
    more = len(problems) - 1
    return f"Not allowed: {first}" + (f" (and {more} more)" if more else "")
