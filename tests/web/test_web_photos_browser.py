"""In real headless Chromium: photograph a sheet (a generated photo), check the doubts, score.

The photo is sent the way a phone sends it: through the editor's file input (the camera
opens on a phone), posted by htmx as soon as it is chosen.
"""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("cv2", reason="the vision extra is not installed")

from test_web_browser import pick, scores, start_table
from test_web_photos import clear_sheet, doubtful_sheet, reading, sheet, sheet_layout

from scorepad import games
from scorepad.web import db
from scorepad.web.doubts import with_photo

pytestmark = pytest.mark.browser


def test_photograph_a_sheet_check_the_doubts_and_score(page: Any, live_server: Any) -> None:
    with live_server.app.app_context():
        layout_id = db.create_layout("sunflower-valley", "Sheet P", sheet_layout(doubtful_sheet()))
    start_table(page, "sunflower-valley", ["Ann", "Bo"], layout=f"db:{layout_id}")
    photo = sheet(doubtful_sheet()).jpeg
    page.focus("#editor input[name=photo]")  # chosen from the keyboard
    page.set_input_files(
        "#editor input[name=photo]",
        files=[{"name": "sheet.jpg", "mimeType": "image/jpeg", "buffer": photo}],
    )
    page.wait_for_selector("#doubts", timeout=60_000)
    assert "Photo read" in page.inner_text("#editor-message")
    # The photo button that had the focus is gone with the old editor: the focus is on
    # the message (read out, and the keyboard goes on from there), not lost to the page.
    page.wait_for_function("document.activeElement.id === 'editor-message'")
    # Scrolled to where it is printed, above the list of cells to check: not pinned over
    # the bottom of the board, where the outlined cells are.
    assert "toast" not in (page.get_attribute("#editor-message", "class") or "")
    outlined = page.locator("#editor .cell.doubt")
    listed = page.locator("#doubts li")
    flagged = outlined.count()
    assert flagged >= 2 and listed.count() == flagged

    # One tap on an outlined hex settles it (here: the player draws a house there).
    first = page.locator("#editor .cell.doubt:not(.mountain)").first
    q, r = first.get_attribute("data-q"), first.get_attribute("data-r")
    pick(page, "house")
    first.click()
    page.wait_for_function(
        f"document.querySelectorAll('#editor .cell.doubt').length === {flagged - 1}"
    )
    assert (
        page.locator(f"#editor .cell[data-q='{q}'][data-r='{r}']").get_attribute("data-item")
        == "house"
    )

    # "All checked" takes the remaining outlines away.
    page.click("#doubts button:text('All checked')")
    page.wait_for_selector("#doubts", state="detached")
    assert page.locator("#editor .cell.doubt").count() == 0

    # The photo is beside the board, and the board is scored as read and corrected.
    page.click("#evidence summary")
    loaded = page.wait_for_function(
        "document.querySelector('#evidence img').complete "
        "&& document.querySelector('#evidence img').naturalWidth"
    )
    assert loaded.json_value() > 0
    with live_server.app.app_context():
        doc = db.get_table(page.url.rsplit("/", 1)[1]).doc
    game = games.get("sunflower-valley")
    want = game.score(game.parse(doc)).players[0].total
    assert scores(page)["Total"]["Ann"] == str(want)


def test_a_tap_while_the_photo_is_read_waits_for_it(page: Any, live_server: Any) -> None:
    # The tap used to be answered first: its editor replaced the photo form, and the
    # reading's answer was dropped unseen (the board stayed as it was).
    with live_server.app.app_context():
        layout_id = db.create_layout("sunflower-valley", "Sheet C", sheet_layout(clear_sheet()))
    start_table(page, "sunflower-valley", ["Ann"], layout=f"db:{layout_id}")
    pick(page, "house")
    cell = page.locator("#editor .cell:not(.mountain)").first
    q, r = cell.get_attribute("data-q"), cell.get_attribute("data-r")
    page.set_input_files(
        "#editor input[name=photo]",
        files=[
            {"name": "sheet.jpg", "mimeType": "image/jpeg", "buffer": sheet(clear_sheet()).jpeg}
        ],
    )
    cell.click()  # while "Reading the photo…" shows
    page.wait_for_selector("#evidence", timeout=60_000)
    page.wait_for_function(
        f"document.querySelector(\"#editor .cell[data-q='{q}'][data-r='{r}']\")"
        ".dataset.item === 'house'"
    )
    # The photo's message stays up through the tap's answer (it redrew the editor).
    assert "Photo read" in page.inner_text("#editor-message")
    with live_server.app.app_context():
        cells = db.get_table(page.url.rsplit("/", 1)[1]).doc["players"][0]["cells"]
    # The photo's reading, then the tap on it: a house on that hex.
    want = {(c["q"], c["r"]): c for c in reading(clear_sheet())["player"]["cells"]}
    tapped = (int(q or 0), int(r or 0))
    want[tapped] = {k: v for k, v in want[tapped].items() if k != "sides"} | {"item": "house"}
    assert {(c["q"], c["r"]): c for c in cells} == want


