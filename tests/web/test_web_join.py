"""One table, many phones: joining, seats, the host's rights, rate limits, no enumeration.

Each Flask test client has its own cookie jar, so each plays one phone.
"""

from __future__ import annotations

import base64
import json
import re
from html import unescape

import pytest
import sqlalchemy as sa
from conftest import make_app
from flask import Flask
from flask.testing import FlaskClient
from webhelpers import HX, SV_FORM, new_table, stored_doc, tap

from scorepad.games import spring_meadow as sm
from scorepad.web import access, db
from scorepad.web.qr import qr_svg

AMBIGUOUS = set("0O1IL")


@pytest.fixture
def table_id(client: FlaskClient) -> str:
    """A table whose host is ``client``."""
    return new_table(client, SV_FORM, ["Anna", "Boris", "Vera"])


def phone(app: Flask, address: str = "127.0.0.1") -> FlaskClient:
    """Another phone: its own cookie jar, on the network ``address``."""
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return client


def join_code(client: FlaskClient, table_id: str) -> str:
    html = client.get(f"/t/{table_id}/seats").get_data(as_text=True)
    found = re.search(r'id="join-code">(\w+)<', html)
    assert found, "the host's screen shows no join code"
    return found.group(1)


def claim(client: FlaskClient, table_id: str, seat: int) -> int:
    return client.post(f"/t/{table_id}/join", data={"seat": str(seat)}).status_code


def field(client: FlaskClient, table_id: str, **values: object) -> int:
    data = {k: str(v) for k, v in values.items()}
    return client.post(f"/t/{table_id}/field", data=data, headers=HX).status_code


def editor_html(client: FlaskClient, table_id: str, player: int) -> str:
    return client.get(f"/t/{table_id}?p={player}", headers=HX).get_data(as_text=True)


def tags(html: str) -> tuple[str, int]:
    """The sheet tag and the table version an editor fragment was drawn from."""
    sheet = re.search(r'data-sheet="(\w+)"', html)
    version = re.search(r'data-version="(\d+)"', html)
    assert sheet and version
    return sheet.group(1), int(version.group(1))


# --- addresses and codes ----------------------------------------------------------------------


def test_table_addresses_carry_128_random_bits(client: FlaskClient) -> None:
    ids = {new_table(client, SV_FORM, ["Anna"]) for _ in range(3)}
    assert len(ids) == 3
    for table_id in ids:
        raw = base64.urlsafe_b64decode(table_id + "=" * (-len(table_id) % 4))
        assert len(raw) * 8 >= 128


def test_join_codes_avoid_ambiguous_characters() -> None:
    codes = {db.new_join_code() for _ in range(300)}
    assert len(codes) > 290  # random, not a sequence
    for code in codes:
        assert len(code) == db.CODE_LENGTH
        assert not AMBIGUOUS & set(code)
        assert set(code) <= set(db.CODE_ALPHABET)
    assert db.normal_code(" ab-c2 34 ") == "ABC234"


def test_host_screen_shows_code_qr_and_join_address(
    app: Flask, client: FlaskClient, table_id: str
) -> None:
    html = client.get(f"/t/{table_id}/seats").get_data(as_text=True)
    code = join_code(client, table_id)
    join_url = f"http://localhost/t/{table_id}/join"
    assert join_url in html
    with app.test_request_context():
        assert qr_svg(join_url) in html  # drawn on the server from that very address
    russian = client.get(f"/t/{table_id}/seats", headers={"Accept-Language": "ru"})
    assert "<title>Присоединиться к этому столу</title>" in russian.get_data(as_text=True)
    assert "<svg" in html and "https://" not in html  # no external QR service
    # The editor page of the host shows the code too.
    assert code in client.get(f"/t/{table_id}").get_data(as_text=True)
    # A solo game has no one to invite: no code, no invitation on its board's page.
    solo = new_table(client, SV_FORM, ["Anna"])
    page = client.get(f"/t/{solo}").get_data(as_text=True)
    assert 'id="join-code"' not in page and 'id="seats-link"' not in page
    assert "Join with code" not in client.get(f"/t/{solo}/screen").get_data(as_text=True)
    assert "Join with code" in client.get(f"/t/{table_id}/screen").get_data(as_text=True)
    assert 'id="join-code"' in client.get(f"/t/{table_id}").get_data(as_text=True)


