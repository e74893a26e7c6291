"""Harmonies: end-of-game scoring of every personal board, with animal and spirit cards.

Rules: ``shared/rules/README.md`` ("Harmonies"), read from the rulebook
``shared/rules/harmonies.uk.txt``; board file: ``shared/formats.md`` ("Harmonies").
How each rule is read, with the interpretations, is in ``docs/harmonies.md``.

Helpers for editors (the web board editor uses them; they never raise anything but ValueError):

* :func:`board_hexes` ``(side) -> tuple[Hex, ...]``: the hexes of board side ``"A"`` (23) or
  ``"B"`` (25), printed columns converted to axial with odd-q, in column order.
* :data:`LEGAL_STACKS`: every legal stack, bottom → top (an empty hex is legal too);
  :func:`is_legal_stack` ``(stack) -> bool``.
* :func:`place_token` ``(stack, colour) -> stack``: the stack with ``colour`` on top, or
  ValueError with a short sentence saying what may lie there.
* :data:`ANIMAL_CARDS` (id → :class:`~scorepad.games.harmonies_cards.AnimalCard`: ``id``,
  ``names``, ``track``, ``walk``, ``rotations``) and :data:`SPIRIT_CARDS` (id → effect text).
* :func:`pattern_hexes` ``(stacks, card) -> list[Hex]``: where a card's cube could go now.

Scoring: :func:`parse` validates a board file into a :class:`Table`, :func:`score` returns the
:class:`~scorepad.scoring.Result` (categories ``trees``, ``mountains``, ``fields``,
``buildings``, ``water``, ``animals``, ``spirit``; no tie-break, tied players share the rank).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import Field

from scorepad.boardfile import BoardError, Model, unique_names, validate
from scorepad.games import Game
from scorepad.games.harmonies_cards import (
    ANIMAL_CARDS,
    SPIRIT_CARDS,
    STACK_CODE,
    AnimalCard,
    Shortfall,
    assign_cubes,
    codes_on_the_way,
    matching_hexes,
)
from scorepad.hexgrid import Hex, axial_to_oddq, components, neighbors, oddq_to_axial
from scorepad.scoring import PlayerScore, Result, rank
from scorepad.wording import counted

__all__ = [
    "ANIMAL_CARDS",
    "BOX",
    "CATEGORIES",
    "COLOURS",
    "GAME",
    "LEGAL_STACKS",
    "SPIRIT_CARDS",
    "AnimalClaim",
    "PlayerBoard",
    "SpiritClaim",
    "Table",
    "board_hexes",
    "codes_on_the_way",
    "describe",
    "dump",
    "is_legal_stack",
    "parse",
    "pattern_hexes",
    "place_token",
    "river_points",
    "score",
    "stack_code",
    "stack_problem",
    "suns",
    "what_may_lie_on",
]

Colour = Literal["blue", "grey", "brown", "green", "yellow", "red"]
Stack = tuple[str, ...]
Side = Literal["A", "B"]

COLOURS: tuple[str, ...] = ("blue", "grey", "brown", "green", "yellow", "red")

#: Rulebook, "Обов'язкова дія": each turn a player takes a set of 3 tokens and places all 3.
TOKENS_PER_TURN = 3
#: "Картка розміщується в одному з 4 доступних слотів" ... "Коли всі кубики використані,
#: картка скидається, і ви можете взяти нову": at most 4 cards still holding cubes.
CARD_SLOTS = 4
#: Tokens in the box (rules digest); a table using more gets a warning.
BOX: Mapping[str, int] = {"blue": 23, "grey": 23, "brown": 21, "green": 19, "yellow": 19, "red": 15}

CATEGORIES = {
    "trees": "Trees",
    "mountains": "Mountains",
    "fields": "Fields",
    "buildings": "Buildings",
    "water": "Water",
    "animals": "Animal cards",
    "spirit": "Spirit",
}

# --- the boards ------------------------------------------------------------------------------

#: Hexes per printed column, left to right (rules digest: A is 5,4,5,4,5; B is 4,3,4,3,4,3,4).
SIDE_COLUMNS: Mapping[str, tuple[int, ...]] = {"A": (5, 4, 5, 4, 5), "B": (4, 3, 4, 3, 4, 3, 4)}


def board_hexes(side: str) -> tuple[Hex, ...]:
    """The hexes of a board side in column order; odd columns sit half a hex lower (odd-q)."""
    if side not in SIDE_COLUMNS:
        raise ValueError(f"unknown board side {side!r}; Harmonies boards have sides A and B")
    return tuple(
        oddq_to_axial(col, row)
        for col, rows in enumerate(SIDE_COLUMNS[side])
        for row in range(rows)
    )


_HEXES: Mapping[str, tuple[Hex, ...]] = {side: board_hexes(side) for side in SIDE_COLUMNS}
_HEX_SETS: Mapping[str, frozenset[Hex]] = {s: frozenset(h) for s, h in _HEXES.items()}
#: On-board neighbours of each hex, per side: the adjacency every category looks at.
_NEIGHBOURS: Mapping[str, Mapping[Hex, tuple[Hex, ...]]] = {
    side: {h: tuple(n for n in neighbors(h) if n in _HEX_SETS[side]) for h in hexes}
    for side, hexes in _HEXES.items()
}

# --- stacks ----------------------------------------------------------------------------------

#: Every legal stack, bottom → top, in the digest's order (an empty hex is legal as well).
LEGAL_STACKS: tuple[Stack, ...] = (
    ("blue",),
    ("yellow",),
    ("grey",),
    ("grey", "grey"),
    ("grey", "grey", "grey"),
    ("green",),
    ("brown", "green"),
    ("brown", "brown", "green"),
    ("brown",),
    ("brown", "brown"),
    ("red",),
    ("brown", "red"),
    ("grey", "red"),
    ("red", "red"),
)
_LEGAL = frozenset(LEGAL_STACKS) | {()}
#: What may be put on each legal stack: the colours that make another legal stack.
_NEXT: Mapping[Stack, tuple[str, ...]] = {
    s: tuple(c for c in COLOURS if (*s, c) in _LEGAL) for s in _LEGAL
}


def is_legal_stack(stack: Sequence[str]) -> bool:
    """Rules digest, "Legal stacks": one of :data:`LEGAL_STACKS`, or an empty hex."""
    return tuple(stack) in _LEGAL


def describe(stack: Sequence[str]) -> str:
    """A stack as players say it, bottom first: ``brown-brown-green``."""
    return "-".join(stack) if stack else "an empty hex"


def what_may_lie_on(stack: Sequence[str]) -> str:
    """A short sentence: which colours may go on a legal stack."""
    options = _NEXT.get(tuple(stack), ())
    if not options:
        return f"nothing may lie on {describe(stack)}"
    where = "on an empty hex" if not stack else f"on {describe(stack)}"
    return f"only {', '.join(options)} may lie {where}"


def place_token(stack: Sequence[str], colour: str) -> Stack:
    """Put ``colour`` on top of ``stack``; ValueError when the result is not a legal stack."""
    if colour not in COLOURS:
        raise ValueError(f"unknown colour {colour!r}; tokens are {', '.join(COLOURS)}")
    if not is_legal_stack(stack):
        raise ValueError(stack_problem(stack))
    new = (*stack, colour)
    if new not in _LEGAL:
        raise ValueError(f"{colour} cannot go on {describe(stack)}: {what_may_lie_on(stack)}")
    return new


def stack_problem(stack: Sequence[str]) -> str:
    """Why a stack is illegal: the first token that may not lie where it does."""
    for i in range(1, len(stack) + 1):
        if tuple(stack[:i]) not in _LEGAL:
            below = stack[: i - 1]
            return (
                f"{describe(stack)} is not a legal stack (bottom → top): {stack[i - 1]} "
                f"cannot lie on {describe(below)}, {what_may_lie_on(below)}"
            )
    return f"{describe(stack)} is a legal stack"


def stack_code(stack: Sequence[str]) -> str | None:
    """The pattern code of a stack (T1–T3, M1–M3, B, W, F), or None (trunks, lone red, empty)."""
    return STACK_CODE.get(tuple(stack))


# --- the table -------------------------------------------------------------------------------


@dataclass(frozen=True)
class AnimalClaim:
    """An animal card in front of a player, with the cubes the player took off it."""

    card: int
    cubes: int


@dataclass(frozen=True)
class SpiritClaim:
    """The spirit card a player chose (variant); it scores only if its cube was placed."""

    card: int
    placed: bool


@dataclass(frozen=True)
class PlayerBoard:
    name: str
    #: Every hex of the side, bottom → top; empty hexes map to ``()``.
    stacks: Mapping[Hex, Stack]
    cubes: frozenset[Hex]
    animals: tuple[AnimalClaim, ...] = ()
    spirit: SpiritClaim | None = None


@dataclass(frozen=True)
class Table:
    side: Side
    players: tuple[PlayerBoard, ...]


class _Cell(Model):
    q: int
    r: int
    stack: list[Colour]
    cube: bool = False


class _Animal(Model):
    card: int
    cubes: Annotated[int, Field(ge=0)]


class _Spirit(Model):
    card: int
    placed: bool


class _Player(Model):
    name: str
    cells: list[_Cell]
    animals: list[_Animal] = Field(default_factory=list)
    spirit: _Spirit | None = None


class _Options(Model):
    side: Side = "A"


class _Doc(Model):
    game: Literal["harmonies"]
    options: _Options = Field(default_factory=_Options)
    players: list[_Player]


def parse(doc: Any) -> Table:
    """Validate a Harmonies board file (formats.md); BoardError lists every problem found."""
    model = validate(_Doc, doc)
    side = model.options.side
    problems = _table_problems(model)
    for p in model.players:
        problems += _board_problems(p, side)
    if problems:
        raise BoardError(problems)
    return Table(side=side, players=tuple(_board(p, side) for p in model.players))


def _board(p: _Player, side: str) -> PlayerBoard:
    given = {Hex(c.q, c.r): tuple(c.stack) for c in p.cells}
    return PlayerBoard(
        name=p.name,
        # Board order, whatever the file's order: evidence lists come out the same way.
        stacks={h: given[h] for h in _HEXES[side]},
        cubes=frozenset(Hex(c.q, c.r) for c in p.cells if c.cube),
        animals=tuple(AnimalClaim(a.card, a.cubes) for a in p.animals),
        spirit=SpiritClaim(p.spirit.card, p.spirit.placed) if p.spirit else None,
    )


def _table_problems(model: _Doc) -> list[str]:
    """1–4 players with unique names; each card exists once in the box."""
    problems = unique_names([p.name for p in model.players])
    if not 1 <= len(model.players) <= 4:
        problems.append(f"Harmonies is played by 1 to 4 players, not {len(model.players)}")
    holders: dict[int, list[str]] = {}
    for p in model.players:
        cards = {a.card for a in p.animals} | ({p.spirit.card} if p.spirit else set())
        for card in cards:
            holders.setdefault(card, []).append(p.name)
    for card, names in sorted(holders.items()):
        if len(names) > 1:
            who = " and ".join(repr(n) for n in names)
            problems.append(f"card {card} is in front of {who}; the box has one of each card")
    return problems


def _board_problems(p: _Player, side: str) -> list[str]:
    return _shape_problems(p, side) + _cell_problems(p) + _card_problems(p)


def _shape_problems(p: _Player, side: str) -> list[str]:
    """formats.md: ``cells`` lists every hex of the board side, each once."""
    seen: Counter[Hex] = Counter(Hex(c.q, c.r) for c in p.cells)
    problems = [
        f"player {p.name!r}, cell {h}: listed {n} times; each hex is listed once"
        for h, n in seen.items()
        if n > 1
    ]
    missing = [h for h in _HEXES[side] if h not in seen]
    extra = sorted(h for h in seen if h not in _HEX_SETS[side])
    if missing:
        where = _some([f"{h} (column {h.q}, row {axial_to_oddq(h)[1]})" for h in missing])
        problems.append(f"player {p.name!r}: board side {side} is missing hexes {where}")
    if extra:
        where = _some([str(h) for h in extra])
        problems.append(
            f"player {p.name!r}: hexes {where} are not on board side {side} "
            f"({len(_HEXES[side])} hexes in columns of {_columns(side)})"
        )
    return problems


def _some(items: list[str], shown: int = 6) -> str:
    """The first few items of a long list, and how many more: messages stay one line."""
    if len(items) <= shown:
        return ", ".join(items)
    return f"{', '.join(items[:shown])} and {len(items) - shown} more"


def _columns(side: str) -> str:
    return ", ".join(str(n) for n in SIDE_COLUMNS[side])


def _cell_problems(p: _Player) -> list[str]:
    """Rules digest: only the legal stacks; a cube lies on tokens, never on an empty hex."""
    problems = []
    for c in p.cells:
        if not is_legal_stack(c.stack):
            problems.append(f"player {p.name!r}, cell ({c.q}, {c.r}): {stack_problem(c.stack)}")
        elif c.cube and not c.stack:
            problems.append(
                f"player {p.name!r}, cell ({c.q}, {c.r}): a cube lies on the habitat it was "
                "placed on, and this hex is empty"
            )
    return problems


def _card_problems(p: _Player) -> list[str]:
    """Animal cards 1–32 with no more cubes than their track; spirit cards 33–42."""
    problems = []
    for card_id, n in Counter(a.card for a in p.animals).items():
        if n > 1:
            problems.append(f"player {p.name!r}: animal card {card_id} is listed {n} times")
    for a in p.animals:
        card = ANIMAL_CARDS.get(a.card)
        if card is None:
            problems.append(
                f"player {p.name!r}: {a.card} is not an animal card (animal cards are 1 to 32)"
            )
        elif a.cubes > len(card.track):
            problems.append(
                f"player {p.name!r}, animal card {a.card}: {a.cubes} cubes claimed, but the card "
                f"holds only {len(card.track)} (track {_track(card)})"
            )
    if p.spirit and p.spirit.card not in SPIRIT_CARDS:
        problems.append(
            f"player {p.name!r}: {p.spirit.card} is not a spirit card (spirit cards are 33 to 42)"
        )
    return problems


def _track(card: AnimalCard) -> str:
    return "-".join(str(v) for v in card.track)


def dump(table: Table) -> dict[str, Any]:
    """The board file of a table; ``parse(dump(t)) == t``."""
    return {
        "game": "harmonies",
        "options": {"side": table.side},
        "players": [_dump_player(p, table.side) for p in table.players],
    }


def _dump_player(p: PlayerBoard, side: str) -> dict[str, Any]:
    cells: list[dict[str, Any]] = []
    for h in _HEXES[side]:
        cell: dict[str, Any] = {"q": h.q, "r": h.r, "stack": list(p.stacks[h])}
        if h in p.cubes:
            cell["cube"] = True
        cells.append(cell)
    doc: dict[str, Any] = {
        "name": p.name,
        "cells": cells,
        "animals": [{"card": a.card, "cubes": a.cubes} for a in p.animals],
    }
    if p.spirit is not None:
        doc["spirit"] = {"card": p.spirit.card, "placed": p.spirit.placed}
    return doc


# --- scoring ---------------------------------------------------------------------------------

HEIGHT_POINTS = (1, 3, 7)
RIVER_POINTS = (0, 2, 5, 8, 11, 15)
FIELD_POINTS = BUILDING_POINTS = ISLAND_POINTS = 5


def _xy(h: Hex) -> list[int]:
    return [h.q, h.r]


def _hex_list(hexes: Iterable[Hex]) -> list[list[int]]:
    return [[h.q, h.r] for h in sorted(hexes)]


@dataclass(frozen=True)
class _View:
    """One board as the categories see it: top colour and pattern code of every hex."""

    side: str
    stacks: Mapping[Hex, Stack]
    top: Mapping[Hex, str | None]
    code: Mapping[Hex, str | None]
    #: Hexes by top colour and by pattern code, in board order (each category reads one).
    by_top: Mapping[str | None, list[Hex]]
    by_code: Mapping[str | None, list[Hex]]

    @classmethod
    def of(cls, board: PlayerBoard, side: str) -> _View:
        top: dict[Hex, str | None] = {}
        code: dict[Hex, str | None] = {}
        by_top: dict[str | None, list[Hex]] = {}
        by_code: dict[str | None, list[Hex]] = {}
        for h, s in board.stacks.items():
            t = top[h] = s[-1] if s else None
            c = code[h] = STACK_CODE.get(s)
            by_top.setdefault(t, []).append(h)
            by_code.setdefault(c, []).append(h)
        return cls(side, board.stacks, top, code, by_top, by_code)

    def with_top(self, colour: str) -> list[Hex]:
        return self.by_top.get(colour, [])

    def buildings(self) -> list[Hex]:
        """Rules digest: a building is red on one token; a lone red is not a building."""
        return self.by_code.get("B", [])

    def neighbours(self, h: Hex) -> tuple[Hex, ...]:
        return _NEIGHBOURS[self.side][h]


def score_trees(view: _View) -> tuple[int, list[dict[str, Any]]]:
    """Trees: green on 0–2 brown; 1 / 3 / 7 points by height."""
    trees: list[dict[str, Any]] = [
        {
            "hex": _xy(h),
            "height": len(view.stacks[h]),
            "points": HEIGHT_POINTS[len(view.stacks[h]) - 1],
        }
        for h in view.with_top("green")
    ]
    return sum(t["points"] for t in trees), trees


def score_mountains(view: _View) -> tuple[int, list[dict[str, Any]]]:
    """Mountains: 1 / 3 / 7 by height, only if adjacent to another grey-topped stack."""
    mountains: list[dict[str, Any]] = []
    for h in view.with_top("grey"):
        height = len(view.stacks[h])
        adjacent = any(view.top[n] == "grey" for n in view.neighbours(h))
        points = HEIGHT_POINTS[height - 1] if adjacent else 0
        mountains.append({"hex": _xy(h), "height": height, "adjacent": adjacent, "points": points})
    return sum(m["points"] for m in mountains), mountains


def score_fields(view: _View) -> tuple[int, list[dict[str, Any]]]:
    """Fields: each connected group of 2 or more yellow hexes scores 5."""
    groups: list[dict[str, Any]] = [
        {"hexes": _hex_list(g), "size": len(g), "points": FIELD_POINTS if len(g) >= 2 else 0}
        for g in components(view.with_top("yellow"))
    ]
    return sum(g["points"] for g in groups), groups


def score_buildings(view: _View) -> tuple[int, list[dict[str, Any]]]:
    """Buildings: 5 each whose neighbours' top tokens show 3 or more colours (empty: none)."""
    buildings: list[dict[str, Any]] = []
    for h in view.buildings():
        colours = {view.top[n] for n in view.neighbours(h)} - {None}
        points = BUILDING_POINTS if len(colours) >= 3 else 0
        buildings.append(
            {
                "hex": _xy(h),
                "neighbour_colours": [c for c in COLOURS if c in colours],
                "points": points,
            }
        )
    return sum(b["points"] for b in buildings), buildings


