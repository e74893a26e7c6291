"""Players and history: the roster on the new-table form, statistics over finished tables."""

from __future__ import annotations

import re
from statistics import mean

from flask import Flask
from flask.testing import FlaskClient
from webhelpers import SV_FORM, engine_result, new_table, stored_doc, tap

from scorepad import games


def player_block(html: str, name: str) -> str:
    found = re.search(rf'<article class="card player-stats" data-player="{name}">(.*?)</article>',
                      html, re.S)  # fmt: skip
    assert found, f"no statistics for {name}"
    return found.group(1)


def stat(block: str, key: str) -> str:
    found = re.search(rf'data-stat="{key}">([^<]*)<', block)
    assert found, key
    return found.group(1)


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
    vera = results[1].players[1]
    assert stat(player_block(html, "Vera"), "plays") == "1"
    assert stat(player_block(html, "Vera"), "best") == str(vera.total)
    boris = player_block(html, "Boris")
    assert stat(boris, "plays") == "1"  # the unfinished table does not count
    # Another phone has no history of these tables.
    assert "data-player=" not in app.test_client().get("/players").get_data(as_text=True)


def test_a_solo_table_is_a_play_but_no_win(client: FlaskClient) -> None:
    solo = new_table(client, SV_FORM, ["Anna"])
    client.post(f"/t/{solo}/finish")
    block = player_block(client.get("/players").get_data(as_text=True), "Anna")
    assert (stat(block, "plays"), stat(block, "solo"), stat(block, "wins")) == ("1", "1", "0")
    # Alone at an empty practice sheet: the +5 for the most residents.
    assert stat(block, "solo-best") == "5" and 'data-stat="best"' not in block
