"""Two phones at one table, in real headless Chromium: two browser contexts (two cookie jars)
join one table, each enters its own board, each sees the other's progress live, and both
end on the same final result; a third context without a seat cannot edit.

Expected scores are worked out by hand from the rules digest (``shared/rules/README.md``).
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import cv2
import numpy as np
import pytest
from conftest import LiveServer
from webhelpers import choose_game

pytestmark = pytest.mark.browser

#: Polls every 1.5 s: another phone's edit must show within 2 s.
LIVE_MS = 2000
#: The phones' time zone, not the server's (UTC): times show in the phone's.
PHONE_ZONE = "Asia/Kolkata"


@pytest.fixture
def phones(browser: Any, live_server: LiveServer) -> Iterator[list[Any]]:
    contexts, pages, errors = [], [], []
    for _ in range(3):
        context = browser.new_context(
            viewport={"width": 390, "height": 844}, has_touch=True, timezone_id=PHONE_ZONE
        )
        page = context.new_page()
        page.set_default_timeout(20_000)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("dialog", lambda d: d.accept())  # "Finish the table?"
        contexts.append(context)
        pages.append(page)
    yield pages
    for context in contexts:
        context.close()
    assert not errors, f"JavaScript errors: {errors}"


def start_anna_and_boris(host: Any, base: str, game: str = "sunflower-valley") -> str:
    """The host starts a table of ``game`` for Anna and Boris: its id."""
    host.goto(base + "/new")
    choose_game(host, game)
    host.fill("input[name=name_0]", "Anna")
    host.fill("input[name=name_1]", "Boris")
    host.click("#new-form button[type=submit]")
    host.wait_for_url(re.compile(r".*/t/[\w-]{22}$"))
    return str(host.url.rsplit("/", 1)[1])


def seat_boris(guest: Any, base: str, table: str) -> None:
    """The guest's phone takes Boris's seat from the table's join page."""
    guest.goto(f"{base}/t/{table}/join")
    guest.click("button.seat-claim:has-text('Boris')")
    guest.wait_for_selector("#editor[data-player='1']")


def draw(page: Any, tool: str, q: int, r: int) -> None:
    page.click(f"#palette input[value='{tool}'] + span")
    page.click(f'#editor [data-q="{q}"][data-r="{r}"]')
    page.wait_for_selector(f'#editor [data-q="{q}"][data-r="{r}"][data-item="{tool}"]')


def total_shows(page: Any, name: str, value: str) -> float:
    """Seconds until ``page`` shows ``name``'s total as ``value`` without any action on it."""
    start = time.monotonic()
    page.wait_for_function(
        """([n, v]) => {
          const td = document.querySelector(`#standings td[data-total="${n}"]`);
          return td && td.textContent.trim() === v;
        }""",
        arg=[name, value],
        timeout=LIVE_MS + 3000,  # fail with the measured time below rather than a timeout
    )
    return time.monotonic() - start


def standings(page: Any) -> dict[str, dict[str, str]]:
    return page.evaluate(
        """() => {
        const t = document.querySelector('#results table.scores');
        const names = [...t.querySelectorAll('thead th')].slice(1).map(th => th.textContent.trim());
        const out = {};
        for (const tr of t.querySelectorAll('tbody tr')) {
          out[tr.querySelector('th').textContent.trim()] = Object.fromEntries(
            [...tr.querySelectorAll('td')].map((td, i) => [names[i], td.textContent.trim()]));
        }
        return out;
      }"""
    )


