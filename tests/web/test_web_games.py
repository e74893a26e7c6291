"""The Harmonies, Spring Meadow and Seasons editors through the Flask test client."""

from __future__ import annotations

import json
import re
from html import unescape

import pytest
from flask import Flask
from flask.testing import FlaskClient
from webhelpers import HX, SV_FORM, engine_result, new_table, stored_doc, tap

from scorepad.games import harmonies as hm
from scorepad.games import spring_meadow as sm
from scorepad.games.seasons_cards import BESPELLED_GRIMOIRE, JEWEL_OF_THE_ANCIENTS
from scorepad.hexgrid import column_places
from scorepad.web import db
from scorepad.web.boards import EditRefused
from scorepad.web.boards.harmonies import evidence as hm_evidence
from scorepad.web.boards.harmonies import solo_suns
from scorepad.web.boards.spring_meadow import from_photo, square_place


def field(client: FlaskClient, table_id: str, **values: object) -> object:
    data = {k: str(v) for k, v in values.items()}
    return client.post(f"/t/{table_id}/field", data=data, headers=HX)


def message(resp: object) -> str:
    html = resp.get_data(as_text=True)  # type: ignore[attr-defined]
    found = re.search(r'id="editor-message">([^<]*)<', html)
    return found.group(1) if found else ""


# --- Harmonies -----------------------------------------------------------------------------------


@pytest.fixture
def harmonies(client: FlaskClient) -> str:
    return new_table(client, {"game": "harmonies", "side": "A"}, ["Anna", "Boris"])


def test_harmonies_cells_name_their_place_stack_points_and_island(
    app: Flask, client: FlaskClient
) -> None:
    # Side B: a brown-green tree (2 tokens) and a grey mountain, each its own island of land
    # among blue; a screen reader hears where, what, the points and the island.
    table_id = new_table(client, {"game": "harmonies", "side": "B"}, ["Anna"])
    first = hm.board_hexes("B")[0]
    places = column_places(hm.board_hexes("B"))
    for tool in ("brown", "green"):
        tap(client, table_id, p=0, tool=tool, q=first.q, r=first.r)
    html = client.get(f"/t/{table_id}?p=0").get_data(as_text=True)
    col, n = places[first]
    label = re.search(rf'data-q="{first.q}" data-r="{first.r}"[^>]*aria-label="([^"]*)"', html)
    assert label, html[:300]
    assert label[1].startswith(
        f"column {col}, hex {n} from the top: brown-green, from the bottom up"
    )
    assert "; 3 points" in label[1] and "; island I1" in label[1]


@pytest.mark.parametrize(("side", "hexes"), [("A", 23), ("B", 25)])
def test_harmonies_board_side(app: Flask, client: FlaskClient, side: str, hexes: int) -> None:
    table_id = new_table(client, {"game": "harmonies", "side": side}, ["Anna"])
    doc = stored_doc(app, table_id)
    assert doc["options"] == {"side": side}
    cells = doc["players"][0]["cells"]
    assert len(cells) == hexes and all(c["stack"] == [] for c in cells)
    assert {(c["q"], c["r"]) for c in cells} == set(hm.board_hexes(side))


def test_harmonies_table_turns_to_the_other_side_while_its_boards_are_empty(
    app: Flask, client: FlaskClient, harmonies: str
) -> None:
    """A table started for the wrong side need not be started again (names retyped, seats
    joined again): while every board is empty the side changes, on every board at once."""
    assert 'id="board-side"' in client.get(f"/t/{harmonies}?p=0").get_data(as_text=True)
    resp = field(client, harmonies, p=0, action="side", side="B")
    assert resp.status_code == 200  # type: ignore[attr-defined]
    doc = stored_doc(app, harmonies)
    assert doc["options"]["side"] == "B"
    for board in doc["players"]:
        assert {(c["q"], c["r"]) for c in board["cells"]} == set(hm.board_hexes("B"))
    assert field(client, harmonies, p=1, action="side", side="C").status_code == 422
    # Undone, it is the table's step (every board changed), and the side is said.
    undone = client.post(f"/t/{harmonies}/undo", data={"p": "1"}, headers=HX)
    assert message(undone) == "Undone for the table. Board side: B → A."
    redone = client.post(f"/t/{harmonies}/redo", data={"p": "1"}, headers=HX)
    assert message(redone) == "Redone for the table. Board side: A → B."
    tap(client, harmonies, p=1, tool="blue", q=0, r=0)  # a token on Boris's board
    resp = field(client, harmonies, p=0, action="side", side="A")
    assert resp.status_code == 422 and message(resp) == (
        "The board side can be changed only while every board is empty."
    )
    assert stored_doc(app, harmonies)["options"]["side"] == "B"
    assert 'id="board-side"' not in client.get(f"/t/{harmonies}?p=0").get_data(as_text=True)


def test_harmonies_stacks_build_and_illegal_stacks_are_refused(
    app: Flask, client: FlaskClient, harmonies: str
) -> None:
    for colour in ("brown", "brown", "green"):
        assert tap(client, harmonies, p=0, tool=colour, q=0, r=0).status_code == 200
    assert stored_doc(app, harmonies)["players"][0]["cells"][0]["stack"] == [
        "brown",
        "brown",
        "green",
    ]
    before = stored_doc(app, harmonies)
    resp = tap(client, harmonies, p=0, tool="red", q=0, r=0)
    assert resp.status_code == 422
    assert "Red cannot go on brown-brown-green" in message(resp)
    assert tap(client, harmonies, p=0, tool="green", q=0, r=1).status_code == 200
    resp = tap(client, harmonies, p=0, tool="blue", q=0, r=1)  # nothing lies on a tree
    assert resp.status_code == 422
    assert message(resp) == "Blue cannot go on green: nothing may lie on green."
    assert stored_doc(app, harmonies)["players"][0]["cells"][1]["stack"] == ["green"]
    assert stored_doc(app, harmonies)["players"][0]["cells"][0] == before["players"][0]["cells"][0]
    # A screen reader hears each tree's points, which the board draws as a bare number:
    # brown-brown-green is a tree of 3 tokens (7 points), a lone green 1.
    html = client.get(f"/t/{harmonies}?p=0").get_data(as_text=True)
    assert re.search(r'aria-label="[^"]*: brown-brown-green, from the bottom up; 7 points"', html)
    assert re.search(r'aria-label="[^"]*: green; 1 point"', html)


def test_harmonies_remove_top_and_cube(app: Flask, client: FlaskClient, harmonies: str) -> None:
    tap(client, harmonies, p=1, tool="grey", q=1, r=0)
    tap(client, harmonies, p=1, tool="grey", q=1, r=0)
    tap(client, harmonies, p=1, tool="remove", q=1, r=0)
    tap(client, harmonies, p=1, tool="cube", q=1, r=0)
    cell = next(c for c in stored_doc(app, harmonies)["players"][1]["cells"] if c["q"] == 1)
    assert cell["stack"] == ["grey"] and cell["cube"] is True
    tap(client, harmonies, p=1, tool="cube", q=1, r=0)
    cell = next(c for c in stored_doc(app, harmonies)["players"][1]["cells"] if c["q"] == 1)
    assert "cube" not in cell
    resp = tap(client, harmonies, p=1, tool="remove", q=0, r=0)
    assert resp.status_code == 422 and "empty" in message(resp)
    resp = tap(client, harmonies, p=1, tool="cube", q=0, r=0)
    assert resp.status_code == 422
    assert message(resp) == "That hex is empty: a cube goes on a token."
    # The last token under a cube: refused in the board's words. The engine's sentence,
    # "a cube lies on the habitat it was placed on, and this hex is empty", said the hex
    # was empty while it still showed its token.
    tap(client, harmonies, p=1, tool="cube", q=1, r=0)
    before = stored_doc(app, harmonies)
    resp = tap(client, harmonies, p=1, tool="remove", q=1, r=0)
    assert resp.status_code == 422
    assert message(resp) == (
        "A cube lies on that token: take the cube off first (tap it with Cube), "
        "then remove the token."
    )
    assert stored_doc(app, harmonies) == before
    tap(client, harmonies, p=1, tool="grey", q=1, r=0)  # a cube on a taller stack: allowed
    assert tap(client, harmonies, p=1, tool="remove", q=1, r=0).status_code == 200


@pytest.mark.parametrize(
    ("problems", "said"),
    [
        (
            [
                "player 'Anna', cell (0, -1): a cube lies on the habitat it was placed on, "
                "and this hex is empty"
            ],
            "Not allowed: a cube lies on the habitat it was placed on, and this hex is empty.",
        ),
        (
            [
                "player 'Bo, cell (1, 1): x', square (3, 4): 2 burrow squares (o, c, m); a board "
                "side has only 1 burrows",
                "player 'Anna': something else",
            ],
            "Not allowed: 2 burrow squares (o, c, m); a board side has only 1 burrows "
            "(and 1 more).",
        ),
        (
            ["the sheet has no cells; list every hex of the sheet"],
            "Not allowed: the sheet has no cells; list every hex of the sheet.",
        ),
    ],
)
def test_a_refusal_in_the_engines_words_leaves_out_the_player_and_cell(
    app: Flask, problems: list[str], said: str
) -> None:
    """The engine names the player and the cell ("player 'Anna', cell (0, 1): ..."); on the
    player's own board, where no coordinates are printed, the editor says only why."""
    from scorepad.web.editor import _sentence

    with app.test_request_context("/"):
        assert _sentence(problems) == said


