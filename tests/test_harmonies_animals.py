"""Harmonies animal cards: the catalogue, each pattern in all 6 rotations, and the cube check.

Patterns are stamped on hand-made boards straight from ``shared/rules/harmonies-animal-cards.csv``
(compass names, read here with a table written from the rules digest), so the package data and
its conversion to direction indices are checked against the source, not against themselves.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import pytest
from test_harmonies_boards import player, score_doc, score_one, sketch, table

from scorepad.games import harmonies as hm
from scorepad.hexgrid import Hex

SOURCE = Path(__file__).resolve().parents[2] / "shared" / "rules" / "harmonies-animal-cards.csv"
ROWS = list(csv.DictReader(SOURCE.open(encoding="utf-8")))

#: Flat-top compass names in index order, and each one's axial step (rules digest table).
COMPASS = ("SE", "NE", "N", "NW", "SW", "S")
STEP = {"SE": (1, 0), "NE": (1, -1), "N": (0, -1), "NW": (-1, 0), "SW": (-1, 1), "S": (0, 1)}
#: A stack for each pattern code; B varies its lower token between cards.
STACKS = {
    "T1": "g",
    "T2": "bg",
    "T3": "bbg",
    "M1": "m",
    "M2": "mm",
    "M3": "mmm",
    "W": "w",
    "F": "y",
}
BUILDINGS = ("br", "mr", "rr")
#: Printed (column, row) of every axial hex of side A.
PRINTED = {
    (c, r - (c - (c & 1)) // 2): (c, r) for c, n in enumerate((5, 4, 5, 4, 5)) for r in range(n)
}
CENTRE = (2, 1)  # axial of printed column 2, row 2


def stamp(
    walk: str, turn: int, mirror: bool = False
) -> tuple[dict[tuple[int, int], str], tuple[int, int]]:
    """Codes by axial hex of a walk drawn from the board centre, turned by ``turn`` sixths.

    Returns the hexes and the cube hex, shifted so that the cube hex is the board centre.
    """
    q, r = 0, 0
    codes: dict[tuple[int, int], str] = {}
    cube = (0, 0)
    for n, part in enumerate(s.strip() for s in walk.split("→")):
        star = part.endswith("*")
        part = part.rstrip("*")
        if n:
            code, name = part.split("@")
            index = COMPASS.index(name)
            if mirror:
                index = (1 - index) % 6  # mirror across the SE/NE bisector
            dq, dr = STEP[COMPASS[(index + turn) % 6]]
            q, r = q + dq, r + dr
        else:
            code = part
        codes[(q, r)] = code
        if star:
            cube = (q, r)
    shift = (CENTRE[0] - cube[0], CENTRE[1] - cube[1])
    return {(h[0] + shift[0], h[1] + shift[1]): c for h, c in codes.items()}, CENTRE


def board_with(codes: dict[tuple[int, int], str], cube: tuple[int, int], variant: int) -> list[str]:
    marks = {}
    for h, code in codes.items():
        stack = BUILDINGS[variant % 3] if code == "B" else STACKS[code]
        marks[PRINTED[h]] = stack + ("*" if h == cube else "")
    return sketch("A", marks)


def test_catalogue_has_32_cards_with_the_source_tracks_and_names() -> None:
    assert sorted(hm.ANIMAL_CARDS) == list(range(1, 33))
    for row in ROWS:
        card = hm.ANIMAL_CARDS[int(row["id"])]
        assert list(card.track) == [int(v) for v in row["points_by_cubes_placed"].split(",")]
        assert card.names == tuple(n.strip() for n in row["names_seen"].split(";"))
        assert card.cube_code == row["cube_on"]


def test_card_points_follow_the_track() -> None:
    frog = hm.ANIMAL_CARDS[5]
    assert [frog.points(k) for k in range(6)] == [0, 2, 4, 6, 10, 15]


def test_package_patterns_are_the_source_walks_in_direction_indices() -> None:
    for row in ROWS:
        expected = row["pattern_walk"]
        for i, name in enumerate(COMPASS):
            expected = expected.replace(f"@{name}*", f"@{i}*").replace(f"@{name} ", f"@{i} ")
            if expected.endswith(f"@{name}"):
                expected = expected[: -len(name)] + str(i)
        assert hm.ANIMAL_CARDS[int(row["id"])].walk == expected


@pytest.mark.parametrize("row", ROWS, ids=lambda row: f"card{row['id']}")
def test_every_pattern_is_found_in_all_6_rotations(row: dict[str, str]) -> None:
    card = int(row["id"])
    for turn in range(6):
        codes, cube = stamp(row["pattern_walk"], turn)
        anna = score_one(board_with(codes, cube, turn), animals=[(card, 1)])
        (details,) = anna.details["animals"]
        assert details["matching_hexes"] == [list(cube)], f"turn {turn}"
        assert details["assigned_cubes"] == [list(cube)]
        assert details["supported"] is True
        assert anna.categories["animals"] == int(row["points_by_cubes_placed"].split(",")[0])


@pytest.mark.parametrize(
    ("marks", "found"),
    [
        # Peacock (10: W → B@NE* → W@SE): the waters lie across sides 4 and 0 of the building,
        # two sixths apart. Here at (2, 2): across its SW (1, 2) and SE (3, 2) sides.
        ({(2, 2): "br*", (1, 2): "w", (3, 2): "w"}, 1),
        # Across N and S (straight through): not the peacock.
        ({(2, 2): "br*", (2, 1): "w", (2, 3): "w"}, 0),
        # Across SW and S (adjacent sides, a triangle): not the peacock.
        ({(2, 2): "br*", (1, 2): "w", (2, 3): "w"}, 0),
        # Across N and SE, two sixths apart again: the peacock turned.
        ({(2, 2): "br*", (2, 1): "w", (3, 2): "w"}, 1),
    ],
)
def test_pattern_angles_matter(marks: dict[tuple[int, int], str], found: int) -> None:
    anna = score_one(sketch("A", marks), animals=[(10, 1)])
    assert anna.details["animals"][0]["matching_count"] == found


def test_a_pattern_split_by_a_gap_is_not_matched() -> None:
    # Crocodile (1: T3 → W@SE → W@SE*) needs three in a line; a hole in the middle breaks it.
    line = {(0, 0): "bbg", (1, 0): "w", (2, 1): "w*"}
    assert score_one(sketch("A", line), animals=[(1, 1)]).categories["animals"] == 4
    gap = {(0, 0): "bbg", (1, 0): ".", (2, 1): "w*", (1, 1): "w"}
    anna = score_one(sketch("A", gap), animals=[(1, 1)])
    assert anna.details["animals"][0]["matching_count"] == 0


@pytest.mark.parametrize("row", ROWS, ids=lambda row: f"card{row['id']}")
def test_a_wrong_stack_under_the_cube_breaks_the_pattern(row: dict[str, str]) -> None:
    codes, cube = stamp(row["pattern_walk"], 2)
    codes[cube] = "M3" if codes[cube] != "M3" else "M2"
    anna = score_one(board_with(codes, cube, 1), animals=[(int(row["id"]), 1)])
    assert anna.details["animals"][0]["matching_count"] == 0
    assert any(
        "animal card" in w
        for w in score_doc(
            table(player("Anna", board_with(codes, cube, 1), animals=[(int(row["id"]), 1)]))
        ).warnings
    )


def test_pattern_hexes_helper_finds_a_forgotten_cube() -> None:
    # Frog: T1 → W@SE*; water at (1, 0) printed has a tree at (0, 0) across its NW side.
    columns = sketch("A", {(0, 0): "g", (1, 0): "w"})
    parsed = hm.parse(table(player("Anna", columns)))
    assert hm.pattern_hexes(parsed.players[0].stacks, hm.ANIMAL_CARDS[5]) == [Hex(1, 0)]
    anna = score_one(columns, animals=[(5, 0)])
    assert anna.details["animals"][0]["matching_count"] == 1
    assert anna.details["animals"][0]["matching_with_cube"] == 0


# Stingray (2: M1 → M1@S → W@NE*): the water (1, 0) beside the mountains (0, 0) and (0, 1).
STINGRAY = {(0, 0): "m", (0, 1): "m", (1, 0): "w*"}


@pytest.mark.parametrize(
    ("grown", "card"),
    [
        ({(0, 0): "mm"}, 2),  # a grey on a mountain of the pattern after the cube
        ({(0, 0): "mr"}, 2),  # the mountain became a building (red on grey)
        ({(0, 1): "mmm"}, 2),
    ],
)
def test_a_pattern_that_grew_after_its_cube_still_holds_it(
    grown: dict[tuple[int, int], str], card: int
) -> None:
    # "Якщо на вашому полі викладено дійсний візерунок, ви можете розмістити кубик": the
    # pattern is checked when the cube is placed; only the cube's own hex takes no token
    # after that ("Заборонено класти жетон на місця, зайняті фішками тварин"), so its
    # other hexes may grow. No warning, and the cube is the card's.
    anna, warnings = animals_of({**STINGRAY, **grown}, [(card, 1)])
    assert warnings == []
    assert anna.details["animals"][0]["assigned_cubes"] == [[1, 0]]


def test_a_pattern_hex_that_never_was_the_code_still_breaks_it() -> None:
    # A brown-red building was never a one-grey mountain: the stingray is not there.
    anna, warnings = animals_of({**STINGRAY, (0, 0): "br"}, [(2, 1)])
    assert anna.details["animals"][0]["matching_count"] == 0 and len(warnings) == 1
    assert hm.codes_on_the_way(("brown", "red")) == {"B"}
    assert hm.codes_on_the_way(("grey", "red")) == {"M1", "B"}
    assert hm.codes_on_the_way(("brown", "brown", "green")) == {"T3"}


# --- the cube check: an assignment across cards ----------------------------------------------

#: Frog (5: T1 → W@SE*) and duck (6: B → W@SE*) are pairs, so any neighbour will do in some
#: rotation. Water (1, 0) touches the tree (0, 0) and the building (2, 1): frog and duck match.
#: Water (1, 3) touches only the tree (0, 3): only the frog matches. Both carry a cube.
FROG_AND_DUCK = {(0, 0): "g", (1, 0): "w*", (2, 1): "br", (0, 3): "g", (1, 3): "w*"}


def animals_of(
    marks: dict[tuple[int, int], str], animals: list[tuple[int, int]]
) -> tuple[Any, list[str]]:
    result = score_doc(table(player("Anna", sketch("A", marks), animals=animals)))
    return result.players[0], [w for w in result.warnings if "animal card" in w]


def test_matching_gives_each_card_a_hex_where_a_greedy_pass_would_not() -> None:
    # The frog is listed first and its first matching cube hex is (1, 0); taking it would
    # leave the duck nothing. The matching gives (1, 0) to the duck and (1, 3) to the frog.
    anna, warnings = animals_of(FROG_AND_DUCK, [(5, 1), (6, 1)])
    frog, duck = anna.details["animals"]
    assert frog["matching_hexes"] == [[1, 0], [1, 3]]
    assert duck["matching_hexes"] == [[1, 0]]
    assert duck["assigned_cubes"] == [[1, 0]]
    assert frog["assigned_cubes"] == [[1, 3]]
    assert warnings == []
    assert anna.categories["animals"] == 2 + 2


def test_cards_competing_for_too_few_cube_hexes_are_reported_together() -> None:
    anna, warnings = animals_of(FROG_AND_DUCK, [(5, 2), (6, 1)])
    assert anna.categories["animals"] == 4 + 2  # claims still score, with a warning
    assert warnings == [
        "player 'Anna', animal cards 5 and 6: 3 cubes claimed between them, but only 2 "
        "hexes with a cube match their patterns: (1, 0), (1, 3)"
    ]
    assert [a["supported"] for a in anna.details["animals"]] == [False, False]


def test_a_card_without_enough_matching_cube_hexes_is_reported() -> None:
    anna, warnings = animals_of(FROG_AND_DUCK, [(6, 2)])
    assert anna.details["animals"][0]["supported"] is False
    assert warnings == [
        "player 'Anna', animal card 6 (track 2-4-8-13): 2 cubes claimed, but only 1 hex "
        "with a cube matches its pattern: (1, 0)"
    ]


def test_a_forgotten_cube_is_hinted() -> None:
    marks = FROG_AND_DUCK | {(1, 3): "w"}
    _, warnings = animals_of(marks, [(5, 2)])
    # "1 hex ... matches" (it said "match"), "2 hexes ... match"
    assert warnings == [
        "player 'Anna', animal card 5 (track 2-4-6-10-15): 2 cubes claimed, but only 1 hex "
        "with a cube matches its pattern: (1, 0); 1 hex without a cube matches it too"
    ]


def test_a_cube_hex_serves_only_one_card() -> None:
    # Frog and duck both need (1, 0), the only cube: the board supports one of the two claims,
    # and nothing says which, so both cards are named.
    marks = FROG_AND_DUCK | {(1, 3): "w"}
    anna, warnings = animals_of(marks, [(5, 1), (6, 1)])
    assert [a["supported"] for a in anna.details["animals"]] == [False, False]
    assert len([h for a in anna.details["animals"] for h in a["assigned_cubes"]]) == 1
    assert warnings[0].startswith("player 'Anna', animal cards 5 and 6: 2 cubes claimed")


def test_separate_shortfalls_are_reported_separately() -> None:
    # Duck claims 2 on (1, 0) only; the fish (3: M3 → W@SE*) claims 1 with no mountain at all.
    _, warnings = animals_of(FROG_AND_DUCK, [(6, 2), (3, 1)])
    assert len(warnings) == 2
    assert warnings[0].startswith(
        "player 'Anna', animal card 3 (track 3-6-10-16): 1 cube "
        "claimed, but no hex with a cube matches its pattern"
    )
