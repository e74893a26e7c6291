"""Flaky connections at the table, in real headless Chromium: a proxy's error page, a poll
answered late, a refused tap among others, a banner and the polls, an undo pressed twice.

Requests are held or answered by Playwright's routing (``page.route``); the server is the app
itself on loopback (the ``live_server`` fixture, CSRF on).
"""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest
from conftest import LiveServer
from webhelpers import engine_result, posted_table

from scorepad.web import db

pytestmark = pytest.mark.browser

LIVE = re.compile(r".*/live\?.*")  # the live poll


def open_table(page: Any, names: tuple[str, ...] = ("Anna", "Boris")) -> str:
    table_id = posted_table(page, names)
    page.goto(f"{page.base}/t/{table_id}")
    page.wait_for_selector("#editor #live", state="attached")
    return table_id


def tap(page: Any, tool: str, q: int, r: int) -> None:
    page.click(f"#palette input[value={tool}] + span")
    page.click(f'#editor [data-q="{q}"][data-r="{r}"]')


def draw(page: Any, tool: str, q: int, r: int) -> None:
    """A tap, and its answer on the board."""
    tap(page, tool, q, r)
    page.wait_for_selector(f'#editor [data-q="{q}"][data-r="{r}"][data-item="{tool}"]')


def draw_elsewhere(server: LiveServer, table_id: str, player: int, q: int, r: int) -> None:
    """Another phone draws a house: the table moves on without this page knowing."""

    def change(stored: db.StoredTable) -> tuple[dict[str, Any], dict[str, Any]]:
        doc = copy.deepcopy(stored.doc)
        for c in doc["players"][player]["cells"]:
            if (c["q"], c["r"]) == (q, r):
                c["item"] = "house"
        return doc, stored.meta

    with server.app.app_context():
        before = db.get_table(table_id).version
        assert db.edit_table(table_id, change).version == before + 1


def arrived(page: Any, held: list[Any]) -> None:
    """Wait (at most 5 s) until a route handler has held a request."""
    for _ in range(50):
        if held:
            return
        page.wait_for_timeout(100)
    raise AssertionError("the request was never sent")


def total(server: LiveServer, table_id: str, player: int) -> int:
    with server.app.app_context():
        return int(engine_result(db.get_table(table_id).doc).players[player].total)


def shown_total(page: Any, name: str) -> str:
    return str(page.text_content(f'#standings td[data-total="{name}"]')).strip()


def test_a_proxy_error_page_never_replaces_the_board(page: Any, live_server: LiveServer) -> None:
    table_id = open_table(page)
    answered: list[int] = []

    def bad_gateway(route: Any) -> None:  # the first tap meets a restarting server
        if not answered:
            answered.append(502)
            route.fulfill(status=502, content_type="text/html", body="<h1>502 Bad Gateway</h1>")
        else:
            route.continue_()

    page.route("**/tap", bad_gateway)
    tap(page, "house", 0, 0)
    page.wait_for_selector("#flash .flash-error")
    assert "may not be saved" in page.text_content("#flash")
    assert "Bad Gateway" not in page.content()
    # The board is still there and live, and fetched again as stored (nothing was).
    page.wait_for_selector("#editor #live", state="attached")
    page.wait_for_selector('#editor [data-q="0"][data-r="0"]:not(.queued)')
    draw(page, "house", 0, 0)
    # A poll meeting the same error is dropped quietly; the next one brings the news.
    page.route(LIVE, lambda route: route.fulfill(status=503, body=""), times=1)
    draw_elsewhere(live_server, table_id, 1, 0, 0)
    boris = "#standings td[data-total=Boris]"
    page.wait_for_function(
        "([sel, n]) => document.querySelector(sel).textContent.trim() == n",
        arg=[boris, str(total(live_server, table_id, 1))],
    )
    assert page.locator("#editor #live").count() == 1


