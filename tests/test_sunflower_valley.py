"""Sunflower Valley scoring, written from the rulebook ("Подсчёт очков", pp. 4–7) and the
rules digest (shared/rules/README.md). Sheets are drawn with the helpers in tests/sheets.py."""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from scorepad.boardfile import BoardError
from scorepad.games import sunflower_valley as sv
from scorepad.hexgrid import Hex, neighbor, neighbors

from sheets import axial_cells, axial_table, line, sheet_cells

ROOT = Path(__file__).resolve().parents[1]


def score(doc: dict[str, Any]) -> Any:
    return sv.score(sv.parse(doc))


def cats(doc: dict[str, Any], player: int = 0) -> dict[str, int]:
    return dict(score(doc).players[player].categories)


def details(doc: dict[str, Any], player: int = 0) -> dict[str, Any]:
    return dict(score(doc).players[player].details)


# --- the rulebook's worked examples -----------------------------------------------------------


def test_rulebook_mountains_score_2_and_3():
    """ "за левый гекс с горами игрок получает 2 очка, а за правый — 3 очка"."""
    doc = {
        "game": "sunflower-valley",
        "players": [
            {
                "name": "Anna",
                "cells": sheet_cells("""
                    .  F  .  .  F  .
                    F  ^  .  F  ^  X
                    .  .  .  .  .  .
                """),
            }
        ],
    }
    result = score(doc)
    mountains = {tuple(m["hex"]): m["points"] for m in result.players[0].details["mountains"]}
    assert sorted(mountains.values()) == [2, 3]
    assert result.players[0].categories["mountains"] == 5


def test_rulebook_maria_takes_purple_with_one_sunflower():
    """Maria has one sunflower in the purple area, Pavel none: Maria scores 3 for purple."""
    maria = {(0, 0): "F/purple", (1, 0): "./purple", (2, 0): "./green"}
    pavel = {(0, 0): "./purple", (1, 0): "./purple", (2, 0): "./green"}
    doc = axial_table(maria, pavel)
    result = score(doc)
    assert result.players[0].categories["sunflower_majority"] == 3
    assert result.players[1].categories["sunflower_majority"] == 0
    assert result.extra["areas"]["purple"] == {"counts": {"Anna": 1, "Boris": 0}, "winner": "Anna"}
    assert result.extra["areas"]["green"]["winner"] is None


def test_rulebook_three_linked_settlements_score_9():
    """ "3 дома/поселения соединены железными дорогами. Это приносит игроку 9 очков"."""
    doc = axial_table(line("H", "R03", "R03", "H", "R03", "R03", "H"))
    express = details(doc)["valley_express"]
    assert cats(doc)["valley_express"] == 9
    assert len(express) == 1 and len(express[0]["settlements"]) == 3
    assert express[0]["runs"] == [[[1, 0], [2, 0]], [[4, 0], [5, 0]]]


def test_super_sunflower_is_a_sunflower_everywhere():
    """ "при подсчёте очков суперподсолнух ничем не отличается от обычного подсолнуха"."""
    doc = axial_table({(0, 0): "X/p", (1, 0): "^"}, {(0, 0): "./p", (1, 0): "^"})
    assert cats(doc)["sunflower_majority"] == 3
    assert cats(doc)["mountains"] == 1


# --- A and B: pairing houses and sheep ------------------------------------------------------


def pairing(doc: dict[str, Any]) -> tuple[int, int, set[str]]:
    d = details(doc)
    return len(d["pairs"]), len(d["unpaired_houses"]), {p["via"] for p in d["pairs"]}


def test_adjacent_pair_scores_3_and_lonely_house_loses_5():
    assert cats(axial_table(line("H", "S"))) | {} == {
        "houses_with_sheep": 3,
        "houses_without_sheep": 0,
        "sunflower_majority": 0,
        "mountains": 0,
        "residents": 5,
        "valley_express": 0,
    }
    far = cats(axial_table(line("H", ".", "S")))
    assert far["houses_with_sheep"] == 0 and far["houses_without_sheep"] == -5


def test_each_sheep_pairs_with_one_house_and_each_house_with_one_sheep():
    assert pairing(axial_table(line("H", "S", "H"))) == (1, 1, {"adjacent"})
    assert pairing(axial_table(line("S", "H", "S"))) == (1, 0, {"adjacent"})


