"""Players and history: the roster of recurring names and per-player statistics.

Both look only at the tables this phone created or joined (tables are never listed for
everyone): the roster suggests names on the new-table form, most played first; the
statistics page folds the finished tables through :func:`scorepad.stats.statistics`.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from flask import Blueprint, Response

from scorepad import games
from scorepad.games import spring_meadow
from scorepad.scoring import Result
from scorepad.stats import player_key, statistics
from scorepad.web import access, db
from scorepad.web.editor import known_result, table_result
from scorepad.web.htmx import page_or_fragment

bp = Blueprint("players", __name__)

#: Tables read for the statistics page, newest first (older ones are left out).
STATS_TABLES = 500
ROSTER_SIZE = 40


def roster(device: str | None) -> list[str]:
    """Names from this phone's tables, most frequent first, each written as last used."""
    counts: Counter[str] = Counter()
    written: dict[str, str] = {}
    for stored in db.list_tables(device, limit=200):  # newest first
        for p in stored.doc.get("players", []):
            name = str(p.get("name", "")).strip()
            if not name:
                continue
            key = player_key(name)
            counts[key] += 1
            written.setdefault(key, name)
    return [written[key] for key, _n in counts.most_common(ROSTER_SIZE)]


def finished_results(device: str | None) -> tuple[list[Result], bool]:
    """Scored results of this phone's newest finished tables (``STATS_TABLES``), oldest
    first, and whether older ones were left out. Tables this worker scored already are not
    read again; the others are read whole in one query."""
    listed = db.list_summaries(device, limit=STATS_TABLES + 1, finished=True)
    kept = listed[:STATS_TABLES]
    answers = {t.id: known_result(t.id, t.version) for t in kept}
    for stored in db.get_tables([t for t, answer in answers.items() if answer is None]):
        try:
            answers[stored.id] = table_result(stored)
        except db.NotFound:  # a game this server no longer knows
            continue
    results = []
    for summary in reversed(kept):
        answer = answers.get(summary.id)
        if answer is not None and answer[0] is not None:
            results.append(answer[0])
    return results, len(listed) > STATS_TABLES


def _campaigns(game: str, solo_games: list[tuple[int, str | None]]) -> list[dict[str, Any]]:
    """Spring Meadow's solo campaigns (4 games, 600 points), newest first."""
    if game != spring_meadow.GAME.name or not solo_games:
        return []
    return list(reversed(spring_meadow.campaigns(solo_games)))


@bp.get("/players")
def index() -> Response:
    results, older_left_out = finished_results(access.device())
    found = statistics(results)
    players: list[dict[str, Any]] = []
    for stats in sorted(found.values(), key=lambda s: (-s.plays, player_key(s.name))):
        rows = []
        for name, g in sorted(stats.games.items()):
            categories = games.get(name).categories
            averages = g.category_averages
            rows.append(
                {
                    "game": games.get(name).title,
                    "stats": g,
                    "categories": [
                        (label, averages.get(k, 0.0)) for k, label in categories.items()
                    ],
                    "campaigns": _campaigns(name, g.solo_games),
                }
            )
        players.append(
            {"name": stats.name, "plays": stats.plays, "wins": stats.wins, "games": rows}
        )
    return page_or_fragment(
        "players/index.html",
        "players/_stats.html",
        players=players,
        tables=len(results),
        older_left_out=older_left_out,
    )
