"""Property test: the pairing is a maximum matching over the rulebook's pairing rules.

The allowed pairs are recomputed here independently of the engine, by applying the four rules
of category A literally until nothing changes, with railway links found by following each
track from a house; the maximum is found by brute force.
"""

from __future__ import annotations

from functools import cache
from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st

from scorepad.games import sunflower_valley as sv
from scorepad.hexgrid import Hex, hexes_within, neighbor, neighbors, opposite

REGION = list(hexes_within(Hex(0, 0), 2))  # 19 hexes
TOKENS = ["H", "S", ".", "F"] + [f"R{a}{b}" for a, b in sv.RAIL_ORIENTATIONS]


def connected(group: set[Hex], start: Hex) -> set[Hex]:
    seen, todo = {start}, [start]
    while todo:
        for n in neighbors(todo.pop()):
            if n in group and n not in seen:
                seen.add(n)
                todo.append(n)
    return seen


def follow_track(rails: dict[Hex, tuple[int, int]], house: Hex, first: Hex) -> Hex | None:
    """Ride the train from ``house`` into rail ``first``; the hex where the track ends."""
    prev, cur = house, first
    entry = opposite(next(d for d in range(6) if neighbor(prev, d) == cur))
    if entry not in rails[cur]:
        return None
    while True:
        a, b = rails[cur]
        exit_side = b if entry == a else a
        nxt = neighbor(cur, exit_side)
        if nxt in rails and opposite(exit_side) in rails[nxt]:
            prev, cur, entry = cur, nxt, opposite(exit_side)
            if cur == first:
                return None  # a loop
            continue
        return nxt


def rule_pairs(items: dict[Hex, str], rails: dict[Hex, tuple[int, int]]) -> set[tuple[Hex, Hex]]:
    houses = {h for h, t in items.items() if t == "H"}
    sheep = {h for h, t in items.items() if t == "S"}
    settlement = {h: frozenset(connected(houses, h)) for h in houses}
    herd = {s: frozenset(connected(sheep, s)) for s in sheep}
    links = {h: {settlement[h]} for h in houses}
    for h in houses:
        for n in neighbors(h):
            if n in rails:
                end = follow_track(rails, h, n)
                if end in houses:
                    links[h].add(settlement[end])
    # Linked is transitive: close the settlement graph.
    group = {s: {s} for s in settlement.values()}
    changed = True
    while changed:
        changed = False
        for h in houses:
            for other in links[h]:
                merged = group[settlement[h]] | group[other]
                for s in merged:
                    if group[s] != merged:
                        group[s] = set(merged)
                        changed = True
    allowed = {(s, h) for s in sheep for h in houses if h in neighbors(s)}
    while True:
        grown = set(allowed)
        for s, h in allowed:
            grown |= {(o, h) for o in herd[s]}  # herd
            grown |= {(s, o) for o in settlement[h]}  # settlement
        for s in sheep:  # railway: s beside a house whose settlement is linked to h's
            for n in neighbors(s):
                if n in houses:
                    grown |= {(s, h) for g in group[settlement[n]] for h in g}
        if grown == allowed:
            return allowed
        allowed = grown


def brute_force(pairs: set[tuple[Hex, Hex]]) -> int:
    sheep = sorted({s for s, _ in pairs})

    @cache
    def best(i: int, used: frozenset[Hex]) -> int:
        if i == len(sheep):
            return 0
        options = [best(i + 1, used)]
        for s, h in pairs:
            if s == sheep[i] and h not in used:
                options.append(1 + best(i + 1, used | {h}))
        return max(options)

    return best(0, frozenset())


def region_valley(
    tokens: list[str],
) -> tuple[dict[Hex, str], dict[Hex, tuple[int, int]], sv.Valley]:
    """The region drawn with ``tokens``: each hex's token, its rails' sides, its valley."""
    items = dict(zip(REGION, tokens, strict=True))
    rails = {h: (int(t[1]), int(t[2])) for h, t in items.items() if t.startswith("R")}
    cells = []
    for h, t in items.items():
        cell = {"q": h.q, "r": h.r, "area": "a"}
        if t in ("H", "S", "F"):
            cell["item"] = {"H": "house", "S": "sheep", "F": "sunflower"}[t]
        elif t.startswith("R"):
            cell |= {"item": "rail", "sides": list(rails[h])}
        cells.append(cell)
    sheet = sv.parse({"game": "sunflower-valley", "players": [{"name": "A", "cells": cells}]})
    return items, rails, sv.Valley.of(sheet.players[0])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), min_size=len(REGION), max_size=len(REGION)))
def test_pairing_is_a_maximum_matching_over_the_rules(tokens: list[str]) -> None:
    items, rails, valley = region_valley(tokens)
    expected = rule_pairs(items, rails)
    assert set(sv.allowed_pairs(valley)) == expected
    pairs, unpaired = sv.pair_houses(valley)
    assert len(pairs) == brute_force(expected)
    assert len({h for h, _, _ in pairs}) == len({s for _, s, _ in pairs}) == len(pairs)
    assert all((s, h) in expected for h, s, _ in pairs)
    assert len(pairs) + len(unpaired) == sum(t == "H" for t in tokens)


#: Herds, settlements and track, drawn thickly: pairs through a herd, a settlement or a
#: railway are common (with TOKENS nearly every pair is adjacent).
DENSE = ["S", "S", "S", "H", "H", "."] + [f"R{a}{b}" for a, b in sv.RAIL_ORIENTATIONS]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(DENSE), min_size=len(REGION), max_size=len(REGION)))
def test_each_pair_is_explained_by_a_way_rule_a_allows(tokens: list[str]) -> None:
    """The explanation's way (``pair_path``): neighbour to neighbour, from the sheep through
    sheep of its herd to a house, then only houses and track, to its house; through the
    herd alone it is the house the herd touches."""
    items, _rails, valley = region_valley(tokens)
    herd_of = {s: herd for herd in valley.herds for s in herd}
    pairs, _unpaired = sv.pair_houses(valley)
    for house, sheep, via in pairs:
        path = sv.pair_path(valley, sheep, house, via)
        assert path[0] == sheep and path[-1] == house and len(set(path)) == len(path)
        assert all(b in neighbors(a) for a, b in pairwise(path))
        walked = [items[h] for h in path]
        first_house = walked.index("H")
        assert all(h in herd_of[sheep] for h in path[:first_house])
        assert all(t == "H" or t.startswith("R") for t in walked[first_house:])
        assert via != "herd" or first_house == len(path) - 1
        assert via != "adjacent" or len(path) == 2
        # On the track, the way follows a run from one of its ends to the other.
        for a, b in pairwise(path):
            if items[a].startswith("R") and items[b].startswith("R"):
                assert any(
                    abs(run.hexes.index(a) - run.hexes.index(b)) == 1
                    for run in valley.runs
                    if a in run.hexes and b in run.hexes
                )
            elif items[b].startswith("R"):  # onto the track from a house: at a run's end
                assert any(
                    (b, s) in run.ends and a in run.reaches for run in valley.runs for s in range(6)
                )
