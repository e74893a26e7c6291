"""Installable and offline-tolerant: manifest, icons, service worker, offline page, tap retries.

The browser tests run real headless Chromium: the service worker registers with the whole
site as its scope and serves the offline page when the network is gone, and a tap made
while the server cannot be reached is queued, shown as waiting, and lands once the
connection is back.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import LiveServer
from flask import Response
from flask.testing import FlaskClient
from PIL import Image
from webhelpers import cell, posted_table

from scorepad.web import db, pwa

#: The app shell does not depend on the database: SQLite alone (conftest).
pytestmark = pytest.mark.sqlite_only


def test_manifest_names_the_app_and_its_icons(client: FlaskClient) -> None:
    resp = client.get("/manifest.webmanifest", headers={"Accept-Language": "uk"})
    assert resp.status_code == 200
    assert resp.mimetype == "application/manifest+json"
    doc = json.loads(resp.get_data(as_text=True))
    assert doc["name"] == doc["short_name"] == "Scorepad"
    assert doc["start_url"] == doc["scope"] == "/" and doc["display"] == "standalone"
    assert doc["orientation"] == "any"  # a tablet's big screen turns, a sideways phone too
    assert doc["lang"] == "uk" and "настільних" in doc["description"]
    sizes = {}
    for icon in doc["icons"]:
        got = client.get(icon["src"])
        assert got.status_code == 200 and got.mimetype == icon["type"], icon
        if icon["type"] == "image/png":
            with Image.open(io.BytesIO(got.data)) as img:
                assert img.size == tuple(int(n) for n in icon["sizes"].split("x"))
                sizes[img.size[0]] = img.mode
        else:
            assert got.data.lstrip().startswith(b"<svg")
    assert set(sizes) == {192, 512}
    assert any(i.get("purpose") == "maskable" for i in doc["icons"])
    page = client.get("/").get_data(as_text=True)
    assert '<link rel="manifest" href="/manifest.webmanifest">' in page
    assert 'rel="icon" href="/static/icons/icon.svg"' in page


def test_icons_are_drawn_by_the_repository_script() -> None:
    """``tools/make_icons.py`` draws the committed icons: running it again changes nothing."""
    import importlib.util

    root = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location("make_icons", root / "tools/make_icons.py")
    assert spec and spec.loader
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    assert (root / "static/icons/icon.svg").read_text() == tool.svg()
    with Image.open(root / "static/icons/icon-192.png") as committed:
        drawn = tool.png(192)
        assert committed.size == drawn.size
        assert committed.convert("RGB").tobytes() == drawn.tobytes()


def test_service_worker_is_served_from_the_root_scope(client: FlaskClient) -> None:
    resp = client.get("/sw.js")
    assert resp.status_code == 200
    assert resp.mimetype == "text/javascript"
    assert resp.headers["Service-Worker-Allowed"] == "/"
    assert resp.headers["Cache-Control"] == "no-cache"
    body = resp.get_data(as_text=True)
    config = json.loads(re.match(r"const CONFIG = (\{.*?\});\n", body).group(1))  # type: ignore[union-attr]
    assert re.fullmatch(r"[0-9a-f]{12}", config["version"])
    assert config["offline"] == "/offline" and config["static"] == "/static/"
    for url in config["precache"]:  # everything it keeps exists
        assert client.get(url).status_code == 200, url
    assert {"/static/scorepad.css", "/static/scorepad.js", "/offline"} <= set(config["precache"])
    # Every static file a page loads is kept, so a change to any of them is a new version
    # (live.js and table.css were not: installed phones kept the old ones).
    loaded = re.findall(
        r'(?:href|src)="(/static/[^"]+\.(?:css|js))"', page := client.get("/").get_data(True)
    )
    assert loaded and set(loaded) <= set(config["precache"]), loaded
    assert any(u.startswith("/static/htmx-") for u in config["precache"])
    assert 'self.addEventListener("fetch"' in body
    assert 'data-sw="/sw.js"' in page


def test_a_new_offline_page_is_a_new_service_worker_version(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Phones keep the offline page in the worker's cache: its wording changing alone must
    change the version, or they would keep the old text."""

    def version() -> str:
        body = client.get("/sw.js").get_data(as_text=True)
        return str(re.search(r'"version": "(\w+)"', body).group(1))  # type: ignore[union-attr]

    before = version()
    monkeypatch.setattr(pwa, "offline", lambda: Response("<p>new words</p>"))
    assert version() != before


def test_offline_page_has_every_language(client: FlaskClient) -> None:
    resp = client.get("/offline")
    assert resp.status_code == 200 and resp.mimetype == "text/html"
    html = resp.get_data(as_text=True)
    for code, heading in (("en", "You are offline"), ("ru", "Нет связи"), ("uk", "Немає зв'язку")):
        assert f'<section class="offline" lang="{code}" data-lang="{code}"' in html
        assert f"<h1>{heading}</h1>" in html
    assert "csrf" not in html.lower()  # the same page for everyone, safe to keep in a cache