def river_points(length: int) -> int:
    """Side A: 1→0, 2→2, 3→5, 4→8, 5→11, 6→15, then 4 more per hex beyond 6."""
    if length <= 0:
        return 0
    if length <= len(RIVER_POINTS):
        return RIVER_POINTS[length - 1]
    return RIVER_POINTS[-1] + 4 * (length - len(RIVER_POINTS))


def longest_path(view: _View, river: frozenset[Hex]) -> list[Hex]:
    """The river's length path: the longest of the shortest paths between two of its hexes.

    Breadth-first search from every hex inside the river (a graph diameter); of equally long
    paths the first found from the smallest hex is kept, so the answer is stable.
    """
    best: list[Hex] = []
    for start in sorted(river):
        parent: dict[Hex, Hex | None] = {start: None}
        frontier = [start]
        last = start
        while frontier:
            nxt = []
            for h in frontier:
                for n in view.neighbours(h):
                    if n in river and n not in parent:
                        parent[n] = h
                        nxt.append(n)
            if nxt:
                last = nxt[0]
            frontier = nxt
        path: list[Hex] = []
        node: Hex | None = last
        while node is not None:
            path.append(node)
            node = parent[node]
        if len(path) > len(best):
            best = path[::-1]
    return best


def score_rivers(view: _View) -> tuple[int, dict[str, Any]]:
    """Side A water: only the longest river scores, its length counted in hexes."""
    rivers = []
    longest: list[Hex] = []
    for group in components(view.with_top("blue")):
        path = longest_path(view, group)
        rivers.append({"hexes": _hex_list(group), "length": len(path)})
        if len(path) > len(longest):
            longest = path
    points = river_points(len(longest))
    best = {"path": [_xy(h) for h in longest], "length": len(longest), "points": points}
    return points, {"rivers": rivers, "longest_river": best if longest else None}


