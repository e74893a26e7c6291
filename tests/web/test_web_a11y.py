"""Accessibility: axe-core on every main screen in light and dark theme; colour never alone.

axe-core is vendored from the npm registry (``vendor/axe-core-4.14.1.min.js``, MPL-2.0,
licence beside it) and injected into real headless Chromium with Playwright. Each screen is
checked twice per theme: axe's default rules plus ``target-size`` (WCAG 2.2's 24 px), then
``target-size`` alone at 44 px for everything outside the game boards. Violations of serious
or critical impact fail, colour contrast and target size included.

Boards are the one exception to 44 px: a Spring Meadow square is a 10 × 15 grid cell (about
33 px on a 390 px phone); the squares pass the 24 px rule, can be painted by dragging, and
are reachable from the keyboard with the arrow keys. (On a phone turned sideways the board
fits the screen's height, about 19 px a square at 360 px: docs/web.md, "Tap targets".)
Hexes are larger than 44 px.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from conftest import LiveServer, make_app
from flask import Flask
from flask.testing import FlaskClient
from webhelpers import SV_FORM, new_table, tap

from scorepad.games import sunflower_valley as sv
from scorepad.web import db

#: The pages read here do not depend on the database: SQLite alone (conftest).
pytestmark = pytest.mark.sqlite_only

AXE = Path(__file__).parent / "vendor" / "axe-core-4.14.1.min.js"
SERIOUS = ("serious", "critical")

RUN_AXE = """async () => {
  const keep = r => r.violations.filter(v => ['serious', 'critical'].includes(v.impact))
    .map(v => ({id: v.id, impact: v.impact, help: v.help,
                nodes: v.nodes.slice(0, 5).map(n => n.target.join(' ') + ' :: ' +
                  (n.failureSummary || '').replace(/\\s+/g, ' ').slice(0, 160))}));
  const all = await axe.run(document, {rules: {'target-size': {enabled: true}}});
  axe.configure({checks: [{id: 'target-size', options: {minSize: 44}},
                          {id: 'target-offset', options: {minOffset: 44}}]});
  const big = await axe.run({exclude: [['svg.board']]}, {runOnly: ['target-size']});
  axe.reset();
  return {violations: keep(all).concat(keep(big).map(v => ({...v, id: v.id + ' (44 px)'}))),
          sized: big.passes.concat(big.violations).reduce((n, r) => n + r.nodes.length, 0),
          rules: all.passes.length + all.violations.length};
}"""


@dataclass
class Site:
    page: Any
    url: str
    token: str
    screens: dict[str, str] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)

    def post(self, path: str, **form: Any) -> Any:
        data = {k: str(v) for k, v in form.items()}
        return self.page.request.post(
            self.url + path,
            form=data,
            headers={"X-CSRFToken": self.token, "HX-Request": "true"},
            max_redirects=0,
        )

    def create(self, form: dict[str, str], names: list[str]) -> str:
        data = {**form, **{f"name_{i}": n for i, n in enumerate(names)}}
        resp = self.page.request.post(
            self.url + "/new", form={**data, "csrf_token": self.token}, max_redirects=0
        )
        assert resp.status == 303, resp.status
        return str(resp.headers["location"]).rsplit("/", 1)[1]


def _fill_tables(site: Site) -> None:
    """One table per game with something drawn on it, so the glyphs and explanations show."""
    sv = site.create(SV_FORM, ["Anna", "Boris"])
    for tool, q, r in (("house", 0, 0), ("sheep", 0, 1), ("sunflower", 1, 0), ("straight", 2, 0)):
        assert site.post(f"/t/{sv}/tap", p=0, tool=tool, q=q, r=r).status == 200
    hm = site.create({"game": "harmonies", "side": "A"}, ["Anna", "Boris"])
    for tool, q, r in (("blue", 0, 0), ("blue", 0, 1), ("brown", 1, 0), ("green", 1, 0)):
        assert site.post(f"/t/{hm}/tap", p=0, tool=tool, q=q, r=r).status == 200
    for tool, q, r in (("grey", 2, 0), ("grey", 2, 0), ("yellow", 3, 0), ("red", 4, 0)):
        assert site.post(f"/t/{hm}/tap", p=0, tool=tool, q=q, r=r).status == 200
    site.post(f"/t/{hm}/field", p=0, action="add_animal", card=3)
    sm = site.create(
        {"game": "spring-meadow", "layout": "example", "orientation": "vertical"}, ["Anna", "Bo"]
    )
    assert site.post(f"/t/{sm}/tap", p=0, line=1).status == 200
    assert site.post(f"/t/{sm}/tap", p=0, line=2).status == 200
    ss = site.create({"game": "seasons"}, ["Anna", "Boris"])
    site.post(f"/t/{ss}/field", p=0, action="counts", crystals=40, cards_in_hand=1)
    site.post(f"/t/{ss}/field", p=0, action="add_card", card=1)
    layouts = {}
    for game in ("sunflower-valley", "spring-meadow"):
        resp = site.page.request.post(
            site.url + "/layouts",
            form={"game": game, "name": f"{game} C", "start": "example", "csrf_token": site.token},
            max_redirects=0,
        )
        assert resp.status == 303
        layouts[game] = str(resp.headers["location"])
    site.screens.update(
        {
            "home": "/",
            "new table": "/new",
            "new Harmonies table": "/new?game=harmonies",
            "new Spring Meadow table": "/new?game=spring-meadow",
            "Sunflower Valley editor": f"/t/{sv}",
            "Harmonies editor": f"/t/{hm}",
            "Spring Meadow editor": f"/t/{sm}",
            "Seasons editor": f"/t/{ss}",
            "Sunflower Valley results": f"/t/{sv}/results",
            "Harmonies results": f"/t/{hm}/results",
            "Spring Meadow results": f"/t/{sm}/results",
            "Seasons results": f"/t/{ss}/results",
            "check a paper sheet": f"/t/{sv}/check?cat_houses_with_sheep=5&cat_residents=2",
            "layouts": "/layouts",
            "sheet layout editor": layouts["sunflower-valley"],
            "burrow layout editor": layouts["spring-meadow"],
            "import": "/import",
            "join a table": "/join",
            "seats": f"/t/{sv}/seats",
            "big screen": f"/t/{sv}/screen",
            "players": "/players",
            "offline page": "/offline",
            "not found": "/t/nope",
        }
    )


def _read_a_photo(site: Site, app: Flask) -> None:
    """A sheet read from a photo: the doubts list, outlined hexes, the photo as evidence."""
    from test_web_photos import doubtful_sheet, sheet, sheet_layout

    index = doubtful_sheet()
    with app.app_context():
        layout_id = db.create_layout("sunflower-valley", "photographed", sheet_layout(index))
    table_id = site.create({**SV_FORM, "layout": f"db:{layout_id}"}, ["Anna"])
    photo = {"name": "sheet.jpg", "mimeType": "image/jpeg", "buffer": sheet(index).jpeg}
    resp = site.page.request.post(
        f"{site.url}/t/{table_id}/photo",
        multipart={"p": "0", "photo": photo},
        headers={"X-CSRFToken": site.token, "HX-Request": "true"},
    )
    assert resp.status == 200 and 'id="doubts"' in resp.text()
    site.screens["Sunflower Valley editor after a photo"] = f"/t/{table_id}"


@pytest.fixture(scope="module")
def site(browser: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    app = make_app(f"sqlite:///{tmp_path_factory.mktemp('a11y') / 'a11y.sqlite3'}")
    with LiveServer(app) as server:
        context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True)
        page = context.new_page()
        page.set_default_timeout(20_000)
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(server.url + "/new")
        token = page.evaluate("document.querySelector('meta[name=csrf-token]').content")
        built = Site(page, server.url, token, errors=errors)
        _fill_tables(built)
        _read_a_photo(built, app)
        yield built
        context.close()
    app.extensions["scorepad.db"].dispose()


def axe(page: Any) -> dict[str, Any]:
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    return dict(page.evaluate(RUN_AXE))


SCREENS = [
    "home",
    "new table",
    "new Harmonies table",
    "new Spring Meadow table",
    "Sunflower Valley editor",
    "Sunflower Valley editor after a photo",
    "Harmonies editor",
    "Spring Meadow editor",
    "Seasons editor",
    "Sunflower Valley results",
    "Harmonies results",
    "Spring Meadow results",
    "Seasons results",
    "check a paper sheet",
    "layouts",
    "sheet layout editor",
    "burrow layout editor",
    "import",
    "join a table",
    "seats",
    "big screen",
    "players",
    "offline page",
    "not found",
]


@pytest.mark.browser
@pytest.mark.parametrize("screen", SCREENS)
def test_axe_finds_nothing_serious_in_light_and_dark(site: Site, screen: str) -> None:
    page = site.page
    page.emulate_media(color_scheme="light")
    page.goto(site.url + site.screens[screen])
    found = {}
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        background = page.evaluate("getComputedStyle(document.body).backgroundColor")
        assert (background == "rgb(19, 25, 22)") == (scheme == "dark"), (scheme, background)
        report = axe(page)
        assert report["rules"] > 20 and report["sized"] > 0  # axe really looked
        found[scheme] = report["violations"]
    page.emulate_media(color_scheme="light")
    assert not site.errors, site.errors
    assert not found["light"] and not found["dark"], json.dumps(found, indent=1)


STICKING_OUT = """() => [...document.querySelectorAll('body *')]
  .filter(e => e.getBoundingClientRect().right > innerWidth + 1
               && !(e.parentElement && e.parentElement.closest('.scroll')))
  .slice(0, 5).map(e => e.tagName + '.' + e.getAttribute('class'))"""


#: Where the editor's board begins on the screen (px from the top).
BOARD_TOP = "document.querySelector('#editor .board').getBoundingClientRect().top"
#: How many rows the main menu's entries take.
MENU_ROWS = "new Set([...document.querySelectorAll('.top .menu a')].map(a => a.offsetTop)).size"


@pytest.mark.browser
@pytest.mark.parametrize("language", ["uk", "ru"])
def test_no_screen_scrolls_sideways_on_a_small_phone(site: Site, language: str) -> None:
    """At 320 px, with the longest labels (Ukrainian, Russian), every screen fits the
    phone's width: rows of buttons wrap, long links break (the join link, a random
    token, once widened the seats page), tables scroll inside themselves (their
    screen-reader-only text too), the big screen's boards take one column."""
    page = site.page
    page.goto(f"{site.url}/lang/{language}")
    wide = {}
    try:
        page.set_viewport_size({"width": 320, "height": 700})
        for screen in SCREENS:
            page.goto(site.url + site.screens[screen])
            width = page.evaluate("document.documentElement.scrollWidth")
            if width > 320:  # name what sticks out (not what scrolls inside a .scroll)
                wide[screen] = (width, page.evaluate(STICKING_OUT))
        menu_rows = page.evaluate(MENU_ROWS)
        page.goto(site.url + site.screens["Sunflower Valley editor"])
        board_top = page.evaluate(BOARD_TOP)
    finally:
        page.set_viewport_size({"width": 390, "height": 844})
        page.goto(f"{site.url}/lang/en")
    assert not wide, wide
    assert menu_rows == 1, "the menu's entries wrap (once the last one wrapped alone)"
    # The table's links once wrapped into three rows of taps: the board began at 516 px.
    assert board_top < 420, f"the board begins {board_top:.0f} px down, below a phone's first look"


