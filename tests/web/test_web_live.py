"""Live tables: cheap polls, fresh standings after another phone's edit, the big screen."""

from __future__ import annotations

import re

import pytest
from flask import Flask
from flask.testing import FlaskClient
from webhelpers import HX, SV_FORM, engine_result, new_table, stored_doc, tap

from scorepad.web import editor, live


@pytest.fixture
def table_id(client: FlaskClient) -> str:
    return new_table(client, SV_FORM, ["Anna", "Boris"])


def phone(app: Flask) -> FlaskClient:
    return app.test_client()


def live_url(html: str) -> str:
    found = re.search(r'<div id="live" hx-get="([^"]+)"', html)
    assert found, "the page does not poll"
    return found.group(1).replace("&amp;", "&")


def test_pages_poll_every_one_and_a_half_seconds(client: FlaskClient, table_id: str) -> None:
    for url in (f"/t/{table_id}", f"/t/{table_id}/results", f"/t/{table_id}/screen"):
        html = client.get(url).get_data(as_text=True)
        assert 'hx-trigger="every 1500ms [!document.hidden]"' in html, url
        assert live.POLL_MS == 1500
        assert "v=1" in live_url(html)


def test_an_unchanged_poll_is_204_and_renders_nothing(
    client: FlaskClient, table_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = live_url(client.get(f"/t/{table_id}").get_data(as_text=True))

    def no_scoring(*_args: object, **_kw: object) -> None:
        raise AssertionError("an unchanged poll must not score or render the table")

    monkeypatch.setattr(live, "editor_context", no_scoring)
    monkeypatch.setattr(editor, "scored", no_scoring)
    resp = client.get(url, headers=HX)
    assert resp.status_code == 204 and resp.data == b""
    assert resp.headers["ETag"] == '"v1-en"'
    # Without ``v``, the ETag does the same for any HTTP client, in the same language.
    plain = client.get(f"/t/{table_id}/live?view=editor", headers={"If-None-Match": '"v1-en"'})
    assert plain.status_code == 304
    monkeypatch.undo()
    # Each phone reads its own seat as "you": no shared cache may keep one phone's copy.
    for answer in (resp, plain, client.get(f"/t/{table_id}/live?view=editor")):
        assert answer.headers["Cache-Control"] == "private, no-cache"
        assert "Cookie" in answer.headers["Vary"]
    # A poll in another language is drawn again.
    russian = {"If-None-Match": '"v1-en"', "Accept-Language": "ru"}
    assert client.get(f"/t/{table_id}/live?view=editor", headers=russian).status_code == 200


def test_another_phones_edit_reaches_the_standings(
    app: Flask, client: FlaskClient, table_id: str
) -> None:
    boris = phone(app)
    boris.post(f"/t/{table_id}/join", data={"seat": "1"})
    url = live_url(client.get(f"/t/{table_id}?p=0").get_data(as_text=True))
    tap(boris, table_id, p=1, tool="house", q=0, r=0)
    tap(boris, table_id, p=1, tool="sheep", q=0, r=1)
    resp = client.get(url, headers=HX)
    html = resp.get_data(as_text=True)
    assert resp.status_code == 200 and resp.headers["ETag"] == '"v3-en"'
    total = engine_result(stored_doc(app, table_id)).players[1].total
    shown = re.search(r'data-total="Boris" class="[^"]*">(-?\d+)<', html)
    assert shown and int(shown.group(1)) == total != 0
    assert '<div id="standings" hx-swap-oob="true">' in html
    assert 'id="player-tabs"' in html and 'hx-swap-oob="true"' in html
    # Its tab reads "Boris, 3 points" aloud; the bare number is for the eye.
    assert f'<span class="sr-only">, {total} points</span>' in html
    # The new #live polls from the new version, for the board shown (Anna's).
    assert "v=3" in live_url(html) and "p=0" in live_url(html)
    assert client.get(live_url(html), headers=HX).status_code == 204


def test_a_poll_tells_which_board_changed(app: Flask, client: FlaskClient, table_id: str) -> None:
    """The poll carries the sheet tag of the board on screen; live.js refetches the board
    when it differs (e.g. the host edited this phone's board)."""
    boris = phone(app)
    boris.post(f"/t/{table_id}/join", data={"seat": "1"})
    page = boris.get(f"/t/{table_id}").get_data(as_text=True)
    before = re.search(r'id="editor" data-version="\d+" data-sheet="(\w+)"', page)
    assert before
    tap(client, table_id, p=1, tool="house", q=0, r=0)
    html = boris.get(live_url(page), headers=HX).get_data(as_text=True)
    after = re.search(r'<div id="live"[^>]*data-sheet="(\w+)"', html)
    assert after and after.group(1) != before.group(1)
    assert after.group(1) == editor.sheet_tag(stored_doc(app, table_id), 1)


def test_results_and_big_screen_follow_the_table(
    app: Flask, client: FlaskClient, table_id: str
) -> None:
    watcher = phone(app)
    results_poll = live_url(watcher.get(f"/t/{table_id}/results").get_data(as_text=True))
    screen_poll = live_url(watcher.get(f"/t/{table_id}/screen").get_data(as_text=True))
    assert "view=results" in results_poll and "view=screen" in screen_poll
    tap(client, table_id, p=1, tool="house", q=0, r=0)
    tap(client, table_id, p=1, tool="sheep", q=0, r=1)
    total = engine_result(stored_doc(app, table_id)).players[1].total
    for url, swapped in ((results_poll, 'id="results"'), (screen_poll, 'id="screen-body"')):
        html = watcher.get(url, headers=HX).get_data(as_text=True)
        assert re.search(rf'<\w+ {swapped} hx-swap-oob="true"', html), url
        shown = re.search(r'data-total="Boris" class="[^"]*">(-?\d+)<', html)
        assert shown and int(shown.group(1)) == total


def test_finishing_slows_polling_and_reopening_brings_pages_back(
    app: Flask, client: FlaskClient, table_id: str
) -> None:
    boris = phone(app)
    editor_poll = live_url(boris.get(f"/t/{table_id}").get_data(as_text=True))
    screen_poll = live_url(boris.get(f"/t/{table_id}/screen").get_data(as_text=True))
    client.post(f"/t/{table_id}/finish")
    resp = boris.get(editor_poll, headers=HX)
    assert resp.headers["HX-Redirect"] == f"/t/{table_id}/results"
    screen = boris.get(screen_poll, headers=HX).get_data(as_text=True)
    assert "Final result" in screen and f"every {live.FINISHED_POLL_MS}ms" in screen
    for url in (f"/t/{table_id}", f"/t/{table_id}/results", f"/t/{table_id}/screen"):
        html = boris.get(url).get_data(as_text=True)
        assert f'hx-trigger="every {live.FINISHED_POLL_MS}ms' in html, url
    # The day it finished, for the phone to show in its own zone and language.
    results = boris.get(f"/t/{table_id}/results").get_data(as_text=True)
    assert re.search(r'finished on <time datetime="\d{4}-\d\d-\d\dT[\d:]{8}Z">', results)
    results_poll = live_url(results)
    assert boris.get(results_poll, headers=HX).status_code == 204  # nothing can change...
    client.post(f"/t/{table_id}/reopen")  # ...but the host reopens it
    html = boris.get(results_poll, headers=HX).get_data(as_text=True)
    assert "Final result" not in html and 'hx-trigger="every 1500ms' in html
    assert re.search(r'<\w+ id="results" hx-swap-oob="true"', html)


def test_the_big_screen_picks_no_player_and_waits_for_points(
    app: Flask, client: FlaskClient, table_id: str
) -> None:
    """No column of the big screen's table is the "current" player's (it is nobody's
    phone), and before anyone scores it says so rather than naming everyone as leading."""
    html = phone(app).get(f"/t/{table_id}/screen").get_data(as_text=True)
    assert 'class="current' not in html
    assert re.search(r'id="screen-leaders">No points yet.<', html)
    tap(client, table_id, p=0, tool="house", q=0, r=0)
    tap(client, table_id, p=0, tool="sheep", q=0, r=1)
    html = phone(app).get(f"/t/{table_id}/screen").get_data(as_text=True)
    assert re.search(r'id="screen-leaders">Leading: Anna<', html)
    assert 'class="current' not in html


def test_the_big_screen_is_read_only(app: Flask, client: FlaskClient, table_id: str) -> None:
    tap(client, table_id, p=0, tool="house", q=0, r=0)
    html = phone(app).get(f"/t/{table_id}/screen").get_data(as_text=True)
    assert 'class="screen"' in html
    assert " data-tap " not in html and "<form" not in html.split('id="screen"')[1]
    assert html.count('data-board="sunflower-valley"') == 2  # every board
    result = engine_result(stored_doc(app, table_id))
    assert f"Leading: {', '.join(result.winners)}" in html
    code = re.search(r'class="join-code">(\w+)<', html)
    assert code  # so more phones can join from the big screen


def test_a_poll_of_a_deleted_table_stops_the_polling(client: FlaskClient, table_id: str) -> None:
    """The host deleted the table while another page of it was open: its poll got the 404
    page in its banner every 1.5 s. It gets 286 (htmx stops polling) and a banner saying the
    table was deleted; outside htmx the address is the usual 404."""
    url = live_url(client.get(f"/t/{table_id}").get_data(as_text=True))
    assert client.post(f"/t/{table_id}/delete").status_code == 303
    resp = client.get(url, headers=HX)
    html = resp.get_data(as_text=True)
    assert resp.status_code == live.STOP_POLLING == 286
    assert resp.headers["HX-Retarget"] == "#flash" and resp.headers["HX-Reswap"] == "innerHTML"
    assert "Table deleted" in html and "no longer exists" in html and "data-lasting" in html
    assert "Not found" not in html
    assert client.get(url).status_code == 404