def test_a_photo_over_a_layout_asks_first_and_no_lets_the_file_go(
    page: Any, live_server: Any
) -> None:
    with live_server.app.app_context():
        layout_id = db.create_layout("sunflower-valley", "Sheet D", sheet_layout(clear_sheet()))
    page.goto(f"{page.base}/layouts/{layout_id}")
    asked: list[str] = []
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url) if r.url.endswith("/photo") else None)

    def answer(dialog: Any) -> None:
        asked.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", answer)
    photo = [{"name": "sheet.jpg", "mimeType": "image/jpeg", "buffer": sheet(clear_sheet()).jpeg}]
    page.set_input_files("#editor input[name=photo]", files=photo)
    page.wait_for_function("document.querySelector('#editor input[name=photo]').value === ''")
    assert asked and "Replace this layout" in asked[0]
    assert not sent  # answered no: nothing sent, and the same file can be chosen again
    # Answered yes, the same file is sent and read.
    page.remove_listener("dialog", answer)
    page.on("dialog", lambda dialog: dialog.accept())
    page.set_input_files("#editor input[name=photo]", files=photo)
    page.wait_for_selector("#editor-message", timeout=60_000)
    assert sent and "Photo read" in page.inner_text("#editor-message")


def test_a_photo_over_the_limit_is_refused_on_the_phone(page: Any, live_server: Any) -> None:
    """The server refuses a photo over its limit only once it has all of it (minutes over a
    phone's connection): the page says so at once and sends nothing."""
    live_server.app.config["PHOTO_MAX_BYTES"] = 2 * 1024 * 1024
    start_table(page, "sunflower-valley", ["Ann"])
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url) if r.url.endswith("/photo") else None)
    page.set_input_files(
        "#editor input[name=photo]",
        files=[{"name": "big.jpg", "mimeType": "image/jpeg", "buffer": bytes(3 * 1024 * 1024)}],
    )
    page.wait_for_function(
        "document.getElementById('photo-message').textContent.includes('too large')"
    )
    assert "up to 2 MB" in page.inner_text("#photo-message")
    assert not sent and page.input_value("#editor input[name=photo]") == ""


def test_a_photos_message_is_shown_where_it_is_printed_not_over_the_board(
    page: Any, live_server: Any
) -> None:
    """Chosen with the board scrolled into view on a small phone, the photo's answer
    scrolls to its message above the list of cells to check; it was pinned over the
    bottom of the board instead, where the outlined cells are (the board was kept still)."""
    page.set_viewport_size({"width": 360, "height": 640})
    with live_server.app.app_context():
        layout_id = db.create_layout("sunflower-valley", "Sheet P", sheet_layout(doubtful_sheet()))
    start_table(page, "sunflower-valley", ["Ann", "Bo"], layout=f"db:{layout_id}")
    page.locator("#editor .board").scroll_into_view_if_needed()
    page.set_input_files(
        "#editor input[name=photo]",
        files=[{"name": "s.jpg", "mimeType": "image/jpeg", "buffer": sheet(doubtful_sheet()).jpeg}],
    )
    page.wait_for_selector("#doubts", timeout=60_000)
    page.wait_for_timeout(300)  # past the settle, where a message out of view is pinned
    assert "toast" not in (page.get_attribute("#editor-message", "class") or "")
    box = page.locator("#editor-message").bounding_box()
    assert box and box["y"] >= 0 and box["y"] + box["height"] <= 640


def test_a_long_list_of_cells_to_check_leaves_the_board_on_screen(
    page: Any, live_server: Any
) -> None:
    # A sheet read in doubt outlines every hex (30): listed in full, the list took two
    # screens of a phone and its "Right" buttons were never beside the board.
    start_table(page, "sunflower-valley", ["Ann"])
    table_id = page.url.rsplit("/", 1)[1]
    with live_server.app.app_context():
        hexes = [[c["q"], c["r"]] for c in db.get_table(table_id).doc["players"][0]["cells"]]

        def outline_every_hex(current: db.StoredTable) -> tuple[Any, Any]:
            return current.doc, with_photo(current.meta, 0, "", hexes)

        db.edit_table(table_id, outline_every_hex)
    page.reload()
    assert page.locator("#doubts li").count() == len(hexes) >= 25
    box = page.locator("#doubts").bounding_box()
    board = page.locator("#editor .board").bounding_box()
    height = page.viewport_size["height"]
    assert box is not None and board is not None
    assert box["height"] < 0.5 * height
    # Scrolled to the list, the board's first rows show below it.
    page.evaluate("document.getElementById('doubts').scrollIntoView()")
    top = page.locator("#editor .board").bounding_box()
    assert top is not None and top["y"] < 0.75 * height
