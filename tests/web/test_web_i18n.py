"""Languages: every string of the app and the games' vocabulary in English, Russian, Ukrainian.

The catalogue test extracts the messages from the sources with Babel's Python API (the same
extraction as ``tools/i18n.py``) and fails when a catalogue lacks one, leaves one fuzzy or
empty, or loses a placeholder. The engines' sentences (warnings, tie-breaks, refusals,
reasons) are produced by running the engines, so a new or reworded sentence fails here until
``scorepad/web/vocab.py`` knows its template.
"""

from __future__ import annotations

import ast
import copy
import itertools
import json
import re
from collections.abc import Iterator
from dataclasses import replace
from html import unescape
from pathlib import Path
from typing import Annotated, Any

import pytest
import scripts
from babel.messages.mofile import read_mo
from flask import Flask
from flask.testing import FlaskClient
from pydantic import Field, create_model
from webhelpers import HX, SV_FORM, new_table, stored_doc, tap

from scorepad import games
from scorepad.boardfile import BoardError, Model, loads, validate
from scorepad.games import harmonies as hm
from scorepad.games import seasons as ss
from scorepad.games import spring_meadow as sm
from scorepad.games import sunflower_valley as sv
from scorepad.hexgrid import column_places
from scorepad.vision import recognize as rec
from scorepad.web import vocab
from scorepad.web.boards import place_name

#: Translations do not depend on the database: SQLite alone (conftest).
pytestmark = pytest.mark.sqlite_only

ROOT = Path(__file__).resolve().parents[2]
LANGS = ("ru", "uk")


tool = scripts.load("tools/i18n.py", "scorepad_i18n_tool")


@pytest.fixture(scope="module")
def template() -> Any:
    return tool.extract()


def page(client: FlaskClient, url: str, lang: str, **kw: Any) -> str:
    resp = client.get(url, headers={"Accept-Language": lang, **kw.pop("headers", {})}, **kw)
    assert resp.status_code == 200, (url, resp.status_code)
    return resp.get_data(as_text=True)


# --- the catalogues ---------------------------------------------------------------------------


def test_extraction_finds_the_templates_and_the_python_strings(template: Any) -> None:
    ids = {m.id for m in template}
    assert "Show why" in ids  # a template
    assert "Pick a drawing from the palette first." in ids  # a board kit
    assert "A. Houses with sheep" in ids  # the games' vocabulary
    assert ("%(num)d note", "%(num)d notes") in ids  # a plural
    assert template.get("blue", "area") is not None and template.get("blue", "token") is not None


@pytest.mark.parametrize("lang", LANGS)
def test_every_string_is_translated(lang: str, template: Any) -> None:
    problems = tool.problems(lang, template)
    assert not problems, "\n".join(problems[:40]) + f"\n({len(problems)} in all)"


_PLACEHOLDER = re.compile(r"%\((\w+)\)[sd]")


@pytest.mark.parametrize("lang", LANGS)
def test_translations_keep_every_placeholder_and_tag(lang: str) -> None:
    wrong = []
    for m in tool.read(lang):
        if not m.id:
            continue
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        want = set(_PLACEHOLDER.findall(ids[-1]))
        tags = sorted(re.findall(r"</?\w+", ids[0]))
        for s in strings:
            if not s:
                continue  # reported by test_every_string_is_translated
            if set(_PLACEHOLDER.findall(s)) != want or sorted(re.findall(r"</?\w+", s)) != tags:
                wrong.append(f"{m.id!r} -> {s!r}")
            if '"' in s and '"' not in ids[0]:
                wrong.append(f"{s!r}: a double quote would end an HTML attribute")
            if re.search(r"%\(\w+\)s-[а-яіїєґ]", s):  # "1-е место" broke after "1-" on a phone
                wrong.append(f"{s!r}: a number's ending needs the non-breaking hyphen (U+2011)")
    assert not wrong, "\n".join(wrong)


def _key(message: Any) -> tuple[Any, ...]:
    return (message.context, _text(message.id))


def _text(value: Any) -> Any:
    return tuple(value) if isinstance(value, list | tuple) else value


def _filled(value: Any) -> bool:
    return all(value) if isinstance(value, list | tuple) else bool(value)


@pytest.mark.parametrize("lang", LANGS)
def test_compiled_catalogues_match_their_po_files(lang: str) -> None:
    """The app reads the ``.mo`` files: they must be the compiled ``.po`` (tools/i18n.py)."""
    mo = tool.po_path(lang).with_suffix(".mo")
    with mo.open("rb") as f:
        compiled = {_key(m): _text(m.string) for m in read_mo(f) if m.id}
    source = {
        _key(m): _text(m.string)
        for m in tool.read(lang)
        if m.id and not m.fuzzy and _filled(m.string)
    }
    assert compiled == source, "run `.venv/bin/python tools/i18n.py compile`"


#: Words a template may show as they are: names, abbreviations, entities.
NOT_WORDS = {"Scorepad", "CSV", "PNG", "QR", "JSON", "UTC", "nbsp", "middot", "times", "rarr"}
SHOWN_ATTRIBUTES = r'\b(?:aria-label|placeholder|title|alt|hx-confirm|data-copied|label)="([^"]*)"'


def test_templates_show_no_unwrapped_english() -> None:
    """Text a template shows (or reads out) outside ``{{ _(...) }}`` would stay English."""
    found = {}
    for path in sorted((ROOT / "templates").rglob("*.html")):
        text = path.read_text(encoding="utf-8")
        for pattern in (
            r"(?s){#.*?#}",
            r"(?s){%.*?%}",
            r"(?s){{.*?}}",
            r"(?s)<(script|style)\b.*?</\1>",
        ):
            text = re.sub(pattern, " ", text)
        shown = [*re.findall(SHOWN_ATTRIBUTES, text), re.sub(r"(?s)<[^>]+>", " ", text)]
        words = [w for part in shown for w in re.findall(r"[A-Za-z]{2,}", part)]
        words = [w for w in words if w not in NOT_WORDS]
        if words:
            found[str(path.relative_to(ROOT))] = words[:8]
    assert not found, found


# --- choosing the language --------------------------------------------------------------------


#: The longest option a select on a 360 px phone shows whole (Harmonies' Russian "side B",
#: 30 characters, just fits; the labels cut off were 34 to 45 long).
OPTION_CHARS = 30


