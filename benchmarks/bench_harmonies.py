"""Benchmark: scoring random legal 4-player Harmonies tables with animal and spirit cards.

    .venv/bin/python benchmarks/bench_harmonies.py [TABLES] [SEED]

Each board holds random legal stacks (a few hexes left empty), 2 to 5 animal cards with
cubes on hexes that match their patterns (sometimes one cube more than the board supports,
so the shortfall report runs too) and a spirit card. Prints mean and 99th percentile per
table for ``score`` alone and for ``parse`` + ``score`` (target: mean under 2 ms).
"""

from __future__ import annotations

import random
import sys
from typing import Any

from scorepad.games import harmonies as hm

from timing import cpu_ms, report, wall_ms

SIDE_WEIGHTS = {"A": 3, "B": 1}


def random_board(rng: random.Random, side: str) -> dict[Any, tuple[str, ...]]:
    """Random legal stacks on every hex of a side, about one hex in twelve empty."""
    stacks: list[tuple[str, ...]] = [*hm.LEGAL_STACKS, ()]
    weights = [6, 6, 3, 2, 1, 3, 2, 1, 1, 1, 1, 2, 2, 1, 1.5]
    return {h: rng.choices(stacks, weights)[0] for h in hm.board_hexes(side)}


def random_player(
    rng: random.Random, name: str, side: str, cards: list[int], spirit: int
) -> dict[str, Any]:
    stacks = random_board(rng, side)
    taken: set[Any] = set()
    animals = []
    for card_id in cards:
        card = hm.ANIMAL_CARDS[card_id]
        free = [h for h in hm.pattern_hexes(stacks, card) if h not in taken]
        cubes = min(len(free), len(card.track))
        taken.update(free[:cubes])
        if rng.random() < 0.1 and cubes < len(card.track):
            cubes += 1  # a claim the board cannot support
        animals.append({"card": card_id, "cubes": cubes})
    placed = rng.random() < 0.5
    if placed:
        spare = [h for h, s in stacks.items() if s and h not in taken]
        taken.update(spare[:1])
    return {
        "name": name,
        "cells": [
            {"q": h.q, "r": h.r, "stack": list(s), **({"cube": True} if h in taken else {})}
            for h, s in stacks.items()
        ],
        "animals": animals,
        "spirit": {"card": spirit, "placed": placed},
    }


def random_table(rng: random.Random, players: int = 4) -> dict[str, Any]:
    side = rng.choices(list(SIDE_WEIGHTS), list(SIDE_WEIGHTS.values()))[0]
    deck = rng.sample(sorted(hm.ANIMAL_CARDS), 32)
    spirits = rng.sample(sorted(hm.SPIRIT_CARDS), players)
    doc_players = []
    for i in range(players):
        cards = [deck.pop() for _ in range(rng.randint(2, 5))]
        doc_players.append(random_player(rng, f"Player {i + 1}", side, cards, spirits[i]))
    return {"game": "harmonies", "options": {"side": side}, "players": doc_players}


def main(argv: list[str]) -> None:
    count = int(argv[0]) if argv else 10_000
    rng = random.Random(int(argv[1]) if len(argv) > 1 else 2024)
    docs = [random_table(rng) for _ in range(count)]
    tables = [hm.parse(d) for d in docs]
    print(f"Harmonies: {count} random legal 4-player tables with animal and spirit cards")
    report("score", cpu_ms(hm.score, tables))
    report("parse + score", cpu_ms(lambda d: hm.score(hm.parse(d)), docs))
    report("score (wall clock)", wall_ms(hm.score, tables))


if __name__ == "__main__":
    main(sys.argv[1:])
