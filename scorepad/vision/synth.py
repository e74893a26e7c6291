"""Seeded synthetic photos of Sunflower Valley sheets, for training, tests and the benchmark.

A photo is made in three seeded steps, each with its own random generator so that the
*drawing style* and the *scene* can be split independently between training and testing:

1. :func:`random_layout` — a plausible printed layout: 30 hexes in a compact block (flat-top
   or pointy-top), 5 printed mountains and 5 colour areas of 5 hexes.
2. :func:`render_sheet` — the printed sheet (header band, coloured hexes with outlines,
   mountain icons, a residents tally) with pencil drawings in one :class:`Style`: houses,
   sheep, sunflowers, super sunflowers and rails, with wobble, pressure, overflow, smudges.
3. :func:`photograph` — the sheet placed in a :class:`Scene`: background clutter, rotation
   (any angle), camera tilt, uneven light, a shadow, colour cast, blur, noise, JPEG.

Seed ranges (documented in ``docs/vision.md``) keep the splits disjoint:
``TRAIN``, ``VALIDATION`` and ``TEST`` give style, scene and layout seeds that never overlap.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from scorepad.games.sunflower_valley import RAIL_ORIENTATIONS, Tallies, example_layout
from scorepad.hexgrid import Hex, Layout, Orientation, bounding_box, hexes_within, neighbors
from scorepad.vision.lattice import normalise_hexes
from scorepad.vision.tally import BOXES

ITEMS = ("house", "sheep", "sunflower", "super-sunflower", "rail")

#: Disjoint seed ranges: (first, last + 1) for styles, scenes and layouts of each split.
TRAIN = (0, 100_000)
VALIDATION = (100_000, 200_000)
TEST = (900_000, 1_000_000)

#: Printed area colours (RGB) by colour word; a print run takes five of them.
AREA_COLOURS: dict[str, tuple[int, int, int]] = {
    "yellow": (240, 215, 90),
    "orange": (242, 160, 80),
    "red": (225, 95, 95),
    "pink": (235, 140, 190),
    "purple": (165, 130, 210),
    "blue": (110, 165, 225),
    "green": (120, 190, 110),
}

SHEET_ASPECT = 1.41  # portrait: height / width
#: How players keep the tally (:func:`kept_tally`): below the first share of rolls a tick
#: off by one, up to the second off by two, up to the third stopped partway; right above.
TALLY_SLIPS = (0.10, 0.13, 0.16)


# --- layouts ---------------------------------------------------------------------------------


def block_shape(rng: np.random.Generator, orientation: Orientation, count: int = 30) -> list[Hex]:
    """``count`` hexes forming a compact block: those nearest the centre in a random
    rectangle-like norm (so both orientations give sheet-like shapes)."""
    grid = Layout(orientation, 1.0)
    aspect = rng.uniform(0.75, 1.35)
    power = rng.uniform(2.0, 6.0)
    scored = []
    for h in hexes_within(Hex(0, 0), 6):
        x, y = grid.to_pixel(h)
        d = (abs(x) ** power + abs(y * aspect) ** power) ** (1 / power)
        scored.append((d + rng.uniform(0, 0.05), h))
    scored.sort()
    return [h for _, h in scored[:count]]


def random_layout(seed: int) -> dict[str, Any]:
    """A layout document (``{"name", "orientation", "cells"}``) with 5 mountains and five
    areas of 5 hexes, named by their printed colour words."""
    rng = np.random.default_rng([seed, 11])
    if seed % 7 == 0:
        doc = example_layout()
        return {"name": doc["name"], "orientation": "flat", "cells": doc["cells"]}
    orientation = Orientation.FLAT if rng.random() < 0.5 else Orientation.POINTY
    names = list(rng.choice(sorted(AREA_COLOURS), size=5, replace=False))
    for _ in range(200):
        hexes = block_shape(rng, orientation)
        assignment = _partition(rng, hexes, names)
        if assignment is not None:
            break
    else:  # pragma: no cover - the partition succeeds within a few tries
        raise RuntimeError("no partition found")
    cells = normalise_hexes(assignment, orientation)
    out = []
    for h in sorted(cells):
        area = cells[h]
        out.append(
            {"q": h.q, "r": h.r, "mountain": True}
            if area == "mountain"
            else {"q": h.q, "r": h.r, "area": area}
        )
    return {"name": f"synthetic {seed}", "orientation": orientation.value, "cells": out}


def _partition(
    rng: np.random.Generator, hexes: list[Hex], names: list[str]
) -> dict[Hex, str] | None:
    """Five spread-out mountains, then five areas grown from random seeds to 5 hexes each."""
    free = set(hexes)
    assignment: dict[Hex, str] = {}
    order = list(rng.permutation(len(hexes)))
    for i in order:
        h = hexes[i]
        if sum(1 for v in assignment if v in neighbors(h)) == 0 and len(assignment) < 5:
            assignment[h] = "mountain"
            free.discard(h)
    if len(assignment) < 5:
        return None
    areas: dict[str, list[Hex]] = {}
    for name in names:
        start = sorted(free)[int(rng.integers(len(free)))]
        areas[name] = [start]
        free.discard(start)
    for _ in range(60):
        grown = False
        for name in rng.permutation(names):
            group = areas[str(name)]
            if len(group) >= 5:
                continue
            options = sorted({n for h in group for n in neighbors(h) if n in free})
            if options:
                pick = options[int(rng.integers(len(options)))]
                group.append(pick)
                free.discard(pick)
                grown = True
        if not grown:
            break
    for name in names:  # stranded hexes join areas that are short (areas need not touch)
        while len(areas[name]) < 5 and free:
            pick = sorted(free)[int(rng.integers(len(free)))]
            areas[name].append(pick)
            free.discard(pick)
    if free or any(len(g) != 5 for g in areas.values()):
        return None
    for name, group in areas.items():
        for h in group:
            assignment[h] = name
    return assignment


def random_drawing(seed: int, layout: dict[str, Any]) -> dict[Hex, tuple[str, tuple[int, int]]]:
    """What a player drew: an item (and rail sides) per non-mountain hex; some left empty."""
    rng = np.random.default_rng([seed, 13])
    empty_share = rng.choice([0.0, 0.05, 0.15, 0.4])
    weights = np.array([0.22, 0.2, 0.2, 0.1, 0.28])
    drawn: dict[Hex, tuple[str, tuple[int, int]]] = {}
    for c in layout["cells"]:
        if c.get("mountain") or rng.random() < empty_share:
            continue
        item = str(rng.choice(ITEMS, p=weights / weights.sum()))
        sides = RAIL_ORIENTATIONS[int(rng.integers(len(RAIL_ORIENTATIONS)))]
        drawn[Hex(c["q"], c["r"])] = (item, sides if item == "rail" else (-1, -1))
    return drawn


# --- drawing styles --------------------------------------------------------------------------


@dataclass(frozen=True)
class Style:
    """How one player draws: template variants and hand parameters."""

    house: int
    sheep: int
    sunflower: int
    super_mark: int
    rail: int
    scale: float
    width: float
    pressure: float
    wobble: float
    jitter: float
    overflow: float
    smudges: float
    sketchy: float
    slant: float

    @classmethod
    def of(cls, seed: int) -> Style:
        rng = np.random.default_rng([seed, 17])
        return cls(
            house=int(rng.integers(6)),
            sheep=int(rng.integers(5)),
            sunflower=int(rng.integers(5)),
            super_mark=int(rng.integers(5)),
            rail=int(rng.integers(5)),
            scale=float(rng.uniform(0.75, 1.1)),
            width=float(rng.uniform(0.035, 0.08)),
            pressure=float(rng.uniform(0.4, 0.9)),
            wobble=float(rng.uniform(0.0, 0.06)),
            jitter=float(rng.uniform(0.0, 0.18)),
            overflow=float(rng.uniform(0.0, 0.25)),
            smudges=float(rng.uniform(0.0, 0.5)),
            sketchy=float(rng.uniform(0.0, 0.6)),
            slant=float(rng.uniform(-0.25, 0.25)),
        )


Stroke = np.ndarray  # (n, 2) points in hex units: the inradius-ish unit, y down


def _circle(cx: float, cy: float, rx: float, ry: float | None = None, n: int = 28) -> Stroke:
    t = np.linspace(0, 2 * math.pi, n + 1)
    return np.stack([cx + rx * np.cos(t), cy + (ry or rx) * np.sin(t)], axis=1)


def _seg(*pts: tuple[float, float]) -> Stroke:
    return np.array(pts, dtype=float)


def house_strokes(variant: int, rng: np.random.Generator) -> list[Stroke]:
    w, h = 0.5 + 0.1 * rng.random(), 0.45 + 0.1 * rng.random()
    roof = 0.35 + 0.15 * rng.random()
    top = 0.45 - h
    body = _seg((-w / 2, top), (-w / 2, 0.45), (w / 2, 0.45), (w / 2, top))
    roof_line = _seg((-w / 2 - 0.08, top + 0.02), (0, top - roof), (w / 2 + 0.08, top + 0.02))
    strokes = [body, roof_line]
    if variant == 1:  # one pentagon outline
        strokes = [
            _seg((-w / 2, 0.45), (-w / 2, top), (0, top - roof), (w / 2, top), (w / 2, 0.45))
        ]
        strokes[0] = np.vstack([strokes[0], strokes[0][:1]])
    if variant in (2, 3):  # door
        strokes.append(_seg((-0.07, 0.45), (-0.07, 0.25), (0.07, 0.25), (0.07, 0.45)))
    if variant == 3:  # chimney and window
        strokes.append(
            _seg(
                (0.12, top - roof * 0.55),
                (0.12, top - roof * 0.85),
                (0.2, top - roof * 0.85),
                (0.2, top - roof * 0.4),
            )
        )
        strokes.append(_circle(-0.15, top + 0.13, 0.06, n=10))
    if variant == 4:  # hatched roof
        for k in range(5):
            f = (k + 1) / 6
            strokes.append(
                _seg((-w / 2 * f, top - roof * (1 - f)), (w / 2 * f, top - roof * (1 - f)))
            )
    if variant == 5:  # cross window, flat roof overhang
        strokes.append(
            _seg(
                (-0.1, top + 0.1),
                (0.1, top + 0.1),
                (0.1, top + 0.28),
                (-0.1, top + 0.28),
                (-0.1, top + 0.1),
            )
        )
        strokes.append(_seg((0, top + 0.1), (0, top + 0.28)))
        strokes.append(_seg((-0.1, top + 0.19), (0.1, top + 0.19)))
    return strokes


def sheep_strokes(variant: int, rng: np.random.Generator) -> list[Stroke]:
    bw, bh = 0.34 + 0.06 * rng.random(), 0.22 + 0.05 * rng.random()
    strokes: list[Stroke] = []
    if variant in (0, 3):  # woolly cloud body
        t = np.linspace(0, 2 * math.pi, 90)
        bumps = 1 + 0.13 * np.sin(t * (9 + variant))
        strokes.append(np.stack([bw * bumps * np.cos(t), -0.02 + bh * bumps * np.sin(t)], axis=1))
    elif variant == 2:  # scribbled wool
        t = np.linspace(0, 8 * math.pi, 160)
        rad = 0.25 + 0.75 * (t / t[-1])
        strokes.append(np.stack([bw * rad * np.cos(t), bh * rad * np.sin(t)], axis=1))
    else:
        strokes.append(_circle(0, 0, bw, bh, n=30))
    head_x = -bw - 0.08
    if variant == 4:
        strokes.append(
            _seg(
                (head_x + 0.1, -0.05),
                (head_x - 0.05, -0.18),
                (head_x - 0.12, -0.02),
                (head_x + 0.05, 0.03),
            )
        )
    else:
        strokes.append(_circle(head_x, -0.08, 0.09, 0.07, n=14))
        strokes.append(_seg((head_x - 0.02, -0.15), (head_x + 0.06, -0.22)))  # ear
    for x in (-bw * 0.6, -bw * 0.25, bw * 0.25, bw * 0.6)[:: 1 if variant != 1 else 2]:
        strokes.append(_seg((x, bh * 0.85), (x + 0.02, bh + 0.2)))
    if variant == 3:  # wool hatching
        for k in range(4):
            y = -bh * 0.5 + k * bh * 0.33
            strokes.append(_seg((-bw * 0.6, y), (bw * 0.6, y + 0.05)))
    return strokes


def sunflower_strokes(variant: int, rng: np.random.Generator, r: float = 0.15) -> list[Stroke]:
    petals = int(rng.integers(7, 13))
    length = 0.2 + 0.08 * rng.random()
    strokes = [_circle(0, 0, r, n=20)]
    phase = rng.random() * math.pi
    for k in range(petals):
        a = phase + 2 * math.pi * k / petals
        ca, sa = math.cos(a), math.sin(a)
        if variant in (0, 3):  # lines
            strokes.append(
                _seg((r * 1.1 * ca, r * 1.1 * sa), ((r + length) * ca, (r + length) * sa))
            )
        else:  # loops
            t = np.linspace(-1, 1, 9)
            wid = 0.35 * math.pi / petals
            rad = r + length * np.cos(t * math.pi / 2)
            ang = a + wid * t
            strokes.append(np.stack([rad * np.cos(ang), rad * np.sin(ang)], axis=1))
    if variant in (2, 3):  # scribbled centre
        t = np.linspace(0, 6 * math.pi, 60)
        rad = r * 0.85 * t / t[-1]
        strokes.append(np.stack([rad * np.cos(t), rad * np.sin(t)], axis=1))
    if variant == 4:  # stem and leaf
        strokes.append(_seg((0, r + length), (0.02, 0.62)))
        strokes.append(_seg((0.01, 0.5), (0.15, 0.42), (0.02, 0.46)))
    return strokes


def super_strokes(variant: int, mark: int, rng: np.random.Generator) -> list[Stroke]:
    """A super sunflower: a sunflower made to stand out (players are told to draw them
    differently); the mark is the player's own way of doing so."""
    strokes = sunflower_strokes(variant, rng, r=0.13)
    if mark == 0:  # a ring around the whole flower
        strokes.append(_circle(0, 0, 0.56, n=40))
    elif mark == 1:  # a second, longer petal ring
        for k in range(10):
            a = 2 * math.pi * (k + 0.5) / 10
            strokes.append(
                _seg(
                    (0.36 * math.cos(a), 0.36 * math.sin(a)),
                    (0.6 * math.cos(a), 0.6 * math.sin(a)),
                )
            )
    elif mark == 2:  # a big star over the centre
        pts = []
        for k in range(11):
            a = -math.pi / 2 + math.pi * k / 5
            rad = 0.3 if k % 2 == 0 else 0.12
            pts.append((rad * math.cos(a), rad * math.sin(a)))
        strokes.append(np.array(pts))
    elif mark == 3:  # sparkles around it
        for a in (0.6, 2.3, 4.0, 5.4):
            cx, cy = 0.55 * math.cos(a), 0.55 * math.sin(a)
            strokes.append(_seg((cx - 0.1, cy), (cx + 0.1, cy)))
            strokes.append(_seg((cx, cy - 0.1), (cx, cy + 0.1)))
    else:  # a crown on top
        strokes.append(
            _seg(
                (-0.18, -0.42),
                (-0.2, -0.62),
                (-0.08, -0.5),
                (0, -0.66),
                (0.08, -0.5),
                (0.2, -0.62),
                (0.18, -0.42),
                (-0.18, -0.42),
            )
        )
    return strokes


