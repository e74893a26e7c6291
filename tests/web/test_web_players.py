"""Players and history: the roster on the new-table form, statistics over finished tables."""

from __future__ import annotations

import json
import re
from html import unescape
from statistics import mean
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from webhelpers import SV_FORM, engine_result, new_table, stored_doc, tap

from scorepad import games
from scorepad.games import spring_meadow as sm
from scorepad.web import db, players


def player_block(html: str, name: str) -> str:
    found = re.search(rf'<article class="card player-stats" data-player="{name}">(.*?)</article>',
                      html, re.S)  # fmt: skip
    assert found, f"no statistics for {name}"
    return found.group(1)


def stat(block: str, key: str) -> str:
    found = re.search(rf'data-stat="{key}">([^<]*)<', block)
    assert found, key
    return found.group(1)


def test_with_no_finished_table_the_way_to_finish_one_is_said_truly(
    client: FlaskClient,
) -> None:
    """The statistics said tables are finished from "Invite & seats"; the results page has
    "Finish table" too, and a solo table (no one to invite) shows its host no link to
    "Invite & seats" at all. The text names the results page's button."""
    said = unescape(client.get("/players").get_data(as_text=True))
    assert "The host finishes a table with “Finish table” on its results page" in said
    solo = new_table(client, SV_FORM, ["Anna"])
    assert 'id="seats-link"' not in client.get(f"/t/{solo}").get_data(as_text=True)
    results = client.get(f"/t/{solo}/results").get_data(as_text=True)
    assert re.search(r'<button type="submit" id="finish">Finish table</button>', results)


def test_roster_suggests_recurring_names(app: Flask, client: FlaskClient) -> None:
    new_table(client, SV_FORM, ["Anna", "Boris"])
    new_table(client, SV_FORM, ["anna ", "Vera"])
    new_table(client, SV_FORM, ["Vera", "ANNA", "Gleb"])
    new_table(app.test_client(), SV_FORM, ["Stranger"])  # another phone's table
    html = client.get("/new").get_data(as_text=True)
    datalist = re.search(r'<datalist id="roster">(.*?)</datalist>', html, re.S)
    assert datalist and 'list="roster"' in html
    names = re.findall(r'<option value="([^"]+)">', datalist.group(1))
    # Most played first ("Anna" in any spelling: 3 tables), each name once, as last written.
    assert names[0] == "ANNA" and names[1] == "Vera"
    assert sorted(names[2:]) == ["Boris", "Gleb"]
    assert "Stranger" not in html
    assert "<datalist" not in app.test_client().get("/new").get_data(as_text=True)


def test_statistics_over_finished_tables(app: Flask, client: FlaskClient) -> None:
    first = new_table(client, SV_FORM, ["Anna", "Boris"])
    tap(client, first, p=0, tool="house", q=0, r=0)
    tap(client, first, p=0, tool="sheep", q=0, r=1)
    second = new_table(client, SV_FORM, ["anna", "Vera"])
    tap(client, second, p=1, tool="house", q=0, r=0)
    tap(client, second, p=1, tool="sheep", q=0, r=1)
    tap(client, second, p=1, tool="sunflower", q=1, r=0)
    unfinished = new_table(client, SV_FORM, ["Anna", "Boris"])
    tap(client, unfinished, p=1, tool="house", q=0, r=0)
    for table_id in (first, second):
        client.post(f"/t/{table_id}/finish")
    results = [engine_result(stored_doc(app, t)) for t in (first, second)]
    anna = [r.players[0] for r in results]

    html = client.get("/players").get_data(as_text=True)
    assert "2 tables" in html
    block = player_block(html, "anna")  # as most recently written
    assert stat(block, "plays") == "2"
    assert stat(block, "wins") == str(sum(p.rank == 1 for p in anna))
    assert stat(block, "best") == str(max(p.total for p in anna))
    assert stat(block, "average") == f"{mean(p.total for p in anna):.1f}"
    game = games.get("sunflower-valley")
    for key, label in game.categories.items():
        shown = re.search(rf'data-category="{re.escape(label)}">([^<]*)<', block)
        assert shown, label
        assert shown.group(1) == f"{mean(p.categories[key] for p in anna):.1f}"
    # Folded under the game's figures: listed open, a player took a phone screen or two.
    folded = block.index('<details class="category-averages')
    assert folded < block.index("data-category=") and block.index('data-stat="average"') < folded
    vera = results[1].players[1]
    assert stat(player_block(html, "Vera"), "plays") == "1"
    assert stat(player_block(html, "Vera"), "best") == str(vera.total)
    boris = player_block(html, "Boris")
    assert stat(boris, "plays") == "1"  # the unfinished table does not count
    # Another phone has no history of these tables.
    assert "data-player=" not in app.test_client().get("/players").get_data(as_text=True)


