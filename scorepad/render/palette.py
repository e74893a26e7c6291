"""Sunflower Valley area colours: one palette for the editor's SVG and the results card's PNG,
so an area is the same colour on the phone and on the shared card."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import cycle
from typing import Any

#: Fill colours for area names that are colour words; other names take the fallback colours.
AREA_FILLS = {
    "blue": "#9cc8ec",
    "green": "#a8d5a0",
    "orange": "#f6c38b",
    "red": "#f0a3a3",
    "purple": "#c9b1e4",
    "yellow": "#f4e48f",
    "pink": "#f4b8d6",
    "brown": "#d2b48c",
    "grey": "#cfcfcf",
    "gray": "#cfcfcf",
}
FALLBACK_FILLS = ("#b9d7ea", "#c5e3bf", "#f7d5ae", "#f2c0c0", "#d9cbec", "#f2eab0", "#e0e0e0")
MOUNTAIN_FILL = "#8b8580"


def area_fills(doc: Mapping[str, Any]) -> dict[str, str]:
    """The fill of every area named in a board file: its colour word's, else the fallback
    colours in turn over the sorted names (again from the first when there are more areas
    than fallbacks: the areas' patterns still tell them apart in the editor)."""
    names = sorted({c["area"] for p in doc.get("players", []) for c in p.get("cells", [])
                    if c.get("area")})  # fmt: skip
    spare = cycle(FALLBACK_FILLS)
    return {name: AREA_FILLS.get(name.lower()) or next(spare) for name in names}