HERD = {(0, 0): "H", (1, 0): "S", (2, -1): "S", (1, 1): "H"}


def test_herd_rule_lets_a_far_sheep_pair_through_its_herd():
    """Sheep (2,-1) touches no house, but its herd touches both houses."""
    assert pairing(axial_table(HERD)) == (2, 0, {"adjacent", "herd"})


def test_kids_variant_pairs_only_adjacent_houses():
    assert pairing(axial_table(HERD, variant="kids")) == (1, 1, {"adjacent"})


SETTLEMENT = {(1, -1): "S", (1, 0): "H", (2, 0): "H", (0, 1): "S"}


def test_settlement_rule_lets_a_sheep_pair_with_any_house_of_the_settlement():
    """Both sheep touch only house (1,0); its settlement also holds (2,0)."""
    assert pairing(axial_table(SETTLEMENT)) == (2, 0, {"adjacent", "settlement"})
    assert pairing(axial_table(SETTLEMENT, variant="kids")) == (1, 1, {"adjacent"})


RAILWAY = line("S", "H", "R03", "R03", "H") | {(1, 1): "S"}


def test_railway_rule_carries_a_sheep_to_a_linked_settlement():
    assert pairing(axial_table(RAILWAY)) == (2, 0, {"adjacent", "railway"})
    assert details(axial_table(RAILWAY))["links"] == [
        {"run": [[2, 0], [3, 0]], "settlements": [0, 1]}
    ]
    assert pairing(axial_table(RAILWAY, variant="kids")) == (1, 1, {"adjacent"})


def test_a_single_rail_links_settlements_for_pairing_but_not_for_valley_express():
    doc = axial_table(line("S", "H", "R03", "H") | {(1, 1): "S"})
    assert pairing(doc) == (2, 0, {"adjacent", "railway"})
    assert cats(doc)["valley_express"] == 0


def test_a_track_that_does_not_reach_the_house_links_nothing():
    """The rails lie beside both houses, but their tracks run N–S, away from them."""
    doc = axial_table(line("S", "H", "R25", "R25", "H") | {(1, 1): "S"})
    assert pairing(doc) == (1, 1, {"adjacent"})
    assert details(doc)["links"] == []


def test_track_ends_that_lead_nowhere_are_pointed_out():
    """An end reaching a house or more track leads somewhere; any other end is loose (it
    scores nothing either way: the sheet shows it, as a rail turned the wrong way often is)."""
    assert details(axial_table(line("H", "R03", "R03", "H")))["loose_ends"] == []
    # The second rail turned N-S: its track meets the first rail's at neither side.
    doc = axial_table(line("H", "R03", "R25", "H"))
    assert sorted(details(doc)["loose_ends"]) == [[1, 0, 0], [2, 0, 2], [2, 0, 5]]
    # A closed loop has no ends at all.
    loop = {
        (h.q, h.r): f"R{(d + 2) % 6}{(d - 2) % 6}"
        for d in range(6)
        for h in [neighbor(Hex(0, 0), d)]
    }
    assert details(axial_table(loop | {(0, 0): "H"}))["loose_ends"] == []


def test_links_are_transitive_trains_run_through_stations():
    """A sheep by the first settlement pairs with the third, two links away."""
    doc = axial_table(line("S", "H", "R03", "H", "R03", "H") | {(1, 1): "S", (3, 1): "S"})
    assert pairing(doc) == (3, 0, {"adjacent", "railway"})


def test_a_sheep_reaches_a_settlement_two_links_away():
    """Three sheep touch only the first settlement; the railway links it to the second and
    the second to the third: the link closes over the middle settlement, so all three pair
    (with direct links only, the third house would stay alone)."""
    spec = {(0, 0): "S", (1, -1): "S", (1, 1): "S"} | {
        (1, 0): "H",
        (2, 0): "R03",
        (3, 0): "H",
        (4, 0): "R03",
        (5, 0): "H",
    }
    assert pairing(axial_table(spec)) == (3, 0, {"adjacent", "railway"})