def test_statistics_say_when_older_tables_are_left_out(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(players, "STATS_TABLES", 2)
    for names in (["Old", "Boris"], ["Anna", "Boris"], ["Anna", "Vera"]):
        table_id = new_table(client, SV_FORM, names)
        client.post(f"/t/{table_id}/finish")
        html = client.get("/players").get_data(as_text=True)
        assert ("Older tables are left out." in html) == (names[0] == "Anna" and names[1] == "Vera")
    assert "2 tables" in html and 'data-player="Old"' not in html  # the newest two only


def test_statistics_read_again_only_the_tables_not_scored_yet(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    for names in (["Anna", "Boris"], ["Anna", "Vera"]):
        table_id = new_table(client, SV_FORM, names)
        tap(client, table_id, p=0, tool="house", q=0, r=0)
        client.post(f"/t/{table_id}/finish")
    first = client.get("/players").get_data(as_text=True)
    read: list[int] = []
    real = db.get_tables
    monkeypatch.setattr(db, "get_tables", lambda ids: read.append(len(ids)) or real(ids))
    again = client.get("/players").get_data(as_text=True)

    def stats(html: str) -> str:  # the statistics alone (the page's CSRF token has a time)
        return html[html.index('<section id="players">') :].split("</section>")[0]

    assert read == [0] and stats(again) == stats(first)  # every result known: nothing read
    table_id = new_table(client, SV_FORM, ["Anna", "Gleb"])
    client.post(f"/t/{table_id}/finish")
    html = client.get("/players").get_data(as_text=True)
    assert read == [0, 1] and "3 tables" in html and 'data-player="Gleb"' in html


def test_a_solo_table_is_a_play_but_no_win(client: FlaskClient) -> None:
    solo = new_table(client, SV_FORM, ["Anna"])
    client.post(f"/t/{solo}/finish")
    block = player_block(client.get("/players").get_data(as_text=True), "Anna")
    assert (stat(block, "plays"), stat(block, "solo"), stat(block, "wins")) == ("1", "1", "0")
    # Alone at an empty practice sheet: the +5 for the most residents.
    assert stat(block, "solo-best") == "5" and 'data-stat="best"' not in block
    assert "1 play, 0 wins" in block  # plural forms, each number its own


def test_averages_in_the_players_language(client: FlaskClient) -> None:
    table_id = new_table(client, SV_FORM, ["Anna", "Boris"])
    tap(client, table_id, p=0, tool="house", q=0, r=0)
    client.post(f"/t/{table_id}/finish")
    client.get("/lang/ru")
    block = player_block(client.get("/players").get_data(as_text=True), "Anna")
    assert "1 партия, " in block and re.search(r"\d+ побед[аы]?<", block)
    assert re.fullmatch(r"\d+,\d", stat(block, "average"))  # a decimal comma in Russian


def solo_meadow(client: FlaskClient, side: str, values: list[int]) -> str:
    """A finished solo Spring Meadow table on board side ``side`` (the example's burrows)."""
    layout = {**sm.dump_layout(sm.example_layout()), "name": side}
    board: Any = sm.empty_board("vertical", sm.parse_layout(layout))
    for line in range(1, len(values) + 1):
        board = sm.fill_row(board, "vertical", line)
    player = {"name": "Anna", "rows": list(board), "layout": side, "solo_values": values}
    doc = {"game": "spring-meadow", "options": {"layouts": [layout]}, "players": [player]}
    resp = client.post("/import", data={"text": json.dumps(doc)}, headers={"HX-Request": "true"})
    table_id = resp.headers["HX-Redirect"].rsplit("/", 1)[-1]
    assert client.post(f"/t/{table_id}/finish").status_code in (200, 303)
    return table_id


def test_spring_meadow_solo_games_make_a_campaign(client: FlaskClient) -> None:
    # Rulebook, "Кампания": 4 games on 4 different boards, 600 points in all.
    for side, values in (("Side 1", [15] * 10), ("Side 2", [14] * 10), ("Side 3", [16] * 10)):
        solo_meadow(client, side, values)
    block = player_block(client.get("/players").get_data(as_text=True), "Anna")
    campaign = re.search(r'<li data-campaign="1" data-total="450">(.*?)</li>', block, re.S)
    assert campaign, block
    assert "150 + 140 + 160 = <strong>450</strong>" in campaign.group(1)
    assert "1 game to play, 150 points to go" in campaign.group(1)
    solo_meadow(client, "Side 2", [14] * 10)  # the fourth game, on a board already played
    for side in ("Side 5", "Side 6", "Side 7", "Side 8"):  # the next campaign
        solo_meadow(client, side, [15] * 10)
    block = player_block(client.get("/players").get_data(as_text=True), "Anna")
    assert block.index('data-campaign="2"') < block.index('data-campaign="1"')  # newest first
    first = re.search(r'<li data-campaign="1" data-total="590">(.*?)</li>', block, re.S)
    assert first and "10 short of 600" in first.group(1)
    assert "Board “Side 2” played twice: a campaign plays four different boards." in first.group(1)
    second = re.search(r'data-campaign="2" data-total="600" data-reached>(.*?)</li>', block, re.S)
    assert second and "600 reached" in second.group(1) and "played twice" not in second.group(1)
    assert stat(block, "solo") == "8" and stat(block, "solo-best") == "160"


def test_no_campaign_outside_spring_meadow_solo(client: FlaskClient) -> None:
    solo = new_table(client, SV_FORM, ["Anna"])
    client.post(f"/t/{solo}/finish")
    assert "Solo campaign" not in client.get("/players").get_data(as_text=True)