@pytest.mark.browser
def test_a_long_one_word_name_does_not_widen_a_small_phone(site: Site) -> None:
    """Names hold up to 40 characters; one long word must break, not widen the page."""
    name = "Oleksandrovychivskyi" * 2
    table_id = site.create(SV_FORM, [name, "Bo"])
    site.post(f"/t/{table_id}/tap", p=0, tool="house", q=0, r=0)
    wide = {}
    with viewed(site, 320) as page:
        page.goto(f"{site.url}/lang/uk")
        for path in ("", "/results", "/screen", "/seats", "/join", "/check"):
            page.goto(f"{site.url}/t/{table_id}{path}")
            if page.evaluate("document.documentElement.scrollWidth") > 320:
                wide[path] = page.evaluate(STICKING_OUT)
    assert not wide, wide


@pytest.mark.browser
def test_an_area_tied_between_two_players_does_not_widen_a_small_phone(site: Site) -> None:
    """The legend "Sunflowers by area" says who ties for an area ("orange 2 (Anna and
    Boris tied at 2: nobody)"); kept on one line it was 360-450 px wide in Russian and
    Ukrainian (364 px in English on the results): every Sunflower Valley screen scrolled
    sideways."""
    table_id = site.create(SV_FORM, ["Anna", "Boris"])
    for p in (0, 1):  # both players: 2 sunflowers in the orange area, a tie at the top
        for q, r in ((2, -1), (2, 0)):
            site.post(f"/t/{table_id}/tap", p=p, tool="sunflower", q=q, r=r)
    wide = {}
    for language in ("en", "ru", "uk"):
        with viewed(site, 360, language) as page:
            for path in ("", "/results", "/screen", "/check"):
                page.goto(f"{site.url}/t/{table_id}{path}")
                if page.evaluate("document.documentElement.scrollWidth") > 360:
                    wide[language, path] = page.evaluate(STICKING_OUT)
    assert not wide, wide


