"""Spring Meadow phase scoring, from the rulebook's "Подсчет очков" section and the digest."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorepad import games
from scorepad.boardfile import BoardError
from scorepad.cli import main
from scorepad.games import spring_meadow as sm

ROOT = Path(__file__).resolve().parent.parent
SNOW_ROW = "." * 10
FULL_ROW = "#" * 10


def vertical(*bottom: str) -> list[str]:
    """A vertical board: ``bottom`` are its lowest rows, top first; snow above them."""
    return [SNOW_ROW] * (15 - len(bottom)) + list(bottom)


def row_with(covered: int, fill: str = "#") -> str:
    """A row of 10 with ``covered`` covered squares on the left."""
    return fill * covered + "." * (10 - covered)


def table_doc(*rows: list[str], active: str | None = None, **player: Any) -> dict[str, Any]:
    names = ["Anna", "Boris", "Clara", "Dmitri"]
    players = [{"name": names[i], "orientation": "vertical", "rows": r} for i, r in enumerate(rows)]
    for p in players:
        p.update(player)
    options: dict[str, Any] = {} if active is None else {"active": active}
    return {"game": "spring-meadow", "options": options, "players": players}


def score_rows(rows: list[str], orientation: str = "vertical") -> tuple[dict[str, int], Any]:
    doc = table_doc(rows)
    doc["players"][0]["orientation"] = orientation
    result = sm.score(sm.parse(doc))
    player = result.players[0]
    return dict(player.categories), player.details


# ------------------------------------------------------------------ rows from the bottom


def test_full_rows_from_the_bottom_then_the_first_incomplete_row() -> None:
    # "Подсчитайте полностью закрытые ряды, начиная снизу до первого неполного ряда":
    # 3 full rows score 10 each, the 4th row's 7 covered squares score 1 each.
    categories, details = score_rows(vertical(row_with(7), FULL_ROW, FULL_ROW, FULL_ROW))
    assert categories == {"full_rows": 30, "partial_row": 7, "cleared_burrows": 0, "picnic": 0}
    assert details["full_rows"] == [1, 2, 3]
    assert details["counting_row"] == 4
    assert details["counting_row_covered"] == 7
    assert details["counting"] == "rows from the bottom"


def test_rows_above_the_first_incomplete_row_never_count() -> None:
    # "Полностью закрытые ряды над первым неполным рядом не учитываются при подсчете очков!"
    rows = vertical(FULL_ROW, FULL_ROW, FULL_ROW, row_with(9), FULL_ROW)
    categories, details = score_rows(rows)
    assert categories["full_rows"] == 10
    assert categories["partial_row"] == 9
    assert details["counting_row"] == 2
    assert details["full_rows_not_counted"] == [3, 4, 5]


def test_covered_squares_above_the_counting_row_do_not_score() -> None:
    rows = vertical(row_with(5), row_with(5), row_with(3))
    categories, details = score_rows(rows)
    assert (categories["full_rows"], categories["partial_row"]) == (0, 3)
    assert details["counting_row"] == 1


def test_an_empty_board_scores_nothing() -> None:
    categories, details = score_rows(vertical())
    assert sum(categories.values()) == 0
    assert details["counting_row"] == 1
    assert details["counting_row_covered"] == 0


def test_a_fully_covered_board_has_no_incomplete_row() -> None:
    categories, details = score_rows([FULL_ROW] * 15)
    assert categories["full_rows"] == 150
    assert categories["partial_row"] == 0
    assert details["counting_row"] is None
    assert details["full_rows"] == list(range(1, 16))


@pytest.mark.parametrize("burrow", ["o", "c", "m"])
def test_every_burrow_counts_as_a_covered_square(burrow: str) -> None:
    # "Норы уже считаются закрытыми ячейками": an open burrow need not be covered.
    categories, _ = score_rows(vertical(row_with(3), "####" + burrow + "#####"))
    assert categories["full_rows"] == 10
    assert categories["partial_row"] == 3


@pytest.mark.parametrize("burrow", ["o", "c", "m"])
def test_a_burrow_counts_as_covered_in_the_counting_row(burrow: str) -> None:
    categories, _ = score_rows(vertical(burrow + "##......."))
    assert categories["partial_row"] == 3


def test_a_cleared_burrow_in_the_counting_row_scores_twice() -> None:
    # A burrow is a covered square ("Норы уже считаются закрытыми ячейками") and a cleared
    # one scores 1 "независимо от их положения": in the counting row it does both.
    categories, _ = score_rows(vertical("c##......."))
    assert categories["partial_row"] == 3 and categories["cleared_burrows"] == 1
    assert sum(categories.values()) == 4


def test_only_cleared_burrows_score_and_marmots_do_not() -> None:
    # "Норы, закрытые Сурками, больше не считаются очищенными": +1 per cleared burrow only.
    rows = vertical("#c#m#o####")
    categories, details = score_rows(rows)
    assert categories["cleared_burrows"] == 1
    assert details["cleared_burrows"] == [[14, 1]]
    assert details["marmots"] == [[14, 3]]
    assert details["open_burrows"] == [[14, 5]]


def test_cleared_burrows_score_anywhere_on_the_board() -> None:
    # "независимо от их положения на вашем Горном планшете"
    rows = vertical(row_with(2))
    rows[0] = "c........c"
    rows[7] = "....c....."
    categories, details = score_rows(rows)
    assert categories["cleared_burrows"] == 3
    assert details["cleared_burrows"] == [[0, 0], [0, 9], [7, 4]]
    assert categories["partial_row"] == 2


# ------------------------------------------------------------------ horizontal boards


def horizontal(columns_covered: list[int]) -> list[str]:
    """10 rows of 15; column i (from the left) has ``columns_covered[i]`` covered squares."""
    counts = columns_covered + [0] * (15 - len(columns_covered))
    return ["".join("#" if r < counts[c] else "." for c in range(15)) for r in range(10)]


def test_horizontal_boards_count_columns_from_the_left() -> None:
    # "вы считаете полностью закрытые столбцы слева направо"
    categories, details = score_rows(horizontal([10, 10, 4, 10]), "horizontal")
    assert categories["full_rows"] == 20
    assert categories["partial_row"] == 4
    assert details["counting"] == "columns from the left"
    assert details["full_rows"] == [1, 2]
    assert details["full_rows_not_counted"] == [4]


def test_a_horizontal_board_does_not_count_its_bottom_row() -> None:
    rows = ["." * 15] * 9 + ["#" * 15]
    categories, details = score_rows(rows, "horizontal")
    assert categories["full_rows"] == 0
    assert categories["partial_row"] == 1
    assert details["counting_row"] == 1


def test_a_horizontal_board_has_10_rows_of_15() -> None:
    with pytest.raises(BoardError, match="a horizontal board has 10 rows of 15"):
        sm.parse(table_doc(vertical(), orientation="horizontal"))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(".#ocm"), min_size=150, max_size=150))
def test_turning_a_board_a_quarter_clockwise_keeps_its_score(codes: list[str]) -> None:
    rows = ["".join(codes[r * 10 : r * 10 + 10]) for r in range(15)]
    turned = [["."] * 15 for _ in range(10)]
    for r in range(15):
        for c in range(10):
            tr, tc = sm.turn_square((r, c), "vertical", "horizontal")
            turned[tr][tc] = rows[r][c]
    board = sm.Board("Anna", "vertical", tuple(rows))
    flat = sm.Board("Anna", "horizontal", tuple("".join(r) for r in turned))
    assert sm.score_board(board)[0] == sm.score_board(flat)[0]


def test_turning_puts_the_bottom_row_on_the_left_column() -> None:
    assert sm.turn_square((14, 0), "vertical", "horizontal") == (0, 0)
    assert sm.turn_square((14, 9), "vertical", "horizontal") == (9, 0)
    assert sm.turn_square((0, 0), "vertical", "horizontal") == (0, 14)
    for square in [(0, 0), (3, 7), (14, 9)]:
        there = sm.turn_square(square, "vertical", "horizontal")
        assert sm.turn_square(there, "horizontal", "vertical") == square


# ------------------------------------------------------------------ picnic and the winner


def test_the_active_player_gets_the_picnic() -> None:
    # "При подсчете очков пикник приносит 2 ПО"
    result = sm.score(sm.parse(table_doc(vertical(), vertical(), vertical(), active="Boris")))
    assert [p.categories["picnic"] for p in result.players] == [0, 2, 0]
    assert result.player("Boris").details["picnic"] is True
    assert result.winners == ("Boris",)


def test_the_highest_score_wins_the_phase() -> None:
    doc = table_doc(vertical(FULL_ROW), vertical(row_with(9)), active="Anna")
    result = sm.score(sm.parse(doc))
    assert result.winners == ("Anna",)
    assert result.player("Anna").total == 12


def counter_clockwise_walk(active: int, n: int) -> list[int]:
    """Seats met walking counter-clockwise from the active player (listed clockwise)."""
    seats = [active]
    while len(seats) < n:
        seats.append((seats[-1] - 1) % n)
    return seats


@pytest.mark.parametrize(
    ("n", "active"), [(n, a) for n in (2, 3, 4) for a in range(n)], ids=lambda v: str(v)
)
def test_a_tie_goes_to_the_player_farthest_counter_clockwise(n: int, active: int) -> None:
    # "побеждает игрок, который является самым дальним против часовой стрелки от активного"
    # The active player has 2 fewer points on the board, so the picnic ties everybody.
    rows = [vertical(row_with(5)) for _ in range(n)]
    rows[active] = vertical(row_with(3))
    names = ["Anna", "Boris", "Clara", "Dmitri"][:n]
    result = sm.score(sm.parse(table_doc(*rows, active=names[active])))
    assert len({p.total for p in result.players}) == 1
    walk = counter_clockwise_walk(active, n)
    assert result.winners == (names[walk[-1]],)
    # Every place is ordered: farther counter-clockwise is better, the active player last.
    expected_ranks = {names[seat]: n - k for k, seat in enumerate(walk)}
    assert {p.name: p.rank for p in result.players} == expected_ranks
    assert result.tiebreaks


@pytest.mark.parametrize("n", [2, 3, 4])
def test_the_seat_distance_is_the_tie_break_value(n: int) -> None:
    names = ["Anna", "Boris", "Clara", "Dmitri"][:n]
    for active in range(n):
        walk = counter_clockwise_walk(active, n)
        seats = sm.seats_from_active(names, names[active])
        assert seats == {names[seat]: k for k, seat in enumerate(walk)}


def test_a_tie_between_two_of_three_players_goes_counter_clockwise() -> None:
    # Anna is active and lower; Boris and Clara tie. Walking counter-clockwise from Anna
    # meets Clara first, then Boris: Boris is farther and wins.
    doc = table_doc(vertical(), vertical(FULL_ROW), vertical(FULL_ROW), active="Anna")
    result = sm.score(sm.parse(doc))
    assert result.winners == ("Boris",)
    assert [p.rank for p in result.players] == [3, 1, 2]


def test_the_active_player_is_the_nearest_and_loses_a_tie() -> None:
    doc = table_doc(vertical(row_with(8)), vertical(FULL_ROW), active="Anna")
    result = sm.score(sm.parse(doc))
    assert result.player("Anna").total == result.player("Boris").total == 10
    assert result.winners == ("Boris",)


def test_without_an_active_player_a_tie_is_shared() -> None:
    result = sm.score(sm.parse(table_doc(vertical(FULL_ROW), vertical(FULL_ROW), vertical())))
    assert result.winners == ("Anna", "Boris")
    assert [p.rank for p in result.players] == [1, 1, 3]
    assert all(p.categories["picnic"] == 0 for p in result.players)
    assert all(p.details["seats_from_active"] is None for p in result.players)


def test_result_json_lists_every_category() -> None:
    doc = table_doc(vertical(FULL_ROW), vertical(), active="Boris")
    out = sm.score(sm.parse(doc)).to_json()
    for player in out["players"]:
        assert set(player["categories"]) == {
            "full_rows",
            "partial_row",
            "cleared_burrows",
            "picnic",
        }
        assert player["total"] == sum(player["categories"].values())
    assert out["winners"] == ["Anna"]


# ------------------------------------------------------------------ validation


def problems_of(doc: dict[str, Any]) -> list[str]:
    with pytest.raises(BoardError) as err:
        sm.parse(doc)
    return err.value.problems


def test_bad_rows_name_the_player_the_row_and_the_square() -> None:
    rows = vertical(FULL_ROW)
    rows[3] = "#" * 11
    rows[5] = "...x......"
    problems = problems_of(table_doc(rows, vertical()[:14]))
    text = "\n".join(problems)
    assert "player 'Anna', row 3: 11 squares; a vertical board row has 10" in text
    assert "player 'Anna', square (5, 3): 'x' is not a square code" in text
    assert "player 'Boris': 14 rows; a vertical board has 15 rows of 10 squares" in text


def test_a_row_or_a_square_alone_is_counted_in_the_singular() -> None:
    """A malformed board of one row, or a row of one square, read "1 rows", "1 squares"."""
    said = {}
    for n in (1, 2, 5):
        rows = vertical()
        rows[3] = "#" * n
        said[n] = problems_of(table_doc(rows, vertical()[:n]))
    assert said[1] == [
        "player 'Anna', row 3: 1 square; a vertical board row has 10",
        "player 'Boris': 1 row; a vertical board has 15 rows of 10 squares",
    ]
    assert said[2] == [
        "player 'Anna', row 3: 2 squares; a vertical board row has 10",
        "player 'Boris': 2 rows; a vertical board has 15 rows of 10 squares",
    ]
    assert said[5][1] == "player 'Boris': 5 rows; a vertical board has 15 rows of 10 squares"


def test_unknown_keys_and_wrong_types_are_errors() -> None:
    doc = table_doc(vertical())
    doc["players"][0]["colour"] = "red"
    assert any("unknown key 'colour'" in p for p in problems_of(doc))
    doc = table_doc(vertical(), orientation="diagonal")
    assert any("player 'Anna'" in p and "orientation" in p for p in problems_of(doc))


def test_the_active_player_must_be_at_the_table() -> None:
    assert any(
        "'Zoe' is not one of the players" in p
        for p in problems_of(table_doc(vertical(), active="Zoe"))
    )


def test_one_to_four_players_with_unique_names() -> None:
    doc = table_doc(*[vertical()] * 4)
    doc["players"].append({"name": "Eva", "orientation": "vertical", "rows": vertical()})
    assert any("5 players" in p for p in problems_of(doc))
    doc = table_doc(vertical(), vertical())
    doc["players"][1]["name"] = "Anna"
    assert any("names must be unique" in p for p in problems_of(doc))


def test_more_than_eleven_burrows_without_a_layout_is_an_error() -> None:
    rows = vertical("oooooooooo", "oo........")
    assert any("12 burrow squares" in p for p in problems_of(table_doc(rows)))
    sm.parse(table_doc(vertical("oooooooooo", "o.........")))


# ------------------------------------------------------------------ layouts


def layout_doc(burrows: list[tuple[int, int]], name: str = "Side A1") -> dict[str, Any]:
    rows = [["."] * 10 for _ in range(15)]
    for r, c in burrows:
        rows[r][c] = "o"
    return {"name": name, "orientation": "vertical", "rows": ["".join(r) for r in rows]}


ELEVEN = [
    (14, 1),
    (14, 5),
    (12, 3),
    (10, 0),
    (9, 9),
    (7, 2),
    (6, 6),
    (5, 5),
    (3, 1),
    (2, 8),
    (0, 4),
]


def with_layout(rows: list[str], burrows: list[tuple[int, int]] = ELEVEN) -> dict[str, Any]:
    doc = table_doc(rows, layout="Side A1")
    doc["options"]["layouts"] = [layout_doc(burrows)]
    return doc


def layout_board(codes: dict[tuple[int, int], str] | None = None) -> list[str]:
    """The board of the ELEVEN layout with all burrows open, then ``codes`` applied."""
    grid = [["."] * 10 for _ in range(15)]
    for r, c in ELEVEN:
        grid[r][c] = "o"
    for (r, c), code in (codes or {}).items():
        grid[r][c] = code
    return ["".join(row) for row in grid]


def test_a_board_matching_its_layout_is_valid() -> None:
    table = sm.parse(with_layout(layout_board({(14, 1): "c", (14, 5): "#", (7, 2): "m"})))
    assert table.layouts[0].name == "Side A1"
    assert sm.score(table).warnings == ()


def test_a_burrow_code_where_the_layout_has_no_burrow_is_an_error() -> None:
    problems = problems_of(with_layout(layout_board({(13, 4): "c"})))
    assert problems == [
        "player 'Anna', square (13, 4): cleared burrow 'c' where the layout has no burrow"
    ]


def test_a_burrow_missing_from_the_board_is_an_error() -> None:
    problems = problems_of(with_layout(layout_board({(9, 9): "."})))
    assert len(problems) == 1
    assert problems[0].startswith("player 'Anna', square (9, 9): the layout has a burrow here")


def test_a_layout_without_eleven_burrows_is_warned_about() -> None:
    table = sm.parse(with_layout(layout_board({(0, 4): "."}), ELEVEN[:10]))
    warnings = sm.score(table).warnings
    assert warnings == ("layout 'Side A1' has 10 burrows; every printed board side has 11",)


def test_a_layout_with_one_burrow_says_1_burrow() -> None:
    for n, count in ((1, "1 burrow"), (2, "2 burrows"), (5, "5 burrows")):
        board = layout_board({square: "." for square in ELEVEN[n:]})
        warnings = sm.score(sm.parse(with_layout(board, ELEVEN[:n]))).warnings
        assert warnings == (f"layout 'Side A1' has {count}; every printed board side has 11",)


def test_an_unknown_layout_name_is_an_error() -> None:
    doc = table_doc(vertical(), layout="Side Z")
    assert any("layout 'Side Z' is not in 'options', 'layouts'" in p for p in problems_of(doc))


def test_a_layout_only_has_snow_and_burrows() -> None:
    doc = with_layout(layout_board())
    doc["options"]["layouts"][0]["rows"][0] = "#........."
    assert any("layout 'Side A1', square (0, 0)" in p for p in problems_of(doc))


def test_a_horizontal_board_is_checked_against_the_turned_layout() -> None:
    layout = sm.parse_layout(layout_doc(ELEVEN))
    flat = sm.empty_board("horizontal", layout)
    doc = table_doc(list(flat), orientation="horizontal", layout="Side A1")
    doc["options"]["layouts"] = [layout_doc(ELEVEN)]
    assert sm.parse(doc).players[0].rows == flat
    # The untouched vertical rows of burrows do not fit a horizontal board.
    wrong = [row.replace("o", ".") for row in flat]
    wrong[0] = "o" + wrong[0][1:]
    doc["players"][0]["rows"] = wrong
    assert len(problems_of(doc)) >= 11


def test_covering_more_burrows_than_marmots_is_warned_about() -> None:
    # "Если вы накроете Нору Тайлом ... вы должны поместить Сурка поверх одной из очищенных Нор"
    table = sm.parse(with_layout(layout_board({(14, 1): "#", (14, 5): "#", (7, 2): "m"})))
    (warning,) = sm.score(table).warnings
    assert warning.startswith("player 'Anna': more burrows covered by tiles (2) than marmots on")


def test_the_bundled_example_layout_has_eleven_burrows_and_round_trips() -> None:
    layout = sm.example_layout()
    assert "example" in layout.name.lower()
    assert len(layout.burrows) == 11
    assert sm.layout_warnings(layout) == []
    assert sm.parse_layout(sm.dump_layout(layout)) == layout


def test_a_layout_file_with_problems_raises() -> None:
    with pytest.raises(BoardError, match="3 rows"):
        sm.parse_layout({"name": "short", "rows": [SNOW_ROW] * 3})
    with pytest.raises(BoardError, match="the name is empty"):
        sm.parse_layout({"name": " ", "rows": [SNOW_ROW] * 15})


# ------------------------------------------------------------------ editor helpers


def test_board_shapes_per_orientation() -> None:
    assert (sm.ROWS["vertical"], sm.COLS["vertical"]) == (15, 10)
    assert (sm.ROWS["horizontal"], sm.COLS["horizontal"]) == (10, 15)
    assert set(sm.SQUARE_CODES) == {".", "#", "o", "c", "m"}


def test_fill_row_covers_the_snow_of_a_counted_line_only() -> None:
    rows = vertical("o.c.......")
    filled = sm.fill_row(rows, "vertical", 1)
    assert filled[14] == "o#c#######"
    assert filled[:14] == tuple(rows[:14])
    flat = sm.fill_row(sm.empty_board("horizontal"), "horizontal", 3)
    assert all(row[2] == "#" for row in flat)
    assert sum(row.count("#") for row in flat) == 10


def test_line_squares_number_lines_from_the_bottom_or_the_left() -> None:
    assert sm.line_squares("vertical", 1)[0] == (14, 0)
    assert sm.line_squares("vertical", 15)[-1] == (0, 9)
    assert sm.line_squares("horizontal", 1) == tuple((r, 0) for r in range(10))
    with pytest.raises(ValueError):
        sm.line_squares("vertical", 16)


@pytest.mark.parametrize("orientation", ["vertical", "horizontal"])
def test_square_line_finds_every_square_on_its_counted_line(orientation: sm.Orientation) -> None:
    for line in range(1, sm.LINES + 1):
        for n, square in enumerate(sm.line_squares(orientation, line), start=1):
            assert sm.square_line(orientation, square) == (line, n)
    assert sm.square_line("vertical", (14, 0)) == (1, 1)  # bottom left: line 1, first
    assert sm.square_line("horizontal", (0, 0)) == (1, 1)  # top left: column 1, first


# ------------------------------------------------------------------ files and the command


def test_dump_round_trips_with_layouts() -> None:
    doc = with_layout(layout_board({(14, 1): "c"}))
    doc["options"]["active"] = "Anna"
    table = sm.parse(doc)
    assert sm.parse(sm.dump(table)) == table
    assert sm.dump(table) == doc


def test_the_example_table_scores_as_read_by_hand() -> None:
    doc = json.loads((ROOT / "examples" / "spring-meadow.json").read_text(encoding="utf-8"))
    game, table = games.parse(doc)
    assert game is sm.GAME
    assert len(table.players) == 3
    assert sm.parse(sm.dump(table)) == table
    result = sm.score(table)
    # Read off the boards: Anna 3 full rows + 9 + 2 cleared; Boris (horizontal) 3 full
    # columns + 8 + 3 cleared; Clara 2 full rows + 7 + 2 cleared + the picnic.
    assert {p.name: p.total for p in result.players} == {"Anna": 41, "Boris": 41, "Clara": 31}
    # Anna and Boris tie; walking counter-clockwise from Clara meets Boris, then Anna.
    assert result.winners == ("Anna",)
    assert result.warnings == ()


def test_the_command_scores_the_example(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", str(ROOT / "examples" / "spring-meadow.json")]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["game"] == "spring-meadow"
    assert len(out["winners"]) == 1


def test_the_command_rejects_a_bad_board(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(table_doc(vertical()[:3])), encoding="utf-8")
    assert main(["score", str(path)]) == 2
    assert "player 'Anna'" in capsys.readouterr().err


def test_a_broken_layout_is_reported_once_not_as_missing() -> None:
    doc = with_layout(layout_board())
    doc["options"]["layouts"][0]["rows"] = doc["options"]["layouts"][0]["rows"][:3]
    found = problems_of(doc)
    assert found == [
        "'options', layout 'Side A1': 3 rows; a vertical board has 15 rows of 10 squares"
    ]


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-20, 20) | st.text(".#ocmx", max_size=16),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text("abnr", max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_bad_input_never_crashes(data: st.DataObject) -> None:
    doc: Any = json.loads((ROOT / "examples" / "spring-meadow.json").read_text(encoding="utf-8"))
    node = doc
    path = data.draw(st.lists(st.integers(0, 20), min_size=1, max_size=5))
    for step in path:
        children = list(node) if isinstance(node, dict) else list(range(len(node)))
        key = children[step % len(children)]
        child = node[key]
        if not isinstance(child, dict | list) or not child or step % 3 == 0:
            node[key] = data.draw(JSON_VALUES)
            break
        node = child
    try:
        sm.score(sm.parse(doc))
    except BoardError as err:
        assert err.problems


def test_layout_names_are_unique() -> None:
    doc = with_layout(layout_board())
    doc["options"]["layouts"].append(layout_doc(ELEVEN))
    assert problems_of(doc) == ["'options', layout #2: two layouts are named 'Side A1'"]


def test_a_board_file_carries_at_most_32_layouts() -> None:
    """Eight printed sides, each perhaps read again: more is a file made to slow every tap."""
    doc = with_layout(layout_board())
    spare = [layout_doc(ELEVEN) | {"name": f"Spare {i}"} for i in range(sm.MAX_LAYOUTS - 1)]
    doc["options"]["layouts"] += spare
    assert len(doc["options"]["layouts"]) == sm.MAX_LAYOUTS
    sm.score(sm.parse(doc))
    doc["options"]["layouts"].append(layout_doc(ELEVEN) | {"name": "One more"})
    assert problems_of(doc) == ["'options', 'layouts': 33 layouts; at most 32"]
