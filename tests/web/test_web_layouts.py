"""Sheet and burrow layouts: painted once, reused by later tables."""

from __future__ import annotations

import re
from html import unescape

from flask import Flask
from flask.testing import FlaskClient
from webhelpers import HX, SV_FORM, new_table, stored_doc

from scorepad.games import spring_meadow as sm
from scorepad.games import sunflower_valley as sv
from scorepad.web import db


def create_layout(client: FlaskClient, game: str, name: str, start: str = "empty") -> str:
    resp = client.post("/layouts", data={"game": game, "name": name, "start": start})
    assert resp.status_code == 303, resp.get_data(as_text=True)[:1000]
    return resp.headers["Location"].rsplit("/", 1)[1]


def layout_data(app: Flask, layout_id: str) -> dict:  # type: ignore[type-arg]
    with app.app_context():
        return db.get_layout(layout_id).data


def paint(client: FlaskClient, layout_id: str, **values: object) -> object:
    data = {k: str(v) for k, v in values.items()}
    return client.post(f"/layouts/{layout_id}/tap", data=data, headers=HX)


def test_layout_pages(client: FlaskClient) -> None:
    html = client.get("/layouts").get_data(as_text=True)
    assert sv.example_layout()["name"] in html and sm.example_layout().name in html
    layout_id = create_layout(client, "sunflower-valley", "Sheet C")
    page = client.get(f"/layouts/{layout_id}")
    fragment = client.get(f"/layouts/{layout_id}", headers=HX)
    assert page.status_code == fragment.status_code == 200
    assert "<html" in page.get_data(as_text=True)
    assert fragment.get_data(as_text=True).startswith('<section id="editor"')
    assert client.get("/layouts/nope").status_code == 404
    assert client.post("/layouts/nope/tap", data={"tool": "blue"}).status_code == 404


def test_new_layout_needs_a_name_and_a_game(client: FlaskClient) -> None:
    resp = client.post("/layouts", data={"game": "sunflower-valley", "name": ""}, headers=HX)
    assert resp.status_code == 422 and "Give the layout a name" in resp.get_data(as_text=True)
    resp = client.post("/layouts", data={"game": "chess", "name": "x"}, headers=HX)
    assert resp.status_code == 422
    said = {"L\x00x": "control character", "\u200b": "blank", "A\nB": "control character"}
    for name, why in said.items():  # nothing to read back (PostgreSQL: no NUL)
        resp = client.post("/layouts", data={"game": "spring-meadow", "name": name}, headers=HX)
        assert resp.status_code == 422 and why in resp.get_data(as_text=True)
    # A refused form keeps what was chosen: the next try does not make another game's layout.
    typed = {"game": "spring-meadow", "name": "   ", "start": "example"}
    html = client.post("/layouts", data=typed, headers=HX).get_data(as_text=True)
    assert '<option value="spring-meadow" selected>' in html
    assert '<option value="example" selected>' in html


def test_paint_a_sheet_layout_and_use_it(app: Flask, client: FlaskClient) -> None:
    layout_id = create_layout(client, "sunflower-valley", "Sheet C")
    fresh = client.get(f"/layouts/{layout_id}").get_data(as_text=True)
    assert "Nothing painted yet: paint 5 colour areas of 5 hexes and 5 mountains." in fresh
    assert "the sheet has no cells" not in fresh  # a board file's words, not a painter's
    example = sv.example_layout()["cells"]
    for cell in example:
        tool = "mountain" if cell.get("mountain") else cell["area"]
        assert paint(client, layout_id, tool=tool, q=cell["q"], r=cell["r"]).status_code == 200
    html = paint(client, layout_id, tool="blue", q=6, r=-3).get_data(as_text=True)
    assert "area blue has 6 hexes" in html
    html = paint(client, layout_id, tool="eraser", q=6, r=-3).get_data(as_text=True)
    assert 'id="layout-ready"' in html
    # A screen reader finds each hex by its column and place, painted or not.
    assert re.search(r'aria-label="column \d+, hex \d+ from the top: not on the sheet"', html)
    assert 'aria-label="column 1, hex 1 from the top: blue"' in html
    cells = layout_data(app, layout_id)["cells"]
    key = lambda c: (c["q"], c["r"])  # noqa: E731
    assert sorted(cells, key=key) == sorted(example, key=key)
    table_id = new_table(client, dict(SV_FORM, layout=f"db:{layout_id}"), ["Anna"])
    assert stored_doc(app, table_id)["players"][0]["cells"] == sv.blank_sheet(
        layout_data(app, layout_id)
    )