def test_join_by_code_leads_to_the_seats(app: Flask, client: FlaskClient, table_id: str) -> None:
    code = join_code(client, table_id)
    other = phone(app)
    resp = other.post("/join", data={"code": code.lower()[:3] + " " + code.lower()[3:]})
    assert resp.status_code == 303
    assert resp.headers["Location"] == f"/t/{table_id}/join"
    html = other.get(resp.headers["Location"]).get_data(as_text=True)
    assert html.count('class="seat-claim"') == 3


# --- seats and rights ---------------------------------------------------------------------------


def test_a_phone_without_a_seat_sees_but_cannot_edit(
    app: Flask, client: FlaskClient, table_id: str
) -> None:
    tap(client, table_id, p=0, tool="house", q=0, r=0)
    before = stored_doc(app, table_id)
    watcher = phone(app)
    html = watcher.get(f"/t/{table_id}").get_data(as_text=True)
    assert 'id="readonly-note"' in html and "Take a seat" in html
    assert " data-tap " not in html and 'id="palette"' not in html
    resp = tap(watcher, table_id, p=0, tool="sheep", q=0, r=1)
    assert resp.status_code == 403 and "Anna" in resp.get_data(as_text=True)
    assert field(watcher, table_id, p=1, residents=4) == 403
    undo = watcher.post(f"/t/{table_id}/undo", data={"p": "0"}, headers=HX)
    assert undo.status_code == 403
    assert stored_doc(app, table_id) == before
    # Watching does not make the table this phone's: it is not in its list.
    assert table_id not in watcher.get("/").get_data(as_text=True)


def test_a_seat_edits_its_own_board_only(app: Flask, client: FlaskClient, table_id: str) -> None:
    boris = phone(app)
    assert claim(boris, table_id, 1) == 303
    assert " data-tap " in editor_html(boris, table_id, 1)
    assert " data-tap " not in editor_html(boris, table_id, 0)
    assert tap(boris, table_id, p=1, tool="house", q=0, r=0).status_code == 200
    assert field(boris, table_id, p=1, residents=4) == 200
    assert tap(boris, table_id, p=0, tool="house", q=0, r=0).status_code == 403
    assert field(boris, table_id, p=2, residents=4) == 403
    doc = stored_doc(app, table_id)
    assert doc["players"][1]["residents"] == 4
    assert "residents" not in doc["players"][2]
    assert all(c.get("item") is None for c in doc["players"][0]["cells"])
    # The phone opens on its own board, and the table is in its list now.
    assert 'data-player="1"' in boris.get(f"/t/{table_id}").get_data(as_text=True)
    assert table_id in boris.get("/").get_data(as_text=True)


def test_the_host_edits_every_board(app: Flask, client: FlaskClient, table_id: str) -> None:
    boris = phone(app)
    claim(boris, table_id, 1)
    for p in range(3):
        assert tap(client, table_id, p=p, tool="house", q=0, r=0).status_code == 200


def test_host_lets_everyone_edit(app: Flask, client: FlaskClient, table_id: str) -> None:
    boris, watcher = phone(app), phone(app)
    claim(boris, table_id, 1)
    assert boris.post(f"/t/{table_id}/everyone", data={"allowed": "on"}).status_code == 403
    assert client.post(f"/t/{table_id}/everyone", data={"allowed": "on"}).status_code == 303
    assert tap(boris, table_id, p=0, tool="house", q=0, r=0).status_code == 200
    assert tap(watcher, table_id, p=2, tool="house", q=0, r=0).status_code == 403  # no seat
    client.post(f"/t/{table_id}/everyone", data={"allowed": "off"})
    assert tap(boris, table_id, p=2, tool="house", q=0, r=0).status_code == 403


def test_one_phone_per_seat(app: Flask, client: FlaskClient, table_id: str) -> None:
    boris, impostor = phone(app), phone(app)
    assert claim(boris, table_id, 1) == 303
    resp = impostor.post(f"/t/{table_id}/join", data={"seat": "1"})
    assert resp.status_code == 409 and "Another phone holds that seat" in resp.get_data(True)
    assert tap(impostor, table_id, p=1, tool="house", q=0, r=0).status_code == 403
    assert claim(impostor, table_id, 7) == 422
    # A phone moving to another seat gives up the first one.
    assert claim(boris, table_id, 2) == 303
    assert claim(impostor, table_id, 1) == 303
    assert tap(boris, table_id, p=1, tool="house", q=0, r=0).status_code == 403


