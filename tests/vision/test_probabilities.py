"""Sheet-level doubt, the layout fit and the area grouping, without photos."""

from __future__ import annotations

import numpy as np
import pytest

from scorepad.games import sunflower_valley as sv
from scorepad.hexgrid import ORIGIN, Hex
from scorepad.vision import cells
from scorepad.vision.recognize import (
    ODD_SHEET,
    Reading,
    Recognition,
    best_shift,
    constrain,
    doubt_odd_sheets,
    fit_layout,
    layout_differences,
)


def sheet(layout: dict, shift: Hex = ORIGIN) -> list[Reading]:
    out = []
    for c in layout["cells"]:
        h = Hex(c["q"] - shift.q, c["r"] - shift.r)
        if c.get("mountain"):
            out.append(Reading(h, True, None, None, None, 0.99, {"mountain": 0.99}))
        else:
            out.append(Reading(h, False, "photo-" + c["area"], "house", None, 0.95, {"item": 0.95}))
    return out


def test_a_full_sheet_is_trusted():
    readings = sheet(sv.example_layout())
    assert [r.p for r in doubt_odd_sheets(readings)] == [r.p for r in sheet(sv.example_layout())]


def test_a_full_sheet_whose_hexes_are_poorly_outlined_is_doubted_everywhere():
    readings = sheet(sv.example_layout())
    doubted = doubt_odd_sheets(readings, outline_support=0.7)
    assert all(r.p <= 0.99 * ODD_SHEET for r in doubted)


def test_a_sheet_with_a_hex_missing_is_doubted_everywhere():
    readings = sheet(sv.example_layout())[1:]
    doubted = doubt_odd_sheets(readings)
    assert all(r.p <= 0.99 * ODD_SHEET for r in doubted)


def test_layout_fit_finds_the_shift_and_takes_the_layout_names():
    layout = sv.parse_layout(sv.example_layout())
    readings = sheet(sv.example_layout(), shift=Hex(2, -1))  # photo coordinates differ
    fitted = {r.hex: r for r in constrain(readings, layout)}
    for c in layout.cells:
        r = fitted[c.hex]
        assert r.mountain == c.mountain
        assert r.area == (None if c.mountain else c.area)
        assert r.p > 0.9


def test_layout_hex_the_photo_missed_gets_probability_zero():
    layout = sv.parse_layout(sv.example_layout())
    readings = [r for r in sheet(sv.example_layout()) if r.hex != Hex(0, 0)]
    fitted = {r.hex: r for r in constrain(readings, layout)}
    assert fitted[Hex(0, 0)].p == 0.0 and fitted[Hex(0, 0)].item is None


def test_with_a_layout_a_grid_of_the_layouts_size_is_trusted():
    layout = sv.parse_layout(sv.example_layout())
    fitted = fit_layout(sheet(sv.example_layout(), shift=Hex(1, 0)), layout, 0.97)
    assert min(r.p for r in fitted) > 0.9


@pytest.mark.parametrize("support", [0.97, 0.7])
def test_with_a_layout_a_grid_of_another_size_is_doubted_everywhere(support):
    # A well outlined grid found on part of the sheet: its hex count gives it away.
    layout = sv.parse_layout(sv.example_layout())
    readings = sheet(sv.example_layout())[:-3]
    fitted = fit_layout(readings, layout, support)
    assert len(fitted) == len(layout.cells)
    assert all(r.p <= ODD_SHEET for r in fitted)


def test_with_a_layout_a_poorly_outlined_grid_is_doubted_everywhere():
    layout = sv.parse_layout(sv.example_layout())
    fitted = fit_layout(sheet(sv.example_layout()), layout, 0.7)
    assert all(r.p <= ODD_SHEET for r in fitted)


def test_a_doubted_sheet_says_so_in_its_answer():
    def answer(readings: list[Reading]) -> dict:
        return Recognition(readings, "flat", [], 0.1, 0.9).to_json()

    assert "sheet_doubted" not in answer(doubt_odd_sheets(sheet(sv.example_layout())))
    doubted = answer(doubt_odd_sheets(sheet(sv.example_layout())[1:]))
    assert doubted["sheet_doubted"] is True
    assert all(c["flagged"] for c in doubted["confidence"])


def test_a_sheet_read_against_its_own_layout_differs_nowhere():
    layout = sv.parse_layout(sv.example_layout())
    readings = sheet(sv.example_layout(), shift=Hex(2, -1))
    shift = best_shift(readings, layout)
    assert shift == Hex(2, -1)
    assert layout_differences(readings, layout, shift) == 0


def _swap_mountain_and_area(layout: dict) -> dict:
    """The same block of hexes, one mountain moved and two areas' hexes exchanged."""
    cells = [dict(c) for c in layout["cells"]]
    mountain = next(c for c in cells if c.get("mountain"))
    plain = next(c for c in cells if not c.get("mountain"))
    mountain.pop("mountain")
    mountain["area"] = plain.pop("area")
    plain["mountain"] = True
    areas = [c for c in cells if "area" in c]
    first, other = areas[0]["area"], next(c["area"] for c in areas if c["area"] != areas[0]["area"])
    a = next(c for c in areas if c["area"] == first and c is not mountain)
    b = next(c for c in areas if c["area"] == other and c is not mountain)
    a["area"], b["area"] = other, first
    return {"name": "another", "cells": cells}


