"""Layouts: Sunflower Valley sheet layouts and Spring Meadow burrow layouts.

The real layouts are not published, so a table paints its own once (areas and mountains on
an empty hex canvas; burrows on the 10 × 15 grid) and later tables reuse it. Each game's
board kit supplies the layout functions (``LAYOUT_TOOLS``, ``blank_layout``,
``layout_tap``, ``layout_board``, ``layout_problems``, ``example_layout_doc``); a layout is
stored as the engine's layout document and checked by the engine's ``parse_layout``.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, request
from flask_babel import gettext  # type: ignore[import-untyped]

from scorepad import games
from scorepad.boardfile import readable_name
from scorepad.web import db
from scorepad.web.boards import EditRefused, kits, reads_photos
from scorepad.web.htmx import page_or_fragment, redirect_to

bp = Blueprint("layouts", __name__, url_prefix="/layouts")


def layout_kits() -> dict[str, Any]:
    return {name: k for name, k in kits().items() if hasattr(k, "LAYOUT_TOOLS")}


def kit_for(stored: db.StoredLayout) -> Any:
    found = layout_kits().get(stored.game)
    if found is None:
        raise db.NotFound("no layout editor for this game")
    return found


@bp.get("")
def index() -> Response:
    available = layout_kits()
    return page_or_fragment(
        "layouts/index.html",
        "layouts/_list.html",
        games=[(name, games.get(name).title) for name in available],
        examples=[(name, k.example_layout_doc()["name"]) for name, k in available.items()],
        stored=[lay for lay in db.list_layouts() if lay.game in available],
        titles={name: games.get(name).title for name in available},
        message=None,
    )


@bp.post("")
def create() -> Response:
    available = layout_kits()
    game = request.form.get("game", "")
    name = request.form.get("name", "").strip()
    board_kit = available.get(game)
    message = None
    if board_kit is None:
        message = gettext("Choose one of the listed games.")
    elif not name or len(name) > 80 or not readable_name(name):
        message = gettext(
            "Give the layout a name (up to 80 characters), e.g. the letter of the sheet."
        )
    if message or board_kit is None:
        return page_or_fragment(
            "layouts/index.html",
            "layouts/_list.html",
            422,
            games=[(n, games.get(n).title) for n in available],
            examples=[(n, k.example_layout_doc()["name"]) for n, k in available.items()],
            stored=[lay for lay in db.list_layouts() if lay.game in available],
            titles={n: games.get(n).title for n in available},
            message=message,
        )
    start = board_kit.example_layout_doc() if request.form.get("start") == "example" else None
    data = board_kit.blank_layout(name, start)
    layout_id = db.create_layout(game, name, data)
    return redirect_to("layouts.edit", layout_id=layout_id)


def render_layout(
    stored: db.StoredLayout,
    message: str | None = None,
    status: int = 200,
    flagged: set[tuple[int, int]] | None = None,
    kind: str = "info",
) -> Response:
    """The layout editor; ``flagged`` cells (just read from a photo) are outlined; the
    message is an error from ``status`` 400 on, else of ``kind`` ("info", "warning")."""
    board_kit = kit_for(stored)
    return page_or_fragment(
        "layouts/page.html",
        "layouts/_editor.html",
        status,
        layout=stored,
        kit=board_kit,
        game=games.get(stored.game),
        board=board_kit.layout_board(stored.data, flagged or set()),
        problems=board_kit.layout_problems(stored.data),
        message=message,
        message_kind="error" if status >= 400 else kind,
        photos=reads_photos(board_kit),
        # Layouts have no undo: a photo read over one painted or read before asks first.
        blank=stored.data == board_kit.blank_layout(stored.name, None),
    )


@bp.get("/<layout_id>")
def edit(layout_id: str) -> Response:
    return render_layout(db.get_layout(layout_id))


@bp.post("/<layout_id>/tap")
def tap(layout_id: str) -> Response:
    stored = db.get_layout(layout_id)
    board_kit = kit_for(stored)

    def change(current: db.StoredLayout) -> tuple[str, dict[str, Any]]:
        return current.name, board_kit.layout_tap(current.data, request.form)

    try:
        stored = db.edit_layout(layout_id, change)
    except EditRefused as err:
        return render_layout(stored, str(err), 422)
    return render_layout(stored)


@bp.post("/<layout_id>/rename")
def rename(layout_id: str) -> Response:
    stored = db.get_layout(layout_id)
    name = request.form.get("name", "").strip()
    if not name or len(name) > 80 or not readable_name(name):
        message = gettext("A layout needs a name of 1 to 80 characters.")
        return render_layout(stored, message, 422)

    def change(current: db.StoredLayout) -> tuple[str, dict[str, Any]]:
        return name, {**current.data, "name": name}

    return render_layout(db.edit_layout(layout_id, change))


@bp.post("/<layout_id>/delete")
def delete(layout_id: str) -> Response:
    db.delete_layout(layout_id)
    return redirect_to("layouts.index")