@pytest.mark.parametrize("lang", ("en", *LANGS))
def test_a_new_tables_options_fit_a_phones_select(client: FlaskClient, lang: str) -> None:
    """A select shows only the chosen option: an explanation in it was cut off on a phone
    (the example layouts' names, the orientations, the kids' variant), so it stands under
    the select and the options stay short."""
    long = {}
    for name in games.available():
        html = page(client, f"/new?game={name}", lang)
        for option in re.findall(r"<option[^>]*>([^<]*)</option>", html):
            if len(unescape(option)) > OPTION_CHARS:
                long[name] = unescape(option)
    assert not long, long
    example = {  # the start of the example layout's name (as the layouts screen lists it)
        "sunflower-valley": {"en": "Example sheet", "ru": "Пример листа", "uk": "Приклад аркуша"},
        "spring-meadow": {
            "en": "Example layout",
            "ru": "Пример раскладки",
            "uk": "Приклад розкладки",
        },
    }
    for name, label in example.items():
        assert f">{label[lang]}</option>" in page(client, f"/new?game={name}", lang)
        assert f"{label[lang]} (" in page(client, "/layouts", lang)


def test_the_browser_language_is_used(client: FlaskClient) -> None:
    english = page(client, "/", "en-GB,en;q=0.9")
    assert '<html lang="en"' in english and "Past tables" in english
    russian = page(client, "/", "ru-RU,ru;q=0.9,en;q=0.5")
    assert '<html lang="ru"' in russian and "Прошлые столы" in russian
    assert "Past tables" not in russian
    ukrainian = page(client, "/", "uk,ru;q=0.8")
    assert '<html lang="uk"' in ukrainian and "Минулі столи" in ukrainian
    fallback = page(client, "/", "de-DE,fr;q=0.8")
    assert '<html lang="en"' in fallback
    resp = client.get("/", headers={"Accept-Language": "ru"})
    assert "Accept-Language" in resp.headers["Vary"]


def test_the_switcher_remembers_the_choice_in_a_cookie(client: FlaskClient) -> None:
    html = page(client, "/new", "ru")
    for code, name in (("en", "English"), ("ru", "Русский"), ("uk", "Українська")):
        assert f'href="/lang/{code}" lang="{code}"' in html and name in html
    resp = client.get("/lang/uk?next=/new", headers={"Accept-Language": "ru"})
    assert resp.status_code == 303 and resp.headers["Location"].endswith("/new")
    assert "lang=uk" in resp.headers["Set-Cookie"]
    # The cookie wins over the browser's language from then on.
    html = page(client, "/new", "ru")
    assert '<html lang="uk"' in html and "Новий стіл" in html
    client.get("/lang/en")
    assert '<html lang="en"' in page(client, "/new", "ru")


def test_the_switcher_goes_back_only_within_the_site(client: FlaskClient) -> None:
    for target in ("https://evil.example/", "//evil.example/x", "/\\evil.example", "javascript:x"):
        resp = client.get("/lang/ru", query_string={"next": target})
        assert resp.headers["Location"] in ("/", "http://localhost/"), target
    resp = client.get("/lang/ru", headers={"Referer": "http://localhost/layouts?x=1"})
    assert resp.headers["Location"].endswith("/layouts?x=1")
    resp = client.get("/lang/ru", headers={"Referer": "https://evil.example/layouts"})
    assert resp.headers["Location"] in ("/", "http://localhost/")
    resp = client.get("/lang/xx")
    assert resp.status_code == 303 and "Set-Cookie" not in resp.headers


# --- key pages in Russian and Ukrainian -------------------------------------------------------

#: Words that must not be left in English on a translated page (visible text only).
ENGLISH = ("Undo", "Redo", "Show why", "Total", "Rank", "Results", "Past tables", "Palette")

EXPECTED = {
    "ru": {
        "new": ["Новый стол", "Игроки по порядку мест", "Начать стол", "Солнечная долина"],
        "sv": ["А. Дома с овцами", "Е. Долинный экспресс", "Итого", "Отменить", "Дом", "Овца"],
        "hm": ["Деревья", "Карты животных", "Снять верхний", "Синий"],
        "sm": ["Полные ряды", "Очищенная нора", "Сурок", "Тайл пикника"],
        "ss": ["Кристаллы", "Карты в руке", "Жетон способности"],
        "results": [
            "Солнечная долина: Anna и Boris делят победу",
            "Победител",
            "Почему у каждого столько очков",
            "Больше всех подсолнухов (В)",
        ],
        "layouts": ["Раскладки", "Новая раскладка", "Создать и раскрасить"],
    },
    "uk": {
        "new": ["Новий стіл", "Гравці за порядком місць", "Почати стіл", "Сонячна долина"],
        "sv": ["А. Будинки з вівцями", "Е. Долинний експрес", "Разом", "Скасувати", "Будинок"],
        "hm": ["Дерева", "Карти тварин", "Зняти верхній", "Синій"],
        "sm": ["Повні ряди", "Очищена нора", "Бабак", "Тайл пікніка"],
        "ss": ["Кристали", "Карти в руці", "Жетон здібності"],
        "results": [
            "Сонячна долина: Anna та Boris ділять перемогу",
            "Перемож",
            "Чому в кожного стільки очок",
            "Найбільше соняшників (В)",
        ],
        "layouts": ["Розкладки", "Нова розкладка", "Створити й розфарбувати"],
    },
}


def visible_text(html: str) -> str:
    """The page's text without tags, attributes, scripts and the hidden sprite sheet."""
    html = re.sub(r"(?s)<(script|style|svg)\b.*?</\1>", " ", html)
    return unescape(re.sub(r"<[^>]+>", " ", html))


