"""Spring Meadow photos (issue 8): the synthetic boards obey the rules, orientation and
turning, and the recogniser's answer on a few seeded synthetic photos (VALIDATION seeds;
the frozen TEST range belongs to the benchmark alone)."""

from __future__ import annotations

import io
from functools import lru_cache

import numpy as np
import pytest

pytest.importorskip("cv2", reason="the vision extra is not installed")

from PIL import Image

from scorepad.boardfile import BoardError
from scorepad.games import spring_meadow as sm
from scorepad.vision import meadow_synth as synth
from scorepad.vision import spring_meadow as sv
from scorepad.vision import synth as sv_synth
from scorepad.vision.decode import PhotoError, decode

#: A board in play photographed vertical, one horizontal, and an empty side (new game).
PLAY = (2, 3)
EMPTY = 0


@lru_cache(maxsize=4)
def photo(index: int) -> synth.Sample:
    return synth.sample(synth.VALIDATION, index, megapixels=2.0)


@lru_cache(maxsize=4)
def recognised(index: int) -> dict[str, object]:
    return sv.recognize_spring_meadow(photo(index).jpeg)


def layout_doc(state: synth.MeadowState) -> dict[str, object]:
    rows = [
        "".join(sm.OPEN if (r, c) in state.burrows else sm.SNOW for c in range(sv.GRID_COLS))
        for r in range(sv.GRID_ROWS)
    ]
    return {"name": "test side", "orientation": "vertical", "rows": rows}


# --- the synthetic boards ------------------------------------------------------------------


def test_synthetic_boards_are_valid_board_files_with_their_layout() -> None:
    """Every generated board reads as a Spring Meadow board file on its side's layout: burrow
    codes only on the layout's burrows, never snow there (rules digest, "Square states")."""
    for seed in range(30):
        state = synth.random_state(seed)
        doc = {
            "game": "spring-meadow",
            "options": {"layouts": [layout_doc(state)]},
            "players": [{"name": "Anna", "rows": state.codes(), "layout": "test side"}],
        }
        sm.GAME.parse(doc)
        assert len(state.burrows) == sm.BURROWS_PER_SIDE
        assert all(code != sm.CLEARED for code in "".join(state.codes())) or any(
            t.holes for t in state.tiles
        )


def test_marmots_stand_only_on_cleared_burrows() -> None:
    for seed in range(30):
        state = synth.random_state(seed)
        holes = {s for t in state.tiles for s in t.holes}
        assert state.marmots <= holes & state.burrows


def test_horizontal_rows_are_the_board_turned_a_quarter_clockwise() -> None:
    printed = synth.random_state(7).codes()
    turned = sv.as_seen(printed, "horizontal")
    assert len(turned) == sm.ROWS["horizontal"] and {len(r) for r in turned} == {
        sm.COLS["horizontal"]
    }
    # The printed bottom row becomes the left column, read from the top down.
    assert "".join(row[0] for row in turned) == printed[-1]
    assert sv.as_seen(printed, "vertical") == printed


# --- recognition ---------------------------------------------------------------------------


@pytest.mark.parametrize("index", PLAY)
def test_recognition_answers_the_board_file_shape(index: int) -> None:
    result = recognised(index)
    # The board's corners as shares of the photo (the evidence photo is cropped to them).
    outline = result["outline"]
    assert isinstance(outline, list) and len(outline) == 4
    assert all(0 <= x <= 1 and 0 <= y <= 1 for x, y in outline)
    assert max(x for x, _ in outline) - min(x for x, _ in outline) > 0.2
    player = result["player"]
    assert isinstance(player, dict)
    orientation = player["orientation"]
    assert orientation == photo(index).orientation
    rows = player["rows"]
    assert len(rows) == sm.ROWS[orientation]
    assert {len(r) for r in rows} == {sm.COLS[orientation]}
    assert set("".join(rows)) <= set(sm.SQUARE_CODES)
    confidence = result["confidence"]
    assert isinstance(confidence, list) and len(confidence) == sv.GRID_ROWS * sv.GRID_COLS
    assert all(0 <= c["p"] <= 1 and isinstance(c["flagged"], bool) for c in confidence)
    # The result is a valid board file.
    sm.GAME.parse({"game": "spring-meadow", "players": [{"name": "A", **player}]})


@pytest.mark.parametrize("index", PLAY)
def test_recognition_reads_the_squares_and_flags_what_it_gets_wrong(index: int) -> None:
    g = synth.grade(recognised(index), photo(index))
    assert g.found == g.orientation_right == 1
    assert g.right >= g.squares - 3
    assert g.silent <= 1


def test_a_layout_keeps_burrow_codes_on_its_burrows() -> None:
    s = photo(PLAY[0])
    result = sv.recognize_spring_meadow(s.jpeg, layout=layout_doc(s.state))
    rows = result["player"]["rows"]
    burrows = (
        s.state.burrows
        if s.orientation == "vertical"
        else {sm.turn_square(b, "vertical", "horizontal") for b in s.state.burrows}
    )
    for r, row in enumerate(rows):
        for c, code in enumerate(row):
            if (r, c) in burrows:
                assert code != sm.SNOW
            else:
                assert code not in sm.BURROW_CODES
    assert result["layout_differences"] == 0  # the board is this side


