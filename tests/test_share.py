"""Sharing results: CSV, the chat recap and the PNG results card."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from test_spring_meadow_game import phase, rows_for

from scorepad import games, share
from scorepad.games import spring_meadow as sm
from scorepad.render import palette
from scorepad.render.card import BOARD_BOX, font, headline_parts, results_card, tiebreak_lines
from scorepad.scoring import Result

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
GAMES = ["sunflower-valley", "harmonies", "spring-meadow", "seasons"]


def example(game: str) -> tuple[dict[str, Any], Result]:
    doc = json.loads((EXAMPLES / f"{game}.json").read_text())
    return doc, games.score_text(json.dumps(doc))


@pytest.mark.parametrize("game", GAMES)
def test_csv_has_every_category_and_total(game: str):
    _, result = example(game)
    rows = list(csv.reader(io.StringIO(share.to_csv(result))))
    header, body = rows[0], rows[1:]
    assert header[:2] == ["Rank", "Player"] and header[-1] == "Total"
    assert len(header) == 3 + len(games.get(game).categories)
    assert [r[1] for r in body] == [p.name for p in result.players]
    for row, p in zip(body, result.players, strict=True):
        assert int(row[0]) == p.rank and int(row[-1]) == p.total
        assert sum(int(v) for v in row[2:-1]) == p.total


def test_csv_of_a_player_alone_has_no_rank_column():
    doc, _ = example("spring-meadow")
    doc["players"] = doc["players"][:1]  # one board: a phase of one, ranked by nobody
    doc["options"].pop("active", None)
    rows = list(csv.reader(io.StringIO(share.to_csv(games.score_text(json.dumps(doc))))))
    assert rows[0][0] == "Player" and rows[1][0] == doc["players"][0]["name"]


def test_csv_neutralises_formulas_in_names():
    doc, _ = example("seasons")
    doc["players"][0]["name"] = "=HYPERLINK(1)"
    rows = list(csv.reader(io.StringIO(share.to_csv(games.score_text(json.dumps(doc))))))
    assert rows[1][1] == "'=HYPERLINK(1)"


def test_recap_names_the_winner_and_the_tie_break():
    _, result = example("sunflower-valley")
    text = share.recap(result)
    assert text.startswith("Sunflower Valley: Vera wins with 32 points\n")
    assert "1. Vera: 32 (Houses with sheep +15, Houses without sheep -5" in text
    assert "Tie-break: tied on 32 points: Vera ahead of Anna on sunflowers (13 vs 12)" in text


def test_recap_says_a_table_played_the_kids_variant():
    # Kids pair sheep with adjacent houses only: a recap without it reads as miscounted.
    doc, result = example("sunflower-valley")
    assert "Variant" not in share.recap(result)
    game = games.get("sunflower-valley")
    kids = game.score(game.parse({**doc, "options": {**doc["options"], "variant": "kids"}}))
    assert "\nVariant: Kids\n" in share.recap(kids)


def test_recap_of_a_game_still_going_on_names_its_leaders():
    _, result = example("sunflower-valley")
    assert share.headline(result, final=False) == "Sunflower Valley: Vera leads with 32 points"
    doc, _ = example("seasons")
    doc["players"] = [doc["players"][0], dict(doc["players"][0], name="Twin")]
    tied = games.score_text(json.dumps(doc))
    assert " share the lead with " in share.recap(tied, final=False).splitlines()[0]
    doc["players"] = [{"name": n, "crystals": 0, "cards_in_play": []} for n in ("Anna", "Boris")]
    nothing = games.score_text(json.dumps(doc))
    assert not nothing.anything_scored
    assert share.headline(nothing, final=False) == "Seasons: no points yet"
    assert share.headline(nothing).endswith("share the win with 0 points")


def test_a_headline_of_one_point_says_point():
    # A Spring Meadow phase of one covered burrow each: "share the win with 1 points".
    doc, _ = example("seasons")
    doc["players"] = [{"name": n, "crystals": 1, "cards_in_play": []} for n in ("Anna", "Boris")]
    assert share.headline(games.score_text(json.dumps(doc))).endswith(
        "Anna & Boris share the win with 1 point"
    )
    doc["players"] = doc["players"][:1]
    assert share.headline(games.score_text(json.dumps(doc))) == (
        "Seasons: Anna scores 1 point (solo)"
    )
    doc["players"][0]["crystals"] = 2
    assert share.headline(games.score_text(json.dumps(doc))).endswith("scores 2 points (solo)")


def test_recap_of_a_shared_win():
    doc, _ = example("seasons")
    doc["players"] = [doc["players"][0], dict(doc["players"][0], name="Twin")]
    text = share.recap(games.score_text(json.dumps(doc)))
    assert " & " in text.splitlines()[0] and "share the win" in text


@pytest.mark.parametrize("game", GAMES)
def test_results_card_is_a_png_with_every_board(game: str):
    doc, result = example(game)
    image = Image.open(io.BytesIO(results_card(result, doc)))
    assert image.format == "PNG" and image.width == 1080
    if game == "seasons":
        return  # no board to draw: standings only
    rows = (len(result.players) + 1) // 2
    assert image.height > rows * BOARD_BOX[1]
    # The first board's box is not blank paper.
    pixels = image.convert("RGB").crop((40, image.height - rows * 420, 530, image.height - 40))
    assert len(pixels.getcolors(maxcolors=100_000) or []) > 20


def test_results_card_font_has_cyrillic_letters():
    """Names are often Cyrillic: the card's fonts draw them, not the missing-glyph box."""
    missing = "\U0010fffd"  # a private-use code point no font draws
    for bold in (False, True):
        face = font(24, bold)
        assert face.getbbox("Я") != face.getbbox(missing)
        assert bytes(face.getmask("Я")) != bytes(face.getmask(missing))
    doc, _ = example("sunflower-valley")
    doc["players"][0]["name"] = "Аня"
    result = games.score_text(json.dumps(doc))
    assert Image.open(io.BytesIO(results_card(result, doc))).size[0] == 1080


