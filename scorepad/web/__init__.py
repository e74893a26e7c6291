"""Scorepad's phone web app: Flask + htmx over the scoring engines.

``create_app(test_config=None)`` builds the app. Configuration comes from the defaults below,
then the environment (``DATABASE_URL``, ``SECRET_KEY``, and any ``SCOREPAD_*`` variable),
then ``test_config``. All state lives in the database, so any number of gunicorn workers can
serve the same tables.

Screen families are blueprints: :mod:`.tables` (list, new table, import/export, results,
check a paper sheet), :mod:`.editor` (board editors: taps, fields, undo/redo),
:mod:`.layouts` (sheet and burrow layouts), :mod:`.seats` (joining a shared table, the
host's controls), :mod:`.live` (live polls and the big-screen view), :mod:`.sharing` (CSV,
recap, PNG card), :mod:`.players` (roster and statistics), :mod:`.photos` (reading a
photographed sheet or board) and :mod:`.pwa` (manifest, service worker, offline page). Who
may edit what is :mod:`.access`.
"""

from __future__ import annotations

import os
import secrets
import tempfile
import time
from pathlib import Path
from typing import Any

from flask import Flask, Response, abort, g, request
from flask_babel import gettext as _  # type: ignore[import-untyped]
from flask_wtf.csrf import CSRFError, CSRFProtect  # type: ignore[import-untyped]
from werkzeug.middleware.proxy_fix import ProxyFix

from scorepad.web import access, db, i18n
from scorepad.web.htmx import error_page, is_htmx

ROOT = Path(__file__).resolve().parents[2]
HTMX = "htmx-2.0.11.min.js"

csrf = CSRFProtect()


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """The app (Flask's factory): configuration, storage, CSRF, languages, the screens."""
    instance = Path(os.environ.get("SCOREPAD_INSTANCE_PATH", ROOT / "instance"))
    app = Flask(
        __name__,
        instance_path=str(instance),
        template_folder=str(ROOT / "templates"),
        static_folder=str(ROOT / "static"),
    )
    _configure(app, instance, test_config)
    db.init_app(app)
    _upload_limits(app)  # before CSRF, whose check reads the form and so the whole body
    csrf.init_app(app)
    access.init_app(app)
    if app.config.get("TRUSTED_PROXIES"):  # the client's address for rate limits, behind N proxies
        n = int(app.config["TRUSTED_PROXIES"])
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=n, x_proto=n)  # type: ignore[method-assign]
    i18n.init_app(app)

    from scorepad.web import editor, layouts, live, photos, players, pwa, seats, sharing, tables

    for module in (tables, editor, layouts, seats, live, sharing, players, pwa, photos):
        app.register_blueprint(module.bp)
    _register_errors(app)
    _register_hooks(app)
    _warm_up(app)
    return app


def _configure(app: Flask, instance: Path, test_config: dict[str, Any] | None) -> None:
    """Defaults, then the environment (``DATABASE_URL``, ``SECRET_KEY``, ``SCOREPAD_*``),
    then a test's own; an SQLite file's folder is made, a missing secret kept in the
    instance folder."""
    from scorepad.web import live

    app.config.update(
        DATABASE_URL=f"sqlite:///{instance / 'scorepad.sqlite3'}",
        MAX_CONTENT_LENGTH=2_000_000,  # a board file is far smaller; see boardfile.MAX_BOARD_BYTES
        WTF_CSRF_TIME_LIMIT=None,  # a game can last hours: the token lives as long as the session
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_HTTPONLY=True,
        SEND_FILE_MAX_AGE_DEFAULT=3600,
        HTMX=HTMX,
        LIVE_POLL_MS=live.POLL_MS,  # SCOREPAD_LIVE_POLL_MS to change
        FINISHED_POLL_MS=live.FINISHED_POLL_MS,
    )
    for key in ("DATABASE_URL", "SECRET_KEY"):
        if os.environ.get(key):
            app.config[key] = os.environ[key]
    app.config.from_prefixed_env("SCOREPAD")
    if test_config:
        app.config.update(test_config)
    if app.config.get("DATABASE_URL", "").startswith("sqlite:///"):
        Path(app.config["DATABASE_URL"].removeprefix("sqlite:///")).parent.mkdir(
            parents=True, exist_ok=True
        )
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = _instance_secret(instance)


