"""Languages and the look: English, Russian and Ukrainian (Flask-Babel); light or dark theme.

The language is the one the player chose with the switcher (the ``lang`` cookie), else the
browser's best match among :data:`LANGUAGES` (``Accept-Language``), else English. The
catalogues live in ``scorepad/web/translations/<lang>/LC_MESSAGES/messages.po`` with their
compiled ``.mo`` beside them (both in the repository); ``tools/i18n.py`` extracts, updates
and compiles them (see ``docs/web.md``). The games' vocabulary (categories, items, engine
sentences) is translated by :mod:`scorepad.web.vocab`; the engines stay English.

The theme follows the phone (``prefers-color-scheme``) unless the player flipped the switch
in the header, which ``static/scorepad.js`` keeps in the ``theme`` cookie so the server
renders the page in it from the first paint.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from flask import Blueprint, Flask, Response, make_response, redirect, request
from flask_babel import Babel, get_locale  # type: ignore[import-untyped]
from jinja2 import pass_context

from scorepad.web import vocab

#: Language code → its own name, as the switcher shows it.
LANGUAGES = {"en": "English", "ru": "Русский", "uk": "Українська"}
DEFAULT = "en"
LANG_COOKIE = "lang"
THEME_COOKIE = "theme"
THEMES = ("light", "dark")
TRANSLATIONS = Path(__file__).resolve().parent / "translations"
YEAR = 365 * 24 * 3600

babel = Babel()
bp = Blueprint("i18n", __name__)


def select_locale() -> str:
    """The switcher's choice, else the browser's best match, else English."""
    chosen = request.cookies.get(LANG_COOKIE, "")
    if chosen in LANGUAGES:
        return chosen
    return str(request.accept_languages.best_match(list(LANGUAGES), default=DEFAULT))


def current_language() -> str:
    return str(get_locale() or DEFAULT)


def current_theme() -> str:
    """``light`` or ``dark`` when the player chose one, else ``""`` (follow the phone)."""
    theme = request.cookies.get(THEME_COOKIE, "")
    return theme if theme in THEMES else ""


def _local_path(target: str | None) -> str:
    """``target`` when it is a path on this site, else ``/`` (no open redirect)."""
    if not target or not target.startswith("/") or target.startswith("//"):
        return "/"
    if "\\" in target or not target.isprintable():  # control characters never form a page
        return "/"
    parts = urlsplit(target)
    if parts.scheme or parts.netloc:
        return "/"
    return target


def _back() -> str:
    """Where the switcher came from: ``next`` (set by the page's script), else the referrer."""
    if request.args.get("next"):
        return _local_path(request.args["next"])
    try:
        referrer = urlsplit(request.referrer or "")
    except ValueError:  # a malformed Referer header (e.g. "http://[::1")
        return "/"
    if referrer.netloc != request.host:
        return "/"
    return _local_path(referrer.path + (f"?{referrer.query}" if referrer.query else ""))


@bp.get("/lang/<code>")
def choose(code: str) -> Response:
    """The switcher: remember the language in a cookie and go back to the page."""
    resp = make_response(redirect(_back(), 303))
    if code in LANGUAGES:
        resp.set_cookie(LANG_COOKIE, code, max_age=YEAR, samesite="Lax")
    return resp


def per_request(translate: Callable[..., str]) -> Callable[..., str]:
    """A translating filter that Jinja may not work out once at compile time: it folds a
    plain filter applied to a literal (``'Sunflower Valley'|term``) into the template,
    in the language of whoever's page compiled it first. A filter that takes the context
    is never folded."""

    @pass_context
    def run(_context: Any, *args: Any, **kwargs: Any) -> str:
        return translate(*args, **kwargs)

    return run


def init_app(app: Flask) -> None:
    app.config.setdefault("BABEL_TRANSLATION_DIRECTORIES", str(TRANSLATIONS))
    app.config.setdefault("BABEL_DEFAULT_LOCALE", DEFAULT)
    babel.init_app(app, locale_selector=select_locale)
    app.jinja_env.globals.update(
        languages=LANGUAGES,
        current_language=current_language,
        current_theme=current_theme,
    )
    app.jinja_env.filters.update(
        term=per_request(vocab.term),
        sentence=per_request(vocab.sentence),
        table_title=per_request(vocab.table_title),
        card_name=vocab.card_name,
    )
    app.register_blueprint(bp)

    @app.after_request
    def _vary(resp: Response) -> Response:
        if resp.mimetype == "text/html":
            resp.vary.add("Accept-Language")  # pages are rendered in the browser's language
        return resp
