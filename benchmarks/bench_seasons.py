"""Benchmark: score random 4-player end-of-game Seasons tables.

Prints mean and p99 per table for scoring (and, separately, for validating the board
file), and per query for the card picker's name search.

    .venv/bin/python benchmarks/bench_seasons.py [TABLES]
"""

from __future__ import annotations

import random
import sys
from typing import Any

from scorepad.games import seasons
from scorepad.games.seasons_cards import REPLICA

from timing import cpu_ms, report, wall_ms

NAMES = ("Anna", "Boris", "Clara", "Dmitri")
QUERIES = ("ragfield", "helm rag", "lantern", "io", "chronoring", "ragfeild helm", "19", "amu")


def random_table(rng: random.Random) -> dict[str, Any]:
    # Deal two copies of every card, so no table breaks the two-copies rule.
    deck = [card_id for card_id in seasons.CARDS if card_id != REPLICA] * 2
    rng.shuffle(deck)
    players = []
    for name in NAMES:
        cards = [deck.pop() for _ in range(rng.randint(3, 12))]
        players.append(
            {
                "name": name,
                "crystals": rng.randint(0, 250),
                "cards_in_play": cards,
                "bonuses_used": rng.randint(0, 3),
                "cards_in_hand": rng.randint(0, 4),
                "energy_in_reserve": rng.randint(0, 7),
                "jewel_energy": rng.randint(0, 5) if 112 in cards else 0,
                "replicas": rng.randint(0, 2) if 210 in cards else 0,
                "ability_token": rng.choice([None, *range(1, 19)]),
            }
        )
    return {"game": "seasons", "players": players}


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    rng = random.Random(2026)
    docs = [random_table(rng) for _ in range(count)]
    tables = [seasons.parse(doc) for doc in docs]
    queries = [QUERIES[n % len(QUERIES)] for n in range(max(1, count // 10))]
    print(f"Seasons: {count} random 4-player tables, 3 to 12 cards in play each")
    report("score", cpu_ms(seasons.score, tables))
    report("parse+validate", cpu_ms(seasons.parse, docs))
    report("score (wall clock)", wall_ms(seasons.score, tables))
    report("search_cards", cpu_ms(seasons.search_cards, queries), "query")


if __name__ == "__main__":
    main()
