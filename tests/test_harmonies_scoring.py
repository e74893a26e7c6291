"""Harmonies scoring, category by category, from the rules digest and the rulebook.

Boards are drawn as printed columns (``test_harmonies_boards.sketch``); marks are keyed by
(column, row) as printed on the board, and every expected value is worked out by hand in the
comment beside it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_harmonies_boards import axial, player, score_doc, score_one, sketch, table

from scorepad.games import harmonies as hm
from scorepad.games.harmonies import SpiritClaim
from scorepad.scoring import PlayerResult, Result

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def xy(col: int, row: int) -> list[int]:
    return list(axial(col, row))


# --- trees -----------------------------------------------------------------------------------


def test_trees_score_1_3_7_by_height_and_trunks_score_nothing() -> None:
    marks = {(0, 0): "g", (0, 2): "bg", (0, 4): "bbg", (2, 0): "b", (2, 2): "bb"}
    anna = score_one(sketch("A", marks))
    assert anna.categories["trees"] == 1 + 3 + 7
    assert anna.details["trees"] == [
        {"hex": xy(0, 0), "height": 1, "points": 1},
        {"hex": xy(0, 2), "height": 2, "points": 3},
        {"hex": xy(0, 4), "height": 3, "points": 7},
    ]


# --- mountains -------------------------------------------------------------------------------


def test_isolated_mountain_scores_nothing() -> None:
    anna = score_one(sketch("A", {(0, 0): "mmm", (2, 2): "mm"}))
    assert anna.categories["mountains"] == 0
    assert [m["adjacent"] for m in anna.details["mountains"]] == [False, False]


def test_adjacent_mountains_score_by_height() -> None:
    # (2, 2) and (2, 3) share a side; (3, 1) touches (2, 2): heights 2, 1 and 3.
    anna = score_one(sketch("A", {(2, 2): "mm", (2, 3): "m", (3, 1): "mmm"}))
    assert anna.categories["mountains"] == 3 + 1 + 7
    assert all(m["adjacent"] for m in anna.details["mountains"])


def test_a_building_on_grey_is_not_a_mountain_neighbour() -> None:
    # (4, 1) is grey-red: its top is red, so the mountain at (4, 0) stands alone.
    anna = score_one(sketch("A", {(4, 0): "mm", (4, 1): "mr"}))
    assert anna.categories["mountains"] == 0
    assert anna.details["mountains"] == [
        {"hex": xy(4, 0), "height": 2, "adjacent": False, "points": 0}
    ]


def test_mountains_only_touching_at_a_distance_of_two_stay_alone() -> None:
    # Columns 0 and 2 never share a side.
    anna = score_one(sketch("A", {(0, 2): "mmm", (2, 2): "mmm"}))
    assert anna.categories["mountains"] == 0


# --- fields ----------------------------------------------------------------------------------


def test_fields_of_1_2_and_5_hexes() -> None:
    marks = {(0, 0): "y", (2, 0): "y", (2, 1): "y"}
    marks |= {(4, row): "y" for row in range(5)}
    anna = score_one(sketch("A", marks))
    # A lone yellow scores nothing; a pair scores 5; five in a group still score 5 only.
    assert anna.categories["fields"] == 0 + 5 + 5
    assert sorted((g["size"], g["points"]) for g in anna.details["fields"]) == [
        (1, 0),
        (2, 5),
        (5, 5),
    ]


def test_small_separate_fields_beat_one_big_field() -> None:
    # Rulebook: several small groups score more than one large one.
    apart = score_one(sketch("A", {(0, 0): "y", (0, 1): "y", (0, 3): "y", (0, 4): "y"}))
    joined = score_one(sketch("A", {(0, r): "y" for r in range(4)}))
    assert (apart.categories["fields"], joined.categories["fields"]) == (10, 5)


# --- buildings -------------------------------------------------------------------------------


def test_building_with_two_colours_around_scores_nothing() -> None:
    anna = score_one(sketch("A", {(2, 2): "br", (2, 1): "w", (2, 3): "y", (1, 2): "w"}))
    assert anna.categories["buildings"] == 0
    assert anna.details["buildings"] == [
        {"hex": xy(2, 2), "neighbour_colours": ["blue", "yellow"], "points": 0}
    ]


def test_building_with_three_top_colours_around_scores_5() -> None:
    # (3, 1) is brown-brown-green: only its top, green, counts.
    marks = {(2, 2): "br", (2, 1): "w", (2, 3): "y", (3, 1): "bbg"}
    anna = score_one(sketch("A", marks))
    assert anna.categories["buildings"] == 5
    assert anna.details["buildings"][0]["neighbour_colours"] == ["blue", "green", "yellow"]


def test_red_counts_as_a_colour_and_empty_hexes_do_not() -> None:
    # (2, 2) sees red (the building at (2, 1)), blue and yellow; (2, 1) sees only red.
    marks = {(2, 2): "rr", (2, 1): "mr", (2, 3): "w", (1, 2): "y"}
    anna = score_one(sketch("A", marks))
    assert anna.categories["buildings"] == 5
    by_hex = {tuple(b["hex"]): b for b in anna.details["buildings"]}
    assert by_hex[axial(2, 2)]["neighbour_colours"] == ["blue", "yellow", "red"]
    assert by_hex[axial(2, 1)]["neighbour_colours"] == ["red"]


def test_lone_red_is_not_a_building() -> None:
    marks = {(2, 2): "r", (2, 1): "w", (2, 3): "y", (3, 1): "g", (1, 1): "m"}
    anna = score_one(sketch("A", marks))
    assert anna.categories["buildings"] == 0
    assert anna.details["buildings"] == []


# --- water, side A: rivers -------------------------------------------------------------------

#: A winding river none of whose hexes touch except one after the other.
WINDING = [(0, 0), (1, 0), (2, 1), (3, 1), (4, 2), (4, 3), (3, 3), (2, 3), (1, 2)]


def river(hexes: list[tuple[int, int]]) -> Result:
    return score_doc(table(player("Anna", sketch("A", dict.fromkeys(hexes, "w")))))


@pytest.mark.parametrize(
    ("hexes", "length", "points"),
    [
        ([(0, 0)], 1, 0),
        ([(0, 0), (0, 1)], 2, 2),
        ([(0, r) for r in range(5)], 5, 11),
        (WINDING[:6], 6, 15),
        (WINDING[:7], 7, 19),
        (WINDING, 9, 27),
    ],
)
def test_river_length_and_points(hexes: list[tuple[int, int]], length: int, points: int) -> None:
    anna = river(hexes).players[0]
    assert anna.categories["water"] == points
    longest = anna.details["longest_river"]
    assert longest["length"] == length
    path = [list(axial(*h)) for h in hexes]
    assert longest["path"] in (path, path[::-1])


def test_branching_river_counts_the_shortest_route_between_its_ends() -> None:
    # Three arms from (2, 2): up to (2, 0), down-left to (0, 3), down-right to (4, 3).
    # Seven blue hexes, but the longest end-to-end route has 5 hexes: 11 points.
    hexes = [(2, 0), (2, 1), (2, 2), (1, 2), (0, 3), (3, 2), (4, 3)]
    anna = river(hexes).players[0]
    assert anna.details["rivers"][0]["length"] == 5
    assert len(anna.details["rivers"][0]["hexes"]) == 7
    assert anna.categories["water"] == 11


def test_a_river_is_measured_between_its_farthest_ends_not_from_its_first_hex() -> None:
    # Its first hex (0, 1) lies 6 hexes from the farthest one; the river's ends, (1, 0)
    # and (4, 2), are 7 apart: 19 points.
    hexes = [(0, 1), (0, 2), (1, 0), (1, 2), (2, 2), (3, 2), (4, 2)]
    anna = river(hexes).players[0]
    assert anna.details["longest_river"]["length"] == 7
    assert anna.categories["water"] == 19


def test_a_loop_counts_its_shortest_way_round() -> None:
    # The six hexes around (2, 2): opposite hexes are 3 steps apart, so 4 hexes: 8 points.
    ring = [(2, 1), (3, 1), (3, 2), (2, 3), (1, 2), (1, 1)]
    anna = river(ring).players[0]
    assert anna.details["longest_river"]["length"] == 4
    assert anna.categories["water"] == 8


def test_a_river_with_shortcuts_is_as_long_as_its_shortest_route() -> None:
    # Columns 0 and 1 side by side: 9 hexes, but (0, 0) to (0, 4) is 5 hexes long.
    hexes = [(0, r) for r in range(5)] + [(1, r) for r in range(4)]
    assert river(hexes).players[0].details["longest_river"]["length"] == 5


def test_only_the_longest_river_scores() -> None:
    # A 3-hex river in column 0 and a 2-hex one in column 4: 5 points, not 5 + 2.
    anna = river([(0, 0), (0, 1), (0, 2), (4, 3), (4, 4)]).players[0]
    assert anna.categories["water"] == 5
    assert sorted(r["length"] for r in anna.details["rivers"]) == [2, 3]


def test_no_river_scores_nothing() -> None:
    anna = river([]).players[0]
    assert anna.categories["water"] == 0
    assert anna.details["longest_river"] is None


@pytest.mark.parametrize(
    ("length", "points"),
    [(0, 0), (1, 0), (2, 2), (3, 5), (4, 8), (5, 11), (6, 15), (7, 19), (8, 23), (9, 27)],
)
def test_river_points_table(length: int, points: int) -> None:
    assert hm.river_points(length) == points


# --- water, side B: islands ------------------------------------------------------------------


def islands(marks: dict[tuple[int, int], str], fill: str = "y") -> PlayerResult:
    return score_one(sketch("B", marks, fill=fill), side="B")


def test_a_board_without_water_is_one_island() -> None:
    # Rulebook note: every player always has at least 1 island.
    anna = islands({})
    assert anna.categories["water"] == 5
    assert len(anna.details["islands"]) == 1
    assert "longest_river" not in anna.details


def test_a_line_of_water_splits_the_board_into_two_islands() -> None:
    anna = islands({(3, r): "w" for r in range(3)})
    assert anna.categories["water"] == 10
    assert [len(i["hexes"]) for i in anna.details["islands"]] == [11, 11]


def test_empty_hexes_are_land() -> None:
    anna = islands({(3, r): "w" for r in range(3)}, fill=".")
    assert anna.categories["water"] == 10


def test_a_corner_cut_off_by_water_is_an_island() -> None:
    # (0, 0)'s only neighbours on the board are (0, 1) and (1, 0).
    anna = islands({(0, 1): "w", (1, 0): "w"})
    assert anna.categories["water"] == 10
    assert anna.details["islands"][0]["hexes"] == [xy(0, 0)]


def test_island_count_with_three_lone_land_hexes() -> None:
    anna = islands({(0, 0): "m", (3, 1): "g", (6, 3): "."}, fill="w")
    assert anna.categories["water"] == 15


# --- spirit cards ----------------------------------------------------------------------------

#: Fields of 1, 2, 3 hexes; trees of height 2, 3, 1; buildings: a connected pair and a single;
#: mountains of heights 1, 2, 3; water: a single hex and a group of 3 (4 blue hexes).
SPIRIT_BOARD = [
    "y . y y .",
    "bg bbg mr mr",
    "y y y . w",
    "m mm mmm rr",
    "w w w . g",
]


@pytest.mark.parametrize(
    ("card", "points"),
    [
        (33, 2 + 2 + 10),  # groups of 1 and 2 score 2, the group of 3 scores 10
        (34, 5 * 3),
        (35, 4 + 4),  # trees of height 2 and 3
        (36, 3 + 1 + 3),  # height 2 and 1 score 3, height 3 scores 1
        (37, 4 * 2),  # two building groups
        (38, 6),  # only the connected pair
        (39, 4 + 4),  # mountains of height 2 and 3, adjacent or not
        (40, 3 + 3 + 1),
        (41, 7),  # only the group of 3 blue hexes
        (42, 2 * 4),
    ],
)
def test_spirit_cards(card: int, points: int) -> None:
    anna = score_one(SPIRIT_BOARD, spirit=(card, True))
    assert anna.categories["spirit"] == points
    assert anna.details["spirit"]["points"] == points
    assert anna.details["spirit"]["effect"] == hm.SPIRIT_CARDS[card]


def test_spirit_scores_only_when_placed() -> None:
    anna = score_one(SPIRIT_BOARD, spirit=(42, False))
    assert anna.categories["spirit"] == 0
    assert anna.details["spirit"]["placed"] is False


def test_no_spirit_card() -> None:
    anna = score_one(SPIRIT_BOARD)
    assert anna.categories["spirit"] == 0
    assert anna.details["spirit"] is None


def test_spirit_39_counts_lone_mountains_that_score_nothing_themselves() -> None:
    anna = score_one(sketch("A", {(0, 0): "mmm"}), spirit=(39, True))
    assert (anna.categories["mountains"], anna.categories["spirit"]) == (0, 4)


# --- solo suns, ranks, warnings --------------------------------------------------------------


@pytest.mark.parametrize(
    ("total", "from_score"),
    [
        (0, 0),
        (39, 0),
        (40, 1),
        (69, 1),
        (70, 2),
        (89, 2),
        (90, 3),
        (109, 3),
        (110, 4),
        (129, 4),
        (130, 5),
        (139, 5),
        (140, 6),
        (149, 6),
        (150, 7),
        (159, 7),
        (160, 8),
        (250, 8),
    ],
)
def test_suns_by_score(total: int, from_score: int) -> None:
    assert hm.suns(total, "B", SpiritClaim(35, True))["suns"] == from_score


def test_suns_bonuses_for_side_a_and_spirits() -> None:
    assert hm.suns(100, "A", None) == {
        "suns": 3 + 1 + 2,
        "from_score": 3,
        "side_bonus": 1,
        "spirit_bonus": 2,
    }
    for easy in (33, 34, 37, 38, 41):
        assert hm.suns(100, "B", SpiritClaim(easy, False))["spirit_bonus"] == 1
    for hard in (35, 36, 39, 40, 42):
        assert hm.suns(100, "B", SpiritClaim(hard, True))["spirit_bonus"] == 0


def test_solo_result_gives_the_suns() -> None:
    # Trees 7 + 7 + 7 + 7 = 28, fields 5: 33 points, 0 suns by score; side A +1, no spirit +2.
    marks = {(0, 0): "bbg", (0, 2): "bbg", (0, 4): "bbg", (4, 0): "bbg", (2, 2): "y", (2, 3): "y"}
    result = score_doc(table(player("Anna", sketch("A", marks))))
    anna = result.players[0]
    assert anna.total == 33
    assert anna.details["suns"]["suns"] == 3
    assert result.to_json()["suns"] == 3


def test_no_suns_with_two_players() -> None:
    result = score_doc(table(player("Anna", sketch("A", {})), player("Boris", sketch("A", {}))))
    assert "suns" not in result.to_json()
    assert all("suns" not in p.details for p in result.players)


def test_tied_players_share_the_rank_without_tie_break() -> None:
    same = sketch("A", {(0, 0): "g", (2, 2): "y", (2, 3): "y"})
    other = sketch("A", {(0, 0): "g"})
    result = score_doc(table(player("Anna", same), player("Boris", other), player("Chloe", same)))
    assert [(p.name, p.total, p.rank) for p in result.players] == [
        ("Anna", 6, 1),
        ("Boris", 1, 3),
        ("Chloe", 6, 1),
    ]
    assert result.winners == ("Anna", "Chloe")
    assert result.tiebreaks == ("tied on 6 points: Anna and Chloe share the place (no tie-break)",)


def test_token_totals_beyond_the_box_give_a_warning() -> None:
    all_blue = sketch("A", {}, fill="w")
    result = score_doc(table(player("Anna", all_blue), player("Boris", sketch("A", {(0, 0): "w"}))))
    assert "the boards hold 24 blue tokens, but the box has only 23" in result.warnings
    within = score_doc(table(player("Anna", all_blue)))
    assert not any("box" in w for w in within.warnings)


def test_empty_hexes_give_a_warning() -> None:
    # 21 one-token stacks and a tree of height 3: 24 tokens, eight turns.
    full = ["y y y y y", "m m m m", "w w w w w", "g g g bbg", "b b b b ."]
    result = score_doc(table(player("Anna", full)))
    assert result.warnings == ("player 'Anna': 1 empty hex, scored as it stands",)
    assert result.players[0].details["empty_hexes"] == [xy(4, 4)]


@pytest.mark.parametrize(("last", "tokens"), [("b", 23), ("bg", 24), ("bbg", 25)])
def test_a_token_count_no_number_of_turns_gives_is_warned_about(last: str, tokens: int) -> None:
    # Rulebook, the compulsory action: a turn takes a set of 3 tokens and places each of
    # them, so a board holds a multiple of 3; anything else is a stack entered one off.
    full = ["y y y y y", "m m m m", "w w w w w", "g g g g", f"b b b b {last}"]
    result = score_doc(table(player("Anna", full)))
    warned = f"player 'Anna': {tokens} tokens on the board, but every turn places 3: "
    expected = [warned + "check the stacks' heights"] if tokens % 3 else []
    assert list(result.warnings) == expected


def test_cubes_on_the_board_must_match_the_claims() -> None:
    full = ["y y y y y", "m m m m", "w w w w w", "g g g g*", "b b b bg b*"]
    result = score_doc(table(player("Anna", full, spirit=(42, True))))
    assert result.warnings == (
        "player 'Anna': 2 cubes on the board, but the cards claim 1 (animal cubes plus a "
        "placed spirit)",
    )


def test_result_is_plain_json_with_every_category() -> None:
    result = score_doc(table(player("Anna", SPIRIT_BOARD, spirit=(35, True))))
    doc = json.loads(json.dumps(result.to_json()))
    assert list(doc["players"][0]["categories"]) == list(hm.CATEGORIES)
    assert doc["players"][0]["total"] == sum(doc["players"][0]["categories"].values())


def test_example_table_scores_as_worked_out_by_hand() -> None:
    # docs/harmonies.md walks through both boards of examples/harmonies.json.
    doc = json.loads((EXAMPLES / "harmonies.json").read_text(encoding="utf-8"))
    result = score_doc(doc)
    anna, boris = result.players
    assert anna.categories == {
        "trees": 7 + 3 + 1 + 1 + 7,
        "mountains": 3 + 7 + 1,
        "fields": 5 + 5,
        "buildings": 5 + 5,
        "water": 11,  # (4, 0) to (3, 3) printed: 5 hexes
        "animals": 4 + 5 + 5,  # crocodile 1 cube, ladybug 2, falcon 1
        "spirit": 4 * 3,  # spirit 35: trees of height 2 or 3
    }
    assert boris.categories == {
        "trees": 1 + 1 + 3 + 3 + 7,
        "mountains": 3 + 3 + 1,  # the mountain at (3, 0) printed stands alone
        "fields": 5 + 5,
        "buildings": 5 + 5,
        "water": 2,
        "animals": 6 + 8,  # frog 3 cubes, boar 2
        "spirit": 0,  # spirit 41 not placed
    }
    assert (anna.total, boris.total, result.winners) == (87, 58, ("Anna",))
    assert all(a["supported"] for p in result.players for a in p.details["animals"])
    # No empty hex; 33 tokens each: eleven turns each.
    assert result.warnings == ()


def test_more_cards_holding_cubes_than_the_four_slots_is_warned_about() -> None:
    # Rulebook: a card goes in one of 4 slots; once all its cubes are used it is discarded
    # (and still scores). So at most 4 cards still hold cubes; a finished one is no slot's.
    full = ["y y y y y", "m m m m", "w w w w w", "g g g g", "b b b b b"]
    finished = (5, len(hm.ANIMAL_CARDS[5].track))
    four = [(card, 0) for card in (1, 2, 3, 4)]

    def slots(animals: list[tuple[int, int]]) -> list[str]:
        result = score_doc(table(player("Anna", full, animals=animals)))
        return [w for w in result.warnings if "slots" in w]  # the cubes claimed are warned too

    assert slots([*four, finished]) == []
    assert slots([*four, (6, 0)]) == [
        "player 'Anna': 5 animal cards still hold cubes, but a player has 4 slots for them: "
        "check the cubes on each card"
    ]


@pytest.mark.parametrize(
    ("marks", "said"),
    [
        ({(0, 0): "y"}, "1 token on the board"),
        ({(0, 0): "y", (0, 1): "y"}, "2 tokens on the board"),
        ({(0, c): "y" for c in range(5)}, "5 tokens on the board"),
    ],
)
def test_a_token_count_is_said_in_the_form_for_its_count(
    marks: dict[tuple[int, int], str], said: str
) -> None:
    """A board with one token read "1 token(s) on the board"."""
    warnings = score_doc(table(player("Anna", sketch("A", marks)))).warnings
    assert any(w.startswith(f"player 'Anna': {said}, but every turn") for w in warnings), warnings


def test_one_cube_on_the_board_is_a_cube() -> None:
    """One cube and no claim read "1 cube(s) on the board"."""
    warnings = score_doc(table(player("Anna", sketch("A", {(0, 0): "y*"})))).warnings
    assert (
        "player 'Anna': 1 cube on the board, but the cards claim 0 (animal cubes plus a "
        "placed spirit)" in warnings
    )