def test_the_seat_right_is_the_phones_secret(
    app: Flask, client: FlaskClient, table_id: str
) -> None:
    boris = phone(app)
    claim(boris, table_id, 1)
    cookie = boris.get_cookie(access.COOKIE)
    assert cookie is not None and cookie.http_only and cookie.same_site == "Lax"
    with app.app_context(), db.reading() as conn:
        stored = {row.device for row in conn.execute(sa.select(db.members.c.device))}
    assert cookie.value not in stored  # only its hash is kept
    # The same secret on another client is the same phone; a made-up one is nobody.
    copy = phone(app)
    copy.set_cookie(access.COOKIE, cookie.value)
    assert tap(copy, table_id, p=1, tool="house", q=0, r=0).status_code == 200
    forged = phone(app)
    forged.set_cookie(access.COOKIE, "x" * 43)
    assert tap(forged, table_id, p=1, tool="sheep", q=0, r=1).status_code == 403


def test_host_frees_a_seat(app: Flask, client: FlaskClient, table_id: str) -> None:
    boris, vera = phone(app), phone(app)
    claim(boris, table_id, 1)
    assert boris.post(f"/t/{table_id}/seats/1/free").status_code == 403  # not the host
    page = boris.get(f"/t/{table_id}?p=1").get_data(as_text=True)
    polled = re.search(r'<div id="live" hx-get="([^"]+)"', page)
    assert polled and "(you)" in page
    assert boris.get(polled.group(1).replace("&amp;", "&"), headers=HX).status_code == 204
    assert client.post(f"/t/{table_id}/seats/1/free").status_code == 303
    # Boris's phone, polling, hears of it: its tabs no longer say the seat is its own.
    resp = boris.get(polled.group(1).replace("&amp;", "&"), headers=HX)
    assert resp.status_code == 200 and "(you)" not in resp.get_data(as_text=True)
    assert tap(boris, table_id, p=1, tool="house", q=0, r=0).status_code == 403
    assert table_id not in boris.get("/").get_data(as_text=True)
    assert claim(vera, table_id, 1) == 303  # the seat is free for someone else
    assert tap(vera, table_id, p=1, tool="house", q=0, r=0).status_code == 200


def test_a_freed_phone_is_told_the_host_freed_its_seat(
    app: Flask, client: FlaskClient, table_id: str
) -> None:
    """Boris's phone, its seat freed by the host, taps its board: the refusal said "only
    Boris's phone or the host can edit it" to the phone that was Boris's. It says the host
    freed the seat and how to edit again; a phone that never sat is told as before."""
    boris, watcher = phone(app), phone(app)
    claim(boris, table_id, 1)
    assert tap(boris, table_id, p=1, tool="house", q=0, r=0).status_code == 200
    assert client.post(f"/t/{table_id}/seats/1/free").status_code == 303
    resp = tap(boris, table_id, p=1, tool="sheep", q=0, r=1)
    said = unescape(resp.get_data(as_text=True))
    assert resp.status_code == 403
    assert "The host freed your seat at this table" in said
    assert "take a seat from the join page" in said and f"/t/{table_id}/join" in said
    assert "only Boris's phone" not in said
    # Undo of its own step, from the page drawn while seated: the same reason.
    resp = boris.post(f"/t/{table_id}/undo", data={"p": "1"}, headers=HX)
    assert resp.status_code == 403 and "freed your seat" in resp.get_data(as_text=True)
    page = unescape(boris.get(f"/t/{table_id}?p=1").get_data(as_text=True))
    assert "The host freed your seat: you are watching this table." in page
    assert table_id not in boris.get("/").get_data(as_text=True)  # still not in its list
    # A phone that never held a seat is not told a seat of its was freed.
    said = unescape(tap(watcher, table_id, p=1, tool="sheep", q=0, r=1).get_data(as_text=True))
    assert "only Boris's phone or the host can edit it" in said and "freed" not in said
    # Seated again, the phone edits and the banner is gone.
    assert claim(boris, table_id, 1) == 303
    assert tap(boris, table_id, p=1, tool="sheep", q=0, r=1).status_code == 200
    assert "freed" not in boris.get(f"/t/{table_id}?p=1").get_data(as_text=True)