def score_islands(view: _View) -> tuple[int, dict[str, Any]]:
    """Side B water: 5 per island, a connected group of non-blue hexes (empty hexes are land)."""
    land = [h for h, c in view.top.items() if c != "blue"]
    islands = [{"hexes": _hex_list(g), "points": ISLAND_POINTS} for g in components(land)]
    return ISLAND_POINTS * len(islands), {"islands": islands}


def pattern_hexes(stacks: Mapping[Hex, Stack], card: AnimalCard) -> list[Hex]:
    """Hexes where ``card``'s pattern is matched, in some rotation, with its cube hex there."""
    return matching_hexes({h: STACK_CODE.get(s) for h, s in stacks.items()}, card)


def check_animals(view: _View, board: PlayerBoard) -> tuple[int, list[dict[str, Any]], list[str]]:
    """Animal cards: each card scores its track; the claimed cubes are checked on the board.

    The cubes claimed on all cards must sit on distinct cube hexes, each matching its card's
    pattern: an assignment problem across cards (see :func:`assign_cubes`). A claim the board
    cannot support is a warning, and still scores: the players' tally is what is scored.
    """
    had = {h: codes_on_the_way(s) for h, s in view.stacks.items()} if board.animals else {}
    matching = {
        a.card: matching_hexes(view.code, card, view.by_code.get(card.cube_code, []), had)
        for a in board.animals
        for card in [ANIMAL_CARDS[a.card]]
    }
    check = assign_cubes([(a.card, a.cubes) for a in board.animals], matching, board.cubes)
    short = {card for s in check.shortfalls for card in s.cards}
    details = []
    for a in board.animals:
        card = ANIMAL_CARDS[a.card]
        found = matching[a.card]
        details.append(
            {
                "card": a.card,
                "names": list(card.names),
                "track": list(card.track),
                "pattern": card.walk,
                "cubes": a.cubes,
                "points": card.points(a.cubes),
                "matching_hexes": _hex_list(found),
                "matching_count": len(found),
                "matching_with_cube": sum(h in board.cubes for h in found),
                "assigned_cubes": _hex_list(check.assigned[a.card]),
                "supported": a.card not in short,
            }
        )
    warnings = [_shortfall_warning(board, s, matching) for s in check.shortfalls]
    return sum(ANIMAL_CARDS[a.card].points(a.cubes) for a in board.animals), details, warnings


