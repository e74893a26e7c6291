"""Storage: tables of players (their board-file document, metadata, undo history) and layouts.

SQLAlchemy Core over SQLite (a WAL file under ``instance/``) or PostgreSQL when
``DATABASE_URL`` names one. Every state-changing call is one short transaction that locks
the table's row first (``BEGIN IMMEDIATE`` on SQLite, ``SELECT ... FOR UPDATE`` on
PostgreSQL), so several gunicorn workers never interleave two edits of the same table.

A table keeps every document it has had as numbered history entries; ``position`` says which
one is current, so undo and redo move it and a new edit drops the entries above it.

One table is shared by many phones: ``members`` binds a phone (the SHA-256 of the secret key
its browser holds, see :mod:`scorepad.web.access`) to a table as its host and/or to one seat;
``rate_limits`` counts join attempts in the database, so the limits hold across workers.
``photos`` keeps the photo a board was read from, as evidence shown beside the board.
"""

from __future__ import annotations

import fcntl
import json
import os
import secrets
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from flask import Flask, current_app
from sqlalchemy.engine import Connection, Engine

metadata = sa.MetaData()

#: Table ids are 22 URL-safe characters (128 random bits); older tables kept shorter ones.
ID_LENGTH = 32

score_tables = sa.Table(
    "score_tables",
    metadata,
    sa.Column("id", sa.String(ID_LENGTH), primary_key=True),
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
    # Sharing (added later: _upgrade adds these columns to older databases).
    sa.Column("join_code", sa.String(8), nullable=True),
    sa.Column("everyone_edits", sa.Boolean, nullable=False, default=False),
    sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
    sa.Index("ix_score_tables_join_code", "join_code", unique=True),
)

