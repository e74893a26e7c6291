"""Photos in the app: a photographed sheet or board fills the editor, its doubtful cells are
outlined and listed first, one tap settles each, and the photo stays with the board.

The photos are the vision package's seeded synthetic ones (VALIDATION seeds, never the
frozen TEST range). What the editor must show is compared with what the recogniser itself
answers for the same bytes, and with the truth the generator drew.
"""

from __future__ import annotations

import io
import re
import threading
from functools import cache, partial
from html import unescape
from typing import Any

import numpy as np
import pytest
from flask import Flask
from flask.testing import FlaskClient

pytest.importorskip("cv2", reason="the vision extra is not installed")

from PIL import Image
from webhelpers import HX, SV_FORM, new_table, stored_doc, tap

from scorepad.games import sunflower_valley as sv
from scorepad.games.harmonies import LEGAL_STACKS, board_hexes
from scorepad.vision import meadow_synth, render3d, synth
from scorepad.vision import recognize as vision_recognize
from scorepad.vision.decode import PhotoError
from scorepad.vision.recognize import recognize
from scorepad.web import db, photos
from scorepad.web import doubts as doubts_module

#: Photos looked at to find a sheet read with doubts and one read without (the recogniser's
#: answers change when it is retrained; these tests are about what the app does with them).
CANDIDATES = range(24)


@cache
def sheet(index: int) -> synth.Sample:
    return synth.sample(synth.VALIDATION, 50_000 + index, 2.0)


@cache
def reading(index: int) -> dict[str, Any]:
    """What the recogniser answers for a sheet photo, given the sheet's layout."""
    return recognize(sheet(index).jpeg, layout=sheet_layout(index))


def flagged_count(index: int) -> int:
    return sum(c["flagged"] for c in reading(index)["confidence"])


@cache
def doubtful_sheet() -> int:
    """A sheet read with at least three cells in doubt (the one-tap test settles one by an
    edit, one by "right" and needs one more for "All checked" to be an undoable step), not
    a sheet doubted as a whole (every cell outlined: another message, another test)."""
    found = next(
        (i for i in CANDIDATES if flagged_count(i) >= 3 and not reading(i).get("sheet_doubted")),
        None,
    )
    if found is None:
        pytest.fail("no candidate photo has three doubtful cells: widen CANDIDATES")
    return found


@cache
def clear_sheet() -> int:
    """A sheet read without doubt."""
    found = next((i for i in CANDIDATES if flagged_count(i) == 0), None)
    if found is None:
        pytest.fail("every candidate photo has doubtful cells: widen CANDIDATES")
    return found


@cache
def cut_doubted() -> int:
    """A sheet read without doubt whose photo with its lower fifth left out is read with
    every cell doubted, with its layout and without (a cut that leaves no mountain on the
    grid is refused instead: another test)."""
    for i in CANDIDATES:
        if flagged_count(i):
            continue
        try:
            found = [recognize(cut_sheet(i), layout=lay) for lay in (sheet_layout(i), None)]
        except PhotoError:
            continue
        if all(f.get("sheet_doubted") for f in found):
            return i
    pytest.fail("no candidate's cut photo is read doubted: widen CANDIDATES")


def sheet_layout(index: int) -> dict[str, Any]:
    return {"name": f"photographed {index}", "cells": sheet(index).layout["cells"]}


def sv_table(app: Flask, client: FlaskClient, index: int, names: list[str]) -> str:
    with app.app_context():
        layout_id = db.create_layout("sunflower-valley", f"sheet {index}", sheet_layout(index))
    return new_table(client, {**SV_FORM, "layout": f"db:{layout_id}"}, names)


def send(
    client: FlaskClient,
    url: str,
    photo: bytes,
    name: str = "photo.jpg",
    lang: str = "",
    **form: str,
) -> Any:
    data: dict[str, Any] = {**form, "photo": (io.BytesIO(photo), name)}
    headers = {**HX, "Accept-Language": lang} if lang else HX
    return client.post(url, data=data, headers=headers, content_type="multipart/form-data")


def doubts(html: str) -> list[tuple[int, int]]:
    """The outlined cells on the board, in page order."""
    found = re.findall(r'class="[^"]*\bdoubt\b[^"]*" data-q="(-?\d+)" data-r="(-?\d+)"', html)
    found += re.findall(
        r'class="cell[^"]*\bdoubt\b[^"]*" data-tap data-q="(-?\d+)" data-r="(-?\d+)"', html
    )
    return [(int(q), int(r)) for q, r in found]


# --- Sunflower Valley ---------------------------------------------------------------------------


