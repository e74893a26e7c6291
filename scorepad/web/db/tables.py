"""Tables of players: their board-file document, metadata and undo history.

A table keeps every document it has had as numbered history entries; ``position`` says which
one is current, so undo and redo move it and a new edit drops the entries above it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from scorepad.web.db.connect import dumps, locked, reading, utc_now, writing
from scorepad.web.db.schema import (
    Conflict,
    NotFound,
    history,
    members,
    new_join_code,
    new_table_id,
    photos,
    score_tables,
)

#: Undo steps kept per table; older entries are dropped so a long game stays small.
HISTORY_LIMIT = 400
#: Undo steps a finished table keeps (for a reopened table's last corrections): each step is
#: a whole document, so a game's taps came to about 90 times its final size.
FINISHED_HISTORY = 30


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

    def file_name(self, ext: str) -> str:
        """The name every download of the table takes: game, day of its last change and the
        start of its id ("sunflower-valley-2026-12-04-SfHm-f.csv"), the same for an export
        as for its CSV, recap and card."""
        return f"{self.game}-{self.updated_at.strftime('%Y-%m-%d')}-{self.id[:6]}.{ext}"


def table_from_row(row: sa.Row[Any]) -> StoredTable:
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
    table_id, now = new_table_id(), utc_now()
    for attempt in range(5):
        try:
            with writing() as conn:
                conn.execute(
                    score_tables.insert().values(
                        id=table_id,
                        game=game,
                        title=title[:200],
                        doc=dumps(doc),
                        meta=dumps(meta),
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
                        table_id=table_id, seq=0, doc=dumps(doc), meta=dumps(meta)
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
    return table_from_row(row)


@dataclass(frozen=True)
class TableSummary:
    """A table as a list shows it: no document and no metadata, so thousands stay cheap."""

    id: str
    game: str
    title: str
    version: int
    updated_at: datetime
    finished_at: datetime | None = None

    @property
    def finished(self) -> bool:
        return self.finished_at is not None


def _mine(columns: Sequence[Any], device: str, limit: int, finished: bool) -> sa.Select[Any]:
    """The tables a phone created or joined, newest first; ``finished``: only those."""
    query = (
        sa.select(*columns)
        .join(members, members.c.table_id == score_tables.c.id)
        .where(members.c.device == device)
        # not a table whose host freed this phone's seat (a row kept to say so)
        .where(sa.or_(members.c.host, members.c.seat.is_not(None)))
        .order_by(score_tables.c.updated_at.desc())
        .limit(limit)
    )
    return query.where(score_tables.c.finished_at.is_not(None)) if finished else query


def list_tables(device: str | None, limit: int = 100, finished: bool = False) -> list[StoredTable]:
    """The tables a phone created or joined, whole, newest first (none for an unknown phone).

    Tables are never listed for everyone: a table's address is its only way in.
    ``finished`` keeps only finished tables.
    """
    if not device:
        return []
    with reading() as conn:
        query = _mine([score_tables], device, limit, finished)
        return [table_from_row(row) for row in conn.execute(query)]


def list_summaries(
    device: str | None, limit: int = 100, finished: bool = False
) -> list[TableSummary]:
    """:func:`list_tables` without the documents (the list of past tables, statistics)."""
    if not device:
        return []
    c = score_tables.c
    columns = (c.id, c.game, c.title, c.version, c.updated_at, c.finished_at)
    with reading() as conn:
        return [TableSummary(*row) for row in conn.execute(_mine(columns, device, limit, finished))]


def get_tables(table_ids: Sequence[str]) -> list[StoredTable]:
    """Several tables, whole, in one query (those that exist, in no particular order)."""
    if not table_ids:
        return []
    query = score_tables.select().where(score_tables.c.id.in_(list(table_ids)))
    with reading() as conn:
        return [table_from_row(row) for row in conn.execute(query)]


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
            row = locked(conn, table_id)
            if row.version == current.version:
                return _store(conn, row, doc, meta)
    with writing() as conn:
        row = locked(conn, table_id)
        current = table_from_row(row)
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
        history.insert().values(table_id=row.id, seq=seq, doc=dumps(doc), meta=dumps(meta))
    )
    oldest = max(row.oldest, seq - HISTORY_LIMIT)
    if oldest > row.oldest:
        conn.execute(history.delete().where(history.c.table_id == row.id, history.c.seq < oldest))
    return _update(conn, row, seq, oldest, seq, doc, meta)


def trim_history(conn: Connection, row: sa.Row[Any]) -> int:
    """Drop the undo steps more than ``FINISHED_HISTORY`` before the current one; the new
    oldest step (redo steps are kept)."""
    oldest = max(row.oldest, row.position - FINISHED_HISTORY)
    if oldest > row.oldest:
        conn.execute(history.delete().where(history.c.table_id == row.id, history.c.seq < oldest))
    return int(oldest)


#: Checks a history step before it is taken: (table now, document after, metadata after).
Guard = Callable[[StoredTable, dict[str, Any], dict[str, Any]], None]
#: A table's document and metadata at one step of its history.
Step = tuple[dict[str, Any], dict[str, Any]]


def steps_around(table_id: str, version: int) -> tuple[Step | None, Step | None]:
    """The table's documents one step back and one step forward in its history (what an
    undo and a redo would make it), None at either end, or both None when the table is no
    longer at ``version``: the editor asks whether this phone may take them."""
    with reading() as conn:
        row = conn.execute(
            sa.select(
                score_tables.c.version,
                score_tables.c.position,
                score_tables.c.oldest,
                score_tables.c.newest,
            ).where(score_tables.c.id == table_id)
        ).first()
        if row is None or row.version != version:
            return None, None
        seqs = [s for s in (row.position - 1, row.position + 1) if row.oldest <= s <= row.newest]
        entries = conn.execute(
            sa.select(history.c.seq, history.c.doc, history.c.meta).where(
                history.c.table_id == table_id, history.c.seq.in_(seqs)
            )
        ).all()
    found = {e.seq: (json.loads(e.doc), json.loads(e.meta)) for e in entries}
    return found.get(row.position - 1), found.get(row.position + 1)


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
        row = locked(conn, table_id)
        current = table_from_row(row)
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


def _update(
    conn: Connection,
    row: sa.Row[Any],
    position: int,
    oldest: int,
    newest: int,
    doc: dict[str, Any],
    meta: dict[str, Any],
) -> StoredTable:
    now = utc_now()
    conn.execute(
        score_tables.update()
        .where(score_tables.c.id == row.id)
        .values(
            doc=dumps(doc),
            meta=dumps(meta),
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
