"""Harmonies board files: the two board sides, legal stacks, and every rejected input.

Also holds the sketching helpers the other Harmonies tests import: a board is drawn as its
printed columns, top to bottom, one short code per hex (see :data:`TOKENS`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from scorepad.boardfile import BoardError
from scorepad.games import harmonies as hm
from scorepad.hexgrid import Hex
from scorepad.scoring import PlayerResult, Result

#: One letter per token, bottom first: "bbg" is a tree of height 3, "mr" a building on grey.
TOKENS = {"w": "blue", "y": "yellow", "m": "grey", "b": "brown", "g": "green", "r": "red"}
#: Hexes per printed column, copied from the rules digest (not from the code under test).
COLUMN_SIZES = {"A": (5, 4, 5, 4, 5), "B": (4, 3, 4, 3, 4, 3, 4)}


def axial(col: int, row: int) -> tuple[int, int]:
    """Odd-q, written out as in the rules digest: q = col, r = row - (col - (col & 1)) // 2."""
    return col, row - (col - (col & 1)) // 2


def cell(col: int, row: int, code: str) -> dict[str, Any]:
    """A board-file cell from printed column/row and a code like ``"bbg*"`` (``*``: a cube)."""
    q, r = axial(col, row)
    tokens = code.rstrip("*")
    doc: dict[str, Any] = {
        "q": q,
        "r": r,
        "stack": [] if tokens == "." else [TOKENS[t] for t in tokens],
    }
    if code.endswith("*"):
        doc["cube"] = True
    return doc


def cells(side: str, columns: Sequence[str]) -> list[dict[str, Any]]:
    """Cells from printed columns, each a space-separated string of codes, top row first."""
    assert len(columns) == len(COLUMN_SIZES[side]), "one string per printed column"
    out = []
    for col, (text, size) in enumerate(zip(columns, COLUMN_SIZES[side], strict=True)):
        codes = text.split()
        assert len(codes) == size, f"column {col} has {size} hexes"
        out += [cell(col, row, code) for row, code in enumerate(codes)]
    return out


def sketch(side: str, marks: Mapping[tuple[int, int], str], fill: str = ".") -> list[str]:
    """Printed columns where ``marks[(col, row)]`` is set and every other hex is ``fill``."""
    return [
        " ".join(marks.get((col, row), fill) for row in range(size))
        for col, size in enumerate(COLUMN_SIZES[side])
    ]


def player(
    name: str,
    columns: Sequence[str],
    side: str = "A",
    animals: Sequence[tuple[int, int]] = (),
    spirit: tuple[int, bool] | None = None,
) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "name": name,
        "cells": cells(side, columns),
        "animals": [{"card": c, "cubes": n} for c, n in animals],
    }
    if spirit is not None:
        doc["spirit"] = {"card": spirit[0], "placed": spirit[1]}
    return doc


def table(*players: dict[str, Any], side: str = "A") -> dict[str, Any]:
    return {"game": "harmonies", "options": {"side": side}, "players": list(players)}


def score_doc(doc: dict[str, Any]) -> Result:
    return hm.score(hm.parse(doc))


def score_one(columns: Sequence[str], side: str = "A", **kw: Any) -> PlayerResult:
    """Score a one-player table and return that player."""
    return score_doc(table(player("Anna", columns, side, **kw), side=side)).players[0]


def problems_of(doc: dict[str, Any]) -> list[str]:
    with pytest.raises(BoardError) as err:
        hm.parse(doc)
    return err.value.problems


FULL_A = ["y y y y y", "m m m m", "w w w w w", "g g g g", "b b b b b"]


# --- the board sides -------------------------------------------------------------------------


@pytest.mark.parametrize(("side", "count"), [("A", 23), ("B", 25)])
def test_board_sides_have_the_digest_hex_counts(side: str, count: int) -> None:
    hexes = hm.board_hexes(side)
    assert len(hexes) == len(set(hexes)) == count
    expected = {axial(c, r) for c, size in enumerate(COLUMN_SIZES[side]) for r in range(size)}
    assert set(hexes) == expected


def test_board_side_a_corners_in_axial() -> None:
    # Column 4 (even) starts two rows up in axial: r = 0 - (4 - 0) // 2 = -2.
    hexes = set(hm.board_hexes("A"))
    assert {Hex(0, 0), Hex(0, 4), Hex(1, 3), Hex(4, -2), Hex(4, 2)} <= hexes
    assert Hex(1, 4) not in hexes and Hex(4, 3) not in hexes


def test_unknown_side_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="sides A and B"):
        hm.board_hexes("C")