def test_two_phones_play_one_table(phones: list[Any], live_server: LiveServer) -> None:
    host, guest, stranger = phones
    base = live_server.url
    live_server.app.config["FINISHED_POLL_MS"] = LIVE_MS  # the guest notices a reopening soon
    # The host starts a table for Anna and Boris and takes Anna's seat.
    table = start_anna_and_boris(host, base)
    host.goto(f"{base}/t/{table}/seats")
    assert host.locator("#join-qr svg").count() == 1
    # The code as the screen shows it scans to the table's join address (a fixed-size
    # drawing in a smaller box was cut off, and no phone could read it).
    shot = host.locator("#join-qr svg").screenshot()
    pixels = cv2.imdecode(np.frombuffer(shot, np.uint8), cv2.IMREAD_GRAYSCALE)
    read, _points, _code = cv2.QRCodeDetector().detectAndDecode(pixels)
    assert read == f"{base}/t/{table}/join"
    code = host.text_content("#join-code").strip()
    host.goto(f"{base}/t/{table}/join")
    host.click("button.seat-claim:has-text('Anna')")
    host.wait_for_selector("#editor[data-player='0']")

    # The guest types the join code (as people do: lower case, a space) and takes Boris.
    guest.goto(base + "/join")
    guest.fill("input[name=code]", f"{code[:3].lower()} {code[3:].lower()}")
    guest.click("#code-form button[type=submit]")
    guest.wait_for_selector("#seat-list")
    assert guest.locator("#seat-list li[data-seat='0'] .badge").text_content() == "taken"
    guest.click("button.seat-claim:has-text('Boris')")
    guest.wait_for_selector("#editor[data-player='1']")
    host.goto(f"{base}/t/{table}/seats")  # when Boris's phone joined, in the host's time
    stamp = host.get_attribute("#seat-list li[data-seat='1'] time[data-clock]", "datetime")
    assert stamp
    joined = datetime.fromisoformat(stamp.replace("Z", "+00:00")).astimezone(ZoneInfo(PHONE_ZONE))
    shown = host.text_content("#seat-list li[data-seat='1'] time[data-clock]")
    assert shown == f"{joined.hour % 12 or 12}:{joined.minute:02d} {joined.strftime('%p')}"
    host.goto(f"{base}/t/{table}")
    host.wait_for_selector("#editor[data-player='0']")

    # Boris: a settlement of two houses and one sheep (+3 − 5), an orange sunflower (+3)
    # next to mountain (4, 2) (+1), 4 residents, the most (+5): 7.
    draw(guest, "house", 2, 2)
    draw(guest, "house", 2, 3)
    draw(guest, "sheep", 3, 3)
    draw(guest, "sunflower", 5, 1)
    seen = total_shows(host, "Boris", "7")  # on Anna's phone, which did nothing
    assert seen <= LIVE_MS / 1000, f"the host saw Boris's edit after {seen:.1f} s"

    # Anna: a house with its adjacent sheep (+3), two blue sunflowers (blue area: +3), both
    # next to mountain (1, 1) (+2), one next to mountain (2, 1) (+1); 2 residents, second
    # most (+3): 12.
    draw(host, "house", 0, 0)
    draw(host, "sheep", 0, 1)
    draw(host, "sunflower", 1, 0)
    draw(host, "sunflower", 1, 2)
    seen = total_shows(guest, "Anna", "12")
    assert seen <= LIVE_MS / 1000, f"the guest saw Anna's edit after {seen:.1f} s"

    # The host corrects Boris's board and takes it back: Boris's phone redraws its board.
    host.click("#player-tabs a:nth-child(2)")
    host.wait_for_selector("#editor[data-player='1']")
    draw(host, "sunflower", 0, 0)
    sunflower = '#editor[data-player="1"] [data-q="0"][data-r="0"][data-item="sunflower"]'
    start = time.monotonic()
    guest.wait_for_selector(sunflower, timeout=LIVE_MS + 3000)
    assert time.monotonic() - start <= LIVE_MS / 1000
    host.click("#editor button:has-text('Undo')")  # sends the version the host saw
    host.wait_for_selector('#editor [data-q="0"][data-r="0"][data-item=""]')
    guest.wait_for_selector(sunflower, state="detached", timeout=LIVE_MS + 3000)

    # Anna's board is read-only on Boris's phone.
    guest.click("#player-tabs a:nth-child(1)")
    guest.wait_for_selector("#editor[data-player='0'] #readonly-note")
    assert guest.locator("#editor [data-tap]").count() == 0
    idle = "getComputedStyle(document.querySelector('#palette')).pointerEvents"
    assert guest.evaluate(idle) == "none"  # the palette is idle over a board it cannot edit
    guest.click("#player-tabs a:nth-child(2)")
    guest.wait_for_selector("#editor[data-player='1']")
    assert guest.evaluate(idle) == "auto"
    you = guest.locator("#player-tabs a:nth-child(2) .you")
    assert you.evaluate("e => parseFloat(getComputedStyle(e).marginLeft)") > 0  # "Boris (you)"
    guest.click("#player-tabs a:nth-child(1)")
    guest.wait_for_selector("#editor[data-player='0'] #readonly-note")

    # A third phone without a seat: it sees the table, cannot take a seat, cannot edit.
    stranger.goto(f"{base}/t/{table}")
    stranger.wait_for_selector("#editor #readonly-note")
    assert stranger.locator("#editor [data-tap]").count() == 0
    assert stranger.locator("#palette").count() == 0
    token = stranger.get_attribute("meta[name=csrf-token]", "content")
    answer = stranger.request.post(
        f"{base}/t/{table}/tap",
        form={"p": "0", "tool": "sunflower", "q": "0", "r": "2"},
        headers={"X-CSRFToken": token, "HX-Request": "true"},
    )
    assert answer.status == 403
    stranger.goto(f"{base}/t/{table}/join")
    assert stranger.locator("button.seat-claim").count() == 0  # both seats are taken

    # The host finishes the table: both phones land on the same final result.
    guest.click("#player-tabs a:nth-child(2)")
    guest.wait_for_selector("#editor[data-player='1']")
    host.goto(f"{base}/t/{table}/seats")
    host.click("#finish")
    host.wait_for_url(f"{base}/t/{table}/results")
    guest.wait_for_url(f"{base}/t/{table}/results", timeout=LIVE_MS + 3000)
    for page in (host, guest):
        page.wait_for_selector("#finished-note")
        assert page.text_content("#winner").strip() == "Winner: Anna"
    final = standings(host)
    assert final == standings(guest)
    assert final["Total"] == {"Anna": "12", "Boris": "7"}
    assert final["E. Residents"] == {"Anna": "3", "Boris": "5"}
    # Finished: no phone edits any more, not even the host.
    host.goto(f"{base}/t/{table}")
    assert host.locator("#editor [data-tap]").count() == 0
    # Its pages only poll slowly, for a reopening: the guest's results come back to life.
    live = str(host.get_attribute("#live", "hx-trigger"))
    assert live.startswith(f"every {live_server.app.config['FINISHED_POLL_MS']}ms")
    host.goto(f"{base}/t/{table}/seats")
    host.click("#reopen")
    guest.wait_for_selector("#finished-note", state="detached", timeout=LIVE_MS + 3000)
    guest.wait_for_selector("#finish-bar")


