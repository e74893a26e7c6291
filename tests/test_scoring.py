"""Ranking a scored table (``shared/rules/README.md``, "Ties"; ``shared/formats.md``, result).

A game's tie-break orders every place, not only the first; players still tied after it share
the rank, and the next rank skips (1, 1, 3). Expected ranks below are worked out by hand.
"""

from __future__ import annotations

import dataclasses
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorepad.scoring import PlayerScore, Result, TieBreak, rank

NAMES = ["Anna", "Boris", "Vera", "Grisha", "Dasha"]


def player(name: str, *points: int, **details: object) -> PlayerScore:
    """A player whose categories ``a``, ``b``, ... hold ``points``."""
    return PlayerScore(name, {chr(ord("a") + i): p for i, p in enumerate(points)}, details)


def ranks(result: Result) -> dict[str, int]:
    return {p.name: p.rank for p in result.players}


# --- totals and shared ranks ------------------------------------------------------------------


def test_total_is_the_sum_of_the_categories() -> None:
    assert player("Anna", 9, -5, 3, 0).total == 7
    assert player("Anna").total == 0
    result = rank("test", [player("Anna", 9, -5, 3, 0)])
    assert result.players[0].total == 7
    assert dict(result.players[0].categories) == {"a": 9, "b": -5, "c": 3, "d": 0}


def test_highest_total_ranks_first_and_seating_order_is_kept() -> None:
    result = rank("test", [player("Anna", 10), player("Boris", 30), player("Vera", 20)])
    assert [p.name for p in result.players] == ["Anna", "Boris", "Vera"]
    assert ranks(result) == {"Anna": 3, "Boris": 1, "Vera": 2}
    assert result.winners == ("Boris",)
    assert result.tiebreaks == ()


def test_tied_players_share_the_rank_and_the_next_rank_skips() -> None:
    scores = [player("Anna", 12), player("Boris", 12), player("Vera", 7), player("Grisha", 3)]
    result = rank("test", scores)
    assert ranks(result) == {"Anna": 1, "Boris": 1, "Vera": 3, "Grisha": 4}
    assert result.winners == ("Anna", "Boris")


def test_shared_middle_place() -> None:
    scores = [player("Anna", 20), player("Boris", 5), player("Vera", 5), player("Grisha", 1)]
    assert ranks(rank("test", scores)) == {"Anna": 1, "Boris": 2, "Vera": 2, "Grisha": 4}


def test_everyone_tied() -> None:
    result = rank("test", [player(n, 4, 4) for n in NAMES[:3]])
    assert set(ranks(result).values()) == {1}
    assert result.winners == ("Anna", "Boris", "Vera")


def test_negative_totals_rank_like_any_other() -> None:
    result = rank("test", [player("Anna", -5, -5), player("Boris", -3), player("Vera", 0)])
    assert ranks(result) == {"Anna": 3, "Boris": 2, "Vera": 1}


def test_a_single_player_wins() -> None:
    result = rank("test", [player("Anna", -5)])
    assert ranks(result) == {"Anna": 1}
    assert result.winners == ("Anna",)


# --- tie-breaks -------------------------------------------------------------------------------


def test_tie_break_decides_the_first_place() -> None:
    houses = TieBreak("houses", {"Anna": 3, "Boris": 5, "Vera": 0})
    result = rank("test", [player("Anna", 32), player("Boris", 32), player("Vera", 10)], [houses])
    assert ranks(result) == {"Anna": 2, "Boris": 1, "Vera": 3}
    assert result.winners == ("Boris",)
    assert result.tiebreaks == ("tied on 32 points: Boris ahead of Anna on houses (5 vs 3)",)


def test_tie_break_orders_every_place_not_only_the_first() -> None:
    houses = TieBreak("houses", {"Anna": 1, "Boris": 2, "Vera": 3, "Grisha": 9})
    scores = [player("Anna", 40), player("Boris", 8), player("Vera", 8), player("Grisha", 8)]
    result = rank("test", scores, [houses])
    assert ranks(result) == {"Anna": 1, "Boris": 4, "Vera": 3, "Grisha": 2}
    assert result.winners == ("Anna",)
    assert result.tiebreaks == (
        "tied on 8 points: Grisha ahead of Vera on houses (9 vs 3); "
        "Vera ahead of Boris on houses (3 vs 2)",
    )