def test_side_defaults_to_a_when_options_are_absent() -> None:
    doc = table(player("Anna", FULL_A))
    del doc["options"]
    assert hm.parse(doc).side == "A"


def test_side_b_board_parses() -> None:
    columns = sketch("B", {}, fill="w")
    assert hm.parse(table(player("Anna", columns, "B"), side="B")).side == "B"


# --- wrong board shapes ----------------------------------------------------------------------


def test_missing_hexes_are_named_with_their_printed_column_and_row() -> None:
    doc = table(player("Anna", FULL_A))
    doc["players"][0]["cells"] = [
        c for c in doc["players"][0]["cells"] if (c["q"], c["r"]) not in {(4, 2), (1, 3)}
    ]
    (problem,) = problems_of(doc)
    assert problem.startswith("player 'Anna': board side A is missing hexes")
    assert "(1, 3) (column 1, row 3)" in problem
    assert "(4, 2) (column 4, row 4)" in problem


def test_extra_hexes_are_named() -> None:
    doc = table(player("Anna", FULL_A))
    doc["players"][0]["cells"].append({"q": 5, "r": 0, "stack": []})
    (problem,) = problems_of(doc)
    assert "player 'Anna': hexes (5, 0) are not on board side A" in problem


def test_side_b_cells_on_a_side_a_table_are_rejected() -> None:
    doc = table(player("Anna", sketch("B", {}), "B"), side="A")
    (missing, extra) = problems_of(doc)
    assert "missing hexes (0, 4) (column 0, row 4)" in missing
    assert "(5, -2)" in extra and "(6, -3)" in extra


def test_a_hex_listed_twice_is_rejected() -> None:
    doc = table(player("Anna", FULL_A))
    doc["players"][0]["cells"].append({"q": 0, "r": 0, "stack": ["blue"]})
    (problem,) = problems_of(doc)
    assert problem == "player 'Anna', cell (0, 0): listed 2 times; each hex is listed once"


# --- stacks ----------------------------------------------------------------------------------


def test_legal_stacks_are_exactly_the_digest_list() -> None:
    written = """blue; yellow; grey; grey grey; grey grey grey; green; brown green;
        brown brown green; brown; brown brown; red; brown red; grey red; red red"""
    expected = {tuple(s.split()) for s in written.split(";")}
    assert set(hm.LEGAL_STACKS) == expected
    assert len(hm.LEGAL_STACKS) == 14
    assert hm.is_legal_stack(())


@pytest.mark.parametrize(
    "stack",
    [
        ("green", "brown"),
        ("blue", "blue"),
        ("yellow", "green"),
        ("grey", "grey", "grey", "grey"),
        ("brown", "brown", "brown"),
        ("green", "green"),
        ("red", "red", "red"),
        ("brown", "brown", "red"),
        ("blue", "red"),
        ("grey", "green"),
    ],
)
def test_illegal_stacks(stack: tuple[str, ...]) -> None:
    assert not hm.is_legal_stack(stack)


def test_illegal_stack_names_the_hex_and_what_may_lie_there() -> None:
    marks = {(0, 0): "bbb", (2, 1): "wm", (1, 0): "gb"}
    (a, b, c) = problems_of(table(player("Anna", sketch("A", marks))))
    assert a == (
        "player 'Anna', cell (0, 0): brown-brown-brown is not a legal stack (bottom → top): "
        "brown cannot lie on brown-brown, only green may lie on brown-brown"
    )
    assert b.startswith("player 'Anna', cell (1, 0): green-brown is not a legal stack")
    assert b.endswith("nothing may lie on green")
    assert c.startswith("player 'Anna', cell (2, 0): blue-grey")


def test_unknown_colour_is_rejected_with_the_cell() -> None:
    doc = table(player("Anna", FULL_A))
    doc["players"][0]["cells"][0]["stack"] = ["purple"]
    (problem,) = problems_of(doc)
    assert problem.startswith("player 'Anna', cell (0, 0), 'stack', item 1:")
    assert "'blue'" in problem


def test_a_cube_on_an_empty_hex_is_rejected() -> None:
    (problem,) = problems_of(table(player("Anna", sketch("A", {(3, 2): ".*"}))))
    assert problem.startswith("player 'Anna', cell (3, 1): a cube lies on the habitat")


def test_place_token_builds_trees_mountains_and_buildings() -> None:
    stack: tuple[str, ...] = ()
    for colour in ("brown", "brown", "green"):
        stack = hm.place_token(stack, colour)
    assert stack == ("brown", "brown", "green")
    assert hm.place_token(("grey", "grey"), "grey") == ("grey", "grey", "grey")
    assert hm.place_token(("grey",), "red") == ("grey", "red")
    assert hm.place_token([], "red") == ("red",)