#: Sheep (0,-1) touches no house; its herd's sheep (0,0) touches (1,0), whose settlement
#: holds (2,-1), linked by the railway (3,-1)-(4,-1) to (5,-1).
CHAIN = {
    (0, -1): "S",
    (0, 0): "S",
    (1, 0): "H",
    (2, -1): "H",
    (3, -1): "R03",
    (4, -1): "R03",
    (5, -1): "H",
}


def test_rules_combine_herd_settlement_and_railway():
    """Sheep (0,-1) touches no house. Through its herd it may pair with (1,0), through that
    settlement with (2,-1), and through the railway with (5,-1)."""
    doc = axial_table(CHAIN)
    allowed = sv.allowed_pairs(sv.Valley.of(sv.parse(doc).players[0]))
    far = Hex(0, -1)
    assert {h: via for (s, h), via in allowed.items() if s == far} == {
        Hex(1, 0): "herd",
        Hex(2, -1): "settlement",
        Hex(5, -1): "railway",
    }
    # Two sheep, three houses: the plainest maximum matching is shown.
    assert pairing(doc) == (2, 1, {"adjacent", "settlement"})


def test_greedy_pairing_loses_where_the_maximum_matching_wins():
    """Sheep (0,0) touches houses (0,1) and (1,-1); sheep (1,1) touches (0,1) only.

    Taking the first free house for each sheep in reading order gives (0,0)–(0,1) and leaves
    (1,1) without a house; the maximum matching pairs both.
    """
    spec = {(0, 0): "S", (0, 1): "H", (1, -1): "H", (1, 1): "S"}
    doc = axial_table(spec)
    valley = sv.Valley.of(sv.parse(doc).players[0])
    allowed = sv.allowed_pairs(valley)
    taken: set[Hex] = set()
    for sheep in sorted({s for s, _ in allowed}):
        free = sorted(h for s, h in allowed if s == sheep and h not in taken)
        if free:
            taken.add(free[0])
    assert len(taken) == 1
    assert pairing(doc) == (2, 0, {"adjacent"})


def test_sheep_without_houses_and_houses_without_sheep():
    assert pairing(axial_table(line("S", "S", "S"))) == (0, 0, set())
    assert cats(axial_table(line("H", "H", "H")))["houses_without_sheep"] == -15


# --- track runs -------------------------------------------------------------------------------


def test_runs_follow_the_track_through_curves_in_order():
    rails = {Hex(0, 0): (3, 0), Hex(1, 0): (3, 1), Hex(2, -1): (4, 2), Hex(2, -2): (5, 2)}
    (run,) = sv.track_runs(rails)
    assert run.hexes in (
        (Hex(0, 0), Hex(1, 0), Hex(2, -1), Hex(2, -2)),
        (Hex(2, -2), Hex(2, -1), Hex(1, 0), Hex(0, 0)),
    )
    assert set(run.reaches) == {Hex(-1, 0), Hex(2, -3)}


def test_neighbouring_rails_join_only_through_a_side_both_use():
    rails = {Hex(0, 0): (0, 3), Hex(1, 0): (2, 5)}  # (1, 0) runs N–S past (0, 0)
    assert sorted(len(r.hexes) for r in sv.track_runs(rails)) == [1, 1]


def test_a_closed_loop_has_no_ends():
    """The six hexes around one hex, each with a curve towards its two ring neighbours."""
    rails = {neighbor(Hex(0, 0), d): ((d + 2) % 6, (d - 2) % 6) for d in range(6)}
    (run,) = sv.track_runs(rails)
    assert len(run.hexes) == 6 and run.reaches == ()


# --- F: Valley Express ------------------------------------------------------------------------


def test_valley_express_counts_settlements_not_houses():
    doc = axial_table(line("H", "H", "R03", "R03", "H", "H"))
    assert cats(doc)["valley_express"] == 4


def test_a_run_back_into_its_own_settlement_joins_nothing():
    spec = {(0, 0): "H", (0, 1): "H", (0, 2): "H", (1, 0): "R35", (1, 1): "R24"}
    d = details(axial_table(spec))
    assert d["valley_express"] == [] and d["links"] == []