def test_the_later_tie_break_is_used_only_when_the_earlier_is_equal() -> None:
    houses = TieBreak("houses", {"Anna": 2, "Boris": 2, "Vera": 1})
    sunflowers = TieBreak("sunflowers", {"Anna": 4, "Boris": 6, "Vera": 99})
    scores = [player("Anna", 15), player("Boris", 15), player("Vera", 15)]
    result = rank("test", scores, [houses, sunflowers])
    # Vera's many sunflowers do not help: she has fewer houses, which is decided first.
    assert ranks(result) == {"Anna": 2, "Boris": 1, "Vera": 3}
    assert result.tiebreaks == (
        "tied on 15 points: Boris ahead of Anna on sunflowers (6 vs 4); "
        "Anna ahead of Vera on houses (2 vs 1)",
    )


def test_tie_break_never_overrides_the_total() -> None:
    houses = TieBreak("houses", {"Anna": 0, "Boris": 50})
    result = rank("test", [player("Anna", 11), player("Boris", 10)], [houses])
    assert ranks(result) == {"Anna": 1, "Boris": 2}
    assert result.tiebreaks == ()


def test_still_tied_after_every_tie_break_share_the_rank() -> None:
    houses = TieBreak("houses", {"Anna": 2, "Boris": 2, "Vera": 2})
    sunflowers = TieBreak("sunflowers", {"Anna": 5, "Boris": 5, "Vera": 1})
    scores = [player("Anna", 20), player("Boris", 20), player("Vera", 20)]
    result = rank("test", scores, [houses, sunflowers])
    assert ranks(result) == {"Anna": 1, "Boris": 1, "Vera": 3}
    assert result.winners == ("Anna", "Boris")
    assert result.tiebreaks == (
        "tied on 20 points: Anna and Boris still tied after houses, sunflowers: shared; "
        "Boris ahead of Vera on sunflowers (5 vs 1)",
    )


def test_without_a_tie_break_the_sentence_says_the_place_is_shared() -> None:
    result = rank("test", [player("Anna", 9), player("Boris", 9)])
    assert result.tiebreaks == ("tied on 9 points: Anna and Boris share the place (no tie-break)",)


def test_players_the_tie_break_cannot_separate_are_named_together() -> None:
    houses = TieBreak("houses", {"Anna": 1, "Boris": 1, "Vera": 1, "Grisha": 1, "Dana": 0})
    scores = [player(n, 0) for n in ("Anna", "Boris", "Vera", "Grisha", "Dana")]
    result = rank("test", scores, [houses])
    assert ranks(result) == {"Anna": 1, "Boris": 1, "Vera": 1, "Grisha": 1, "Dana": 5}
    assert result.tiebreaks == (
        "tied on 0 points: Anna, Boris, Vera and Grisha still tied after houses: shared; "
        "Grisha ahead of Dana on houses (1 vs 0)",
    )


def test_a_tie_between_two_pairs_names_each_pair_and_what_splits_them() -> None:
    houses = TieBreak("houses", {"Anna": 2, "Boris": 1, "Vera": 2, "Grisha": 1})
    scores = [player(n, 7) for n in ("Anna", "Boris", "Vera", "Grisha")]
    result = rank("test", scores, [houses])
    assert result.tiebreaks == (
        "tied on 7 points: Anna and Vera still tied after houses: shared; "
        "Vera ahead of Boris on houses (2 vs 1); Boris and Grisha still tied after houses: shared",
    )


def test_one_point_is_singular_and_no_tie_break_shares_the_place() -> None:
    result = rank("test", [player(n, 1) for n in ("Anna", "Boris", "Vera")])
    assert result.tiebreaks == (
        "tied on 1 point: Anna, Boris and Vera share the place (no tie-break)",
    )


def test_one_sentence_per_tied_total_highest_first() -> None:
    houses = TieBreak("houses", {"Anna": 1, "Boris": 2, "Vera": 1, "Grisha": 1})
    scores = [player("Anna", 3), player("Boris", 3), player("Vera", 10), player("Grisha", 10)]
    result = rank("test", scores, [houses])
    assert ranks(result) == {"Anna": 4, "Boris": 3, "Vera": 1, "Grisha": 1}
    assert result.tiebreaks == (
        "tied on 10 points: Vera and Grisha still tied after houses: shared",
        "tied on 3 points: Boris ahead of Anna on houses (2 vs 1)",
    )