def test_a_seated_phones_undo_follows_the_tables_last_step(
    phones: list[Any], live_server: LiveServer
) -> None:
    """Boris's Undo is disabled, with the reason, while the table's last step is on Anna's
    board, and enabled again once the host undoes it: the live poll redraws the buttons,
    though Boris's own board never changed (they stayed as first drawn)."""
    host, guest, _ = phones
    base = live_server.url
    live_server.app.config["LIVE_POLL_MS"] = 500
    table = start_anna_and_boris(host, base)
    seat_boris(guest, base, table)
    draw(guest, "house", 0, 0)  # Boris's own step
    undo = "#editor .undo button >> nth=0"
    assert guest.locator(undo).is_enabled()
    host.goto(f"{base}/t/{table}?p=0")
    draw(host, "house", 0, 0)  # the host's step on Anna's board
    guest.wait_for_selector("#undo-refused", timeout=5000)
    assert guest.locator(undo).is_disabled()
    assert "Anna" in guest.text_content("#undo-refused")
    host.click("#editor .undo button >> nth=0")  # the host undoes Anna's house
    host.wait_for_selector('#editor [data-q="0"][data-r="0"]:not([data-item="house"])')
    guest.wait_for_selector("#undo-refused", state="detached", timeout=5000)
    assert guest.locator(undo).is_enabled()
    assert guest.get_attribute('#editor [data-q="0"][data-r="0"]', "data-item") == "house"