def test_a_pair_not_adjacent_is_explained_by_the_way_rule_a_goes():
    """Rule A's chain, hex by hex, for the explanation: sheep (0,-1) touches no house; its
    herd's sheep (0,0) touches (1,0), whose settlement holds (2,-1), linked by the railway
    (3,-1)-(4,-1) to (5,-1)."""
    valley = sv.Valley.of(sv.parse(axial_table(CHAIN)).players[0])
    far, near = Hex(0, -1), Hex(0, 0)
    assert sv.pair_path(valley, far, Hex(1, 0), "herd") == [far, near, Hex(1, 0)]
    assert sv.pair_path(valley, far, Hex(2, -1), "settlement") == [far, near, Hex(1, 0), Hex(2, -1)]
    railway = [far, near, Hex(1, 0), Hex(2, -1), Hex(3, -1), Hex(4, -1), Hex(5, -1)]
    assert sv.pair_path(valley, far, Hex(5, -1), "railway") == railway
    assert sv.pair_path(valley, near, Hex(1, 0), "adjacent") == [near, Hex(1, 0)]
    pairs = {tuple(p["sheep"]): p for p in details(axial_table(CHAIN))["pairs"]}
    assert "path" not in pairs[(0, 0)] and sv.pair_route(pairs[(0, 0)]) == [(0, 0), (1, 0)]
    assert pairs[(0, -1)]["path"] == [[0, -1], [0, 0], [1, 0], [2, -1]]
    assert pairs[(0, -1)]["gate"] == [1, 0]


def test_a_pairs_way_never_leaves_the_houses_back_into_the_herd():
    """Herd first, then houses (rule A's order): a shorter way out of a house through a
    sheep and into another house is not one (found by a review on a random sheet)."""
    herd = [(1, 0), (2, -1), (2, -2), (1, -2), (0, -1)]
    houses = [(0, 0), (-1, 1), (-2, 1), (-3, 1), (-3, 0), (-2, -1), (-1, -1)]
    spec = dict.fromkeys(herd, "S") | dict.fromkeys(houses, "H")
    valley = sv.Valley.of(sv.parse(axial_table(spec)).players[0])
    path = sv.pair_path(valley, Hex(1, 0), Hex(-2, -1), "settlement")
    first_house = next(i for i, h in enumerate(path) if (h.q, h.r) in houses)
    assert all((h.q, h.r) in houses for h in path[first_house:])
    assert all((h.q, h.r) in herd for h in path[:first_house])
    assert path[0] == Hex(1, 0) and path[-1] == Hex(-2, -1)


def test_a_pairs_way_follows_a_bent_herd_and_never_crosses_other_hexes():
    """A herd bent round a mountain: the way goes sheep to sheep, not across the mountain."""
    spec = {(0, 0): "S", (1, -1): "S", (2, -1): "S", (2, 0): "S", (1, 1): "H", (3, -1): "H"}
    spec |= {(1, 0): "^"}
    valley = sv.Valley.of(sv.parse(axial_table(spec)).players[0])
    path = sv.pair_path(valley, Hex(0, 0), Hex(3, -1), "herd")
    assert path[0] == Hex(0, 0) and path[-1] == Hex(3, -1)
    herd = {Hex(0, 0), Hex(1, -1), Hex(2, -1), Hex(2, 0)}
    assert set(path[1:-1]) <= herd
    assert all(b in neighbors(a) for a, b in pairwise(path))


def test_separate_railways_score_separately():
    doc = axial_table(line("H", "R03", "R03", "H") | line("H", "R03", "R03", "H", r=3))
    assert cats(doc)["valley_express"] == 8
    assert len(details(doc)["valley_express"]) == 2


def test_a_one_hex_link_splits_a_chain_into_two_railways():
    """Rules digest F: only runs of at least two railway hexes join settlements for the
    Valley Express ("Если у вас несколько изолированных железных дорог, подсчитайте бонус
    за каждую из них по отдельности"). A-(2)-B-(1)-C-(2)-D is two railways of two
    settlements (4 + 4), not one of four (16); the one-hex link still pairs sheep."""
    doc = axial_table(line("H", "R03", "R03", "H", "R03", "H", "R03", "R03", "H"))
    express = details(doc)["valley_express"]
    assert cats(doc)["valley_express"] == 8
    assert sorted(len(group["settlements"]) for group in express) == [2, 2]
    assert len(details(doc)["links"]) == 3