def test_only_the_host_finishes_or_deletes(app: Flask, client: FlaskClient, table_id: str) -> None:
    boris = phone(app)
    claim(boris, table_id, 1)
    assert boris.post(f"/t/{table_id}/finish").status_code == 403
    assert boris.post(f"/t/{table_id}/delete").status_code == 403
    assert boris.post(f"/t/{table_id}/reopen").status_code == 403
    html = boris.get(f"/t/{table_id}/results").get_data(as_text=True)
    assert "Delete this table" not in html and 'id="finish"' not in html
    assert 'id="finish"' in client.get(f"/t/{table_id}/results").get_data(as_text=True)
    assert client.post(f"/t/{table_id}/delete").status_code == 303
    assert boris.get(f"/t/{table_id}").status_code == 404


def test_a_finished_table_is_read_only(app: Flask, client: FlaskClient, table_id: str) -> None:
    code = join_code(client, table_id)
    boris = phone(app)
    claim(boris, table_id, 1)
    assert client.post(f"/t/{table_id}/finish").headers["Location"] == f"/t/{table_id}/results"
    before = stored_doc(app, table_id)
    for who in (client, boris):
        assert tap(who, table_id, p=1, tool="house", q=0, r=0).status_code == 403
        assert field(who, table_id, p=1, residents=3) == 403
        assert who.post(f"/t/{table_id}/undo", data={"p": "1"}, headers=HX).status_code == 403
    assert stored_doc(app, table_id) == before
    # A tap from a board drawn before the finish (its table version older): the phone is
    # taken to the final result, as the live poll takes the others, instead of staying on a
    # read-only editor whose poll then saw nothing new.
    resp = tap(boris, table_id, p=1, tool="house", q=0, r=0, tv=1)
    assert resp.status_code == 204
    assert resp.headers["HX-Redirect"] == f"/t/{table_id}/results"
    for step in ("undo", "redo"):  # an Undo pressed there alike
        resp = boris.post(f"/t/{table_id}/{step}", data={"p": "1", "tv": "1"}, headers=HX)
        assert resp.status_code == 204 and resp.headers["HX-Redirect"].endswith("/results")
    assert stored_doc(app, table_id) == before
    assert phone(app).post("/join", data={"code": code}).status_code == 404  # code retired
    assert claim(phone(app), table_id, 2) == 409
    html = client.get(f"/t/{table_id}").get_data(as_text=True)
    assert "finished" in html and " data-tap " not in html
    # Reopened: editable again, with a fresh join code.
    assert client.post(f"/t/{table_id}/reopen").status_code == 303
    assert tap(boris, table_id, p=1, tool="house", q=0, r=0).status_code == 200
    assert join_code(client, table_id) != code


# --- undo and redo at a shared table -------------------------------------------------------------