def _register_hooks(app: Flask) -> None:
    """Every request timed, and every answer's common headers."""

    @app.before_request
    def _clock() -> None:
        g.started = time.perf_counter()
        if "\x00" in request.path:  # no page has a NUL in its address (nor can PostgreSQL
            abort(404)  # compare one), so it is not found rather than a server error

    @app.after_request
    def _headers(resp: Response) -> Response:
        if "started" in g:  # the time spent in the app: edit, validate, re-score, render
            elapsed = (time.perf_counter() - g.started) * 1000
            resp.headers["Server-Timing"] = f"app;dur={elapsed:.2f}"
        if resp.mimetype == "text/html":
            resp.vary.add("HX-Request")  # the same URL answers with a page or a fragment
            resp.headers.setdefault("Cache-Control", "no-store")
        # Marks the app's own answers: a 5xx without it is a proxy's page (static/scorepad.js).
        resp.headers["Scorepad-Answer"] = "1"
        resp.headers.setdefault("X-Content-Type-Options", "nosniff")
        resp.headers.setdefault("Referrer-Policy", "same-origin")
        # No page may be framed by another site (its Finish and Delete buttons could be
        # clicked through a decoy); the older header for older browsers.
        resp.headers.setdefault("Content-Security-Policy", "frame-ancestors 'none'")
        resp.headers.setdefault("X-Frame-Options", "DENY")
        return resp


def _upload_limits(app: Flask) -> None:
    """Photos may be far larger than board files: raise the body limit for their endpoints."""
    from scorepad.web.photos import PHOTO_LIMIT, UPLOAD_ENDPOINTS

    app.config.setdefault("PHOTO_MAX_BYTES", PHOTO_LIMIT)  # the photo forms say it too

    @app.before_request
    def _photo_limit() -> None:
        if request.endpoint in UPLOAD_ENDPOINTS:
            request.max_content_length = app.config["PHOTO_MAX_BYTES"]


def _warm_up(app: Flask) -> None:
    """Import the engines (scipy and all) and compile the templates now, not per request.

    Under ``gunicorn --preload`` this happens once in the master, and the forked workers
    share it; otherwise each worker would pay seconds of imports on its first taps.
    """
    from scorepad.web.boards import kits

    kits()
    if not app.testing:
        for name in app.jinja_env.list_templates(extensions=("html",)):
            app.jinja_env.get_template(name)


def _instance_secret(instance: Path) -> str:
    """A secret key kept in the instance folder, the same for every worker and restart."""
    instance.mkdir(parents=True, exist_ok=True)
    path = instance / "secret_key"
    if not path.exists():
        # Written whole under another name, then linked in: workers starting together
        # (no --preload) never read a key half written, and the first link wins.
        fd, scratch = tempfile.mkstemp(dir=instance, prefix=".secret_key.")
        with os.fdopen(fd, "w") as f:
            f.write(secrets.token_hex(32))
        try:
            os.link(scratch, path)
        except FileExistsError:
            pass
        finally:
            os.unlink(scratch)
    return path.read_text().strip()


def _register_errors(app: Flask) -> None:
    @app.errorhandler(db.NotFound)
    @app.errorhandler(404)
    def _not_found(_err: Exception) -> Response:
        return error_page(404, _("Not found"), _("There is nothing at this address."))

    @app.errorhandler(405)
    def _method(_err: Exception) -> Response:
        return error_page(405, _("Not allowed"), _("This address does not accept that request."))

    @app.errorhandler(413)
    def _too_large(_err: Exception) -> Response:
        from scorepad.web.photos import UPLOAD_ENDPOINTS

        if request.endpoint in UPLOAD_ENDPOINTS:
            limit = request.max_content_length or 0
            message = _("The photo is too large: up to %(mb)s MB.", mb=limit // (1024 * 1024))
            # Beside the photo button (the banner is a screen's scroll away on a phone).
            return error_page(413, _("Not sent"), message, place="#photo-message")
        if request.endpoint == "tables.import_file":
            message = _("The file is too large: a board file is under 2 MB.")
        else:  # only a script sends a tap or a field this large
            message = _("The request is too large for this page.")
        return error_page(413, _("Too large"), message)

    @app.errorhandler(CSRFError)
    def _csrf(_err: CSRFError) -> Response:
        return error_page(
            400,
            _("Page expired"),
            _(
                "This page is too old to send changes from: nothing was saved. Reload the page "
                "and do it again."
            ),
        )

    @app.errorhandler(access.Forbidden)
    def _forbidden(err: access.Forbidden) -> Response:
        return error_page(403, _("Not allowed"), str(err))

    @app.errorhandler(400)
    def _bad(_err: Exception) -> Response:
        return error_page(400, _("Bad request"), _("The request was incomplete or malformed."))

    @app.errorhandler(500)
    def _server(_err: Exception) -> Response:
        app.logger.error("server error on %s %s (htmx=%s)", request.method, request.path, is_htmx())
        return error_page(
            500,
            _("Something went wrong"),
            _("The server failed on this request. Reload the page to see what is stored."),
        )