def test_the_spirit_cube_is_ticked_only_once_a_spirit_is_chosen(
    client: FlaskClient, harmonies: str
) -> None:
    # Ticked under "No spirit", the box was unticked by the answer without a word (nothing
    # to place a cube for): it is offered once a spirit card is chosen.
    box = re.compile(r'<input type="checkbox" name="placed"[^>]*>')
    html = client.get(f"/t/{harmonies}?p=0").get_data(as_text=True)
    assert "disabled" in box.search(html).group(0)
    field(client, harmonies, p=0, action="spirit", spirit=35)
    html = client.get(f"/t/{harmonies}?p=0").get_data(as_text=True)
    assert "disabled" not in box.search(html).group(0)


def test_harmonies_card_names_carry_no_unexplained_mark(
    client: FlaskClient, harmonies: str
) -> None:
    """The rules' card list writes "arctic fox (*)" and "panther (*)", a mark the digest never
    explains; the editor showed it as it is. Cards are known by number and track (shown
    beside the name), so the name goes without it, in the list to add from, in the cards
    held, in the board's explanation, in every language."""
    assert hm.ANIMAL_CARDS[29].names[0] == "arctic fox (*)"  # the engine keeps the source's
    names = {"en": ("arctic fox", "panther"), "ru": ("песец", "пантера")}

    def page(url: str, language: str) -> str:
        html = client.get(url, headers={"Accept-Language": language}).get_data(as_text=True)
        assert "(*)" not in unescape(html), (url, language)
        return unescape(html)

    for language, (fox, panther) in names.items():  # offered
        offered = page(f"/t/{harmonies}?p=0", language)
        assert f"#29 {fox} · 5-10-17" in offered and f"#32 {panther} · 5-11" in offered
    for card in (29, 32):
        assert field(client, harmonies, p=0, action="add_animal", card=card).status_code == 200
    for language, (fox, panther) in names.items():  # held, and explained
        held = page(f"/t/{harmonies}?p=0", language)
        assert f"#29 {fox} · 5-10-17" in held and f"({panther})" in held
        page(f"/t/{harmonies}/results", language)
        page(f"/t/{harmonies}/screen", language)


def test_harmonies_cards_and_spirit(app: Flask, client: FlaskClient, harmonies: str) -> None:
    assert field(client, harmonies, p=0, action="add_animal", card=5).status_code == 200
    assert field(client, harmonies, p=0, action="cubes", card=5, cubes=2).status_code == 200
    track = hm.ANIMAL_CARDS[5].track
    resp = field(client, harmonies, p=0, action="cubes", card=5, cubes=len(track) + 1)
    assert resp.status_code == 422
    assert field(client, harmonies, p=0, action="add_animal", card=5).status_code == 422
    assert field(client, harmonies, p=0, action="add_animal", card=99).status_code == 422
    # One of each card in the box: Anna's frog is not offered to Boris, nor taken by him.
    boris = client.get(f"/t/{harmonies}?p=1").get_data(as_text=True)
    assert '<option value="5"' not in boris and '<option value="6"' in boris
    resp = field(client, harmonies, p=1, action="add_animal", card=5)
    assert resp.status_code == 422
    assert message(resp).startswith("Animal card 5 is already in front of Anna: the box has")
    field(client, harmonies, p=0, action="spirit", spirit=35, placed="on")
    board = stored_doc(app, harmonies)["players"][0]
    assert board["animals"] == [{"card": 5, "cubes": 2}]
    assert board["spirit"] == {"card": 35, "placed": True}
    # The spirit card too: not offered to Boris, refused in the board's words.
    boris = client.get(f"/t/{harmonies}?p=1").get_data(as_text=True)
    assert '<option value="35"' not in boris and '<option value="36"' in boris
    resp = field(client, harmonies, p=1, action="spirit", spirit=35)
    assert resp.status_code == 422
    assert message(resp).startswith("Spirit card 35 is already in front of Anna: the box has")
    html = client.get(f"/t/{harmonies}").get_data(as_text=True)
    assert "-".join(str(t) for t in track) in html  # the card's point track is shown
    field(client, harmonies, p=0, action="remove_animal", card=5)
    field(client, harmonies, p=0, action="spirit", spirit="")
    board = stored_doc(app, harmonies)["players"][0]
    assert board["animals"] == [] and "spirit" not in board


def test_harmonies_cube_shows_the_card_it_scores_for(client: FlaskClient, harmonies: str) -> None:
    # Frog (5: T1 → W@SE*): the water (1, 0) below the tree (0, 0), its cube the frog's.
    for tool, q, r in (("green", 0, 0), ("blue", 1, 0), ("cube", 1, 0)):
        tap(client, harmonies, p=0, tool=tool, q=q, r=r)
    field(client, harmonies, p=0, action="add_animal", card=5)
    resp = field(client, harmonies, p=0, action="cubes", card=5, cubes=1)
    html = resp.get_data(as_text=True)  # type: ignore[attr-defined]
    assert re.findall(r'<text class="cube-card"[^>]*>(\d+)<', html) == ["5"]
    assert "The number on a cube: the animal card it scores for." in html


def test_harmonies_cards_count_their_cubes_from_the_board(
    app: Flask, client: FlaskClient, harmonies: str
) -> None:
    """The cubes put on the board are the cards' counts: one tap sets every card's, instead
    of setting each card's list to what the board already shows."""
    # Frog (5: T1 → W@SE*): two trees with water below, both cubed; a third cube on a tree
    # no card's pattern ends on. Card 11 matches nothing here.
    for tool, q, r in (
        ("green", 0, 0), ("blue", 1, 0), ("cube", 1, 0),
        ("green", 0, 2), ("blue", 1, 2), ("cube", 1, 2),
        ("green", 2, 2), ("cube", 2, 2),
    ):  # fmt: skip
        tap(client, harmonies, p=0, tool=tool, q=q, r=r)
    field(client, harmonies, p=0, action="add_animal", card=5)
    field(client, harmonies, p=0, action="add_animal", card=11)
    resp = field(client, harmonies, p=0, action="cubes_from_board")
    assert resp.status_code == 200  # type: ignore[attr-defined]
    animals = stored_doc(app, harmonies)["players"][0]["animals"]
    assert animals == [{"card": 5, "cubes": 2}, {"card": 11, "cubes": 0}]
    html = resp.get_data(as_text=True)  # type: ignore[attr-defined]
    assert re.findall(r'<text class="cube-card"[^>]*>(\d+)<', html) == ["5", "5"]
    assert 'id="cubes-from-board"' in html
    # A placed spirit's cube is one of the board's: the cube on (2, 2), which no card's
    # pattern ends on, is left to it; without that cube the frog gives one up.
    field(client, harmonies, p=0, action="spirit", spirit=35, placed="on")
    field(client, harmonies, p=0, action="cubes_from_board")
    assert stored_doc(app, harmonies)["players"][0]["animals"][0] == {"card": 5, "cubes": 2}
    tap(client, harmonies, p=0, tool="cube", q=2, r=2)  # taken away
    field(client, harmonies, p=0, action="cubes_from_board")
    assert stored_doc(app, harmonies)["players"][0]["animals"][0] == {"card": 5, "cubes": 1}
    html = client.get(f"/t/{harmonies}?p=0").get_data(as_text=True)
    assert "on the board, but the cards claim" not in html
    # A board with no card is offered no button.
    assert 'id="cubes-from-board"' not in client.get(f"/t/{harmonies}?p=1").get_data(True)


def test_harmonies_spirit_evidence_is_what_the_spirit_paid_for() -> None:
    """Spirit 42 pays 2 per blue hex: "check a paper sheet" outlines the two blue hexes, not
    the animal cube elsewhere; a spirit whose cube was not placed scores, and outlines, nothing."""
    hexes = {(0, 0): ["blue"], (0, 1): ["blue"], (2, 0): ["green"]}
    cells = [
        {"q": q, "r": r, "stack": hexes.get((q, r), [])}
        | ({"cube": True} if (q, r) == (2, 0) else {})
        for q, r in hm.board_hexes("A")
    ]
    for placed, points, outlined in ((True, 4, {(0, 0), (0, 1)}), (False, 0, set())):
        spirit = {"card": 42, "placed": placed}
        doc = {
            "game": "harmonies",
            "options": {"side": "A"},
            "players": [{"name": "Anna", "cells": cells, "spirit": spirit}],
        }
        player = engine_result(doc).players[0]
        assert player.categories["spirit"] == points
        assert hm_evidence(player.details, "spirit") == outlined


