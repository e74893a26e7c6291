"""Bad input never crashes: arbitrary tap and field values answer 200, 409 or 422."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from conftest import table_count
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from webhelpers import HX, SV_FORM, new_table, stored_doc, tap

from scorepad import games
from scorepad.games import spring_meadow as sm
from scorepad.web import db

EXAMPLE_SV = Path(__file__).resolve().parents[2] / "examples" / "sunflower-valley.json"
FORMS = {
    "sunflower-valley": SV_FORM,
    "harmonies": {"game": "harmonies", "side": "B"},
    "spring-meadow": {"game": "spring-meadow", "layout": "example", "orientation": "vertical"},
    "seasons": {"game": "seasons"},
}
#: Tables poked: every game with two players, and the solo games (one player).
TABLES = [(game, form, ["Anna", "Boris"]) for game, form in FORMS.items()] + [
    (game, FORMS[game], ["Anna"]) for game in ("spring-meadow", "harmonies")
]
KEYS = ("p", "v", "tool", "q", "r", "row", "col", "squares", "line", "action", "card", "cubes",
        "spirit", "placed", "active", "index", "residents", "crystals", "energy_in_reserve",
        "ability_token", "value_0", "value_1", "layout", "orientation", "variant", "express_2",
        "express_3")  # fmt: skip
VALUES = st.one_of(
    st.sampled_from(["", "0", "1", "-1", "2", "99", "house", "rail", "blue", "#", "c", "clear",
                     "cube", "remove", "add_animal", "cubes", "spirit", "record_phase", "counts",
                     "add_card", "remove_card", "active", "0,0", "14,9;0,0", "x,y", "1e9", "on",
                     "solo_values", "board_side", "table_rules", "²", "vertical", "horizontal",
                     "kids", "example", "db:x"]),
    st.text(max_size=12),
)  # fmt: skip
FORM = st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=8)


@pytest.mark.parametrize(("game", "form", "names"), TABLES)
def test_random_taps_and_fields_never_crash(
    app: Flask, client: FlaskClient, game: str, form: dict[str, str], names: list[str]
) -> None:
    table_id = new_table(client, form, names)
    engine = games.get(game)

    @settings(
        max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
    )
    @given(endpoint=st.sampled_from(["tap", "field"]), fields=FORM)
    def poke(endpoint: str, fields: dict[str, str]) -> None:
        resp = client.post(f"/t/{table_id}/{endpoint}", data=fields, headers=HX)
        assert resp.status_code in (200, 409, 422), resp.get_data(as_text=True)[:500]
        engine.parse(stored_doc(app, table_id))  # whatever happened, the stored table is valid

    poke()


def imported(client: FlaskClient, doc: object, text: str | None = None) -> tuple[int, str]:
    resp = client.post("/import", data={"text": text or json.dumps(doc)})
    return resp.status_code, resp.get_data(as_text=True)


def seasons(*names: str) -> dict[str, object]:
    return {"game": "seasons", "players": [{"name": n, "crystals": 10} for n in names]}


@pytest.mark.parametrize("p", ["7", "3", "-1", "abc", "1.0", ""])
def test_an_edit_naming_no_player_of_the_table_changes_nothing(
    app: Flask, client: FlaskClient, p: str
) -> None:
    # Clamping p (as a link's does, to open some board) put a tap on another player's sheet.
    table_id = new_table(client, SV_FORM, ["Anna", "Boris", "Cleo"])
    with app.app_context():
        before = db.get_table(table_id)
    resp = client.post(f"/t/{table_id}/tap", data={"p": p, "tool": "house", "q": "0", "r": "0"})
    assert resp.status_code == 422
    assert "names no player of this table" in resp.get_data(as_text=True)
    photo = {"p": p, "photo": (io.BytesIO(b"not read"), "sheet.jpg")}
    resp = client.post(f"/t/{table_id}/photo", data=photo, headers=HX)
    assert resp.status_code == 422 and "names no player" in resp.get_data(as_text=True)
    with app.app_context():
        assert db.get_table(table_id).version == before.version
    assert tap(client, table_id, p=2, tool="house", q=0, r=0).status_code == 200  # Cleo's


@pytest.mark.parametrize("game", sorted(FORMS))
def test_a_change_no_field_knows_is_named_and_refused(
    app: Flask, client: FlaskClient, game: str
) -> None:
    table_id = new_table(client, FORMS[game], ["Anna", "Boris"])
    with app.app_context():
        before = db.get_table(table_id).version
    resp = client.post(f"/t/{table_id}/field", data={"p": "0", "action": "bogus"}, headers=HX)
    assert resp.status_code == 422
    assert "does not know the change “bogus”" in resp.get_data(as_text=True)
    long = client.post(f"/t/{table_id}/field", data={"p": "0", "action": "x" * 100}, headers=HX)
    assert f"the change “{'x' * 40}”" in long.get_data(as_text=True)  # named, not echoed whole
    blank = client.post(f"/t/{table_id}/field", data={"p": "0", "action": "  "}, headers=HX)
    assert blank.status_code == 422 and "the change “—”" in blank.get_data(as_text=True)
    with app.app_context():
        assert db.get_table(table_id).version == before


def test_a_step_naming_no_version_is_refused(app: Flask, client: FlaskClient) -> None:
    table_id = new_table(client, SV_FORM, ["Anna"])
    assert tap(client, table_id, p=0, tool="house", q=0, r=0).status_code == 200
    for tv in ("abc", "1.0", "NaN"):
        resp = client.post(f"/t/{table_id}/undo", data={"p": "0", "tv": tv}, headers=HX)
        assert resp.status_code == 422 and "names no version" in resp.get_data(as_text=True)
    assert stored_doc(app, table_id)["players"][0]["cells"] != []
    blank = {"p": "0", "tv": " "}  # blank is no version sent (no JavaScript), not a bad one
    assert client.post(f"/t/{table_id}/undo", data=blank, headers=HX).status_code == 200


def test_a_nul_in_an_address_is_not_found(client: FlaskClient) -> None:
    # PostgreSQL cannot compare text holding a NUL: an address with one is simply not found.
    for url in ("/t/abc%00def", "/t/abc%00def/results", "/layouts/abc%00def"):
        assert client.get(url).status_code == 404
        assert client.get(url, headers=HX).status_code == 404
    assert client.post("/t/abc%00def/tap", data={"p": "0"}).status_code == 404


@pytest.mark.parametrize("name", ["A\x00B", "\x01", "\u200b", "An\tna", "Anna\nBoris"])
def test_unreadable_player_names_are_refused(app: Flask, client: FlaskClient, name: str) -> None:
    refused = "A player&#39;s name needs a visible character, and no control one (player 1&#39;s)."
    resp = client.post("/new", data={"game": "seasons", "name_0": name, "name_1": "Boris"})
    assert resp.status_code == 422 and refused in resp.get_data(as_text=True)
    status, html = imported(client, seasons(name, "Boris"))
    assert status == 422 and refused in html and "nothing was stored" in html
    assert table_count(app) == 0
    # Named by the form's own field number, a blank field before it counted too.
    data = {"game": "seasons", "name_0": "", "name_1": "Anna", "name_2": name}
    html = client.post("/new", data=data).get_data(as_text=True)
    assert "no control one (player 3&#39;s)." in html


def test_an_import_refuses_names_the_statistics_would_merge(client: FlaskClient) -> None:
    # /new refuses "Anna" and "anna" at one table (one player in the statistics); so does
    # an import, spaces aside too.
    for pair in (("Anna", "anna"), ("Anna", " Anna "), ("Anna Maria", "anna  maria")):
        status, html = imported(client, seasons(*pair))
        assert status == 422, pair
        assert f"Two players are called “{pair[0]}”: names must differ" in html
    assert imported(client, seasons("Anna", "Anya"))[0] == 303


def test_a_pasted_board_file_may_start_with_a_byte_order_mark(client: FlaskClient) -> None:
    status, _html = imported(client, None, "\ufeff" + json.dumps(seasons("Anna", "Boris")))
    assert status == 303


def test_a_sheet_of_thousands_of_hexes_is_refused(client: FlaskClient) -> None:
    cells = [{"q": q, "r": r, "area": "a"} for q in range(20) for r in range(11)]  # 220
    doc = {"game": "sunflower-valley", "players": [{"name": "Anna", "cells": cells}]}
    status, html = imported(client, doc)
    assert status == 422
    assert "220 hexes listed; a printed sheet has 30, and at most 200 are read" in html


def test_the_language_switch_goes_home_from_a_bad_address(client: FlaskClient) -> None:
    resp = client.get("/lang/ru?next=/%0D%0AX:y")
    assert resp.status_code == 303 and resp.headers["Location"] == "/"
    resp = client.get("/lang/ru", headers={"Referer": "http://[::1"})
    assert resp.status_code == 303 and resp.headers["Location"] == "/"
    resp = client.get("/lang/ru?next=/players")
    assert resp.status_code == 303 and resp.headers["Location"] == "/players"


def test_freeing_a_seat_that_does_not_exist_changes_nothing(
    app: Flask, client: FlaskClient
) -> None:
    table_id = new_table(client, SV_FORM, ["Anna", "Boris"])
    with app.app_context():
        before = db.get_table(table_id)
    seats = client.get(f"/t/{table_id}/seats").get_data(as_text=True)
    for seat in ("5", str(2**31), str(2**70)):
        resp = client.post(f"/t/{table_id}/seats/{seat}/free")
        assert resp.status_code == 303 and resp.headers["Location"].endswith("/seats")
    with app.app_context():
        after = db.get_table(table_id)
    assert (after.version, after.doc) == (before.version, before.doc)
    assert _without_token(client.get(f"/t/{table_id}/seats").get_data(as_text=True)) == (
        _without_token(seats)
    )


def _without_token(page: str) -> str:
    """A page without its CSRF tokens (which carry the time: two reads a second apart
    differ), in its forms, its head's meta tag and the body's htmx headers."""
    page = re.sub(r'name="csrf[_-]token"[^>]*>', "", page)
    return re.sub(r'"X-CSRFToken": "[^"]*"', "", page)


def test_an_area_per_hex_draws_and_scores(client: FlaskClient) -> None:
    # More areas than fallback colours once ran the colours out: a 500 on the editor.
    doc = json.loads(EXAMPLE_SV.read_text(encoding="utf-8"))
    for k, p in enumerate(doc["players"]):
        for i, c in enumerate(p["cells"]):
            if "area" in c:
                c["area"] = f"p{k}a{i}"  # 75 areas: the seven fallback colours repeat
    resp = client.post("/import", data={"text": json.dumps(doc)})
    assert resp.status_code == 303
    for page in ("", "/results", "/card.png"):
        assert client.get(resp.headers["Location"] + page).status_code == 200


def test_an_edited_new_table_cookie_is_ignored(client: FlaskClient) -> None:
    client.set_cookie("newtable", "[" * 4000)
    assert client.get("/new").status_code == 200


def imported_table(client: FlaskClient, doc: object) -> str:
    resp = client.post("/import", data={"text": json.dumps(doc)}, headers=HX)
    return str(resp.headers["HX-Redirect"]).rsplit("/", 1)[-1]


def test_an_import_is_refused_for_what_no_table_could_show(app: Flask, client: FlaskClient) -> None:
    # A 400-digit number overflowed the statistics' averages (a 500 on /players) once the
    # table was finished; a 100 000-character name made every page about it 1 MB.
    doc = json.loads(EXAMPLE_SV.read_text(encoding="utf-8"))
    tables = table_count(app)
    for where, value, said in (
        ("residents", int("9" * 400), "a number in the board file has 400 digits (at most 15)"),
        ("name", "A" * 100_000, "at most 40 characters (player 1&#39;s has 100000)."),
    ):
        players = [dict(doc["players"][0], **{where: value}), *doc["players"][1:]]
        resp = client.post("/import", data={"text": json.dumps({**doc, "players": players})})
        assert resp.status_code == 422 and said in resp.get_data(as_text=True)
    assert table_count(app) == tables
    assert client.get("/players").status_code == 200


def test_an_imported_value_beyond_the_form_does_not_lock_the_form(
    app: Flask, client: FlaskClient
) -> None:
    # The engines set no upper bound where the forms do; a form sends every field at once,
    # so a stored value kept as it is must not refuse the change beside it.
    counts = {"crystals": 12000, "cards_in_play": [], "bonuses_used": 0, "cards_in_hand": 0,
              "energy_in_reserve": 0, "jewel_energy": 0, "replicas": 0}  # fmt: skip
    doc = {"game": "seasons", "players": [{"name": n, **counts} for n in ("Anna", "Boris")]}
    table_id = imported_table(client, doc)
    form = {"p": "0", "action": "counts", **{k: str(v) for k, v in counts.items()}}
    form.pop("cards_in_play")
    resp = client.post(f"/t/{table_id}/field", data={**form, "cards_in_hand": "2"}, headers=HX)
    assert resp.status_code == 200
    anna = stored_doc(app, table_id)["players"][0]
    assert (anna["crystals"], anna["cards_in_hand"]) == (12000, 2)
    resp = client.post(f"/t/{table_id}/field", data={**form, "crystals": "12001"}, headers=HX)
    assert resp.status_code == 422 and "12001 is out of range (0 to 9999)" in resp.data.decode()
    assert stored_doc(app, table_id)["players"][0]["crystals"] == 12000

    sheet = json.loads(EXAMPLE_SV.read_text(encoding="utf-8"))
    sheet["players"][0]["residents"] = 5000
    sheet["options"] = {"valley_express": {"2": 4000, "3": 9}}
    table_id = imported_table(client, sheet)
    resp = client.post(f"/t/{table_id}/field", data={"p": "0", "residents": "5000"}, headers=HX)
    assert resp.status_code == 200
    rules = {"action": "table_rules", "variant": "standard", "express_2": "4000"}
    for n in range(3, 7):
        rules[f"express_{n}"] = str(n * n)
    resp = client.post(f"/t/{table_id}/field", data={"p": "0", **rules}, headers=HX)
    assert resp.status_code == 200
    express = stored_doc(app, table_id)["options"]["valley_express"]
    assert (express["2"], express["3"]) == (4000, 9)

    layout = sm.dump_layout(sm.example_layout())
    board = sm.fill_row(sm.empty_board("vertical", sm.example_layout()), "vertical", 1)
    player = {"name": "Anna", "rows": list(board), "layout": layout["name"], "solo_values": [150]}
    solo = {"game": "spring-meadow", "options": {"layouts": [layout]}, "players": [player]}
    table_id = imported_table(client, solo)
    values = {"p": "0", "action": "solo_values", "value_0": "150", "value_1": "12"}
    assert client.post(f"/t/{table_id}/field", data=values, headers=HX).status_code == 200
    assert stored_doc(app, table_id)["players"][0]["solo_values"] == [150, 12]
    values["value_1"] = "150"  # typed anew: the form's bound holds
    assert client.post(f"/t/{table_id}/field", data=values, headers=HX).status_code == 422


@pytest.mark.parametrize("typed", ["1_0", "٣", "１２", "9" * 5000, "1e3", "0x10", "1.0"])
def test_a_number_field_takes_ascii_digits_only_and_never_echoes_a_long_one(
    app: Flask, client: FlaskClient, typed: str
) -> None:
    # int() alone takes "1_0" as 10, the Arabic-Indic "٣" as 3 and 5 000 digits whole.
    table_id = imported_table(client, json.loads(EXAMPLE_SV.read_text(encoding="utf-8")))
    before = stored_doc(app, table_id)
    resp = client.post(f"/t/{table_id}/field", data={"p": "0", "residents": typed}, headers=HX)
    page = resp.get_data(as_text=True)
    assert resp.status_code == 422 and "enter a whole number" in page
    assert len(page) < 40_000 and "9" * 50 not in page
    assert stored_doc(app, table_id) == before
    paper = {"p": "0", "cat_mountains": typed}
    resp = client.post(f"/t/{table_id}/check", data=paper, headers=HX)
    page = resp.get_data(as_text=True)
    assert resp.status_code == 422 and "whole number" in page and "9" * 50 not in page
    resp = client.post(f"/t/{table_id}/tap", data={"p": "0", "tool": "house", "q": typed, "r": "0"})
    page = resp.get_data(as_text=True)
    assert resp.status_code == 422 and "That tap did not land on a hex." in page
    assert stored_doc(app, table_id) == before


@pytest.mark.parametrize("typed", ["1_0", "٣", "9" * 4000, "1,2,3"])
def test_a_drag_a_player_link_and_a_seat_take_ascii_digits_only(
    app: Flask, client: FlaskClient, typed: str
) -> None:
    table_id = new_table(client, FORMS["spring-meadow"], ["Anna", "Boris"])
    before = stored_doc(app, table_id)
    drag = {"p": "0", "tool": "c", "squares": f"{typed},2;3,3"}
    resp = client.post(f"/t/{table_id}/tap", data=drag, headers=HX)
    page = resp.get_data(as_text=True)
    assert resp.status_code == 422 and "That drag did not land on the board." in page
    assert "9" * 50 not in page and stored_doc(app, table_id) == before
    # A player's link with an odd p= opens the first player's board, as a missing one does.
    page = client.get(f"/t/{table_id}?p={typed}").get_data(as_text=True)
    assert re.findall(r'id="editor" [^>]*data-player="(\d+)"', page) == ["0"]
    for seat in (typed[:20], "0_1", "١"):  # int() takes the last two as seat 1
        resp = client.post(f"/t/{table_id}/join", data={"seat": seat})
        assert resp.status_code == 422 and "Choose one of the table" in resp.get_data(as_text=True)


def test_a_number_field_takes_a_sign_and_spaces_round_it(app: Flask, client: FlaskClient) -> None:
    table_id = imported_table(client, json.loads(EXAMPLE_SV.read_text(encoding="utf-8")))
    for typed, stored in ((" 7 ", 7), ("+8", 8)):
        resp = client.post(f"/t/{table_id}/field", data={"p": "0", "residents": typed}, headers=HX)
        assert resp.status_code == 200
        assert stored_doc(app, table_id)["players"][0]["residents"] == stored
