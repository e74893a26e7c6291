"""Benchmark: score random 5-player end-of-game Sunflower Valley tables.

Prints mean and p99 per table for scoring (and, separately, for validating the board file),
as CPU time of this process (so other load on the machine does not inflate the figures) and
as wall-clock time.
Target (issue 2): scoring mean under 1 ms, p99 under 2 ms per table on one core.

    .venv/bin/python benchmarks/bench_sunflower_valley.py [TABLES]
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from typing import Any

from scorepad.games import sunflower_valley as sv

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


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    rng = random.Random(2026)
    docs = [random_table(rng) for _ in range(count)]
    figures: dict[str, list[float]] = {"score": [], "parse+validate": [], "score (wall)": []}
    for doc in docs:
        c0 = time.process_time()
        table = sv.parse(doc)
        c1, w1 = time.process_time(), time.perf_counter()
        sv.score(table)
        c2, w2 = time.process_time(), time.perf_counter()
        figures["parse+validate"].append((c1 - c0) * 1000)
        figures["score"].append((c2 - c1) * 1000)
        figures["score (wall)"].append((w2 - w1) * 1000)
    print(f"Sunflower Valley: {count} random 5-player tables, 25 hexes + 5 mountains each")
    for label, values in figures.items():
        print(
            f"  {label:15} mean {statistics.fmean(values):.3f} ms  "
            f"p50 {percentile(values, 50):.3f} ms  p99 {percentile(values, 99):.3f} ms per table"
        )


if __name__ == "__main__":
    main()
