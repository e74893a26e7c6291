"""Benchmark: score random 4-player Spring Meadow scoring phases, and whole games (2 or 3 phases).

Prints mean and p99 per table for scoring one phase (and, separately, for validating the
board file against its layout) and per game for the ledger of three phases.

    .venv/bin/python benchmarks/bench_spring_meadow.py [TABLES]
"""

from __future__ import annotations

import random
import sys
from typing import Any

from scorepad.games import spring_meadow as sm

from timing import cpu_ms, report, wall_ms

NAMES = ("Anna", "Boris", "Clara", "Dmitri")


def random_board(rng: random.Random, layout: sm.Layout, height: int) -> list[str]:
    """Snow above ``height`` rows that are mostly covered; the layout's burrows in any state."""
    burrows = layout.burrows_for("vertical")
    rows = []
    for r in range(sm.ROWS["vertical"]):
        line = sm.LINES - r
        cover = 0.9 if line <= height else 0.2
        row = ""
        for c in range(sm.COLS["vertical"]):
            if (r, c) in burrows:
                row += rng.choice("occm#")
            else:
                row += "#" if rng.random() < cover else "."
        rows.append(row)
    return rows


def random_table(rng: random.Random, layout: sm.Layout) -> dict[str, Any]:
    players = [
        {
            "name": name,
            "orientation": "vertical",
            "layout": layout.name,
            "rows": random_board(rng, layout, rng.randint(0, 8)),
        }
        for name in NAMES
    ]
    options = {"active": rng.choice(NAMES), "layouts": [sm.dump_layout(layout)]}
    return {"game": "spring-meadow", "options": options, "players": players}


def growing_game(rng: random.Random, phases: int = 3) -> list[dict[str, Any]]:
    """A game whose boards only gain covered squares from phase to phase."""
    boards = [[["."] * 10 for _ in range(15)] for _ in NAMES]
    docs = []
    for _ in range(phases):
        for grid in boards:
            for _ in range(20):
                r, c = rng.randrange(15), rng.randrange(10)
                grid[r][c] = "#"
        players = [
            {"name": name, "orientation": "vertical", "rows": ["".join(row) for row in grid]}
            for name, grid in zip(NAMES, boards, strict=True)
        ]
        docs.append(
            {"game": "spring-meadow", "options": {"active": rng.choice(NAMES)}, "players": players}
        )
    return docs


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    rng = random.Random(2026)
    layout = sm.example_layout()
    docs = [random_table(rng, layout) for _ in range(count)]
    tables = [sm.parse(doc) for doc in docs]
    games = [growing_game(rng) for _ in range(max(1, count // 10))]
    # A game that someone won in two phases has no third one.
    games = [g[:2] if sm.score_game(g[:2]).finished else g for g in games]
    print(f"Spring Meadow: {count} random 4-player phases on the example layout")
    report("score", cpu_ms(sm.score, tables))
    report("parse+validate", cpu_ms(sm.parse, docs))
    report("score (wall clock)", wall_ms(sm.score, tables))
    print(f"Spring Meadow: {len(games)} random 4-player games of 2-3 phases (parse + ledger)")
    report("score_game", cpu_ms(sm.score_game, games), "game")


if __name__ == "__main__":
    main()
