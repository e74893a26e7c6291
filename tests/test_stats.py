"""Players and history: statistics over finished tables."""

from __future__ import annotations

import json
from pathlib import Path

from scorepad import games
from scorepad.scoring import Result
from scorepad.stats import player_key, statistics

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def result(game: str, rename: dict[str, str] | None = None) -> Result:
    doc = json.loads((EXAMPLES / f"{game}.json").read_text())
    for p in doc["players"]:
        p["name"] = (rename or {}).get(p["name"], p["name"])
    return games.score_text(json.dumps(doc))


def test_plays_wins_best_and_averages_per_game():
    sv = result("sunflower-valley")  # Vera 32 wins, Anna 32, Boris 24
    sv2 = result("sunflower-valley", {"Vera": "Dasha"})
    roster = statistics([sv, sv2])
    anna = roster["anna"].games["sunflower-valley"]
    assert (anna.plays, anna.wins, anna.best, anna.average) == (2, 0, 32, 32.0)
    assert anna.category_averages["houses_with_sheep"] == 15.0
    vera = roster["vera"].games["sunflower-valley"]
    assert (vera.plays, vera.wins, vera.win_rate) == (1, 1, 1.0)
    assert roster["dasha"].wins == 1


def test_players_are_recognised_across_games_and_spelling():
    roster = statistics([result("seasons"), result("harmonies", {"Anna": " anna "})])
    assert set(roster["anna"].games) == {"seasons", "harmonies"}
    assert roster["anna"].plays == 2
    assert roster["anna"].name == " anna "
    assert player_key("  Vera   Ivanova ") == "vera ivanova"
    # A zero-width space pasted into a name, or full-width letters, look like the plain name.
    assert player_key("An\u200bna") == player_key("Ａｎｎａ") == player_key("ANNA\ufeff") == "anna"
    assert player_key("Anna B.") != player_key("Anna")


def test_shared_win_counts_for_each_winner():
    doc = json.loads((EXAMPLES / "seasons.json").read_text())
    doc["players"] = [doc["players"][0], dict(doc["players"][0], name="Twin")]
    roster = statistics([games.score_text(json.dumps(doc))])
    assert roster["anna"].wins == roster["twin"].wins == 1


def test_a_solo_game_is_a_play_but_not_a_win():
    doc = json.loads((EXAMPLES / "harmonies.json").read_text())
    doc["players"] = doc["players"][:1]  # Harmonies alone: the solo game (suns)
    solo = games.score_text(json.dumps(doc))
    name = doc["players"][0]["name"]
    both = result("harmonies")
    stats = statistics([solo, both])[player_key(name)].games["harmonies"]
    won = both.player(name).rank == 1
    assert (stats.plays, stats.solo_plays, stats.wins) == (2, 1, int(won))
    assert stats.win_rate == float(won)  # over the one play against others
    # The solo score is kept apart from the scores of plays against others.
    assert stats.solo_best == solo.players[0].total
    assert stats.solo_games == []  # only Spring Meadow's solo games make a campaign
    assert stats.totals == [both.player(name).total] and stats.best == both.player(name).total
    assert statistics([solo])[player_key(name)].games["harmonies"].win_rate == 0.0


def test_spring_meadow_solo_games_are_kept_for_the_campaign():
    rows = ["." * 10] * 14 + ["#" * 10]
    board = {"name": "Anna", "orientation": "vertical", "rows": rows}
    solo = games.score_text(
        json.dumps({"game": "spring-meadow", "players": [{**board, "solo_values": [12]}]})
    )
    lone = games.score_text(json.dumps({"game": "spring-meadow", "players": [board]}))
    stats = statistics([solo, lone, solo])[player_key("Anna")].games["spring-meadow"]
    # The lone board is one player's board of a larger game, scored as a phase: no campaign.
    assert stats.solo_plays == 3 and stats.solo_games == [(12, None), (12, None)]