def rail_strokes(
    variant: int, a: tuple[float, float], b: tuple[float, float], rng: np.random.Generator
) -> list[Stroke]:
    """A track from side midpoint ``a`` to side midpoint ``b`` (hex units, centre at 0):
    a quadratic curve through the centre's pull, so straights come out straight."""
    t = np.linspace(0, 1, 24)[:, None]
    pa, pb, pc = np.array(a), np.array(b), np.zeros(2)
    path = (1 - t) ** 2 * pa + 2 * (1 - t) * t * pc + t**2 * pb
    tangent = np.gradient(path, axis=0)
    normal = np.stack([-tangent[:, 1], tangent[:, 0]], axis=1)
    normal /= np.linalg.norm(normal, axis=1, keepdims=True) + 1e-9
    strokes: list[Stroke] = []
    gauge = 0.08 + 0.03 * rng.random()
    if variant in (0, 3):  # two rails
        strokes += [path + gauge * normal, path - gauge * normal]
    else:
        strokes.append(path)
    if variant in (0, 1, 4):  # sleepers / ticks
        half = gauge * (1.7 if variant == 0 else 1.4)
        for i in range(2, 23, 4 if variant != 4 else 3):
            strokes.append(np.stack([path[i] - half * normal[i], path[i] + half * normal[i]]))
    if variant == 2:  # doubled single line
        strokes.append(path + 0.025 * normal)
    return strokes