def _shortfall_warning(board: PlayerBoard, s: Shortfall, matching: Mapping[int, list[Hex]]) -> str:
    """Rules digest check: a card's placed cubes sit on hexes that match its pattern."""
    where = ": " + ", ".join(str(h) for h in s.hexes) if s.hexes else ""
    if len(s.cards) == 1:
        card = ANIMAL_CARDS[s.cards[0]]
        without = len(matching[card.id]) - len(s.hexes)
        hint = f"; {_hexes_without(without)}" if without > 0 else ""
        return (
            f"player {board.name!r}, animal card {card.id} (track {_track(card)}): "
            f"{_cubes(s.claimed)} claimed, but {_cube_hexes(len(s.hexes))} its pattern"
            f"{where}{hint}"
        )
    cards = ", ".join(str(c) for c in s.cards[:-1]) + f" and {s.cards[-1]}"
    return (
        f"player {board.name!r}, animal cards {cards}: {_cubes(s.claimed)} claimed between "
        f"them, but {_cube_hexes(len(s.hexes))} their patterns{where}"
    )


def _cubes(n: int) -> str:
    return counted(n, "cube", "cubes")


def _hexes_without(n: int) -> str:
    return counted(n, "hex without a cube matches it too", "hexes without a cube match it too")


def _cube_hexes(n: int) -> str:
    if n == 0:
        return "no hex with a cube matches"
    return "only " + counted(n, "hex with a cube matches", "hexes with a cube match")


