"""Bad input never crashes: arbitrary tap and field values answer 200, 409 or 422."""

from __future__ import annotations

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from webhelpers import HX, SV_FORM, new_table, stored_doc

from scorepad import games

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