def test_another_phones_step_leaves_a_field_being_typed_alone(
    phones: list[Any], live_server: LiveServer
) -> None:
    """Boris types his tally while the host draws on Anna's board: the host's step changes
    Boris's Undo (so the poll redraws his editor), and the redraw put the stored tally back
    under his cursor; the typed one was lost unsaid. It now waits for the field to be left,
    and the tally typed is stored."""
    host, guest, _ = phones
    base = live_server.url
    live_server.app.config["LIVE_POLL_MS"] = 500
    table = start_anna_and_boris(host, base)
    seat_boris(guest, base, table)
    draw(guest, "house", 0, 0)  # Boris's own step: his Undo is enabled
    tally = "#editor input[name=residents]"
    guest.click(tally)
    guest.keyboard.type("7")
    host.goto(f"{base}/t/{table}?p=0")
    draw(host, "house", 0, 0)  # the table's last step is now on Anna's board
    guest.wait_for_timeout(2000)  # several polls see it
    assert guest.input_value(tally) == "7"
    assert guest.evaluate("document.activeElement.name") == "residents"
    guest.keyboard.press("Tab")  # left: sent (the table's last step is Boris's again)
    guest.wait_for_selector(f"{tally}[value='7']", timeout=5000)
    with live_server.app.app_context():
        from scorepad.web import db

        assert db.get_table(table).doc["players"][1]["residents"] == 7


def test_a_tally_typed_while_the_host_draws_on_the_same_sheet_is_kept(
    phones: list[Any], live_server: LiveServer
) -> None:
    """The host draws on Boris's own sheet while Boris types his tally: the tally, sent with
    the sheet's old tag, is refused (409) and is sent again, once, on the sheet as it now
    stands; both the host's house and Boris's tally are kept."""
    host, guest, _ = phones
    base = live_server.url
    table = start_anna_and_boris(host, base)
    seat_boris(guest, base, table)
    tally = "#editor input[name=residents]"
    guest.click(tally)
    guest.keyboard.type("6")
    host.goto(f"{base}/t/{table}?p=1")
    draw(host, "house", 0, 0)  # on Boris's sheet
    guest.keyboard.press("Tab")
    guest.wait_for_selector(f"{tally}[value='6']", timeout=5000)
    guest.wait_for_selector('#editor [data-q="0"][data-r="0"][data-item="house"]')
    with live_server.app.app_context():
        from scorepad.web import db

        boris = db.get_table(table).doc["players"][1]
    assert boris["residents"] == 6
    assert next(c for c in boris["cells"] if (c["q"], c["r"]) == (0, 0))["item"] == "house"