def test_the_apps_own_server_error_is_shown_as_it_comes(page: Any, live_server: LiveServer) -> None:
    """The app's 5xx answers (a photo the recogniser failed on: the editor with the reason)
    carry Scorepad-Answer and are swapped in like any answer."""
    open_table(page)

    def as_500(route: Any) -> None:
        answer = route.fetch()
        assert answer.headers.get("scorepad-answer") == "1"
        route.fulfill(status=500, headers=answer.headers, body=answer.text())

    page.route("**/tap", as_500, times=1)
    draw(page, "house", 0, 0)
    assert page.locator("#flash .flash-error").count() == 0


def test_a_late_poll_never_puts_back_the_scores_before_a_tap(
    page: Any, live_server: LiveServer
) -> None:
    table_id = open_table(page)
    held: list[Any] = []

    def hold(route: Any) -> None:  # answered by the server now, delivered later
        held.append((route, route.fetch()))

    page.route(LIVE, hold, times=1)
    draw_elsewhere(live_server, table_id, 1, 0, 0)  # the poll's answer carries this change
    arrived(page, held)
    tap(page, "house", 0, 0)  # Anna's tap is answered first, with both changes
    page.wait_for_selector('#editor [data-q="0"][data-r="0"][data-item="house"]')
    anna = str(total(live_server, table_id, 0))
    assert shown_total(page, "Anna") == anna
    route, response = held[0]
    route.fulfill(response=response)
    page.wait_for_timeout(500)
    assert shown_total(page, "Anna") == anna  # not the older poll's 0
    assert shown_total(page, "Boris") == str(total(live_server, table_id, 1))


def test_a_refused_tap_is_still_said_after_the_taps_behind_it(
    page: Any, live_server: LiveServer
) -> None:
    table_id = open_table(page)
    page.route(LIVE, lambda route: route.abort())  # this page hears nothing of the change
    draw_elsewhere(live_server, table_id, 0, 2, 0)  # another phone edits Anna's sheet
    held: list[Any] = []
    page.route("**/tap", lambda route: held.append(route), times=1)
    page.click("#palette input[value=sheep] + span")
    page.click('#editor [data-q="0"][data-r="1"]')  # drawn from the old sheet: refused
    page.click('#editor [data-q="1"][data-r="0"]')  # queued behind it
    arrived(page, held)
    # The hex waiting is outlined in dashed blue (the plain white outline had won).
    waiting = page.locator('#editor [data-q="1"][data-r="0"].queued polygon').first
    assert waiting.evaluate("p => getComputedStyle(p).stroke") == "rgb(11, 98, 196)"
    held[0].continue_()  # the first answer comes after the second tap was made
    page.wait_for_selector('#editor [data-q="1"][data-r="0"][data-item="sheep"]')
    page.wait_for_timeout(300)
    assert "changed on another device" in str(page.text_content("#editor-message"))
    assert page.locator('#editor [data-q="0"][data-r="1"][data-item="sheep"]').count() == 0


def test_a_banner_stays_through_the_polls_until_the_player_acts(
    page: Any, live_server: LiveServer
) -> None:
    open_table(page)
    draw(page, "house", 0, 0)
    page.route("**/undo", lambda route: route.abort())
    page.click("#editor button:has-text('Undo')")
    page.wait_for_selector("#flash .flash-error")
    for _ in range(2):  # two polls answered meanwhile
        with page.expect_response(LIVE):
            pass
    assert "not saved" in page.text_content("#flash")
    page.unroute("**/undo")
    draw(page, "sheep", 0, 1)
    assert page.locator("#flash .flash-error").count() == 0


def test_an_undo_waiting_for_its_answer_cannot_be_pressed_again(
    page: Any, live_server: LiveServer
) -> None:
    open_table(page)
    draw(page, "house", 0, 0)
    held: list[Any] = []
    page.route("**/undo", lambda route: held.append(route))
    undo = "#editor button:has-text('Undo')"
    page.click(undo)
    page.wait_for_selector(f"{undo}[aria-busy=true]")
    arrived(page, held)
    page.click(undo)  # pressed again while the first is on its way: nothing more is sent
    page.wait_for_timeout(500)
    assert len(held) == 1
    held[0].continue_()
    page.wait_for_selector('#editor [data-q="0"][data-r="0"]:not([data-item="house"])')
    page.wait_for_timeout(500)
    assert len(held) == 1