@pytest.mark.browser
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_finished_tables_banner_is_checked_by_axe(site: Site, theme: str) -> None:
    """A finished table says so above its boards and on its join page, with a link to the
    results: the accent green on the message's pale green was 4.46:1, below 4.5:1."""
    table_id = site.create(SV_FORM, ["Anna", "Boris"])
    assert site.post(f"/t/{table_id}/finish").status < 400
    page = site.page
    page.emulate_media(color_scheme=theme)
    found = {}
    try:
        for path in ("", "/join"):
            page.goto(f"{site.url}/t/{table_id}{path}")
            assert page.locator(".msg-info a").count() == 1, path  # the banner and its link
            violations = axe(page)["violations"]
            if violations:
                found[path] = violations
    finally:
        page.emulate_media(color_scheme="light")
    assert not found, found


@pytest.mark.browser
def test_theme_switch_is_remembered_and_checked_by_axe(site: Site) -> None:
    page = site.page
    page.emulate_media(color_scheme="light")
    page.goto(site.url + site.screens["Harmonies editor"])
    toggle = page.locator("#theme-toggle")
    assert toggle.get_attribute("aria-pressed") == "false"
    toggle.click()
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    assert toggle.get_attribute("aria-pressed") == "true"
    page.reload()  # the server renders the chosen theme from the cookie
    assert page.locator("html[data-theme=dark]").count() == 1
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(19, 25, 22)"
    assert not axe(page)["violations"]
    page.locator("#theme-toggle").click()
    assert page.evaluate("document.documentElement.dataset.theme") == "light"
    page.context.clear_cookies(name="theme")