def test_pages_carry_the_offline_messages_for_the_tap_queue(client: FlaskClient) -> None:
    html = client.get("/", headers={"Accept-Language": "ru"}).get_data(as_text=True)
    assert 'data-msg-offline="Нет связи: нажатия сохранены' in html
    assert 'id="netstatus"' in html and 'role="status"' in html


# --- in a real browser -------------------------------------------------------------------------


@pytest.mark.browser
def test_service_worker_controls_the_site_and_serves_the_offline_page(
    page: Any, live_server: LiveServer
) -> None:
    page.goto(live_server.url + "/")
    scope = page.evaluate("navigator.serviceWorker.ready.then(r => r.scope)")
    assert scope == live_server.url + "/"
    page.reload()
    page.wait_for_function("navigator.serviceWorker.controller !== null")
    cached = page.evaluate(
        "caches.keys().then(k => caches.open(k[0])).then(c => c.keys())"
        ".then(r => r.map(x => new URL(x.url).pathname))"
    )
    assert "/offline" in cached and "/static/scorepad.css" in cached
    page.context.set_offline(True)
    try:
        page.goto(live_server.url + "/layouts")
        assert page.locator("section[data-lang=en] h1").inner_text() == "You are offline"
        assert page.locator("section[data-lang=ru]").is_hidden()
        # The styles still come from the worker's cache.
        assert page.evaluate("getComputedStyle(document.body).margin") == "0px"
    finally:
        page.context.set_offline(False)


def editor_with(page: Any, live_server: LiveServer, tool: str) -> str:
    """A new table's editor open with ``tool`` picked: the table's id."""
    table_id = posted_table(page)
    page.goto(f"{live_server.url}/t/{table_id}")
    page.click(f"#palette input[value={tool}] + span")
    return table_id


@pytest.mark.browser
def test_a_tap_without_connection_is_kept_and_lands_later(
    page: Any, live_server: LiveServer
) -> None:
    table_id = editor_with(page, live_server, "sheep")
    page.context.set_offline(True)
    try:
        page.click('#editor [data-q="0"][data-r="1"]')
        status = page.locator("#netstatus")
        status.wait_for(state="visible")
        assert "Offline" in status.inner_text()
        assert page.locator('#editor [data-q="0"][data-r="1"].queued').count() == 1
        page.wait_for_timeout(1200)  # at least one retry fails while offline
        # Still offline: nothing stored, the tap is still waiting.
        with live_server.app.app_context():
            assert "item" not in cell(db.get_table(table_id).doc, 0, 0, 1)
        # A second tap queues behind the first, with the tool chosen at the time.
        page.click("#palette input[value=house] + span")
        page.click('#editor [data-q="0"][data-r="0"]')
    finally:
        page.context.set_offline(False)
    page.wait_for_selector('#editor [data-q="0"][data-r="1"][data-item="sheep"]')
    page.wait_for_selector('#editor [data-q="0"][data-r="0"][data-item="house"]')
    page.locator("#netstatus").wait_for(state="hidden")
    with live_server.app.app_context():
        doc = db.get_table(table_id).doc
    assert cell(doc, 0, 0, 1)["item"] == "sheep" and cell(doc, 0, 0, 0)["item"] == "house"
    assert page.locator("#flash .flash-error").count() == 0


@pytest.mark.browser
def test_taps_made_offline_land_though_another_phone_changed_the_board(
    page: Any, live_server: LiveServer
) -> None:
    # The first tap was re-sent as "maybe stored already" with the board's old tag and
    # refused, while the taps queued after it (sent on the board its refusal drew) landed:
    # one of three taps lost, and a message blaming the connection.
    table_id = editor_with(page, live_server, "sunflower")
    page.context.set_offline(True)
    try:
        for r in (0, 1, 4):
            page.click(f'#editor [data-q="0"][data-r="{r}"]')
        page.locator("#netstatus").wait_for(state="visible")
        page.wait_for_timeout(700)  # a retry fails while offline
        with live_server.app.app_context():  # meanwhile another phone adds a sheep

            def sheep(current: db.StoredTable) -> tuple[Any, Any]:
                doc = json.loads(json.dumps(current.doc))
                cell(doc, 0, 1, 0)["item"] = "sheep"
                return doc, current.meta

            db.edit_table(table_id, sheep)
    finally:
        page.context.set_offline(False)
    for r in (0, 1, 4):
        page.wait_for_selector(f'#editor [data-q="0"][data-r="{r}"][data-item="sunflower"]')
    page.locator("#netstatus").wait_for(state="hidden")
    with live_server.app.app_context():
        doc = db.get_table(table_id).doc
    assert [cell(doc, 0, 0, r)["item"] for r in (0, 1, 4)] == ["sunflower"] * 3
    assert cell(doc, 0, 1, 0)["item"] == "sheep"
    assert page.locator("#editor-message").count() == 0
