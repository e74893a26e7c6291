"""The printed Harmonies personal board: its sizes, the token and print colours a photo
is read against, and where each side's hexes lie (``docs/vision-boards.md``, "The boards
we print").
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from scorepad.games.harmonies import board_hexes
from scorepad.hexgrid import Hex, Layout, Orientation, bounding_box
from scorepad.vision.board_print import BoardSpec

#: The printed board, in millimetres (``docs/vision-boards.md``, "The boards we print").
HEX_SIZE = 17.5  # centre to corner of a printed hex space
TOKEN_RADIUS = 12.5
TOKEN_THICKNESS = 6.0
CUBE_SIDE = 7.0
MARGIN = 12.0  # plain border left, right and below the hexes
HEADER = 22.0  # border above the hexes, holding the title band
BAND = (3.0, 17.0)  # the title band's top and bottom, from the board's top edge

#: Colours of the printed board and of the tokens, relative to the board's cream (what a
#: photo shows after dividing by the cream around the hexes). Measured on the components.
CREAM = np.array((232, 224, 203), np.float32)
REFERENCE: dict[str, tuple[int, int, int]] = {
    "blue": (45, 110, 190),
    "grey": (128, 130, 132),
    "brown": (118, 74, 42),
    "green": (52, 135, 60),
    "yellow": (232, 196, 48),
    "red": (192, 48, 42),
    "empty": (244, 238, 222),
}

WORK_SIDE = 2000  # long side of the decoded photo we work on
PPM = 4.0  # pixels per mm of the re-projected board


@dataclass(frozen=True)
class BoardPrint:
    """Where things are printed on one side of the board (mm, origin top-left)."""

    side: str
    width: float
    height: float
    centres: dict[Hex, tuple[float, float]]
    layout: Layout

    @property
    def aspect(self) -> float:
        return self.width / self.height


@cache
def board_print(side: str) -> BoardPrint:
    """The printed geometry of board side ``"A"`` or ``"B"``: flat-top hexes in columns."""
    hexes = board_hexes(side)
    unit = Layout(Orientation.FLAT, HEX_SIZE)
    x0, y0, x1, y1 = bounding_box(unit, hexes)
    layout = Layout(Orientation.FLAT, HEX_SIZE, (MARGIN - x0, HEADER - y0))
    centres = {h: layout.to_pixel(h) for h in hexes}
    return BoardPrint(side, x1 - x0 + 2 * MARGIN, y1 - y0 + MARGIN + HEADER, centres, layout)


@cache
def board_spec(side: str) -> BoardSpec:
    """The fixed print of a side (margins, title band) for finding it in a photo."""
    b = board_print(side)
    return BoardSpec(side, b.width, b.height, MARGIN, HEADER, BAND)