def test_valley_express_table_is_a_table_setting():
    spec = line("H", "R03", "R03", "H", "R03", "R03", "H", "R03", "R03", "H")
    assert cats(axial_table(spec))["valley_express"] == 16
    table = {"2": 3, "3": 7}
    assert cats(axial_table(spec, valley_express=table))["valley_express"] == 7
    assert sv.express_points(sv.Options(valley_express={"3": 9}), 2) == 0
    assert sv.express_points(sv.Options(), 5) == 25
    # A size the table skips takes the largest entry below it.
    gaps = sv.Options(valley_express={"2": 4, "5": 30})
    assert [sv.express_points(gaps, n) for n in (2, 3, 4, 5, 6)] == [4, 4, 4, 30, 30]


# --- C: sunflower majority --------------------------------------------------------------------


def test_tie_at_the_top_scores_nobody_even_with_three_players():
    a = {(0, 0): "F/p", (1, 0): "F/p"}
    b = {(0, 0): "F/p", (1, 0): "F/p"}
    c = {(0, 0): "F/p", (1, 0): "./p"}
    result = score(axial_table(a, b, c))
    assert [p.categories["sunflower_majority"] for p in result.players] == [0, 0, 0]


def test_strictly_more_than_every_other_player():
    a = {(0, 0): "F/p", (1, 0): "F/p", (2, 0): "./q"}
    b = {(0, 0): "F/p", (1, 0): "./p", (2, 0): "F/q"}
    c = {(0, 0): "./p", (1, 0): "./p", (2, 0): "./q"}
    result = score(axial_table(a, b, c))
    assert [p.categories["sunflower_majority"] for p in result.players] == [3, 3, 0]


def test_nobody_takes_an_area_without_sunflowers():
    result = score(axial_table({(0, 0): "./p"}, {(0, 0): "./p"}))
    assert result.extra["areas"]["p"]["winner"] is None


def test_single_player_takes_areas_where_it_has_a_sunflower():
    doc = axial_table({(0, 0): "F/p", (1, 0): "./q", (2, 0): "X/r"})
    assert cats(doc)["sunflower_majority"] == 6


# --- E: residents -----------------------------------------------------------------------------


def tallies(*rows: tuple[int, int, int]) -> dict[str, sv.Tallies]:
    """(houses, sunflowers incl. super, super sunflowers) per player."""
    return {f"P{i}": sv.Tallies(*row) for i, row in enumerate(rows)}


def points(t: dict[str, sv.Tallies]) -> list[int]:
    return [r["points"] for r in sv.resident_places(t).values()]


def test_residents_are_two_per_house_plus_one_per_super_sunflower():
    assert sv.Tallies(houses=4, sunflowers=5, super_sunflowers=3).residents == 11


def test_most_residents_5_second_3():
    assert points(tallies((5, 0, 0), (4, 0, 0), (3, 0, 0))) == [5, 3, 0]


def test_residents_tie_broken_by_houses_then_sunflowers():
    # 10 residents each: 5 houses vs 4 houses + 2 super sunflowers.
    assert points(tallies((4, 2, 2), (5, 0, 0))) == [3, 5]
    assert sv.resident_places(tallies((4, 2, 2), (5, 0, 0)))["P1"]["decided_by"] == "houses"
    # Same residents and houses: more sunflowers wins.
    assert points(tallies((5, 1, 0), (5, 3, 0))) == [3, 5]
    assert sv.resident_places(tallies((5, 1, 0), (5, 3, 0)))["P1"]["decided_by"] == "sunflowers"


def test_players_still_tied_score_nothing_and_the_next_takes_second():
    """Tied for first: nobody gets 5; the next distinct result gets 3."""
    assert points(tallies((5, 1, 0), (5, 1, 0), (4, 0, 0))) == [0, 0, 3]
    places = sv.resident_places(tallies((5, 1, 0), (5, 1, 0), (4, 0, 0)))
    assert places["P0"]["decided_by"] == "still tied"
    assert [p["tie_voids"] for p in places.values()] == [True, True, False]