@pytest.mark.parametrize("lang", LANGS)
def test_key_pages_are_translated(client: FlaskClient, lang: str) -> None:
    want = EXPECTED[lang]
    tables = {
        "sv": new_table(client, SV_FORM, ["Anna", "Boris"]),
        "hm": new_table(client, {"game": "harmonies", "side": "A"}, ["Anna", "Boris"]),
        "sm": new_table(
            client,
            {"game": "spring-meadow", "layout": "example", "orientation": "vertical"},
            ["Anna", "Boris"],
        ),
        "ss": new_table(client, {"game": "seasons"}, ["Anna", "Boris"]),
    }
    pages = {"new": page(client, "/new", lang), "layouts": page(client, "/layouts", lang)}
    pages |= {key: page(client, f"/t/{table_id}", lang) for key, table_id in tables.items()}
    client.post(f"/t/{tables['sv']}/finish")  # a finished table names its winners
    pages["results"] = page(client, f"/t/{tables['sv']}/results", lang)
    for key, words in want.items():
        text = visible_text(pages[key])
        missing = [w for w in words if w not in text]
        assert not missing, (key, missing)
        english = [w for w in ENGLISH if re.search(rf"\b{re.escape(w)}\b", text)]
        assert not english, (key, english)
    # Screen-reader labels are translated too (SVG hexes, squares).
    first = "столбец 1, гекс 1 сверху" if lang == "ru" else "стовпець 1, гекс 1 згори"
    assert first in pages["sv"]
    assert ("линия 15, клетка 1 слева" if lang == "ru" else "лінія 15, клітинка 1 зліва") in (
        pages["sm"]
    )


def test_htmx_fragments_and_refusals_are_translated(app: Flask, client: FlaskClient) -> None:
    table_id = new_table(client, {"game": "harmonies", "side": "A"}, ["Anna"])
    tap(client, table_id, p=0, tool="red", q=0, r=0)
    resp = client.post(
        f"/t/{table_id}/tap",
        data={"p": "0", "tool": "green", "q": "0", "r": "0"},
        headers={**HX, "Accept-Language": "ru"},
    )
    assert resp.status_code == 422
    html = resp.get_data(as_text=True)
    # "green cannot go on red: only red may lie on red", from the engine, in Russian
    assert "Зелёный нельзя положить на красный: на красный можно класть только: красный." in html
    assert stored_doc(app, table_id)["players"][0]["cells"][0]["stack"] == ["red"]
    resp = client.post(
        f"/t/{table_id}/tap",
        data={"p": "0", "tool": "", "q": "0", "r": "0"},
        headers={**HX, "Accept-Language": "uk"},
    )
    assert "Спершу виберіть колір жетона" in resp.get_data(as_text=True)


# --- the games' vocabulary --------------------------------------------------------------------


def test_a_negative_score_takes_the_plural_of_its_size(client: FlaskClient) -> None:
    # Russian plurals follow the number's last digits: -2 is "очка" like 2, not "очков".
    players = [
        {"name": "Anna", "crystals": 3, "bonuses_used": 1},  # 3 - 5 = -2
        {"name": "Boris", "crystals": 21},
    ]
    doc = {"game": "seasons", "players": players}
    resp = client.post("/import", data={"text": json.dumps(doc)})
    assert resp.status_code == 303
    results = resp.headers["Location"] + "/results"
    html = client.get(results, headers={"Accept-Language": "ru"}).get_data(as_text=True)
    assert "Anna — -2 очка, место 2" in html and "Boris — 21 очко, место 1" in html


@pytest.fixture
def russian(app: Flask) -> Iterator[None]:
    with app.test_request_context(headers={"Accept-Language": "ru"}):
        yield


def test_headlines_tiebreaks_and_plurals_in_russian(app: Flask) -> None:
    example = json.loads((EXAMPLES / "sunflower-valley.json").read_text())
    result = games.score_text(json.dumps(example))  # Vera 32 over Anna 32 on sunflowers
    alone = games.score_text(json.dumps({**example, "players": example["players"][:1]}))
    nobody = games.score_text(
        json.dumps({"game": "seasons", "players": [{"name": n, "crystals": 0} for n in "AB"]})
    )
    with app.test_request_context(headers={"Accept-Language": "ru"}):
        assert vocab.headline(result, False) == "Солнечная долина: лидирует Vera, очков: 32"
        assert vocab.headline(result, True) == "Солнечная долина: побеждает Vera, очков: 32"
        assert vocab.headline(alone, False) == "Солнечная долина: Anna набирает очков: 43 (соло)"
        assert vocab.headline(nobody, False) == "Сезоны: очков пока нет"
        assert vocab.tiebreak_line(result.tiebreaks[0]).startswith(
            "Разрешение: ничья при счёте 32: Vera — выше, чем Anna, по показателю"
        )
        recap = vocab.recap(result, False)
        assert recap.startswith("Солнечная долина: лидирует") and "— выше, чем" in recap
        kids = replace(result, extra={**result.extra, "variant": "kids"})
        assert "\nВариант: Детский\n" in vocab.recap(kids, False)
        words = vocab.words()  # a negative number takes the form of its size
        assert words.ngettext("%(num)d point", "%(num)d points", -2) == "-2 очка"
        assert words.ngettext("%(num)d point", "%(num)d points", -1) == "-1 очко"
        assert vocab.joined(["A", "B", "C"]) == "A, B и C" and vocab.joined(["A"]) == "A"
    with app.test_request_context():
        assert vocab.words().ngettext("%(num)d point", "%(num)d points", -1) == "-1 point"
        assert vocab.headline(result, False) == "Sunflower Valley: Vera leads with 32 points"


def test_a_counted_seasons_reason_takes_the_form_for_its_count(app: Flask) -> None:
    """Ragfield's Helm with one card in play read "1 cards in play" (and Russian sidestepped
    the count, "карт в игре: 1"): each language now has the form for the count."""
    boris = {"name": "Boris", "crystals": 0, "cards_in_play": [ss.RAGFIELDS_HELM]}
    anna = {**boris, "name": "Anna", "cards_in_play": [ss.RAGFIELDS_HELM, 45]}
    result = ss.GAME.score(ss.GAME.parse({"game": "seasons", "players": [anna, boris]}))
    helm = {p.name: p.details["end_of_game"][0]["why"] for p in result.players}
    assert helm == {
        "Anna": "2 cards in play, more than each opponent (Boris 1)",
        "Boris": "1 card in play, not more than Anna 2",
    }
    alone = "{} in play and no opponent"
    expected = {
        "en": ["1 card", "2 cards", "5 cards", "21 cards"],
        "ru": ["1 карта в игре", "2 карты в игре", "5 карт в игре", "21 карта в игре"],
        "uk": ["1 карта в грі", "2 карти в грі", "5 карт у грі", "21 карта в грі"],
    }
    for language, forms in expected.items():
        with app.test_request_context(headers={"Accept-Language": language}):
            said = [
                vocab.sentence(alone.format(f"{n} card" if n == 1 else f"{n} cards"))
                for n in (1, 2, 5, 21)
            ]
            assert [s.split(",")[0].replace(" and no opponent", "") for s in said] == [
                f if language != "en" else f"{f} in play" for f in forms
            ], language
            if language == "ru":
                assert vocab.sentence(helm["Boris"]) == "1 карта в игре, не больше, чем у: Anna 2"