def test_a_layout_paints_every_printed_colour_a_photo_names(
    app: Flask, client: FlaskClient
) -> None:
    """A layout read from a photo names its areas by their printed colour (pink, yellow...):
    each is on the palette, so one misread hex is painted right instead of the photo read
    again (a pink area could only be painted over in one of five other colours)."""
    layout_id = create_layout(client, "sunflower-valley", "Sheet P")
    page = client.get(f"/layouts/{layout_id}").get_data(as_text=True)
    for colour in ("blue", "purple", "yellow", "pink", "brown", "grey"):
        assert f'name="tool" value="{colour}"' in page and f'id="area-{colour}"' in page
    assert paint(client, layout_id, tool="pink", q=0, r=0).status_code == 200
    assert layout_data(app, layout_id)["cells"] == [{"q": 0, "r": 0, "area": "pink"}]
    russian = client.get(f"/layouts/{layout_id}", headers={"Accept-Language": "ru"})
    assert "Розовая" in russian.get_data(as_text=True)


def test_unfinished_layout_cannot_start_a_table(app: Flask, client: FlaskClient) -> None:
    layout_id = create_layout(client, "sunflower-valley", "Half done")
    html = client.get(f"/layouts/{layout_id}").get_data(as_text=True)
    assert 'id="layout-problems"' in html
    data = dict(SV_FORM, layout=f"db:{layout_id}", name_0="Anna")
    resp = client.post("/new", data=data, headers=HX)
    said = resp.get_data(as_text=True)
    assert resp.status_code == 422 and "not usable yet" in said
    # In a painter's words, not a board file's ("player 'Half done': the sheet has no cells").
    assert "the layout has no hexes yet: paint every hex of the sheet" in said
    assert "player 'Half" not in said and "has no cells" not in said


def test_layout_taps_outside_the_canvas_or_without_a_tool(app: Flask, client: FlaskClient) -> None:
    layout_id = create_layout(client, "sunflower-valley", "Sheet C")
    assert paint(client, layout_id, tool="blue", q=40, r=0).status_code == 422
    assert paint(client, layout_id, tool="gold", q=0, r=0).status_code == 422
    assert layout_data(app, layout_id)["cells"] == []


def test_burrow_layout_and_reuse(app: Flask, client: FlaskClient) -> None:
    layout_id = create_layout(client, "spring-meadow", "Side 3", start="example")
    assert layout_data(app, layout_id)["rows"] == sm.dump_layout(sm.example_layout())["rows"]
    html = paint(client, layout_id, tool="o", squares="0,0;0,1").get_data(as_text=True)
    assert "13 burrows" in html  # a printed side has 11
    paint(client, layout_id, tool=".", squares="0,0;0,1")
    form = {"game": "spring-meadow", "layout": f"db:{layout_id}", "orientation": "vertical"}
    table_id = new_table(client, form, ["Anna"])
    doc = stored_doc(app, table_id)
    assert doc["players"][0]["layout"] == "Side 3"
    assert doc["players"][0]["rows"] == sm.dump_layout(sm.example_layout())["rows"]


def test_rename_and_delete_layout(app: Flask, client: FlaskClient) -> None:
    layout_id = create_layout(client, "sunflower-valley", "Sheet C")
    html = client.post(f"/layouts/{layout_id}/rename", data={"name": "Sheet D"}, headers=HX)
    assert 'value="Sheet D"' in html.get_data(as_text=True)
    assert "Layout renamed to “Sheet D”." in unescape(html.get_data(as_text=True))
    assert layout_data(app, layout_id)["name"] == "Sheet D"
    for name in ("", "N\x00x", " \t "):
        assert client.post(f"/layouts/{layout_id}/rename", data={"name": name}).status_code == 422
    assert layout_data(app, layout_id)["name"] == "Sheet D"
    assert client.post(f"/layouts/{layout_id}/delete").status_code == 303
    assert client.get(f"/layouts/{layout_id}").status_code == 404


