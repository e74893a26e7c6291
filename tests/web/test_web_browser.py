"""End to end in real headless Chromium at a phone viewport (390 × 844), taps only.

Expected scores are worked out by hand from the rules digest (``shared/rules/README.md``),
not read from the engine.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

pytestmark = pytest.mark.browser


def start_table(page: Any, game: str, names: list[str], **selects: str) -> None:
    page.goto(page.base + "/new")
    page.select_option("select[name=game]", game)
    page.wait_for_selector(
        f"#new-form select[name=game] option[value='{game}'][selected]", state="attached"
    )
    for key, value in selects.items():
        page.select_option(f"select[name={key}]", value)
    for i, name in enumerate(names):
        page.fill(f"input[name=name_{i}]", name)
    page.click("#new-form button[type=submit]")
    page.wait_for_url(re.compile(r".*/t/[\w-]+$"))
    page.wait_for_selector("#editor")


def pick(page: Any, tool: str) -> None:
    page.click(f"#palette input[value='{tool}'] + span")


def player(page: Any, index: int) -> None:
    page.click(f"#editor .tabs a:nth-child({index + 1})")
    page.wait_for_selector(f"#editor[data-player='{index}']")


def scores(page: Any) -> dict[str, dict[str, str]]:
    """The breakdown table as {category row label: {player: value}}."""
    return page.evaluate(
        """() => {
        const t = document.querySelector('table.scores');
        const names = [...t.querySelectorAll('thead th')].slice(1).map(th => th.textContent.trim());
        const out = {};
        for (const tr of t.querySelectorAll('tbody tr')) {
          const label = tr.querySelector('th').textContent.trim();
          out[label] = Object.fromEntries(
            [...tr.querySelectorAll('td')].map((td, i) => [names[i], td.textContent.trim()]));
        }
        return out;
      }"""
    )


# --- Sunflower Valley ----------------------------------------------------------------------------


def draw(page: Any, tool: str, q: int, r: int, item: str | None = None) -> None:
    pick(page, tool)
    page.click(f'#editor [data-q="{q}"][data-r="{r}"]')
    page.wait_for_selector(
        f'#editor [data-q="{q}"][data-r="{r}"][data-item="{tool if item is None else item}"]'
    )


def test_sunflower_valley_three_players_by_taps(page: Any) -> None:
    start_table(page, "sunflower-valley", ["Anna", "Boris", "Vera"])
    # Anna: a house with its adjacent sheep (+3), two blue sunflowers (blue area: +3),
    # both next to mountain (1, 1) (+2) and one next to mountain (2, 1) (+1); 2 residents.
    draw(page, "house", 0, 0)
    draw(page, "sheep", 0, 1)
    draw(page, "sunflower", 1, 0)
    draw(page, "sunflower", 1, 2)
    # Boris: a settlement of two houses and one sheep (+3 − 5), an orange sunflower (+3)
    # next to mountain (4, 2) (+1); 4 residents: most (+5).
    player(page, 1)
    draw(page, "house", 2, 2)
    draw(page, "house", 2, 3)
    draw(page, "sheep", 3, 3)
    draw(page, "sunflower", 5, 1)
    # Vera: a super sunflower in green (+3) next to mountain (1, 1) (+1); 1 resident.
    player(page, 2)
    draw(page, "super-sunflower", 0, 2)
    # A rail turns through the straight orientations when tapped again, the eraser clears it.
    draw(page, "straight", 3, 0, "rail")
    pick(page, "straight")
    track = page.get_attribute('#editor [data-q="3"][data-r="0"]', "aria-label")
    page.click('#editor [data-q="3"][data-r="0"]')
    page.wait_for_function(
        """t => document.querySelector('#editor [data-q="3"][data-r="0"]')
                 .getAttribute('aria-label') !== t""",
        arg=track,
    )
    assert "rail 1-4" in page.get_attribute('#editor [data-q="3"][data-r="0"]', "aria-label")
    draw(page, "eraser", 3, 0, "")

    table = scores(page)
    assert table["Total"] == {"Anna": "12", "Boris": "7", "Vera": "4"}
    page.click("text=Results")
    page.wait_for_selector("#winner")
    assert page.text_content("#winner").strip() == "Winner: Anna"
    table = scores(page)
    assert table["A. Houses with sheep"] == {"Anna": "3", "Boris": "3", "Vera": "0"}
    assert table["B. Houses without sheep"] == {"Anna": "0", "Boris": "-5", "Vera": "0"}
    assert table["C. Sunflower majority"] == {"Anna": "3", "Boris": "3", "Vera": "3"}
    assert table["D. Mountains"] == {"Anna": "3", "Boris": "1", "Vera": "1"}
    assert table["E. Residents"] == {"Anna": "3", "Boris": "5", "Vera": "0"}
    assert table["Rank"] == {"Anna": "1", "Boris": "2", "Vera": "3"}
    # The explanation: one sheep-to-house line per pair, one ring for Boris's lone house.
    assert page.locator(".card line.pair").count() == 2
    assert page.locator(".card .unpaired").count() == 1


def test_invalid_tap_shows_a_message_and_keeps_the_board(page: Any) -> None:
    start_table(page, "sunflower-valley", ["Anna"])
    pick(page, "house")
    page.click('#editor [data-q="1"][data-r="1"]')  # a mountain
    page.wait_for_selector("#editor-message")
    assert "mountain" in page.text_content("#editor-message")
    assert page.get_attribute('#editor [data-q="1"][data-r="1"]', "data-item") == "mountain"


def test_undo_and_redo_buttons(page: Any) -> None:
    start_table(page, "sunflower-valley", ["Anna"])
    draw(page, "house", 0, 0)
    draw(page, "sheep", 0, 1)
    page.click("#editor button:has-text('Undo')")
    page.wait_for_selector('#editor [data-q="0"][data-r="1"][data-item=""]')
    assert page.get_attribute('#editor [data-q="0"][data-r="0"]', "data-item") == "house"
    page.click("#editor button:has-text('Redo')")
    page.wait_for_selector('#editor [data-q="0"][data-r="1"][data-item="sheep"]')
    page.reload()
    assert page.get_attribute('#editor [data-q="0"][data-r="1"]', "data-item") == "sheep"


def test_invalid_import_is_explained_and_not_stored(page: Any) -> None:
    page.goto(page.base + "/import")
    page.fill("textarea[name=text]", '{"game": "sunflower-valley", "players": [{"name": ""}]}')
    page.click("#import-form button[type=submit]")
    page.wait_for_selector("#import-form .msg-error")
    text = page.text_content("#import-form .msg-error")
    assert "nothing was stored" in text and "cells" in text
    page.goto(page.base + "/")
    assert "No tables yet" in page.text_content("#tables")
