"""Hex geometry, once, in Red Blob Games' axial conventions.

Every hex board in Scorepad (Sunflower Valley sheets, Harmonies boards) uses this module and
nothing else for neighbours, sides, rotations and pixel positions. Conventions are those of
``shared/rules/README.md``:

* a hex is ``Hex(q, r)`` in axial coordinates (the cube coordinate ``s`` is ``-q - r``);
* the six sides are indexed 0..5, side ``d`` leading to the neighbour ``hex + STEPS[d]``;
* the same side seen from the neighbour is ``opposite(d) == (d + 3) % 6``;
* printed boards in columns (flat-top, odd columns half a hex lower) convert with *odd-q*.

Index order runs counter-clockwise on screen (y grows downwards), so ``rotate(h, k)`` turns by
``k`` sixth-turns in the direction that maps side ``d`` onto side ``d + k``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache
from typing import NamedTuple


class Hex(NamedTuple):
    """An axial hex coordinate; a plain, hashable value."""

    q: int
    r: int

    @property
    def s(self) -> int:
        return -self.q - self.r

    def __str__(self) -> str:
        return f"({self.q}, {self.r})"


ORIGIN = Hex(0, 0)

#: Axial step across side d, for d = 0..5 (see the table in the rules digest).
STEPS: tuple[Hex, ...] = (Hex(1, 0), Hex(1, -1), Hex(0, -1), Hex(-1, 0), Hex(-1, 1), Hex(0, 1))

#: Compass names of the sides on flat-top and pointy-top boards.
FLAT_NAMES = ("SE", "NE", "N", "NW", "SW", "S")
POINTY_NAMES = ("E", "NE", "NW", "W", "SW", "SE")

SIDES = range(6)


def opposite(side: int) -> int:
    """The same side seen from the neighbour across it."""
    return (side + 3) % 6


def neighbor(h: Hex, side: int) -> Hex:
    """The hex across ``side`` of ``h``."""
    step = STEPS[side]
    return Hex(h.q + step.q, h.r + step.r)


@lru_cache(maxsize=1 << 16)
def neighbors(h: Hex) -> tuple[Hex, ...]:
    """The six neighbours of ``h``, in side order 0..5 (cached: scoring asks for them often)."""
    q, r = h
    return tuple(Hex(q + dq, r + dr) for dq, dr in STEPS)


def side_between(a: Hex, b: Hex) -> int | None:
    """The side of ``a`` that ``b`` lies across, or None when they are not neighbours."""
    delta = Hex(b.q - a.q, b.r - a.r)
    try:
        return STEPS.index(delta)
    except ValueError:
        return None


def side_gap(a: int, b: int) -> int:
    """How many sixth-turns separate two sides (0..3): 3 is straight, 2 a curve, 1 adjacent."""
    d = (a - b) % 6
    return min(d, 6 - d)


def distance(a: Hex, b: Hex) -> int:
    """Number of steps between two hexes."""
    dq, dr = a.q - b.q, a.r - b.r
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def components(hexes: Iterable[Hex]) -> list[frozenset[Hex]]:
    """Maximal groups of the given hexes connected through shared sides, in a stable order."""
    remaining = set(hexes)
    groups: list[frozenset[Hex]] = []
    for start in sorted(remaining):
        if start not in remaining:
            continue
        remaining.discard(start)
        group, frontier = [start], [start]
        while frontier:
            for n in neighbors(frontier.pop()):
                if n in remaining:
                    remaining.discard(n)
                    group.append(n)
                    frontier.append(n)
        groups.append(frozenset(group))
    return groups


# --- printed columns -------------------------------------------------------------------------


def oddq_to_axial(col: int, row: int) -> Hex:
    """Flat-top board printed in columns, odd columns shifted half a hex down."""
    return Hex(col, row - (col - (col & 1)) // 2)


def axial_to_oddq(h: Hex) -> tuple[int, int]:
    """Inverse of :func:`oddq_to_axial`: ``(col, row)``."""
    return h.q, h.r + (h.q - (h.q & 1)) // 2


def column_places(hexes: Iterable[Hex]) -> dict[Hex, tuple[int, int]]:
    """Where each hex of a board drawn flat-top stands as a player finds it: its column
    from the left and its place in that column from the top, both counted from 1 (a column
    is one ``q``; going down it ``r`` grows). Axial coordinates are printed nowhere."""
    hexes = list(hexes)
    if not hexes:
        return {}
    left = min(h.q for h in hexes)
    places: dict[Hex, tuple[int, int]] = {}
    seen: dict[int, int] = {}  # hexes placed so far in each column
    for h in sorted(hexes, key=lambda h: (h.q, h.r)):
        seen[h.q] = seen.get(h.q, 0) + 1
        places[h] = (h.q - left + 1, seen[h.q])
    return places


# --- symmetries ------------------------------------------------------------------------------


def rotate(h: Hex, k: int = 1, center: Hex = ORIGIN) -> Hex:
    """Turn ``h`` about ``center`` by ``k`` sixth-turns; side d maps onto side d + k."""
    q, r = h.q - center.q, h.r - center.r
    s = -q - r
    for _ in range(k % 6):
        q, r, s = -s, -q, -r
    return Hex(q + center.q, r + center.r)


def rotate_side(side: int, k: int = 1) -> int:
    """The side index after turning by ``k`` sixth-turns."""
    return (side + k) % 6


def reflect(h: Hex, center: Hex = ORIGIN) -> Hex:
    """Mirror ``h`` about the axis through ``center`` along side 0 / side 1's bisector.

    Swapping the r and s cube coordinates maps side d onto side ``reflect_side(d)``; composed
    with :func:`rotate` it gives all twelve symmetries of the hex grid.
    """
    q, r = h.q - center.q, h.r - center.r
    s = -q - r
    return Hex(q + center.q, s + center.r)


def reflect_side(side: int) -> int:
    """The side index after :func:`reflect`."""
    return (1 - side) % 6


# --- pixels ----------------------------------------------------------------------------------


class Orientation(Enum):
    """Which way the hexes are printed: a flat edge on top, or a corner on top."""

    FLAT = "flat"
    POINTY = "pointy"


SQRT3 = math.sqrt(3.0)


@dataclass(frozen=True)
class Layout:
    """Maps hexes to pixel centres and back: ``size`` is the centre-to-corner distance."""

    orientation: Orientation
    size: float
    origin: tuple[float, float] = (0.0, 0.0)

    def to_pixel(self, h: Hex) -> tuple[float, float]:
        if self.orientation is Orientation.FLAT:
            x = 1.5 * h.q
            y = SQRT3 / 2 * h.q + SQRT3 * h.r
        else:
            x = SQRT3 * h.q + SQRT3 / 2 * h.r
            y = 1.5 * h.r
        return self.origin[0] + self.size * x, self.origin[1] + self.size * y

    def from_pixel(self, x: float, y: float) -> Hex:
        """The hex whose cell contains the point (x, y)."""
        px = (x - self.origin[0]) / self.size
        py = (y - self.origin[1]) / self.size
        if self.orientation is Orientation.FLAT:
            fq = 2 / 3 * px
            fr = -1 / 3 * px + SQRT3 / 3 * py
        else:
            fq = SQRT3 / 3 * px - 1 / 3 * py
            fr = 2 / 3 * py
        return round_hex(fq, fr)

    def corners(self, h: Hex) -> list[tuple[float, float]]:
        """The six corner points of ``h``, for drawing polygons."""
        cx, cy = self.to_pixel(h)
        start = 0.0 if self.orientation is Orientation.FLAT else 30.0
        return [
            (
                cx + self.size * math.cos(math.radians(start + 60 * i)),
                cy + self.size * math.sin(math.radians(start + 60 * i)),
            )
            for i in range(6)
        ]

    def side_midpoint(self, h: Hex, side: int) -> tuple[float, float]:
        """Middle of the edge between ``h`` and its neighbour across ``side``."""
        ax, ay = self.to_pixel(h)
        bx, by = self.to_pixel(neighbor(h, side))
        return (ax + bx) / 2, (ay + by) / 2


def round_hex(fq: float, fr: float) -> Hex:
    """Round fractional axial coordinates to the nearest hex (cube rounding)."""
    fs = -fq - fr
    q, r, s = round(fq), round(fr), round(fs)
    dq, dr, ds = abs(q - fq), abs(r - fr), abs(s - fs)
    if dq > dr and dq > ds:
        q = -r - s
    elif dr > ds:
        r = -q - s
    return Hex(int(q), int(r))


def bounding_box(layout: Layout, hexes: Iterable[Hex]) -> tuple[float, float, float, float]:
    """``(min_x, min_y, max_x, max_y)`` of the drawn hexes, corners included."""
    points = [p for h in hexes for p in layout.corners(h)]
    if not points:
        return 0.0, 0.0, 0.0, 0.0
    xs, ys = zip(*points, strict=True)
    return min(xs), min(ys), max(xs), max(ys)


def hexes_within(center: Hex, radius: int) -> Iterator[Hex]:
    """All hexes within ``radius`` of ``center`` (Red Blob Games' "range"), column by column."""
    for dq in range(-radius, radius + 1):
        for dr in range(max(-radius, -dq - radius), min(radius, -dq + radius) + 1):
            yield Hex(center.q + dq, center.r + dr)
