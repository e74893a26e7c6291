"""The engine (SQLite by default, PostgreSQL when ``DATABASE_URL`` names one) and the
short transactions every storage call runs in."""

from __future__ import annotations

import fcntl
import json
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from flask import Flask, current_app
from sqlalchemy.engine import Connection, Engine

from scorepad.web.db.schema import ID_LENGTH, NotFound, metadata, score_tables


def database_url(url: str) -> str:
    """Normalise ``postgres://`` style URLs (Heroku, Render) to the psycopg 3 driver."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def make_engine(url: str) -> Engine:
    url = database_url(url)
    if url.startswith("sqlite"):
        engine = sa.create_engine(url, connect_args={"timeout": 15})
        _sqlite_tuning(engine)
        return engine
    return sa.create_engine(url, pool_pre_ping=True, pool_size=5, max_overflow=5)


def _sqlite_tuning(engine: Engine) -> None:
    """WAL so readers never wait for the writer; explicit BEGIN so writers lock up front."""

    @sa.event.listens_for(engine, "connect")
    def _connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # pysqlite's own BEGIN handling is off; see _begin
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute("PRAGMA busy_timeout=15000")
        cur.close()

    @sa.event.listens_for(engine, "begin")
    def _begin(conn: Connection) -> None:
        # A deferred transaction that reads and then writes fails at once (SQLITE_BUSY)
        # when another worker wrote in between; IMMEDIATE waits for the lock instead.
        immediate = conn.get_execution_options().get("writes", False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


def init_app(app: Flask) -> None:
    """Create the engine from ``DATABASE_URL`` and the tables if they are missing."""
    engine = make_engine(app.config["DATABASE_URL"])
    create_schema(engine)
    app.extensions["scorepad.db"] = engine
    app.extensions["scorepad.db.lock"] = _lock_path(engine)


def _lock_path(engine: Engine) -> str | None:
    """The writers' lock file beside a SQLite database file; none for PostgreSQL or an
    in-memory database (a file named ``:memory:.lock`` in the working directory helps no one)."""
    if engine.url.get_backend_name() != "sqlite":
        return None
    database = engine.url.database or ""
    if database in ("", ":memory:") or engine.url.query.get("mode") == "memory":
        return None
    return f"{database}.lock"


def create_schema(engine: Engine) -> None:
    """Create missing tables; a second worker racing to do the same is harmless.

    On SQLite each step takes the write lock up front (``BEGIN IMMEDIATE``: a transaction
    that reads the schema and then writes failed at once when another worker without
    gunicorn's ``--preload`` wrote in between); the attempts are spaced out besides."""
    writer = engine.execution_options(writes=True)
    for attempt in range(5):
        try:
            metadata.create_all(writer)
            _upgrade(writer)
            break
        except (sa.exc.OperationalError, sa.exc.ProgrammingError, sa.exc.IntegrityError):
            if attempt == 4:
                raise
            time.sleep(0.1 * 2**attempt)
    # Connections must not outlive a fork (gunicorn --preload): each worker opens its own.
    engine.dispose()


#: Columns added after the first release, by table, with their DDL types.
_ADDED_COLUMNS = {
    "score_tables": {
        "join_code": "VARCHAR(8)",
        "everyone_edits": "BOOLEAN NOT NULL DEFAULT FALSE",
        "finished_at": "TIMESTAMP WITH TIME ZONE",
    },
    "layouts": {"owner": "VARCHAR(64)"},
}


def _upgrade(engine: Engine) -> None:
    """Bring a database made by an older release up to this schema (idempotent).

    Adds the sharing columns, their index, the layouts' owner, and on PostgreSQL widens the
    id columns for the longer table ids (SQLite does not enforce ``VARCHAR`` lengths).
    """
    inspector = sa.inspect(engine)
    # Read before the write transaction: on SQLite another connection would wait for its lock.
    columns = {table: {c["name"] for c in inspector.get_columns(table)} for table in _ADDED_COLUMNS}
    postgres = engine.dialect.name == "postgresql"
    with engine.begin() as conn:
        for table, added in _ADDED_COLUMNS.items():
            for name, ddl in added.items():
                if name not in columns[table]:
                    conn.exec_driver_sql(f"ALTER TABLE {table} ADD COLUMN {name} {ddl}")
        conn.exec_driver_sql(
            "CREATE UNIQUE INDEX IF NOT EXISTS ix_score_tables_join_code "
            "ON score_tables (join_code)"
        )
        if postgres:
            for table, column in (("score_tables", "id"), ("history", "table_id")):
                found = {c["name"]: c for c in inspector.get_columns(table)}[column]
                if getattr(found["type"], "length", ID_LENGTH) < ID_LENGTH:
                    conn.exec_driver_sql(
                        f"ALTER TABLE {table} ALTER COLUMN {column} TYPE VARCHAR({ID_LENGTH})"
                    )


def engine() -> Engine:
    e: Engine = current_app.extensions["scorepad.db"]
    return e


@contextmanager
def reading() -> Iterator[Connection]:
    with engine().connect() as conn, conn.begin():
        yield conn


@contextmanager
def writing() -> Iterator[Connection]:
    with _writer_lock(), engine().connect().execution_options(writes=True) as conn, conn.begin():
        yield conn


@contextmanager
def _writer_lock() -> Iterator[None]:
    """On SQLite, queue writers on a lock file instead of SQLite's busy handler.

    SQLite makes a waiting writer sleep and poll (1, 2, 5, 10 ... 100 ms), which under a
    burst of taps from several workers adds far more latency than the writes themselves;
    ``flock`` wakes the next writer the moment the lock is free. Each use opens the file
    anew, so threads of one process exclude each other too.
    """
    path = current_app.extensions.get("scorepad.db.lock")
    if not path:
        yield
        return
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def locked(conn: Connection, table_id: str) -> sa.Row[Any]:
    """The table's row, locked for the rest of the transaction (:class:`NotFound` if none)."""
    query = score_tables.select().where(score_tables.c.id == table_id).with_for_update()
    row = conn.execute(query).first()
    if row is None:
        raise NotFound("no such table")
    return row


def utc_now() -> datetime:
    return datetime.now(UTC)


def dumps(value: Any) -> str:
    """Compact JSON as stored (documents, metadata, layouts)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
