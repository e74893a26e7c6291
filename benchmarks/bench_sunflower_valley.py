"""Benchmark: score random 5-player end-of-game Sunflower Valley tables.

Prints mean and p99 per table for scoring (and, separately, for validating the board file),
as CPU time of this process (so other load on the machine does not inflate the figures) and
as wall-clock time.
Target (issue 2): scoring mean under 1 ms, p99 under 2 ms per table on one core.

    .venv/bin/python benchmarks/bench_sunflower_valley.py [TABLES]
"""

from __future__ import annotations

import random
import sys
from typing import Any

from scorepad.games import sunflower_valley as sv

from timing import cpu_ms, report, wall_ms

ITEMS = ["house", "sheep", "sunflower", "super-sunflower", "rail"]
WEIGHTS = [3, 3, 3, 1, 3]


def random_table(rng: random.Random, players: int = 5) -> dict[str, Any]:
    layout = sv.blank_sheet(sv.example_layout())
    sheets = []
    for i in range(players):
        cells = []
        for cell in layout:
            cell = dict(cell)
            if not cell.get("mountain"):
                item = rng.choices(ITEMS, WEIGHTS)[0]
                cell["item"] = item
                if item == "rail":
                    cell["sides"] = list(rng.choice(sv.RAIL_ORIENTATIONS))
            cells.append(cell)
        sheets.append({"name": f"P{i}", "cells": cells})
    return {"game": "sunflower-valley", "players": sheets}


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    rng = random.Random(2026)
    docs = [random_table(rng) for _ in range(count)]
    tables = [sv.parse(doc) for doc in docs]
    print(f"Sunflower Valley: {count} random 5-player tables, 25 hexes + 5 mountains each")
    report("score", cpu_ms(sv.score, tables))
    report("parse+validate", cpu_ms(sv.parse, docs))
    report("score (wall clock)", wall_ms(sv.score, tables))


if __name__ == "__main__":
    main()
