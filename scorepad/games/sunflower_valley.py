"""Sunflower Valley: the sheet, its structures, and end-of-game scoring A–G.

Rules: ``shared/rules/README.md`` (our canonical reading) and the rulebook
``shared/rules/sunflower-valley.ru.txt`` ("Подсчёт очков", pp. 4–7).

The model is the board file of ``shared/formats.md``: a :class:`Table` of player
:class:`Sheet` s, each listing every hex :class:`Cell` with its printed colour area (or
mountain) and what was drawn there. :func:`score` returns a :class:`~scorepad.scoring.Result`
whose per-player ``details`` carry the evidence a player can check on the paper sheet:

``pairs``
    ``[{"house": [q, r], "sheep": [q, r], "via": "adjacent" | "herd" | "settlement" |
    "railway", "path": [[q, r], ...], "gate": [q, r]}]``, the house–sheep pairing (a
    maximum matching, preferring the simplest reasons so the explanation reads naturally);
    a pair that is not adjacent has the ``path`` rule A takes, hex by hex (:func:`pair_path`),
    and its ``gate``, the first house on it;
``unpaired_houses``
    ``[[q, r], ...]``;
``herds``, ``settlements``
    lists of hex lists;
``links``
    every track run joining two settlements: ``{"run": [[q, r], ...], "settlements": [i, j]}``
    (indices into ``settlements``);
``areas``
    ``{area: {"sunflowers": n, "taken": bool}}``;
``mountains``
    ``[{"hex": [q, r], "points": n, "sunflowers": [[q, r], ...]}]``;
``residents``
    ``{"count", "houses", "sunflowers", "super_sunflowers", "tally", "place", "points",
    "decided_by", "tie_voids"}`` (``tie_voids``: a paying place its tied players lose);
``valley_express``
    ``[{"settlements": [[[q, r], ...], ...], "runs": [[[q, r], ...], ...], "points": n}]``
    (each settlement and each run as its hexes);
``loose_ends``
    ``[[q, r, side], ...]``: track ends that reach neither a house nor more track (they
    score nothing; often a rail entered turned the wrong way).

The result's ``extra`` adds table-wide evidence: ``areas`` (every player's count and the
area's winner), ``residents`` (the ranking and the tie-break used) and the ``variant``.

Helpers for editors: :data:`RAIL_ORIENTATIONS`, :func:`example_layout`, :func:`blank_sheet`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from importlib import resources
from itertools import pairwise
from typing import Annotated, Any, Literal, NamedTuple

import numpy as np
from pydantic import Field, StrictBool, StrictInt, StrictStr
from scipy.optimize import linear_sum_assignment

from scorepad.boardfile import BoardError, Model, unique_names, validate
from scorepad.games import Game
from scorepad.hexgrid import Hex, components, neighbors, opposite, side_gap
from scorepad.scoring import PlayerScore, Result, TieBreak, rank
from scorepad.wording import counted

NAME = "sunflower-valley"
TITLE = "Sunflower Valley"
MAX_PLAYERS = 5
#: A printed sheet has 30 hexes (5 areas of 5, 5 mountains); a file listing many more is
#: no sheet, and scoring thousands of hexes on every tap would stall the app.
MAX_SHEET_HEXES = 200
#: How far apart (in hex steps along an axis) a sheet's hexes may lie: a printed sheet is
#: one piece of 30 hexes, so less than 30 in every direction.
MAX_SHEET_SPAN = 30

Item = Literal["house", "sheep", "sunflower", "super-sunflower", "rail"]
SUNFLOWERS = frozenset({"sunflower", "super-sunflower"})

CATEGORIES = {
    "houses_with_sheep": "A. Houses with sheep",
    "houses_without_sheep": "B. Houses without sheep",
    "sunflower_majority": "C. Sunflower majority",
    "mountains": "D. Mountains",
    "residents": "E. Residents",
    "valley_express": "F. Valley Express",
}

#: The nine legal tracks, in the order a tap cycles through them: 3 straight, then 6 curves.
RAIL_ORIENTATIONS: tuple[tuple[int, int], ...] = (
    (0, 3),
    (1, 4),
    (2, 5),
    (0, 2),
    (1, 3),
    (2, 4),
    (3, 5),
    (0, 4),
    (1, 5),
)

HOUSE_WITH_SHEEP = 3
HOUSE_WITHOUT_SHEEP = -5
AREA_MAJORITY = 3
RESIDENT_PLACES = (5, 3)
AREAS = 5  # colour areas on a printed sheet, and mountains too
AREA_SIZE = 5


# --- the board file ---------------------------------------------------------------------------

LAX = Field(strict=False)  # JSON arrays validate as tuples; their items stay strict


class Cell(Model):
    """One hex of a sheet: its printed area or mountain, and what was drawn in it."""

    q: StrictInt
    r: StrictInt
    area: StrictStr | None = None
    mountain: StrictBool = False
    item: Item | None = None
    sides: Annotated[tuple[StrictInt, StrictInt], LAX] | None = None

    @property
    def hex(self) -> Hex:
        return Hex(self.q, self.r)


class Sheet(Model):
    """One player's sheet; ``residents`` is the tally written on the paper, if given."""

    name: StrictStr
    residents: Annotated[StrictInt, Field(ge=0)] | None = None
    cells: Annotated[tuple[Cell, ...], LAX]

    @cached_property
    def by_hex(self) -> dict[Hex, Cell]:
        return {Hex(c.q, c.r): c for c in self.cells}

    @cached_property
    def layout_signature(self) -> frozenset[tuple[int, int, str | None]]:
        return frozenset((c.q, c.r, None if c.mountain else c.area) for c in self.cells)

    @cached_property
    def layout(self) -> dict[str, frozenset[Hex]]:
        """The printed sheet: hexes of each colour area and of the mountains."""
        areas: dict[str, set[Hex]] = {}
        for h, c in self.by_hex.items():
            areas.setdefault("mountains" if c.mountain else f"area {c.area}", set()).add(h)
        return {k: frozenset(v) for k, v in areas.items()}