def score_spirit(view: _View, spirit: SpiritClaim | None) -> tuple[int, dict[str, Any] | None]:
    """Spirit card (variant): its effect scores only when the spirit cube was placed."""
    if spirit is None:
        return 0, None
    effect, evidence = SPIRIT_EFFECTS[spirit.card](view)
    points = effect if spirit.placed else 0
    return points, {
        "card": spirit.card,
        "effect": SPIRIT_CARDS[spirit.card],
        "placed": spirit.placed,
        "points": points,
        "counted": evidence,
    }


def _per_group(
    groups: list[frozenset[Hex]], value: Callable[[int], int]
) -> tuple[int, list[dict[str, Any]]]:
    counted: list[dict[str, Any]] = [
        {"hexes": _hex_list(g), "points": value(len(g))} for g in groups
    ]
    return sum(g["points"] for g in counted), counted


def _per_stack(
    hexes: list[Hex], view: _View, value: Callable[[int], int]
) -> tuple[int, list[dict[str, Any]]]:
    counted: list[dict[str, Any]] = [
        {"hex": _xy(h), "height": len(view.stacks[h]), "points": value(len(view.stacks[h]))}
        for h in sorted(hexes)
    ]
    return sum(s["points"] for s in counted), counted


_Evidence = tuple[int, list[dict[str, Any]]]

