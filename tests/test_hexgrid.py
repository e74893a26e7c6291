"""Hex geometry against the conventions of ``shared/rules/README.md`` (Red Blob Games, axial).

Most checks are made twice: exhaustively over a small patch of the grid, and as hypothesis
properties over a larger one. Expected values come from the rules digest's direction table,
from plain breadth-first search on the grid, or from pixel geometry computed here from the
printed offset layout, never from the functions under test.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections import deque
from collections.abc import Callable

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from scorepad.hexgrid import (
    FLAT_NAMES,
    ORIGIN,
    POINTY_NAMES,
    SIDES,
    STEPS,
    Hex,
    Layout,
    Orientation,
    axial_to_oddq,
    bounding_box,
    column_places,
    components,
    distance,
    hexes_within,
    neighbor,
    neighbors,
    oddq_to_axial,
    opposite,
    reflect,
    reflect_side,
    rotate,
    rotate_side,
    round_hex,
    side_between,
    side_gap,
)

PROPERTY = settings(max_examples=200, deadline=None)

coords = st.integers(min_value=-60, max_value=60)
hexes = st.builds(Hex, coords, coords)
sides = st.integers(min_value=0, max_value=5)
turns = st.integers(min_value=-13, max_value=13)

#: Every hex within 4 steps of the origin, listed without the module's own hexes_within().
PATCH = [
    Hex(q, r) for q in range(-4, 5) for r in range(-4, 5) if max(abs(q), abs(r), abs(q + r)) <= 4
]

#: The rules digest's direction table: index -> (axial step, flat-top name, pointy-top name).
DIGEST_TABLE = {
    0: ((1, 0), "SE", "E"),
    1: ((1, -1), "NE", "NE"),
    2: ((0, -1), "N", "NW"),
    3: ((-1, 0), "NW", "W"),
    4: ((-1, 1), "SW", "SW"),
    5: ((0, 1), "S", "SE"),
}

FLAT = Layout(Orientation.FLAT, 10.0)
POINTY = Layout(Orientation.POINTY, 10.0)
LAYOUTS = [
    FLAT,
    POINTY,
    Layout(Orientation.FLAT, 37.5, (120.0, -40.0)),
    Layout(Orientation.POINTY, 3.25, (-7.0, 55.5)),
]


def bfs_distance(a: Hex, b: Hex) -> int:
    """Steps between two hexes found by walking the six axial steps of the digest table."""
    steps = [step for step, _, _ in DIGEST_TABLE.values()]
    seen = {a: 0}
    queue = deque([a])
    while queue:
        h = queue.popleft()
        if h == b:
            return seen[h]
        for dq, dr in steps:
            n = Hex(h.q + dq, h.r + dr)
            if n not in seen:
                seen[n] = seen[h] + 1
                queue.append(n)
    raise AssertionError("unreachable")


def compass(dx: float, dy: float) -> str:
    """The nearest of the 8 compass points for a screen vector (y grows downwards)."""
    angle = math.degrees(math.atan2(-dy, dx)) % 360
    names = ["E", "NE", "N", "NW", "W", "SW", "S", "SE"]
    return names[round(angle / 45) % 8]


def screen_angle(layout: Layout, h: Hex) -> float:
    """Angle of the vector origin -> centre of h, counter-clockwise on screen, in degrees."""
    x0, y0 = layout.to_pixel(ORIGIN)
    x, y = layout.to_pixel(h)
    return math.degrees(math.atan2(-(y - y0), x - x0)) % 360


# --- the direction table -------------------------------------------------------------------


@pytest.mark.parametrize("side", range(6))
def test_steps_follow_the_digest_table(side: int) -> None:
    step, flat_name, pointy_name = DIGEST_TABLE[side]
    assert tuple(STEPS[side]) == step
    assert FLAT_NAMES[side] == flat_name
    assert POINTY_NAMES[side] == pointy_name
    assert neighbor(Hex(5, -2), side) == Hex(5 + step[0], -2 + step[1])


def test_there_are_six_sides_in_index_order() -> None:
    assert list(SIDES) == [0, 1, 2, 3, 4, 5]
    assert len(STEPS) == len(FLAT_NAMES) == len(POINTY_NAMES) == 6
    assert len(set(STEPS)) == 6


@pytest.mark.parametrize(
    ("layout", "names"), [(FLAT, FLAT_NAMES), (POINTY, POINTY_NAMES)], ids=["flat", "pointy"]
)
def test_direction_names_match_where_the_neighbour_is_drawn(
    layout: Layout, names: tuple[str, ...]
) -> None:
    for side in SIDES:
        x0, y0 = layout.to_pixel(ORIGIN)
        x, y = layout.to_pixel(STEPS[side])
        assert compass(x - x0, y - y0) == names[side], side


@pytest.mark.parametrize("layout", [FLAT, POINTY], ids=["flat", "pointy"])
def test_side_indices_run_counter_clockwise_by_sixty_degrees(layout: Layout) -> None:
    for side in SIDES:
        turn = (
            screen_angle(layout, STEPS[(side + 1) % 6]) - screen_angle(layout, STEPS[side])
        ) % 360
        assert turn == pytest.approx(60.0)


def test_hex_value_behaviour() -> None:
    h = Hex(2, -5)
    assert h.s == 3
    assert str(h) == "(2, -5)"
    assert h == Hex(2, -5) and hash(h) == hash(Hex(2, -5))
    assert tuple(h) == (2, -5)
    assert Hex(0, 0) == ORIGIN


# --- neighbours and sides ------------------------------------------------------------------


@pytest.mark.parametrize("side", range(6))
def test_opposite_is_three_sides_on(side: int) -> None:
    assert opposite(side) == (side + 3) % 6
    assert opposite(opposite(side)) == side
    step, opp = STEPS[side], STEPS[opposite(side)]
    assert (step.q + opp.q, step.r + opp.r) == (0, 0)


def test_neighbour_symmetry_exhaustive() -> None:
    for h in PATCH:
        for side in SIDES:
            n = neighbor(h, side)
            assert neighbor(n, opposite(side)) == h
            assert side_between(h, n) == side
            assert side_between(n, h) == opposite(side)
            assert distance(h, n) == 1


@given(hexes)
@PROPERTY
def test_neighbors_lists_the_six_sides_in_order(h: Hex) -> None:
    assert neighbors(h) == tuple(neighbor(h, d) for d in SIDES)
    assert len(set(neighbors(h))) == 6
    assert h not in neighbors(h)


def test_side_between_is_none_for_non_neighbours() -> None:
    for a, b in itertools.product(PATCH[:20], PATCH):
        expected = None
        for d, (step, _, _) in DIGEST_TABLE.items():
            if (b.q - a.q, b.r - a.r) == step:
                expected = d
        assert side_between(a, b) == expected


def test_side_between_examples() -> None:
    assert side_between(Hex(0, 0), Hex(0, 0)) is None
    assert side_between(Hex(0, 0), Hex(1, 1)) is None  # two steps apart on the s axis
    assert side_between(Hex(0, 0), Hex(2, 0)) is None
    assert side_between(Hex(3, 3), Hex(3, 2)) == 2


def test_side_gap_is_the_turn_between_sides() -> None:
    for a, b in itertools.product(SIDES, SIDES):
        turn = abs(screen_angle(FLAT, STEPS[a]) - screen_angle(FLAT, STEPS[b])) % 360
        turn = min(turn, 360 - turn)
        assert side_gap(a, b) == round(turn / 60)
        assert side_gap(a, b) == side_gap(b, a)
        assert 0 <= side_gap(a, b) <= 3


def test_side_gap_names_straight_curve_and_sharp() -> None:
    assert [side_gap(0, b) for b in SIDES] == [0, 1, 2, 3, 2, 1]
    assert side_gap(2, 5) == 3  # straight track
    assert side_gap(5, 1) == 2  # curve across side 0
    assert side_gap(5, 0) == 1  # neighbouring sides: illegal track


# --- distance --------------------------------------------------------------------------------


def test_distance_matches_breadth_first_search() -> None:
    for b in PATCH:
        assert distance(ORIGIN, b) == bfs_distance(ORIGIN, b), b
    for a, b in itertools.combinations(PATCH[::5], 2):
        assert distance(a, b) == bfs_distance(a, b), (a, b)


@given(hexes, hexes, hexes)
@PROPERTY
def test_distance_is_a_metric(a: Hex, b: Hex, c: Hex) -> None:
    assert distance(a, b) == distance(b, a) >= 0
    assert (distance(a, b) == 0) == (a == b)
    assert distance(a, c) <= distance(a, b) + distance(b, c)
    assert distance(a, b) == max(abs(a.q - b.q), abs(a.r - b.r), abs(a.s - b.s))


@given(hexes, sides, st.integers(min_value=0, max_value=30))
@PROPERTY
def test_walking_straight_covers_one_step_each(h: Hex, side: int, n: int) -> None:
    end = h
    for _ in range(n):
        end = neighbor(end, side)
    assert distance(h, end) == n


# --- odd-q printed columns -------------------------------------------------------------------

#: Harmonies personal boards (rules digest): rows per column, odd columns half a hex lower.
HARMONIES_SIDES = {"A": (5, 4, 5, 4, 5), "B": (4, 3, 4, 3, 4, 3, 4)}


def printed_board(side: str) -> list[tuple[int, int]]:
    return [(col, row) for col, rows in enumerate(HARMONIES_SIDES[side]) for row in range(rows)]


def printed_centre(col: int, row: int) -> tuple[float, float]:
    """Where a flat-top board printed in columns draws hex (col, row): unit size, y down."""
    return 1.5 * col, math.sqrt(3) * (row + 0.5 * (col & 1))


def test_column_places_count_columns_from_the_left_and_hexes_from_the_top() -> None:
    # Flat-top: a column is one q, r grows going down it; a gap column still counts (it is
    # drawn), and a column's first hex is where its own hexes start.
    hexes = [Hex(-1, 2), Hex(-1, 1), Hex(0, 0), Hex(0, 1), Hex(0, 2), Hex(2, -1)]
    assert column_places(hexes) == {
        Hex(-1, 1): (1, 1),
        Hex(-1, 2): (1, 2),
        Hex(0, 0): (2, 1),
        Hex(0, 1): (2, 2),
        Hex(0, 2): (2, 3),
        Hex(2, -1): (4, 1),
    }
    assert column_places([]) == {}
    # Going down a column is going down the drawing (larger y on a flat-top layout).
    layout = Layout(Orientation.FLAT, 10.0)
    assert layout.to_pixel(Hex(0, 1))[1] > layout.to_pixel(Hex(0, 0))[1]


def test_oddq_formula_from_the_digest() -> None:
    for col, row in itertools.product(range(-7, 8), range(-7, 8)):
        assert oddq_to_axial(col, row) == Hex(col, row - (col - (col & 1)) // 2)
        assert axial_to_oddq(oddq_to_axial(col, row)) == (col, row)


def test_oddq_examples() -> None:
    assert oddq_to_axial(0, 0) == Hex(0, 0)
    assert oddq_to_axial(1, 0) == Hex(1, 0)
    assert oddq_to_axial(2, 0) == Hex(2, -1)
    assert oddq_to_axial(3, 2) == Hex(3, 1)
    assert oddq_to_axial(4, 4) == Hex(4, 2)
    assert oddq_to_axial(-1, 0) == Hex(-1, 1)
    assert axial_to_oddq(Hex(6, -3)) == (6, 0)


@given(hexes)
@PROPERTY
def test_axial_to_oddq_round_trip(h: Hex) -> None:
    assert oddq_to_axial(*axial_to_oddq(h)) == h


@pytest.mark.parametrize(("side", "count"), [("A", 23), ("B", 25)])
def test_harmonies_boards_convert_to_distinct_connected_hexes(side: str, count: int) -> None:
    cells = [oddq_to_axial(c, r) for c, r in printed_board(side)]
    assert len(set(cells)) == count
    assert len(components(cells)) == 1
    assert [axial_to_oddq(h) for h in cells] == printed_board(side)


@pytest.mark.parametrize("side", ["A", "B"])
def test_hexes_touching_on_the_printed_board_are_axial_neighbours(side: str) -> None:
    board = printed_board(side)
    for a, b in itertools.permutations(board, 2):
        (ax, ay), (bx, by) = printed_centre(*a), printed_centre(*b)
        touching = math.isclose(math.hypot(ax - bx, ay - by), math.sqrt(3))
        ha, hb = oddq_to_axial(*a), oddq_to_axial(*b)
        assert (distance(ha, hb) == 1) == touching, (a, b)
        if touching:
            # The side index also points the way the printed board shows.
            assert compass(bx - ax, by - ay) == FLAT_NAMES[side_between(ha, hb) or 0]


def test_harmonies_side_a_odd_column_neighbours() -> None:
    # Column 1 sits half a hex lower: its top hex touches rows 0 and 1 of columns 0 and 2.
    h = oddq_to_axial(1, 0)
    on_board = {axial_to_oddq(n) for n in neighbors(h)} & set(printed_board("A"))
    assert on_board == {(0, 0), (0, 1), (2, 0), (2, 1), (1, 1)}
    # An even column's top hex touches only row 0 of the odd columns beside it.
    h = oddq_to_axial(2, 0)
    on_board = {axial_to_oddq(n) for n in neighbors(h)} & set(printed_board("A"))
    assert on_board == {(1, 0), (3, 0), (2, 1)}


# --- rotation ---------------------------------------------------------------------------------


@pytest.mark.parametrize("side", range(6))
def test_one_turn_maps_each_step_onto_the_next(side: int) -> None:
    assert rotate(STEPS[side]) == STEPS[(side + 1) % 6]
    assert rotate(STEPS[side], -1) == STEPS[(side - 1) % 6]
    assert rotate_side(side) == (side + 1) % 6
    assert rotate_side(side, 6) == side
    assert rotate_side(side, -2) == (side - 2) % 6


def test_rotation_exhaustive() -> None:
    for h in PATCH:
        assert rotate(h, 6) == h
        assert rotate(h, 0) == h
        images = [rotate(h, k) for k in range(6)]
        if h != ORIGIN:
            # Every hex off the centre has six distinct images at the same distance.
            assert len(set(images)) == 6
        assert {distance(ORIGIN, i) for i in images} == {distance(ORIGIN, h)}
        for k, side in itertools.product(range(6), SIDES):
            assert rotate(neighbor(h, side), k) == neighbor(rotate(h, k), rotate_side(side, k))


@given(hexes, hexes, turns, turns)
@PROPERTY
def test_rotation_properties(h: Hex, center: Hex, j: int, k: int) -> None:
    assert rotate(rotate(h, j, center), k, center) == rotate(h, j + k, center)
    assert rotate(rotate(h, k, center), -k, center) == h
    assert rotate(h, k + 6, center) == rotate(h, k, center)
    assert rotate(center, k, center) == center
    assert distance(rotate(h, k, center), center) == distance(h, center)


@given(hexes, hexes, hexes, turns)
@PROPERTY
def test_rotation_preserves_distance_and_sides(a: Hex, b: Hex, center: Hex, k: int) -> None:
    assert distance(rotate(a, k, center), rotate(b, k, center)) == distance(a, b)
    for side in SIDES:
        n = neighbor(a, side)
        assert side_between(rotate(a, k, center), rotate(n, k, center)) == (side + k) % 6


@given(hexes, hexes, turns)
@PROPERTY
def test_rotation_about_a_centre_is_rotation_about_the_origin_shifted(
    h: Hex, center: Hex, k: int
) -> None:
    shifted = rotate(Hex(h.q - center.q, h.r - center.r), k)
    assert rotate(h, k, center) == Hex(shifted.q + center.q, shifted.r + center.r)


@pytest.mark.parametrize("layout", [FLAT, POINTY], ids=["flat", "pointy"])
def test_one_turn_is_sixty_degrees_counter_clockwise_on_screen(layout: Layout) -> None:
    for h in PATCH:
        if h == ORIGIN:
            continue
        turn = (screen_angle(layout, rotate(h)) - screen_angle(layout, h)) % 360
        assert turn == pytest.approx(60.0), h


# --- reflection -------------------------------------------------------------------------------


def test_reflection_exhaustive() -> None:
    for h in PATCH:
        assert reflect(reflect(h)) == h
        assert distance(reflect(h), ORIGIN) == distance(h, ORIGIN)
        for side in SIDES:
            assert reflect(neighbor(h, side)) == neighbor(reflect(h), reflect_side(side))


@pytest.mark.parametrize("side", range(6))
def test_reflect_side_is_where_the_reflected_step_points(side: int) -> None:
    assert reflect(STEPS[side]) == STEPS[reflect_side(side)]
    assert reflect_side(reflect_side(side)) == side
    assert side_gap(reflect_side(side), reflect_side((side + 1) % 6)) == 1


def test_reflection_swaps_sides_zero_and_one() -> None:
    assert [reflect_side(d) for d in SIDES] == [1, 0, 5, 4, 3, 2]


@given(hexes, hexes, hexes)
@PROPERTY
def test_reflection_about_a_centre(h: Hex, other: Hex, center: Hex) -> None:
    assert reflect(reflect(h, center), center) == h
    assert reflect(center, center) == center
    assert distance(reflect(h, center), reflect(other, center)) == distance(h, other)
    for side in SIDES:
        image = reflect(neighbor(h, side), center)
        assert side_between(reflect(h, center), image) == reflect_side(side)


@given(hexes, turns)
@PROPERTY
def test_reflection_reverses_the_turn(h: Hex, k: int) -> None:
    # A mirror image turns the other way: reflect ∘ rotate(k) == rotate(-k) ∘ reflect.
    assert reflect(rotate(h, k)) == rotate(reflect(h), -k)


def test_all_twelve_symmetries_are_distinct() -> None:
    pattern = [Hex(0, 0), Hex(1, 0), Hex(2, 0), Hex(2, -1), Hex(0, 2)]  # no symmetry of its own
    images = set()
    for k in range(6):
        images.add(frozenset(rotate(h, k) for h in pattern))
        images.add(frozenset(reflect(rotate(h, k)) for h in pattern))
    assert len(images) == 12
    # A generic hex (|q|, |r|, |s| all different) also has twelve images.
    generic = Hex(2, 1)
    assert len({f(generic) for f in _symmetries()}) == 12


Symmetry = Callable[[Hex], Hex]


def _symmetries() -> list[Symmetry]:
    """The twelve maps: six turns, and each turn followed by the mirror."""
    maps: list[Symmetry] = []
    for k in range(6):
        maps.append(functools.partial(rotate, k=k))
        maps.append(functools.partial(_mirrored_turn, k=k))
    return maps


def _mirrored_turn(h: Hex, k: int) -> Hex:
    return reflect(rotate(h, k))


def test_symmetries_form_a_group() -> None:
    sample = PATCH[::3]

    def table(f: Symmetry) -> tuple[Hex, ...]:
        return tuple(f(h) for h in sample)

    known = {table(f) for f in _symmetries()}
    assert len(known) == 12
    for f, g in itertools.product(_symmetries(), repeat=2):
        assert tuple(f(g(h)) for h in sample) in known


# --- components -------------------------------------------------------------------------------


def brute_components(cells: set[Hex]) -> set[frozenset[Hex]]:
    """Connected groups by repeated merging: slow, obviously right."""
    groups = [{h} for h in cells]
    merged = True
    while merged:
        merged = False
        for i, j in itertools.combinations(range(len(groups)), 2):
            if any(distance(a, b) == 1 for a in groups[i] for b in groups[j]):
                groups[i] |= groups.pop(j)
                merged = True
                break
    return {frozenset(g) for g in groups}


def test_components_examples() -> None:
    assert components([]) == []
    assert components([Hex(0, 0)]) == [frozenset({Hex(0, 0)})]
    # (0, 0) and (1, 1) share no side (distance 2): two groups, in order of their first hex.
    assert components([Hex(1, 1), Hex(0, 0)]) == [frozenset({Hex(0, 0)}), frozenset({Hex(1, 1)})]
    chain = [Hex(0, 0), Hex(1, -1), Hex(2, -2), Hex(2, -1)]
    assert components(chain) == [frozenset(chain)]
    # A ring around a hole stays one group; the hole is not part of it.
    ring = list(neighbors(Hex(5, 5)))
    assert components(ring) == [frozenset(ring)]
    # Duplicates in the input are harmless.
    assert components([Hex(3, 3), Hex(3, 3)]) == [frozenset({Hex(3, 3)})]


@given(st.sets(st.builds(Hex, st.integers(-3, 3), st.integers(-3, 3)), max_size=25))
@PROPERTY
def test_components_match_brute_force(cells: set[Hex]) -> None:
    groups = components(cells)
    assert set(groups) == brute_components(cells)
    assert len(groups) == len(set(groups))
    firsts = [min(g) for g in groups]
    assert firsts == sorted(firsts)  # stable order: by each group's smallest hex
    assert components(sorted(cells, reverse=True)) == groups


# --- pixels -----------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS, ids=str)
def test_neighbour_centres_are_sqrt3_sizes_apart(layout: Layout) -> None:
    for h in PATCH:
        x, y = layout.to_pixel(h)
        for n in neighbors(h):
            nx, ny = layout.to_pixel(n)
            assert math.hypot(nx - x, ny - y) == pytest.approx(math.sqrt(3) * layout.size)


@pytest.mark.parametrize("layout", LAYOUTS, ids=str)
def test_origin_hex_is_drawn_at_the_layout_origin(layout: Layout) -> None:
    assert layout.to_pixel(ORIGIN) == pytest.approx(layout.origin)


def test_flat_and_pointy_positions() -> None:
    s3 = math.sqrt(3)
    assert FLAT.to_pixel(Hex(1, 0)) == pytest.approx((15.0, 10 * s3 / 2))
    assert FLAT.to_pixel(Hex(0, 1)) == pytest.approx((0.0, 10 * s3))
    assert POINTY.to_pixel(Hex(1, 0)) == pytest.approx((10 * s3, 0.0))
    assert POINTY.to_pixel(Hex(0, 1)) == pytest.approx((10 * s3 / 2, 15.0))


@pytest.mark.parametrize("layout", LAYOUTS, ids=str)
def test_corners(layout: Layout) -> None:
    for h in PATCH:
        corners = layout.corners(h)
        assert len(corners) == 6
        cx, cy = layout.to_pixel(h)
        for x, y in corners:
            assert math.hypot(x - cx, y - cy) == pytest.approx(layout.size)
        # Consecutive corners are one side length (= size) apart.
        for (ax, ay), (bx, by) in itertools.pairwise([*corners, corners[0]]):
            assert math.hypot(ax - bx, ay - by) == pytest.approx(layout.size)


def test_flat_top_has_a_flat_edge_on_top_and_pointy_a_corner() -> None:
    flat_ys = sorted(round(y, 9) for _, y in FLAT.corners(ORIGIN))
    assert flat_ys[0] == flat_ys[1]  # two corners share the top edge
    pointy_ys = sorted(round(y, 9) for _, y in POINTY.corners(ORIGIN))
    assert pointy_ys[0] < pointy_ys[1]  # a single corner on top
    assert pointy_ys[0] == pytest.approx(-10.0)


@pytest.mark.parametrize("layout", LAYOUTS, ids=str)
def test_neighbours_share_two_corners_and_the_side_midpoint_lies_between(layout: Layout) -> None:
    for h in PATCH[::4]:
        for side in SIDES:
            n = neighbor(h, side)
            shared = [
                a
                for a in layout.corners(h)
                if any(math.dist(a, b) < 1e-6 * layout.size for b in layout.corners(n))
            ]
            assert len(shared) == 2
            mx, my = layout.side_midpoint(h, side)
            assert mx == pytest.approx((shared[0][0] + shared[1][0]) / 2)
            assert my == pytest.approx((shared[0][1] + shared[1][1]) / 2)
            cx, cy = layout.to_pixel(h)
            assert math.hypot(mx - cx, my - cy) == pytest.approx(math.sqrt(3) / 2 * layout.size)


@pytest.mark.parametrize("layout", LAYOUTS, ids=str)
def test_pixel_round_trip_of_centres(layout: Layout) -> None:
    for h in PATCH:
        assert layout.from_pixel(*layout.to_pixel(h)) == h


@given(
    hexes,
    st.sampled_from(LAYOUTS),
    st.integers(min_value=0, max_value=5),
    st.floats(min_value=0.0, max_value=1.0),
    st.floats(min_value=0.0, max_value=0.995),
)
@PROPERTY
def test_any_point_inside_a_hex_maps_back_to_it(
    h: Hex, layout: Layout, corner: int, along: float, depth: float
) -> None:
    # Points of the hexagon: a point on one edge (between two corners), pulled towards the centre.
    corners = layout.corners(h)
    (ax, ay), (bx, by) = corners[corner], corners[(corner + 1) % 6]
    ex, ey = ax + along * (bx - ax), ay + along * (by - ay)
    cx, cy = layout.to_pixel(h)
    x, y = cx + depth * (ex - cx), cy + depth * (ey - cy)
    assert layout.from_pixel(x, y) == h


@given(
    st.sampled_from(LAYOUTS),
    st.floats(min_value=-400, max_value=400),
    st.floats(min_value=-400, max_value=400),
)
@PROPERTY
def test_from_pixel_finds_the_nearest_centre(layout: Layout, x: float, y: float) -> None:
    h = layout.from_pixel(x, y)
    best = math.dist((x, y), layout.to_pixel(h))
    for n in neighbors(h):
        assert best <= math.dist((x, y), layout.to_pixel(n)) + 1e-9 * layout.size


def test_round_hex_examples() -> None:
    assert round_hex(0.0, 0.0) == ORIGIN
    assert round_hex(2.0, -3.0) == Hex(2, -3)
    assert round_hex(0.1, 0.3) == Hex(0, 0)
    assert round_hex(0.7, -0.1) == Hex(1, 0)
    assert round_hex(-0.2, -0.7) == Hex(0, -1)
    # Plain rounding of q and r separately would give (1, 1); cube rounding keeps q + r + s = 0.
    assert round_hex(0.55, 0.55) in {Hex(1, 0), Hex(0, 1)}
    assert type(round_hex(1.2, -0.1).q) is int


@given(hexes, st.floats(-0.3, 0.3), st.floats(-0.3, 0.3))
@PROPERTY
def test_round_hex_snaps_nearby_fractions(h: Hex, dq: float, dr: float) -> None:
    # |dq|, |dr| and |ds| = |dq + dr| all below one half keep the point inside hex h.
    assume(abs(dq + dr) < 0.5)
    assert round_hex(h.q + dq, h.r + dr) == h


def test_bounding_box() -> None:
    assert bounding_box(FLAT, []) == (0.0, 0.0, 0.0, 0.0)
    s3 = math.sqrt(3)
    assert bounding_box(FLAT, [ORIGIN]) == pytest.approx((-10.0, -5 * s3, 10.0, 5 * s3))
    assert bounding_box(POINTY, [ORIGIN]) == pytest.approx((-5 * s3, -10.0, 5 * s3, 10.0))
    box = bounding_box(FLAT, [ORIGIN, Hex(1, 0)])
    assert box == pytest.approx((-10.0, -5 * s3, 25.0, 10 * s3))


# --- hexes_within ------------------------------------------------------------------------------


@pytest.mark.parametrize("radius", range(7))
def test_spiral_counts_and_members(radius: int) -> None:
    center = Hex(3, -2)
    cells = list(hexes_within(center, radius))
    assert len(cells) == 1 + 3 * radius * (radius + 1)
    assert len(set(cells)) == len(cells)
    expected = {
        Hex(center.q + dq, center.r + dr)
        for dq in range(-radius, radius + 1)
        for dr in range(-radius, radius + 1)
        if bfs_distance(center, Hex(center.q + dq, center.r + dr)) <= radius
    }
    assert set(cells) == expected
    assert center in cells


@given(hexes, st.integers(min_value=0, max_value=12))
@PROPERTY
def test_spiral_is_the_disc(center: Hex, radius: int) -> None:
    cells = list(hexes_within(center, radius))
    assert len(cells) == 1 + 3 * radius * (radius + 1)
    assert all(distance(center, h) <= radius for h in cells)
    assert sum(distance(center, h) == radius for h in cells) == (6 * radius or 1)