# --- printing the sheet -----------------------------------------------------------------------


@dataclass
class PrintedSheet:
    """The rendered sheet (RGB uint8) and the ground truth it shows."""

    image: np.ndarray
    layout: dict[str, Any]
    drawing: dict[Hex, tuple[str, tuple[int, int]]]
    hex_size: float
    grid_origin: tuple[float, float]
    orientation: Orientation
    extras: dict[str, Any] = field(default_factory=dict)


def render_sheet(
    layout: dict[str, Any],
    drawing: dict[Hex, tuple[str, tuple[int, int]]],
    style: Style,
    width: int,
    seed: int,
) -> PrintedSheet:
    """The printed sheet at ``width`` pixels, with the player's pencil drawings."""
    rng = np.random.default_rng([seed, 19])
    height = round(width * SHEET_ASPECT)
    paper = np.array([250, 248, 240]) - rng.uniform(0, 12, 3)
    img = np.empty((height, width, 3), np.uint8)
    img[:] = paper.astype(np.uint8)
    u = width / 1000  # one sheet unit

    # Header band with the title: the cue for which way is up.
    band = int(95 * u)
    band_colour = tuple(
        int(v) for v in rng.choice([(60, 110, 60), (150, 90, 40), (50, 80, 130), (120, 60, 60)])
    )
    cv2.rectangle(
        img, (int(30 * u), int(30 * u)), (width - int(30 * u), int(30 * u) + band), band_colour, -1
    )
    cv2.putText(
        img,
        "SUNFLOWER VALLEY",
        (int(90 * u), int(30 * u + band * 0.68)),
        cv2.FONT_HERSHEY_DUPLEX,
        1.9 * u,
        (250, 245, 225),
        max(1, int(3 * u)),
        cv2.LINE_AA,
    )

    orientation = Orientation(layout.get("orientation", "flat"))
    hexes = {Hex(c["q"], c["r"]): c for c in layout["cells"]}
    unit = Layout(orientation, 1.0)
    x0, y0, x1, y1 = bounding_box(unit, hexes)
    area_top, area_bottom = 160 * u, height - 230 * u
    size = min((width - 90 * u) / (x1 - x0), (area_bottom - area_top) / (y1 - y0))
    size *= rng.uniform(0.86, 0.97)
    ox = width / 2 - size * (x0 + x1) / 2
    oy = (area_top + area_bottom) / 2 - size * (y0 + y1) / 2
    grid = Layout(orientation, size, (ox, oy))

    palette = {
        k: np.clip(np.array(v) + rng.normal(0, 10, 3), 30, 255) for k, v in AREA_COLOURS.items()
    }
    outline = tuple(int(v) for v in rng.choice([(40, 40, 40), (70, 55, 40), (30, 50, 70)]))
    thickness = max(1, round(size * rng.uniform(0.035, 0.07)))
    mountain_fill = np.array([150, 140, 128]) + rng.uniform(-15, 15, 3)
    for h, c in hexes.items():
        pts = np.array(grid.corners(h), np.float64)
        fill = mountain_fill if c.get("mountain") else palette[c["area"]]
        cv2.fillPoly(
            img,
            [np.round(pts * 16).astype(np.int32)],
            tuple(int(v) for v in fill),
            cv2.LINE_AA,
            shift=4,
        )
    for h, c in hexes.items():
        if c.get("mountain"):
            _mountain_icon(img, grid, h, rng)
    for h in hexes:
        pts = np.array(grid.corners(h), np.float64)
        cv2.polylines(
            img,
            [np.round(pts * 16).astype(np.int32)],
            True,
            outline,
            thickness,
            cv2.LINE_AA,
            shift=4,
        )

    # The residents tally at the bottom: a row of boxes, one ticked per resident.
    pencil = np.zeros((height, width), np.float32)
    box = int(38 * u)
    by = height - int(150 * u)
    cv2.putText(
        img,
        "RESIDENTS",
        (int(60 * u), by - int(20 * u)),
        cv2.FONT_HERSHEY_SIMPLEX,
        0.9 * u,
        outline,
        max(1, int(2 * u)),
        cv2.LINE_AA,
    )
    # The marks were random until the tally became the player's (3 December). They are
    # still drawn, on scratch, so every photo keeps its random stream: the frozen photos
    # changed only in their tally boxes.
    random_marks = int(rng.integers(2, 20))
    scratch = np.zeros((1, 1), np.float32)
    kept = kept_tally(drawing, seed)
    tally_rng = np.random.default_rng([seed, 23])
    for k in range(BOXES):
        bx = int(60 * u) + k * int(44 * u)
        cv2.rectangle(img, (bx, by), (bx + box, by + box), outline, max(1, int(2 * u)))
        mark = [_seg((0.1, 0.9), (0.9, 0.1))]
        if k < random_marks:
            _draw_strokes(scratch, mark, (bx, by), box, style, rng, 0.0)
        if k < kept:
            _draw_strokes(pencil, mark, (bx, by), box, style, tally_rng, 0.0)

    for h, (item, sides) in drawing.items():
        cx, cy = grid.to_pixel(h)
        inr = size * math.sqrt(3) / 2
        scale = style.scale * (1 + style.overflow * rng.random() * (rng.random() < 0.3))
        jitter = style.jitter * inr * rng.normal(0, 0.5, 2)
        if item == "rail":
            a = np.subtract(grid.side_midpoint(h, sides[0]), (cx, cy)) / inr
            b = np.subtract(grid.side_midpoint(h, sides[1]), (cx, cy)) / inr
            ends = 1.0 + style.overflow * rng.uniform(-0.3, 0.5)
            strokes = rail_strokes(style.rail, tuple(a * ends), tuple(b * ends), rng)
            _draw_strokes(pencil, strokes, (cx, cy), inr, style, rng, 0.0)
            continue
        if item == "house":
            strokes = house_strokes(style.house, rng)
        elif item == "sheep":
            strokes = sheep_strokes(style.sheep, rng)
        elif item == "sunflower":
            strokes = sunflower_strokes(style.sunflower, rng)
        else:
            strokes = super_strokes(style.sunflower, style.super_mark, rng)
        _draw_strokes(
            pencil,
            [s * scale / 0.7 for s in strokes],
            (cx + jitter[0], cy + jitter[1]),
            inr,
            style,
            rng,
            style.slant,
        )

    # Smudges: faint rubbed graphite here and there.
    for _ in range(int(rng.poisson(style.smudges * 6))):
        cx, cy = rng.uniform(0, width), rng.uniform(area_top, area_bottom)
        blob = np.zeros_like(pencil)
        cv2.ellipse(
            blob,
            (int(cx), int(cy)),
            (int(rng.uniform(5, 25) * u), int(rng.uniform(3, 12) * u)),
            float(rng.uniform(0, 180)),
            0,
            360,
            1.0,
            -1,
        )
        pencil = np.maximum(pencil, cv2.GaussianBlur(blob, (0, 0), 6 * u) * rng.uniform(0.1, 0.25))

    grain = rng.uniform(0.65, 1.0, pencil.shape).astype(np.float32)
    alpha = np.clip(pencil * grain, 0, 0.92)[..., None]
    graphite = np.array([75, 75, 82], np.float32)
    out = img.astype(np.float32) * (1 - alpha) + graphite * alpha
    return PrintedSheet(
        image=np.clip(out, 0, 255).astype(np.uint8),
        layout=layout,
        drawing=drawing,
        hex_size=size,
        grid_origin=(ox, oy),
        orientation=orientation,
        extras={"tally": kept},
    )