def test_a_sheet_photo_fills_the_editor_and_outlines_the_doubts(
    app: Flask, client: FlaskClient
) -> None:
    table_id = sv_table(app, client, doubtful_sheet(), ["Ann", "Bo"])
    editor = client.get(f"/t/{table_id}").get_data(as_text=True)
    assert 'name="photo"' in editor and 'capture="environment"' in editor

    resp = send(client, f"/t/{table_id}/photo", sheet(doubtful_sheet()).jpeg, p="1")
    html = resp.get_data(as_text=True)
    assert resp.status_code == 200, html[:500]

    want = reading(doubtful_sheet())
    flagged = {(c["q"], c["r"]) for c in want["confidence"] if c["flagged"]}
    assert flagged, "this photo was chosen for its doubtful cells"
    doc = stored_doc(app, table_id)
    assert doc["players"][1]["cells"] == want["player"]["cells"]
    assert doc["players"][1].get("residents") == want["player"].get("residents")
    assert all("item" not in c for c in doc["players"][0]["cells"])  # Ann's sheet untouched
    # Outlined on the board, listed above it least sure first, and counted in the message.
    assert set(doubts(html)) == flagged
    # Drawn after every other hex, so that no neighbour covers a doubted hex's outline.
    board = html[html.index('class="board sv"') :]
    cells = re.findall(r'<g class="cell[^"]*"', board)
    assert cells[-len(flagged) :] == [c for c in cells if "doubt" in c]
    listed = html.index('id="doubts"')
    assert listed < html.index('class="board sv"')
    # Each "Right" names its cell to a screen reader, not just "Right".
    assert re.search(r'<span id="doubt-1">[^<]+</span>', html)
    assert html.count('aria-describedby="doubt-1"') == 1
    assert f"Check the {len(flagged)} outlined cell" in html
    assert "to check against the paper" in html  # a sheet is paper
    assert "printed differently" not in html  # the table's layout is the sheet's own
    # In amber only when the tally read and the drawing read disagree (a misread flower).
    items = [c.get("item") for c in want["player"]["cells"]]
    drawn = 2 * items.count("house") + items.count("super-sunflower")
    agree = want["player"].get("residents", drawn) == drawn
    assert f'class="msg msg-{"info" if agree else "warning"}"' in html
    assert ("The drawing gives" in html) is not agree
    assert "hard to read" not in html and "sheet_doubted" not in want
    # The cells stored are the recogniser's answer, placed on the layout's own hexes (how
    # often that answer is right is the benchmark's and tests/vision's business: a sheet
    # may carry a player's super mark the model misses on every flower, as this one does).
    truth = sheet(doubtful_sheet()).truth_cells()
    assert {(c["q"], c["r"]) for c in doc["players"][1]["cells"]} == {(h.q, h.r) for h in truth}
    # The board is scored as read.
    results = client.get(f"/t/{table_id}/results").get_data(as_text=True)
    assert "Bo" in results and 'table class="scores"' in results
    # The cells to check are outlined where they can be checked, not on the results or the
    # big screen (no legend there, and a finished table kept them for good).
    for page in (results, client.get(f"/t/{table_id}/screen").get_data(as_text=True)):
        assert not re.search(r'class="cell[^"]* doubt', page)
    assert "The photo this board was read from" in results  # the evidence stays
    # Finishing the table (its outlines then go) says first how many are not checked.
    unchecked = f"{len(flagged)} cells read from photos are not checked yet. Finish the table?"
    assert unchecked in results
    assert unchecked in client.get(f"/t/{table_id}/seats").get_data(as_text=True)
    clear = sv_table(app, client, clear_sheet(), ["Ann"])
    assert "not checked yet" not in client.get(f"/t/{clear}/results").get_data(as_text=True)


def test_the_residents_tally_on_the_sheet_fills_the_residents_box(
    app: Flask, client: FlaskClient
) -> None:
    index = clear_sheet()
    ticked = sheet(index).tally
    assert reading(index)["player"]["residents"] == ticked
    table_id = sv_table(app, client, index, ["Ann", "Bo"])
    typed = client.post(f"/t/{table_id}/field", data={"p": "0", "residents": "3"}, headers=HX)
    assert typed.status_code == 200
    html = send(client, f"/t/{table_id}/photo", sheet(index).jpeg, p="0").get_data(as_text=True)
    # The tally the photo shows replaces the one typed in, and the message says so.
    assert stored_doc(app, table_id)["players"][0]["residents"] == ticked
    assert f"The residents tally reads {ticked} tick" in html
    assert "It replaces the 3 typed in (Undo brings it back)" in html
    assert re.search(rf'name="residents"[^>]*value="{ticked}"', html)
    undone = client.post(f"/t/{table_id}/undo", data={"p": "0"}, headers=HX)
    assert undone.status_code == 200
    assert stored_doc(app, table_id)["players"][0]["residents"] == 3


def sheet_doc(cells: list[dict[str, Any]], residents: int | None = None) -> dict[str, Any]:
    player: dict[str, Any] = {"name": "Ann", "cells": cells}
    if residents is not None:
        player["residents"] = residents
    return {"game": "sunflower-valley", "players": [player]}


@pytest.mark.parametrize(
    ("read", "typed", "doubted", "said", "warns"),
    [
        (None, None, False, "could not be read from the photo", False),
        (None, 7, True, "", False),  # every cell in doubt: the tally is not looked at
        (9, None, False, "The residents tally reads 9 ticks.", False),
        (9, 9, False, "The residents tally reads 9 ticks.", False),
        (9, 4, False, "It replaces the 4 typed in", False),
        (10, None, False, "The drawing gives 9 residents: count the ticks", True),
        (1, None, False, "The residents tally reads 1 tick. The drawing gives 9", True),
    ],
)
def test_the_photo_message_says_what_became_of_the_tally(
    app: Flask, read: int | None, typed: int | None, doubted: bool, said: str, warns: bool
) -> None:
    from scorepad.web.boards import sunflower_valley as kit

    truth = sheet(clear_sheet()).truth_cells().values()
    blank = [{k: v for k, v in c.items() if k not in ("item", "sides")} for c in truth]
    land = [c for c in blank if not c.get("mountain")]
    drawn = ["house"] * 4 + ["super-sunflower"]  # 2 x 4 + 1 = 9 residents
    cells = [c for c in blank if c.get("mountain")] + land[len(drawn) :]
    cells += [{**c, "item": item} for c, item in zip(land, drawn, strict=False)]
    found: dict[str, Any] = {"player": {"cells": cells}}
    if read is not None:
        found["player"]["residents"] = read
    if doubted:
        found["sheet_doubted"] = True
    after = sheet_doc(cells, read if read is not None else typed)
    with app.test_request_context():
        text, warning = kit.photo_note(sheet_doc(cells, typed), sv.parse(after), 0, found)
    assert (said in text) if said else text == ""
    assert warning is warns
    assert ("replaces" in text) == (typed is not None and read is not None and typed != read)


def test_a_sheet_printed_otherwise_than_the_tables_layout_is_pointed_out(
    app: Flask, client: FlaskClient
) -> None:
    # The table was started with the example layout; the players' sheets are another one.
    example = sv.example_layout()["cells"]
    photo = next(sheet(i) for i in CANDIDATES if sheet(i).layout["cells"] != example)
    table_id = new_table(client, SV_FORM, ["Ann"])
    html = send(client, f"/t/{table_id}/photo", photo.jpeg, p="0").get_data(as_text=True)
    found = re.search(r"printed differently from this table&#39;s layout at (\d+) hexes", html)
    assert found, html[:2000]
    answer = recognize(photo.jpeg, layout=sv.example_layout())
    assert int(found.group(1)) == answer["layout_differences"] >= 4
    assert "is it the right layout?" in html
    assert 'class="msg msg-warning"' in html  # not the green of a photo read as expected