class Options(Model):
    variant: Literal["standard", "kids"] = "standard"
    #: Settlements in a connected group → points, as printed on the game board.
    valley_express: Mapping[StrictStr, StrictInt] | None = None


class Table(Model):
    game: Literal["sunflower-valley"]
    options: Options = Options()
    players: Annotated[tuple[Sheet, ...], LAX]


def parse(doc: Any) -> Table:
    """Validate a board file; every problem names the player, the cell and the rule."""
    table = validate(Table, doc)
    problems = unique_names([p.name for p in table.players])
    if not table.players:
        problems.append("players: a table needs at least one player")
    if len(table.players) > MAX_PLAYERS:
        problems.append(f"players: Sunflower Valley is played by 1 to {MAX_PLAYERS} players")
    problems += _check_valley_express(table.options.valley_express)
    for sheet in table.players:
        problems += _check_sheet(sheet)
    if problems:
        raise BoardError(problems)
    return table


def _settlements_key(key: str) -> int | None:
    """A Valley Express table's key ("2", "3", ...; "02" is 2) as a number, ``None`` when it
    is not one (six digits are far more settlements than a sheet holds)."""
    if len(key) <= 6 and key.isascii() and key.isdecimal() and int(key) >= 2:
        return int(key)
    return None


def _check_valley_express(table: Mapping[str, int] | None) -> list[str]:
    where = "options, 'valley_express'"
    if table is None:
        return []
    if not table:
        return [f"{where}: the table is empty; leave it out to use n → n²"]
    problems: list[str] = []
    seen: dict[int, str] = {}
    for key, points in table.items():
        size = _settlements_key(key)
        if size is None:
            shown = repr(key) if len(key) <= 12 else repr(key[:12] + "…")
            problems.append(f"{where}: {shown} is not a number of settlements (2 or more)")
        elif size in seen:  # the points would depend on the keys' order in the file
            problems.append(f"{where}: {seen[size]!r} and {key!r} are both {size} settlements")
        else:
            seen[size] = key
            if points < 0:
                problems.append(f"{where}: {key} settlements cannot score {points}")
    return problems


def _check_sheet(sheet: Sheet) -> list[str]:
    where = f"player {sheet.name!r}"
    if not sheet.cells:
        return [f"{where}: the sheet has no cells; list every hex of the sheet"]
    if len(sheet.cells) > MAX_SHEET_HEXES:
        return [
            f"{where}: {len(sheet.cells)} hexes listed; a printed sheet has 30, and at most "
            f"{MAX_SHEET_HEXES} are read"
        ]
    problems = []
    # The hex index scoring reuses; fewer entries than cells means a hex is listed twice.
    duplicates = len(sheet.by_hex) != len(sheet.cells)
    seen: set[Hex] = set()
    for cell in sheet.cells:
        found = _check_cell(cell)
        if duplicates:
            if cell.hex in seen:
                found.insert(0, "listed twice; each hex of the sheet appears once")
            seen.add(cell.hex)
        problems += [f"{where}, cell {cell.hex}: {p}" for p in found]
    return problems or _check_span(sheet)


