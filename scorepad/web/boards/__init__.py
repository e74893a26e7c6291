"""Board editors, one module per game, each implementing the :class:`BoardKit` protocol.

A kit turns the new-table form into a first board-file document, applies one tap or one
field to a document (a pure function: document in, new document out), and prepares what the
board template draws, including the explanations. Validation of the result is the engine's
job (``game.parse``); a kit only refuses what it cannot express (a hex off the sheet, an
unknown tool) with :class:`EditRefused`.

Templates are found by convention under ``templates/boards/<module>/``: ``options.html``
(new-table options), ``palette.html``, ``board.html`` and ``fields.html`` (per-player fields).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib.util import find_spec
from typing import Any, Protocol, cast

from flask_babel import gettext  # type: ignore[import-untyped]

from scorepad import games
from scorepad.hexgrid import Hex
from scorepad.scoring import Result


class EditRefused(ValueError):
    """A tap or form value the board cannot take; the message is shown to the player."""


def unknown_change(form: Mapping[str, str]) -> EditRefused:
    """The refusal of a form's ``action`` no board field knows (an old page, a script),
    naming what was sent."""
    action = (form.get("action") or "").strip()[:40] or "—"
    return EditRefused(
        gettext("Scorepad does not know the change “%(action)s”; reload the page.", action=action)
    )


@dataclass(frozen=True)
class Tool:
    """A palette entry; ``label`` is English, marked for extraction and translated when shown."""

    key: str
    label: str
    #: A colour shown instead of an icon (Harmonies tokens, Spring Meadow squares).
    swatch: str = ""
    #: A sprite (``templates/_sprites.html``) pairing the colour with a symbol or pattern.
    icon: str = ""
    #: The label's translation context ("area" or "token" for colour names).
    context: str = ""


class BoardKit(Protocol):
    NAME: str
    MODULE: str
    #: Whether players score on a paper sheet (its photo is compared "with the paper");
    #: the other games' boards lie on the table with their pieces.
    PAPER: bool
    MAX_PLAYERS: int
    TOOLS: tuple[Tool, ...]

    def options_context(self) -> dict[str, Any]: ...

    def new_table(
        self, form: Mapping[str, str], names: list[str]
    ) -> tuple[dict[str, Any], dict[str, Any]]: ...

    def tap(
        self, doc: dict[str, Any], meta: dict[str, Any], player: int, form: Mapping[str, str]
    ) -> dict[str, Any]: ...

    def set_field(
        self, doc: dict[str, Any], meta: dict[str, Any], player: int, form: Mapping[str, str]
    ) -> tuple[dict[str, Any], dict[str, Any]]: ...

    def board(
        self,
        doc: dict[str, Any],
        meta: dict[str, Any],
        player: int,
        result: Result | None,
        highlight: str | None = None,
    ) -> dict[str, Any]: ...


def refuse_edit(board_kit: BoardKit, meta: Mapping[str, Any]) -> None:
    """Raise :class:`EditRefused` when the table takes no more edits of its boards (a
    kit's optional ``refuse_edit(meta)``: a Spring Meadow game that is over). Taps, fields
    and photos all ask here, before any change is made."""
    refuse = getattr(board_kit, "refuse_edit", None)
    if refuse is not None:
        refuse(meta)


class PhotoKit(Protocol):
    """A kit whose boards can be read from a photo (:mod:`scorepad.web.photos`)."""

    #: How to take the photo, in English (marked with ``N_``), shown under the button.
    PHOTO_TIP: str

    def photo_hints(self, doc: Mapping[str, Any], player: int) -> dict[str, Any]: ...

    def from_photo(
        self, doc: dict[str, Any], meta: Mapping[str, Any], player: int, found: Mapping[str, Any]
    ) -> dict[str, Any]: ...


@cache
def kits() -> dict[str, BoardKit]:
    """Editors for every game whose engine is installed, in the registry's order: the
    module of this package named after the game (``spring-meadow``: ``spring_meadow``).

    Looked up once per process (the callers never change the dict).
    """
    found: dict[str, BoardKit] = {}
    for name in games.available():
        module = games.optional_import(f"{__name__}.{name.replace('-', '_')}")
        if module is not None:
            found[name] = cast(BoardKit, module)
    return found


@cache
def vision_installed() -> bool:
    """Whether this server can read photos (the ``vision`` extra, OpenCV, is installed).

    Looked up, not imported: OpenCV loads only when a photo is read, not on the first page."""
    return find_spec("cv2") is not None


def photo_kit(board_kit: Any) -> PhotoKit | None:
    """The kit as a :class:`PhotoKit`, when its boards can be read from photos."""
    return cast(PhotoKit, board_kit) if hasattr(board_kit, "from_photo") else None


def reads_photos(board_kit: Any) -> bool:
    """Whether the editor of this kit offers the photo button."""
    return photo_kit(board_kit) is not None and vision_installed()


def kit(name: str) -> BoardKit | None:
    return kits().get(name)


@cache
def game(name: str) -> games.Game:
    """The engine of a game, looked up once per process."""
    return games.get(name)


#: A whole number as a player types it: ASCII digits, an optional sign, at most 18 digits.
_WHOLE = re.compile(r"[+-]?[0-9]{1,18}")


def whole_number(raw: str) -> int | None:
    """The number typed in a form field, or ``None``: ``int()`` alone also takes "1_0",
    Arabic-Indic digits and thousands of digits, which a refusal would then echo."""
    text = raw.strip()
    return int(text) if _WHOLE.fullmatch(text) else None


def whole_pair(raw: str) -> tuple[int, int] | None:
    """Two whole numbers typed as ``"a,b"`` (a square or hex a drag sends), or ``None``."""
    parts = raw.split(",")
    if len(parts) != 2:
        return None
    a, b = whole_number(parts[0]), whole_number(parts[1])
    return None if a is None or b is None else (a, b)


def tapped_hex(form: Mapping[str, str]) -> tuple[int, int]:
    """The axial ``q``, ``r`` a tap sends, or :class:`EditRefused`."""
    q, r = whole_number(form.get("q", "")), whole_number(form.get("r", ""))
    if q is None or r is None:
        raise EditRefused(gettext("That tap did not land on a hex."))
    return q, r


def int_field(
    form: Mapping[str, str], key: str, low: int, high: int, label: str, current: Any = None
) -> int:
    """A whole number from a form, within bounds, or :class:`EditRefused` saying why.

    ``label`` names the field in the player's language (the caller translates it). The
    stored ``current`` value is always taken back: an imported file may hold more than the
    form's range (the engine sets no bound), and a form that sends every field at once
    must not refuse the others' changes for it.
    """
    value = whole_number(form.get(key) or "")
    if value is None:
        raise EditRefused(gettext("%(label)s: enter a whole number", label=label))
    if value == current and type(current) is int:
        return value
    if not low <= value <= high:
        raise EditRefused(
            gettext(
                "%(label)s: %(value)s is out of range (%(low)s to %(high)s)",
                label=label,
                value=value,
                low=low,
                high=high,
            )
        )
    return value


def player_index(doc: Mapping[str, Any], raw: str | None) -> int:
    """The player a request names (``p=``), kept within the table's players: a link kept
    from before a player was removed still opens a board."""
    index = whole_number(raw or "") or 0
    return min(max(index, 0), len(doc.get("players", [])) - 1)


def place_name(w: Any, places: Mapping[Hex, tuple[int, int]], h: Hex) -> str:
    """Where a hex is, as a player finds it on the drawn board
    (:func:`scorepad.hexgrid.column_places`)."""
    col, n = places[h]
    return str(w.gettext("column %(col)s, hex %(n)s from the top", col=col, n=n))


def cell_name(label: str, outlined: bool = False, doubted: bool = False) -> str:
    """A cell's accessible name with what its outline says, which is drawn only (a red
    outline: the evidence the paper check asked for; a dashed one: a photo's doubt)."""
    if outlined:
        label = gettext("%(cell)s (outlined: evidence)", cell=label)
    if doubted:
        label = gettext("%(cell)s (to check)", cell=label)
    return label


def edited_player(doc: Mapping[str, Any], raw: str | None) -> int:
    """The player an edit names (``p=``); none named is the first. Unlike
    :func:`player_index`, which keeps an old link opening a board, an edit naming no player
    of the table is refused (:class:`EditRefused`): it must never land on another board."""
    if raw is None:
        return 0
    index = whole_number(raw)
    if index is None or not 0 <= index < len(doc.get("players", [])):
        raise EditRefused(gettext("That change names no player of this table: nothing changed."))
    return index


def with_player_copy(doc: Mapping[str, Any], player: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """A new document sharing every part but ``player``'s, which is a fresh deep copy.

    Taps change one player's part; copying only that part keeps a tap cheap (deepcopy of
    a whole 5-player table costs more than scoring it).
    """
    players = list(doc["players"])
    players[player] = json.loads(json.dumps(players[player]))
    new = {**doc, "players": players}
    return new, players[player]