def test_a_sheet_read_badly_says_why_every_cell_is_outlined(
    app: Flask, client: FlaskClient
) -> None:
    # The sheet's lower quarter left out of the photo: not the layout's hex grid.
    part = cut_sheet(cut_doubted())
    answer = recognize(part, layout=sheet_layout(cut_doubted()))
    assert answer.get("sheet_doubted") and all(c["flagged"] for c in answer["confidence"])
    assert "residents" not in answer["player"]  # nor is its tally taken
    table_id = sv_table(app, client, cut_doubted(), ["Ann"])
    html = send(client, f"/t/{table_id}/photo", part, p="0").get_data(as_text=True)
    assert "hard to read, so every cell is outlined" in html
    assert 'class="msg msg-warning"' in html
    # Every cell but the mountains, which the table's layout fixes (no tap changes one).
    mountains = {(c["q"], c["r"]) for c in answer["player"]["cells"] if c.get("mountain")}
    assert len(mountains) == 5
    assert set(doubts(html)) == {(c["q"], c["r"]) for c in answer["confidence"]} - mountains


def test_a_photo_with_no_sheet_leaves_the_board_as_it_was(app: Flask, client: FlaskClient) -> None:
    # A quarter of the sheet left out: the grid made of the rest holds no mountain and is
    # not outlined all round. It used to replace the player's board, every cell doubted.
    part = cut_sheet(clear_sheet(), kept=0.75)
    table_id = sv_table(app, client, clear_sheet(), ["Ann"])
    send(client, f"/t/{table_id}/photo", sheet(clear_sheet()).jpeg, p="0")
    before = stored_doc(app, table_id)
    resp = send(client, f"/t/{table_id}/photo", part, p="0")
    html = resp.get_data(as_text=True)
    assert resp.status_code == 422 and 'id="editor"' in html
    assert "no sheet found in the photo: photograph the whole sheet" in html
    assert stored_doc(app, table_id) == before


def test_another_games_board_is_named_not_read_as_a_sheet(app: Flask, client: FlaskClient) -> None:
    # A Harmonies board photographed in the Sunflower Valley editor.
    shot = render3d.sample(render3d.VALIDATION, 3, megapixels=1.0)
    table_id = sv_table(app, client, clear_sheet(), ["Ann"])
    before = stored_doc(app, table_id)
    resp = send(client, f"/t/{table_id}/photo", shot.jpeg, p="0")
    html = resp.get_data(as_text=True)
    assert resp.status_code == 422 and 'id="editor"' in html
    assert "shows a Harmonies board, not a Sunflower Valley sheet" in html
    assert stored_doc(app, table_id) == before


def test_one_tap_settles_a_doubtful_hex(app: Flask, client: FlaskClient) -> None:
    table_id = sv_table(app, client, doubtful_sheet(), ["Ann"])
    send(client, f"/t/{table_id}/photo", sheet(doubtful_sheet()).jpeg, p="0")
    with app.app_context():
        check = db.get_table(table_id).meta["photos"]["0"]["check"]
    assert len(check) >= 2
    (q, r), (q2, r2) = check[0], check[1]
    cell = next(
        c for c in stored_doc(app, table_id)["players"][0]["cells"] if (c["q"], c["r"]) == (q, r)
    )
    tool = "eraser" if cell.get("mountain") is None and cell.get("item") else "house"
    html = tap(client, table_id, p=0, q=q, r=r, tool=tool).get_data(as_text=True)
    assert (q, r) not in doubts(html) and (q2, r2) in doubts(html)
    # "Right": the recogniser was right about this one.
    html = client.post(
        f"/t/{table_id}/photo/checked", data={"p": "0", "a": str(q2), "b": str(r2)}, headers=HX
    ).get_data(as_text=True)
    assert (q2, r2) not in doubts(html)
    assert len(doubts(html)) == len(check) - 2
    left = len(check) - 2
    assert f"{left} cell{'s' if left != 1 else ''} left to check." in html  # said, not only seen
    # A cell that is none is refused, not taken for "All checked".
    for a, b in (("abc", "3"), (" ", ""), ("", "abc")):
        bad = client.post(f"/t/{table_id}/photo/checked", data={"p": "0", "a": a, "b": b})
        assert bad.status_code == 422 and "not on the board" in bad.get_data(as_text=True)
        assert len(doubts(bad.get_data(as_text=True))) == len(check) - 2
    # Marked one by one down to the last: "1 cell left", then none.
    for q3, r3 in doubts(html)[:-1]:
        html = client.post(
            f"/t/{table_id}/photo/checked", data={"p": "0", "a": str(q3), "b": str(r3)}, headers=HX
        ).get_data(as_text=True)
    assert len(doubts(html)) == 1 and "1 cell left to check." in html
    assert '(to check)"' in html  # its name says so too, not only its dashed outline
    # "All checked" clears the rest; undo brings the outlines back with the step.
    html = client.post(f"/t/{table_id}/photo/checked", data={"p": "0"}, headers=HX).get_data(
        as_text=True
    )
    assert doubts(html) == [] and 'id="doubts"' not in html
    assert "Every cell is checked." in html
    html = client.post(f"/t/{table_id}/undo", data={"p": "0"}, headers=HX).get_data(as_text=True)
    assert len(doubts(html)) == 1


