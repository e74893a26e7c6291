"""Fixtures for the web app: an app on each database, clients, and a live server for browsers.

``db_url`` runs every storage and web test on SQLite and, when ``TEST_POSTGRES_URL`` names a
server (``python3 tasks.py test`` starts a throwaway one), on PostgreSQL too.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.serving import make_server

from scorepad.web import create_app, db

POSTGRES = os.environ.get("TEST_POSTGRES_URL")
DATABASES = ["sqlite"] + (["postgres"] if POSTGRES else [])


_postgres_engine: sa.Engine | None = None


def _worker_database(url: str) -> str:
    """This test worker's own database on the server, created on first use.

    Under pytest-xdist every worker truncates tables before each test, so two workers
    sharing one database would empty each other's tables mid-test.
    """
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not worker:
        return url
    name = f"scorepad_{worker}"
    server = db.make_engine(url)
    with server.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        exists = conn.execute(sa.text("SELECT 1 FROM pg_database WHERE datname = :n"), {"n": name})
        if exists.first() is None:
            conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    server.dispose()
    return server.url.set(database=name).render_as_string(hide_password=False)


def _reset_postgres(url: str) -> str:
    """Empty every table (faster than dropping and creating the schema for each test)."""
    global _postgres_engine
    if _postgres_engine is None:
        url = _worker_database(url)
        _postgres_engine = db.make_engine(url)
        db.metadata.drop_all(_postgres_engine)
        db.metadata.create_all(_postgres_engine)
    names = ", ".join(t.name for t in db.metadata.sorted_tables)
    with _postgres_engine.begin() as conn:
        conn.exec_driver_sql(f"TRUNCATE {names}")
    return _postgres_engine.url.render_as_string(hide_password=False)


@pytest.fixture(params=DATABASES)
def db_url(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'scorepad.sqlite3'}"
        return
    assert POSTGRES
    yield _reset_postgres(POSTGRES)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked ``sqlite_only`` (translations, the PWA files, colour clues: nothing of
    the database's own) run once, not once per database."""
    dropped = [
        item
        for item in items
        if item.get_closest_marker("sqlite_only")
        and getattr(item, "callspec", None) is not None
        and item.callspec.params.get("db_url", "sqlite") != "sqlite"  # type: ignore[attr-defined]
    ]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = [item for item in items if item not in dropped]


def make_app(db_url: str, **extra: Any) -> Flask:
    config = {"TESTING": True, "DATABASE_URL": db_url, "SECRET_KEY": "test-secret", **extra}
    return create_app(config)


@pytest.fixture
def app(db_url: str) -> Iterator[Flask]:
    application = make_app(db_url, WTF_CSRF_ENABLED=False)
    yield application
    application.extensions["scorepad.db"].dispose()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def csrf_app(db_url: str) -> Iterator[Flask]:
    application = make_app(db_url)
    yield application
    application.extensions["scorepad.db"].dispose()


HX = {"HX-Request": "true"}


def csrf_token(client: FlaskClient, url: str = "/new") -> str:
    """The token a real page carries in its htmx header (and in its forms)."""
    html = client.get(url).get_data(as_text=True)
    found = re.search(r'"X-CSRFToken": "([^"]+)"', html)
    assert found, "page has no CSRF header for htmx"
    return found.group(1)


# --- a live server for the browser tests --------------------------------------------------------


class LiveServer:
    def __init__(self, app: Flask) -> None:
        self.app = app
        self.server = make_server("127.0.0.1", 0, app, threaded=True)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> LiveServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.thread.join(5)


@pytest.fixture
def live_server(tmp_path: Any) -> Iterator[LiveServer]:
    """The app with CSRF on, served by a real HTTP server thread on loopback (SQLite)."""
    application = make_app(f"sqlite:///{tmp_path / 'live.sqlite3'}")
    with LiveServer(application) as server:
        yield server
    application.extensions["scorepad.db"].dispose()


CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: `python3 tasks.py test` installs Debian's chromium")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser: Any, live_server: LiveServer) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True)
    pg = context.new_page()
    pg.set_default_timeout(20_000)
    pg.base = live_server.url  # type: ignore[attr-defined]
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    yield pg
    context.close()
    assert not errors, f"JavaScript errors: {errors}"


def table_count(app: Flask) -> int:
    with app.app_context(), db.reading() as conn:
        return int(
            conn.execute(sa.select(sa.func.count()).select_from(db.score_tables)).scalar_one()
        )