def test_undo_only_reverts_what_the_phone_may_edit(
    app: Flask, client: FlaskClient, table_id: str
) -> None:
    boris = phone(app)
    claim(boris, table_id, 1)
    tap(boris, table_id, p=1, tool="house", q=0, r=0)
    _sheet, version = tags(editor_html(boris, table_id, 1))
    tap(client, table_id, p=0, tool="house", q=0, r=0)  # the host edits Anna's board
    # Boris's page predates Anna's edit: refused as stale, with the fresh board.
    resp = boris.post(f"/t/{table_id}/undo", data={"p": "1", "tv": str(version)}, headers=HX)
    assert resp.status_code == 409 and "changed on another device" in resp.get_data(True)
    _sheet, version = tags(resp.get_data(as_text=True))
    # Fresh, but the last step is Anna's: not Boris's to undo. His button says so before
    # he presses it (aria-disabled, sending nothing, with the reason), and a press anyway
    # (a script's) is refused.
    undo_button = re.search(r'<button[^>]*id="undo"[^>]*>', resp.get_data(as_text=True))
    assert undo_button and 'aria-disabled="true"' in undo_button.group(0)
    assert "hx-post" not in undo_button.group(0)
    assert 'id="undo-refused">Cannot undo: That would change Anna' in resp.get_data(as_text=True)
    resp = boris.post(f"/t/{table_id}/undo", data={"p": "1", "tv": str(version)}, headers=HX)
    assert resp.status_code == 403 and "Anna" in resp.get_data(as_text=True)
    host_page = editor_html(client, table_id, 0)  # the host may undo it: no query, enabled
    assert "disabled" not in re.search(r'<button[^>]*/undo"[^>]*>', host_page).group(0)
    assert stored_doc(app, table_id)["players"][0]["cells"] != []
    # The host undoes Anna's edit; then Boris may undo his own, and redo it.
    assert client.post(f"/t/{table_id}/undo", data={"p": "0"}, headers=HX).status_code == 200
    page = editor_html(boris, table_id, 1)
    assert 'id="undo-refused"' not in page  # his own step now
    assert "disabled" not in re.search(r'<button[^>]*/undo"[^>]*>', page).group(0)
    _sheet, version = tags(page)
    resp = boris.post(f"/t/{table_id}/undo", data={"p": "1", "tv": str(version)}, headers=HX)
    assert resp.status_code == 200
    assert all(c.get("item") is None for c in stored_doc(app, table_id)["players"][1]["cells"])
    _sheet, version = tags(resp.get_data(as_text=True))
    resp = boris.post(f"/t/{table_id}/redo", data={"p": "1", "tv": str(version)}, headers=HX)
    assert resp.status_code == 200
    assert any(c.get("item") == "house" for c in stored_doc(app, table_id)["players"][1]["cells"])


def test_stale_field_is_refused_with_the_fresh_board(
    app: Flask, client: FlaskClient, table_id: str
) -> None:
    boris = phone(app)
    claim(boris, table_id, 1)
    sheet, _version = tags(editor_html(boris, table_id, 1))
    assert field(client, table_id, p=1, residents=5, v=sheet) == 200  # the host, first
    resp = boris.post(
        f"/t/{table_id}/field", data={"p": "1", "residents": "2", "v": sheet}, headers=HX
    )
    assert resp.status_code == 409
    assert 'value="5"' in resp.get_data(as_text=True)  # the fresh board
    assert stored_doc(app, table_id)["players"][1]["residents"] == 5


def test_a_seated_phone_checks_its_own_paper_sheet_first(
    app: Flask, client: FlaskClient, table_id: str
) -> None:
    boris = phone(app)
    claim(boris, table_id, 1)

    def whose(phone_client: FlaskClient, query: str = "") -> list[str]:
        page = phone_client.get(f"/t/{table_id}/check{query}").get_data(as_text=True)
        return re.findall(r'id="check-title">([^<]*)<', page)

    assert whose(boris) == ["Boris's paper sheet against Scorepad"]
    assert whose(client) == ["Anna's paper sheet against Scorepad"]  # the host has no seat
    assert whose(boris, "?p=2") == ["Vera's paper sheet against Scorepad"]


def test_a_stale_table_rules_form_does_not_undo_another_phones_rules(
    app: Flask, client: FlaskClient, table_id: str
) -> None:
    # The table's rules are no player's sheet: a phone that drew them before another phone
    # changed them must not silently put the old ones back.
    client.post(f"/t/{table_id}/everyone", data={"allowed": "on"})
    boris = phone(app)
    claim(boris, table_id, 1)
    host_sheet, _version = tags(editor_html(client, table_id, 0))
    rules = {"action": "table_rules", "variant": "standard"}
    rules |= {f"express_{n}": str(n * n) for n in range(2, 7)}
    boris_sheet, _version = tags(editor_html(boris, table_id, 1))
    assert field(boris, table_id, p=1, v=boris_sheet, **{**rules, "express_3": 10}) == 200
    resp = client.post(
        f"/t/{table_id}/field", data={"p": "0", "v": host_sheet, **rules}, headers=HX
    )
    assert resp.status_code == 409 and 'value="10"' in resp.get_data(as_text=True)
    assert stored_doc(app, table_id)["options"]["valley_express"]["3"] == 10
    # The fresh editor's tag takes the change; a tap on one's own sheet is not refused.
    host_sheet, _version = tags(resp.get_data(as_text=True))
    assert field(client, table_id, p=0, v=host_sheet, residents=4) == 200
    assert field(client, table_id, p=0, v=tags(editor_html(client, table_id, 0))[0], **rules) == 200
    assert stored_doc(app, table_id)["options"]["valley_express"]["3"] == 9