def test_a_watched_page_says_when_its_scores_may_be_old(page: Any, live_server: LiveServer) -> None:
    table_id = open_table(page)
    page.goto(f"{page.base}/t/{table_id}/results")
    page.wait_for_selector("#live", state="attached")
    status = page.locator("#netstatus")
    page.route(LIVE, lambda route: route.abort())
    status.wait_for(state="visible", timeout=10_000)  # two polls unanswered
    assert "may be out of date" in status.inner_text()
    page.unroute(LIVE)
    status.wait_for(state="hidden", timeout=10_000)


def test_the_address_names_the_player_on_screen_after_a_tab_and_a_tap_cross(
    page: Any, live_server: LiveServer
) -> None:
    """Boris's tab is asked for, then a hex of Anna's board (still on screen) is tapped: both
    are answered in turn, the tap's last (Anna's board, as the tap was hers), and the
    address says Anna, not Boris."""
    open_table(page)
    held: list[Any] = []

    def hold_tab(route: Any) -> None:  # the tab's board, as the server has it now
        if "p=1" in route.request.url and route.request.method == "GET" and not held:
            held.append((route, route.fetch()))
        else:
            route.continue_()

    page.route(re.compile(r".*/t/[\w-]+\?p=1.*"), hold_tab)
    page.click("#editor .tabs a:nth-child(2)")  # Boris's tab, answered late
    arrived(page, held)
    tap(page, "house", 0, 0)  # on Anna's board, still on screen
    route, response = held[0]
    route.fulfill(response=response)
    page.wait_for_function("() => location.search.endsWith('p=0')")
    assert page.get_attribute("#editor", "data-player") == "0"
    # Boris's tab, alone, still shows Boris, and says so.
    page.click("#editor .tabs a:nth-child(2)")
    page.wait_for_selector("#editor[data-player='1']")
    assert page.url.endswith("p=1")


def test_back_walks_the_player_tabs_in_order(page: Any, live_server: LiveServer) -> None:
    table_id = open_table(page)
    page.goto(f"{page.base}/t/{table_id}?p=0")
    page.wait_for_selector("#editor[data-player='0']")
    for index in (2, 1):  # Boris, then Anna again
        page.click(f"#editor .tabs a:nth-child({index})")
        page.wait_for_selector(f"#editor[data-player='{index - 1}']")
    page.go_back()
    page.wait_for_selector("#editor[data-player='1']")
    assert page.url.endswith("p=1")
    page.go_back()
    page.wait_for_selector("#editor[data-player='0']")
    assert page.url.endswith("p=0")


def test_a_tab_meeting_a_proxy_error_says_so_and_keeps_the_address(
    page: Any, live_server: LiveServer
) -> None:
    table_id = open_table(page)
    page.goto(f"{page.base}/t/{table_id}?p=0")
    page.wait_for_selector("#editor[data-player='0']")
    page.route(
        re.compile(r".*/t/[\w-]+\?p=1.*"),
        lambda route: route.fulfill(status=502, body="<h1>502 Bad Gateway</h1>"),
        times=1,
    )
    page.click("#editor .tabs a:nth-child(2)")
    page.wait_for_selector("#flash .flash-error")
    assert page.get_attribute("#editor", "data-player") == "0" and page.url.endswith("p=0")


def test_an_answer_said_in_the_banner_leaves_no_hex_waiting(
    page: Any, live_server: LiveServer
) -> None:
    """An expired page (400) or the app's own 500 is said in the banner; the tapped hex is
    then no longer outlined as waiting."""
    open_table(page)
    expired = {"Scorepad-Answer": "1", "HX-Retarget": "#flash", "HX-Reswap": "innerHTML"}
    page.route(
        "**/tap",
        lambda route: route.fulfill(
            status=400, headers=expired, body='<div class="flash flash-error">Page expired</div>'
        ),
        times=1,
    )
    tap(page, "house", 0, 0)
    page.wait_for_selector("#flash .flash-error")
    page.wait_for_selector('#editor [data-q="0"][data-r="0"]:not(.queued)')
    assert page.locator("#editor .queued").count() == 0