def test_harmonies_solo_game_shows_its_suns(app: Flask, client: FlaskClient) -> None:
    # Rules digest, Harmonies solo: suns by score band, +1 side A, +2 without a spirit or
    # +1 with spirit 33, 34, 37, 38 or 41.
    solo = new_table(client, {"game": "harmonies", "side": "A"}, ["Anna"])
    html = client.get(f"/t/{solo}").get_data(as_text=True)
    assert (
        "Solo game: 3 suns</strong> (none for a score below 40, +1 for side A, +2 for "
        "playing without a spirit)." in html
    )
    field(client, solo, p=0, action="spirit", spirit=33)
    html = client.get(f"/t/{solo}/results").get_data(as_text=True)
    assert "Solo game: 2 suns</strong> (none for a score below 40, +1 for side A, +1 for " in html
    field(client, solo, p=0, action="spirit", spirit=35)
    html = client.get(f"/t/{solo}").get_data(as_text=True)
    assert "Solo game: 1 sun</strong> (none for a score below 40, +1 for side A)." in html
    two = new_table(client, {"game": "harmonies", "side": "A"}, ["Anna", "Boris"])
    assert 'id="suns"' not in client.get(f"/t/{two}").get_data(as_text=True)


@pytest.mark.parametrize(
    ("total", "why"),
    [
        (39, "none for a score below 40"),
        (40, "1 for 40–69 points"),
        (109, "3 for 90–109 points"),
        (159, "7 for 150–159 points"),
        (160, "8 for 160 points or more"),
    ],
)
def test_harmonies_sun_bands_in_words(app: Flask, total: int, why: str) -> None:
    with app.test_request_context():
        shown = solo_suns(hm.suns(total, "B", hm.SpiritClaim(38, True)), total)
    assert shown is not None and shown["why"] == f"{why}, +1 for the spirit played"


def test_harmonies_river_and_labels_drawn(app: Flask, client: FlaskClient, harmonies: str) -> None:
    html = tap(client, harmonies, p=0, tool="blue", q=0, r=0).get_data(as_text=True)
    assert "Longest river: 1 hex → 0 points." in html  # one hex: no line drawn, none named
    assert 'class="river"' not in html and "blue line" not in html
    for q, r in ((0, 1), (0, 2)):
        tap(client, harmonies, p=0, tool="blue", q=q, r=r)
    for colour in ("brown", "green"):
        tap(client, harmonies, p=0, tool=colour, q=1, r=0)
    html = tap(client, harmonies, p=0, tool="green", q=1, r=1).get_data(as_text=True)
    result = engine_result(stored_doc(app, harmonies)).players[0]
    assert result.categories["water"] == 5  # a river of 3 hexes
    assert 'class="river"' in html and "Longest river: 3 hexes → 5 points (the blue line)." in html
    assert html.count('class="label tree"') == len(result.details["trees"]) == 2


# --- Spring Meadow -------------------------------------------------------------------------------


@pytest.fixture
def meadow(client: FlaskClient) -> str:
    form = {"game": "spring-meadow", "layout": "example", "orientation": "vertical"}
    return new_table(client, form, ["Anna", "Boris"])


def test_spring_meadow_new_board_marks_the_layout_burrows(app: Flask, meadow: str) -> None:
    doc = stored_doc(app, meadow)
    layout = sm.example_layout()
    rows = doc["players"][0]["rows"]
    assert len(rows) == 15 and all(len(r) == 10 for r in rows)
    assert {(r, c) for r, row in enumerate(rows) for c, x in enumerate(row) if x == "o"} == set(
        layout.burrows
    )


@pytest.mark.parametrize("orientation", ["vertical", "horizontal"])
def test_spring_meadow_squares_are_named_by_the_printed_line_numbers(orientation: str) -> None:
    # The list of squares to check names them as a player finds them on the board: by the
    # counted line (the numbers beside the board) and the place along it.
    for line in range(1, sm.LINES + 1):
        along = sm.line_squares(orientation, line)  # type: ignore[arg-type]
        places = [square_place(orientation, r, c) for r, c in along]
        assert places == [{"line": line, "n": n} for n in range(1, len(along) + 1)]


def test_spring_meadow_square_labels_on_the_board(client: FlaskClient) -> None:
    for orientation, label in [
        ("vertical", "line 15, square 1 from the left: "),  # the top left square
        ("horizontal", "line 1, square 1 from the top: "),
    ]:
        form = {"game": "spring-meadow", "layout": "example", "orientation": orientation}
        table_id = new_table(client, form, ["Anna"])
        html = client.get(f"/t/{table_id}").get_data(as_text=True)
        found = re.search(r'data-row="0" data-col="0"[^>]*aria-label="([^"]*)"', html)
        found = found or re.search(r'aria-label="([^"]*)"[^>]*data-row="0" data-col="0"', html)
        assert found and found.group(1).startswith(label), found and found.group(1)


def test_spring_meadow_horizontal_boards(app: Flask, client: FlaskClient) -> None:
    form = {"game": "spring-meadow", "layout": "example", "orientation": "horizontal"}
    table_id = new_table(client, form, ["Anna"])
    rows = stored_doc(app, table_id)["players"][0]["rows"]
    assert len(rows) == 10 and all(len(r) == 15 for r in rows)
    tap(client, table_id, p=0, line=1)  # the left column
    rows = stored_doc(app, table_id)["players"][0]["rows"]
    assert all(row[0] in "#o" for row in rows)


def test_spring_meadow_drag_paints_many_squares(
    app: Flask, client: FlaskClient, meadow: str
) -> None:
    printed = stored_doc(app, meadow)["players"][0]["rows"][14]
    squares = ";".join(f"14,{c}" for c in range(10))
    assert tap(client, meadow, p=0, tool="#", squares=squares).status_code == 200
    rows = stored_doc(app, meadow)["players"][0]["rows"]
    assert rows[14] == printed.replace(".", "#")  # its burrows stay open (they count)
    result = engine_result(stored_doc(app, meadow)).players[0]
    assert result.categories["full_rows"] == 10


def test_spring_meadow_burrow_states_only_on_the_printed_burrows(
    app: Flask, client: FlaskClient, meadow: str
) -> None:
    """A marmot, an open or a cleared burrow only where the layout prints a burrow, and no
    snow on one: refused in the board's words, nothing stored."""
    rows = stored_doc(app, meadow)["players"][0]["rows"]
    burrow = next((r, c) for r, row in enumerate(rows) for c, x in enumerate(row) if x == "o")
    plain = next((r, c) for r, row in enumerate(rows) for c, x in enumerate(row) if x == ".")
    for tool in ("m", "c", "o"):
        resp = tap(client, meadow, p=0, tool=tool, row=plain[0], col=plain[1])
        assert resp.status_code == 422
        assert (
            message(resp) == "There is no burrow on that square: burrows are printed on the board."
        )
    resp = tap(client, meadow, p=0, tool=".", row=burrow[0], col=burrow[1])
    assert message(resp).startswith("That square is a burrow:")
    drag = f"{burrow[0]},{burrow[1]};{plain[0]},{plain[1]}"
    resp = tap(client, meadow, p=0, tool="m", squares=drag)
    assert message(resp).startswith("Some of those squares have no burrow")
    assert stored_doc(app, meadow)["players"][0]["rows"] == rows
    assert tap(client, meadow, p=0, tool="m", row=burrow[0], col=burrow[1]).status_code == 200


def test_spring_meadow_fill_row_keeps_burrows_and_clear_restores_them(
    app: Flask, client: FlaskClient, meadow: str
) -> None:
    printed = stored_doc(app, meadow)["players"][0]["rows"][10]  # "o........."
    tap(client, meadow, p=0, line=5)  # counted line 5 is row 10 from the top
    assert stored_doc(app, meadow)["players"][0]["rows"][10] == "o#########"
    tap(client, meadow, p=0, tool="c", row=10, col=0)
    assert stored_doc(app, meadow)["players"][0]["rows"][10][0] == "c"
    tap(client, meadow, p=0, tool="clear", squares="10,0;10,1")
    assert stored_doc(app, meadow)["players"][0]["rows"][10][:2] == printed[:2]
    # A drag of tiles across the line passes over its burrow, as the fill does; a tap on
    # the burrow alone covers it (covering a burrow costs a marmot: the engine warns).
    tap(client, meadow, p=0, tool="#", squares=";".join(f"10,{c}" for c in range(10)))
    assert stored_doc(app, meadow)["players"][0]["rows"][10] == "o#########"
    tap(client, meadow, p=0, tool="c", row=10, col=0)
    tap(client, meadow, p=0, tool="#", squares="10,0;10,1")
    assert stored_doc(app, meadow)["players"][0]["rows"][10][0] == "c"
    tap(client, meadow, p=0, tool="#", row=10, col=0)
    assert stored_doc(app, meadow)["players"][0]["rows"][10][0] == "#"
    html = client.get(f"/t/{meadow}?p=0").get_data(as_text=True)
    assert "more burrows covered by tiles (1) than marmots on the board (0)" in html


def test_spring_meadow_bad_squares_are_refused(
    app: Flask, client: FlaskClient, meadow: str
) -> None:
    before = stored_doc(app, meadow)
    assert tap(client, meadow, p=0, tool="#", squares="15,0").status_code == 422
    assert tap(client, meadow, p=0, tool="#", squares="a,b").status_code == 422
    assert tap(client, meadow, p=0, tool="x", squares="0,0").status_code == 422
    assert tap(client, meadow, p=0, line=16).status_code == 422
    assert stored_doc(app, meadow) == before


