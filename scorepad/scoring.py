"""The result of scoring a table: per-player categories, ranks, winners, tie-breaks.

Every game's scoring function builds :class:`PlayerScore` values and hands them to
:func:`rank`, which applies the shared rules of ``shared/rules/README.md``: the game's
tie-break orders every place, and players still tied share the rank (1, 1, 3).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from scorepad.wording import counted


@dataclass(frozen=True)
class TieBreak:
    """One step of a game's tie-break: a label and, per player, a value (higher wins)."""

    label: str
    values: Mapping[str, int]


@dataclass(frozen=True)
class PlayerScore:
    """One player's categories (every category key of the game) and the evidence."""

    name: str
    categories: Mapping[str, int]
    details: Mapping[str, Any] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(self.categories.values())


@dataclass(frozen=True)
class PlayerResult:
    name: str
    total: int
    rank: int
    categories: Mapping[str, int]
    details: Mapping[str, Any]


@dataclass(frozen=True)
class Result:
    """A scored table, in seating order."""

    game: str
    players: tuple[PlayerResult, ...]
    winners: tuple[str, ...]
    warnings: tuple[str, ...] = ()
    #: Sentences naming each tie the game's tie-break decided, e.g. "Anna ahead of Boris ...".
    tiebreaks: tuple[str, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)

    def player(self, name: str) -> PlayerResult:
        return next(p for p in self.players if p.name == name)

    @property
    def anything_scored(self) -> bool:
        """Whether any category of any player holds points (won or lost): before that every
        player ties on 0 and nobody "leads"; totals alone can cancel out (+5, -5)."""
        return any(v for p in self.players for v in p.categories.values())

    def to_json(self) -> dict[str, Any]:
        """The result object of ``formats.md`` (``tiebreaks`` and ``extra`` keys extend it)."""
        doc: dict[str, Any] = {
            "game": self.game,
            "players": [
                {
                    "name": p.name,
                    "total": p.total,
                    "rank": p.rank,
                    "categories": dict(p.categories),
                    "details": dict(p.details),
                }
                for p in self.players
            ],
            "winners": list(self.winners),
            "warnings": list(self.warnings),
            "tiebreaks": list(self.tiebreaks),
        }
        doc.update(self.extra)
        return doc


def rank(
    game: str,
    scores: Sequence[PlayerScore],
    tiebreaks: Sequence[TieBreak] = (),
    warnings: Sequence[str] = (),
    extra: Mapping[str, Any] | None = None,
) -> Result:
    """Order players by total, then by each tie-break in turn; equal keys share the rank."""

    def key(p: PlayerScore) -> tuple[int, ...]:
        return (p.total, *(t.values[p.name] for t in tiebreaks))

    keys = {p.name: key(p) for p in scores}
    ranks = {p.name: 1 + sum(keys[o.name] > keys[p.name] for o in scores) for p in scores}
    players = tuple(
        PlayerResult(p.name, p.total, ranks[p.name], dict(p.categories), dict(p.details))
        for p in scores
    )
    winners = tuple(p.name for p in players if p.rank == 1)
    return Result(
        game=game,
        players=players,
        winners=winners,
        warnings=tuple(warnings),
        tiebreaks=tuple(_explain_ties(scores, tiebreaks, keys)),
        extra=dict(extra or {}),
    )


def _explain_ties(
    scores: Sequence[PlayerScore],
    tiebreaks: Sequence[TieBreak],
    keys: Mapping[str, tuple[int, ...]],
) -> list[str]:
    """One sentence per group of players on equal totals: what separated them, or not.

    Players the tie-break cannot separate are named together ("Anna, Boris and Vera still
    tied after ..."), not pair by pair: five players on 0 points make one clause, not four.
    """
    by_total: dict[int, list[PlayerScore]] = {}
    for p in scores:
        by_total.setdefault(p.total, []).append(p)
    sentences = []
    for total in sorted(by_total, reverse=True):
        if len(by_total[total]) < 2:
            continue
        group = sorted(by_total[total], key=lambda p: keys[p.name], reverse=True)
        places = [
            [p.name for p in run] for _, run in itertools.groupby(group, lambda p: keys[p.name])
        ]
        steps = []
        for i, place in enumerate(places):
            if i:
                steps.append(_ahead(places[i - 1][-1], place[0], tiebreaks))
            if len(place) > 1:
                steps.append(_shared(place, tiebreaks))
        sentences.append(f"tied on {counted(total, 'point', 'points')}: " + "; ".join(steps))
    return sentences


def _ahead(a: str, b: str, tiebreaks: Sequence[TieBreak]) -> str:
    """What puts ``a`` ahead of ``b`` (on equal totals, ``a`` ranked above)."""
    t = next(t for t in tiebreaks if t.values[a] != t.values[b])
    return f"{a} ahead of {b} on {t.label} ({t.values[a]} vs {t.values[b]})"


def _shared(names: list[str], tiebreaks: Sequence[TieBreak]) -> str:
    """Players who share a place: every tie-break equal, or no tie-break at all."""
    a, b = ", ".join(names[:-1]), names[-1]
    if tiebreaks:
        return f"{a} and {b} still tied after {', '.join(t.label for t in tiebreaks)}: shared"
    return f"{a} and {b} share the place (no tie-break)"