def _check_span(sheet: Sheet) -> list[str]:
    """A printed sheet of 30 hexes spans fewer than 30 hexes in every direction; a hex far
    from the others is a typo in its coordinates (and would stretch the drawn sheet off any
    screen). Partial sheets (the rulebook's examples) may leave gaps, so only the span counts."""
    qs = [h.q for h in sheet.by_hex]  # every tap parses the table: one pass per axis
    rs = [h.r for h in sheet.by_hex]
    ss = [q + r for q, r in zip(qs, rs, strict=True)]  # s = -q - r spans as q + r does
    span = max(max(qs) - min(qs), max(rs) - min(rs), max(ss) - min(ss))
    if span <= MAX_SHEET_SPAN:
        return []
    return [
        f"player {sheet.name!r}: the sheet's hexes lie {span} hexes apart; a printed sheet "
        f"spans at most {MAX_SHEET_SPAN}: a coordinate is mistyped"
    ]


def _check_cell(cell: Cell) -> list[str]:
    if cell.mountain:
        if cell.area is not None or cell.item is not None or cell.sides is not None:
            return ["a mountain hex has no area and nothing can be drawn on it"]
        return []
    problems = []
    if cell.area is None or not cell.area.strip():
        problems.append("a hex that is not a mountain needs its printed colour 'area'")
    if cell.item == "rail":
        if cell.sides is None:
            problems.append("a rail needs 'sides': the two sides (0..5) its track joins")
        else:
            problems += _check_track(*cell.sides)
    elif cell.sides is not None:
        problems.append(f"'sides' belongs to a rail, not to {cell.item or 'an empty hex'}")
    return problems


def _check_track(a: int, b: int) -> list[str]:
    bad = [s for s in (a, b) if not 0 <= s <= 5]
    if bad:
        return [f"rail side {bad[0]} is not a direction index 0..5"]
    if side_gap(a, b) < 2:
        what = "the same side" if a == b else "neighbouring sides"
        return [
            f"rail sides {a} and {b} are {what}: a track joins opposite sides (straight) "
            "or two sides with one side between them (curve)"
        ]
    return []


def dump(table: Table) -> dict[str, Any]:
    """The board-file document of ``table`` (round-trips through :func:`parse`)."""
    return table.model_dump(mode="json", exclude_unset=True) | {"game": NAME}


# --- structures on one sheet ------------------------------------------------------------------


class Run(NamedTuple):
    """A maximal chain of joined railway hexes, in track order, and the hexes its ends reach.

    A named tuple rather than a frozen dataclass: every sheet builds several, and a tuple is
    built several times faster."""

    hexes: tuple[Hex, ...]
    reaches: tuple[Hex, ...]  # one per open end; empty for a closed loop
    ends: tuple[tuple[Hex, int], ...] = ()  # the rail hex and side of each, as ``reaches``