def test_another_sides_layout_is_told_by_the_burrows_seen() -> None:
    s = photo(PLAY[0])
    other = synth.random_state(synth.VALIDATION[0] + PLAY[1])
    assert other.burrows != s.state.burrows
    result = sv.recognize_spring_meadow(s.jpeg, layout=layout_doc(other))
    assert result["layout_differences"] >= 4
    assert "layout_differences" not in recognised(PLAY[0])  # nothing to differ from


def test_layout_differences_count_burrows_off_the_layout_and_snow_on_it() -> None:
    probs = np.zeros((sv.GRID_ROWS * sv.GRID_COLS, len(sv.CODE_ORDER)))
    probs[:, sv.CODE_ORDER.index(sm.COVERED)] = 1.0
    seen = {0: sm.OPEN, 1: sm.MARMOT, 12: sm.SNOW, 13: sm.SNOW, 20: sm.CLEARED}
    for i, code in seen.items():
        probs[i] = 0.0
        probs[i, sv.CODE_ORDER.index(code)] = 1.0
    burrows = frozenset({(0, 0), (1, 2), (5, 5)})  # (5, 5) lies under a tile: not seen
    # A marmot at (0, 1) and a cleared burrow at (2, 0) off the layout, snow on (1, 2).
    assert sv.layout_differences(probs, burrows) == 3


def test_an_invalid_layout_is_a_board_error() -> None:
    with pytest.raises(BoardError):
        sv.recognize_spring_meadow(photo(PLAY[0]).jpeg, layout={"name": "x", "rows": ["..."]})


def test_a_photo_of_a_new_side_gives_its_burrow_layout() -> None:
    s = photo(EMPTY)
    assert not s.state.tiles  # this seed is an empty board
    result = sv.recognize_spring_meadow_layout(s.jpeg)
    layout = sm.parse_layout(result["layout"])
    assert layout.burrows == s.state.burrows
    assert result["burrows"] == sm.BURROWS_PER_SIDE


def test_a_photo_without_a_board_is_refused_in_one_line() -> None:
    rng = np.random.default_rng(2)
    noise = rng.integers(0, 255, (600, 800, 3), dtype=np.uint8)
    buffer = io.BytesIO()
    Image.fromarray(noise).save(buffer, format="PNG")
    with pytest.raises(PhotoError, match="no Spring Meadow board"):
        sv.recognize_spring_meadow(buffer.getvalue())


def test_a_sunflower_valley_sheet_is_not_taken_for_a_spring_meadow_board() -> None:
    # Light margins and a dark band across its top: the board finder takes this sheet for
    # a Spring Meadow board, but its band shows no arrow.
    sheet = sv_synth.sample(sv_synth.VALIDATION, 4, megapixels=1.0)
    with pytest.raises(PhotoError, match="no Spring Meadow board"):
        sv.recognize_spring_meadow(sheet.jpeg)


def test_the_printed_arrow_shows_on_a_board_found_where_it_lies() -> None:
    s = photo(PLAY[0])
    photo_ = decode(s.jpeg, sv.WORK_SIDE)
    assert sv.arrow_score(sv.Plane(photo_, sv.locate(photo_))) > 0.7


def _found_at(photo_: np.ndarray, corners_mm: np.ndarray, found: object) -> object:
    """The board as if its outline had been found at ``corners_mm`` (board millimetres,
    mapped into the photo through the outline that was found)."""
    import cv2

    from scorepad.vision import boards
    from scorepad.vision.camera import apply, default_focal, estimate_focal, intrinsics, pose

    h = cv2.getPerspectiveTransform(
        sv.SPEC.corners.astype(np.float32),
        found.corners.astype(np.float32),  # type: ignore[attr-defined]
    )
    quad = apply(h, corners_mm)
    size = (photo_.shape[1], photo_.shape[0])
    h2 = cv2.getPerspectiveTransform(sv.SPEC.corners.astype(np.float32), quad.astype(np.float32))
    focal = estimate_focal(h2, size, aspect_known=True) or default_focal(size)
    camera = pose(h2, intrinsics(focal, size), size)
    return boards.Found(sv.SPEC, quad, camera, False, 0.7)


@pytest.mark.parametrize("shift", [(-12, 0, 0, 0), (0, 12, 0, 0), (0, 0, -12, 0), (0, 0, 0, 12)])
def test_the_arrow_shows_on_a_board_found_a_margins_width_off(shift: tuple[int, ...]) -> None:
    # An outline 12 mm off on one edge (left, top, right, bottom) moves the band's middle
    # by 6 mm or the band itself: the arrow is looked for around where the outline puts it.
    s = photo(PLAY[0])
    photo_ = decode(s.jpeg, sv.WORK_SIDE)
    left, top, right, bottom = shift
    width, height = sv.WIDTH + right, sv.HEIGHT + bottom
    corners = np.array([[left, top], [width, top], [width, height], [left, height]], float)
    found = _found_at(photo_, corners, sv.locate(photo_))
    assert sv.arrow_score(sv.Plane(photo_, found)) > sv.MIN_ARROW  # type: ignore[arg-type]