def kept_tally(drawing: dict[Hex, tuple[str, tuple[int, int]]], seed: int) -> int:
    """The residents a player ticked on the sheet's tally. The rules: 2 per house and 1 per
    super sunflower, ticked as they are drawn. Most players keep it right; some miss a tick
    or add one, a few stop keeping it partway; past the last box there is no room."""
    rng = np.random.default_rng([seed, 29])
    items = [item for item, _sides in drawing.values()]
    supers = items.count("super-sunflower")
    residents = Tallies(items.count("house"), items.count("sunflower") + supers, supers).residents
    roll = rng.random()
    if roll < TALLY_SLIPS[0]:
        residents += int(rng.choice([-1, -1, 1]))
    elif roll < TALLY_SLIPS[1]:
        residents += int(rng.choice([-2, 2]))
    elif roll < TALLY_SLIPS[2]:
        residents = int(rng.integers(min(2, residents), residents + 1))
    return int(np.clip(residents, 0, BOXES))


def _mountain_icon(img: np.ndarray, grid: Layout, h: Hex, rng: np.random.Generator) -> None:
    cx, cy = grid.to_pixel(h)
    s = grid.size
    dark = (80, 70, 62)
    peaks = [(-0.35, 0.35, 0.75), (0.15, 0.5, 0.95)]
    for px, half, tall in peaks:
        pts = np.array(
            [
                [cx + (px - half) * s, cy + 0.4 * s],
                [cx + px * s, cy + (0.4 - tall) * s],
                [cx + (px + half) * s, cy + 0.4 * s],
            ]
        )
        cv2.fillPoly(img, [np.round(pts).astype(np.int32)], (118, 108, 98), cv2.LINE_AA)
        cv2.polylines(
            img, [np.round(pts).astype(np.int32)], False, dark, max(1, int(s * 0.05)), cv2.LINE_AA
        )
        snow = np.array(
            [
                [cx + (px - half * 0.3) * s, cy + (0.4 - tall * 0.7) * s],
                [cx + px * s, cy + (0.4 - tall) * s],
                [cx + (px + half * 0.3) * s, cy + (0.4 - tall * 0.7) * s],
            ]
        )
        cv2.fillPoly(img, [np.round(snow).astype(np.int32)], (245, 245, 245), cv2.LINE_AA)