def test_a_refused_layout_name_is_said_for_what_it_is(app: Flask, client: FlaskClient) -> None:
    """Renamed to spaces alone, a layout was told it "needs a name of 1 to 80 characters":
    the name is blank, and a name too long or holding a tab is told so."""
    layout_id = create_layout(client, "sunflower-valley", "Sheet C")
    said = {
        "   ": "The name is blank",
        "\u200b ": "The name is blank",  # a zero-width space: nothing to see either
        "Sheet\tC": "control character",
        "x" * 81: "at most 80 characters (this one has 81)",
    }
    for name, reason in said.items():
        resp = client.post(f"/layouts/{layout_id}/rename", data={"name": name}, headers=HX)
        html = unescape(resp.get_data(as_text=True))
        assert resp.status_code == 422 and reason in html, name
        assert "1 to 80 characters" not in html
    assert layout_data(app, layout_id)["name"] == "Sheet C"
    made = client.post("/layouts", data={"game": "sunflower-valley", "name": "\u200b"}, headers=HX)
    assert made.status_code == 422 and "The name is blank" in made.get_data(as_text=True)
    made = client.post("/layouts", data={"game": "sunflower-valley", "name": "  "}, headers=HX)
    assert made.status_code == 422 and "Give the layout a name" in made.get_data(as_text=True)


def test_only_the_phone_that_made_a_layout_changes_it(app: Flask, client: FlaskClient) -> None:
    layout_id = create_layout(client, "sunflower-valley", "Sheet C", start="example")
    before = layout_data(app, layout_id)
    other = app.test_client()
    listing = other.get("/layouts").get_data(as_text=True)
    assert 'id="other-layouts"' in listing and "Sheet C" in listing
    page = other.get(f"/layouts/{layout_id}").get_data(as_text=True)
    assert "data-tap " not in page and 'id="palette"' not in page and 'id="copy-layout"' in page
    refused = [
        paint(other, layout_id, tool="mountain", q=0, r=0),
        other.post(f"/layouts/{layout_id}/rename", data={"name": "Mine now"}, headers=HX),
        other.post(f"/layouts/{layout_id}/delete", headers=HX),
        other.post(f"/layouts/{layout_id}/photo", data={}, headers=HX),
    ]
    for resp in refused:
        assert resp.status_code == 403 and "Another phone made this layout" in resp.get_data(
            as_text=True
        )
    assert layout_data(app, layout_id) == before
    # It copies the layout instead, and changes its copy; the original is untouched.
    resp = other.post(f"/layouts/{layout_id}/copy")
    assert resp.status_code == 303
    copied = resp.headers["Location"].rsplit("/", 1)[1]
    assert layout_data(app, copied) == {**before, "name": "Sheet C (copy)"}
    assert paint(other, copied, tool="mountain", q=0, r=0).status_code == 200
    assert layout_data(app, layout_id) == before
    assert 'id="copy-layout"' not in client.get(f"/layouts/{layout_id}").get_data(as_text=True)
    # Any phone's table may use either.
    for phone, chosen in ((other, layout_id), (client, copied)):
        table_id = new_table(phone, SV_FORM | {"layout": f"db:{chosen}"}, ["Anna", "Boris"])
        assert stored_doc(app, table_id)["players"][0]["cells"]


def test_new_layouts_are_rate_limited(app: Flask, client: FlaskClient) -> None:
    app.config["NEW_LAYOUT_LIMIT"] = (2, 3600)
    first = create_layout(client, "spring-meadow", "Side 1")
    create_layout(client, "spring-meadow", "Side 2")
    resp = client.post("/layouts", data={"game": "spring-meadow", "name": "Side 3"}, headers=HX)
    assert resp.status_code == 429 and "Too many new layouts" in resp.get_data(as_text=True)
    assert client.post(f"/layouts/{first}/copy").status_code == 429
    assert "Side 3" not in client.get("/layouts").get_data(as_text=True)