@dataclass(frozen=True)
class Valley:
    """The structures on one sheet that scoring needs (rulebook A, B, F)."""

    sheet: Sheet
    herds: list[frozenset[Hex]]
    settlements: list[frozenset[Hex]]
    settlement_of: dict[Hex, int]
    runs: list[Run]
    #: Runs whose ends reach two different settlements, with those settlements' indices.
    links: list[tuple[Run, tuple[int, int]]]

    @classmethod
    def of(cls, sheet: Sheet) -> Valley:
        houses, sheep, rails = [], [], {}
        for h, c in sheet.by_hex.items():  # one pass: this runs for every sheet of every table
            item = c.item
            if item == "house":
                houses.append(h)
            elif item == "sheep":
                sheep.append(h)
            elif item == "rail" and c.sides:
                rails[h] = c.sides
        settlements = components(houses)
        settlement_of = {h: i for i, s in enumerate(settlements) for h in s}
        herds = components(sheep)
        runs = track_runs(rails)
        links = []
        for run in runs:
            joined = {settlement_of[h] for h in run.reaches if h in settlement_of}
            if len(joined) == 2:
                a, b = sorted(joined)
                links.append((run, (a, b)))
        return cls(sheet, herds, settlements, settlement_of, runs, links)

    def houses(self) -> list[Hex]:
        return sorted(self.settlement_of)

    def linked_groups(self, min_length: int = 1) -> list[set[int]]:
        """Settlements joined by track runs of at least ``min_length`` hexes (transitively)."""
        parent = list(range(len(self.settlements)))

        def root(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        for run, (a, b) in self.links:
            if len(run.hexes) >= min_length:
                parent[root(b)] = root(a)
        groups: dict[int, set[int]] = {}
        for i in range(len(self.settlements)):
            groups.setdefault(root(i), set()).add(i)
        return sorted(groups.values(), key=min)


def track_runs(rails: Mapping[Hex, tuple[int, int]]) -> list[Run]:
    """Split railway hexes into runs: neighbours join only through a side both tracks use."""
    joined: dict[Hex, list[Hex]] = {}
    reaches: dict[Hex, list[Hex]] = {}
    ends: dict[Hex, list[tuple[Hex, int]]] = {}
    for h, sides in rails.items():
        around = neighbors(h)
        joined[h] = through = []
        reaches[h] = out = []
        ends[h] = open_sides = []
        for side in sides:
            n = around[side]
            other = rails.get(n)
            if other is not None and opposite(side) in other:
                through.append(n)
            else:
                out.append(n)
                open_sides.append((h, side))
    seen: set[Hex] = set()
    runs = []
    for start in sorted(rails):
        if start in seen:
            continue
        if not joined[start]:  # a lone rail: the common case on a finished sheet
            runs.append(Run((start,), tuple(reaches[start]), tuple(ends[start])))
            continue
        head = _walk(joined, start)[-1]  # one end of the chain (or, on a loop, any hex)
        path = _walk(joined, head)
        seen.update(path)
        if path[-1] < path[0]:
            path.reverse()  # a stable direction, for evidence and tests
        first, last = path[0], path[-1]
        runs.append(
            Run(tuple(path), tuple(reaches[first] + reaches[last]), tuple(ends[first] + ends[last]))
        )
    return runs


def _walk(joined: Mapping[Hex, list[Hex]], start: Hex) -> list[Hex]:
    """Follow the track from ``start`` in one direction until it ends or closes a loop."""
    path, came_from, here = [start], None, start
    while True:
        for nxt in joined[here]:
            if nxt != came_from:
                break
        else:
            return path
        if nxt == start:
            return path
        came_from, here = here, nxt
        path.append(nxt)


# --- A and B: the house–sheep pairing -------------------------------------------------------

VIA_COST = {"adjacent": 0, "herd": 1, "settlement": 2, "railway": 3}


def allowed_pairs(valley: Valley, kids: bool = False) -> dict[tuple[Hex, Hex], str]:
    """Every (sheep, house) that rule A allows, with the simplest reason it is allowed.

    Standard rules: a sheep may pair with a house adjacent to it; with any house another sheep
    of its herd may pair with; with any house of the settlement of such a house; and through a
    railway with any house of a settlement linked to one of those settlements. These rules close
    over each other, so a herd may pair with every house of every linked group of settlements
    that touches the herd. Kids variant: adjacency only.
    """
    houses = valley.settlement_of
    allowed: dict[tuple[Hex, Hex], str] = {}
    group_of = {s: g for g in valley.linked_groups() for s in g}
    for herd in valley.herds:
        touching = {n for sheep in herd for n in neighbors(sheep) if n in houses}
        touched = {houses[h] for h in touching}
        reachable = {s for t in touched for s in group_of[t]}
        for sheep in herd:  # order does not matter: the solver sorts its rows
            adjacent = {n for n in neighbors(sheep) if n in houses}
            for house in adjacent:
                allowed[sheep, house] = "adjacent"
            if kids:
                continue
            for s in reachable:
                for house in valley.settlements[s]:
                    if (sheep, house) in allowed:
                        continue
                    if house in touching:
                        allowed[sheep, house] = "herd"
                    elif s in touched:
                        allowed[sheep, house] = "settlement"
                    else:
                        allowed[sheep, house] = "railway"
    return allowed


def pair_path(valley: Valley, sheep: Hex, house: Hex, via: str) -> list[Hex]:
    """The way rule A goes from a sheep to the house it pairs with, hex by hex, for the
    explanation to draw: through the sheep of its herd to a house beside one of them, then
    (``settlement``) from house to house of that settlement, or (``railway``) along the
    track runs that link settlements of the same group, entering and leaving each at the
    house its end reaches. A shortest such way (steps to neighbouring hexes only), so a
    player can follow it on the paper; only the hexes ``via`` allows are used.
    ``[sheep, house]`` for an adjacent pair."""
    if via == "adjacent":
        return [sheep, house]
    houses = valley.settlement_of
    target = houses[house]
    group = next(g for g in valley.linked_groups() if target in g)
    allowed = {"herd": set(), "settlement": {target}, "railway": group}[via]
    herd = next(h for h in valley.herds if sheep in h)
    steps: dict[Hex, list[Hex]] = {}

    def arc(a: Hex, b: Hex) -> None:
        steps.setdefault(a, []).append(b)

    def join(a: Hex, b: Hex) -> None:
        arc(a, b)
        arc(b, a)

    for mate in herd:
        for n in neighbors(mate):
            if n in herd:
                arc(mate, n)  # both ways: from each sheep of the herd in turn
            elif n == house or houses.get(n) in allowed:
                arc(mate, n)  # one way: once among the houses, the way stays there
    for h, s in houses.items():
        if s in allowed:
            for n in neighbors(h):
                if houses.get(n) == s:
                    join(h, n)
    if via == "railway":
        for run, (a, b) in valley.links:
            if a in group and b in group:
                for x, y in pairwise(run.hexes):
                    join(x, y)
                for (end, _side), reached in zip(run.ends, run.reaches, strict=True):
                    if houses.get(reached) in group:
                        join(end, reached)
    return _shortest(steps, sheep, house) or [sheep, house]


def _shortest(steps: Mapping[Hex, list[Hex]], start: Hex, goal: Hex) -> list[Hex]:
    """A shortest path in ``steps`` (breadth first, neighbours in a fixed order)."""
    came: dict[Hex, Hex | None] = {start: None}
    frontier = [start]
    while frontier and goal not in came:
        ahead = []
        for h in frontier:
            for n in sorted(steps.get(h, [])):
                if n not in came:
                    came[n] = h
                    ahead.append(n)
        frontier = ahead
    if goal not in came:
        return []
    path = [goal]
    while (back := came[path[-1]]) is not None:
        path.append(back)
    return path[::-1]


def pair_houses(valley: Valley, kids: bool = False) -> tuple[list[tuple[Hex, Hex, str]], list[Hex]]:
    """A maximum matching of houses and sheep: ``(pairs as (house, sheep, via), unpaired)``.

    The matching is solved by scipy's assignment solver: every allowed pair costs its reason's
    rank (adjacent 0 … railway 3) and every forbidden pair more than all allowed pairs together
    can, so the optimum first maximises the number of allowed pairs (a maximum bipartite
    matching) and then picks, among the maximum matchings, the one with the plainest reasons.
    """
    houses = valley.houses()
    allowed = allowed_pairs(valley, kids)
    sheep = sorted({s for s, _ in allowed})
    if not sheep:
        return [], houses
    forbidden = 3 * min(len(sheep), len(houses)) + 1
    cost = np.full((len(sheep), len(houses)), forbidden, dtype=np.int64)
    column = {h: j for j, h in enumerate(houses)}
    row = {s: i for i, s in enumerate(sheep)}
    for (s, h), via in allowed.items():
        cost[row[s], column[h]] = VIA_COST[via]
    rows, cols = linear_sum_assignment(cost)
    pairs = [
        (houses[j], sheep[i], allowed[sheep[i], houses[j]])
        for i, j in zip(rows.tolist(), cols.tolist(), strict=True)
        if (sheep[i], houses[j]) in allowed
    ]
    paired = {h for h, _, _ in pairs}
    return sorted(pairs), [h for h in houses if h not in paired]


# --- F: Valley Express ------------------------------------------------------------------------


def express_points(options: Options, settlements: int) -> int:
    """Points of a connected group by its size: the table's entry, or the largest one below.

    The board's table defaults to ``n → n²`` (the rulebook's one example is 3 → 9). For more
    settlements than the table lists, the largest entry applies.
    """
    if options.valley_express is None:
        return settlements * settlements
    table = {int(k): v for k, v in options.valley_express.items()}
    sizes = [k for k in table if k <= settlements]
    return table[max(sizes)] if sizes else 0


def valley_express(valley: Valley, options: Options) -> list[dict[str, Any]]:
    """Groups of ≥ 2 settlements joined by track runs of at least two railway hexes."""
    groups = []
    for group in valley.linked_groups(min_length=2):
        if len(group) < 2:
            continue
        runs = [
            _hexes(run.hexes) for run, (a, _) in valley.links if len(run.hexes) >= 2 and a in group
        ]
        groups.append(
            {
                "settlements": [_hexes(sorted(valley.settlements[s])) for s in sorted(group)],
                "runs": runs,
                "points": express_points(options, len(group)),
            }
        )
    return groups


# --- the whole table --------------------------------------------------------------------------


def _hexes(hexes: Iterable[Hex]) -> list[list[int]]:
    return [[h.q, h.r] for h in hexes]


@dataclass(frozen=True)
class Tallies:
    """Counts that the residents ranking and the tie-breaks compare."""

    houses: int
    sunflowers: int  # super sunflowers included, as everywhere in scoring
    super_sunflowers: int

    @property
    def residents(self) -> int:
        """2 per house (the starting house included) + 1 per super sunflower."""
        return 2 * self.houses + self.super_sunflowers

    @classmethod
    def of(cls, sheet: Sheet) -> Tallies:
        items = [c.item for c in sheet.cells]
        supers = items.count("super-sunflower")
        return cls(items.count("house"), items.count("sunflower") + supers, supers)


def area_counts(sheet: Sheet) -> dict[str, int]:
    """Sunflowers (super ones included) in each colour area of the sheet."""
    counts = {c.area: 0 for c in sheet.cells if c.area is not None}
    for c in sheet.cells:
        if c.item in SUNFLOWERS and c.area is not None:
            counts[c.area] += 1
    return counts


def area_winners(counts: Mapping[str, Mapping[str, int]]) -> dict[str, str | None]:
    """C: per area, the player with strictly more sunflowers than every other player.

    A tie at the top scores nobody; a player alone at the table needs at least one sunflower.
    ``counts`` maps player → area → sunflowers.
    """
    areas = sorted({a for per_player in counts.values() for a in per_player})
    winners: dict[str, str | None] = {}
    for area in areas:
        ranked = sorted(((c.get(area, 0), p) for p, c in counts.items()), reverse=True)
        top = ranked[0][0]
        runner_up = ranked[1][0] if len(ranked) > 1 else 0
        winners[area] = ranked[0][1] if top > runner_up else None
    return winners


def mountain_points(sheet: Sheet) -> list[dict[str, Any]]:
    """D: each mountain scores the adjacent hexes holding a sunflower or super sunflower."""
    by_hex = sheet.by_hex
    result = []
    for h, c in by_hex.items():
        if c.mountain:
            around = [
                [n.q, n.r]
                for n in neighbors(h)
                if (other := by_hex.get(n)) is not None and other.item in SUNFLOWERS
            ]
            result.append({"hex": [c.q, c.r], "points": len(around), "sunflowers": around})
    return result


def resident_places(tallies: Mapping[str, Tallies]) -> dict[str, dict[str, Any]]:
    """E: +5 for the most residents, +3 for the second most.

    Ties are broken by most houses, then most sunflowers; players still tied get nothing for
    that place, and places count distinct results, so the next player takes the next place.
    ``tie_voids`` says a place that scores (first or second) was lost to such a tie.
    """

    def key(t: Tallies) -> tuple[int, int, int]:
        return (t.residents, t.houses, t.sunflowers)

    distinct = sorted({key(t) for t in tallies.values()}, reverse=True)
    result = {}
    for name, t in tallies.items():
        place = distinct.index(key(t)) + 1
        rivals = [o for n, o in tallies.items() if n != name and o.residents == t.residents]
        tied = any(key(o) == key(t) for o in rivals)
        pays = place <= len(RESIDENT_PLACES)
        points = RESIDENT_PLACES[place - 1] if pays and not tied else 0
        result[name] = {
            "place": place,
            "points": points,
            "decided_by": _decided_by(t, rivals),
            "tie_voids": pays and tied,
        }
    return result


def _decided_by(t: Tallies, rivals: Sequence[Tallies]) -> str | None:
    """Which residents tie-break separated ``t`` from players with as many residents."""
    steps = ["houses", "sunflowers", "still tied"]
    depth = -1
    for o in rivals:
        if o.houses != t.houses:
            depth = max(depth, 0)
        else:
            depth = max(depth, 1 if o.sunflowers != t.sunflowers else 2)
    return steps[depth] if depth >= 0 else None


def score(table: Table) -> Result:
    """Score a validated table: categories A–F per player, total G, ranks and tie-breaks."""
    sheets = table.players
    tallies = {s.name: Tallies.of(s) for s in sheets}
    counts = {s.name: area_counts(s) for s in sheets}
    winners_by_area = area_winners(counts)
    residents = resident_places(tallies)
    scores = []
    for sheet in sheets:
        taken = {a for a, w in winners_by_area.items() if w == sheet.name}
        areas = {a: {"sunflowers": n, "taken": a in taken} for a, n in counts[sheet.name].items()}
        resident = {**_tally_details(sheet, tallies[sheet.name]), **residents[sheet.name]}
        scores.append(_score_sheet(sheet, table.options, areas, resident))
    tiebreaks = [
        TieBreak("houses", {n: t.houses for n, t in tallies.items()}),
        TieBreak("sunflowers", {n: t.sunflowers for n, t in tallies.items()}),
        TieBreak("residents", {n: t.residents for n, t in tallies.items()}),
    ]
    extra = {
        "variant": table.options.variant,  # kids pair fewer sheep: the recap says so
        "areas": {
            a: {"counts": {p: counts[p].get(a, 0) for p in counts}, "winner": w}
            for a, w in winners_by_area.items()
        },
        "residents": sorted(
            ({"name": n, **_tally_details(None, t), **residents[n]} for n, t in tallies.items()),
            key=lambda r: (r["place"], r["name"]),
        ),
    }
    return rank(NAME, scores, tiebreaks, warnings(table, tallies), extra)


def _tally_details(sheet: Sheet | None, t: Tallies) -> dict[str, Any]:
    found: dict[str, int | None] = {"count": t.residents, "houses": t.houses}
    found["sunflowers"] = t.sunflowers
    found["super_sunflowers"] = t.super_sunflowers
    if sheet is not None:
        found["tally"] = sheet.residents
    return found


def _score_sheet(
    sheet: Sheet, options: Options, areas: dict[str, Any], residents: dict[str, Any]
) -> PlayerScore:
    """One sheet's categories; ``areas`` and ``residents`` were decided across the table."""
    valley = Valley.of(sheet)
    pairs, unpaired = pair_houses(valley, options.variant == "kids")
    mountains = mountain_points(sheet)
    express = valley_express(valley, options)
    categories = {
        "houses_with_sheep": HOUSE_WITH_SHEEP * len(pairs),
        "houses_without_sheep": HOUSE_WITHOUT_SHEEP * len(unpaired),
        "sunflower_majority": AREA_MAJORITY * sum(a["taken"] for a in areas.values()),
        "mountains": sum(m["points"] for m in mountains),
        "residents": residents["points"],
        "valley_express": sum(g["points"] for g in express),
    }
    details = {
        "pairs": [_pair(valley, h, s, via) for h, s, via in pairs],
        "unpaired_houses": _hexes(unpaired),
        "herds": [_hexes(sorted(h)) for h in valley.herds],
        "settlements": [_hexes(sorted(s)) for s in valley.settlements],
        "links": _links(valley),
        "areas": areas,
        "mountains": mountains,
        "residents": residents,
        "valley_express": express,
        "loose_ends": loose_ends(valley),
    }
    return PlayerScore(sheet.name, categories, details)


def loose_ends(valley: Valley) -> list[list[int]]:
    """Track ends that lead nowhere: a run's open end (no rail there takes the track on)
    whose hex across is no house (rule "Track run": an end reaches that hex's settlement);
    by rail hex, each rail's sides in its own order."""
    found = [
        (h, side)
        for run in valley.runs
        for (h, side), across in zip(run.ends, run.reaches, strict=True)
        if across not in valley.settlement_of
    ]
    return [[h.q, h.r, side] for h, side in sorted(found, key=lambda end: end[0])]


def _pair(valley: Valley, house: Hex, sheep: Hex, via: str) -> dict[str, Any]:
    pair: dict[str, Any] = {"house": [house.q, house.r], "sheep": [sheep.q, sheep.r], "via": via}
    if via != "adjacent":
        path = pair_path(valley, sheep, house, via)
        pair["path"] = _hexes(path)
        pair["gate"] = next([h.q, h.r] for h in path if h in valley.settlement_of)
    return pair


def pair_route(pair: Mapping[str, Any]) -> list[tuple[int, int]]:
    """The hexes an explanation draws a pair through (a ``details["pairs"]`` entry): its
    ``path``, or the sheep and the house of an adjacent pair."""
    return [(q, r) for q, r in pair.get("path") or [pair["sheep"], pair["house"]]]


def _links(valley: Valley) -> list[dict[str, Any]]:
    return [{"run": _hexes(run.hexes), "settlements": list(ends)} for run, ends in valley.links]


def warnings(table: Table, tallies: Mapping[str, Tallies]) -> list[str]:
    """Residents tallies that differ from the drawing, empty hexes, unequal sheet layouts."""
    found = []
    for sheet in table.players:
        t = tallies[sheet.name]
        if sheet.residents is not None and sheet.residents != t.residents:
            found.append(
                f"{sheet.name}: the residents tally on the sheet says {sheet.residents}, the "
                f"drawing gives {t.residents} (2 per house + 1 per super sunflower)"
            )
        empty = sum(1 for c in sheet.cells if not c.mountain and c.item is None)
        if empty:
            found.append(
                f"{sheet.name}: {counted(empty, 'empty hex', 'empty hexes')}; the game ends "
                "when no sheet has an empty hex, so this sheet is scored as it stands"
            )
    first = table.players[0]
    found += _shape_warnings(first)
    found += [f"{s.name}: no house on the sheet; every sheet starts with one" for s in
              table.players if not tallies[s.name].houses]  # fmt: skip
    for sheet in table.players[1:]:
        differing = _layout_differences(first, sheet)
        if differing:
            found.append(
                f"{sheet.name}'s sheet layout differs from {first.name}'s ({differing}); all "
                "players should use sheets with the same letter"
            )
    return found


def _shape_warnings(sheet: Sheet) -> list[str]:
    """A printed sheet has 5 colour areas of 5 hexes and 5 mountains (rules digest)."""
    sizes = sorted(len(v) for k, v in sheet.layout.items() if k != "mountains")
    mountains = len(sheet.layout.get("mountains", ()))
    if sizes == [AREA_SIZE] * AREAS and mountains == AREAS:
        return []
    return [
        f"the sheet layout has {_areas(sizes)} and {_mountains(mountains)}; printed sheets have "
        f"{AREAS} areas of {AREA_SIZE} hexes and {AREAS} mountains"
    ]


def _areas(sizes: Sequence[int]) -> str:
    """ "1 area (size 4)", "4 areas (sizes 4/5/5/6)", "no colour areas" (it said "1 area(s)
    of 4 hexes" and "0 area(s) of no hexes")."""
    if not sizes:
        return "no colour areas"
    listed = "/".join(map(str, sizes))
    return counted(len(sizes), f"area (size {listed})", f"areas (sizes {listed})")


def _mountains(n: int) -> str:
    if n == 0:
        return "no mountains"
    return counted(n, "mountain", "mountains")


def _layout_differences(a: Sheet, b: Sheet) -> str:
    if a.layout_signature == b.layout_signature:
        return ""
    la, lb = a.layout, b.layout
    return ", ".join(k for k in sorted(set(la) | set(lb)) if la.get(k) != lb.get(k))


# --- layouts for editors ----------------------------------------------------------------------


def example_layout() -> dict[str, Any]:
    """The bundled example sheet layout (5 areas of 5 hexes and 5 mountains; not a printed
    letter: the real layouts are not published, so tables paint or photograph their own)."""
    text = resources.files("scorepad.data").joinpath("sunflower-valley-layout-example.json")
    layout: dict[str, Any] = json.loads(text.read_text(encoding="utf-8"))
    return layout


def blank_sheet(layout: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Board-file cells for an empty sheet of ``layout``."""
    cells = []
    for c in layout["cells"]:
        cell = {"q": c["q"], "r": c["r"]}
        cell.update({"mountain": True} if c.get("mountain") else {"area": c["area"]})
        cells.append(cell)
    return cells


class Layout(Model):
    """A sheet layout: which hexes belong to which colour area, which are mountains."""

    name: Annotated[StrictStr, Field(min_length=1, max_length=80)]
    cells: Annotated[tuple[Cell, ...], LAX]


def parse_layout(doc: Any) -> Layout:
    """Validate a layout document ``{"name": ..., "cells": [...]}``: no items drawn on it."""
    layout = validate(Layout, doc, root="layout")
    if not layout.cells:
        raise BoardError(["the layout has no hexes yet: paint every hex of the sheet"])
    sheet = Sheet(name=layout.name, cells=layout.cells)
    problems = [p.replace(f"player {layout.name!r}, ", "") for p in _check_sheet(sheet)]
    problems += [f"cell {c.hex}: a layout has nothing drawn on it" for c in layout.cells if c.item]
    if problems:
        raise BoardError(problems)
    return layout


def notes(result: Result) -> list[str]:
    """Text-report lines: who took each area, and the residents ranking."""
    lines = []
    for area, found in result.extra["areas"].items():
        counts = ", ".join(f"{p} {n}" for p, n in found["counts"].items())
        lines.append(f"Area {area}: {found['winner'] or 'nobody'} ({counts})")
    for r in result.extra["residents"]:
        how = f", {r['decided_by']}" if r["decided_by"] else ""
        lines.append(
            f"Residents: {r['name']} {r['count']}, place {r['place']}{how}: +{r['points']}"
        )
    return lines


GAME = Game(
    name=NAME,
    title=TITLE,
    categories=CATEGORIES,
    parse=parse,
    dump=dump,
    score=score,
    notes=notes,
)