#: Spirit effects (rules digest, "Spirit cards"): board → points and what was counted.
SPIRIT_EFFECTS: Mapping[int, Callable[[_View], _Evidence]] = {
    33: lambda v: _per_group(components(v.with_top("yellow")), lambda n: 10 if n >= 3 else 2),
    34: lambda v: _per_group(components(v.with_top("yellow")), lambda n: 5),
    35: lambda v: _per_stack(v.with_top("green"), v, lambda h: 4 if h >= 2 else 0),
    36: lambda v: _per_stack(v.with_top("green"), v, lambda h: 3 if h <= 2 else 1),
    37: lambda v: _per_group(components(v.buildings()), lambda n: 4),
    38: lambda v: _per_group(components(v.buildings()), lambda n: 6 if n >= 2 else 0),
    39: lambda v: _per_stack(v.with_top("grey"), v, lambda h: 4 if h >= 2 else 0),
    40: lambda v: _per_stack(v.with_top("grey"), v, lambda h: 3 if h <= 2 else 1),
    41: lambda v: _per_group(components(v.with_top("blue")), lambda n: 7 if n >= 2 else 0),
    42: lambda v: _per_group([frozenset([h]) for h in v.with_top("blue")], lambda n: 2),
}


#: Solo suns by score (rules digest): the lowest score of each band, highest band first.
SUN_BANDS = ((160, 8), (150, 7), (140, 6), (130, 5), (110, 4), (90, 3), (70, 2), (40, 1))
#: The spirits that earn a solo game one sun (rules digest); playing with none earns two.
SUN_SPIRITS = frozenset({33, 34, 37, 38, 41})