@pytest.mark.browser
@pytest.mark.parametrize("language", ["en", "ru", "uk"])
def test_main_menu_fits_a_phone_in_every_language(site: Site, language: str) -> None:
    """On a phone every menu entry is on screen, a comfortable tap, and apart from the
    others: the menu wraps below the brand, and onto a second row, rather than scroll or
    let the longer Russian and Ukrainian labels overlap. A 375 px phone shows the English
    menu in one row beside the brand. On a phone the header is not sticky (two rows of it
    would cover the board); wider, the editor's palette sticks just below it."""
    page = site.page
    page.goto(f"{site.url}/lang/{language}")
    try:
        for width in (320, 360, 375, 390):
            page.set_viewport_size({"width": width, "height": 844})
            page.goto(site.url + site.screens["home"])
            boxes = [a.bounding_box() for a in page.locator("header.top .menu a").all()]
            assert len(boxes) == 5
            for i, box in enumerate(boxes):
                assert box["x"] >= 0 and box["x"] + box["width"] <= width, (width, i)
                assert box["height"] >= 44 and box["width"] >= 44  # still a comfortable tap
                for other in boxes[:i]:
                    apart = (
                        box["x"] >= other["x"] + other["width"]
                        or box["y"] >= other["y"] + other["height"]
                    )
                    assert apart, (width, i)
            one_row = len({round(box["y"]) for box in boxes}) == 1
            brand = page.locator("header.top .brand").bounding_box()
            beside = one_row and round(brand["y"]) == round(boxes[0]["y"])
            assert beside or language != "en" or width < 375
            assert (
                page.evaluate("getComputedStyle(document.querySelector('header.top')).position")
                == "static"
            )
        # Wider, the header stays at the top and the editor's palette sticks just below it.
        page.set_viewport_size({"width": 800, "height": 700})
        page.goto(site.url + site.screens["Sunflower Valley editor"])
        page.mouse.wheel(0, 600)
        page.wait_for_function(
            "document.querySelector('.palette').getBoundingClientRect().top < 100"
        )
        header = page.locator("header.top").bounding_box()
        palette = page.locator(".palette").bounding_box()
        assert header["y"] == 0 and palette["y"] == pytest.approx(header["height"], abs=1)
    finally:
        page.set_viewport_size({"width": 390, "height": 844})
        page.goto(f"{site.url}/lang/en")


@contextmanager
def viewed(site: Site, width: int, language: str = "en") -> Iterator[Any]:
    """The shared page at ``width`` px in ``language``; back to 390 px and English after."""
    page = site.page
    page.goto(f"{site.url}/lang/{language}")
    try:
        page.set_viewport_size({"width": width, "height": 700})
        yield page
    finally:
        page.set_viewport_size({"width": 390, "height": 844})
        page.goto(f"{site.url}/lang/en")


@pytest.mark.browser
def test_five_players_on_a_small_phone_keep_the_chosen_column_in_view(site: Site) -> None:
    """Five players' scores do not fit 320 px: the table scrolls inside itself, its
    category column stays in place, the chosen player's column (and tab) is brought into
    view clear of the faded edge, and the edge with more columns behind it says so."""
    names = ["Oleksandra", "Bohdan", "Kateryna", "Maximilian", "Yu"]
    table_id = site.create(SV_FORM, names)
    with viewed(site, 320) as page:
        page.goto(f"{site.url}/t/{table_id}?p=3")
        box = page.locator("#breakdown")
        frame = box.bounding_box()
        assert page.evaluate("(b) => b.scrollWidth > b.clientWidth + 40", box.element_handle())
        # Its hidden columns are reachable from the keyboard: the box takes the focus.
        assert (box.get_attribute("tabindex"), box.get_attribute("role")) == ("0", "region")
        assert box.get_attribute("aria-label") == "Scores by category (rows) and player (columns)"
        category = page.locator("#breakdown thead th").first.bounding_box()
        chosen = page.locator("#breakdown thead th.current")
        assert chosen.inner_text() == "Maximilian"
        seen = chosen.bounding_box()
        assert seen["x"] >= category["x"] + category["width"] - 1
        assert seen["x"] + seen["width"] <= frame["x"] + frame["width"]
        assert category["x"] == pytest.approx(frame["x"], abs=1)  # sticky, though scrolled
        assert box.get_attribute("data-more") == "left"  # Yu fits, no faded edge; Anna hidden
        tab = page.locator(".tabs [aria-current=page]").bounding_box()
        assert tab["x"] >= 0 and tab["x"] + tab["width"] <= 320 - 40
        box.evaluate("b => b.scrollTo(0, 0)")
        page.wait_for_function("document.querySelector('#breakdown').dataset.more === 'right'")
        page.goto(f"{site.url}/t/{table_id}?p=0")  # the first player: nothing to bring in
        assert box.evaluate("b => b.scrollLeft") == 0
        assert box.get_attribute("data-more") == "right"
    two = site.create(SV_FORM, ["Anna", "Bo"])
    with viewed(site, 390) as page:
        page.goto(f"{site.url}/t/{two}")
        page.wait_for_selector("#breakdown[data-more='']")
        assert page.locator("#breakdown").get_attribute("tabindex") is None  # nothing hidden