history = sa.Table(
    "history",
    metadata,
    sa.Column(
        "table_id",
        sa.String(ID_LENGTH),
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

members = sa.Table(
    "members",
    metadata,
    sa.Column(
        "table_id",
        sa.String(ID_LENGTH),
        sa.ForeignKey("score_tables.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    # SHA-256 (hex) of the phone's secret key; the key itself is never stored.
    sa.Column("device", sa.String(64), primary_key=True),
    sa.Column("host", sa.Boolean, nullable=False, default=False),
    sa.Column("seat", sa.Integer, nullable=True),
    sa.Column("joined_at", sa.DateTime(timezone=True), nullable=False),
    # One phone per seat: two phones racing for a seat cannot both win it.
    sa.UniqueConstraint("table_id", "seat", name="uq_members_seat"),
    sa.Index("ix_members_device", "device"),
)

rate_limits = sa.Table(
    "rate_limits",
    metadata,
    sa.Column("bucket", sa.String(120), primary_key=True),
    sa.Column("expires", sa.BigInteger, nullable=False),  # unix time the window ends
    sa.Column("hits", sa.Integer, nullable=False),
)

photos = sa.Table(
    "photos",
    metadata,
    sa.Column("id", sa.String(16), primary_key=True),
    sa.Column(
        "table_id",
        sa.String(ID_LENGTH),
        sa.ForeignKey("score_tables.id", ondelete="CASCADE"),
        nullable=False,
        index=True,
    ),
    sa.Column("player", sa.Integer, nullable=False),
    sa.Column("mime", sa.String(40), nullable=False),
    sa.Column("data", sa.LargeBinary, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)

#: Undo steps kept per table; older entries are dropped so a long game stays small.
HISTORY_LIMIT = 400


class NotFound(LookupError):
    """No such table or layout (the message never says which ids exist)."""


class Conflict(RuntimeError):
    """The table changed since the client last saw it (another phone edited it)."""


class SeatTaken(RuntimeError):
    """Another phone holds that seat (or won the race for it)."""


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
    join_code: str | None = None
    everyone_edits: bool = False
    finished_at: datetime | None = None

    @property
    def finished(self) -> bool:
        return self.finished_at is not None


@dataclass(frozen=True)
class Member:
    device: str
    host: bool
    seat: int | None
    joined_at: datetime


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
            _upgrade(engine)
            break
        except (sa.exc.OperationalError, sa.exc.ProgrammingError, sa.exc.IntegrityError):
            if attempt == 2:
                raise
    # Connections must not outlive a fork (gunicorn --preload): each worker opens its own.
    engine.dispose()


#: Columns added to ``score_tables`` after the first release, with their DDL types.
_ADDED_COLUMNS = {
    "join_code": "VARCHAR(8)",
    "everyone_edits": "BOOLEAN NOT NULL DEFAULT FALSE",
    "finished_at": "TIMESTAMP WITH TIME ZONE",
}


def _upgrade(engine: Engine) -> None:
    """Bring a database made by an older release up to this schema (idempotent).

    Adds the sharing columns, their index, and on PostgreSQL widens the id columns for the
    longer table ids (SQLite does not enforce ``VARCHAR`` lengths).
    """
    inspector = sa.inspect(engine)
    columns = {c["name"]: c for c in inspector.get_columns("score_tables")}
    postgres = engine.dialect.name == "postgresql"
    with engine.begin() as conn:
        for name, ddl in _ADDED_COLUMNS.items():
            if name not in columns:
                conn.exec_driver_sql(f"ALTER TABLE score_tables ADD COLUMN {name} {ddl}")
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


def _now() -> datetime:
    return datetime.now(UTC)


def _new_id() -> str:
    """A layout id: short, since a layout is not a secret."""
    return secrets.token_urlsafe(6)


def new_table_id() -> str:
    """A table id: 128 random bits, so a table's URL cannot be guessed or enumerated."""
    return secrets.token_urlsafe(16)


#: Join codes avoid characters read one for another: no 0/O, 1/I/L.
CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
CODE_LENGTH = 6


def new_join_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normal_code(text: str) -> str:
    """A typed join code as stored: upper case, spaces and dashes dropped."""
    return "".join(ch for ch in text.upper() if ch.isalnum())[:20]


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
        join_code=row.join_code,
        everyone_edits=bool(row.everyone_edits),
        finished_at=row.finished_at,
    )


def create_table(
    game: str,
    title: str,
    doc: dict[str, Any],
    meta: dict[str, Any],
    host: str | None = None,
) -> str:
    """Store a new table; ``host`` (a phone's device hash) becomes its host."""
    table_id, now = new_table_id(), _now()
    for attempt in range(5):
        try:
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
                        join_code=new_join_code(),
                        everyone_edits=False,
                    )
                )
                conn.execute(
                    history.insert().values(
                        table_id=table_id, seq=0, doc=_dumps(doc), meta=_dumps(meta)
                    )
                )
                if host:
                    conn.execute(
                        members.insert().values(
                            table_id=table_id, device=host, host=True, seat=None, joined_at=now
                        )
                    )
            return table_id
        except sa.exc.IntegrityError:  # a join code in use already (1 in ~10⁵ at 10⁴ tables)
            if attempt == 4:
                raise
    raise AssertionError("unreachable")


def get_table(table_id: str) -> StoredTable:
    with reading() as conn:
        row = conn.execute(score_tables.select().where(score_tables.c.id == table_id)).first()
    if row is None:
        raise NotFound("no such table")
    return _stored(row)


def list_tables(device: str | None, limit: int = 100, finished: bool = False) -> list[StoredTable]:
    """The tables a phone created or joined, newest first (none for an unknown phone).

    Tables are never listed for everyone: a table's address is its only way in.
    ``finished`` keeps only finished tables.
    """
    if not device:
        return []
    query = (
        score_tables.select()
        .join(members, members.c.table_id == score_tables.c.id)
        .where(members.c.device == device)
        .order_by(score_tables.c.updated_at.desc())
        .limit(limit)
    )
    if finished:
        query = query.where(score_tables.c.finished_at.is_not(None))
    with reading() as conn:
        return [_stored(row) for row in conn.execute(query)]


def delete_table(table_id: str) -> None:
    with writing() as conn:
        conn.execute(history.delete().where(history.c.table_id == table_id))
        conn.execute(members.delete().where(members.c.table_id == table_id))
        conn.execute(photos.delete().where(photos.c.table_id == table_id))
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


#: Checks a history step before it is taken: (table now, document after, metadata after).
Guard = Callable[[StoredTable, dict[str, Any], dict[str, Any]], None]


def undo(
    table_id: str, expected_version: int | None = None, guard: Guard | None = None
) -> StoredTable:
    return _move(table_id, -1, expected_version, guard)


def redo(
    table_id: str, expected_version: int | None = None, guard: Guard | None = None
) -> StoredTable:
    return _move(table_id, +1, expected_version, guard)


def _move(
    table_id: str, step: int, expected_version: int | None, guard: Guard | None
) -> StoredTable:
    """Move the history position one step, if the table is still as the client saw it.

    ``guard`` may refuse the step (it raises) after seeing what it would change, e.g. a
    phone undoing an edit of a board that is not its own.
    """
    with writing() as conn:
        row = _locked(conn, table_id)
        current = _stored(row)
        _check_version(current, expected_version)
        seq = row.position + step
        if not row.oldest <= seq <= row.newest:
            if guard is not None:  # nothing to move; the guard may still refuse (finished)
                guard(current, current.doc, current.meta)
            return current
        entry = conn.execute(
            sa.select(history.c.doc, history.c.meta).where(
                history.c.table_id == table_id, history.c.seq == seq
            )
        ).one()
        doc, meta = json.loads(entry.doc), json.loads(entry.meta)
        if guard is not None:
            guard(current, doc, meta)
        return _update(conn, row, seq, row.oldest, row.newest, doc, meta)


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
        join_code=row.join_code,
        everyone_edits=bool(row.everyone_edits),
        finished_at=row.finished_at,
    )


# --- sharing: host, seats, finishing, join codes -------------------------------------------


def table_state(table_id: str) -> tuple[int, bool]:
    """The version and whether the table is finished: all a live poll needs to read."""
    query = sa.select(score_tables.c.version, score_tables.c.finished_at).where(
        score_tables.c.id == table_id
    )
    with reading() as conn:
        row = conn.execute(query).first()
    if row is None:
        raise NotFound("no such table")
    return row.version, row.finished_at is not None


def _member(row: sa.Row[Any]) -> Member:
    return Member(device=row.device, host=bool(row.host), seat=row.seat, joined_at=row.joined_at)


def member(table_id: str, device: str | None) -> Member | None:
    """What this phone is at this table: host, a seat, both, or nothing (``None``)."""
    if not device:
        return None
    query = members.select().where(members.c.table_id == table_id, members.c.device == device)
    with reading() as conn:
        row = conn.execute(query).first()
    return _member(row) if row else None


def members_of(table_id: str) -> list[Member]:
    query = members.select().where(members.c.table_id == table_id).order_by(members.c.joined_at)
    with reading() as conn:
        return [_member(row) for row in conn.execute(query)]


def adopt(table_id: str, device: str) -> bool:
    """A table made before tables had hosts gets the first phone that opens it as its host."""
    with writing() as conn:
        _locked(conn, table_id)
        hosted = conn.execute(
            sa.select(members.c.device).where(members.c.table_id == table_id, members.c.host)
        ).first()
        if hosted is not None:
            return False
        mine = members.c.table_id == table_id, members.c.device == device
        if conn.execute(sa.select(members.c.device).where(*mine)).first():
            conn.execute(members.update().where(*mine).values(host=True))
        else:
            conn.execute(
                members.insert().values(
                    table_id=table_id, device=device, host=True, seat=None, joined_at=_now()
                )
            )
        return True


def claim_seat(table_id: str, device: str, seat: int) -> None:
    """Give ``seat`` to this phone (moving it from any seat it held); :class:`SeatTaken` if
    another phone holds it. The table's row is locked, so two phones never both win a seat.
    """
    with writing() as conn:
        row = _locked(conn, table_id)
        if row.finished_at is not None:
            raise SeatTaken("the table is finished")
        taken = members.c.table_id == table_id, members.c.seat == seat
        holder = conn.execute(sa.select(members.c.device).where(*taken)).first()
        if holder is not None and holder.device != device:
            raise SeatTaken("another phone holds this seat")
        mine = members.c.table_id == table_id, members.c.device == device
        if conn.execute(sa.select(members.c.device).where(*mine)).first():
            conn.execute(members.update().where(*mine).values(seat=seat))
        else:
            conn.execute(
                members.insert().values(
                    table_id=table_id, device=device, host=False, seat=seat, joined_at=_now()
                )
            )


def free_seat(table_id: str, seat: int) -> bool:
    """Take a seat back from the phone holding it (the host's decision); False if it was free.

    A phone that was only that seat is no longer a member: it loses the table from its list
    and every right to edit it.
    """
    with writing() as conn:
        _locked(conn, table_id)
        taken = members.c.table_id == table_id, members.c.seat == seat
        holder = conn.execute(sa.select(members.c.host).where(*taken)).first()
        if holder is None:
            return False
        if holder.host:
            conn.execute(members.update().where(*taken).values(seat=None))
        else:
            conn.execute(members.delete().where(*taken))
        return True


def set_everyone_edits(table_id: str, allowed: bool) -> None:
    with writing() as conn:
        _locked(conn, table_id)
        conn.execute(
            score_tables.update()
            .where(score_tables.c.id == table_id)
            .values(everyone_edits=allowed)
        )


def finish_table(table_id: str, finished: bool = True) -> StoredTable:
    """Finish a table (read-only from now on, its join code retired) or reopen it.

    The version moves on, so every phone's live poll notices.
    """
    with writing() as conn:
        row = _locked(conn, table_id)
        if (row.finished_at is not None) != finished:
            code = None if finished else new_join_code()
            conn.execute(
                score_tables.update()
                .where(score_tables.c.id == table_id)
                .values(
                    finished_at=_now() if finished else None,
                    join_code=code,
                    version=row.version + 1,
                )
            )
        row = _locked(conn, table_id)
        return _stored(row)


def ensure_join_code(table_id: str) -> str | None:
    """The table's join code, making one for a table from before join codes (None when
    the table is finished)."""
    for attempt in range(5):
        try:
            with writing() as conn:
                row = _locked(conn, table_id)
                if row.join_code or row.finished_at is not None:
                    code: str | None = row.join_code
                    return code
                code = new_join_code()
                conn.execute(
                    score_tables.update()
                    .where(score_tables.c.id == table_id)
                    .values(join_code=code)
                )
                return code
        except sa.exc.IntegrityError:
            if attempt == 4:
                raise
    raise AssertionError("unreachable")


def table_by_code(code: str) -> str | None:
    """The id of the unfinished table with this join code, if any."""
    code = normal_code(code)
    if len(code) != CODE_LENGTH:
        return None
    query = sa.select(score_tables.c.id).where(
        score_tables.c.join_code == code, score_tables.c.finished_at.is_(None)
    )
    with reading() as conn:
        row = conn.execute(query).first()
    return row.id if row else None


# --- rate limits -------------------------------------------------------------------------------


def take(bucket: str, limit: int, period: int) -> bool:
    """Count one attempt in ``bucket`` if fewer than ``limit`` were made this ``period``
    (seconds); False when the limit is reached (nothing counted).

    Fixed windows stored in the database, so every gunicorn worker shares the count.
    """
    now = int(time.time())
    with writing() as conn:
        conn.execute(
            _insert_ignore(conn, rate_limits).values(
                bucket=bucket[:120], expires=now - now % period + period, hits=0
            )
        )
        row = conn.execute(
            rate_limits.select().where(rate_limits.c.bucket == bucket[:120]).with_for_update()
        ).one()
        hits, expires = row.hits, row.expires
        if expires <= now:  # a new window
            hits, expires = 0, now - now % period + period
        if hits >= limit:
            return False
        conn.execute(
            rate_limits.update()
            .where(rate_limits.c.bucket == bucket[:120])
            .values(hits=hits + 1, expires=expires)
        )
        if secrets.randbelow(50) == 0:  # now and then, forget windows long over
            conn.execute(rate_limits.delete().where(rate_limits.c.expires < now))
        return True


def refund(bucket: str) -> None:
    """Give back one attempt (it turned out not to count, e.g. a correct join code)."""
    with writing() as conn:
        conn.execute(
            rate_limits.update()
            .where(rate_limits.c.bucket == bucket[:120], rate_limits.c.hits > 0)
            .values(hits=rate_limits.c.hits - 1)
        )


def _insert_ignore(conn: Connection, table: sa.Table) -> Any:
    """``INSERT ... ON CONFLICT DO NOTHING`` in the connection's dialect."""
    if conn.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        return pg_insert(table).on_conflict_do_nothing()
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert

    return sqlite_insert(table).on_conflict_do_nothing()


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


# --- photos ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StoredPhoto:
    id: str
    table_id: str
    player: int
    mime: str
    data: bytes
    created_at: datetime


#: Photos kept per player of a table: re-photographing a board many times stays small.
PHOTOS_PER_PLAYER = 3


def add_photo(table_id: str, player: int, mime: str, data: bytes) -> str:
    """Keep a photo of ``player``'s board (the oldest beyond :data:`PHOTOS_PER_PLAYER` go)."""
    photo_id = _new_id()
    with writing() as conn:
        _locked(conn, table_id)  # the table exists, and two uploads do not race the pruning
        conn.execute(
            photos.insert().values(
                id=photo_id,
                table_id=table_id,
                player=player,
                mime=mime,
                data=data,
                created_at=_now(),
            )
        )
        kept = (
            sa.select(photos.c.id)
            .where(photos.c.table_id == table_id, photos.c.player == player)
            .order_by(photos.c.created_at.desc(), photos.c.id)
            .limit(PHOTOS_PER_PLAYER)
        )
        keep = [row.id for row in conn.execute(kept)]
        conn.execute(
            photos.delete().where(
                photos.c.table_id == table_id,
                photos.c.player == player,
                photos.c.id.not_in(keep),
            )
        )
    return photo_id


def get_photo(table_id: str, photo_id: str) -> StoredPhoto:
    query = photos.select().where(photos.c.table_id == table_id, photos.c.id == photo_id)
    with reading() as conn:
        row = conn.execute(query).first()
    if row is None:
        raise NotFound("no such photo")
    return StoredPhoto(
        id=row.id,
        table_id=row.table_id,
        player=row.player,
        mime=row.mime,
        data=bytes(row.data),
        created_at=row.created_at,
    )


def delete_photo(table_id: str, photo_id: str) -> None:
    """Forget a photo whose reading was not stored (a refused or stale board)."""
    with writing() as conn:
        conn.execute(photos.delete().where(photos.c.table_id == table_id, photos.c.id == photo_id))
