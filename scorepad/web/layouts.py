"""Layouts: Sunflower Valley sheet layouts and Spring Meadow burrow layouts.

The real layouts are not published, so a table paints its own once (areas and mountains on
an empty hex canvas; burrows on the 10 × 15 grid) and later tables reuse it. Each game's
board kit supplies the layout functions (``LAYOUT_TOOLS``, ``blank_layout``,
``layout_tap``, ``layout_board``, ``layout_problems``, ``example_layout_doc``); a layout is
stored as the engine's layout document and checked by the engine's ``parse_layout``.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from flask import Blueprint, Response, request
from flask_babel import gettext  # type: ignore[import-untyped]

from scorepad import games
from scorepad.boardfile import readable_name
from scorepad.web import access, db
from scorepad.web.boards import EditRefused, kits, reads_photos
from scorepad.web.htmx import page_or_fragment, redirect_to
from scorepad.web.seats import client_address, limit_setting

bp = Blueprint("layouts", __name__, url_prefix="/layouts")

#: The most characters of a layout's name.
MAX_LAYOUT_NAME = 80

#: (layouts, seconds) one client address may create or copy: plenty for a group painting its
#: sheets, too few to bury everyone's list (every phone sees every layout).
NEW_LAYOUT_LIMIT = (30, 3600)


def layout_kits() -> dict[str, Any]:
    return {name: k for name, k in kits().items() if hasattr(k, "LAYOUT_TOOLS")}


def kit_for(stored: db.StoredLayout) -> Any:
    found = layout_kits().get(stored.game)
    if found is None:
        raise db.NotFound("no layout editor for this game")
    return found


def render_list(message: str | None = None, status: int = 200) -> Response:
    """Every stored layout (any table may use any), this phone's own apart from the others'
    (those from before owners among them: the first phone to change one takes it)."""
    available = layout_kits()
    device = access.device()
    mine: list[db.StoredLayout] = []
    others: list[db.StoredLayout] = []
    for lay in db.list_layouts():
        if lay.game in available:
            (mine if lay.owner is not None and lay.owner == device else others).append(lay)
    return page_or_fragment(
        "layouts/index.html",
        "layouts/_list.html",
        status,
        games=[(name, games.get(name).title) for name in available],
        examples=[(name, k.example_layout_doc()["name"]) for name, k in available.items()],
        stored=mine,
        others=others,
        titles={name: games.get(name).title for name in available},
        message=message,
    )


@bp.get("")
def index() -> Response:
    return render_list()


def _too_many() -> Response | None:
    """429 once this address made its share of layouts for the hour."""
    limit, period = limit_setting("NEW_LAYOUT_LIMIT", NEW_LAYOUT_LIMIT)
    if db.take(f"layout:{client_address()}", limit, period):
        return None
    resp = render_list(gettext("Too many new layouts from this network. Try again later."), 429)
    resp.headers["Retry-After"] = str(period)
    return resp


@bp.post("")
def create() -> Response:
    available = layout_kits()
    game = request.form.get("game", "")
    name = request.form.get("name", "").strip()
    board_kit = available.get(game)
    message = None
    if board_kit is None:
        message = gettext("Choose one of the listed games.")
    elif not name:
        message = gettext(
            "Give the layout a name (up to 80 characters), e.g. the letter of the sheet."
        )
    else:
        message = name_problem(name)
    if message or board_kit is None:
        return render_list(message, 422)
    if (refused := _too_many()) is not None:
        return refused
    start = board_kit.example_layout_doc() if request.form.get("start") == "example" else None
    data = board_kit.blank_layout(name, start)
    layout_id = db.create_layout(game, name, data, owner=access.ensure_device())
    return redirect_to("layouts.edit", layout_id=layout_id)


@bp.post("/<layout_id>/copy")
def copy(layout_id: str) -> Response:
    """A layout of this phone's own, to change, from one another phone made."""
    stored = db.get_layout(layout_id)
    kit_for(stored)
    if (refused := _too_many()) is not None:
        return refused
    base = stored.name  # shortened until "… (copy)" fits the 80 characters of a name
    while len(gettext("%(name)s (copy)", name=base)) > MAX_LAYOUT_NAME:
        base = base[:-1].rstrip()
    name = gettext("%(name)s (copy)", name=base)
    data = {**stored.data, "name": name}
    copied = db.create_layout(stored.game, name, data, owner=access.ensure_device())
    return redirect_to("layouts.edit", layout_id=copied)


def not_yours(stored: db.StoredLayout) -> Response | None:
    """403 with the layout as it is, when another phone made it (it may use it, not change it)."""
    if stored.may_change(access.device()):
        return None
    message = gettext(
        "Another phone made this layout: tables can use it, but only that phone changes it. "
        "Copy it to change a layout of your own."
    )
    return render_layout(stored, message, 403)


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
        mine=stored.may_change(access.device()),
    )


@bp.get("/<layout_id>")
def edit(layout_id: str) -> Response:
    return render_layout(db.get_layout(layout_id))


@bp.post("/<layout_id>/tap")
def tap(layout_id: str) -> Response:
    stored = db.get_layout(layout_id)
    board_kit = kit_for(stored)
    if (refused := not_yours(stored)) is not None:
        return refused

    def change(current: db.StoredLayout) -> tuple[str, dict[str, Any]]:
        return current.name, board_kit.layout_tap(current.data, request.form)

    try:
        stored = db.edit_layout(layout_id, change, access.device())
    except EditRefused as err:
        return render_layout(stored, str(err), 422)
    return render_layout(stored)


def name_problem(name: str) -> str | None:
    """What is wrong with a layout's new name (already stripped of spaces), said as such: a
    name of spaces alone was told it "needs a name of 1 to 80 characters"."""
    if len(name) > MAX_LAYOUT_NAME:
        return str(
            gettext(
                "The name is too long: a layout's name has at most %(n)s characters (this one "
                "has %(m)s).",
                n=MAX_LAYOUT_NAME,
                m=len(name),
            )
        )
    if any(unicodedata.category(ch) == "Cc" for ch in name):
        return str(
            gettext("The name holds a control character (a tab or a line break): type it again.")
        )
    if not readable_name(name):  # nothing but spaces, or invisible characters
        return str(gettext("The name is blank: type a name (spaces alone are not one)."))
    return None


@bp.post("/<layout_id>/rename")
def rename(layout_id: str) -> Response:
    stored = db.get_layout(layout_id)
    if (refused := not_yours(stored)) is not None:
        return refused
    name = request.form.get("name", "").strip()
    if (message := name_problem(name)) is not None:
        return render_layout(stored, message, 422)

    def change(current: db.StoredLayout) -> tuple[str, dict[str, Any]]:
        return name, {**current.data, "name": name}

    renamed = db.edit_layout(layout_id, change, access.device())
    return render_layout(renamed, gettext("Layout renamed to “%(name)s”.", name=name))


@bp.post("/<layout_id>/delete")
def delete(layout_id: str) -> Response:
    if (refused := not_yours(db.get_layout(layout_id))) is not None:
        return refused
    db.delete_layout(layout_id)
    return redirect_to("layouts.index")