@pytest.mark.browser
def test_a_long_name_wraps_in_its_column_head(site: Site) -> None:
    """A long name takes two lines in its column's head instead of the screen's width."""
    table_id = site.create(SV_FORM, ["Konstantinopolskaya", "Anna", "Bo"])
    with viewed(site, 360) as page:
        page.goto(f"{site.url}/t/{table_id}")
        head = page.locator("#breakdown thead th").nth(1)
        assert "Konstantinopolskaya" in head.inner_text()
        assert head.bounding_box()["width"] <= 7 * 16
        box = page.locator("#breakdown")
        assert page.evaluate("(b) => b.scrollWidth <= b.clientWidth", box.element_handle())


@pytest.mark.browser
def test_a_board_fits_a_phone_turned_sideways(site: Site) -> None:
    """Turned sideways, a phone drew a board as wide as the screen and twice its height;
    every board now fits whole below the palette (the header, on a screen that short,
    scrolls away as on a phone held upright). Spring Meadow's board was left to scroll, 65 px
    squares at 800 x 360 with 3 of its 15 rows in view: a drag that paints ran off the
    screen. Held upright, a phone keeps its squares as they were (30 px at 360 px)."""
    with viewed(site, 740) as page:
        for width in (740, 800):
            page.set_viewport_size({"width": width, "height": 360})
            for screen in ("Sunflower Valley editor", "Harmonies editor", "Spring Meadow editor"):
                page.goto(site.url + site.screens[screen])
                board = page.locator("#editor .board").bounding_box()
                palette = page.locator("#palette").bounding_box()
                header = page.evaluate("getComputedStyle(document.querySelector('.top')).position")
                assert header == "static", screen  # it scrolls away: the board has its room
                assert 200 <= board["height"] <= 360 - palette["height"], (width, screen)
                if screen == "Spring Meadow editor":
                    square = page.locator("#editor .board rect.sq").first.bounding_box()
                    assert 18 <= square["height"] <= 26, width  # 65 px before
                    # Scrolled to the board, all of it is in view below the sticky palette.
                    page.evaluate("(above) => window.scrollTo(0, document.querySelector("
                                  "'#editor .board').getBoundingClientRect().top + scrollY"
                                  " - above)", palette["height"] + 4)  # fmt: skip
                    top = page.locator("#palette").bounding_box()
                    board = page.locator("#editor .board").bounding_box()
                    assert top["y"] + top["height"] <= board["y"] + 1, width
                    assert board["y"] + board["height"] <= 360 + 1, width
        page.set_viewport_size({"width": 360, "height": 800})  # upright: as it was
        page.goto(site.url + site.screens["Spring Meadow editor"])
        square = page.locator("#editor .board rect.sq").first.bounding_box()
        board = page.locator("#editor .board").bounding_box()
        assert square["width"] >= 29 and board["width"] >= 330
        header = page.evaluate("getComputedStyle(document.querySelector('.top')).position")
        assert header == "static"  # as before at 360 px wide
        page.set_viewport_size({"width": 1280, "height": 720})  # a laptop: the header stays
        page.goto(site.url + site.screens["Spring Meadow editor"])
        header = page.evaluate("getComputedStyle(document.querySelector('.top')).position")
        board = page.locator("#editor .board").bounding_box()
        palette = page.locator("#palette").bounding_box()
        assert header == "sticky" and board["height"] <= 720 - 60 - palette["height"]


@pytest.mark.browser
def test_the_results_links_keep_one_row_on_a_phone(site: Site) -> None:
    """The results page's links sit on one scrolling row, as the editor's do ("Big screen"
    had wrapped to a line of its own at 360-390 px)."""
    with viewed(site, 360) as page:
        page.goto(site.url + site.screens["Sunflower Valley results"])
        tops = {round(a.bounding_box()["y"]) for a in page.locator(".tablelinks a").all()}
        assert len(tops) == 1, tops
        assert page.evaluate("document.documentElement.scrollWidth") <= 360


