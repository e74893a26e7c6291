"""Helpers for the web tests: create tables through the real forms, read documents back."""

from __future__ import annotations

import re
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from scorepad import games
from scorepad.web import db

HX = {"HX-Request": "true"}

SV_FORM = {
    "game": "sunflower-valley",
    "layout": "example",
    "variant": "standard",
    **{f"express_{n}": str(n * n) for n in range(2, 7)},
}


def new_table(client: FlaskClient, form: dict[str, str], names: list[str]) -> str:
    data = dict(form, **{f"name_{i}": n for i, n in enumerate(names)})
    resp = client.post("/new", data=data)
    assert resp.status_code == 303, resp.get_data(as_text=True)[:2000]
    location = resp.headers["Location"]
    found = re.fullmatch(r"/t/([\w-]+)", location)
    assert found, location
    return found.group(1)


def stored_doc(app: Flask, table_id: str) -> dict[str, Any]:
    with app.app_context():
        return db.get_table(table_id).doc


def engine_result(doc: dict[str, Any]) -> Any:
    game = games.get(doc["game"])
    return game.score(game.parse(doc))


def tap(client: FlaskClient, table_id: str, **values: Any) -> Any:
    data = {k: str(v) for k, v in values.items()}
    return client.post(f"/t/{table_id}/tap", data=data, headers=HX)


def cell(doc: dict[str, Any], player: int, q: int, r: int) -> dict[str, Any]:
    return next(c for c in doc["players"][player]["cells"] if (c["q"], c["r"]) == (q, r))


def choose_game(page: Any, game: str) -> None:
    """Pick the game on the new-table form in a browser and wait for the form it swaps in.

    Choosing a game (even the one shown) re-renders the form through htmx; names typed
    while that request is in flight would be wiped by the swap.
    """
    with page.expect_response(lambda response: "/new?" in response.url):
        page.select_option("select[name=game]", game)
    page.wait_for_function("() => !document.querySelector('.htmx-request')")
    page.wait_for_selector(
        f"#new-form select[name=game] option[value='{game}'][selected]", state="attached"
    )


def posted_table(page: Any, names: tuple[str, ...] = ("Anna", "Boris")) -> str:
    """A Sunflower Valley table made in a browser page by posting the new-table form with
    the page's own CSRF token (the form itself is tested elsewhere); its id."""
    page.goto(page.base + "/new")
    token = page.evaluate("document.querySelector('meta[name=csrf-token]').content")
    form = {**SV_FORM, **{f"name_{i}": n for i, n in enumerate(names)}, "csrf_token": token}
    resp = page.request.post(page.base + "/new", form=form, max_redirects=0)
    assert resp.status == 303
    return str(resp.headers["location"]).rsplit("/", 1)[1]