def test_spring_meadow_explanation_and_evidence(
    app: Flask, client: FlaskClient, meadow: str
) -> None:
    tap(client, meadow, p=0, line=1)
    tap(client, meadow, p=0, line=2)
    html = tap(client, meadow, p=0, tool="#", squares="12,0;12,1;12,2").get_data(as_text=True)
    assert html.count('class="full-row"') == 2 and 'class="counting-row"' in html
    assert "line 3 (outlined) has" in html
    paper = {"p": "0", "cat_full_rows": "30"}
    check = client.post(f"/t/{meadow}/check", data=paper, headers=HX).get_data(as_text=True)
    assert 'data-diff="10"' in check
    assert check.count('class="sq-cell marked"') == 20  # the two full lines
    # The first incomplete line outlines the squares it counts, not its snow: as many as points.
    points = engine_result(stored_doc(app, meadow)).players[0].categories["partial_row"]
    paper = {"p": "0", "focus": "partial_row"}
    check = client.post(f"/t/{meadow}/check", data=paper, headers=HX).get_data(as_text=True)
    assert 3 <= points < sm.LINE_LENGTH and check.count('class="sq-cell marked"') == points


def test_a_fresh_meadow_is_all_level_not_led_by_everyone(
    app: Flask, client: FlaskClient, meadow: str
) -> None:
    # Each printed burrow scores 1 before anyone plays: "Leading: Anna, Boris" read oddly.
    html = client.get(f"/t/{meadow}/results").get_data(as_text=True)
    standing = re.search(r'id="winner">(.*?)</p>', html, re.S)
    assert standing and standing.group(1).strip() == "All level on 1 point."
    tap(client, meadow, p=0, line=1)  # Anna covers a line: she leads
    html = client.get(f"/t/{meadow}/results").get_data(as_text=True)
    standing = re.search(r'id="winner">(.*?)</p>', html, re.S)
    assert standing and standing.group(1).strip() == "Leading: Anna"


def test_spring_meadow_phase_ledger(app: Flask, client: FlaskClient, meadow: str) -> None:
    tap(client, meadow, p=0, line=1)
    tap(client, meadow, p=0, tool="c", row=10, col=0)  # a cleared burrow
    field(client, meadow, p=0, action="active", active="Boris")
    resp = field(client, meadow, p=0, action="record_phase")
    assert resp.status_code == 200
    assert message(resp) == "Phase 1 recorded: Anna takes a hiking pin."
    stored = stored_doc(app, meadow)
    assert stored["players"][0]["rows"][10][0] == "m"  # the winner's marmot
    assert "active" not in stored["options"]
    html = client.get(f"/t/{meadow}/results").get_data(as_text=True)
    assert 'id="ledger"' in html and "Pins" in html
    # Undone and redone, the phase is the table's step, though its marmot changed a board.
    undone = client.post(f"/t/{meadow}/undo", data={"p": "1"}, headers=HX)
    assert message(undone) == "Undone for the table. The record of phase 1."
    assert stored_doc(app, meadow)["players"][0]["rows"][10][0] == "c"
    assert message(client.post(f"/t/{meadow}/redo", data={"p": "1"}, headers=HX)) == (
        "Redone for the table. The record of phase 1."
    )
    # Anna wins a second phase: 2 pins, the game is over.
    assert message(field(client, meadow, p=0, action="record_phase")).startswith("Phase 2")
    resp = field(client, meadow, p=0, action="active", active="")  # the game is over
    assert resp.status_code == 422 and message(resp) == "The game is over: Anna has 2 pins."
    html = client.get(f"/t/{meadow}/results").get_data(as_text=True)
    assert "Game won by Anna" in html
    # The game is over before the host finishes the table: a winner, not a leader.
    assert re.search(r'id="winner">\s*Winner: Anna\s*<', html)
    recap = client.get(f"/t/{meadow}/recap.txt").get_data(as_text=True)
    assert recap.startswith("Spring Meadow: Anna wins with ")
    editor = client.get(f"/t/{meadow}").get_data(as_text=True)  # read aloud the same way
    summary = re.search(r'id="breakdown"[^>]*data-summary="([^"]*)"', editor)
    assert summary and "Totals:" in summary.group(1) and "Leading" not in summary.group(1)
    # The score table ranks by pins, and says so beside the pins themselves.
    assert re.search(
        r'<tr data-category="pins"><th scope="row">Pins</th><td>2</td><td>0</td>', html
    )
    assert "Rank (by pins)" in html
    resp = field(client, meadow, p=0, action="record_phase")
    assert resp.status_code == 422 and "game is over" in message(resp)
    assert field(client, meadow, p=0, action="active", active="Zoe").status_code == 422


def test_spring_meadow_after_a_phase_tiles_never_move_and_marmots_never_leave(
    app: Flask, client: FlaskClient, meadow: str
) -> None:
    # A board edited after a recorded phase must stay a board that phase can lead to, else
    # the live score, the next phase's record and an exported file all disagree.
    tap(client, meadow, p=0, line=1)
    tap(client, meadow, p=0, tool="c", row=10, col=0)
    field(client, meadow, p=0, action="record_phase")  # Anna wins: a marmot on (10, 0)
    before = stored_doc(app, meadow)
    resp = tap(client, meadow, p=0, tool="c", row=10, col=0)
    assert resp.status_code == 422
    assert message(resp) == "A marmot sits on that burrow since phase 1: marmots never leave."
    resp = tap(client, meadow, p=0, tool="clear", squares="14,0;14,1")
    assert resp.status_code == 422
    assert message(resp) == "A tile lay on that square when phase 1 was recorded: tiles never move."
    assert stored_doc(app, meadow) == before
    # Going on from the phase is allowed: a tile over the marmot, a new tile, a new clearing.
    assert tap(client, meadow, p=0, tool="#", row=10, col=0).status_code == 200
    assert tap(client, meadow, p=0, tool="#", row=13, col=0).status_code == 200
    assert tap(client, meadow, p=0, tool="clear", row=13, col=0).status_code == 200  # undone
    assert tap(client, meadow, p=0, tool="c", row=9, col=5).status_code == 200
    exported = client.get(f"/t/{meadow}/export").get_data(as_text=True)
    assert client.post("/import", data={"text": exported}).status_code == 303


def test_spring_meadow_a_photo_after_a_phase_keeps_what_the_phase_left() -> None:
    layout = sm.example_layout()
    board = sm.fill_row(sm.empty_board("vertical", layout), "vertical", 1)
    board = (*board[:10], "c" + board[10][1:], *board[11:])
    players = [
        {"name": n, "rows": list(board), "layout": layout.name, "orientation": "vertical"}
        for n in ("Anna", "Boris")
    ]
    doc = {"game": "spring-meadow", "options": {"layouts": [sm.dump_layout(layout)]}}
    doc["players"] = players
    meta = {"phases": [json.loads(json.dumps(doc))]}  # Anna and Boris tie: both win
    read = list(board)
    read[14] = "." + read[14][1:]  # a tile not seen
    read[13] = "#" + read[13][1:]  # a new tile
    found = {"player": {"orientation": "vertical", "rows": read}}
    rows = from_photo(doc, meta, 0, found)["players"][0]["rows"]
    assert rows[14] == board[14] and rows[13][0] == "#"
    assert rows[10][0] == "m"  # the winner's marmot, read as the cleared burrow it was
    assert from_photo(doc, {}, 0, found)["players"][0]["rows"] == read  # no phase yet
    turned = {"player": {"orientation": "horizontal", "rows": ["." * 15] * 10}}
    with pytest.raises(EditRefused, match="a board is not turned once a scoring phase"):
        from_photo(doc, meta, 0, turned)


def other_side(app: Flask) -> str:
    """A stored layout: the example side with its burrows one column to the left."""
    rows = [row[1:] + "." for row in sm.dump_layout(sm.example_layout())["rows"]]
    with app.app_context():
        return db.create_layout(
            "spring-meadow", "Side B", {"name": "Side B", "orientation": "vertical", "rows": rows}
        )


def test_spring_meadow_each_player_has_a_board_side(
    app: Flask, client: FlaskClient, meadow: str
) -> None:
    # Each player plays a board of their own, its burrows where that side prints them.
    side_b = other_side(app)
    tap(client, meadow, p=1, line=1)  # tiles stay where they are
    resp = field(client, meadow, p=1, action="board_side", layout=f"db:{side_b}")
    assert resp.status_code == 200
    doc = stored_doc(app, meadow)
    anna, boris = doc["players"]
    assert (anna["layout"], boris["layout"]) == (sm.example_layout().name, "Side B")
    assert {lay["name"] for lay in doc["options"]["layouts"]} == {anna["layout"], "Side B"}
    # Tiles stay; the old side's burrow (14, 6) is snow now (one tap on the line fills it).
    assert boris["rows"][14] == "######.###"
    assert boris["rows"][10] == ".........." and boris["rows"][9] == "....o....."
    assert anna["rows"][10] == "o........."  # Anna's side is unchanged
    # Boris's burrows are now where Side B prints them: a cleared burrow goes there only.
    assert tap(client, meadow, p=1, tool="c", row=9, col=4).status_code == 200
    assert tap(client, meadow, p=1, tool="c", row=10, col=0).status_code == 422
    html = client.get(f"/t/{meadow}?p=1").get_data(as_text=True)
    assert re.search(r'<option value="db:[^"]+" selected>Side B</option>', html)