@pytest.mark.browser
def test_seasons_counters_line_up_on_a_phone(site: Site) -> None:
    """Each Seasons counter's box sits at the right of its row, whatever its label's
    length (Ukrainian's longest wraps), so the column of boxes reads as one."""
    with viewed(site, 320, "uk") as page:
        for width in (320, 360, 390, 600):
            page.set_viewport_size({"width": width, "height": 700})
            page.goto(site.url + site.screens["Seasons editor"])
            boxes = [b.bounding_box() for b in page.locator("#counts input[type=number]").all()]
            assert len(boxes) >= 5
            rights = {round(b["x"] + b["width"]) for b in boxes}
            assert len(rights) <= 2, (width, rights)  # one column, or two at 600 px
            card = page.locator("#counts").bounding_box()
            assert max(rights) <= card["x"] + card["width"] + 1, width
            assert page.evaluate("document.documentElement.scrollWidth") <= width


@pytest.mark.browser
@pytest.mark.parametrize("language", ["en", "uk"])
def test_checking_a_paper_sheet_fits_a_small_phone(site: Site, language: str) -> None:
    """The check's table (category, paper, Scorepad and the difference) fits 320 px
    without scrolling: the difference is the point of the page."""
    with viewed(site, 320, language) as page:
        page.goto(site.url + site.screens["check a paper sheet"])
        box = page.locator("#check .scroll")
        assert box.evaluate("b => b.scrollWidth <= b.clientWidth")
        assert page.locator("#check button.diff").count() >= 1
        title = page.locator("#check-title").bounding_box()
        assert title["x"] + title["width"] <= 320


@pytest.mark.browser
def test_a_wide_screen_shows_the_standings_beside_the_board(site: Site) -> None:
    """On a laptop the scores stay in view while tapping: the standings sit to the right
    of the board, their top within the first screen (below it they were under the fold)."""
    with viewed(site, 1280) as page:
        page.goto(site.url + site.screens["Sunflower Valley editor"])
        board = page.locator("#editor svg.board").bounding_box()
        standings = page.locator("#standings").bounding_box()
        assert standings["x"] >= board["x"] + board["width"]
        assert standings["y"] < 400 and standings["x"] + standings["width"] <= 1280
        page.set_viewport_size({"width": 800, "height": 800})  # narrower: below the board
        board = page.locator("#editor svg.board").bounding_box()
        assert page.locator("#standings").bounding_box()["y"] > board["y"] + board["height"]


@pytest.mark.browser
def test_live_breakdown_is_announced_to_screen_readers(site: Site) -> None:
    page = site.page
    page.goto(site.url + site.screens["Sunflower Valley editor"])
    table = page.locator("#breakdown table")
    assert table.locator("caption").count() == 1
    assert table.locator("thead th:not([scope=col])").count() == 0
    assert table.locator("tbody th:not([scope=row])").count() == 0
    region = page.locator("#live-summary")
    assert region.get_attribute("aria-live") == "polite"
    assert page.locator("#editor #live-summary").count() == 0  # survives the editor's swaps
    page.click("#palette input[value=house] + span")
    page.click('#editor [data-q="3"][data-r="3"]')
    page.wait_for_selector('#editor [data-q="3"][data-r="3"][data-item="house"]')
    page.wait_for_function("document.getElementById('live-summary').textContent.length > 0")
    assert re.match(r"Totals: Anna -?\d+, Boris -?\d+\. Leading: ", region.text_content() or "")


@pytest.mark.browser
def test_at_a_larger_table_a_change_says_only_the_totals_it_moved(site: Site) -> None:
    # Anna's sunflower (an area taken, a mountain beside it) moves her total alone, so the
    # four players' totals are not read out again: only hers, and who leads.
    table_id = site.create(SV_FORM, ["Anna", "Boris", "Vera", "Gleb"])
    page = site.page
    page.goto(f"{site.url}/t/{table_id}")
    page.click("#palette input[value=sunflower] + span")
    page.click('#editor [data-q="1"][data-r="0"]')
    page.wait_for_selector('#editor [data-q="1"][data-r="0"][data-item="sunflower"]')
    page.wait_for_function("document.getElementById('live-summary').textContent.length > 0")
    anna = page.evaluate("JSON.parse(document.getElementById('breakdown').dataset.totals)[0]")
    assert anna > 0
    assert page.locator("#live-summary").text_content() == f"Anna {anna}. Leading: Anna."