def test_shared_records_need_the_right_to_edit_every_board(app: Flask, client: FlaskClient) -> None:
    """Spring Meadow: recording a phase changes every board and the table's ledger."""
    form = {"game": "spring-meadow", "layout": "example", "orientation": "vertical"}
    meadow = new_table(client, form, ["Anna", "Boris"])
    boris = phone(app)
    claim(boris, meadow, 1)
    assert field(boris, meadow, p=1, action="record_phase") == 403
    assert field(boris, meadow, p=1, action="active", active="Boris") == 403
    client.post(f"/t/{meadow}/everyone", data={"allowed": "on"})
    assert field(boris, meadow, p=1, action="record_phase") == 200


# --- no enumeration, rate limits ----------------------------------------------------------------


def test_past_tables_are_this_browsers_only(app: Flask, client: FlaskClient, table_id: str) -> None:
    other = phone(app)
    theirs = new_table(other, SV_FORM, ["Zoe"])
    mine = client.get("/").get_data(as_text=True)
    assert table_id in mine and theirs not in mine
    assert table_id not in phone(app).get("/").get_data(as_text=True)


def test_unknown_tables_are_404_everywhere_without_a_hint(
    client: FlaskClient, table_id: str
) -> None:
    gets = ("join", "seats", "screen", "live?v=1", "results.csv", "recap.txt", "card.png")
    posts = ("join", "finish", "reopen", "everyone", "seats/0/free")
    unknown = "A" * 22
    for url in gets:
        resp = client.get(f"/t/{unknown}/{url}")
        assert resp.status_code == 404, url
        assert unknown not in resp.get_data(as_text=True) and table_id not in resp.get_data(True)
    for url in posts:
        assert client.post(f"/t/{unknown}/{url}", data={"seat": "0"}).status_code == 404, url


def test_wrong_join_codes_are_rate_limited_across_workers(
    app: Flask, db_url: str, client: FlaskClient, table_id: str
) -> None:
    """Two app instances on one database stand for two gunicorn workers."""
    code = join_code(client, table_id)
    second = make_app(db_url, WTF_CSRF_ENABLED=False)
    try:
        for a in (app, second):
            a.config["JOIN_CODE_LIMIT"] = (3, 600)
        guesser_1, guesser_2 = phone(app, "10.0.0.9"), phone(second, "10.0.0.9")
        good = next(c for c in db.CODE_ALPHABET if c != code[0]) + code[1:]
        assert guesser_1.post("/join", data={"code": code}).status_code == 303  # not counted
        assert guesser_1.post("/join", data={"code": good}).status_code == 404
        assert guesser_2.post("/join", data={"code": good}).status_code == 404
        assert guesser_1.post("/join", data={"code": good}).status_code == 404
        resp = guesser_2.post("/join", data={"code": code})  # even the right one, now
        assert resp.status_code == 429 and resp.headers["Retry-After"]
        assert "Too many attempts" in resp.get_data(as_text=True)
        # Another network is not affected.
        assert phone(second, "10.0.0.10").post("/join", data={"code": code}).status_code == 303
    finally:
        second.extensions["scorepad.db"].dispose()


def test_seat_claims_are_rate_limited(app: Flask, client: FlaskClient, table_id: str) -> None:
    app.config["JOIN_LIMIT"] = (2, 600)
    squatter = phone(app, "10.0.0.7")
    assert claim(squatter, table_id, 0) == 303
    assert claim(squatter, table_id, 1) == 303
    assert claim(squatter, table_id, 2) == 429
    assert claim(phone(app, "10.0.0.8"), table_id, 2) == 303


