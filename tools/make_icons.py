#!/usr/bin/env python3
"""Draw Scorepad's app icons: ``static/icons/icon-192.png``, ``icon-512.png`` and ``icon.svg``.

    .venv/bin/python tools/make_icons.py

One drawing, three files: a green square (full bleed, so the PNG also serves as a
"maskable" icon; everything that matters lies inside the central 80 % safe zone) with a
white hexagon, a score pad's cell, ticked. The PNGs are drawn with Pillow at 4× and scaled
down for smooth edges; the SVG repeats the same coordinates.
"""

from __future__ import annotations

import math
from pathlib import Path

from PIL import Image, ImageDraw

OUT = Path(__file__).resolve().parents[1] / "static" / "icons"
GREEN = "#2f7d4f"
WHITE = "#ffffff"
#: In a 100 × 100 box: the hexagon's centre and radius, and the tick's points.
CX, CY, R = 50.0, 50.0, 30.0
TICK = ((36.0, 51.0), (46.0, 61.0), (65.0, 40.0))
TICK_WIDTH = 8.0


def hexagon(scale: float) -> list[tuple[float, float]]:
    """A flat-topped hexagon (as on the game boards), scaled to ``scale`` pixels per unit."""
    return [
        ((CX + R * math.cos(math.radians(60 * i))) * scale,
         (CY + R * math.sin(math.radians(60 * i))) * scale)
        for i in range(6)
    ]  # fmt: skip


def png(size: int) -> Image.Image:
    big = size * 4
    scale = big / 100
    img = Image.new("RGB", (big, big), GREEN)
    draw = ImageDraw.Draw(img)
    draw.polygon(hexagon(scale), fill=WHITE)
    points = [(x * scale, y * scale) for x, y in TICK]
    width = round(TICK_WIDTH * scale)
    draw.line(points, fill=GREEN, width=width, joint="curve")
    for x, y in (points[0], points[-1]):  # round caps
        draw.ellipse((x - width / 2, y - width / 2, x + width / 2, y + width / 2), fill=GREEN)
    return img.resize((size, size), Image.Resampling.LANCZOS)


def svg() -> str:
    hexes = " ".join(f"{x:.2f},{y:.2f}" for x, y in hexagon(1))
    tick = " ".join(f"{x:g},{y:g}" for x, y in TICK)
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">\n'
        "<title>Scorepad</title>\n"
        f'<rect width="100" height="100" rx="18" fill="{GREEN}"/>\n'
        f'<polygon points="{hexes}" fill="{WHITE}"/>\n'
        f'<polyline points="{tick}" fill="none" stroke="{GREEN}" stroke-width="{TICK_WIDTH:g}" '
        'stroke-linecap="round" stroke-linejoin="round"/>\n'
        "</svg>\n"
    )


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for size in (192, 512):
        png(size).save(OUT / f"icon-{size}.png", optimize=True)
    (OUT / "icon.svg").write_text(svg(), encoding="utf-8")
    print(f"wrote {OUT}/icon-192.png, icon-512.png, icon.svg")


if __name__ == "__main__":
    main()
