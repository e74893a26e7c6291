"""Storage: tables of players (their board-file document, metadata, undo history) and layouts.

SQLAlchemy Core over SQLite (a WAL file under ``instance/``) or PostgreSQL when
``DATABASE_URL`` names one. Every state-changing call is one short transaction that locks
the table's row first (``BEGIN IMMEDIATE`` on SQLite, ``SELECT ... FOR UPDATE`` on
PostgreSQL), so several gunicorn workers never interleave two edits of the same table.

A table keeps every document it has had as numbered history entries; ``position`` says which
one is current, so undo and redo move it and a new edit drops the entries above it.
"""

from __future__ import annotations

import fcntl
import json
import os
import secrets
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from flask import Flask, current_app
from sqlalchemy.engine import Connection, Engine

metadata = sa.MetaData()

score_tables = sa.Table(
    "score_tables",
    metadata,
    sa.Column("id", sa.String(16), primary_key=True),
    sa.Column("game", sa.String(40), nullable=False),
    sa.Column("title", sa.String(200), nullable=False),
    sa.Column("doc", sa.Text, nullable=False),
    sa.Column("meta", sa.Text, nullable=False, default="{}"),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("position", sa.Integer, nullable=False),
    sa.Column("oldest", sa.Integer, nullable=False),
    sa.Column("newest", sa.Integer, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False, index=True),
)