def _draw_strokes(
    layer: np.ndarray,
    strokes: list[Stroke],
    centre: tuple[float, float],
    unit: float,
    style: Style,
    rng: np.random.Generator,
    slant: float,
) -> None:
    """Pencil strokes in hex units around ``centre``: wobble, pressure, sketchy doubling."""
    width = max(1, round(style.width * unit))
    for stroke in strokes:
        passes = 2 if rng.random() < style.sketchy else 1
        for _ in range(passes):
            pts = stroke.copy()
            pts[:, 0] += slant * -pts[:, 1]
            n = len(pts)
            wob = np.cumsum(rng.normal(0, style.wobble, (n, 2)), axis=0)
            wob -= np.linspace(0, 1, n)[:, None] * wob[-1]  # keep the ends near their place
            pts = pts + wob + rng.normal(0, 0.012, 2)
            xy = np.round((pts * unit + centre) * 16).astype(np.int32)
            for i in range(len(xy) - 1):
                value = float(np.clip(style.pressure * rng.uniform(0.75, 1.15), 0.15, 1.0))
                cv2.line(layer, tuple(xy[i]), tuple(xy[i + 1]), value, width, cv2.LINE_AA, shift=4)


# --- the photo ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Scene:
    """Where and how the sheet is photographed."""

    background: int
    angle: float
    coverage: float
    tilt: float
    light: float
    shadow: float
    cast: tuple[float, float, float]
    blur: float
    noise: float
    quality: int
    clutter: int

    @classmethod
    def of(cls, seed: int) -> Scene:
        rng = np.random.default_rng([seed, 23])
        return cls(
            background=int(rng.integers(5)),
            angle=float(rng.uniform(0, 360)),
            coverage=float(rng.uniform(0.45, 0.8)),
            tilt=float(rng.uniform(0.0, 0.14)),
            light=float(rng.uniform(0.0, 0.45)),
            shadow=float(rng.uniform(0.0, 0.45)) if rng.random() < 0.5 else 0.0,
            cast=tuple(float(v) for v in rng.uniform(0.88, 1.12, 3)),  # type: ignore[arg-type]
            blur=float(rng.choice([0.0, 0.6, 1.2, 2.0])),
            noise=float(rng.uniform(1.0, 6.0)),
            quality=int(rng.integers(60, 95)),
            clutter=int(rng.integers(0, 7)),
        )


