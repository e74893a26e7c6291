"""Photos: read a photographed sheet or board into the editor, and keep the photo as evidence.

``POST /t/<id>/photo`` (a ``photo`` file, the player ``p`` and the sheet tag ``v``) runs the
recogniser (:mod:`scorepad.vision`, ``shared/formats.md`` "Recognising a photo") with what
the table already knows (the Sunflower Valley layout, the Harmonies side, the Spring Meadow
burrow layout), puts the result on the player's board as one undoable step, and remembers
in the table's metadata which cells the recogniser was unsure of: the editor outlines them
and lists them first, and a tap on one marks it checked. The photo itself is kept, made
smaller, with the table (``GET /t/<id>/photos/<photo_id>``) and shown beside the board.

``POST /layouts/<id>/photo`` reads the printed layout instead: Sunflower Valley areas and
mountains from an empty or drawn sheet, Spring Meadow burrows from a board side.

Recognition takes about a second of CPU, so it runs before the table is locked; a photo that
is not an image, is too large or shows no board answers 422 with the recogniser's reason and
stores nothing. The vision extra is optional: without OpenCV the button says so (501).
"""

from __future__ import annotations

import io
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from flask import Blueprint, Response, current_app, g, make_response, request
from flask_babel import gettext, ngettext  # type: ignore[import-untyped]
from PIL import Image, ImageOps

from scorepad.boardfile import BoardError
from scorepad.web import access, db
from scorepad.web.boards import (
    EditRefused,
    edited_player,
    photo_kit,
    player_index,
    refuse_edit,
)
from scorepad.web.boards import harmonies as harmonies_kit
from scorepad.web.doubts import checked, flagged, tapped_cells, with_photo
from scorepad.web.editor import (
    REFUSALS,
    edit,
    game_and_kit,
    refusal_status,
    render_editor,
    require_editable,
    sheet_tag,
)
from scorepad.web.layouts import kit_for, not_yours, render_layout
from scorepad.web.vocab import sentence

bp = Blueprint("photos", __name__)

#: Largest photo accepted: a 12 MP phone JPEG is 3-8 MB, a PNG of one up to ~20 MB.
PHOTO_LIMIT = 25 * 1024 * 1024
#: The evidence kept with the board: long side in pixels, JPEG quality.
EVIDENCE_SIDE = 1600
EVIDENCE_QUALITY = 80
#: The table around the board kept in the evidence photo, as a share of the board's size:
#: enough to see that the board is whole, not the room. A board with pieces on it gets
#: more: photographed at an angle, its far stacks stand out past its outline.
EVIDENCE_MARGIN = 0.06
EVIDENCE_MARGIN_PIECES = 0.15
#: Endpoints whose requests may carry a photo (the app raises the upload limit for them).
UPLOAD_ENDPOINTS = frozenset({"photos.board_photo", "photos.layout_photo"})


#: One photo read at a time in a worker: decoding a large PNG or HEIC (no reduced-scale
#: decoding as for JPEG) holds a few hundred MB while it lasts, and a worker's threads reading
#: several at once would multiply that; the next photo waits its turn (about a second).
_one_read = threading.BoundedSemaphore(1)
#: Seconds a photo waits for its turn; then it is refused (503) rather than holding a
#: thread that answers taps and polls for as long as the photos before it take.
READ_WAIT = 20