def test_counted_harmonies_and_sunflower_valley_warnings_take_the_form_for_their_count(
    app: Flask,
) -> None:
    """The warnings said "1 cube(s)", "1 token(s)", "1 area(s) of 1 hexes and 0 mountain(s)"
    (Russian and Ukrainian "кубиков: 1"): each count now has its own form."""
    tokens = "player 'Anna': {} on the board, but every turn places 3: check the stacks' heights"
    said = {n: tokens.format(f"{n} token" if n == 1 else f"{n} tokens") for n in (1, 2, 5)}
    expected = {
        "ru": ("1 жетон на доске", "2 жетона на доске", "5 жетонов на доске"),
        "uk": ("1 жетон на дошці", "2 жетони на дошці", "5 жетонів на дошці"),
    }
    for language, forms in expected.items():
        with app.test_request_context(headers={"Accept-Language": language}):
            for n, form in zip((1, 2, 5), forms, strict=True):
                assert form in vocab.sentence(said[n]), (language, n)
    card = "player 'Anna', animal card 6 (track 2-4-8-13): "
    shape = "the sheet layout has {}; printed sheets have 5 areas of 5 hexes and 5 mountains"
    with app.test_request_context(headers={"Accept-Language": "ru"}):
        assert vocab.sentence(
            card + "2 cubes claimed, but only 1 hex with a cube matches its "
            "pattern: (1, 0); 5 hexes without a cube match it too"
        ) == (
            "игрок 'Anna', карта животного 6 (шкала 2-4-8-13): заявлено 2 кубика, но её узору "
            "соответствует только 1 гекс с кубиком: (1, 0); ему соответствует ещё 5 гексов "
            "без кубика"
        )
        assert vocab.sentence(
            "player 'Anna': 1 cube on the board, but the cards claim 0 "
            "(animal cubes plus a placed spirit)"
        ).startswith("игрок 'Anna': 1 кубик на доске, а по картам: 0")
        assert vocab.sentence(shape.format("1 area (size 1) and no mountains")) == (
            "на раскладке листа 1 область (размер 1) и нет гор; на печатных листах 5 областей по "
            "5 гексов и 5 гор"
        )
        assert vocab.sentence(shape.format("2 areas (sizes 1/2) and 5 mountains")).startswith(
            "на раскладке листа 2 области (размеры 1/2) и 5 гор;"
        )
    with app.test_request_context(headers={"Accept-Language": "uk"}):
        assert vocab.sentence(shape.format("no colour areas and 1 mountain")).startswith(
            "на розкладці аркуша немає кольорових областей і 1 гора;"
        )


def test_counted_spring_meadow_sentences_take_the_form_for_their_count(app: Flask) -> None:
    """A layout with one burrow, a board of one row or a row of one square read "1 burrows",
    "1 rows", "1 squares" (Russian and Ukrainian sidestepped the count, "нор: 1"); the solo
    warning's two counts each agree ("1 solo value written down but 2 rows are complete")."""
    burrows = "layout 'X' has {}; every printed board side has 11"
    rows = "player 'Anna': {}; a vertical board has 15 rows of 10 squares"
    squares = "player 'Anna', row 3: {}; a horizontal board row has 15"
    solo = "player 'Anna': {} but {}; one value is written per completed row"
    columns = "player 'Anna': {} but {}; one value is written per completed column"
    english = {
        1: ("1 burrow", "1 row", "1 square", "1 solo value written down", "1 row is complete"),
        2: (
            "2 burrows",
            "2 rows",
            "2 squares",
            "2 solo values written down",
            "2 rows are complete",
        ),
        5: (
            "5 burrows",
            "5 rows",
            "5 squares",
            "5 solo values written down",
            "5 rows are complete",
        ),
    }
    said = {
        n: (
            burrows.format(b),
            rows.format(r),
            squares.format(q),
            solo.format(v, f"{c} from the bottom"),
            columns.format(v, c.replace("row", "column") + " from the left"),
        )
        for n, (b, r, q, v, c) in english.items()
    }
    expected = {
        "ru": {
            1: ("1 нора;", "1 ряд;", "1 клетка;", "записано 1 значение, а снизу закрыт 1 ряд;"),
            2: ("2 норы;", "2 ряда;", "2 клетки;", "записано 2 значения, а снизу закрыто 2 ряда;"),
            5: ("5 нор;", "5 рядов;", "5 клеток;", "записано 5 значений, а снизу закрыто 5 рядов;"),
        },
        "uk": {
            1: ("1 нора;", "1 ряд;", "1 клітинка;", "записано 1 значення, а знизу закрито 1 ряд;"),
            2: (
                "2 нори;",
                "2 ряди;",
                "2 клітинки;",
                "записано 2 значення, а знизу закрито 2 ряди;",
            ),
            5: (
                "5 нір;",
                "5 рядів;",
                "5 клітинок;",
                "записано 5 значень, а знизу закрито 5 рядів;",
            ),
        },
    }
    for language, by_count in expected.items():
        with app.test_request_context(headers={"Accept-Language": language}):
            for n, forms in by_count.items():
                for english_text, form in zip(said[n], forms, strict=False):
                    translated = vocab.sentence(english_text)
                    assert form in translated and translated != english_text, (language, n)
    with app.test_request_context(headers={"Accept-Language": "ru"}):
        assert vocab.sentence(said[1][0]) == (
            "в раскладке 'X' 1 нора; на каждой стороне печатного планшета их 11"
        )
        assert vocab.sentence(said[1][2]) == (
            "игрок 'Anna', ряд 3: 1 клетка; в ряду горизонтального поля их 15"
        )
        assert vocab.sentence(said[2][4]) == (
            "игрок 'Anna': записано 2 значения, а слева закрыто 2 столбца; за каждый закрытый "
            "столбец записывается одно значение"
        )
    with app.test_request_context(headers={"Accept-Language": "en"}):
        assert vocab.sentence(said[1][3]) == said[1][3]


