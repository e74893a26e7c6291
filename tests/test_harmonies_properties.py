"""Harmonies properties over random legal tables (hypothesis): round trips, totals, cube checks."""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from scorepad.games import harmonies as hm

STACKS = [*hm.LEGAL_STACKS, ()]
#: Few kinds of stack and cards made of them only: cards compete for the same cube hexes.
CROWDED_STACKS = [("blue",), ("green",), ("brown", "red"), ("yellow",)]
CROWDED_CARDS = [5, 6, 7, 8, 9, 10, 27, 30, 31]


@st.composite
def tables(draw: st.DrawFn) -> dict[str, Any]:
    """A legal table: random stacks, distinct cards, cubes on random non-empty hexes."""
    side = draw(st.sampled_from(["A", "B"]))
    count = draw(st.integers(1, 4))
    crowded = draw(st.booleans())
    stack_kinds = CROWDED_STACKS if crowded else STACKS
    deck = CROWDED_CARDS[:] if crowded else sorted(hm.ANIMAL_CARDS)
    cards = draw(st.permutations(deck)) + [c for c in hm.ANIMAL_CARDS if c not in deck]
    spirits = draw(st.permutations(sorted(hm.SPIRIT_CARDS)))
    players = []
    for i in range(count):
        hexes = hm.board_hexes(side)
        n = len(hexes)
        stacks = draw(st.lists(st.sampled_from(stack_kinds), min_size=n, max_size=n))
        marks = draw(st.lists(st.booleans(), min_size=n, max_size=n))
        cubes = [bool(s) and mark for s, mark in zip(stacks, marks, strict=True)]
        mine = cards[i * 4 : i * 4 + draw(st.integers(0, 4))]
        animals = [
            {"card": c, "cubes": draw(st.integers(0, len(hm.ANIMAL_CARDS[c].track)))} for c in mine
        ]
        player: dict[str, Any] = {
            "name": f"P{i}",
            "cells": [
                {"q": h.q, "r": h.r, "stack": list(s), **({"cube": True} if cube else {})}
                for h, s, cube in zip(hexes, stacks, cubes, strict=True)
            ],
            "animals": animals,
        }
        if draw(st.booleans()):
            player["spirit"] = {"card": spirits[i], "placed": draw(st.booleans())}
        players.append(player)
    return {"game": "harmonies", "options": {"side": side}, "players": players}


def max_matching(wants: list[list[tuple[int, int]]]) -> int:
    """Kuhn's augmenting paths: how many claimed cubes can sit on distinct wanted hexes."""
    owner: dict[tuple[int, int], int] = {}

    def place(i: int, seen: set[tuple[int, int]]) -> bool:
        for h in wants[i]:
            if h not in seen:
                seen.add(h)
                if h not in owner or place(owner[h], seen):
                    owner[h] = i
                    return True
        return False

    return sum(place(i, set()) for i in range(len(wants)))


@settings(max_examples=40, deadline=None)
@given(tables())
def test_dump_round_trips(doc: dict[str, Any]) -> None:
    table = hm.parse(doc)
    assert hm.parse(hm.dump(table)) == table


@settings(max_examples=40, deadline=None)
@given(tables())
def test_every_player_has_every_category_and_the_total(doc: dict[str, Any]) -> None:
    result = hm.score(hm.parse(doc))
    for p in result.players:
        assert list(p.categories) == list(hm.CATEGORIES)
        assert all(v >= 0 for v in p.categories.values())
        assert p.total == sum(p.categories.values())
        assert p.rank == 1 + sum(o.total > p.total for o in result.players)


@settings(max_examples=60, deadline=None)
@given(tables())
def test_cube_check_is_a_maximum_matching(doc: dict[str, Any]) -> None:
    result = hm.score(hm.parse(doc))
    for player, p in zip(doc["players"], result.players, strict=True):
        cubes = {(c["q"], c["r"]) for c in player["cells"] if c.get("cube")}
        wants = [
            [tuple(h) for h in a["matching_hexes"] if tuple(h) in cubes]
            for a in p.details["animals"]
            for _ in range(a["cubes"])
        ]
        assigned = [tuple(h) for a in p.details["animals"] for h in a["assigned_cubes"]]
        assert len(assigned) == len(set(assigned)) == max_matching(wants)
        for a in p.details["animals"]:
            assert all(h in a["matching_hexes"] for h in a["assigned_cubes"])
            if a["supported"]:
                assert len(a["assigned_cubes"]) == a["cubes"]
        claimed = sum(a["cubes"] for a in p.details["animals"])
        short = any(f"player {p.name!r}, animal card" in w for w in result.warnings)
        assert short == (len(assigned) < claimed)


@settings(max_examples=40, deadline=None)
@given(tables())
def test_water_evidence_is_consistent(doc: dict[str, Any]) -> None:
    result = hm.score(hm.parse(doc))
    for p in result.players:
        if doc["options"]["side"] == "A":
            longest = p.details["longest_river"]
            length = longest["length"] if longest else 0
            assert length == max((r["length"] for r in p.details["rivers"]), default=0)
            assert p.categories["water"] == hm.river_points(length)
            path = longest["path"] if longest else []
            assert len(path) == length
            for a, b in itertools.pairwise(path):  # each step crosses one side
                assert abs(a[0] - b[0]) + abs(a[1] - b[1]) + abs(a[0] + a[1] - b[0] - b[1]) == 2
        else:
            assert p.categories["water"] == 5 * len(p.details["islands"])