class PhotoRefused(ValueError):
    """A photo that cannot be used; the message is shown to the player."""

    def __init__(self, message: str, status: int = 422, shown_side: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.shown_side = shown_side  # a Harmonies board of the other side than the table's


def upload() -> bytes:
    """The uploaded ``photo`` file's bytes, or :class:`PhotoRefused` saying what is wrong."""
    file = request.files.get("photo")
    if file is None or not file.filename:
        raise PhotoRefused(gettext("Choose a photo first."))
    data: bytes = file.read()
    if not data:
        raise PhotoRefused(gettext("The photo file is empty."))
    return data


def recognise(data: bytes, game: str, **hints: Any) -> dict[str, Any]:
    """The recogniser's answer for one photo (``layout``/``side``/``whole`` hints), or
    PhotoRefused."""
    return _read(data, game, "recognize", hints)


def recognise_layout(data: bytes, game: str, name: str) -> dict[str, Any]:
    """The layout printed on a photographed sheet or board side, or PhotoRefused."""
    return _read(data, game, "recognize_layout", {"name": name})


def _read(data: bytes, game: str, function: str, hints: dict[str, Any]) -> dict[str, Any]:
    try:
        from scorepad.vision import recognize
        from scorepad.vision.decode import PhotoError
    except ImportError:
        raise PhotoRefused(
            gettext("This server cannot read photos (its vision package is not installed)."),
            501,
        ) from None
    if not _one_read.acquire(timeout=READ_WAIT):
        raise PhotoRefused(
            gettext("Other photos are being read on this server; try again in a moment."), 503
        )
    try:
        found: dict[str, Any] = getattr(recognize, function)(data, game=game, **hints)
    except PhotoError as err:
        why = sentence(str(err))
        message = gettext("The photo could not be read: %(why)s", why=why)
        raise PhotoRefused(message, shown_side=getattr(err, "shown", None)) from None
    except BoardError as err:
        raise PhotoRefused(sentence(err.problems[0])) from None
    except Exception:  # a recogniser bug on an odd photo: logged, and the page stays usable
        current_app.logger.exception("the recogniser failed on a %s photo", game)
        raise PhotoRefused(
            gettext("The photo could not be read: the recogniser failed on it. Try another."),
            500,
        ) from None
    finally:
        _one_read.release()
    return found


def checks(found: Mapping[str, Any]) -> list[list[int]]:
    """The flagged cells of a recognition, as ``[q, r]`` or ``[row, col]``, least sure first."""
    flagged = sorted(
        (c for c in found.get("confidence", []) if c.get("flagged")), key=lambda c: c["p"]
    )
    return [[c["q"], c["r"]] if "q" in c else [c["row"], c["col"]] for c in flagged]


def board_checks(found: Mapping[str, Any]) -> list[list[int]]:
    """:func:`checks` for a player's board: without the mountains of a Sunflower Valley
    sheet, which the table's layout fixes and no tap can change (outlined, a tap on one
    was refused and the outline stayed)."""
    fixed = {(c["q"], c["r"]) for c in found["player"].get("cells", []) if c.get("mountain")}
    return [c for c in checks(found) if (c[0], c[1]) not in fixed]


def evidence_crop(result: Mapping[str, Any], paper: bool) -> tuple[Any, float]:
    """Where to crop the evidence photo: the board's outline and its margin, or nothing
    when the recogniser doubted where the sheet or board is (its outline may be wrong,
    and the photo is all the evidence there is)."""
    if result.get("sheet_doubted") or result.get("board_doubted"):
        return (), 0.0
    return result.get("outline", ()), EVIDENCE_MARGIN if paper else EVIDENCE_MARGIN_PIECES


def evidence(data: bytes, crop: tuple[Any, float] = ((), 0.0)) -> bytes:
    """The photo made small enough to keep: upright (EXIF), cropped to the board found in
    it (``crop``: its corners as fractions of the photo, and a margin as a share of its
    size), at most EVIDENCE_SIDE, JPEG.

    Called only after the recogniser read the photo, so the file is a sound image."""
    with Image.open(io.BytesIO(data)) as opened:
        opened.draft("RGB", (EVIDENCE_SIDE, EVIDENCE_SIDE))  # JPEG: decode at a smaller scale
        image = ImageOps.exif_transpose(opened).convert("RGB")
    outline, margin = crop
    if len(outline) >= 3:
        image = image.crop(_board_box(outline, margin, image.size))
    image.thumbnail((EVIDENCE_SIDE, EVIDENCE_SIDE))
    out = io.BytesIO()
    image.save(out, "JPEG", quality=EVIDENCE_QUALITY, optimize=True)
    return out.getvalue()


# --- views --------------------------------------------------------------------------------------


@bp.post("/t/<table_id>/photo")
def board_photo(table_id: str) -> Response:
    found = access.rights_at(table_id)
    stored = db.get_table(table_id)
    player = player_index(stored.doc, request.form.get("p"))  # the board a refusal shows
    try:
        player = edited_player(stored.doc, request.form.get("p"))  # never another one's
        require_editable(found, stored, player)
        engine, board_kit = game_and_kit(stored)
        reader = photo_kit(board_kit)
        if reader is None:
            raise PhotoRefused(gettext("Photos cannot be read for this game."))
        try:
            refuse_edit(board_kit, stored.meta)  # before the photo is read
        except EditRefused as err:
            raise PhotoRefused(str(err)) from None
        data = upload()
        result = recognise(data, stored.game, **reader.photo_hints(stored.doc, player))
    except (PhotoRefused, EditRefused) as err:
        status = err.status if isinstance(err, PhotoRefused) else 422
        return render_editor(
            stored, player, refusal_advice(err, stored, found), status, rights=found
        )
    except access.Forbidden as err:
        return render_editor(stored, player, str(err), 403, rights=found)
    seen = request.form.get("v")
    check = board_checks(result)
    notes: list[tuple[str, bool]] = [("", False)]

    def apply(current: db.StoredTable) -> tuple[dict[str, Any], dict[str, Any]]:
        # Asked again: the table may have been finished, the game won or the seat freed
        # while the photo was read (about a second).
        require_editable(found, current, player)
        refuse_edit(board_kit, current.meta)
        if seen and seen != sheet_tag(current.doc, player):
            raise db.Conflict("the sheet changed while the photo was read")
        doc = reader.from_photo(current.doc, current.meta, player, result)
        try:
            parsed = engine.parse(doc)
        except BoardError as err:
            raise EditRefused(
                gettext(
                    "The photo was read, but the board it shows is not allowed: %(why)s",
                    why=sentence(err.problems[0]),
                )
            ) from None
        note_of = getattr(reader, "photo_note", None)  # what else it showed (a tally)
        if note_of is not None:
            notes[0] = note_of(current.doc, parsed, player, result)
        return doc, with_photo(current.meta, player, photo_id, check)

    photo_id = keep(table_id, player, data, evidence_crop(result, board_kit.PAPER))
    try:
        stored = db.edit_table(table_id, apply)
    except REFUSALS as err:
        db.delete_photo(table_id, photo_id)  # evidence of nothing stored
        message = str(err)
        if isinstance(err, db.Conflict):
            message = gettext(
                "The board changed while the photo was being read; here it is now. "
                "Choose the photo again to read it."
            )
        status = refusal_status(err)
        return render_editor(db.get_table(table_id), player, message, status, rights=found)
    note, note_warns = notes[0]
    warnings = [doubted_sheet(result), layout_warning(result)]
    advice = angle_advice(result, len(check))
    message = " ".join(
        filter(None, [read_message(len(check), board_kit.PAPER), note, advice, *warnings])
    )
    kind = "warning" if any(warnings) or note_warns else "info"
    return render_editor(stored, player, message, rights=found, kind=kind)


def refusal_advice(err: Exception, stored: db.StoredTable, rights: access.Rights) -> str:
    """The refusal as shown; a photo of the other Harmonies side, while every board is
    empty, points at the side switch (a seated phone: at the host, whose it is) instead
    of at starting a new table."""
    shown = getattr(err, "shown_side", None)
    if not shown or not harmonies_kit.all_empty(stored.doc):
        return str(err)
    side = (stored.doc.get("options") or {}).get("side", "A")
    if not rights.can_edit_all:  # a seated phone: the side is every board's, the host's
        return str(
            gettext(
                "The board in the photo is side %(shown)s, but this table plays side "
                "%(side)s. Every board is still empty: the host can switch the table to side "
                "%(shown)s, then choose the photo again.",
                shown=shown,
                side=side,
            )
        )
    return str(
        gettext(
            "The board in the photo is side %(shown)s, but this table plays side %(side)s. "
            "Every board is still empty: choose side %(shown)s under “Personal board side”, "
            "then choose the photo again.",
            shown=shown,
            side=side,
        )
    )


def _board_box(
    outline: Sequence[Sequence[float]], margin: float, size: tuple[int, int]
) -> tuple[int, int, int, int]:
    """The pixel box around a board's outline and a margin, inside the image; the whole
    image for an outline that makes no box (the photo is then kept whole)."""
    width, height = size
    xs, ys = [p[0] for p in outline], [p[1] for p in outline]
    pad_x, pad_y = margin * (max(xs) - min(xs)), margin * (max(ys) - min(ys))
    box = (
        max(0, int((min(xs) - pad_x) * width)),
        max(0, int((min(ys) - pad_y) * height)),
        min(width, int(round((max(xs) + pad_x) * width))),
        min(height, int(round((max(ys) + pad_y) * height))),
    )
    if box[2] - box[0] < 32 or box[3] - box[1] < 32:
        return (0, 0, width, height)
    return box


def keep(table_id: str, player: int, data: bytes, crop: tuple[Any, float] = ((), 0.0)) -> str:
    """Store the photo as evidence, cropped to the board found in it (``crop``); its id
    ("" when Pillow cannot re-encode it, e.g. a HEIC read through a plug-in only the
    recogniser has: the board is still read)."""
    try:
        small = evidence(data, crop)
    except (OSError, ValueError, Image.DecompressionBombError):
        current_app.logger.warning("a photo of table %s could not be kept", table_id)
        return ""
    return db.add_photo(table_id, player, "image/jpeg", small)


def read_message(flags: int, paper: bool, lasting: bool = True) -> str:
    """What a photo's answer says first: how many cells it outlined, if any. A layout keeps
    no doubts (not ``lasting``: it has no undo and no list of cells to check), so its
    outlines show on this answer only and it says to look now, not "check them first"."""
    if flags and not lasting:
        return str(
            ngettext(
                "Photo read. %(num)d outlined cell was hard to read: look at it now (the outline "
                "goes with the next change).",
                "Photo read. %(num)d outlined cells were hard to read: look at them now (the "
                "outlines go with the next change).",
                flags,
            )
        )
    if not flags:
        if paper:  # a paper sheet; the other games' boards lie on the table (``BoardKit.PAPER``)
            return str(
                gettext("Photo read. Nothing looked doubtful; still, compare it with the paper.")
            )
        return str(
            gettext(
                "Photo read. Nothing looked doubtful; still, compare it with the board on the "
                "table."
            )
        )
    return str(
        ngettext(
            "Photo read. Check the %(num)d outlined cell first.",
            "Photo read. Check the %(num)d outlined cells first.",
            flags,
        )
    )


def angle_advice(result: Mapping[str, Any], flags: int) -> str:
    """A tip when a Harmonies photo was taken from nearly straight above (the recogniser's
    ``straight_down``) and left ``flags`` hexes in doubt: from there a stack's height
    hardly shows, and a photo at an angle leaves about a third as many hexes to check
    (``scorepad.vision.harmonies.STRAIGHT_DOWN``)."""
    if not result.get("straight_down") or not flags:
        return ""
    return str(
        gettext(
            "Taken from straight above, the heights of the stacks hardly show: a photo at "
            "an angle, as you see the board from your seat, leaves fewer hexes to check."
        )
    )


def doubted_sheet(result: Mapping[str, Any]) -> str:
    """A word when the recogniser doubted the whole sheet (``sheet_doubted``: its hex grid
    was not found as a sheet prints it, e.g. under a strong shadow, blurred, or on a photo
    of another game's board) or the whole Harmonies board (``board_doubted``: found by the
    tokens on its hexes, its outline fitting the print poorly), which outlines every cell."""
    if result.get("board_doubted"):
        return str(
            gettext(
                "The board was hard to find in the photo, so every hex is outlined: a photo "
                "of the whole board on a plainer table may read better."
            )
        )
    if not result.get("sheet_doubted"):
        return ""
    return str(
        gettext(
            "The sheet was hard to read, so every cell is outlined: a sharper photo of the "
            "whole sheet, flat and from above, may read better."
        )
    )


#: A photo read against its own layout differs from it nowhere (0 on every trusted grid of
#: 59 Sunflower Valley and on 30 Spring Meadow validation photos); against another layout at
#: 8 hexes or 6 squares or more.
LAYOUT_MISMATCH = 4


def layout_warning(result: Mapping[str, Any]) -> str:
    """A word when the photographed sheet or board side is printed otherwise than the
    table's layout (``layout_differences``, the recogniser's extension of the contract): the
    table was probably started with another layout than the one on the table."""
    differences = result.get("layout_differences") or 0
    if differences < LAYOUT_MISMATCH:
        return ""
    if result.get("game") == "spring-meadow":
        return str(
            ngettext(
                "The board in the photo shows its burrows otherwise than this table's layout "
                "at %(num)d square: is it the right board side?",
                "The board in the photo shows its burrows otherwise than this table's layout "
                "at %(num)d squares: is it the right board side?",
                differences,
            )
        )
    return str(
        ngettext(
            "The sheet in the photo is printed differently from this table's layout at "
            "%(num)d hex: is it the right layout?",
            "The sheet in the photo is printed differently from this table's layout at "
            "%(num)d hexes: is it the right layout?",
            differences,
        )
    )


@bp.post("/t/<table_id>/photo/checked")
def mark_checked(table_id: str) -> Response:
    """The player looked at one outlined cell (``a``, ``b``), or at all of them."""
    named = "a" in request.form or "b" in request.form  # one cell, else "All checked"
    one = tapped_cells({"q": request.form.get("a", ""), "r": request.form.get("b", "")})

    def look(_kit: Any, stored: db.StoredTable, player: int) -> tuple[Any, Any]:
        if named and not one:  # a cell that is none is not "all of them"
            raise EditRefused(gettext("That cell is not on the board: nothing was marked."))
        meta = checked(stored.meta, player, one or None)
        left = len(flagged(meta, player))
        # Said, as the outline that went is only seen: the keyboard moved on silently.
        g.edit_note = (
            ngettext("%(num)d cell left to check.", "%(num)d cells left to check.", left)
            if left
            else gettext("Every cell is checked.")
        )
        return stored.doc, meta

    return edit(table_id, look, board=False)


@bp.get("/t/<table_id>/photos/<photo_id>")
def show_photo(table_id: str, photo_id: str) -> Response:
    photo = db.get_photo(table_id, photo_id)
    resp = make_response(photo.data)
    resp.mimetype = photo.mime
    resp.headers["Cache-Control"] = "private, max-age=31536000, immutable"  # ids never reused
    return resp


@bp.post("/layouts/<layout_id>/photo")
def layout_photo(layout_id: str) -> Response:
    stored = db.get_layout(layout_id)
    board_kit = kit_for(stored)
    if (refused := not_yours(stored)) is not None:
        return refused
    try:
        found = recognise_layout(upload(), stored.game, stored.name)
    except PhotoRefused as err:
        return render_layout(stored, str(err), err.status)
    check = checks(found)
    doubted = doubted_sheet(found)

    def replace_layout(current: db.StoredLayout) -> tuple[str, dict[str, Any]]:
        # A sheet doubted as a whole was most likely read on a wrong hex grid (validation
        # photos: 2 of the 3 doubted): it may fill a blank layout, every cell outlined, but
        # never replace one painted or read before (layouts have no undo).
        if doubted and current.data != board_kit.blank_layout(current.name, None):
            raise EditRefused(
                gettext(
                    "The sheet was hard to read, so the layout was kept as it was: a sharper "
                    "photo of the whole sheet, flat and from above, may read better."
                )
            )
        return current.name, found["layout"]

    try:
        stored = db.edit_layout(layout_id, replace_layout, access.device())
    except EditRefused as err:
        return render_layout(db.get_layout(layout_id), str(err), 422)
    # A layout read but not as a side is printed (a Spring Meadow side with tiles on it:
    # 7 burrows of 11) is listed under the board; the message says so, in amber.
    unfinished = bool(board_kit.layout_problems(found["layout"]))
    hint = ""
    if unfinished:
        hint = (
            gettext(
                "The layout read is not finished (see under the board): photograph the whole "
                "sheet, before anything is drawn on it."
            )
            if board_kit.PAPER
            else gettext(
                "The layout read is not finished (see under the board): photograph the whole "
                "board side with nothing on it, before play."
            )
        )
    said = read_message(len(check), board_kit.PAPER, lasting=False)
    message = " ".join(filter(None, [said, doubted, hint]))
    flagged = {(a, b) for a, b in check}
    kind = "warning" if doubted or unfinished else "info"
    return render_layout(stored, message, flagged=flagged, kind=kind)