def background(kind: int, h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    """A table: wood, cloth check, dark plain, stone, or a busy printed cloth."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if kind == 0:  # wood grain
        base = np.array(rng.uniform([110, 60, 25], [190, 130, 80]), np.float32)
        grain = np.sin((yy + 20 * np.sin(xx / rng.uniform(80, 300))) / rng.uniform(4, 12))
        img = base * (0.85 + 0.12 * grain[..., None])
    elif kind == 1:  # gingham cloth
        c1 = rng.uniform(60, 220, 3).astype(np.float32)
        period = rng.uniform(30, 120)
        check = ((xx // period + yy // period) % 2)[..., None]
        img = c1 * (0.6 + 0.4 * check)
    elif kind == 2:  # dark plain
        img = np.broadcast_to(rng.uniform(20, 80, 3).astype(np.float32), (h, w, 3)).copy()
    elif kind == 3:  # stone / grey
        small = rng.normal(0, 1, (h // 16 + 1, w // 16 + 1)).astype(np.float32)
        noise = cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)
        img = np.float32(rng.uniform(90, 170)) + 18 * noise[..., None] + np.zeros(3, np.float32)
    else:  # busy print
        img = np.empty((h, w, 3), np.float32)
        img[:] = rng.uniform(40, 200, 3)
        for _ in range(60):
            col = tuple(float(v) for v in rng.uniform(0, 255, 3))
            cv2.circle(
                img,
                (int(rng.uniform(0, w)), int(rng.uniform(0, h))),
                int(rng.uniform(10, 60)),
                col,
                -1,
            )
    return img


def photograph(
    sheet: PrintedSheet, scene: Scene, megapixels: float, seed: int
) -> tuple[bytes, np.ndarray]:
    """A JPEG photo of the sheet in the scene; also returns the sheet corners in the photo
    (top-left, top-right, bottom-right, bottom-left of the printed sheet)."""
    rng = np.random.default_rng([seed, 29])
    w = round(math.sqrt(megapixels * 1e6 * 4 / 3))
    h = round(w * 3 / 4)
    if rng.random() < 0.3:
        w, h = h, w
    img = background(scene.background, h, w, rng)
    for _ in range(scene.clutter):  # objects on the table
        col = tuple(float(v) for v in rng.uniform(0, 255, 3))
        centre = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
        axes = (int(rng.uniform(0.02, 0.12) * w), int(rng.uniform(0.01, 0.08) * w))
        if rng.random() < 0.5:
            cv2.ellipse(img, centre, axes, float(rng.uniform(0, 180)), 0, 360, col, -1)
        else:
            box = cv2.boxPoints((centre, (axes[0] * 2, axes[1] * 2), float(rng.uniform(0, 180))))
            cv2.fillPoly(img, [box.astype(np.int32)], col)

    sh, sw = sheet.image.shape[:2]
    src = np.array([[0, 0], [sw, 0], [sw, sh], [0, sh]], np.float32)
    fit = scene.coverage * min(w, h) / max(sw, sh)
    angle = math.radians(scene.angle)
    rot = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
    centred = (src - [sw / 2, sh / 2]) * fit
    dst = centred @ rot.T + [
        w / 2 + rng.uniform(-0.08, 0.08) * w,
        h / 2 + rng.uniform(-0.08, 0.08) * h,
    ]
    dst += rng.uniform(-scene.tilt, scene.tilt, (4, 2)) * min(w, h) * 0.5
    # keep the sheet inside the frame
    lo, hi = dst.min(axis=0), dst.max(axis=0)
    shift = np.maximum(0, [8, 8] - lo) - np.maximum(0, hi - [w - 8, h - 8])
    dst = (dst + shift).astype(np.float32)
    if (dst.max(axis=0) - dst.min(axis=0) > [w - 16, h - 16]).any():
        dst = ((dst - dst.mean(axis=0)) * 0.85 + [w / 2, h / 2]).astype(np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    warped = cv2.warpPerspective(
        sheet.image, m, (w, h), flags=cv2.INTER_AREA if fit < 1 else cv2.INTER_LINEAR
    )
    mask = cv2.warpPerspective(np.full((sh, sw), 255, np.uint8), m, (w, h))
    a = (mask.astype(np.float32) / 255)[..., None]
    img = img * (1 - a) + warped.astype(np.float32) * a

    # A pen or die lying partly on the margin of the sheet, sometimes.
    if rng.random() < 0.25:
        edge = int(rng.integers(4))
        p = dst[edge] * 0.6 + dst[(edge + 1) % 4] * 0.4
        col = tuple(float(v) for v in rng.uniform(0, 200, 3))
        cv2.ellipse(
            img,
            (int(p[0]), int(p[1])),
            (int(0.05 * min(w, h)), int(0.006 * min(w, h)) + 2),
            float(rng.uniform(0, 180)),
            0,
            360,
            col,
            -1,
        )

    # Light and shadow vary slowly: compute them on a coarse grid and scale up.
    gh, gw = h // 8 + 1, w // 8 + 1
    yy, xx = np.mgrid[0:gh, 0:gw].astype(np.float32)
    direction = rng.uniform(0, 2 * math.pi)
    ramp = (xx * math.cos(direction) + yy * math.sin(direction)) / max(gw, gh)
    gain = 1.0 - scene.light * (ramp - ramp.min())
    if scene.shadow:
        poly = rng.uniform(0, 1, (5, 2)) * [gw, gh]
        shade = np.zeros((gh, gw), np.float32)
        cv2.fillPoly(shade, [cv2.convexHull(poly.astype(np.int32))], 1.0)
        shade = cv2.GaussianBlur(shade, (0, 0), 0.02 * max(gw, gh))
        gain = gain * (1 - scene.shadow * shade)
    gain = cv2.resize(gain.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    img = img * gain[..., None] * np.array(scene.cast, np.float32)
    if scene.blur:
        img = cv2.GaussianBlur(img, (0, 0), scene.blur * max(w, h) / 2000)
    img += rng.normal(0, scene.noise, (h, w, 1)).astype(np.float32)
    rgb = np.clip(img, 0, 255).astype(np.uint8)
    ok, jpeg = cv2.imencode(".jpg", rgb[..., ::-1], [cv2.IMWRITE_JPEG_QUALITY, scene.quality])
    assert ok
    return jpeg.tobytes(), dst


# --- one call ----------------------------------------------------------------------------------


@dataclass
class Sample:
    """One synthetic photo and its truth."""

    jpeg: bytes
    layout: dict[str, Any]
    drawing: dict[Hex, tuple[str, tuple[int, int]]]
    corners: np.ndarray
    orientation: Orientation
    style_seed: int
    scene_seed: int
    tally: int = 0  # the residents ticked on the sheet's tally

    def truth_cells(self) -> dict[Hex, dict[str, Any]]:
        """The board-file cells the photo shows, by hex."""
        cells = {}
        for c in self.layout["cells"]:
            h = Hex(c["q"], c["r"])
            cell: dict[str, Any] = {"q": h.q, "r": h.r}
            if c.get("mountain"):
                cell["mountain"] = True
            else:
                cell["area"] = c["area"]
                if h in self.drawing:
                    item, sides = self.drawing[h]
                    cell["item"] = item
                    if item == "rail":
                        cell["sides"] = list(sides)
            cells[h] = cell
        return cells


def sample(split: tuple[int, int], index: int, megapixels: float = 3.0) -> Sample:
    """Photo ``index`` of a split: style, scene and layout seeds all come from the split's
    own range, so no two splits share any of them."""
    base = split[0] + index
    style_seed, scene_seed, layout_seed = base, base, base
    layout = random_layout(layout_seed)
    drawing = random_drawing(base, layout)
    style = Style.of(style_seed)
    scene = Scene.of(scene_seed)
    short_side = math.sqrt(megapixels * 1e6 * 3 / 4)
    sheet_width = int(scene.coverage * short_side / SHEET_ASPECT) + 1
    sheet = render_sheet(layout, drawing, style, max(sheet_width, 500), base)
    jpeg, corners = photograph(sheet, scene, megapixels, base)
    return Sample(
        jpeg,
        layout,
        drawing,
        corners,
        sheet.orientation,
        style_seed,
        scene_seed,
        sheet.extras["tally"],
    )


# --- grading a recognition against the truth ---------------------------------------------------


@dataclass
class Grade:
    """Per-photo counts for the benchmark and the training script."""

    cells: int = 0
    right: int = 0
    mountain_right: int = 0
    area_cells: int = 0
    area_right: int = 0
    item_cells: int = 0
    item_right: int = 0
    rails: int = 0
    rail_sides_right: int = 0
    flagged: int = 0
    silent: int = 0
    #: Of the silent errors, hexes missing from a reading whose whole sheet was doubted
    #: (``sheet_doubted``): no flag can mark a hex the grid missed, but the app says the
    #: whole sheet was hard to read.
    missed_on_doubted: int = 0

    def add(self, other: Grade) -> None:
        for k in self.__dataclass_fields__:
            setattr(self, k, getattr(self, k) + getattr(other, k))


def grade(result: dict[str, Any], truth: Sample, with_layout: bool = False) -> Grade:
    """Compare a recognition (formats.md shape) with the truth, cell by cell. Without a
    layout, area names are the recogniser's own: each is mapped to the true area most of its
    hexes have (consistent naming is all the contract asks)."""
    want = truth.truth_cells()
    got = {Hex(c["q"], c["r"]): c for c in result["player"]["cells"]}
    flagged = {Hex(c["q"], c["r"]) for c in result["confidence"] if c["flagged"]}
    mapping: dict[str, str] = {}
    if not with_layout:
        votes: dict[str, dict[str, int]] = {}
        for h, c in got.items():
            t = want.get(h)
            if c.get("area") and t and t.get("area"):
                votes.setdefault(c["area"], {}).setdefault(t["area"], 0)
                votes[c["area"]][t["area"]] += 1
        mapping = {k: max(v, key=lambda a: v[a]) for k, v in votes.items()}
    g = Grade()
    for h, t in want.items():
        c = got.get(h, {})
        g.cells += 1
        mountain_ok = bool(c) and bool(c.get("mountain")) == bool(t.get("mountain"))
        g.mountain_right += mountain_ok
        area_ok = item_ok = sides_ok = True
        if not t.get("mountain"):
            g.area_cells += 1
            g.item_cells += 1
            area = (
                mapping.get(c.get("area", ""), c.get("area")) if not with_layout else c.get("area")
            )
            area_ok = bool(c) and area == t["area"]
            item_ok = bool(c) and c.get("item") == t.get("item")
            g.area_right += area_ok
            g.item_right += item_ok
            if t.get("item") == "rail":
                g.rails += 1
                sides_ok = sorted(c.get("sides", [])) == sorted(t["sides"])
                g.rail_sides_right += sides_ok
        ok = mountain_ok and area_ok and item_ok and sides_ok
        g.right += ok
        g.flagged += h in flagged
        g.silent += (not ok) and h not in flagged
        g.missed_on_doubted += not c and bool(result.get("sheet_doubted"))
    return g