def test_pydantic_lengths_are_translated_in_the_form_for_their_count(app: Flask) -> None:
    """pydantic says "at least 1 item", "at least 1 character": only "items" was a template,
    so one item (or a layout's empty name) stayed in English under Russian and Ukrainian."""

    def problem(minimum: int, maximum: int, items: int) -> str:
        sized = Annotated[list[int], Field(min_length=minimum, max_length=maximum)]
        Sized = create_model("Sized", __base__=Model, cells=(sized, ...))
        with pytest.raises(BoardError) as caught:
            validate(Sized, {"cells": list(range(items))})
        (said,) = caught.value.problems
        return said

    said = {n: problem(n, 10, 0) for n in (1, 2, 5)}
    assert said[1] == "'cells': list should have at least 1 item after validation, not 0"
    assert said[5] == "'cells': list should have at least 5 items after validation, not 0"
    at_most = problem(0, 1, 3)
    assert at_most == "'cells': list should have at most 1 item after validation, not 3"
    with pytest.raises(BoardError) as caught:
        sv.parse_layout({"name": "", "cells": []})
    (empty_name,) = caught.value.problems
    assert empty_name == "'name': string should have at least 1 character"
    expected = {
        "ru": ("1 элемента, а не 0", "2 элементов, а не 0", "5 элементов, а не 0"),
        "uk": ("1 елемента, а не 0", "2 елементів, а не 0", "5 елементів, а не 0"),
    }
    for language, forms in expected.items():
        with app.test_request_context(headers={"Accept-Language": language}):
            for n, form in zip((1, 2, 5), forms, strict=True):
                assert vocab.sentence(said[n]).endswith(form), (language, n)
    with app.test_request_context(headers={"Accept-Language": "ru"}):
        assert vocab.sentence(said[1]) == (
            "'cells': список должен содержать не меньше 1 элемента, а не 0"
        )
        assert vocab.sentence(at_most) == (
            "'cells': список должен содержать не больше 1 элемента, а не 3"
        )
        assert vocab.sentence(empty_name) == "'name': текст должен содержать не меньше 1 символа"
    with app.test_request_context(headers={"Accept-Language": "uk"}):
        assert vocab.sentence(empty_name) == "'name': текст має містити не менше 1 символу"


def test_a_rail_with_too_few_sides_names_the_missing_item(app: Flask) -> None:
    """'sides': [1] read "missing required key 1" (Russian "нет обязательного ключа 1"): a
    pair's missing item is no key."""

    def problems(sides: list[int]) -> list[str]:
        cells = sv.blank_sheet(sv.example_layout())
        cells[0] = {**cells[0], "item": "rail", "sides": sides}
        with pytest.raises(BoardError) as caught:
            sv.GAME.parse({"game": "sunflower-valley", "players": [{"name": "A", "cells": cells}]})
        return caught.value.problems

    where = "player 'A', cell (0, 0), 'sides': "
    assert problems([1]) == [where + "missing item 2"]
    assert problems([]) == [where + "missing item 1", where + "missing item 2"]
    with app.test_request_context(headers={"Accept-Language": "ru"}):
        assert vocab.sentence(where + "missing item 2") == (
            "игрок 'A', гекс (0, 0), 'sides': нет элемента 2"
        )


def test_every_engine_term_has_a_translation(russian: None) -> None:
    terms = [label for name in games.available() for label in games.get(name).categories.values()]
    terms += [g.title for g in (games.get(n) for n in games.available())]
    terms += list(sm.SQUARE_CODES.values())
    terms += [vocab.card_name(card.names[0]) for card in hm.ANIMAL_CARDS.values()]
    terms += list(hm.SPIRIT_CARDS.values())
    terms += sorted({c.type for c in ss.CARDS.values()} | {c.set for c in ss.CARDS.values()})
    terms += ["adjacent", "herd", "settlement", "railway", "houses", "sunflowers", "residents"]
    terms += ["still tied", "rows from the bottom", "columns from the left", "Replica"]
    terms += [sv.example_layout()["name"], sm.example_layout().name]
    untranslated = [t for t in terms if vocab.term(t) == t]
    assert not untranslated
    colours = [vocab.term(c, "token") for c in hm.COLOURS]
    assert colours == ["синий", "серый", "коричневый", "зелёный", "жёлтый", "красный"]
    assert [vocab.term(a, "area") for a in ("blue", "purple")] == ["синяя", "фиолетовая"]
    assert vocab.term("Anna") == "Anna"  # a player's name is never translated


def test_every_harmonies_stack_refusal_is_translated(russian: None) -> None:
    """Every illegal token on every legal stack: the engine's sentence, translated whole."""
    refusals = set()
    for stack in [(), *hm.LEGAL_STACKS]:
        for colour in hm.COLOURS:
            try:
                hm.place_token(stack, colour)
            except ValueError as err:
                refusals.add(str(err))
    stacks = itertools.chain.from_iterable(
        itertools.product(hm.COLOURS, repeat=n) for n in (1, 2, 3)
    )
    refusals |= {hm.stack_problem(s) for s in stacks if not hm.is_legal_stack(s)}
    assert len(refusals) > 20
    not_understood = [r for r in refusals if not vocab.understood(r)]
    assert not not_understood, not_understood[:5]
    for r in refusals:
        assert not re.search(r"\b(cannot|may|lie|only|nothing|empty)\b", vocab.sentence(r)), r


def _sv_table(
    sheets: list[list[tuple[int, int, str]]], layout: dict[str, Any] | None = None, **player: Any
) -> dict[str, Any]:
    layout = layout or sv.example_layout()
    players = []
    for i, drawn in enumerate(sheets):
        cells = sv.blank_sheet(layout)
        for q, r, item in drawn:
            next(c for c in cells if (c["q"], c["r"]) == (q, r))["item"] = item
        players.append({"name": f"P{i + 1}", "cells": cells, **player})
    return {"game": "sunflower-valley", "players": players}


def _problems(parse: Any, doc: Any) -> list[str]:
    try:
        parse(doc)
    except BoardError as err:
        return err.problems
    raise AssertionError("expected a BoardError")