def suns(total: int, side: str, spirit: SpiritClaim | None) -> dict[str, int]:
    """Solo suns (rules digest, as on Board Game Arena): by score, +1 side A, spirit bonus."""
    from_score = next((s for floor, s in SUN_BANDS if total >= floor), 0)
    side_bonus = 1 if side == "A" else 0
    spirit_bonus = 2 if spirit is None else 1 if spirit.card in SUN_SPIRITS else 0
    return {
        "suns": from_score + side_bonus + spirit_bonus,
        "from_score": from_score,
        "side_bonus": side_bonus,
        "spirit_bonus": spirit_bonus,
    }


def score_board(board: PlayerBoard, side: str) -> tuple[PlayerScore, list[str]]:
    """Every category of one board, with its evidence and the board's warnings."""
    view = _View.of(board, side)
    trees, tree_list = score_trees(view)
    mountains, mountain_list = score_mountains(view)
    fields, field_list = score_fields(view)
    buildings, building_list = score_buildings(view)
    water, water_details = score_rivers(view) if side == "A" else score_islands(view)
    animals, animal_list, warnings = check_animals(view, board)
    spirit, spirit_details = score_spirit(view, board.spirit)
    categories = {
        "trees": trees,
        "mountains": mountains,
        "fields": fields,
        "buildings": buildings,
        "water": water,
        "animals": animals,
        "spirit": spirit,
    }
    details: dict[str, Any] = {
        "trees": tree_list,
        "mountains": mountain_list,
        "fields": field_list,
        "buildings": building_list,
        **water_details,
        "animals": animal_list,
        "spirit": spirit_details,
        "cubes": _hex_list(board.cubes),
        "empty_hexes": _hex_list(h for h, s in board.stacks.items() if not s),
    }
    warnings += _board_warnings(board)
    return PlayerScore(board.name, categories, details), warnings


