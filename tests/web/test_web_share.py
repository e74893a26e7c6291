"""Sharing results: CSV download, plain-text recap, PNG results card."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from PIL import Image
from webhelpers import SV_FORM, engine_result, new_table, stored_doc, tap

from scorepad import games
from scorepad.web import db, sharing


@pytest.fixture
def table_id(client: FlaskClient) -> str:
    table_id = new_table(client, SV_FORM, ["Анна", "=Boris"])
    tap(client, table_id, p=0, tool="house", q=0, r=0)
    tap(client, table_id, p=0, tool="sheep", q=0, r=1)
    return table_id


def filename(resp: object, ext: str, table_id: str) -> str:
    disposition = resp.headers["Content-Disposition"]  # type: ignore[attr-defined]
    found = re.search(r'filename="([^"]+)"', disposition)
    assert found, disposition
    assert re.fullmatch(rf"sunflower-valley-\d{{4}}-\d\d-\d\d-{re.escape(table_id[:6])}\.{ext}",
                        found.group(1))  # fmt: skip
    return disposition


def test_csv_download(app: Flask, client: FlaskClient, table_id: str) -> None:
    resp = client.get(f"/t/{table_id}/results.csv")
    assert resp.status_code == 200
    assert resp.headers["Content-Type"] == "text/csv; charset=utf-8"
    assert filename(resp, "csv", table_id).startswith("attachment;")
    text = resp.data.decode("utf-8")
    assert text.startswith("\ufeff")  # spreadsheets then read the Cyrillic names right
    rows = list(csv.reader(io.StringIO(text.removeprefix("\ufeff"))))
    game = games.get("sunflower-valley")
    assert rows[0] == ["Rank", "Player", *game.categories.values(), "Total"]
    result = engine_result(stored_doc(app, table_id))
    assert len(rows) == 1 + len(result.players)
    for row, p in zip(rows[1:], result.players, strict=True):
        assert row[1] == ("'=Boris" if p.name == "=Boris" else p.name)  # no formula
        assert [int(v) for v in row[2:-1]] == [p.categories[k] for k in game.categories]
        assert (int(row[0]), int(row[-1])) == (p.rank, p.total)
    assert rows[1][1] == "Анна" and int(rows[1][2]) == 3  # Anna's house with its sheep
    russian = client.get(f"/t/{table_id}/results.csv", headers={"Accept-Language": "ru"})
    text = russian.data.decode("utf-8").removeprefix("\ufeff")
    header = next(csv.reader(io.StringIO(text), delimiter=";"))  # a Russian Excel's columns
    assert header[:2] == ["Место", "Игрок"] and header[-1] == "Итого"
    assert header[2].endswith("Дома с овцами")


def test_recap_for_a_chat(app: Flask, client: FlaskClient, table_id: str) -> None:
    resp = client.get(f"/t/{table_id}/recap.txt")
    assert resp.headers["Content-Type"] == "text/plain; charset=utf-8"
    assert filename(resp, "txt", table_id).startswith("inline;")
    text = resp.get_data(as_text=True)
    result = engine_result(stored_doc(app, table_id))
    winner = result.winners[0]
    # While the table is open its best player leads; once finished, wins.
    assert text.startswith(f"Sunflower Valley: {winner} leads with ")
    for p in result.players:
        assert f"{p.rank}. {p.name}: {p.total}" in text
    client.post(f"/t/{table_id}/finish")
    text = client.get(f"/t/{table_id}/recap.txt").get_data(as_text=True)
    assert text.startswith(f"Sunflower Valley: {winner} wins with ")
    russian = client.get(f"/t/{table_id}/recap.txt", headers={"Accept-Language": "ru"})
    assert russian.get_data(as_text=True).startswith(f"Солнечная долина: побеждает {winner}")
    # The results page carries the same text, ready to copy.
    html = client.get(f"/t/{table_id}/results").get_data(as_text=True)
    assert 'id="recap-text"' in html and f"{winner} wins with" in html
    assert 'data-copy="#recap-text"' in html
    for route in ("results.csv", "card.png", "recap.txt"):
        assert f"/t/{table_id}/{route}" in html


def test_png_results_card(
    client: FlaskClient, table_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    resp = client.get(f"/t/{table_id}/card.png")
    assert resp.status_code == 200 and resp.headers["Content-Type"] == "image/png"
    filename(resp, "png", table_id)
    assert resp.data.startswith(b"\x89PNG\r\n\x1a\n")
    image = Image.open(io.BytesIO(resp.data))
    assert image.format == "PNG" and image.width == 1080 and image.height > 600

    # Unchanged table, same file: a revalidation costs nothing, not even a drawing.
    def no_drawing(*_args: object) -> None:
        raise AssertionError("a revalidated card must not be drawn again")

    with monkeypatch.context() as patch:
        patch.setattr(sharing, "results_card", no_drawing)
        for route in ("card.png", "results.csv", "recap.txt"):
            tag = (
                client.get(f"/t/{table_id}/{route}").headers["ETag"]
                if route != "card.png"
                else resp.headers["ETag"]
            )
            again = client.get(f"/t/{table_id}/{route}", headers={"If-None-Match": tag})
            assert again.status_code == 304 and again.headers["ETag"] == tag
            assert "private" in again.headers["Cache-Control"]
    # Another language is another file: a revalidation must not keep the old one.
    russian = {"If-None-Match": resp.headers["ETag"], "Accept-Language": "ru"}
    assert client.get(f"/t/{table_id}/card.png", headers=russian).status_code == 200
    tap(client, table_id, p=1, tool="house", q=0, r=0)
    fresh = client.get(f"/t/{table_id}/card.png", headers={"If-None-Match": resp.headers["ETag"]})
    assert fresh.status_code == 200
    # If-Match an older version: a 412 saying so, not the new file under an error status.
    for route in ("card.png", "results.csv", "recap.txt"):
        stale = client.get(f"/t/{table_id}/{route}", headers={"If-Match": resp.headers["ETag"]})
        assert stale.status_code == 412 and stale.mimetype == "text/html"
        assert "another version of this table" in stale.get_data(as_text=True)
        star = client.get(f"/t/{table_id}/{route}", headers={"If-Match": "*"})
        assert star.status_code == 200 and star.mimetype != "text/html"


def test_the_card_is_drawn_in_the_players_language(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The example table: Vera leads Anna on 32 points by a tie-break on sunflowers.
    text = (Path(__file__).resolve().parents[2] / "examples" / "sunflower-valley.json").read_text()
    table_id = client.post("/import", data={"text": text}).headers["Location"].rsplit("/", 1)[1]
    drawn: dict[str, object] = {}

    def capture(result: object, doc: object, names: object, head: str, ties: list[str]) -> bytes:
        drawn.update(head=head, ties=ties, names=names)
        return b"png"

    monkeypatch.setattr(sharing, "results_card", capture)
    client.get(f"/t/{table_id}/card.png", headers={"Accept-Language": "ru"})
    assert drawn["head"] == "Солнечная долина: лидирует Vera, очков: 32"  # open: leads
    assert drawn["ties"] == [
        "Разрешение: ничья при счёте 32: Vera — выше, чем Anna, по показателю «подсолнухи» "
        "(13 против 12)"
    ]
    client.get(f"/t/{table_id}/card.png")
    assert drawn["head"] == "Sunflower Valley: Vera leads with 32 points"
    assert drawn["ties"] == [
        "Tie-break: tied on 32 points: Vera ahead of Anna on sunflowers (13 vs 12)"
    ]


def test_nothing_to_share_from_an_unscorable_table(app: Flask, client: FlaskClient) -> None:
    with app.app_context():
        broken = db.create_table(
            "sunflower-valley", "broken", {"game": "sunflower-valley", "players": []}, {}
        )
    for route in ("results.csv", "recap.txt", "card.png", "check"):
        resp = client.get(f"/t/{broken}/{route}")
        assert resp.status_code == 409, route
        assert "cannot be scored" in resp.get_data(as_text=True)