def _sunflower_valley() -> list[str]:
    """Empty sheets (ties on every tie-break), a tally that disagrees, an odd layout."""
    doc = _sv_table([[], []], residents=3)
    result = sv.GAME.score(sv.GAME.parse(doc))
    found = [*result.warnings, *result.tiebreaks]
    free = [c for c in doc["players"][0]["cells"] if not c.get("mountain")]
    one_house = _sv_table([[(free[0]["q"], free[0]["r"], "house")], []])
    found += sv.GAME.score(sv.GAME.parse(one_house)).tiebreaks
    blue = [c for c in sv.example_layout()["cells"] if c.get("area") == "blue"]
    odd = _sv_table([[]], layout={"name": "odd", "cells": blue})
    found += sv.GAME.score(sv.GAME.parse(odd)).warnings
    found += _problems(sv.parse_layout, {"name": "X", "cells": []})
    return found


def _harmonies() -> list[str]:
    """Empty boards with a claimed cube, one with a single token; a cube on an empty hex."""
    cells = [{"q": h.q, "r": h.r, "stack": []} for h in hm.board_hexes("A")]
    anna = {"name": "Anna", "cells": cells, "animals": [{"card": 3, "cubes": 1}]}
    one = [{**cells[0], "stack": ["blue"]}, *cells[1:]]
    doc = {
        "game": "harmonies",
        "options": {"side": "A"},
        "players": [anna, {"name": "Boris", "cells": one, "animals": []}],
    }
    result = hm.GAME.score(hm.GAME.parse(doc))
    cubed = {**anna, "cells": [{**cells[0], "cube": True}, *cells[1:]]}
    return [
        *result.warnings,
        *result.tiebreaks,
        *_problems(hm.GAME.parse, {**doc, "players": [cubed]}),
    ]


def _spring_meadow() -> list[str]:
    """Burrows covered without marmots, no active player, a phase that uncovers squares."""
    layout = sm.example_layout()
    rows = [list(r) for r in sm.empty_board("vertical", layout)]
    for r, c in layout.burrows:
        rows[r][c] = "#"
    anna = {
        "name": "Anna",
        "orientation": "vertical",
        "layout": layout.name,
        "rows": ["".join(r) for r in rows],
    }
    boris = {**anna, "name": "Boris"}
    doc = {
        "game": "spring-meadow",
        "options": {"layouts": [sm.dump_layout(layout)]},
        "players": [anna, boris],
    }
    result = sm.GAME.score(sm.GAME.parse(doc))
    found = [*result.warnings, *result.tiebreaks]
    active = {**doc, "options": {**doc["options"], "active": "Anna"}}
    found += sm.GAME.score(sm.GAME.parse(active)).tiebreaks
    undone = {**doc, "players": [{**anna, "rows": list(sm.empty_board("vertical", layout))}, boris]}
    found += _problems(sm.score_game, [doc, undone])
    found += sm.layout_warnings(sm.parse_layout({"name": "L", "rows": ["." * 10] * 15}))
    return found


def _seasons() -> list[str]:
    """One player alone, then two: every end-of-game effect with its reason, the hand."""
    anna = {
        "name": "Anna",
        "crystals": 10,
        "bonuses_used": 0,
        "cards_in_hand": 2,
        "energy_in_reserve": 2,
        "jewel_energy": 4,
        "replicas": 1,
        "ability_token": None,
        "cards_in_play": [
            ss.RAGFIELDS_HELM,
            ss.LANTERN_OF_XIDIT,
            ss.SEALED_CHEST_OF_URM,
            ss.JEWEL_OF_THE_ANCIENTS,
            ss.JEWEL_OF_THE_ANCIENTS,
            ss.IOS_MINION,
        ],
    }
    boris = {**anna, "name": "Boris", "jewel_energy": 0, "ability_token": 5, "replicas": 0}
    boris["cards_in_play"] = [ss.RAGFIELDS_HELM]
    found: list[str] = []
    for players in ([anna], [anna, boris], [boris, {**boris, "name": "Vera"}]):
        result = ss.GAME.score(ss.GAME.parse({"game": "seasons", "players": players}))
        found += [*result.warnings, *result.tiebreaks]
        for p in result.players:
            found += [e["why"] for e in p.details["end_of_game"]]
            found.append(p.details["cards_in_hand"]["why"])
    return found


def engine_sentences() -> list[str]:
    """Warnings, tie-breaks, refusals and reasons the engines really produce."""
    found = _sunflower_valley() + _harmonies() + _spring_meadow() + _seasons()
    return [s for s in found if s]


def test_engine_warnings_tiebreaks_and_reasons_are_translated(russian: None) -> None:
    sentences = engine_sentences()
    assert len(sentences) >= 15
    kinds = " ".join(sentences)
    assert "tied on" in kinds and "empty hex" in kinds and "energy" in kinds
    assert "every turn places 3" in kinds
    not_understood = [s for s in sentences if not vocab.understood(s)]
    assert not not_understood, not_understood
    for s in sentences:
        translated = vocab.sentence(s)
        english = re.findall(r"\b(the|and|on|of|in|but|per|player|tied|ahead)\b", translated)
        assert not english, (s, translated)


EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def board_file_problems() -> list[str]:
    """What is wrong with bad board files, as the import screen lists it: each game's
    example with one value (for each of its keys and first items) replaced by a wrong kind
    of value or left out, an unknown key added, and files that are not JSON at all."""
    found: set[str] = set()

    def problems(game: str, text: str | Any) -> None:
        try:
            games.get(game).parse(loads(text) if isinstance(text, str) else text)
        except BoardError as err:
            found.update(err.problems)

    def paths(node: Any, path: list[Any]) -> Iterator[list[Any]]:
        yield path
        if isinstance(node, dict):
            children: Any = node.items()
        elif isinstance(node, list):
            children = enumerate(node[:2])
        else:
            return
        for key, child in children:
            yield from paths(child, [*path, key])

    for game in games.available():
        example = json.loads((EXAMPLES / f"{game}.json").read_text())
        for path in itertools.islice(paths(example, []), 1, 300):
            for bad in (
                "x",
                "",
                -7,
                1.5,
                [],
                [0, 1],
                [2, 2],
                [0, 1, 2],
                {},
                None,
                10**6,
                True,
                ...,
            ):
                doc = copy.deepcopy(example)
                parent = doc
                for key in path[:-1]:
                    parent = parent[key]
                if bad is ...:
                    if not isinstance(parent, dict):
                        continue
                    del parent[path[-1]]
                else:
                    parent[path[-1]] = bad
                problems(game, doc)
        problems(game, {**example, "extra": 1})
        twins = [example["players"][0]] * 2
        problems(game, {**example, "players": twins})
    spare = [{"name": f"L{i}", "rows": ["." * 10] * 15} for i in range(sm.MAX_LAYOUTS + 1)]
    problems("spring-meadow", {"game": "spring-meadow", "options": {"layouts": spare}})
    try:
        games.parse({"game": "chess", "options": {}, "players": []})
    except BoardError as err:
        found.update(err.problems)
    for text in ("{", "[1,", '{"a": 1, "a": 2}', "1" * 5000, '"\\ud800"', "[]", "{}", "[[" * 9000):
        problems("harmonies", text)
    return sorted(found)


def test_every_board_file_problem_is_translated(russian: None) -> None:
    found = board_file_problems()
    assert len(found) > 250
    kinds = " ".join(found)
    assert "missing required key" in kinds and "input should be" in kinds
    assert "malformed JSON" in kinds and "appears twice" in kinds
    not_understood = [p for p in found if not vocab.understood(p)]
    assert not not_understood, not_understood[:10]
    assert vocab.sentence("player 'Boris': missing required key 'cells'") == (
        "игрок 'Boris': нет обязательного ключа 'cells'"
    )


def test_a_named_place_is_translated_whole_not_taken_for_a_name(russian: None) -> None:
    # "player %(name)s: %(why)s" matches these too, the card or row inside the name, which
    # would then stay in English: the most specific template wins.
    card = "player 'Anna', animal card 3 (track 3-6-10-16): "
    assert vocab.sentence(card + "1 cube claimed, but no hex with a cube matches its pattern") == (
        "игрок 'Anna', карта животного 3 (шкала 3-6-10-16): заявлен 1 кубик, но её узору "
        "не соответствует ни один гекс с кубиком"
    )
    cards = "player 'Anna', animal cards 3, 5: "
    why = "2 cubes claimed between them, but only 1 hex with a cube matches their patterns"
    assert vocab.sentence(cards + why) == (
        "игрок 'Anna', карты животных 3, 5: на них заявлено 2 кубика, но их узорам "
        "соответствует только 1 гекс с кубиком"
    )
    twice = vocab.sentence(
        "card 36 is in front of 'Anna' and 'Boris'; the box has one of each card"
    )
    assert "'Anna' и 'Boris'" in twice and " and " not in twice
    row = vocab.sentence("player 'Anna', row 3: 9 squares; a vertical board row has 10")
    assert row.startswith("игрок 'Anna', ряд 3: ") and "row" not in row


def test_the_import_screen_lists_a_files_problems_in_the_players_language(
    client: FlaskClient,
) -> None:
    doc = json.loads((EXAMPLES / "harmonies.json").read_text())
    del doc["players"][0]["cells"]
    for lang, want in (("uk", "немає обов’язкового ключа 'cells'"), ("ru", "нет обязательного")):
        resp = client.post(
            "/import", data={"text": json.dumps(doc)}, headers={"Accept-Language": lang}
        )
        assert resp.status_code == 422
        assert want in unescape(resp.get_data(as_text=True)), lang


#: What the expressions in the vision layer's refusals (its f-strings) can stand for, so that
#: every refusal can be written out as a photo would produce it. A new expression fails
#: :func:`vision_refusals` until it is given its values here.
VISION_VALUES: dict[str, list[str]] = {
    "game": ["Harmonies", "Spring Meadow"],  # boards.no_board
    "megabytes": ["31"],
    "MAX_BYTES // 2 ** 20": ["30"],
    "MAX_PIXELS // 10 ** 6": ["60"],
    "width": ["4000"],
    "height": ["3000"],
    "MIN_SIDE": ["320"],
    "_first_line(err)": ["broken data stream when reading image file"],
    "side!r": ["'C'"],
    "side": ["A", "B"],
    "other": ["B", "A"],
    "game!r": ["'seasons'"],
    "', '.join(SUPPORTED)": ["sunflower-valley, harmonies, spring-meadow"],
    "seen": [shown for shown, _ in rec.SHOWS.values()],
    "wanted": [shown for shown, _ in rec.SHOWS.values()],
    "title": [title for _, title in rec.SHOWS.values()],
}