@pytest.mark.parametrize(
    ("stack", "colour", "message"),
    [
        (("blue",), "blue", "blue cannot go on blue: nothing may lie on blue"),
        (("green",), "brown", "brown cannot go on green: nothing may lie on green"),
        (("grey",), "green", "green cannot go on grey: only grey, red may lie on grey"),
        (("brown",), "yellow", "only brown, green, red may lie on brown"),
        (("red",), "grey", "only red may lie on red"),
        (("grey", "grey", "grey"), "red", "nothing may lie on grey-grey-grey"),
        ((), "pink", "unknown colour 'pink'"),
        (("green", "green"), "green", "green-green is not a legal stack"),
    ],
)
def test_place_token_refuses_illegal_stacks(
    stack: tuple[str, ...], colour: str, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        hm.place_token(stack, colour)


# --- cards and players -----------------------------------------------------------------------


def test_unknown_cards_and_too_many_cubes_are_rejected() -> None:
    doc = table(player("Anna", FULL_A, animals=[(33, 1), (5, 6), (12, 2)], spirit=(7, True)))
    assert problems_of(doc) == [
        "player 'Anna': 33 is not an animal card (animal cards are 1 to 32)",
        "player 'Anna', animal card 5: 6 cubes claimed, but the card holds only 5 "
        "(track 2-4-6-10-15)",
        "player 'Anna': 7 is not a spirit card (spirit cards are 33 to 42)",
    ]


def test_negative_cubes_are_rejected() -> None:
    (problem,) = problems_of(table(player("Anna", FULL_A, animals=[(5, -1)])))
    assert problem.startswith("player 'Anna', 'animals', item 1, 'cubes':")


def test_a_card_on_two_boards_is_rejected() -> None:
    anna = player("Anna", FULL_A, animals=[(5, 1)], spirit=(40, False))
    boris = player("Boris", FULL_A, animals=[(5, 2)], spirit=(40, True))
    assert problems_of(table(anna, boris)) == [
        "card 5 is in front of 'Anna' and 'Boris'; the box has one of each card",
        "card 40 is in front of 'Anna' and 'Boris'; the box has one of each card",
    ]


def test_a_card_listed_twice_on_one_board_is_rejected() -> None:
    (problem,) = problems_of(table(player("Anna", FULL_A, animals=[(5, 1), (5, 1)])))
    assert problem == "player 'Anna': animal card 5 is listed 2 times"


def test_one_to_four_players_with_unique_names() -> None:
    five = [player(n, FULL_A) for n in "ABCDE"]
    assert problems_of(table(*five)) == ["Harmonies is played by 1 to 4 players, not 5"]
    assert problems_of(table()) == ["Harmonies is played by 1 to 4 players, not 0"]
    same = problems_of(table(player("Anna", FULL_A), player("Anna", FULL_A)))
    assert same == ["player 'Anna': two players have this name; names must be unique"]


def test_unknown_keys_are_rejected() -> None:
    doc = table(player("Anna", FULL_A))
    doc["players"][0]["cells"][2]["cubes"] = True
    (problem,) = problems_of(doc)
    assert problem == "player 'Anna', cell (0, 2): unknown key 'cubes'"


def test_every_problem_is_listed_at_once() -> None:
    doc = table(player("Anna", sketch("A", {(0, 0): "ww", (1, 1): ".*"}), animals=[(99, 1)]))
    assert len(problems_of(doc)) == 3


# --- round trip and the example --------------------------------------------------------------


def test_dump_round_trips() -> None:
    anna = player("Anna", sketch("A", {(0, 0): "bbg*", (1, 0): "w"}), animals=[(5, 1)])
    boris = player("Boris", FULL_A, spirit=(35, False))
    parsed = hm.parse(table(anna, boris))
    assert hm.parse(json.loads(json.dumps(hm.dump(parsed)))) == parsed


EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "harmonies.json"


def test_example_is_a_two_player_side_a_table() -> None:
    doc = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    parsed = hm.parse(doc)
    assert parsed.side == "A" and len(parsed.players) == 2
    assert hm.parse(hm.dump(parsed)) == parsed


def test_a_long_list_of_missing_hexes_is_shortened() -> None:
    doc = table(player("Anna", FULL_A))
    doc["players"][0]["cells"] = doc["players"][0]["cells"][:3]
    (problem,) = problems_of(doc)
    assert problem.endswith("(1, 3) (column 1, row 3) and 14 more")