def test_rate_limit_windows_end(app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [1_000_000.0]
    monkeypatch.setattr(db.limits.time, "time", lambda: clock[0])
    with app.app_context():
        assert db.take("t", 2, 60) and db.take("t", 2, 60)
        assert not db.take("t", 2, 60)
        db.refund("t")
        assert db.take("t", 2, 60)
        assert not db.take("t", 2, 60)
        clock[0] += 60
        assert db.take("t", 2, 60)


# --- tables from before hosts ---------------------------------------------------------------------


def test_a_table_from_before_hosts_is_adopted_by_its_first_visitor(app: Flask) -> None:
    with app.app_context():
        legacy = db.create_table("sunflower-valley", "old", stored_doc_blank(app), {})
    first, second = phone(app), phone(app)
    assert tap(first, legacy, p=0, tool="house", q=0, r=0).status_code == 200
    assert tap(second, legacy, p=0, tool="house", q=2, r=2).status_code == 403
    assert legacy in first.get("/").get_data(as_text=True)


def stored_doc_blank(app: Flask) -> dict[str, object]:
    client = app.test_client()
    return stored_doc(app, new_table(client, SV_FORM, ["Anna"]))


def test_behind_a_proxy_each_client_address_counts(db_url: str) -> None:
    proxied = make_app(db_url, WTF_CSRF_ENABLED=False, TRUSTED_PROXIES=1, JOIN_CODE_LIMIT=(1, 600))
    try:
        client = proxied.test_client()
        for address in ("203.0.113.1", "203.0.113.2"):
            resp = client.post(
                "/join", data={"code": "ZZZZZZ"}, headers={"X-Forwarded-For": address}
            )
            assert resp.status_code == 404, address  # each address has its own window
        again = client.post(
            "/join", data={"code": "ZZZZZZ"}, headers={"X-Forwarded-For": "203.0.113.1"}
        )
        assert again.status_code == 429
    finally:
        proxied.extensions["scorepad.db"].dispose()


def test_an_ipv6_network_is_limited_as_one_client(app: Flask, table_id: str) -> None:
    """Addresses of one /64 (one home or phone, its address changed at will) share a
    window; another /64, and an IPv4 client, have their own."""
    app.config["JOIN_CODE_LIMIT"] = (2, 600)

    def guess(address: str) -> int:
        client = app.test_client()
        client.environ_base["REMOTE_ADDR"] = address
        return client.post("/join", data={"code": "ZZZZZZ"}).status_code

    assert guess("2001:db8:1:2::1") == 404
    assert guess("2001:db8:1:2:aaaa:bbbb:cccc:dddd") == 404
    assert guess("2001:db8:1:2:ffff::9") == 429  # the same /64, another address
    assert guess("2001:db8:1:3::1") == 404  # the next /64
    assert guess("::ffff:198.51.100.7") == 404  # an IPv4 client on a dual-stack socket
    assert guess("198.51.100.7") == 404
    assert guess("198.51.100.7") == 429  # ... is that IPv4 address
    assert guess("64:ff9b::c633:6408") == 404  # 198.51.100.8 behind NAT64: its own window
    assert guess("64:ff9b::c633:6409") == 404  # ... and 198.51.100.9's, not one shared
    assert guess("198.51.100.8") == 404
    assert guess("198.51.100.8") == 429


# --- a database from before shared tables ---------------------------------------------------------

OLD = sa.MetaData()
sa.Table(
    "score_tables",
    OLD,
    sa.Column("id", sa.String(16), primary_key=True),
    *(sa.Column(n, sa.String(200), nullable=False) for n in ("game", "title", "doc", "meta")),
    *(
        sa.Column(n, sa.Integer, nullable=False)
        for n in ("version", "position", "oldest", "newest")
    ),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
)
sa.Table(
    "history",
    OLD,
    sa.Column("table_id", sa.String(16), sa.ForeignKey("score_tables.id"), primary_key=True),
    sa.Column("seq", sa.Integer, primary_key=True),
    sa.Column("doc", sa.Text, nullable=False),
    sa.Column("meta", sa.Text, nullable=False),
)
sa.Table(  # before layouts had owners
    "layouts",
    OLD,
    sa.Column("id", sa.String(16), primary_key=True),
    *(sa.Column(n, sa.String(200), nullable=False) for n in ("game", "name", "data")),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
)


def test_an_older_database_is_upgraded(db_url: str) -> None:
    engine = db.make_engine(db_url)
    db.metadata.drop_all(engine)
    OLD.create_all(engine)
    blank = {"game": "sunflower-valley", "players": [{"name": "Anna", "cells": []}]}
    with engine.begin() as conn:
        now = sa.func.now()
        conn.execute(
            OLD.tables["score_tables"].insert().values(
                id="oldTable", game="sunflower-valley", title="old", doc=json.dumps(blank),
                meta="{}", version=1, position=0, oldest=0, newest=0, created_at=now,
                updated_at=now,
            )
        )  # fmt: skip
        conn.execute(
            OLD.tables["layouts"].insert().values(
                id="oldSheet", game="sunflower-valley", name="Sheet A", data="{}",
                created_at=now, updated_at=now,
            )
        )  # fmt: skip
    engine.dispose()
    app = make_app(db_url, WTF_CSRF_ENABLED=False)
    try:
        with app.app_context():
            old = db.get_table("oldTable")
            assert old.join_code is None and not old.everyone_edits and not old.finished
            assert db.ensure_join_code("oldTable")  # made on first use
            newer = db.create_table("sunflower-valley", "new", blank, {}, host="phone")
            assert len(newer) == 22 and db.get_table(newer).title == "new"
            assert db.take("upgraded", 1, 60)
            sheet = db.get_layout("oldSheet")  # made before owners: anyone changes it, as then
            assert sheet.owner is None and sheet.may_change("any phone")
            # ... and the first phone to change it takes it.
            taken = db.edit_layout("oldSheet", lambda s: (s.name, s.data), "first phone")
            assert taken.owner == "first phone" and not taken.may_change("any phone")
            mine = db.get_layout(db.create_layout("spring-meadow", "B", {}, owner="phone"))
            assert mine.may_change("phone") and not mine.may_change("another")
        with app.app_context():
            columns = {c["name"]: c for c in sa.inspect(db.engine()).get_columns("score_tables")}
        if db_url.startswith("postgres"):
            assert columns["id"]["type"].length == db.ID_LENGTH
    finally:
        app.extensions["scorepad.db"].dispose()
        if db_url.startswith("postgres"):  # the next tests expect today's schema exactly
            engine = db.make_engine(db_url)
            db.metadata.drop_all(engine)
            db.metadata.create_all(engine)
            engine.dispose()


def test_shared_options_are_not_offered_to_a_seated_guest(app: Flask, client: FlaskClient) -> None:
    # A board side new to the table joins its layouts, and the table rules are options:
    # both shared, so the host's. A seated guest sees neither picker, and is refused.
    meadow = new_table(
        client, {"game": "spring-meadow", "layout": "example", "orientation": "vertical"},
        ["Anna", "Boris"],
    )  # fmt: skip
    sheet = new_table(client, SV_FORM, ["Anna", "Boris"])
    guest = phone(app)
    for table_id in (meadow, sheet):
        guest.post("/join", data={"code": join_code(client, table_id)})
        assert claim(guest, table_id, 1) == 303
    assert 'id="board-side"' in editor_html(client, meadow, 1)
    assert 'id="board-side"' not in editor_html(guest, meadow, 1)
    assert 'id="table-rules"' in editor_html(client, sheet, 1)
    assert 'id="table-rules"' not in editor_html(guest, sheet, 1)
    # The picnic tile and the phases too: the guest reads who holds the tile.
    assert '"action": "record_phase"' in editor_html(client, meadow, 1)
    own = editor_html(guest, meadow, 1)
    assert '"action": "record_phase"' not in own and 'name="active"' not in own
    assert "Picnic tile (active player): nobody" in own
    assert field(guest, meadow, p=1, action="active", active="Boris") == 403
    rows = [row[1:] + "." for row in sm.dump_layout(sm.example_layout())["rows"]]
    with app.app_context():
        side = db.create_layout("spring-meadow", "Side B", {"name": "Side B",
                                "orientation": "vertical", "rows": rows})  # fmt: skip
    assert field(guest, meadow, p=1, action="board_side", layout=f"db:{side}") == 403
    rules = {f"express_{n}": n * n for n in range(2, 7)}
    assert field(guest, sheet, p=1, action="table_rules", variant="kids", **rules) == 403
    assert field(client, meadow, p=1, action="board_side", layout=f"db:{side}") == 200