def test_a_table_full_of_spare_layouts_still_takes_a_new_side(
    app: Flask, client: FlaskClient, meadow: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The engine takes at most MAX_LAYOUTS: a new side then pushes out those no board is on."""
    monkeypatch.setattr(sm, "MAX_LAYOUTS", 2)
    side_b = other_side(app)
    resp = field(client, meadow, p=1, action="board_side", layout=f"db:{side_b}")
    assert resp.status_code == 200  # two layouts: Anna's example side and Side B
    rows = [row[1:] + "." for row in sm.dump_layout(sm.example_layout())["rows"]]
    with app.app_context():
        side_c = db.create_layout(
            "spring-meadow", "Side C", {"name": "Side C", "orientation": "vertical", "rows": rows}
        )
    resp = field(client, meadow, p=1, action="board_side", layout=f"db:{side_c}")
    assert resp.status_code == 200
    doc = stored_doc(app, meadow)
    assert [lay["name"] for lay in doc["options"]["layouts"]] == [
        sm.example_layout().name,
        "Side C",
    ]


def test_a_board_side_repainted_since_stays_the_tables_own(
    app: Flask, client: FlaskClient, meadow: str
) -> None:
    # The table keeps its own copy of a side; the stored layout, repainted since, is another
    # side of the same name: the picker must not offer it as the board's (a turn of the
    # board then sent it and was refused as "another layout called ...").
    side_b = other_side(app)
    assert field(client, meadow, p=0, action="board_side", layout=f"db:{side_b}").status_code == 200
    with app.app_context():
        moved = dict(db.get_layout(side_b, "spring-meadow").data)
        moved["rows"] = ["o" + row[1:] if i == 0 else row for i, row in enumerate(moved["rows"])]
        db.edit_layout(side_b, lambda current: (current.name, moved))
    html = client.get(f"/t/{meadow}?p=0").get_data(as_text=True)
    assert re.search(r'<option value="" selected>Side B</option>', html)
    assert not re.search(rf'<option value="db:{side_b}" selected>', html)
    resp = field(client, meadow, p=0, action="board_side", layout="", orientation="horizontal")
    assert resp.status_code == 200, message(resp)
    assert stored_doc(app, meadow)["players"][0]["orientation"] == "horizontal"


def test_spring_meadow_game_going_on_names_the_phase_leader_and_the_pins(
    app: Flask, client: FlaskClient, meadow: str
) -> None:
    """After phase 1 the board's leader leads phase 2 only: the game is won on pins, and
    every screen says who holds them (Boris leading the board while Anna holds the only
    pin read "Leading: Boris", as if he led the game)."""
    tap(client, meadow, p=0, line=1)
    field(client, meadow, p=0, action="record_phase")  # Anna 10, Boris 0: Anna's pin
    for line in (1, 2):
        tap(client, meadow, p=1, line=line)  # Boris leads the board now
    standing = "Leading phase 2: Boris · Pins so far: Anna 1"
    html = client.get(f"/t/{meadow}/results").get_data(as_text=True)
    assert re.search(r'id="winner">\s*' + standing + r"\s*<", html)
    assert standing in client.get(f"/t/{meadow}").get_data(as_text=True)
    recap = client.get(f"/t/{meadow}/recap.txt").get_data(as_text=True)
    assert recap.startswith("Spring Meadow: Boris leads with ")
    assert "\nPins so far: Anna 1\n" in recap
    russian = client.get(f"/t/{meadow}/results", headers={"Accept-Language": "ru"})
    assert "Булавки пока: Anna 1" in russian.get_data(as_text=True)
    # A screen reader hears it the same way.
    summary = re.search(r'data-summary="([^"]*)"', client.get(f"/t/{meadow}").get_data(True))
    assert summary and summary.group(1) == (
        f"Totals: Anna 10, Boris 21. {standing.replace(' · ', '. ')}."
    )
    # Finished before anyone's second pin: the pins are no longer "so far".
    client.post(f"/t/{meadow}/finish")
    html = client.get(f"/t/{meadow}/results").get_data(as_text=True)
    assert re.search(r'id="winner">\s*Phase winner: Boris · Pins: Anna 1\s*<', html)
    assert "\nPins: Anna 1\n" in client.get(f"/t/{meadow}/recap.txt").get_data(as_text=True)
    client.post(f"/t/{meadow}/reopen")
    # Before any phase is recorded there are no pins to speak of.
    client.post(f"/t/{meadow}/undo", data={"p": "0"}, headers=HX)
    client.post(f"/t/{meadow}/undo", data={"p": "0"}, headers=HX)
    client.post(f"/t/{meadow}/undo", data={"p": "0"}, headers=HX)
    html = client.get(f"/t/{meadow}/results").get_data(as_text=True)
    assert "Pins so far" not in html and re.search(r'id="winner">\s*Leading: Anna\s*<', html)


def test_a_spring_meadow_table_finished_before_any_phase_says_so(
    client: FlaskClient, meadow: str
) -> None:
    """Finished without a recorded phase, its results no longer send the player to record
    one from an editor that is read-only now."""
    tap(client, meadow, p=0, line=1)
    before = client.get(f"/t/{meadow}/results").get_data(as_text=True)
    assert "record it from the board editor" in before
    client.post(f"/t/{meadow}/finish")
    after = client.get(f"/t/{meadow}/results").get_data(as_text=True)
    assert "record it from the board editor" not in after
    assert "finished before any phase was recorded" in after


def test_spring_meadow_board_side_refusals(app: Flask, client: FlaskClient, meadow: str) -> None:
    tap(client, meadow, p=0, line=1)
    resp = field(client, meadow, p=0, action="board_side", orientation="horizontal")
    assert resp.status_code == 422 and message(resp).startswith("Turn the board before placing")
    resp = field(client, meadow, p=1, action="board_side", orientation="horizontal")
    assert resp.status_code == 200  # no tile yet: the board turns
    assert len(stored_doc(app, meadow)["players"][1]["rows"]) == 10
    assert field(client, meadow, p=1, action="board_side", layout="db:nope").status_code == 422
    field(client, meadow, p=0, action="record_phase")
    resp = field(client, meadow, p=1, action="board_side", orientation="vertical")
    assert resp.status_code == 422 and "once a scoring phase is recorded" in message(resp)


def test_spring_meadow_game_over_shows_the_game_winner_everywhere(
    app: Flask, client: FlaskClient, meadow: str
) -> None:
    # Anna wins phases 1 and 3, Boris phase 2. Recording phase 3 puts Anna's marmots on her
    # cleared burrows and returns the picnic tile, so the board as it stands after it ties
    # (21 each): the game's winner is Anna all the same ("Первый игрок, который
    # зарабатывает свою вторую Походную булавку, выигрывает игру!").
    tap(client, meadow, p=0, line=1)
    field(client, meadow, p=0, action="record_phase")  # Anna 10, Boris 1
    for line in (1, 2):
        tap(client, meadow, p=1, line=line)
    field(client, meadow, p=0, action="record_phase")  # Boris 21, Anna 10
    tap(client, meadow, p=0, line=2)
    for row, col in ((10, 0), (9, 5), (7, 1)):
        tap(client, meadow, p=0, tool="c", row=row, col=col)
    field(client, meadow, p=0, action="active", active="Boris")
    resp = field(client, meadow, p=0, action="record_phase")  # Anna 24, Boris 21 + 2
    assert message(resp) == "Phase 3 recorded: Anna takes a hiking pin."
    now = engine_result(stored_doc(app, meadow))
    assert now.winners == ("Anna", "Boris")  # the board after the phase: a tie
    # The game is over: its boards are the last phase's, no longer edited.
    resp = tap(client, meadow, p=1, line=3)
    assert resp.status_code == 422 and message(resp) == "The game is over: Anna has 2 pins."
    assert field(client, meadow, p=0, action="active", active="Boris").status_code == 422
    client.post(f"/t/{meadow}/finish")
    html = client.get(f"/t/{meadow}/results").get_data(as_text=True)
    assert re.search(r'id="winner">\s*Winner: Anna\s*<', html)
    assert "Game won by Anna (2 pins)" in html
    assert re.search(r'data-total="Anna"[^>]*>24<', html)  # the last phase's scores
    editor = client.get(f"/t/{meadow}").get_data(as_text=True)
    assert "Record phase" not in editor and re.search(r'id="leaders">\s*Winner: Anna', editor)
    assert editor.count('class="plus-one"') == 3  # the last phase's board: cleared, not marmots
    recap = client.get(f"/t/{meadow}/recap.txt").get_data(as_text=True)
    assert recap.startswith("Spring Meadow: Anna wins with 24 points")
    screen = client.get(f"/t/{meadow}/screen").get_data(as_text=True)
    assert re.search(r'id="screen-leaders">\s*Winner: Anna\s*<', screen)
    assert 'id="ledger"' in screen and "Game won by Anna (2 pins)" in screen  # the pins decide
    players = client.get("/players").get_data(as_text=True)
    assert re.search(r'data-player="Anna">.*?data-stat="wins">1<', players, re.S)
    assert re.search(r'data-player="Boris">.*?data-stat="wins">0<', players, re.S)


def test_spring_meadow_export_keeps_the_recorded_phases(
    app: Flask, client: FlaskClient, meadow: str
) -> None:
    # Exported and imported again, a game keeps its pins (a game file: the phases, then
    # the board as it stands); a table without phases exports a plain board file.
    assert isinstance(client.get(f"/t/{meadow}/export").get_json(), dict)
    tap(client, meadow, p=0, line=1)
    field(client, meadow, p=0, action="record_phase")  # Anna takes a pin
    saved = client.get(f"/t/{meadow}/export").get_json()
    assert isinstance(saved, list) and len(saved) == 2
    assert saved[-1] == stored_doc(app, meadow)
    resp = client.post("/import", data={"text": json.dumps(saved)})
    copy_id = resp.headers["Location"].rsplit("/", 1)[-1]
    html = client.get(f"/t/{copy_id}/results").get_data(as_text=True)
    assert 'id="ledger"' in html and "Record phase" not in html
    editor = client.get(f"/t/{copy_id}").get_data(as_text=True)
    assert "Record phase 2" in editor
    bad = client.post("/import", data={"text": json.dumps([saved[0], {"game": "seasons"}])})
    assert bad.status_code == 422 and "not a Spring Meadow board file" in bad.get_data(as_text=True)


def test_a_phase_won_on_a_tie_break_says_how_in_the_ledger(
    client: FlaskClient, meadow: str
) -> None:
    tap(client, meadow, p=0, line=1)  # Anna 10 + the picnic 2
    tap(client, meadow, p=1, line=1)
    tap(client, meadow, p=1, tool="#", squares="13,4;13,5")  # Boris 10 + 2
    nobody = "Nobody holds the picnic tile: players tied for the most points each take a pin."
    assert nobody in client.get(f"/t/{meadow}").get_data(as_text=True)  # asked before
    field(client, meadow, p=0, action="active", active="Anna")
    assert nobody not in client.get(f"/t/{meadow}").get_data(as_text=True)
    before = client.get(f"/t/{meadow}/results").get_data(as_text=True)
    assert "seats counter-clockwise" in before  # the phase's own tie-break, before recording
    # The seats are counted from someone named: "(1 vs 0)" alone explained nothing.
    assert (
        "Boris ahead of Anna on seats counter-clockwise from active player Anna (1 vs 0)" in before
    )
    russian = client.get(f"/t/{meadow}/results", headers={"Accept-Language": "ru"})
    assert "«места против часовой стрелки от активного игрока Anna» (1 против 0)" in (
        russian.get_data(as_text=True)
    )
    field(client, meadow, p=0, action="record_phase")
    html = client.get(f"/t/{meadow}/results").get_data(as_text=True)
    said = re.search(r'<ul class="tiebreaks small" id="ledger-tiebreaks"><li>(.*?)</li>', html)
    assert said and said.group(1).startswith("Phase 1: ")
    assert "seats counter-clockwise" in said.group(1)


def test_a_spring_meadow_game_won_on_pins_shares_them(
    app: Flask, client: FlaskClient, meadow: str
) -> None:
    tap(client, meadow, p=0, line=1)
    field(client, meadow, p=0, action="record_phase")  # Anna's first pin
    html = client.get(f"/t/{meadow}/results").get_data(as_text=True)
    assert "No one has 2 pins yet: finished now, the game goes to this phase" in html
    field(client, meadow, p=0, action="record_phase")  # her second: the game is over
    html = client.get(f"/t/{meadow}/results").get_data(as_text=True)
    assert "No one has 2 pins yet" not in html and 'id="finish"' in html
    ru = {"Accept-Language": "ru"}
    sheet = client.get(f"/t/{meadow}/results.csv", headers=ru).get_data(as_text=True)
    head, anna = sheet.lstrip("\ufeff").splitlines()[:2]  # the BOM tells Excel UTF-8
    assert head.startswith("Место (по булавкам);") and head.endswith(";Булавки")  # ru: ";"
    assert anna.endswith(";2")
    recap = client.get(f"/t/{meadow}/recap.txt", headers=ru).get_data(as_text=True)
    assert any(line.startswith("Булавки: ") for line in recap.splitlines())
    html = client.get(f"/t/{meadow}/results").get_data(as_text=True)  # decided, not finished
    assert "The game is over; finish the table" in html and "still open" not in html
    other = app.test_client().get(f"/t/{meadow}/results").get_data(as_text=True)
    assert "The game is over; the host finishes the table." in other
    assert client.get(f"/t/{meadow}/card.png").status_code == 200  # a Pins row drawn too


def test_spring_meadow_one_player_plays_the_solo_game(app: Flask, client: FlaskClient) -> None:
    form = {"game": "spring-meadow", "layout": "example", "orientation": "vertical"}
    solo = new_table(client, form, ["Anna"])
    assert stored_doc(app, solo)["players"][0]["solo_values"] == []
    html = client.get(f"/t/{solo}").get_data(as_text=True)
    assert 'id="solo-values"' in html and "Record phase" not in html and "Picnic tile" not in html
    assert "No row is complete yet" in html
    for line in (1, 2, 3):
        tap(client, solo, p=0, line=line)
    tap(client, solo, p=0, tool="c", row=10, col=0)  # a cleared burrow, line 5
    html = client.get(f"/t/{solo}").get_data(as_text=True)
    assert html.count('name="value_') == 3  # one field per row completed
    # Rows 1 and 2 in one turn: the same value twice ("запишите очки несколько раз").
    html = field(client, solo, p=0, action="solo_values", value_0=12, value_1=12, value_2=11)
    html = html.get_data(as_text=True)  # type: ignore[attr-defined]
    assert stored_doc(app, solo)["players"][0]["solo_values"] == [12, 12, 11]
    assert "Values written down: 12 + 12 + 11 = 35." in html
    assert re.search(r'data-total="Anna"[^>]*>36<', html)  # + 1 cleared burrow
    assert "104 more is a good result (140)" in html
    assert ">Rank<" not in html and "Leading:" not in html  # nobody to rank in a solo game
    assert 'class="counting-row"' not in html  # no incomplete row scores in solo
    results = client.get(f"/t/{solo}/results").get_data(as_text=True)
    assert re.search(r'id="winner">\s*Solo game: Anna, 36 points\s*<', results)
    assert "<h3>Anna — 36 points</h3>" in results  # no rank alone
    recap = client.get(f"/t/{solo}/recap.txt").get_data(as_text=True)
    assert recap.startswith("Spring Meadow: Anna scores 36 points (solo)")
    # The paper check asks for the rows the solo score has, not a phase's.
    paper = {"p": "0", "cat_full_rows": "35", "cat_cleared_burrows": "2"}
    check = client.post(f"/t/{solo}/check", data=paper, headers=HX).get_data(as_text=True)
    assert "Values written down" in check and "Picnic" not in check
    # Rows written down, burrows; the total is left blank.
    assert re.findall(r'data-diff="(-?\d*)"', check) == ["0", "1", ""]


def test_an_imported_lone_board_without_solo_values_is_a_phase(
    app: Flask, client: FlaskClient
) -> None:
    # One player's board of a larger game, as a board file can carry it: scored as a phase
    # (rows x 10), and the editor says so rather than offer the solo game's values.
    rows = ["." * 10] * 12 + ["#" * 10] * 3
    board = {"name": "Anna", "orientation": "vertical", "rows": rows}
    doc = {"game": "spring-meadow", "players": [board]}
    resp = client.post("/import", data={"text": json.dumps(doc)}, headers=HX)
    table_id = resp.headers["HX-Redirect"].rsplit("/", 1)[-1]
    html = client.get(f"/t/{table_id}").get_data(as_text=True)
    assert 'id="solo-values"' not in html and "Record phase" not in html  # it cannot be
    assert re.search(r'data-total="Anna"[^>]*>30<', html)


def test_spring_meadow_solo_values_refused_and_kept(app: Flask, client: FlaskClient) -> None:
    form = {"game": "spring-meadow", "layout": "example", "orientation": "vertical"}
    solo = new_table(client, form, ["Anna"])
    field(client, solo, p=0, action="solo_values", value_0=12)
    resp = field(client, solo, p=0, action="solo_values", value_0=12, value_1="", value_2=9)
    assert resp.status_code == 422 and message(resp).startswith("Row 2 has no value")
    for text in ("²", "١٢", "1e2"):  # digits to Python's isdigit / isdecimal, or a float
        resp = field(client, solo, p=0, action="solo_values", value_0=text)
        assert resp.status_code == 422 and "is not a signpost value" in message(resp)
    resp = field(client, solo, p=0, action="solo_values", value_0="twelve")
    assert resp.status_code == 422 and "“twelve” is not a signpost value" in message(resp)
    assert field(client, solo, p=0, action="solo_values", value_0=-3).status_code == 422
    assert field(client, solo, p=0, action="solo_values", value_0=100).status_code == 422
    resp = field(client, solo, p=0, action="record_phase")
    assert resp.status_code == 422 and "no scoring phases" in message(resp)
    # A value past the board's last line (only a script sends one) is refused, not dropped.
    beyond = {f"value_{sm.LINES}": 7, "value_0": 12, "value_1": 5}
    resp = field(client, solo, p=0, action="solo_values", **beyond)
    assert resp.status_code == 422 and message(resp) == (
        f"A solo game has at most {sm.LINES} values: one per row or column."
    )
    assert field(client, solo, p=0, action="solo_values", value_99="").status_code == 200
    assert stored_doc(app, solo)["players"][0]["solo_values"] == []
    field(client, solo, p=0, action="solo_values", value_0=12)
    assert stored_doc(app, solo)["players"][0]["solo_values"] == [12]
    # Blank fields at the end are rows not typed yet; a value beyond the rows completed is
    # kept, and the board says they differ.
    html = field(client, solo, p=0, action="solo_values", value_0=12, value_1="")
    assert "Only 0 rows are complete" in html.get_data(as_text=True)  # type: ignore[attr-defined]


def test_spring_meadow_solo_on_a_horizontal_board_names_columns(client: FlaskClient) -> None:
    form = {"game": "spring-meadow", "layout": "example", "orientation": "horizontal"}
    solo = new_table(client, form, ["Anna"])
    empty = client.get(f"/t/{solo}").get_data(as_text=True)
    assert "No column is complete yet: fill the left column" in empty
    html = tap(client, solo, p=0, line=1).get_data(as_text=True)
    assert "Column 1 <input" in html and "Row 1" not in html
    assert "Solo game: 1 column complete from the left" in html
    assert "from the bottom" not in html and "Each time a column was completed" in html
    resp = field(client, solo, p=0, action="solo_values", value_0="", value_1=5)
    assert resp.status_code == 422 and "Column 1 has no value" in resp.get_data(as_text=True)
    results = client.get(f"/t/{solo}/results").get_data(as_text=True)
    assert "values written down as columns were completed" in results


def test_spring_meadow_solo_values_only_in_a_solo_game(client: FlaskClient, meadow: str) -> None:
    resp = field(client, meadow, p=0, action="solo_values", value_0=12)
    assert resp.status_code == 422 and message(resp) == "Only a solo game has values written down."


# --- Seasons -------------------------------------------------------------------------------------


def test_the_kids_variant_is_said_to_guests_and_on_the_results(
    app: Flask, client: FlaskClient
) -> None:
    # The host switched to Kids mid-game: the seated phones had no rules section at all,
    # and the results never said the table played Kids (fewer sheep pair).
    table_id = new_table(client, SV_FORM, ["Anna", "Boris"])
    rules = {"p": "0", "action": "table_rules", "variant": "kids"}
    rules |= {f"express_{n}": str(n * n) for n in range(2, 7)}
    assert client.post(f"/t/{table_id}/field", data=rules, headers=HX).status_code == 200
    boris = app.test_client()
    boris.environ_base["REMOTE_ADDR"] = "10.0.0.7"
    assert boris.post(f"/t/{table_id}/join", data={"seat": "1"}).status_code in (200, 303)
    html = unescape(boris.get(f"/t/{table_id}").get_data(as_text=True))
    said = re.search(r'id="table-rules-read">(.*?)</p>', html, re.S)
    assert said and "Table rules: Kids" in said.group(1) and "2 → 4" in said.group(1)
    assert 'id="table-rules"' not in html  # the host's form is the host's
    assert 'id="table-rules-read"' not in client.get(f"/t/{table_id}").get_data(as_text=True)
    results = unescape(client.get(f"/t/{table_id}/results").get_data(as_text=True))
    assert 'id="rules-variant"' in results and "Table rules: Kids" in results
    # Areas where nobody drew a sunflower are nobody's, not a tie; nor is a residents
    # place said while the sheet has no resident.
    assert "nobody (tie)" not in results and "nobody<" in results
    assert "tied for place" not in results and "Residents: 0" in results


def test_a_pair_through_the_herd_is_drawn_and_said_the_way_it_goes(client: FlaskClient) -> None:
    # A sheep touching no house, paired through its herd's house and that house's
    # settlement: a straight line to the far house could not be followed on paper.
    from sheets import axial_table

    spec = {(0, -1): "S", (0, 0): "S", (1, 0): "H", (3, -1): "R03", (4, -1): "R03"}
    doc = axial_table(spec | {(2, -1): "H", (5, -1): "H"})
    resp = client.post("/import", data={"text": json.dumps(doc)}, headers=HX)
    table_id = str(resp.headers["HX-Redirect"]).rsplit("/", 1)[-1]
    html = unescape(client.get(f"/t/{table_id}").get_data(as_text=True))
    routes = re.findall(r'<polyline class="pair" points="([^"]+)"', html)
    # Sheep to house; sheep, the herd's sheep, the house beside it, the settlement's house.
    assert sorted(len(r.split()) for r in routes) == [2, 4]
    # Each line ends in a dot on its house (the house, not the herd's end, is the pair's).
    ends = re.findall(r'<circle class="pair-end" cx="([\d.]+)" cy="([\d.]+)"', html)
    assert len(ends) == 2 and all(
        r.split()[-1] == f"{float(x):.1f},{float(y):.1f}"
        for r, (x, y) in zip(routes, ends, strict=True)
    )
    assert re.search(r"paired with the house at [^(]+\(\w+, by the house at ", html)


def test_sunflower_areas_say_who_takes_them(app: Flask, client: FlaskClient) -> None:
    # Rule C is decided across the table: a sheet's "purple 2" alone cannot settle a
    # dispute over an area another player took, nor one nobody took.
    table_id = new_table(client, SV_FORM, ["Anna", "Boris", "Vera"])
    by_area: dict[str, list[tuple[int, int]]] = {}
    for c in stored_doc(app, table_id)["players"][0]["cells"]:
        if not c.get("mountain"):
            by_area.setdefault(c["area"], []).append((c["q"], c["r"]))
    one, two, three = sorted(by_area)[:3]
    plan = {0: [one], 1: [one, one, two], 2: [two, three]}  # Anna 1 in one; Boris 2 ...
    for player, areas in plan.items():
        for k, area in enumerate(areas):
            q, r = by_area[area][k if area == one and player == 1 else 0]
            assert tap(client, table_id, p=player, tool="sunflower", q=q, r=r).status_code == 200
    html = unescape(client.get(f"/t/{table_id}?p=0").get_data(as_text=True))
    legend = re.search(r"Sunflowers by area:(.*?)</div>", html, re.S)
    assert legend
    text = re.sub(r"<[^>]+>", "", legend.group(1))
    assert "(Boris 2)" in text  # Boris takes area one from Anna's 1
    assert "(Boris and Vera tied at 1: nobody)" in text  # area two
    assert "(Vera 1)" in text  # area three
    html = unescape(client.get(f"/t/{table_id}?p=1").get_data(as_text=True))
    assert "(+3, taken)" in html and "(Boris 2)" not in html


@pytest.fixture
def seasons(client: FlaskClient) -> str:
    return new_table(client, {"game": "seasons"}, ["Anna", "Boris"])


def test_seasons_counts(app: Flask, client: FlaskClient, seasons: str) -> None:
    resp = field(client, seasons, p=0, action="counts", crystals=120, bonuses_used=1,
                 cards_in_hand=2, energy_in_reserve=3, jewel_energy=0, replicas=0,
                 ability_token="4")  # fmt: skip
    assert resp.status_code == 200
    anna = stored_doc(app, seasons)["players"][0]
    assert (anna["crystals"], anna["bonuses_used"], anna["ability_token"]) == (120, 1, 4)
    result = engine_result(stored_doc(app, seasons)).players[0]
    assert result.total == 120 - 5 - 2 * 5 + 10  # crystals, bonus track, hand, token 4
    before = stored_doc(app, seasons)
    resp = field(client, seasons, p=0, action="counts", energy_in_reserve=9)
    assert resp.status_code == 422 and "Energy in reserve" in message(resp)
    assert field(client, seasons, p=0, action="counts", crystals="lots").status_code == 422
    assert stored_doc(app, seasons) == before
    # A Bespelled Grimoire in play extends the reserve: 10 energy is then possible.
    field(client, seasons, p=0, action="add_card", card=BESPELLED_GRIMOIRE)
    resp = field(client, seasons, p=0, action="counts", energy_in_reserve=10)
    assert resp.status_code == 200
    assert stored_doc(app, seasons)["players"][0]["energy_in_reserve"] == 10


def test_seasons_a_field_changed_after_a_refused_one_is_kept(
    app: Flask, client: FlaskClient, seasons: str
) -> None:
    # The form sends every field: a crystals count refused and left in its field (to be
    # corrected there) came again with the next field's change and refused it too.
    form = {"p": 0, "action": "counts", "crystals": 11700, "bonuses_used": 1}
    assert field(client, seasons, **form, changed="crystals").status_code == 422
    resp = field(client, seasons, **form, changed="bonuses_used")
    assert resp.status_code == 200, message(resp)
    anna = stored_doc(app, seasons)["players"][0]
    assert (anna["crystals"], anna["bonuses_used"]) == (0, 1)
    resp = field(client, seasons, **form, ability_token="4", changed="ability_token")
    assert resp.status_code == 200 and stored_doc(app, seasons)["players"][0]["ability_token"] == 4
    # Without the name of the changed field (no script), every field is read, as before.
    resp = field(client, seasons, **form)
    assert resp.status_code == 422 and "Crystals" in message(resp)


def test_seasons_sheet_shows_the_sums_a_paper_check_needs(
    client: FlaskClient, seasons: str
) -> None:
    field(client, seasons, p=0, action="add_card", card=JEWEL_OF_THE_ANCIENTS)
    form = {"crystals": 10, "cards_in_hand": 2, "bonuses_used": 2, "jewel_energy": 3}
    html = field(client, seasons, p=0, action="counts", **form).get_data(as_text=True)
    assert "Cards in hand: 2 × -5 = -10 — −5 per card in hand" in unescape(html)
    assert "Bonus track: 2 bonuses used: -12" in html
    field(client, seasons, p=0, action="counts", bonuses_used=1)
    html = client.get(f"/t/{seasons}/results").get_data(as_text=True)
    assert "Bonus track: 1 bonus used: -5" in html
    # Read only (results, big screen, paper check): the Jewel's energy is said too.
    assert "energy on the Jewel 3" in html


def test_seasons_jewel_energy_is_asked_once_the_jewel_is_in_play(
    app: Flask, client: FlaskClient, seasons: str
) -> None:
    # The engine refuses energy on a Jewel not in play; a field filled top to bottom before
    # the card list would be refused and cleared, so it shows once the Jewel is played.
    jewel = 'name="jewel_energy"'
    page = client.get(f"/t/{seasons}?p=0").get_data(as_text=True)
    assert jewel not in page and "per card in hand" not in page  # none in hand: no line
    form = {"action": "counts", "crystals": 10, "jewel_energy": 3}
    assert field(client, seasons, p=0, **form).status_code == 200  # ignored, not refused
    assert stored_doc(app, seasons)["players"][0]["crystals"] == 10
    html = field(client, seasons, p=0, action="add_card", card=JEWEL_OF_THE_ANCIENTS)
    assert jewel in html.get_data(as_text=True)
    assert field(client, seasons, p=0, **form).status_code == 200
    assert stored_doc(app, seasons)["players"][0]["jewel_energy"] == 3
    # The Jewel taken back out of play takes its energy along, and the field goes.
    assert field(client, seasons, p=0, action="remove_card", index=0).status_code == 200
    assert stored_doc(app, seasons)["players"][0]["jewel_energy"] == 0
    assert jewel not in client.get(f"/t/{seasons}?p=0").get_data(as_text=True)


def test_seasons_cards_by_name(app: Flask, client: FlaskClient, seasons: str) -> None:
    found = client.get(f"/t/{seasons}/search?q=lantern&p=0", headers=HX)
    html = found.get_data(as_text=True)
    assert found.status_code == 200 and "Lantern of Xidit" in html and "<html" not in html
    # The page's live region says how many were found (out of band: it stays in place).
    assert '<p id="card-count" hx-swap-oob="innerHTML">2 cards found</p>' in html
    page = client.get(f"/t/{seasons}/search?q=lantern&p=0").get_data(as_text=True)
    assert page.startswith("<!doctype html>") and "Lantern of Xidit" in page
    assert page.count('id="card-count"') == 1 and 'role="status">2 cards found</p>' in page
    many = client.get(f"/t/{seasons}/search?q=of&p=0", headers=HX).get_data(as_text=True)
    assert many.count("<li>") == 12 and "12 or more cards found: type more letters" in many
    card_id = int(re.search(r'"card": "(\d+)"', html).group(1))  # type: ignore[union-attr]
    assert field(client, seasons, p=1, action="add_card", card=card_id).status_code == 200
    assert field(client, seasons, p=1, action="add_card", card=99999).status_code == 422
    assert stored_doc(app, seasons)["players"][1]["cards_in_play"] == [card_id]
    field(client, seasons, p=1, action="remove_card", index=0)
    assert stored_doc(app, seasons)["players"][1]["cards_in_play"] == []
    assert field(client, seasons, p=1, action="remove_card", index=0).status_code == 422
    assert tap(client, seasons, p=0, tool="x", q=0, r=0).status_code == 422
    assert client.get(f"/t/{seasons}/search?q=zzzzqq").status_code == 200
    # A Replica is a count (its own field), not a card to add.
    found = client.get(f"/t/{seasons}/search?q=replica&p=0", headers=HX).get_data(as_text=True)
    assert "Eolis" in found and '"card": "222"' not in found
    resp = field(client, seasons, p=1, action="add_card", card=222)
    assert resp.status_code == 422
    assert message(resp) == "Replicas are counted in the “Replicas” field below."
    # Without the Grimoire the reserve holds 7: it must come down before the card goes.
    field(client, seasons, p=1, action="add_card", card=BESPELLED_GRIMOIRE)
    assert field(client, seasons, p=1, action="counts", energy_in_reserve=11).status_code == 422
    field(client, seasons, p=1, action="counts", energy_in_reserve=10)
    resp = field(client, seasons, p=1, action="remove_card", index=0)
    assert resp.status_code == 422
    assert message(resp) == (
        "With these cards in play the reserve holds at most 7 energy: lower “Energy in "
        "reserve” first."
    )
    assert stored_doc(app, seasons)["players"][1]["cards_in_play"] == [BESPELLED_GRIMOIRE]
    # A Statue of Eolis takes one place from the reserve: 10 energy do not fit beside it.
    resp = field(client, seasons, p=1, action="add_card", card=107)
    assert resp.status_code == 422 and "at most 9 energy" in message(resp)
    assert stored_doc(app, seasons)["players"][1]["cards_in_play"] == [BESPELLED_GRIMOIRE]
    # A Russian name finds nothing, and the answer says to type the English one.
    client.get("/lang/ru")
    missed = client.get(f"/t/{seasons}/search?q=амулет&p=0", headers=HX).get_data(as_text=True)
    assert "Карты ищутся по английским названиям" in missed


def test_imported_seasons_table_without_optional_keys(app: Flask, client: FlaskClient) -> None:
    text = '{"game": "seasons", "players": [{"name": "Anna", "crystals": 10}]}'
    table_id = client.post("/import", data={"text": text}).headers["Location"].rsplit("/", 1)[1]
    assert client.get(f"/t/{table_id}").status_code == 200
    assert field(client, table_id, p=0, action="remove_card", index=0).status_code == 422
    card_id = next(iter(seasons_cards()))
    assert field(client, table_id, p=0, action="add_card", card=card_id).status_code == 200
    assert stored_doc(app, table_id)["players"][0]["cards_in_play"] == [card_id]


def test_a_table_stored_under_an_older_rule_can_be_mended_sheet_by_sheet(
    app: Flask, client: FlaskClient, seasons: str
) -> None:
    # Stored before the reserve had a limit with the Grimoire (30 was allowed) and before
    # the Statue of Eolis shrank it: both sheets are invalid now. Every change was refused
    # for the other sheet's problem, the one mending a sheet included.
    def older(stored: db.StoredTable) -> tuple[dict[str, object], dict[str, object]]:
        doc = json.loads(json.dumps(stored.doc))
        doc["players"][0].update(cards_in_play=[BESPELLED_GRIMOIRE], energy_in_reserve=15)
        doc["players"][1].update(cards_in_play=[107], energy_in_reserve=7)
        return doc, stored.meta

    with app.app_context():
        db.edit_table(seasons, older)
    page = client.get(f"/t/{seasons}?p=0").get_data(as_text=True)
    assert "holds at most 10 tokens" in unescape(page)
    # A change adding a problem is still refused, with that problem alone.
    resp = field(client, seasons, p=0, action="add_card", card=107)
    assert resp.status_code == 422 and "at most 9 energy" in message(resp)
    # A change on a sheet that brings no new problem is taken.
    assert (
        field(client, seasons, p=1, action="counts", changed="crystals", crystals=12).status_code
        == 200
    )
    assert (
        field(
            client, seasons, p=0, action="counts", changed="energy_in_reserve", energy_in_reserve=10
        ).status_code
        == 200
    )
    assert (
        field(
            client, seasons, p=1, action="counts", changed="energy_in_reserve", energy_in_reserve=6
        ).status_code
        == 200
    )
    assert [p["energy_in_reserve"] for p in stored_doc(app, seasons)["players"]] == [10, 6]
    assert stored_doc(app, seasons)["players"][1]["crystals"] == 12
    engine_result(stored_doc(app, seasons))  # valid again


def seasons_cards() -> list[int]:
    from scorepad.games import seasons as ss

    return sorted(ss.CARDS)


@pytest.mark.parametrize(
    "form",
    [
        SV_FORM,
        {"game": "harmonies", "side": "A"},
        {"game": "spring-meadow", "layout": "example", "orientation": "vertical"},
    ],
)
def test_every_palette_tool_has_a_drawn_icon(client: FlaskClient, form: dict[str, str]) -> None:
    """Each tool's picture is a symbol the page defines (Remove top and Cube once pointed at
    symbols that did not exist and showed an empty square)."""
    html = client.get(f"/t/{new_table(client, form, ['Anna', 'Boris'])}").get_data(as_text=True)
    palette = html[html.index('id="palette"') :]
    palette = palette[: palette.index("</form>")]
    used = re.findall(r'<use href="#([\w-]+)"', palette)
    assert used
    missing = [ref for ref in used if f'id="{ref}"' not in html]
    assert not missing, missing
