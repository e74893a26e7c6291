"""Installable and offline-tolerant: the web app manifest, the service worker, the offline page.

* ``/manifest.webmanifest`` names the app, its icons (``static/icons``) and colours, so a
  phone can put Scorepad on its home screen and open it without the browser's chrome.
* ``/sw.js`` is ``static/sw.js`` served from the root so that its scope is the whole site,
  prefixed with its configuration: a version (a hash of the static files, so a deploy with
  new assets installs a new cache) and the URLs to keep (the static assets and
  ``/offline``). It serves the static assets from its cache, and a page that cannot be
  reached shows the offline page. Taps are never cached: ``static/scorepad.js`` queues a
  tap that fails for want of a connection and sends it again when the network is back.
* ``/offline`` is one page in every language; a line of script shows the player's.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, current_app, render_template, url_for
from flask_babel import force_locale, gettext  # type: ignore[import-untyped]
from markupsafe import Markup

from scorepad.web.i18n import LANGUAGES, current_language

bp = Blueprint("pwa", __name__)

THEME_COLOUR = "#2f7d4f"
BACKGROUND = "#f7f8f5"
ICONS = (
    ("icons/icon.svg", "any", "image/svg+xml"),
    ("icons/icon-192.png", "192x192", "image/png"),
    ("icons/icon-512.png", "512x512", "image/png"),
)
#: Static files every page needs (templates/base.html loads each); the service worker keeps
#: them for offline use, and their bytes make its cache's version, so a deploy that changes
#: any of them reaches installed phones (live.js and table.css were missing: kept stale).
ASSETS = (
    "scorepad.css",
    "table.css",
    "scorepad.js",
    "live.js",
    *(path for path, _size, _type in ICONS),
)


@bp.get("/manifest.webmanifest")
def manifest() -> Response:
    doc = {
        "name": "Scorepad",
        "short_name": "Scorepad",
        "description": gettext("Score pad for board games: exact scoring with the evidence."),
        "lang": current_language(),
        "id": "/",
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        # Not locked to portrait: the big screen is a tablet's, and a hex board fits a
        # phone turned sideways.
        "orientation": "any",
        "background_color": BACKGROUND,
        "theme_color": THEME_COLOUR,
        "icons": [
            {"src": url_for("static", filename=path), "sizes": size, "type": kind}
            for path, size, kind in ICONS
        ]
        + [
            {
                "src": url_for("static", filename="icons/icon-512.png"),
                "sizes": "512x512",
                "type": "image/png",
                "purpose": "maskable",
            }
        ],
    }
    resp = Response(json.dumps(doc, ensure_ascii=False), mimetype="application/manifest+json")
    resp.vary.add("Accept-Language")
    resp.vary.add("Cookie")
    return resp


def _static_files() -> list[str]:
    return [*ASSETS, current_app.config["HTMX"]]


@cache
def _version(folder: str, files: tuple[str, ...], page: str) -> str:
    digest = hashlib.sha256(page.encode())
    for name in (*files, "sw.js"):
        digest.update(name.encode())
        digest.update((Path(folder) / name).read_bytes())
    return digest.hexdigest()[:12]


def sw_config() -> dict[str, Any]:
    files = _static_files()
    static = current_app.static_folder or ""
    # The offline page's own text counts too: a new wording replaces the one phones keep.
    page = hashlib.sha256(offline().get_data()).hexdigest()
    return {
        "version": _version(static, tuple(files), page),
        "precache": [url_for("static", filename=f) for f in files] + [url_for("pwa.offline")],
        "offline": url_for("pwa.offline"),
        "static": url_for("static", filename=""),
    }


@bp.get("/sw.js")
def service_worker() -> Response:
    source = (Path(current_app.static_folder or "") / "sw.js").read_text(encoding="utf-8")
    body = f"const CONFIG = {json.dumps(sw_config())};\n{source}"
    resp = Response(body, mimetype="text/javascript")
    resp.headers["Service-Worker-Allowed"] = "/"
    resp.headers["Cache-Control"] = "no-cache"  # the browser checks for a new worker each visit
    return resp


@bp.get("/offline")
def offline() -> Response:
    """The page a phone shows when it cannot reach the server: every language, one shown."""
    sections = []
    for code in LANGUAGES:
        with force_locale(code):
            sections.append((code, Markup(render_template("_offline_text.html"))))
    html = render_template("offline.html", sections=sections, languages=LANGUAGES)
    resp = Response(html, mimetype="text/html")
    resp.headers["Cache-Control"] = "no-cache"
    return resp