def test_results_card_headline_stands_alone_and_tiebreaks_are_whole():
    # The web app's headline in Russian starts with the verb once the game's name is cut.
    assert headline_parts("Солнечная долина: лидирует Аня, очков: 5") == (
        "Солнечная долина",
        "Лидирует Аня, очков: 5",
    )
    assert headline_parts("Seasons: Vera wins with 32 points") == (
        "Seasons",
        "Vera wins with 32 points",
    )
    assert headline_parts("Vera wins") == ("", "Vera wins")  # no game named: all is who
    # A long tie-break is wrapped, never cut: every word of it is on the card, within its
    # margins as drawn (wide Cyrillic letters too).
    long = "Tie-break: tied on 30: " + "Anna ahead of Boris on cards in play (7 vs 5); " * 3
    russian = "Разрешение: ничья при счёте 30: Шахерезада — выше, чем Жозефина, " * 3
    for text in (long, russian):
        lines = tiebreak_lines([text, "Tie-break: short"])
        assert " ".join(lines[:-1]).split() == text.split() and lines[-1] == "Tie-break: short"
        assert all(font(20).getlength(line) <= 1080 - 2 * 40 for line in lines)
    # The card grows by the wrapped lines (none cut off its bottom edge).
    doc, result = example("seasons")
    plain = Image.open(io.BytesIO(results_card(result, doc, tiebreaks=[])))
    wrapped = Image.open(io.BytesIO(results_card(result, doc, tiebreaks=[russian] * 3)))
    assert wrapped.height - plain.height >= 30 * len(tiebreak_lines([russian] * 3))


def test_results_card_says_a_table_played_the_kids_variant():
    # As the recap does: kids' scores are not comparable with the standard game's.
    doc, result = example("sunflower-valley")
    game = games.get("sunflower-valley")
    kids = game.score(game.parse({**doc, "options": {**doc["options"], "variant": "kids"}}))
    assert share.variant_line(result) is None and share.variant_line(kids) == "Variant: Kids"
    plain = Image.open(io.BytesIO(results_card(result, doc)))
    told = Image.open(io.BytesIO(results_card(kids, doc)))
    assert told.height - plain.height == 30 + 10  # one line more under the standings


def test_area_fills_colour_words_first_then_fallbacks_in_turn():
    doc = {"players": [{"cells": [{"area": n} for n in ("Blue", "zeta", "alpha")]}]}
    assert palette.area_fills(doc) == {
        "Blue": palette.AREA_FILLS["blue"],
        "alpha": palette.FALLBACK_FILLS[0],
        "zeta": palette.FALLBACK_FILLS[1],
    }
    many = {"players": [{"cells": [{"area": f"a{i:02}"} for i in range(37)]}]}
    fills = palette.area_fills(many)  # more areas than fallback colours: they repeat
    assert len(fills) == 37 and fills["a07"] == palette.FALLBACK_FILLS[0]


def test_results_card_colours_areas_as_the_editor_does():
    doc, result = example("sunflower-valley")
    image = Image.open(io.BytesIO(results_card(result, doc))).convert("RGB")
    colours = {rgb for _, rgb in image.getcolors(maxcolors=1_000_000) or []}
    for fill in palette.area_fills(doc).values():
        assert tuple(int(fill[i : i + 2], 16) for i in (1, 3, 5)) in colours


def test_a_game_won_on_pins_shows_them_in_the_csv_and_the_recap():
    # The ranks go by the pins (Boris 2nd on 22 points, Clara 3rd on 25): both files say so.
    game = [
        phase("Clara", rows_for(1, 0), rows_for(0, 3), rows_for(0, 2)),
        phase("Anna", rows_for(1, 1), rows_for(2, 0), rows_for(0, 4)),
        phase("Boris", rows_for(3, 0), rows_for(2, 0), rows_for(2, 5)),
    ]
    final = sm.score_game(game).game_result()
    assert final is not None
    rows = list(csv.reader(io.StringIO(share.to_csv(final))))
    assert rows[0][0] == "Rank (by pins)" and rows[0][-2:] == ["Total", "Pins"]
    assert [(r[1], r[-2], r[-1]) for r in rows[1:]] == [
        ("Anna", "30", "2"),
        ("Boris", "22", "1"),
        ("Clara", "25", "0"),
    ]
    text = share.recap(final)
    assert "Pins: Anna 2, Boris 1, Clara 0" in text.splitlines()
    # The card's score table has a Pins row too: one row taller than the same without pins.
    unpinned = replace(final, extra={k: v for k, v in final.extra.items() if k != "pins"})
    heights = [Image.open(io.BytesIO(results_card(r, game[-1]))).height for r in (final, unpinned)]
    assert heights[0] - heights[1] == 44
    _, plain = example("spring-meadow")  # one phase: no pins anywhere
    assert "Pins" not in share.to_csv(plain) and "Pins" not in share.recap(plain)


def test_csv_labels_can_be_given_in_another_language():
    _, result = example("seasons")
    names = {"rank": "Место", "player": "Игрок", "crystals": "Кристаллы"}
    header = share.to_csv(result, names).splitlines()[0].split(",")
    assert header[:3] == ["Место", "Игрок", "Кристаллы"] and header[-1] == "Total"