# --- properties -------------------------------------------------------------------------------


@st.composite
def tables(draw: st.DrawFn) -> tuple[list[PlayerScore], list[TieBreak]]:
    count = draw(st.integers(min_value=1, max_value=5))
    names = NAMES[:count]
    small = st.integers(min_value=-3, max_value=3)
    scores = [player(n, *draw(st.lists(small, min_size=1, max_size=3))) for n in names]
    steps = draw(st.integers(min_value=0, max_value=2))
    tiebreaks = [TieBreak(f"step {i}", {n: draw(small) for n in names}) for i in range(steps)]
    return scores, tiebreaks


@given(tables())
@settings(max_examples=200, deadline=None)
def test_ranks_are_standard_competition_ranks(
    table: tuple[list[PlayerScore], list[TieBreak]],
) -> None:
    scores, tiebreaks = table
    result = rank("test", scores, tiebreaks)

    def key(name: str) -> tuple[int, ...]:
        p = next(s for s in scores if s.name == name)
        return (p.total, *(t.values[name] for t in tiebreaks))

    for p in result.players:
        # Rank r means exactly r - 1 players are strictly ahead on (total, tie-breaks...).
        assert p.rank == 1 + sum(key(o.name) > key(p.name) for o in result.players)
        for o in result.players:
            assert (o.rank == p.rank) == (key(o.name) == key(p.name))
    best = max(key(p.name) for p in result.players)
    assert list(result.winners) == [p.name for p in result.players if key(p.name) == best]
    assert [p.name for p in result.players] == [s.name for s in scores]
    totals = [p.total for p in result.players]
    assert len(result.tiebreaks) == sum(totals.count(t) > 1 for t in set(totals))


# --- the result document ----------------------------------------------------------------------


def test_to_json_has_the_documented_shape() -> None:
    houses = TieBreak("houses", {"Anna": 1, "Boris": 2})
    scores = [
        player("Anna", 3, 4, pairs=[{"house": [0, 0], "sheep": [1, 0]}]),
        player("Boris", 7, 0),
    ]
    result = rank("sunflower-valley", scores, [houses], ["Anna: 2 empty hex(es)"])
    doc = result.to_json()
    assert doc == {
        "game": "sunflower-valley",
        "players": [
            {
                "name": "Anna",
                "total": 7,
                "rank": 2,
                "categories": {"a": 3, "b": 4},
                "details": {"pairs": [{"house": [0, 0], "sheep": [1, 0]}]},
            },
            {
                "name": "Boris",
                "total": 7,
                "rank": 1,
                "categories": {"a": 7, "b": 0},
                "details": {},
            },
        ],
        "winners": ["Boris"],
        "warnings": ["Anna: 2 empty hex(es)"],
        "tiebreaks": ["tied on 7 points: Boris ahead of Anna on houses (2 vs 1)"],
    }
    assert json.loads(json.dumps(doc)) == doc


def test_to_json_adds_the_extra_table_wide_evidence() -> None:
    extra = {"areas": {"blue": {"counts": {"Anna": 2}, "winner": "Anna"}}}
    doc = rank("test", [player("Anna", 1)], extra=extra).to_json()
    assert doc["areas"] == extra["areas"]
    assert set(doc) == {"game", "players", "winners", "warnings", "tiebreaks", "areas"}


def test_result_is_immutable_and_finds_players_by_name() -> None:
    result = rank("test", [player("Anna", 1), player("Boris", 2)], warnings=["w"])
    assert result.player("Boris").rank == 1
    assert result.warnings == ("w",)
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.winners = ()  # type: ignore[misc]


def test_result_does_not_share_the_callers_dictionaries() -> None:
    categories = {"a": 1}
    details: dict[str, object] = {"note": "x"}
    result = rank("test", [PlayerScore("Anna", categories, details)])
    categories["a"] = 99
    details["note"] = "changed"
    assert result.players[0].categories == {"a": 1}
    assert result.players[0].details == {"note": "x"}