def _board_warnings(board: PlayerBoard) -> list[str]:
    """Cubes on the board against the claims; more cards still holding cubes than the 4
    slots; a token count no number of turns gives (the rulebook's turn: take a set of 3
    tokens and place each of them); empty hexes (rules digest, unfinished boards)."""
    warnings = []
    claimed = sum(a.cubes for a in board.animals) + bool(board.spirit and board.spirit.placed)
    if len(board.cubes) != claimed:
        warnings.append(
            f"player {board.name!r}: {_cubes(len(board.cubes))} on the board, but the cards "
            f"claim {claimed} (animal cubes plus a placed spirit)"
        )
    open_cards = sum(a.cubes < len(ANIMAL_CARDS[a.card].track) for a in board.animals)
    if open_cards > CARD_SLOTS:  # a finished card leaves its slot and still scores
        warnings.append(
            f"player {board.name!r}: {open_cards} animal cards still hold cubes, but a player "
            f"has {CARD_SLOTS} slots for them: check the cubes on each card"
        )
    tokens = sum(len(s) for s in board.stacks.values())
    if tokens % TOKENS_PER_TURN:
        warnings.append(
            f"player {board.name!r}: {counted(tokens, 'token', 'tokens')} on the "
            "board, but every turn places "
            f"{TOKENS_PER_TURN}: check the stacks' heights"
        )
    empty = sum(1 for s in board.stacks.values() if not s)
    if empty:
        hexes = counted(
            empty, "empty hex, scored as it stands", "empty hexes, scored as they stand"
        )
        warnings.append(f"player {board.name!r}: {hexes}")
    return warnings


def token_warnings(table: Table) -> list[str]:
    """Rules digest: the token totals of all boards must fit in the box."""
    used = Counter(c for p in table.players for s in p.stacks.values() for c in s)
    return [
        f"the boards hold {used[c]} {c} tokens, but the box has only {BOX[c]}"
        for c in COLOURS
        if used[c] > BOX[c]
    ]


def score(table: Table) -> Result:
    """Score every board; tied players share the rank (Harmonies has no tie-break)."""
    scores, warnings = [], []
    for board in table.players:
        player_score, board_warnings = score_board(board, table.side)
        scores.append(player_score)
        warnings += board_warnings
    warnings += token_warnings(table)
    extra: dict[str, Any] = {}
    if len(scores) == 1:
        only = table.players[0]
        solo = suns(scores[0].total, table.side, only.spirit)
        scores[0] = PlayerScore(
            only.name, scores[0].categories, {**scores[0].details, "suns": solo}
        )
        extra["suns"] = solo["suns"]
    return rank("harmonies", scores, (), warnings, extra)


def notes(result: Result) -> list[str]:
    """Text-report line for a solo game: the suns."""
    return [f"Suns (solo): {result.extra['suns']}"] if "suns" in result.extra else []


GAME = Game(
    name="harmonies",
    title="Harmonies",
    categories=CATEGORIES,
    parse=parse,
    dump=dump,
    score=score,
    notes=notes,
)