def test_the_photo_is_kept_with_the_board(app: Flask, client: FlaskClient) -> None:
    table_id = sv_table(app, client, clear_sheet(), ["Ann"])
    html = send(client, f"/t/{table_id}/photo", sheet(clear_sheet()).jpeg, p="0").get_data(
        as_text=True
    )
    assert "Nothing looked doubtful" in html and doubts(html) == []
    found = re.search(r'<img src="(/t/[\w-]+/photos/[\w-]+)"', html)
    assert found, "the photo is shown beside the board"
    photo = client.get(found.group(1))
    assert photo.status_code == 200 and photo.mimetype == "image/jpeg"
    with Image.open(io.BytesIO(photo.data)) as kept:
        assert max(kept.size) <= 1600
    assert client.get(f"/t/{table_id}/photos/nope").status_code == 404
    results = client.get(f"/t/{table_id}/results").get_data(as_text=True)
    assert found.group(1) in results  # the results link each board to its photo
    # Undo puts the blank sheet back; the photo stays as evidence.
    client.post(f"/t/{table_id}/undo", data={"p": "0"}, headers=HX)
    assert all("item" not in c for c in stored_doc(app, table_id)["players"][0]["cells"])
    assert client.get(found.group(1)).status_code == 200
    # Deleting the table deletes its photos.
    client.post(f"/t/{table_id}/delete")
    assert client.get(found.group(1)).status_code == 404


def test_only_the_last_photos_are_kept(app: Flask, client: FlaskClient) -> None:
    table_id = sv_table(app, client, clear_sheet(), ["Ann"])
    with app.app_context():
        ids = [db.add_photo(table_id, 0, "image/jpeg", b"x") for _ in range(5)]
        kept = [i for i in ids if _exists(table_id, i)]
    assert len(kept) == db.PHOTOS_PER_PLAYER and ids[-1] in kept


def test_a_photo_the_undo_history_shows_is_kept(app: Flask, client: FlaskClient) -> None:
    # Undo back to a reading brings its photo back: it used to be pruned with the oldest,
    # and the board showed a broken image.
    table_id = sv_table(app, client, clear_sheet(), ["Ann"])
    html = send(client, f"/t/{table_id}/photo", sheet(clear_sheet()).jpeg, p="0").get_data(
        as_text=True
    )
    found = re.search(r'<img src="/t/[\w-]+/photos/([\w-]+)"', html)
    assert found
    read_from = found.group(1)
    with app.app_context():
        later = [db.add_photo(table_id, 0, "image/jpeg", b"x") for _ in range(4)]
        assert _exists(table_id, read_from)  # the board the history holds was read from it
        assert not _exists(table_id, later[0])  # shown nowhere, and not among the newest
        assert all(_exists(table_id, i) for i in later[1:])
        # A history entry naming a photo since pruned shows none (no broken image).
        meta = {"photos": {"0": {"id": later[0], "check": []}}}
        assert doubts_module.evidence_ids(table_id, meta, [0]) == [None]
        meta = {"photos": {"0": {"id": read_from, "check": []}}}
        assert doubts_module.evidence_ids(table_id, meta, [0]) == [read_from]