def test_another_phones_step_leaves_a_drag_in_progress_alone(
    phones: list[Any], live_server: LiveServer
) -> None:
    """Boris paints a row of his meadow with one finger while the host taps Anna's board:
    the poll's redraw waits until the finger lifts (it wiped the squares being painted)."""
    host, guest, _ = phones
    base = live_server.url
    live_server.app.config["LIVE_POLL_MS"] = 500
    table = start_anna_and_boris(host, base, "spring-meadow")
    seat_boris(guest, base, table)
    square = '#editor [data-row="14"][data-col="{}"]'
    guest.locator(square.format(0)).scroll_into_view_if_needed()
    boxes = [guest.locator(square.format(c)).bounding_box() for c in range(4)]
    centres = [(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2) for b in boxes]
    guest.mouse.move(*centres[0])
    guest.mouse.down()
    for x, y in centres[1:3]:
        guest.mouse.move(x, y, steps=3)
    host.goto(f"{base}/t/{table}?p=0")
    host.click('#editor [data-row="14"][data-col="9"]')  # the host's step on Anna's board
    guest.wait_for_timeout(1500)  # several polls see it
    assert guest.locator("#editor .painting").count() == 3
    guest.mouse.move(*centres[3], steps=3)
    guest.mouse.up()
    guest.wait_for_selector(square.format(3) + '[data-code="#"]')
    assert all(guest.get_attribute(square.format(c), "data-code") == "#" for c in range(4))


def test_a_field_and_a_tap_at_once_are_both_kept(page: Any) -> None:
    """Typing the residents tally then tapping a hex: the field changes as it loses the focus,
    the very moment of the tap. Both go through one queue, so neither is refused as stale."""
    page.goto(page.base + "/new")
    page.fill("input[name=name_0]", "Anna")
    page.click("#new-form button[type=submit]")
    page.wait_for_selector("#editor")
    page.click("#palette input[value='house'] + span")
    page.fill("input[name=residents]", "5")
    page.click('#editor [data-q="0"][data-r="0"]')  # blurs the field: change, then the tap
    page.wait_for_selector('#editor [data-q="0"][data-r="0"][data-item="house"]')
    page.wait_for_function("document.querySelector('input[name=residents]').value === '5'")
    assert page.locator("#editor-message").count() == 0
    page.reload()
    assert page.get_attribute('#editor [data-q="0"][data-r="0"]', "data-item") == "house"
    assert page.input_value("input[name=residents]") == "5"


def test_a_table_deleted_under_a_guests_editor_stops_its_polling(
    phones: list[Any], live_server: LiveServer
) -> None:
    """Boris has his editor open when the host deletes the table: the page said "Not
    found. There is nothing at this address." above a board that still looked editable, and
    went on polling every 1.5 s for more 404s. The poll's 286 stops the polling, the banner
    says the table was deleted, and the page is inert and greyed."""
    host, guest, _ = phones
    base = live_server.url
    live_server.app.config["LIVE_POLL_MS"] = 300
    table = start_anna_and_boris(host, base)
    seat_boris(guest, base, table)
    polls: list[str] = []
    guest.on("request", lambda r: polls.append(r.url) if "/live?" in r.url else None)
    guest.wait_for_timeout(700)
    assert polls, "the editor does not poll"
    host.on("dialog", lambda d: d.accept())  # "Delete this table and its history?"
    # Boris is down at his board, the banner at the top out of sight.
    guest.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    host.goto(f"{base}/t/{table}/results")
    host.click("button:has-text('Delete this table')")
    host.wait_for_url(re.compile(r".*/$"))
    guest.wait_for_selector("#flash #table-gone", timeout=5000)
    said = guest.text_content("#flash")
    assert "Table deleted" in said and "no longer exists" in said and "Not found" not in said
    assert guest.evaluate("document.getElementById('main').inert")
    # ... and in sight: scrolled up to it (it said why the board went grey).
    top = guest.evaluate("document.getElementById('flash').getBoundingClientRect().top")
    assert 0 <= top < guest.viewport_size["height"]
    asked = len(polls)
    guest.wait_for_timeout(1500)  # five polls' worth
    assert len(polls) == asked, "the page still polls a deleted table"
    # Nothing on the page takes a tap any more, and the banner stays after a click.
    guest.mouse.click(20, guest.viewport_size["height"] - 20)
    cell = guest.locator('#editor [data-q="0"][data-r="0"]')
    assert not guest.evaluate("(el) => el.closest('[inert]') === null", cell.element_handle())
    assert guest.locator("#flash #table-gone").count() == 1