@pytest.mark.browser
def test_spring_meadow_squares_work_from_the_keyboard(site: Site) -> None:
    page = site.page
    page.goto(site.url + site.screens["Spring Meadow editor"])
    squares = page.locator("#editor [data-drag] [data-row]")
    assert squares.count() == 150
    assert page.locator('#editor [data-drag] [tabindex="0"]').count() == 1  # one tab stop
    page.click("#palette input[value='#'] + span")
    page.focus('#editor [data-row="0"][data-col="0"]')
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowDown")
    focused = page.evaluate(
        "[document.activeElement.dataset.row, document.activeElement.dataset.col]"
    )
    assert focused == ["1", "1"]
    page.keyboard.press("Enter")
    page.wait_for_selector('#editor [data-row="1"][data-col="1"][data-code="#"]')


@pytest.mark.browser
def test_the_keyboard_keeps_its_place_when_the_editor_is_redrawn(site: Site) -> None:
    """Every change redraws the editor; what had the focus (or what Tab moved it to while a
    field was sent) has it again, so the keyboard goes on from there, not from the page."""
    table_id = site.create(SV_FORM, ["Anna", "Boris"])
    page = site.page
    page.goto(f"{site.url}/t/{table_id}")
    page.focus("input[name=residents]")
    page.keyboard.type("4")
    page.keyboard.press("Tab")  # the field is sent; the focus moves on meanwhile
    after = page.evaluate("document.activeElement.outerHTML.slice(0, 60)")
    page.wait_for_selector("input[name=residents][value='4']")
    page.wait_for_timeout(100)  # settled
    assert page.evaluate("document.activeElement.outerHTML.slice(0, 60)") == after != ""
    page.click("#palette input[value='house'] + span")
    page.click('#editor [data-q="0"][data-r="0"]')
    page.wait_for_selector('#editor [data-q="0"][data-r="0"][data-item="house"]')
    undo = "#editor button:has-text('Undo')"
    page.focus(undo)
    page.keyboard.press("Enter")
    page.wait_for_selector('#editor [data-q="0"][data-r="0"][data-item=""]')
    page.wait_for_timeout(100)
    assert page.evaluate("document.activeElement.textContent.trim()") == "Undo"


@pytest.mark.browser
def test_enter_on_the_last_undo_never_turns_into_redo(site: Site) -> None:
    """Undo focused, Enter: the step was undone, Undo became disabled and the focus moved on
    to the next enabled button, Redo, so Enter again redid the step. Undo with nothing left
    is aria-disabled instead: the focus stays on it and Enter again does nothing."""
    table_id = site.create(SV_FORM, ["Anna"])
    page = site.page
    page.goto(f"{site.url}/t/{table_id}")
    page.click("#palette input[value='house'] + span")
    page.click('#editor [data-q="0"][data-r="0"]')
    page.wait_for_selector('#editor [data-q="0"][data-r="0"][data-item="house"]')
    page.focus("#undo")
    page.keyboard.press("Enter")
    page.wait_for_selector('#editor [data-q="0"][data-r="0"][data-item=""]')
    page.wait_for_selector("#undo[aria-disabled=true]")
    page.wait_for_timeout(100)  # settled
    assert page.evaluate("document.activeElement.id") == "undo"
    version = page.get_attribute("#editor", "data-version")
    page.keyboard.press("Enter")  # again: nothing to undo, and nothing redone
    page.wait_for_timeout(500)
    assert page.get_attribute('#editor [data-q="0"][data-r="0"]', "data-item") == ""
    assert page.get_attribute("#editor", "data-version") == version
    assert page.evaluate("document.activeElement.id") == "undo"
    # Redo, pressed on purpose, redoes; the last Redo keeps the focus in the same way.
    page.focus("#redo")
    page.keyboard.press("Enter")
    page.wait_for_selector('#editor [data-q="0"][data-r="0"][data-item="house"]')
    page.wait_for_selector("#redo[aria-disabled=true]")
    page.wait_for_timeout(100)
    assert page.evaluate("document.activeElement.id") == "redo"
    page.keyboard.press("Enter")
    page.wait_for_timeout(500)
    assert page.get_attribute('#editor [data-q="0"][data-r="0"]', "data-item") == "house"


# --- colour is never the only clue (server-rendered, no browser needed) ---------------------


def test_sunflower_valley_areas_have_patterns(client: FlaskClient) -> None:
    html = client.get(f"/t/{new_table(client, SV_FORM, ['Anna'])}").get_data(as_text=True)
    cells = re.findall(r'<g class="cell(?: \w+)*" [^>]*>.*?</g>', html)
    assert len(cells) == len(sv.example_layout()["cells"])
    patterns = {}
    for cell in cells:
        label = re.search(r'aria-label="([^"]+)"', cell)
        assert label, cell  # every hex has a name for screen readers
        if 'data-item="mountain"' in cell:
            assert "g-mountain" in cell
            continue
        area = re.search(r", (\w+): ", label.group(1))
        pattern = re.search(r'fill="url\(#(pat-\w+)\)"', cell)
        assert area and pattern, cell
        patterns.setdefault(area.group(1), set()).add(pattern.group(1))
    assert len(patterns) == 5 and all(len(p) == 1 for p in patterns.values())
    assert len({next(iter(p)) for p in patterns.values()}) == 5  # five different patterns
    for name in {next(iter(p)) for p in patterns.values()}:
        assert f'<pattern id="{name}"' in html