def _written_out(node: ast.expr) -> list[str]:
    """Every text a refusal's first argument (a literal or an f-string) can come out as."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    assert isinstance(node, ast.JoinedStr), ast.unparse(node)
    options = []
    for part in node.values:
        if isinstance(part, ast.Constant):
            options.append([str(part.value)])
            continue
        assert isinstance(part, ast.FormattedValue)
        key = ast.unparse(part.value) + ("!r" if part.conversion == ord("r") else "")
        assert key in VISION_VALUES, f"give {key!r} its values in VISION_VALUES"
        options.append(VISION_VALUES[key])
    return ["".join(pieces) for pieces in itertools.product(*options)]


def vision_refusals() -> list[str]:
    """What ``scorepad.vision`` says when it refuses a photo: the first argument of every
    ``PhotoError``/``OtherBoard`` it raises (and the ``problem`` it keeps for one), written
    out with :data:`VISION_VALUES`. Arguments that pass on another message are skipped."""
    found = []
    for path in sorted((ROOT / "scorepad" / "vision").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("PhotoError", "OtherBoard")
                and node.args
                and isinstance(node.args[0], ast.Constant | ast.JoinedStr)
            ):
                found += _written_out(node.args[0])
            elif (
                isinstance(node, ast.Assign)
                and [ast.unparse(t) for t in node.targets] == ["problem"]
                and isinstance(node.value, ast.Constant)
            ):
                found += _written_out(node.value)
    return found


def test_every_photo_refusal_is_translated(russian: None) -> None:
    refusals = vision_refusals()
    assert len(refusals) >= 25
    assert "no hex grid found on the sheet" in refusals
    not_understood = [s for s in refusals if not vocab.understood(s)]
    assert not not_understood, not_understood
    decoder = VISION_VALUES["_first_line(err)"][0]  # the image library's words, kept
    for s in refusals:
        translated = vocab.sentence(s).replace(decoder, "")
        english = re.findall(r"\b(the|photo|board|sheet|found|side|table|image)\b", translated)
        assert not english, (s, translated)
    assert vocab.sentence(
        "the photo shows a Harmonies board, not a Sunflower Valley sheet: photograph a "
        "Sunflower Valley sheet, or score it at a Harmonies table"
    ) == (
        "на фото поле «Гармоний», а не лист «Солнечной долины»: снимите лист «Солнечной "
        "долины» или посчитайте его за столом игры «Гармонии»"
    )


def test_a_tiebreak_sentence_reads_naturally(russian: None) -> None:
    text = (
        "tied on 12 points: Anna ahead of Boris on houses (2 vs 1); "
        "Boris and Vera still tied after houses, sunflowers, residents: shared"
    )
    assert vocab.sentence(text) == (
        "ничья при счёте 12: Anna — выше, чем Boris, по показателю «дома» (2 против 1); "
        "Boris и Vera всё ещё равны после сравнения (дома, подсолнухи, жители): место делят"
    )
    # One point, and players named together ("A, B and C"): no number or plural to agree.
    assert vocab.understood("tied on 1 point: Anna, Boris and Vera share the place (no tie-break)")
    assert vocab.sentence(
        "tied on 1 point: Anna, Boris and Vera still tied after houses: shared"
    ) == ("ничья при счёте 1: Anna, Boris и Vera всё ещё равны после сравнения (дома): место делят")
    # Unknown text stays whole in English rather than half translated.
    assert vocab.sentence("tied on 3 points: something new") == "tied on 3 points: something new"
    assert vocab.table_title("Harmonies: Anna, Boris") == "Гармонии: Anna, Boris"


@pytest.mark.parametrize("stack", hm.LEGAL_STACKS[:3])
def test_stack_labels_for_screen_readers(app: Flask, stack: tuple[str, ...]) -> None:
    from scorepad.web.boards import harmonies as kit

    with app.test_request_context(headers={"Accept-Language": "uk"}):
        words = vocab.words()
        place = place_name(words, column_places(hm.board_hexes("A")), hm.board_hexes("A")[0])
        label = kit._cell_label(words, place, list(stack), True)
    assert label.startswith("стовпець 1, гекс ") and label.endswith(", кубик")
    assert ("знизу вгору" in label) == (len(stack) > 1)
    assert not re.search(r"[a-z]{3,}", label), label


@pytest.mark.browser
def test_the_switcher_in_a_browser_comes_back_to_the_same_page(page: Any) -> None:
    page.goto(page.base + "/layouts")
    assert page.get_attribute("html", "lang") == "en"
    page.click(".langs a[lang=uk]")
    page.wait_for_function("document.documentElement.lang === 'uk'")
    assert page.url == page.base + "/layouts"
    assert page.inner_text("main h1") == "Розкладки"
    assert page.get_attribute(".langs a[lang=uk]", "aria-current") == "true"
    page.click(".langs a[lang=en]")
    page.wait_for_function("document.documentElement.lang === 'en'")
    assert page.inner_text("main h1") == "Layouts"


def test_the_first_language_to_show_a_page_does_not_stick_to_it(client: FlaskClient) -> None:
    """Jinja works a plain filter on a literal out once, when it compiles the template
    (``'Sunflower Valley'|term``): the translating filters take the context so that it
    cannot, and each page shows its own language whoever came first."""
    names = {"uk": "Сонячна долина", "ru": "Солнечная долина", "en": "Sunflower Valley"}
    for lang in ("uk", "ru", "en", "uk"):
        html = page(client, "/new?game=sunflower-valley", lang)
        legend = re.search(r"<legend>(.*?)</legend>", html)
        assert legend and legend.group(1) == names[lang], lang


def test_solo_points_campaign_points_and_drawn_residents_take_the_form_for_their_count(
    app: Flask,
) -> None:
    """ "Solo game: Anna, 1 points", "1 game to play, 1 points to go" and "The drawing gives 1
    residents" (Russian "очков: 1", "жителей 1"): each count now has its own form."""
    from flask import render_template_string

    from scorepad.scoring import PlayerResult, Result
    from scorepad.web.boards import sunflower_valley as sv_kit

    from sheets import axial_table, line

    def winner(total: int) -> str:
        solo = Result("spring-meadow", (PlayerResult("Anna", total, 1, {}, {}),), ("Anna",))
        return render_template_string('{% include "tables/_winners.html" %}', result=solo)

    def to_go(points: int) -> str:
        return render_template_string(
            "{{ ngettext('%(num)d point to go', '%(num)d points to go', n) }}", n=points
        )

    def drawn(n: int) -> str:  # n super sunflowers, no house: n residents, 7 ticks read
        doc = axial_table(line(*["X"] * n))
        found = {"player": {"residents": 7}}
        return sv_kit.photo_note(doc, sv.parse(doc), 0, found)[0]

    expected = {
        "en": (", %s point", ", %s points", ", %s points", "%s point to go", "%s points to go",
               "%s points to go", "gives %s resident:", "gives %s residents:",
               "gives %s residents:"),
        "ru": (", %s очко", ", %s очка", ", %s очков", "до цели %s очко", "до цели %s очка",
               "до цели %s очков", "рисунку %s житель:", "рисунку %s жителя:",
               "рисунку %s жителей:"),
        "uk": (", %s очко", ", %s очки", ", %s очок", "до мети %s очко", "до мети %s очки",
               "до мети %s очок", "малюнком %s мешканець:", "малюнком %s мешканці:",
               "малюнком %s мешканців:"),
    }  # fmt: skip
    for language, forms in expected.items():
        with app.test_request_context(headers={"Accept-Language": language}):
            said = [f(n) for f in (winner, to_go, drawn) for n in (1, 2, 5)]
            for text, form, n in zip(said, forms, [1, 2, 5] * 3, strict=True):
                said_here = (
                    form % n in text if form.endswith(":") else text.strip().endswith(form % n)
                )
                assert said_here, (language, text)
            assert winner(21).strip().endswith("21 " + {"en": "points"}.get(language, "очко"))
