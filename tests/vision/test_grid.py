"""Finding the sheet and its hex grid without knowing the layout."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from scorepad.hexgrid import Hex, Orientation
from scorepad.vision import synth
from scorepad.vision.decode import PhotoError, decode
from scorepad.vision.lattice import find_grid, normalise_hexes
from scorepad.vision.recognize import locate
from scorepad.vision.sheet import SHEET_HEIGHT, SHEET_WIDTH


def printed(seed: int) -> synth.PrintedSheet:
    layout = synth.random_layout(seed)
    return synth.render_sheet(
        layout, synth.random_drawing(seed, layout), synth.Style.of(seed), 800, seed
    )


@pytest.mark.parametrize("seed", [100_001, 100_002, 100_003, 100_007])
def test_grid_of_a_flat_printed_sheet(seed):
    sheet = printed(seed)
    image = cv2.resize(sheet.image, (SHEET_WIDTH, SHEET_HEIGHT), interpolation=cv2.INTER_AREA)
    grid = find_grid(image)
    want = {Hex(c["q"], c["r"]) for c in sheet.layout["cells"]}
    assert grid.lattice.orientation is sheet.orientation
    assert set(grid.cells) == want
    # Hex centres land within a tenth of a hex of where they were printed.
    scale = SHEET_WIDTH / sheet.image.shape[1]
    assert grid.lattice.size == pytest.approx(sheet.hex_size * scale, rel=0.03)


def test_both_orientations_are_covered_by_those_seeds():
    kinds = {printed(s).orientation for s in (100_001, 100_002, 100_003, 100_007)}
    assert kinds == {Orientation.FLAT, Orientation.POINTY}


def test_normalised_coordinates_put_the_top_left_hex_at_the_origin():
    hexes = {Hex(3, -1): "a", Hex(3, 0): "b", Hex(4, -2): "c", Hex(5, -2): "d"}
    out = normalise_hexes(hexes, Orientation.FLAT)
    # Flat-top: (4, -2) sits half a hex above (3, -1) and (5, -2), so it alone is the top
    # row and becomes (0, 0); the others move with it.
    assert out[Hex(0, 0)] == "c"
    assert out == {Hex(-1, 1): "a", Hex(-1, 2): "b", Hex(0, 0): "c", Hex(1, 0): "d"}


@pytest.mark.parametrize("index", [0, 1, 2])
def test_sheet_found_in_a_photo_at_any_rotation(photo, index):
    s = photo(index)
    rgb = decode(s.jpeg)
    rectified, grid = locate(rgb)
    scale = rgb.shape[1] / cv2.imdecode(np.frombuffer(s.jpeg, np.uint8), 0).shape[1]
    # The corners come back in the printed order (header edge first), within 2 % of the photo.
    assert np.abs(rectified.corners / scale - s.corners).max() < 0.02 * max(rgb.shape)
    assert set(grid.cells) == {Hex(c["q"], c["r"]) for c in s.layout["cells"]}


def test_no_sheet_in_a_photo_of_a_table():
    rng = np.random.default_rng(5)
    table = synth.background(0, 900, 1200, rng).astype(np.uint8)
    _ok, data = cv2.imencode(".jpg", table)
    with pytest.raises(PhotoError, match="no sheet"):
        locate(decode(data.tobytes()))