def test_a_tie_past_the_paying_places_voids_nothing():
    places = sv.resident_places(tallies((6, 0, 0), (5, 0, 0), (4, 0, 0), (4, 0, 0)))
    assert [p["points"] for p in places.values()] == [5, 3, 0, 0]
    assert not any(p["tie_voids"] for p in places.values())


def test_tie_for_second_scores_nobody():
    assert points(tallies((6, 0, 0), (5, 1, 0), (5, 1, 0))) == [5, 0, 0]


def test_single_player_takes_the_5_for_residents():
    assert points(tallies((1, 0, 0))) == [5]


def test_residents_tally_that_differs_from_the_drawing_is_reported():
    doc = axial_table(line("H", "S", "X"))
    doc["players"][0]["residents"] = 2
    result = score(doc)
    assert result.players[0].details["residents"]["count"] == 3
    assert any("tally" in w and "says 2" in w and "gives 3" in w for w in result.warnings)
    doc["players"][0]["residents"] = 3
    assert not any("tally" in w for w in score(doc).warnings)


# --- G: total and tie-break -------------------------------------------------------------------


def test_equal_totals_are_ordered_by_houses():
    """Anna: two pairs (+6) and most residents (+5) = 11. Boris: one pair (+3), area a (+3),
    a mountain beside two sunflowers (+2), second for residents (+3) = 11."""
    result = score(axial_table(line("H", "S", "H", "S"), line("H", "S", "F", "^", "F")))
    assert [(p.total, p.rank) for p in result.players] == [(11, 1), (11, 2)]
    assert result.winners == ("Anna",)
    assert result.tiebreaks == ("tied on 11 points: Anna ahead of Boris on houses (2 vs 1)",)


def test_super_sunflowers_count_as_sunflowers_in_the_tie_break_and_by_each_mountain():
    """Anna: a house alone (-5), area a with 2 sunflowers to 1 (+3), the mountain between
    her sunflower and her super sunflower (+2) and the one beyond it (+1: the super
    sunflower counts for both), most residents (3, +5) = 6. Boris: a pair (+3), second for
    residents (+3) = 6. One house each; sunflowers 2 to 1 with the super one counted (its
    resident would decide too, but the sunflowers come first)."""
    result = score(axial_table(line("H", "F", "^", "X", "^"), line("H", "S", "F", ".", ".")))
    assert [(p.total, p.rank) for p in result.players] == [(6, 1), (6, 2)]
    assert sorted(m["points"] for m in result.players[0].details["mountains"]) == [1, 2]
    assert result.tiebreaks == ("tied on 6 points: Anna ahead of Boris on sunflowers (2 vs 1)",)


def test_players_still_tied_after_every_tie_break_share_the_rank():
    result = score(axial_table(line("H", "S", "F"), line("F", "S", "H"), line("H", ".", ".")))
    assert [p.rank for p in result.players] == [1, 1, 3]
    assert result.winners == ("Anna", "Boris")
    assert "still tied after houses, sunflowers, residents" in result.tiebreaks[0]


# --- warnings ---------------------------------------------------------------------------------


def test_empty_hexes_are_scored_with_a_warning():
    result = score(axial_table(line("H", ".", ".")))
    assert any("2 empty hex" in w for w in result.warnings)


def test_unequal_layouts_are_reported():
    result = score(axial_table({(0, 0): "F/p", (1, 0): "^"}, {(0, 0): "F/q", (1, 0): "^"}))
    assert any("layout differs" in w and "area p" in w for w in result.warnings)


# --- the board file ---------------------------------------------------------------------------


def problems(doc: Any) -> list[str]:
    with pytest.raises(BoardError) as err:
        sv.parse(doc)
    return err.value.problems


def base() -> dict[str, Any]:
    return axial_table(line("H", "S", "R03", "^"))


def test_unknown_key_names_player_and_cell():
    doc = base()
    doc["players"][0]["cells"][1]["colour"] = "red"
    assert problems(doc) == ["player 'Anna', cell (1, 0): unknown key 'colour'"]


