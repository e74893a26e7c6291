"""Players and history: per-player, per-game statistics over finished tables.

Pure functions of scored :class:`~scorepad.scoring.Result` values, so the web layer can feed
them from storage and tests can feed them directly. Names are matched case-insensitively
with surrounding spaces ignored ("anna " and "Anna" are the same recurring player,
:func:`player_key`).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field

from scorepad.scoring import Result


def player_key(name: str) -> str:
    """How a roster recognises a recurring player across tables: letter case, spaces and
    invisible characters aside ("Anna" with a zero-width space pasted in looks like "Anna"),
    full-width letters as plain ones (NFKC)."""
    visible = "".join(ch for ch in name if unicodedata.category(ch) != "Cf")
    return " ".join(unicodedata.normalize("NFKC", visible).split()).casefold()


@dataclass
class GameStats:
    """One player's record in one game."""

    game: str
    plays: int = 0
    #: Plays alone (a solo game): counted in ``plays``, never a win (nobody to beat), and
    #: kept out of the scores below (a Spring Meadow solo game scores about 140, a phase
    #: 20-50): their best is ``solo_best``.
    solo_plays: int = 0
    solo_best: int | None = None
    #: Spring Meadow's solo games in order (a result with ``details.solo``, not a lone
    #: board scored as a phase): each total and board side (``details.solo.board``), for
    #: the solo campaign.
    solo_games: list[tuple[int, str | None]] = field(default_factory=list)
    wins: int = 0
    best: int | None = None
    totals: list[int] = field(default_factory=list)
    category_sums: dict[str, int] = field(default_factory=dict)

    @property
    def average(self) -> float:
        return sum(self.totals) / len(self.totals) if self.totals else 0.0

    @property
    def category_averages(self) -> dict[str, float]:
        n = len(self.totals)
        return {k: v / n for k, v in self.category_sums.items()} if n else {}

    @property
    def win_rate(self) -> float:
        """Wins per play against others (solo plays left out)."""
        against = self.plays - self.solo_plays
        return self.wins / against if against else 0.0


@dataclass
class PlayerStats:
    name: str  # as most recently written
    games: dict[str, GameStats] = field(default_factory=dict)

    @property
    def plays(self) -> int:
        return sum(g.plays for g in self.games.values())

    @property
    def wins(self) -> int:
        return sum(g.wins for g in self.games.values())


def statistics(results: Iterable[Result]) -> dict[str, PlayerStats]:
    """Fold finished tables (oldest first) into a roster keyed by :func:`player_key`.

    A shared win counts as a win for each winner; a table counts once per player; a table
    of one player (a solo game) is a play, not a win, and its score is kept apart.
    """
    roster: dict[str, PlayerStats] = {}
    for result in results:
        for p in result.players:
            key = player_key(p.name)
            stats = roster.setdefault(key, PlayerStats(p.name))
            stats.name = p.name
            g = stats.games.setdefault(result.game, GameStats(result.game))
            g.plays += 1
            if len(result.players) == 1:
                g.solo_plays += 1
                g.solo_best = p.total if g.solo_best is None else max(g.solo_best, p.total)
                if isinstance(p.details.get("solo"), dict):
                    g.solo_games.append((p.total, p.details["solo"].get("board")))
                continue
            g.wins += p.rank == 1
            g.best = p.total if g.best is None else max(g.best, p.total)
            g.totals.append(p.total)
            for k, v in p.categories.items():
                g.category_sums[k] = g.category_sums.get(k, 0) + v
    return roster