history = sa.Table(
    "history",
    metadata,
    sa.Column(
        "table_id",
        sa.String(16),
        sa.ForeignKey("score_tables.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    sa.Column("seq", sa.Integer, primary_key=True),
    sa.Column("doc", sa.Text, nullable=False),
    sa.Column("meta", sa.Text, nullable=False),
)

layouts = sa.Table(
    "layouts",
    metadata,
    sa.Column("id", sa.String(16), primary_key=True),
    sa.Column("game", sa.String(40), nullable=False, index=True),
    sa.Column("name", sa.String(80), nullable=False),
    sa.Column("data", sa.Text, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
)

#: Undo steps kept per table; older entries are dropped so a long game stays small.
HISTORY_LIMIT = 400


class NotFound(LookupError):
    """No such table or layout (the message never says which ids exist)."""


class Conflict(RuntimeError):
    """The table changed since the client last saw it (another phone edited it)."""


@dataclass(frozen=True)
class StoredTable:
    id: str
    game: str
    title: str
    doc: dict[str, Any]
    meta: dict[str, Any]
    version: int
    can_undo: bool
    can_redo: bool
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True)
class StoredLayout:
    id: str
    game: str
    name: str
    data: dict[str, Any]
    updated_at: datetime


# --- engine ------------------------------------------------------------------------------------


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
    database = engine.url.database if engine.url.get_backend_name() == "sqlite" else None
    app.extensions["scorepad.db.lock"] = f"{database}.lock" if database else None


def create_schema(engine: Engine) -> None:
    """Create missing tables; a second worker racing to do the same is harmless."""
    for attempt in range(3):
        try:
            metadata.create_all(engine)
            break
        except (sa.exc.OperationalError, sa.exc.ProgrammingError, sa.exc.IntegrityError):
            if attempt == 2:
                raise
    # Connections must not outlive a fork (gunicorn --preload): each worker opens its own.
    engine.dispose()


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


def _now() -> datetime:
    return datetime.now(UTC)


def _new_id() -> str:
    return secrets.token_urlsafe(6)


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


# --- tables of players -------------------------------------------------------------------------


def _stored(row: sa.Row[Any]) -> StoredTable:
    return StoredTable(
        id=row.id,
        game=row.game,
        title=row.title,
        doc=json.loads(row.doc),
        meta=json.loads(row.meta),
        version=row.version,
        can_undo=row.position > row.oldest,
        can_redo=row.position < row.newest,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


def create_table(game: str, title: str, doc: dict[str, Any], meta: dict[str, Any]) -> str:
    table_id, now = _new_id(), _now()
    with writing() as conn:
        conn.execute(
            score_tables.insert().values(
                id=table_id,
                game=game,
                title=title[:200],
                doc=_dumps(doc),
                meta=_dumps(meta),
                version=1,
                position=0,
                oldest=0,
                newest=0,
                created_at=now,
                updated_at=now,
            )
        )
        conn.execute(
            history.insert().values(table_id=table_id, seq=0, doc=_dumps(doc), meta=_dumps(meta))
        )
    return table_id


def get_table(table_id: str) -> StoredTable:
    with reading() as conn:
        row = conn.execute(score_tables.select().where(score_tables.c.id == table_id)).first()
    if row is None:
        raise NotFound("no such table")
    return _stored(row)


def list_tables(limit: int = 100) -> list[StoredTable]:
    query = score_tables.select().order_by(score_tables.c.updated_at.desc()).limit(limit)
    with reading() as conn:
        return [_stored(row) for row in conn.execute(query)]


def delete_table(table_id: str) -> None:
    with writing() as conn:
        conn.execute(history.delete().where(history.c.table_id == table_id))
        gone = conn.execute(score_tables.delete().where(score_tables.c.id == table_id))
    if gone.rowcount == 0:
        raise NotFound("no such table")


Change = Callable[[StoredTable], tuple[dict[str, Any], dict[str, Any]]]


#: Optimistic tries before an edit takes the lock first and recomputes under it.
OPTIMISTIC_ATTEMPTS = 3


def edit_table(table_id: str, change: Change, expected_version: int | None = None) -> StoredTable:
    """Apply ``change`` (current → new document and metadata) as the next history entry.

    ``change`` validates and may raise; then nothing is stored. ``expected_version`` guards
    against edits made from a stale page (:class:`Conflict`). An edit that changes nothing
    stores nothing.

    ``change`` first runs outside the write lock, on the table as read; the write then checks
    that nobody stored a newer version meanwhile, and otherwise tries again. So the lock is
    usually held only for the few statements that store the result; when the same table is
    being edited very fast, the last try computes the change while holding the lock.
    """
    for _attempt in range(OPTIMISTIC_ATTEMPTS):
        current = get_table(table_id)
        _check_version(current, expected_version)
        doc, meta = change(current)
        if doc == current.doc and meta == current.meta:
            return current
        with writing() as conn:
            row = _locked(conn, table_id)
            if row.version == current.version:
                return _store(conn, row, doc, meta)
    with writing() as conn:
        row = _locked(conn, table_id)
        current = _stored(row)
        _check_version(current, expected_version)
        doc, meta = change(current)
        if doc == current.doc and meta == current.meta:
            return current
        return _store(conn, row, doc, meta)


def _check_version(current: StoredTable, expected: int | None) -> None:
    if expected is not None and expected != current.version:
        raise Conflict("the table changed on another device")


def _store(
    conn: Connection, row: sa.Row[Any], doc: dict[str, Any], meta: dict[str, Any]
) -> StoredTable:
    """Store ``doc`` as the entry after the current one (dropping any redo entries)."""
    seq = row.position + 1
    if row.newest >= seq:
        conn.execute(history.delete().where(history.c.table_id == row.id, history.c.seq >= seq))
    conn.execute(
        history.insert().values(table_id=row.id, seq=seq, doc=_dumps(doc), meta=_dumps(meta))
    )
    oldest = max(row.oldest, seq - HISTORY_LIMIT)
    if oldest > row.oldest:
        conn.execute(history.delete().where(history.c.table_id == row.id, history.c.seq < oldest))
    return _update(conn, row, seq, oldest, seq, doc, meta)


def undo(table_id: str) -> StoredTable:
    return _move(table_id, -1)


def redo(table_id: str) -> StoredTable:
    return _move(table_id, +1)


def _move(table_id: str, step: int) -> StoredTable:
    with writing() as conn:
        row = _locked(conn, table_id)
        seq = row.position + step
        if not row.oldest <= seq <= row.newest:
            return _stored(row)
        entry = conn.execute(
            sa.select(history.c.doc, history.c.meta).where(
                history.c.table_id == table_id, history.c.seq == seq
            )
        ).one()
        return _update(
            conn, row, seq, row.oldest, row.newest, json.loads(entry.doc), json.loads(entry.meta)
        )


def _locked(conn: Connection, table_id: str) -> sa.Row[Any]:
    query = score_tables.select().where(score_tables.c.id == table_id).with_for_update()
    row = conn.execute(query).first()
    if row is None:
        raise NotFound("no such table")
    return row


def _update(
    conn: Connection,
    row: sa.Row[Any],
    position: int,
    oldest: int,
    newest: int,
    doc: dict[str, Any],
    meta: dict[str, Any],
) -> StoredTable:
    now = _now()
    conn.execute(
        score_tables.update()
        .where(score_tables.c.id == row.id)
        .values(
            doc=_dumps(doc),
            meta=_dumps(meta),
            version=row.version + 1,
            position=position,
            oldest=oldest,
            newest=newest,
            updated_at=now,
        )
    )
    return StoredTable(
        id=row.id,
        game=row.game,
        title=row.title,
        doc=doc,
        meta=meta,
        version=row.version + 1,
        can_undo=position > oldest,
        can_redo=position < newest,
        created_at=row.created_at,
        updated_at=now,
    )


# --- layouts -----------------------------------------------------------------------------------


def _layout(row: sa.Row[Any]) -> StoredLayout:
    return StoredLayout(
        id=row.id,
        game=row.game,
        name=row.name,
        data=json.loads(row.data),
        updated_at=row.updated_at,
    )


def create_layout(game: str, name: str, data: dict[str, Any]) -> str:
    layout_id, now = _new_id(), _now()
    with writing() as conn:
        conn.execute(
            layouts.insert().values(
                id=layout_id,
                game=game,
                name=name[:80],
                data=_dumps(data),
                created_at=now,
                updated_at=now,
            )
        )
    return layout_id


def get_layout(layout_id: str, game: str | None = None) -> StoredLayout:
    query = layouts.select().where(layouts.c.id == layout_id)
    if game is not None:
        query = query.where(layouts.c.game == game)
    with reading() as conn:
        row = conn.execute(query).first()
    if row is None:
        raise NotFound("no such layout")
    return _layout(row)


def list_layouts(game: str | None = None) -> list[StoredLayout]:
    query = layouts.select().order_by(layouts.c.game, layouts.c.name)
    if game is not None:
        query = query.where(layouts.c.game == game)
    with reading() as conn:
        return [_layout(row) for row in conn.execute(query)]


def edit_layout(
    layout_id: str, change: Callable[[StoredLayout], tuple[str, dict[str, Any]]]
) -> StoredLayout:
    """Replace a layout's name and data with what ``change`` returns (it may raise)."""
    with writing() as conn:
        query = layouts.select().where(layouts.c.id == layout_id).with_for_update()
        row = conn.execute(query).first()
        if row is None:
            raise NotFound("no such layout")
        name, data = change(_layout(row))
        now = _now()
        conn.execute(
            layouts.update()
            .where(layouts.c.id == layout_id)
            .values(name=name[:80], data=_dumps(data), updated_at=now)
        )
        return StoredLayout(id=row.id, game=row.game, name=name[:80], data=data, updated_at=now)


def delete_layout(layout_id: str) -> None:
    with writing() as conn:
        gone = conn.execute(layouts.delete().where(layouts.c.id == layout_id))
    if gone.rowcount == 0:
        raise NotFound("no such layout")