def test_a_sheet_lists_at_most_200_hexes():
    # A printed sheet has 30 hexes (rules digest: 5 areas of 5, 5 mountains).
    doc = base()
    sheet = doc["players"][0]
    sheet["cells"] = [{"q": q, "r": r, "area": "a"} for q in range(20) for r in range(10)]
    assert len(sv.parse(doc).players[0].cells) == 200
    sheet["cells"].append({"q": 20, "r": 0, "area": "a"})
    assert problems(doc) == [
        "player 'Anna': 201 hexes listed; a printed sheet has 30, and at most 200 are read"
    ]


def test_a_hex_far_from_the_sheet_is_a_mistyped_coordinate():
    # A printed sheet is one piece of 30 hexes: under 30 steps along every axis. Partial
    # sheets with gaps (the rulebook's examples) stay allowed; a far-off hex would stretch
    # the drawn sheet off any screen.
    doc = base()
    cells = doc["players"][0]["cells"]
    cells.append({"q": 30, "r": 0, "area": "a"})  # 30 apart from (0, 0) along q and s
    assert sv.parse(doc)
    cells[-1]["q"] = 31
    assert problems(doc) == [
        "player 'Anna': the sheet's hexes lie 31 hexes apart; a printed sheet spans at most "
        "30: a coordinate is mistyped"
    ]
    cells[-1].update(q=10**14, r=-(10**14))  # far along q and r, s unchanged
    assert "lie 100000000000000 hexes apart" in problems(doc)[0]
    # Each axis on its own: q alone, r alone, s alone (q + r = 31 with both under 30).
    for q, r in ((31, -15), (-15, 31), (15, 16)):
        cells[-1].update(q=q, r=r)
        assert "lie 31 hexes apart" in problems(doc)[0], (q, r)


def test_duplicate_cell():
    doc = base()
    doc["players"][0]["cells"].append(dict(doc["players"][0]["cells"][0]))
    assert problems(doc) == [
        "player 'Anna', cell (0, 0): listed twice; each hex of the sheet appears once"
    ]


def test_unknown_item():
    doc = base()
    doc["players"][0]["cells"][0]["item"] = "castle"
    (problem,) = problems(doc)
    assert problem.startswith("player 'Anna', cell (0, 0), 'item': ") and "house" in problem


ILLEGAL_RAILS = [
    ([0, 1], "neighbouring"),
    ([5, 0], "neighbouring"),
    ([2, 2], "the same side"),
    ([0, 6], "not a direction"),
]


@pytest.mark.parametrize(("sides", "why"), ILLEGAL_RAILS)
def test_illegal_rails(sides: list[int], why: str):
    doc = base()
    doc["players"][0]["cells"][2]["sides"] = sides
    (problem,) = problems(doc)
    assert problem.startswith("player 'Anna', cell (2, 0): rail") and why in problem


def test_rail_needs_sides_and_only_rails_have_sides():
    doc = base()
    del doc["players"][0]["cells"][2]["sides"]
    doc["players"][0]["cells"][0]["sides"] = [0, 3]
    assert problems(doc) == [
        "player 'Anna', cell (0, 0): 'sides' belongs to a rail, not to house",
        "player 'Anna', cell (2, 0): a rail needs 'sides': the two sides (0..5) its track joins",
    ]


def test_mountains_hold_nothing_and_other_hexes_need_an_area():
    doc = base()
    doc["players"][0]["cells"][3]["item"] = "sunflower"
    del doc["players"][0]["cells"][1]["area"]
    assert problems(doc) == [
        "player 'Anna', cell (1, 0): a hex that is not a mountain needs its printed colour 'area'",
        "player 'Anna', cell (3, 0): a mountain hex has no area and nothing can be drawn on it",
    ]


def test_names_unique_and_non_empty():
    doc = axial_table(line("H"), line("H"), line("H"))
    doc["players"][1]["name"] = "Anna"
    doc["players"][2]["name"] = " "
    assert problems(doc) == [
        "player 'Anna': two players have this name; names must be unique",
        "player #3: the name is empty",
    ]


def test_wrong_types_are_errors_not_coerced():
    doc = base()
    doc["players"][0]["cells"][0]["q"] = "0"
    doc["players"][0]["residents"] = True
    assert len(problems(doc)) == 2


def test_player_count_and_options():
    assert "1 to 5 players" in problems(axial_table(*[line("H")] * 6))[0]
    doc = base() | {"options": {"valley_express": {"one": 1}}}
    assert "'one' is not a number of settlements" in problems(doc)[0]
    doc = base() | {"options": {"variant": "expert"}}
    assert problems(doc)[0].startswith("'options', 'variant': input should be")