def test_a_finished_table_keeps_the_photos_its_remaining_steps_show(
    app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(db.tables, "FINISHED_HISTORY", 0)  # only the step on screen stays
    table_id = sv_table(app, client, clear_sheet(), ["Ann"])
    read = []
    for _ in range(2):  # the board read twice: each reading a step of the history
        html = send(client, f"/t/{table_id}/photo", sheet(clear_sheet()).jpeg, p="0")
        found = re.search(r'<img src="/t/[\w-]+/photos/([\w-]+)"', html.get_data(as_text=True))
        assert found
        read.append(found.group(1))
    with app.app_context():
        newest = [
            db.add_photo(table_id, 0, "image/jpeg", b"x") for _ in range(db.PHOTOS_PER_PLAYER)
        ]
        assert all(_exists(table_id, i) for i in read)  # both still shown by a step
    client.post(f"/t/{table_id}/finish")
    with app.app_context():
        assert not _exists(table_id, read[0])  # its step is gone
        assert _exists(table_id, read[1]) and all(_exists(table_id, i) for i in newest)


def _exists(table_id: str, photo_id: str) -> bool:
    try:
        db.get_photo(table_id, photo_id)
    except db.NotFound:
        return False
    return True


@pytest.mark.parametrize(
    ("payload", "name", "message"),
    [
        (b"", "empty.jpg", "The photo file is empty"),
        (b"", "", "Choose a photo first"),  # the form sent without a file
        (b"not an image at all", "notes.txt", "The photo could not be read"),
        (b"\xff\xd8\xff\xe0" + b"\x00" * 64, "broken.jpg", "The photo could not be read"),
    ],
)
def test_bad_photos_are_refused_readably(
    app: Flask, client: FlaskClient, payload: bytes, name: str, message: str
) -> None:
    table_id = sv_table(app, client, clear_sheet(), ["Ann"])
    before = stored_doc(app, table_id)
    resp = send(client, f"/t/{table_id}/photo", payload, name=name, p="0")
    html = resp.get_data(as_text=True)
    assert resp.status_code == 422 and message in html and 'id="editor"' in html
    assert stored_doc(app, table_id) == before


def test_a_photo_without_a_sheet_is_refused(app: Flask, client: FlaskClient) -> None:
    table_id = sv_table(app, client, clear_sheet(), ["Ann"])
    blank = io.BytesIO()
    Image.new("RGB", (800, 600), (90, 60, 40)).save(blank, "JPEG")
    resp = send(client, f"/t/{table_id}/photo", blank.getvalue(), p="0")
    assert resp.status_code == 422 and "no sheet found" in resp.get_data(as_text=True)
    # The recogniser's reason is translated whole, inside the translated wrapper.
    resp = send(client, f"/t/{table_id}/photo", blank.getvalue(), lang="ru", p="0")
    html = unescape(resp.get_data(as_text=True))
    assert resp.status_code == 422
    assert "Не удалось прочитать фото: на фото не найден лист: снимите весь лист" in html
    resp = send(client, f"/t/{table_id}/photo", b"not an image at all", "notes.txt", "uk", p="0")
    html = unescape(resp.get_data(as_text=True))
    assert "Не вдалося прочитати фото: файл — не фото JPEG, PNG чи WebP" in html


def test_too_large_photos_get_a_readable_413(db_url: str) -> None:
    from scorepad.web import create_app

    config = {"TESTING": True, "DATABASE_URL": db_url, "SECRET_KEY": "test-secret"}
    app = create_app({**config, "WTF_CSRF_ENABLED": False, "PHOTO_MAX_BYTES": 3 * 1024 * 1024})
    client = app.test_client()
    table_id = new_table(client, SV_FORM, ["Ann"])
    resp = send(client, f"/t/{table_id}/photo", b"\xff" * (4 * 1024 * 1024), p="0")
    assert resp.status_code == 413 and "photo is too large: up to 3 MB" in resp.get_data(
        as_text=True
    )
    # Said beside the photo button, not in the banner a screen's scroll away.
    assert resp.headers["HX-Retarget"] == "#photo-message"
    assert 'id="photo-message"' in client.get(f"/t/{table_id}").get_data(as_text=True)
    # A photo-sized upload elsewhere still meets the board-file limit.
    big = {"file": (io.BytesIO(b" " * 2_100_000), "big.json")}
    assert client.post("/import", data=big, content_type="multipart/form-data").status_code == 413
    app.extensions["scorepad.db"].dispose()


def test_a_stale_page_does_not_overwrite_a_newer_sheet(app: Flask, client: FlaskClient) -> None:
    table_id = sv_table(app, client, clear_sheet(), ["Ann"])
    editor = client.get(f"/t/{table_id}").get_data(as_text=True)
    seen = re.search(r'data-sheet="(\w+)"', editor)
    assert seen
    hx = next(c for c in sheet_layout(clear_sheet())["cells"] if not c.get("mountain"))
    assert tap(client, table_id, p=0, q=hx["q"], r=hx["r"], tool="house").status_code == 200
    before = stored_doc(app, table_id)
    resp = send(client, f"/t/{table_id}/photo", sheet(clear_sheet()).jpeg, p="0", v=seen.group(1))
    assert resp.status_code == 409 and stored_doc(app, table_id) == before
    assert "The board changed while the photo was being read" in resp.get_data(as_text=True)


def test_a_finished_table_takes_no_photo(app: Flask, client: FlaskClient) -> None:
    table_id = sv_table(app, client, clear_sheet(), ["Ann"])
    with app.app_context():
        db.finish_table(table_id)
    html = client.get(f"/t/{table_id}").get_data(as_text=True)
    assert 'name="photo"' not in html
    resp = send(client, f"/t/{table_id}/photo", sheet(clear_sheet()).jpeg, p="0")
    assert resp.status_code == 403


def test_a_table_finished_while_the_photo_is_read_keeps_its_boards(
    app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Reading takes about a second; the host may finish the table meanwhile.
    table_id = sv_table(app, client, clear_sheet(), ["Ann"])
    before = stored_doc(app, table_id)
    read = photos.recognise

    def read_then_finish(*args: Any, **kwargs: Any) -> dict[str, Any]:
        found = read(*args, **kwargs)
        db.finish_table(table_id)
        return found

    monkeypatch.setattr(photos, "recognise", read_then_finish)
    resp = send(client, f"/t/{table_id}/photo", sheet(clear_sheet()).jpeg, p="0")
    assert resp.status_code == 403 and stored_doc(app, table_id) == before
    with app.app_context():
        assert db.photo_ids(table_id) == frozenset()  # the photo is not kept either


def test_without_the_vision_package_the_button_is_gone(
    app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    from scorepad.web import boards

    table_id = new_table(client, SV_FORM, ["Ann"])
    monkeypatch.setattr(boards, "vision_installed", lambda: False)
    assert 'name="photo"' not in client.get(f"/t/{table_id}").get_data(as_text=True)
    monkeypatch.setitem(sys.modules, "scorepad.vision.decode", None)  # import fails
    resp = send(client, f"/t/{table_id}/photo", b"x", p="0")
    assert resp.status_code == 501 and "cannot read photos" in resp.get_data(as_text=True)


def test_seasons_has_no_photo(app: Flask, client: FlaskClient) -> None:
    table_id = new_table(client, {"game": "seasons"}, ["Ann", "Bo"])
    assert 'name="photo"' not in client.get(f"/t/{table_id}").get_data(as_text=True)
    resp = send(client, f"/t/{table_id}/photo", sheet(clear_sheet()).jpeg, p="0")
    assert resp.status_code == 422 and "cannot be read for this game" in resp.get_data(as_text=True)


def test_a_layout_is_read_from_a_photo(app: Flask, client: FlaskClient) -> None:
    resp = client.post("/layouts", data={"game": "sunflower-valley", "name": "Sheet P"})
    layout_id = resp.headers["Location"].rsplit("/", 1)[1]
    page = client.get(f"/layouts/{layout_id}").get_data(as_text=True)
    assert 'name="photo"' in page
    html = send(client, f"/layouts/{layout_id}/photo", sheet(clear_sheet()).jpeg).get_data(
        as_text=True
    )
    assert "Photo read" in html
    with app.app_context():
        stored = db.get_layout(layout_id)
    truth = sheet(clear_sheet()).layout["cells"]
    assert stored.name == "Sheet P"
    assert len(stored.data["cells"]) == len(truth)
    mountains = sorted((c["q"], c["r"]) for c in stored.data["cells"] if c.get("mountain"))
    # Without a layout the recogniser names the sheet's own axes: compare shapes, not places.
    assert len(mountains) == sum(1 for c in truth if c.get("mountain"))
    assert "This layout is complete" in html


def cut_sheet(index: int, kept: float = 0.8) -> bytes:
    """The sheet photo with its lower part left out (``kept``: the share left in): its hex
    grid is not a sheet's, and the recogniser doubts the whole sheet (or, with a quarter
    left out, finds no mountain on the grid it makes of the rest, and refuses it)."""
    shot = sheet(index)
    whole = Image.open(io.BytesIO(shot.jpeg))
    cut_at = shot.corners[:, 1].min() + kept * np.ptp(shot.corners[:, 1])
    part = io.BytesIO()
    whole.crop((0, 0, whole.width, int(cut_at))).save(part, "JPEG", quality=90)
    return part.getvalue()


def test_a_sheet_read_badly_fills_a_blank_layout_but_never_replaces_one(
    app: Flask, client: FlaskClient
) -> None:
    resp = client.post("/layouts", data={"game": "sunflower-valley", "name": "Sheet Q"})
    layout_id = resp.headers["Location"].rsplit("/", 1)[1]
    photo = cut_sheet(cut_doubted())
    html = send(client, f"/layouts/{layout_id}/photo", photo).get_data(as_text=True)
    assert "hard to read, so every cell is outlined" in html
    assert 'class="msg msg-warning"' in html
    with app.app_context():
        filled = db.get_layout(layout_id).data
    assert filled["cells"] and len(doubts(html)) == len(filled["cells"])
    # Painted (or read) since: a doubted photo must not replace it.
    tap_form = {"tool": "mountain", "q": "0", "r": "0"}
    assert client.post(f"/layouts/{layout_id}/tap", data=tap_form, headers=HX).status_code == 200
    with app.app_context():
        painted = db.get_layout(layout_id).data
    resp = send(client, f"/layouts/{layout_id}/photo", photo)
    html = resp.get_data(as_text=True)
    assert resp.status_code == 422 and 'id="editor"' in html
    assert "the layout was kept as it was" in html and not doubts(html)
    with app.app_context():
        assert db.get_layout(layout_id).data == painted
    # A photo read well still replaces it.
    send(client, f"/layouts/{layout_id}/photo", sheet(clear_sheet()).jpeg)
    with app.app_context():
        assert db.get_layout(layout_id).data != painted


def test_the_evidence_photo_is_cropped_to_the_board() -> None:
    # The photo kept beside the board was the whole scene (a table, a pen, a cup) with the
    # sheet a small part of it; it is now the sheet, with a little of the table around it.
    image = Image.new("RGB", (1000, 800), "white")
    data = io.BytesIO()
    image.save(data, "JPEG")

    def kept(result: dict[str, Any], paper: bool = True) -> tuple[int, int]:
        crop = photos.evidence_crop(result, paper)
        return Image.open(io.BytesIO(photos.evidence(data.getvalue(), crop))).size

    box = {"outline": [[0.25, 0.25], [0.75, 0.25], [0.75, 0.75], [0.25, 0.75]]}
    assert kept(box) == (560, 448)  # the sheet's 500 x 400 and 6 % of it on each side
    assert kept(box, paper=False) == (650, 520)  # a board's far stacks stand out: 15 %
    # Near the photo's edge the margin stops there; an outline that is no box keeps it all,
    # and so does one the recogniser doubted (the photo is all the evidence there is).
    assert kept({"outline": [[0.0, 0.0], [0.5, 0.0], [0.5, 1.0], [0.0, 1.0]]}) == (530, 800)
    assert kept({"outline": [[0.5, 0.5]] * 4}) == (1000, 800)
    assert kept({}) == (1000, 800)
    assert kept({**box, "sheet_doubted": True}) == (1000, 800)
    assert kept({**box, "board_doubted": True}, paper=False) == (1000, 800)


# --- Harmonies and Spring Meadow ----------------------------------------------------------------


def test_a_harmonies_board_photo_and_the_other_height_button(
    app: Flask, client: FlaskClient
) -> None:
    shots = (render3d.sample(render3d.VALIDATION, i, megapixels=1.0) for i in range(3, 12))
    # The app reads a board as its table's side, holding a whole number of turns' tokens.
    read = partial(recognize, game="harmonies", whole=True)
    readings = ((s, read(s.jpeg, side=s.state.side)) for s in shots)
    found = next(((s, r) for s, r in readings if any(c["flagged"] for c in r["confidence"])), None)
    if found is None:
        pytest.fail("no candidate Harmonies photo has a doubtful hex: widen the range")
    shot, want = found
    table_id = new_table(client, {"game": "harmonies", "side": shot.state.side}, ["Ann"])
    resp = send(client, f"/t/{table_id}/photo", shot.jpeg, p="0")
    html = resp.get_data(as_text=True)
    assert resp.status_code == 200, html[:300]
    doc = stored_doc(app, table_id)
    assert doc["players"][0]["cells"] == want["player"]["cells"]
    flagged = [(c["q"], c["r"]) for c in want["confidence"] if c["flagged"]]
    assert set(doubts(html)) == set(flagged) and 'class="board hm"' in html
    assert html.count("Other height") == len(flagged)
    assert "check against the board on the table" in html and "the paper" not in html
    # "Other height" cycles through the legal stacks with the same top and keeps the doubt.
    at = next((h for h in flagged if cell_at(doc, h)["stack"]), None)
    if at is None:  # every doubt is an empty hex: cycle a token-bearing hex instead
        at = next((c["q"], c["r"]) for c in doc["players"][0]["cells"] if c["stack"])
    before = cell_at(doc, at)["stack"]
    seen = [before]
    for _ in range(4):
        html = tap(client, table_id, p=0, q=at[0], r=at[1], tool="cycle", keep="1").get_data(
            as_text=True
        )
        seen.append(cell_at(stored_doc(app, table_id), at)["stack"])
    assert {tuple(stack) for stack in seen} == {s for s in LEGAL_STACKS if s[-1] == before[-1]}
    assert (at in flagged) == (at in doubts(html))


def test_a_photo_of_the_other_side_points_an_empty_table_at_its_side_switch(
    app: Flask, client: FlaskClient
) -> None:
    shot = render3d.sample(render3d.VALIDATION, 3, megapixels=1.0)
    shown = shot.state.side
    played = "A" if shown == "B" else "B"
    table_id = new_table(client, {"game": "harmonies", "side": played}, ["Ann", "Bo"])
    resp = send(client, f"/t/{table_id}/photo", shot.jpeg, p="0")
    html = unescape(resp.get_data(as_text=True))
    assert resp.status_code == 422
    assert f"side {shown}, but this table plays side {played}. Every board is still empty" in html
    assert "“Personal board side”" in html and 'id="board-side"' in html
    assert "start a table for side" not in html
    # A seated phone cannot switch every board's side: it is pointed at the host.
    guest = app.test_client()
    guest.environ_base["REMOTE_ADDR"] = "10.0.0.9"
    assert guest.post(f"/t/{table_id}/join", data={"seat": "1"}).status_code in (200, 303)
    said = unescape(send(guest, f"/t/{table_id}/photo", shot.jpeg, p="1").get_data(as_text=True))
    assert f"the host can switch the table to side {shown}" in said
    assert "“Personal board side”" not in said
    # With a token on a board the side is fixed: the only way left is a new table.
    assert tap(client, table_id, p=1, tool="blue", q=0, r=0).status_code == 200
    html = unescape(send(client, f"/t/{table_id}/photo", shot.jpeg, p="0").get_data(as_text=True))
    assert f"start a table for side {shown}" in html and "Every board is still empty" not in html
    assert stored_doc(app, table_id)["options"]["side"] == played


def test_a_board_found_by_its_tokens_alone_says_why_every_hex_is_outlined(
    client: FlaskClient,
) -> None:
    # VALIDATION photo 101 924: found only by the tokens on its hexes (board_doubted).
    shot = render3d.sample(render3d.VALIDATION, 1924, megapixels=3.0)
    table_id = new_table(client, {"game": "harmonies", "side": shot.state.side}, ["Ann"])
    html = send(client, f"/t/{table_id}/photo", shot.jpeg, p="0").get_data(as_text=True)
    assert "The board was hard to find in the photo, so every hex is outlined" in html
    assert len(set(doubts(html))) == len(board_hexes(shot.state.side))


ANGLE_ADVICE = "a photo at an angle, as you see the board from your seat"


@pytest.mark.parametrize(("index", "advised"), [(2, True), (7, False)])
def test_a_photo_from_straight_above_suggests_one_at_an_angle(
    client: FlaskClient, index: int, advised: bool
) -> None:
    # VALIDATION photo 2 was taken 2 degrees from straight down, photo 7 at 36 degrees.
    shot = render3d.sample(render3d.VALIDATION, index, megapixels=1.0)
    want = recognize(shot.jpeg, game="harmonies", side=shot.state.side, whole=True)
    assert bool(want.get("straight_down")) == advised
    assert any(c["flagged"] for c in want["confidence"]) or not advised
    table_id = new_table(client, {"game": "harmonies", "side": shot.state.side}, ["Ann"])
    html = send(client, f"/t/{table_id}/photo", shot.jpeg, p="0").get_data(as_text=True)
    assert "Photo read." in html
    assert (ANGLE_ADVICE in html) == advised


def test_a_photo_from_straight_above_is_advised_against_in_russian(client: FlaskClient) -> None:
    shot = render3d.sample(render3d.VALIDATION, 2, megapixels=1.0)
    table_id = new_table(client, {"game": "harmonies", "side": shot.state.side}, ["Ann"])
    html = send(client, f"/t/{table_id}/photo", shot.jpeg, p="0", lang="ru").get_data(as_text=True)
    assert "на фото под углом" in html and ANGLE_ADVICE not in html


@pytest.mark.parametrize(
    ("form", "tip"),
    [
        ({"game": "harmonies", "side": "A"}, "Photograph the whole board at an angle"),
        ({"game": "spring-meadow"}, "Photograph the whole board, on a table darker"),
        (SV_FORM, "Photograph the whole sheet, flat, on a table darker"),
    ],
)
def test_the_photo_button_says_how_to_take_the_photo(
    client: FlaskClient, form: dict[str, str], tip: str
) -> None:
    table_id = new_table(client, form, ["Ann"])
    html = client.get(f"/t/{table_id}?p=0").get_data(as_text=True)
    assert tip in html
    assert 'aria-describedby="photo-tip"' in html and 'id="photo-tip"' in html


def cell_at(doc: dict[str, Any], at: tuple[int, int]) -> dict[str, Any]:
    return next(c for c in doc["players"][0]["cells"] if (c["q"], c["r"]) == at)


def meadow_table(app: Flask, client: FlaskClient, shot: Any) -> tuple[str, dict[str, Any]]:
    """A solo table on the board side the photo shows (its burrow layout stored), and that
    layout."""
    printed = [
        "".join("o" if (r, c) in shot.state.burrows else "." for c in range(10)) for r in range(15)
    ]
    layout = {"name": "photographed side", "orientation": "vertical", "rows": printed}
    with app.app_context():
        layout_id = db.create_layout("spring-meadow", layout["name"], layout)
    form = {"game": "spring-meadow", "layout": f"db:{layout_id}", "orientation": shot.orientation}
    return new_table(client, form, ["Ann"]), layout


def test_a_spring_meadow_board_photo(app: Flask, client: FlaskClient) -> None:
    shot = meadow_synth.sample(meadow_synth.VALIDATION, 2, megapixels=2.0)
    table_id, layout = meadow_table(app, client, shot)
    resp = send(client, f"/t/{table_id}/photo", shot.jpeg, p="0")
    html = resp.get_data(as_text=True)
    assert resp.status_code == 200, html[:300]
    want = recognize(shot.jpeg, game="spring-meadow", layout=layout)
    board = stored_doc(app, table_id)["players"][0]
    assert board["rows"] == want["player"]["rows"]
    assert board["orientation"] == want["player"]["orientation"]
    flagged = {(c["row"], c["col"]) for c in want["confidence"] if c["flagged"]}
    shown = set(
        (int(a), int(b))
        for a, b in re.findall(
            r'class="sq-cell[^"]*\bdoubt\b[^"]*" data-tap data-row="(\d+)" data-col="(\d+)"', html
        )
    )
    assert shown == flagged
    assert "otherwise than this table" not in html  # the table's layout is this side
    # A board lies on the table: nothing about paper.
    assert not flagged and "compare it with the board on the table" in html
    assert "paper" not in html


def test_spring_meadow_squares_in_doubt_are_drawn_over_their_neighbours(
    app: Flask, client: FlaskClient
) -> None:
    shot = meadow_synth.sample(meadow_synth.VALIDATION, 5, megapixels=0.4)  # read with doubts
    table_id, _layout = meadow_table(app, client, shot)
    html = send(client, f"/t/{table_id}/photo", shot.jpeg, p="0").get_data(as_text=True)
    kinds = re.findall(r'<g class="sq-cell[^"]*?( doubt)?"', html)
    assert len(kinds) == 150 and 0 < kinds.count(" doubt") < 150
    first = kinds.index(" doubt")
    assert all(kinds[first:]), "a square drawn after one in doubt covers its outline"
    assert html.count('tabindex="0"') >= 1 and "A wrong square: pick its state" in html


def test_a_board_side_other_than_the_tables_layout_is_pointed_out(
    app: Flask, client: FlaskClient
) -> None:
    shot = meadow_synth.sample(meadow_synth.VALIDATION, 2, megapixels=2.0)
    other = meadow_synth.random_state(meadow_synth.VALIDATION[0] + 3).burrows
    assert other != shot.state.burrows
    printed = ["".join("o" if (r, c) in other else "." for c in range(10)) for r in range(15)]
    layout = {"name": "another side", "orientation": "vertical", "rows": printed}
    with app.app_context():
        layout_id = db.create_layout("spring-meadow", layout["name"], layout)
    form = {"game": "spring-meadow", "layout": f"db:{layout_id}", "orientation": shot.orientation}
    table_id = new_table(client, form, ["Ann"])
    html = send(client, f"/t/{table_id}/photo", shot.jpeg, p="0").get_data(as_text=True)
    found = re.search(r"burrows otherwise than this table&#39;s layout at (\d+) squares", html)
    assert found, html[:2000]
    want = recognize(shot.jpeg, game="spring-meadow", layout=layout)["layout_differences"]
    assert int(found.group(1)) == want >= 4
    assert "is it the right board side?" in html


def test_a_burrow_layout_is_read_from_a_photo_of_an_empty_side(
    app: Flask, client: FlaskClient
) -> None:
    index = next(
        i for i in range(40) if not meadow_synth.sample(meadow_synth.VALIDATION, i, 0.3).state.tiles
    )
    shot = meadow_synth.sample(meadow_synth.VALIDATION, index, megapixels=2.0)
    resp = client.post("/layouts", data={"game": "spring-meadow", "name": "Side P"})
    layout_id = resp.headers["Location"].rsplit("/", 1)[1]
    assert 'name="photo"' in client.get(f"/layouts/{layout_id}").get_data(as_text=True)
    html = send(client, f"/layouts/{layout_id}/photo", shot.jpeg).get_data(as_text=True)
    assert "Photo read" in html
    with app.app_context():
        stored = db.get_layout(layout_id)
    burrows = {
        (r, c) for r, row in enumerate(stored.data["rows"]) for c, x in enumerate(row) if x == "o"
    }
    assert burrows == set(shot.state.burrows)
    assert "not finished" not in html and 'class="msg msg-info"' in html


def test_a_burrow_layout_read_with_tiles_on_the_side_says_it_is_unfinished(
    app: Flask, client: FlaskClient
) -> None:
    # Tiles hide burrows: the layout read has fewer than a side's 11. It used to come back
    # in green, "Photo read", with only the list under the board saying so.
    shots = (meadow_synth.sample(meadow_synth.VALIDATION, i, megapixels=2.0) for i in range(40))
    shot = next(s for s in shots if sum(row.count("o") for row in s.state.codes()) < 6)
    resp = client.post("/layouts", data={"game": "spring-meadow", "name": "Side T"})
    layout_id = resp.headers["Location"].rsplit("/", 1)[1]
    assert "Replace this layout" not in client.get(f"/layouts/{layout_id}").get_data(as_text=True)
    html = send(client, f"/layouts/{layout_id}/photo", shot.jpeg).get_data(as_text=True)
    assert "Photo read" in html and "The layout read is not finished" in html
    said = re.search(r'id="editor-message">([^<]*)<', html)
    assert said and "the whole board side with nothing on it" in said.group(1)
    assert "sheet" not in said.group(1)  # a Sunflower Valley word
    assert 'class="msg msg-warning"' in html and 'id="layout-problems"' in html
    # Squares under a tile are outlined on this answer only (a layout keeps no doubts), so
    # the message says to look now rather than "check them first" with no list to check.
    assert re.search(r'class="sq-cell[^"]* doubt"', html)  # the squares under tiles
    assert "look at them now (the outlines go with the next change)" in said.group(1)
    assert "first" not in said.group(1)
    # Read once, the layout is no longer blank: another photo asks first (no undo here).
    assert 'data-confirm="Replace this layout with the one in the photo?' in html


def test_no_photo_is_read_once_a_spring_meadow_game_is_over(
    app: Flask, client: FlaskClient
) -> None:
    form = {"game": "spring-meadow", "layout": "example", "orientation": "vertical"}
    table_id = new_table(client, form, ["Ann", "Bob"])
    client.post(f"/t/{table_id}/tap", data={"p": "0", "line": "1"}, headers=HX)
    for _ in range(2):  # Ann wins both phases: 2 pins, the game is over
        client.post(f"/t/{table_id}/field", data={"p": "0", "action": "record_phase"}, headers=HX)
    before = stored_doc(app, table_id)
    resp = send(client, f"/t/{table_id}/photo", b"any bytes", p="1")
    assert resp.status_code == 422
    assert "The game is over: Ann has 2 pins." in resp.get_data(as_text=True)
    assert stored_doc(app, table_id) == before


def test_a_worker_reads_one_photo_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two threads of one worker reading photos take turns (a large PNG decodes at full size)."""
    reading, most = [], []
    company = threading.Event()

    def slow(_data: bytes, game: str, **_hints: object) -> dict[str, object]:
        reading.append(game)
        most.append(len(reading))
        if len(reading) > 1:
            company.set()
        company.wait(0.3)  # were there no lock, the next thread would come in meanwhile
        reading.remove(game)
        return {"game": game}

    monkeypatch.setattr(vision_recognize, "recognize", slow)
    threads = [
        threading.Thread(target=photos.recognise, args=(b"photo", f"game {i}")) for i in range(3)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(most) == 3 and max(most) == 1
    # A photo that would wait longer than READ_WAIT is refused, saying why (503).
    monkeypatch.setattr(photos, "READ_WAIT", 0.1)
    with photos._one_read, pytest.raises(photos.PhotoRefused) as refused:
        photos.recognise(b"photo", "sunflower-valley")
    assert refused.value.status == 503 and "try again in a moment" in str(refused.value)