def test_a_sheet_read_against_another_layout_counts_each_hex_printed_otherwise():
    # A mountain and an area hex swapped places (2 differences) and two area hexes swapped
    # areas (each now lies in a group mostly of the other area: 2 more).
    readings = sheet(_swap_mountain_and_area(sv.example_layout()))
    layout = sv.parse_layout(sv.example_layout())
    assert layout_differences(readings, layout, best_shift(readings, layout)) == 4


def test_five_areas_of_five_are_grouped_by_colour_even_when_two_are_close():
    rng = np.random.default_rng(3)
    base = np.array(
        [
            [0.95, 0.85, 0.35],
            [0.95, 0.7, 0.33],
            [0.45, 0.65, 0.9],
            [0.5, 0.75, 0.45],
            [0.65, 0.5, 0.85],
        ]
    )
    fills = np.repeat(base, 5, axis=0) + rng.normal(0, 0.015, (25, 3))
    labels, p = cells.cluster_areas(fills)
    groups = [set(labels[i * 5 : (i + 1) * 5].tolist()) for i in range(5)]
    assert all(len(g) == 1 for g in groups) and len(set.union(*groups)) == 5
    assert p.min() > 0.5
    names = cells.name_areas(fills, labels)
    assert names[labels[0]] == "yellow" and names[labels[10]] == "blue"
    assert len(set(names.values())) == 5


#: The 25 area fills (colours over the paper white) of validation photo 6982, in a warm
#: light, and their true areas: at full lightness weight the shaded orange and red hexes
#: went with each other's lit ones.
SHADED_FILLS = [
    (0.948, 0.569, 0.867, "pink"),
    (0.944, 0.565, 0.859, "pink"),
    (0.987, 0.437, 0.503, "red"),
    (0.945, 0.574, 0.867, "pink"),
    (0.365, 0.682, 0.985, "blue"),
    (0.938, 0.566, 0.86, "pink"),
    (1.173, 0.518, 0.596, "red"),
    (0.946, 0.415, 0.476, "red"),
    (0.937, 0.841, 0.433, "yellow"),
    (0.931, 0.842, 0.423, "yellow"),
    (1.295, 0.562, 0.66, "red"),
    (1.648, 1.103, 0.735, "orange"),
    (1.449, 0.974, 0.645, "orange"),
    (0.345, 0.655, 0.942, "blue"),
    (0.916, 0.844, 0.422, "yellow"),
    (1.306, 0.568, 0.655, "red"),
    (1.655, 1.111, 0.722, "orange"),
    (0.922, 0.63, 0.411, "orange"),
    (0.922, 0.842, 0.426, "yellow"),
    (0.922, 0.565, 0.855, "pink"),
    (0.523, 0.97, 1.402, "blue"),
    (0.48, 0.891, 1.302, "blue"),
    (0.933, 0.629, 0.412, "orange"),
    (0.933, 0.854, 0.432, "yellow"),
    (0.482, 0.871, 1.259, "blue"),
]


def test_areas_are_grouped_by_hue_not_by_light_and_shade():
    fills = np.array([f[:3] for f in SHADED_FILLS])
    truth = [f[3] for f in SHADED_FILLS]
    labels, _ = cells.cluster_areas(fills)
    groups = {k: {truth[i] for i in np.flatnonzero(labels == k)} for k in set(labels.tolist())}
    assert all(len(areas) == 1 for areas in groups.values()), groups


def test_faint_pencil_is_brought_to_the_common_darkness():
    ink = np.zeros((cells.PATCH, cells.PATCH), np.float32)
    ink[20:40, 30:33] = 0.2  # a soft, thin stroke
    blank = np.zeros_like(ink)
    out = cells.normalise_inks([ink, ink.copy(), blank])
    assert out[0].max() == pytest.approx(cells.INK_LEVEL)
    assert out[2].max() == 0  # a blank hex stays blank
    assert cells.normalise_inks([blank, blank])[0].max() == 0


def test_a_faint_sheets_pencil_is_raised_inside_the_hexes_only():
    """Pencil at a tenth of the usual darkness inside the hexes, the printed outline's blur
    darker at the rim: the insides are raised to the common darkness, the rims left."""
    inks = []
    for k in range(30):
        ink = np.zeros((cells.PATCH, cells.PATCH), np.float32)
        ink[:, :3] = ink[:, -3:] = cells.INK_LEVEL  # the outline's blur at the rim
        if k < 20:
            ink[28:36, 20:44] = 0.05  # a faint drawing
        elif k >= 25:
            ink[24:40, 24:40] = 0.6  # a mountain's icon
        inks.append(ink)
    out = cells.normalise_inks(inks)
    assert out[0][30, 30] == pytest.approx(0.05 * cells.FAINT_GAIN_MAX)  # raised, at most 8x
    assert out[0][30, 1] == pytest.approx(cells.INK_LEVEL)  # the rim as it was
    assert out[21].max() == pytest.approx(cells.INK_LEVEL)  # an empty hex: nothing inside
    # Pencil at a third of the usual darkness is raised too; of the usual darkness, left.
    for ink in inks[:20]:
        ink[28:36, 20:44] = 0.15
    assert cells.normalise_inks(inks)[0][30, 30] == pytest.approx(cells.INK_LEVEL)
    for ink in inks[:20]:
        ink[28:36, 20:44] = 0.3
    assert cells.normalise_inks(inks)[0][30, 30] == pytest.approx(0.3)