def test_valid_files_round_trip():
    doc = json.loads((ROOT / "examples" / "sunflower-valley.json").read_text())
    table = sv.parse(doc)
    assert sv.parse(sv.dump(table)) == table
    assert sv.dump(table) == doc


# --- the bundled example and layout -----------------------------------------------------------


def test_example_table_breakdown():
    result = score(json.loads((ROOT / "examples" / "sunflower-valley.json").read_text()))
    assert {p.name: (p.total, p.rank) for p in result.players} == {
        "Anna": (32, 2),
        "Boris": (24, 3),
        "Vera": (32, 1),
    }
    assert result.winners == ("Vera",)
    assert result.tiebreaks == ("tied on 32 points: Vera ahead of Anna on sunflowers (13 vs 12)",)


def test_example_layout_has_five_areas_of_five_and_five_mountains():
    layout = sv.parse_layout(sv.example_layout())
    areas = [c.area for c in layout.cells if not c.mountain]
    assert sorted(set(areas)) == ["blue", "green", "orange", "purple", "red"]
    assert all(areas.count(a) == 5 for a in set(areas))
    assert sum(c.mountain for c in layout.cells) == 5
    blank = sv.blank_sheet(sv.example_layout())
    doc = {"game": "sunflower-valley", "players": [{"name": "A", "cells": blank}]}
    assert any("25 empty hex" in w for w in score(doc).warnings)


def test_layout_rejects_drawings():
    layout = sv.example_layout()
    layout["cells"][0] = layout["cells"][0] | {"item": "house"}
    with pytest.raises(BoardError, match="a layout has nothing drawn on it"):
        sv.parse_layout(layout)
    # A layout is named as such, not as a board file.
    with pytest.raises(BoardError) as caught:
        sv.parse_layout(sv.example_layout() | {"orientation": "flat"})
    assert caught.value.problems == ["layout: unknown key 'orientation'"]


def test_rail_orientations_are_the_nine_legal_tracks():
    assert len(set(map(frozenset, sv.RAIL_ORIENTATIONS))) == 9
    for a, b in sv.RAIL_ORIENTATIONS:
        assert sv._check_track(a, b) == []


def test_every_category_key_present():
    assert list(cats(base())) == list(sv.CATEGORIES)
    assert axial_cells({(0, 0): "^"}) == [{"q": 0, "r": 0, "mountain": True}]


def test_valley_express_keys_are_plain_numbers():
    spec = line("H", "R03", "R03", "H")
    assert cats(axial_table(spec, valley_express={"02": 5}))["valley_express"] == 5
    for key in ("²", "٣", "two", "1", "9" * 5000):
        found = problems(axial_table(spec, valley_express={key: 4}))
        assert "is not a number of settlements" in found[0] and len(found[0]) < 100
    # Two keys for one size would leave its points to the keys' order in the file.
    found = problems(axial_table(spec, valley_express={"2": 4, "02": 100}))
    assert found == ["options, 'valley_express': '2' and '02' are both 2 settlements"]
    assert "the table is empty" in problems(axial_table(spec, valley_express={}))[0]


def test_sheet_shape_and_starting_house_warnings():
    result = score(axial_table(line("F"), line("H")))
    # One area, no mountain: it read "1 area(s) of 1 hexes and 0 mountain(s)".
    assert (
        "the sheet layout has 1 area (size 1) and no mountains; printed sheets have 5 areas of "
        "5 hexes and 5 mountains"
    ) in result.warnings
    two = score(axial_table(line("F/a", "./b", "./b", "^", "^", "^", "^", "^"), line("H")))
    assert any(
        w.startswith("the sheet layout has 2 areas (sizes 1/2) and 5 mountains;")
        for w in two.warnings
    ), two.warnings
    assert [w for w in result.warnings if "no house" in w] == [
        "Anna: no house on the sheet; every sheet starts with one"
    ]
    example = json.loads((ROOT / "examples" / "sunflower-valley.json").read_text())
    assert not any("printed sheets" in w for w in score(example).warnings)
