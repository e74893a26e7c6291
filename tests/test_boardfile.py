"""Reading and validating board files (``shared/formats.md``): every problem is one sentence
naming the player, the cell and the rule, and bad input never escapes as anything but
:class:`BoardError`."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

import pytest
from pydantic import Field, StrictInt, StrictStr, ValidationError

from scorepad.boardfile import (
    MAX_BOARD_BYTES,
    NOT_A_BOARD_FILE,
    BoardError,
    Model,
    game_of,
    loads,
    unique_names,
    validate,
    where,
)

# --- a small board-file model, shaped like the games' ----------------------------------------

LAX = Field(strict=False)  # JSON arrays validate as tuples, their items stay strict


class Cell(Model):
    q: StrictInt
    r: StrictInt
    colour: Literal["red", "blue"] | None = None
    height: StrictInt | StrictStr | None = None


class Player(Model):
    name: StrictStr
    cells: Annotated[tuple[Cell, ...], LAX]


class Board(Model):
    game: StrictStr
    players: Annotated[tuple[Player, ...], LAX]


class NonEmpty(Model):
    cells: Annotated[tuple[Cell, ...], LAX, Field(min_length=1)]


def board(**changes: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "game": "test",
        "players": [
            {"name": "Anna", "cells": [{"q": 0, "r": 0}, {"q": 1, "r": 0, "colour": "red"}]},
            {"name": "Boris", "cells": [{"q": 2, "r": -1, "colour": "blue"}]},
        ],
    }
    doc.update(changes)
    return doc


def problems_of(model: type[Model], doc: Any) -> list[str]:
    with pytest.raises(BoardError) as caught:
        validate(model, doc)
    return caught.value.problems


# --- loads ------------------------------------------------------------------------------------


def test_loads_reads_text_and_utf8_bytes() -> None:
    doc = {"game": "sunflower-valley", "players": [{"name": "Ärni"}]}
    text = json.dumps(doc, ensure_ascii=False)
    assert loads(text) == doc
    assert loads(text.encode("utf-8")) == doc
    assert loads(b"\xef\xbb\xbf" + text.encode("utf-8")) == doc  # a byte-order mark is harmless


def test_same_key_in_different_objects_is_fine() -> None:
    assert loads('[{"q": 1}, {"q": 2}]') == [{"q": 1}, {"q": 2}]


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        ('{"game": "x",}', 1, 14),
        ('{\n  "game": "x",\n  "players": }', 3, 14),
        ('{"game": "x"}\n{"game": "y"}', 2, 1),
        ("{'game': 'x'}", 1, 2),
        ('{"game": "sunflower', 1, 10),
    ],
)
def test_malformed_json_names_line_and_column(text: str, line: int, column: int) -> None:
    with pytest.raises(BoardError) as caught:
        loads(text)
    assert caught.value.problems == [
        f"malformed JSON at line {line} column {column}: " + _json_message(text)
    ]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "board file is empty"),
        ("   \n  ", "board file is empty"),
        ("Anna 23, Boris 19", NOT_A_BOARD_FILE),
        ("\x00" * 64, NOT_A_BOARD_FILE),
        ("  <html>", NOT_A_BOARD_FILE),
    ],
)
def test_a_file_that_is_not_json_at_all_is_not_a_board_file(text: str, problem: str) -> None:
    """A note or a page chosen by mistake is named as such, not as JSON at line 1 column 1."""
    with pytest.raises(BoardError) as caught:
        loads(text)
    assert caught.value.problems == [problem]


def _json_message(text: str) -> str:
    try:
        json.loads(text)
    except json.JSONDecodeError as err:
        return err.msg
    raise AssertionError("expected malformed JSON")


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ('{"game": "a", "game": "b"}', "game"),
        ('{"players": [{"name": "Anna", "cells": [], "name": "Boris"}]}', "name"),
        ('[{"q": 0, "r": 0, "q": 1}]', "q"),
    ],
)
def test_duplicate_keys_are_rejected_at_any_depth(text: str, key: str) -> None:
    with pytest.raises(BoardError) as caught:
        loads(text)
    assert caught.value.problems == [f"key {key!r} appears twice in one object"]


@pytest.mark.parametrize(
    ("data", "byte"),
    [
        (b'{"game": "\xff"}', 10),
        (b"\x80", 0),
        (b'{"name": "Anna\xc3"}', 14),  # a truncated two-byte character
        ("Ärni".encode("latin-1"), 0),
    ],
)
def test_non_utf8_bytes_are_rejected_with_the_offset(data: bytes, byte: int) -> None:
    with pytest.raises(BoardError) as caught:
        loads(data)
    assert caught.value.problems == [f"board file is not UTF-8 text (byte {byte})"]


def _padded(size: int) -> bytes:
    """A valid JSON document of exactly ``size`` bytes."""
    shell = b'{"pad": ""}'
    return shell[:-2] + b"x" * (size - len(shell)) + shell[-2:]


def test_too_large_input_is_refused_before_parsing() -> None:
    assert len(_padded(MAX_BOARD_BYTES)) == MAX_BOARD_BYTES
    assert loads(_padded(MAX_BOARD_BYTES))["pad"] == "x" * (MAX_BOARD_BYTES - 11)
    for data in (_padded(MAX_BOARD_BYTES + 1), b"[" * (MAX_BOARD_BYTES + 1)):
        with pytest.raises(BoardError) as caught:
            loads(data)
        assert caught.value.problems == ["board file is too large (over 2000 kB)"]
    with pytest.raises(BoardError, match="too large"):
        loads(_padded(MAX_BOARD_BYTES + 1).decode())


@pytest.mark.parametrize("opening", ["[", '{"a": '])
def test_deep_nesting_is_reported_not_crashed(opening: str) -> None:
    text = opening * 100_000
    with pytest.raises(BoardError) as caught:
        loads(text)
    assert caught.value.problems == ["malformed JSON: nested too deeply"]


@pytest.mark.parametrize("digits", [16, 4000, 5000])
def test_a_number_longer_than_any_board_holds_is_refused_not_a_crash(digits: int) -> None:
    # Python refuses int("9" * 5000) with a ValueError that is not a JSONDecodeError, and a
    # sum of 4 000-digit numbers cannot be printed: a traceback or a 500 further on.
    for sign in ("", "-"):
        with pytest.raises(BoardError) as caught:
            loads('{"q": ' + sign + "9" * digits + "}")
        assert caught.value.problems == [
            f"a number in the board file has {digits} digits (at most 15)"
        ]
    assert loads('{"q": -999999999999999, "r": 1.5e300}') == {"q": -999999999999999, "r": 1.5e300}


# --- BoardError -------------------------------------------------------------------------------


def test_board_error_with_one_problem() -> None:
    err = BoardError(["player 'Anna', cell (0, 0): listed twice"])
    assert str(err) == "player 'Anna', cell (0, 0): listed twice"
    assert err.problems == ["player 'Anna', cell (0, 0): listed twice"]
    assert isinstance(err, ValueError)


def test_board_error_with_several_problems_keeps_them_all() -> None:
    problems = ("player 'Anna': a", "player 'Boris': b", "player 'Vera': c")
    err = BoardError(problems)
    assert err.problems == list(problems)
    assert str(err) == "player 'Anna': a (and 2 more problems)"
    assert "\n" not in str(err)


def test_board_error_without_problems_still_says_something() -> None:
    assert BoardError([]).problems == ["invalid board file"]
    assert str(BoardError([])) == "invalid board file"


# --- where ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("loc", "expected"),
    [
        ((), "board file"),
        (("game",), "'game'"),
        (("players",), "'players'"),
        (("players", 0), "player 'Anna'"),
        (("players", 1, "name"), "player 'Boris', 'name'"),
        (("players", 0, "cells", 1), "player 'Anna', cell (1, 0)"),
        (("players", 1, "cells", 0, "colour"), "player 'Boris', cell (2, -1), 'colour'"),
        (("players", 5), "player #6"),
        (("players", 0, "cells", 9, "q"), "player 'Anna', cell #10, 'q'"),
        (("options", "valley_express", "7"), "'options', 'valley_express', '7'"),
        (("players", 0, "animals", 1, "cubes"), "player 'Anna', 'animals', item 2, 'cubes'"),
    ],
)
def test_where_names_places_like_a_player(loc: tuple[int | str, ...], expected: str) -> None:
    doc = board(options={"valley_express": {"7": 1}})
    doc["players"][0]["animals"] = [{"card": 1}, {"card": 2, "cubes": 9}]
    assert where(doc, loc) == expected


@pytest.mark.parametrize(
    ("player", "expected"),
    [
        ({"name": "", "cells": []}, "player #2"),
        ({"name": 7, "cells": []}, "player #2"),
        ({"cells": []}, "player #2"),
        ("Boris", "player #2"),
    ],
)
def test_where_numbers_players_without_a_usable_name(player: Any, expected: str) -> None:
    doc = {"players": [{"name": "Anna"}, player]}
    assert where(doc, ["players", 1]) == expected


@pytest.mark.parametrize(
    ("cell", "expected"),
    [
        ({"q": 3, "r": -2}, "cell (3, -2)"),
        ({"q": "3", "r": -2}, "cell #1"),
        ({"q": True, "r": 0}, "cell #1"),  # a JSON boolean is not a coordinate
        ({"q": 1.0, "r": 0}, "cell #1"),
        ({"r": 0}, "cell #1"),
        ([3, -2], "cell #1"),
    ],
)
def test_where_names_cells_by_coordinates_only_when_they_are_integers(
    cell: Any, expected: str
) -> None:
    assert where({"cells": [cell]}, ["cells", 0]) == expected


def test_where_survives_a_path_through_the_wrong_kind_of_value() -> None:
    assert where({"players": "nobody"}, ["players", 0, "name"]) == "player #1, 'name'"
    assert where([], ["players", 0]) == "player #1"


# --- validate ---------------------------------------------------------------------------------


def test_validate_returns_the_immutable_model() -> None:
    table = validate(Board, board())
    assert isinstance(table, Board)
    assert table.players[0].cells[1].colour == "red"
    assert isinstance(table.players, tuple)
    with pytest.raises(ValidationError):
        table.game = "other"  # type: ignore[misc]


def test_unknown_key_names_the_key_and_its_place() -> None:
    doc = board()
    doc["players"][0]["cells"][1]["kolour"] = "red"
    assert problems_of(Board, doc) == ["player 'Anna', cell (1, 0): unknown key 'kolour'"]


def test_unknown_top_level_key() -> None:
    assert problems_of(Board, board(gmae="x")) == ["board file: unknown key 'gmae'"]


def test_missing_key_names_the_key_and_its_place() -> None:
    doc = board()
    del doc["players"][1]["cells"]
    assert problems_of(Board, doc) == ["player 'Boris': missing required key 'cells'"]
    doc = board()
    del doc["game"]
    assert problems_of(Board, doc) == ["board file: missing required key 'game'"]


def test_missing_coordinate_names_the_cell_by_number() -> None:
    doc = board()
    del doc["players"][0]["cells"][1]["q"]
    assert problems_of(Board, doc) == ["player 'Anna', cell #2: missing required key 'q'"]


@pytest.mark.parametrize(
    ("path", "value", "expected"),
    [
        (("cells", 1, "colour"), "green", "player 'Anna', cell (1, 0), 'colour': input should be"),
        # A cell whose coordinates are not both integers is named by its place in the list.
        (("cells", 0, "r"), "0", "player 'Anna', cell #1, 'r': input should be a valid integer"),
        (("cells", 1, "r"), 0.0, "player 'Anna', cell #2, 'r': input should be a valid integer"),
        (("cells", 0, "r"), False, "player 'Anna', cell #1, 'r': input should be a valid integer"),
        (("cells", 1, "q"), None, "player 'Anna', cell #2, 'q': input should be a valid integer"),
        (("name",), 5, "player #1, 'name': input should be a valid string"),
        (("cells",), {"q": 0}, "player 'Anna', 'cells': input should be a valid tuple"),
    ],
)
def test_wrong_type_is_one_readable_sentence(
    path: tuple[str | int, ...], value: Any, expected: str
) -> None:
    doc = board()
    node = doc["players"][0]
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    problems = problems_of(Board, doc)
    assert len(problems) == 1
    assert problems[0].startswith(expected)


def test_literal_choices_are_listed() -> None:
    doc = board()
    doc["players"][1]["cells"][0]["colour"] = "green"
    assert problems_of(Board, doc) == [
        "player 'Boris', cell (2, -1), 'colour': input should be 'red' or 'blue'"
    ]


def test_union_branch_names_are_not_shown_as_keys() -> None:
    doc = board()
    doc["players"][0]["cells"][0]["height"] = [2]
    problems = problems_of(Board, doc)
    assert problems == [
        "player 'Anna', cell (0, 0), 'height': input should be a valid integer",
        "player 'Anna', cell (0, 0), 'height': input should be a valid string",
    ]


def test_every_problem_is_listed_in_one_error() -> None:
    doc = board(extra=1)
    doc["players"][0]["cells"][1]["colour"] = "x"
    doc["players"][0]["cells"][0]["r"] = "x"
    del doc["players"][1]["name"]
    with pytest.raises(BoardError) as caught:
        validate(Board, doc)
    assert sorted(caught.value.problems) == sorted(
        [
            "board file: unknown key 'extra'",
            "player 'Anna', cell (1, 0), 'colour': input should be 'red' or 'blue'",
            "player 'Anna', cell #1, 'r': input should be a valid integer",
            "player #2: missing required key 'name'",
        ]
    )
    assert str(caught.value).endswith("(and 3 more problems)")


def test_a_document_that_is_not_an_object() -> None:
    problems = problems_of(Board, ["game"])
    assert len(problems) == 1
    assert problems[0].startswith("board file: input should be")


def test_an_empty_sequence_below_its_minimum() -> None:
    assert problems_of(NonEmpty, {"cells": []}) == [
        "'cells': tuple should have at least 1 item after validation, not 0"
    ]


def test_a_bad_item_does_not_also_count_as_a_missing_item() -> None:
    # pydantic checks the length of a tuple over the items that validated: one bad cell out of
    # one must be reported once, as itself, not also as "at least 1 item ... not 0".
    assert problems_of(NonEmpty, {"cells": [{"q": 0, "r": "0"}]}) == [
        "cell #1, 'r': input should be a valid integer"
    ]


# --- game_of and unique_names -----------------------------------------------------------------


def test_game_of() -> None:
    assert game_of({"game": "harmonies"}) == "harmonies"
    not_objects: list[Any] = [[], "sunflower-valley", None, 3]
    for doc in not_objects:
        with pytest.raises(BoardError, match="a board file is a JSON object"):
            game_of(doc)
    without_game: list[dict[str, Any]] = [{}, {"game": None}, {"Game": "harmonies"}]
    for doc in without_game:
        with pytest.raises(BoardError, match="missing 'game'"):
            game_of(doc)
    with pytest.raises(BoardError, match=r"in quotes \(a text\), not a number"):
        game_of({"game": 5})
    for number in (0, 5.5):  # not taken for a missing game, nor a float for no number
        with pytest.raises(BoardError, match=r"in quotes \(a text\), not a number"):
            game_of({"game": number})
    for doc in ({"game": ["harmonies"]}, {"game": True}, {"game": False}, {"game": []}):
        with pytest.raises(BoardError, match=r"'game' is a game's name in quotes \(a text\)$"):
            game_of(doc)


def test_unique_names_accepts_distinct_names() -> None:
    assert unique_names([]) == []
    assert unique_names(["Anna"]) == []
    assert unique_names(["Anna", "Boris", "Vera"]) == []


def test_unique_names_reports_each_repeat() -> None:
    assert unique_names(["Anna", "Boris", "Anna"]) == [
        "player 'Anna': two players have this name; names must be unique"
    ]
    assert (
        unique_names(["Vera", "Vera", "Vera"])
        == ["player 'Vera': two players have this name; names must be unique"] * 2
    )


def test_unique_names_reports_empty_names_by_seat() -> None:
    assert unique_names(["Anna", "", "   ", "Boris"]) == [
        "player #2: the name is empty",
        "player #3: the name is empty",
    ]


def test_unknown_keys_that_look_like_type_names_are_named_where_they_are() -> None:
    """Pydantic adds type names to error locations; a player's key is never mistaken for one."""
    from scorepad.games import sunflower_valley as sv

    cell = {"q": 0, "r": 0, "Area": "a", "item": "house"}
    doc = {"game": "sunflower-valley", "players": [{"name": "Anna", "cells": [cell]}]}
    with pytest.raises(BoardError) as err:
        sv.parse(doc)
    assert "player 'Anna', cell (0, 0): unknown key 'Area'" in err.value.problems
    doc = {"game": "sunflower-valley", "options": {"Variant": "kids", "int": 1}, "players": []}
    with pytest.raises(BoardError) as err:
        sv.parse(doc)
    assert err.value.problems[:2] == [
        "'options': unknown key 'Variant'",
        "'options': unknown key 'int'",
    ]


def test_lone_surrogates_are_refused() -> None:
    with pytest.raises(BoardError, match="invalid character"):
        loads('{"players": [{"name": "\\ud800"}]}')


def test_the_problems_left_out_are_counted_in_their_form() -> None:
    """The CLI's one-line refusal said "(and 1 more problem(s))"."""
    assert str(BoardError(["a", "b"])) == "a (and 1 more problem)"
    assert str(BoardError(["a", "b", "c"])) == "a (and 2 more problems)"
    assert str(BoardError(["a"] * 6)) == "a (and 5 more problems)"
    assert str(BoardError(["a"])) == "a"