def test_harmonies_tokens_carry_a_glyph(client: FlaskClient) -> None:
    table_id = new_table(client, {"game": "harmonies", "side": "A"}, ["Anna"])
    for tool, q, r in (("brown", 0, 0), ("brown", 0, 0), ("green", 0, 0), ("blue", 1, 0)):
        assert tap(client, table_id, p=0, tool=tool, q=q, r=r).status_code == 200
    html = client.get(f"/t/{table_id}").get_data(as_text=True)
    tree = re.search(r'<g class="cell[^"]*"[^>]*data-stack="brown-brown-green".*?</g>', html, re.S)
    assert tree
    glyphs = re.findall(r'href="#tok-glyph-(\w+)"', tree.group(0))
    assert glyphs == ["brown", "brown", "green"]  # every token, not only the top one
    water = re.search(r'<g class="cell[^"]*"[^>]*data-stack="blue".*?</g>', html, re.S)
    assert water and 'href="#tok-glyph-blue"' in water.group(0)
    for colour in ("blue", "grey", "brown", "green", "yellow", "red"):
        assert f'<symbol id="tok-glyph-{colour}"' in html
        icon = f'<span><svg aria-hidden="true"><use href="#tok-{colour}"/>'
        assert re.search(rf'value="{colour}"( checked)?>{re.escape(icon)}', html)


def test_spring_meadow_states_have_distinct_shapes(client: FlaskClient) -> None:
    form = {"game": "spring-meadow", "layout": "example", "orientation": "vertical"}
    table_id = new_table(client, form, ["Anna"])
    tap(client, table_id, p=0, line=1)
    html = client.get(f"/t/{table_id}").get_data(as_text=True)
    shapes: dict[str, set[str]] = {}
    for code, body in re.findall(r'data-code="(.)"[^>]*>(.*?)</g>', html, re.S):
        drawn = re.sub(r'(x|y|cx|cy|d)="[^"]*"', "", body)  # the shape, not where it is
        shapes.setdefault(code, set()).add(re.sub(r"\s+", " ", drawn).strip())
    assert {"#", ".", "o"} <= set(shapes)
    # Covered squares are grass-patterned, snow is plain, an open burrow is a ring.
    assert all("pat-grass" in s for s in shapes["#"] if "r=" not in s)
    assert all("pat-grass" not in s and "circle" not in s for s in shapes["."])
    assert all('fill="none"' in s for s in shapes["o"])
    for state in ("covered", "cleared", "marmot", "open", "snow"):
        assert f'<symbol id="sq-{state}"' in html and f'href="#sq-{state}"' in html


@pytest.mark.browser
def test_past_tables_show_the_phones_own_time(site: Site, browser: Any) -> None:
    """The server writes times in UTC; the phone shows them in its own zone and language."""
    context = browser.new_context(timezone_id="Asia/Tokyo")
    try:
        context.add_cookies(site.page.context.cookies())  # this phone's tables
        page = context.new_page()
        page.goto(site.url + "/")
        when = page.locator(".tables time").first
        iso = when.get_attribute("datetime")
        assert iso and iso.endswith("Z")
        shown = when.text_content()
        local, utc = (
            page.evaluate(
                "([d, zone]) => new Date(d).toLocaleString(document.documentElement.lang,"
                " {dateStyle: 'medium', timeStyle: 'short', timeZone: zone})",
                [iso, zone],
            )
            for zone in ("Asia/Tokyo", "UTC")
        )
        assert shown == local != utc and "UTC" not in shown
    finally:
        context.close()


def test_a_rail_is_named_by_compass_directions(client: FlaskClient) -> None:
    # The board file numbers a rail's sides 0-5; a screen reader hears where they point on
    # the drawn (flat-top, north up) sheet.
    table_id = new_table(client, SV_FORM, ["Anna"])
    html = tap(client, table_id, p=0, tool="straight", q=0, r=0).get_data(as_text=True)
    cell = re.search(r'<g class="cell(?: \w+)*" [^>]*data-q="0" data-r="0"[^>]*>', html)
    assert cell, html[:500]
    label = re.search(r'aria-label="([^"]+)"', cell.group(0))
    compass = "north|north-east|south-east|south|south-west|north-west"
    place = "column 1, hex 1 from the top"  # where a player finds it: no coordinates
    assert label and re.fullmatch(rf"{place}, \w+: rail from ({compass}) to ({compass})",
                                  label.group(1)), label  # fmt: skip
    client.get("/lang/ru")
    russian = client.get(f"/t/{table_id}").get_data(as_text=True)
    assert re.search(r'aria-label="[^"]*: железная дорога, [а-я-]+ — [а-я-]+"', russian)
