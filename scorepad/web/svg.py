"""Inline SVG boards: pixel positions come from :class:`scorepad.hexgrid.Layout`, nothing else.

A :class:`HexCanvas` fixes a layout and a view box for a set of hexes; templates draw
polygons, items and explanation lines with the strings and points it returns.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from scorepad.hexgrid import Hex, Layout, Orientation, bounding_box, side_gap

HEX_SIZE = 30.0
PAD = 6.0


@dataclass(frozen=True)
class HexCanvas:
    layout: Layout
    view_box: str
    width: float
    height: float

    def points(self, h: Hex) -> str:
        return _points(self.layout, h)

    def center(self, h: Hex) -> tuple[float, float]:
        x, y = self.layout.to_pixel(h)
        return round(x, 1), round(y, 1)

    def side_point(self, h: Hex, side: int) -> tuple[float, float]:
        x, y = self.layout.side_midpoint(h, side)
        return round(x, 1), round(y, 1)

    def track(self, h: Hex, a: int, b: int) -> str:
        """SVG path of a railway track joining sides ``a`` and ``b`` of ``h``."""
        ax, ay = self.layout.side_midpoint(h, a)
        bx, by = self.layout.side_midpoint(h, b)
        if side_gap(a, b) == 3:  # straight across
            return f"M{ax:.1f},{ay:.1f} L{bx:.1f},{by:.1f}"
        cx, cy = self.layout.to_pixel(h)
        return f"M{ax:.1f},{ay:.1f} Q{cx:.1f},{cy:.1f} {bx:.1f},{by:.1f}"


def canvas(
    hexes: Iterable[Hex], orientation: Orientation = Orientation.FLAT, size: float = HEX_SIZE
) -> HexCanvas:
    """A canvas just large enough for ``hexes`` (plus a small margin)."""
    return _canvas(tuple(sorted(hexes)), orientation, size)


@lru_cache(maxsize=256)
def _canvas(hexes: tuple[Hex, ...], orientation: Orientation, size: float) -> HexCanvas:
    layout = Layout(orientation, size)
    x0, y0, x1, y1 = bounding_box(layout, hexes)
    width, height = x1 - x0 + 2 * PAD, y1 - y0 + 2 * PAD
    box = f"{x0 - PAD:.1f} {y0 - PAD:.1f} {width:.1f} {height:.1f}"
    return HexCanvas(layout, box, round(width, 1), round(height, 1))


@lru_cache(maxsize=4096)
def _points(layout: Layout, h: Hex) -> str:
    return " ".join(f"{x:.1f},{y:.1f}" for x, y in layout.corners(h))
