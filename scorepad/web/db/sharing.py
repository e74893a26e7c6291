"""Sharing a table: its host, the seats phones hold, finishing it, join codes.

``members`` binds a phone (the SHA-256 of the secret key its browser holds, see
:mod:`scorepad.web.access`) to a table as its host and/or to one seat. A row that is
neither is a phone whose seat the host freed: it has no right at the table (nor the table
in its list), and is kept only so that its refusals can say why.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from scorepad.web.db.connect import locked, reading, utc_now, writing
from scorepad.web.db.photo_store import prune_photos
from scorepad.web.db.schema import (
    CODE_LENGTH,
    NotFound,
    SeatTaken,
    members,
    new_join_code,
    normal_code,
    score_tables,
)
from scorepad.web.db.tables import StoredTable, table_from_row, trim_history


@dataclass(frozen=True)
class Member:
    device: str
    host: bool
    seat: int | None
    joined_at: datetime

    @property
    def freed(self) -> bool:
        """A phone whose seat the host took back (:func:`free_seat`), seated nowhere since."""
        return not self.host and self.seat is None


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
        locked(conn, table_id)
        hosted = conn.execute(
            sa.select(members.c.device).where(members.c.table_id == table_id, members.c.host)
        ).first()
        if hosted is not None:
            return False
        _make_member(conn, table_id, device, host=True)
        return True


def claim_seat(table_id: str, device: str, seat: int) -> None:
    """Give ``seat`` to this phone (moving it from any seat it held); :class:`SeatTaken` if
    another phone holds it. The table's row is locked, so two phones never both win a seat.
    """
    with writing() as conn:
        row = locked(conn, table_id)
        if row.finished_at is not None:
            raise SeatTaken("the table is finished")
        taken = members.c.table_id == table_id, members.c.seat == seat
        holder = conn.execute(sa.select(members.c.device).where(*taken)).first()
        if holder is not None and holder.device != device:
            raise SeatTaken("another phone holds this seat")
        _make_member(conn, table_id, device, seat=seat)


def _make_member(conn: Connection, table_id: str, device: str, **change: Any) -> None:
    """Set ``change`` (``host`` or ``seat``) on this phone's membership, making it a member
    (neither host nor seated but for ``change``) if it is not one yet."""
    mine = members.c.table_id == table_id, members.c.device == device
    if conn.execute(sa.select(members.c.device).where(*mine)).first():
        conn.execute(members.update().where(*mine).values(**change))
    else:
        values = {"host": False, "seat": None, **change}
        conn.execute(
            members.insert().values(table_id=table_id, device=device, joined_at=utc_now(), **values)
        )


def free_seat(table_id: str, seat: int) -> bool:
    """Take a seat back from the phone holding it (the host's decision); False if it was free.

    A phone that was only that seat keeps a row with no seat (:attr:`Member.freed`): it
    loses the table from its list and every right to edit it, and its refusals say that
    the host freed its seat (not that the board is another phone's).
    """
    with writing() as conn:
        locked(conn, table_id)
        taken = members.c.table_id == table_id, members.c.seat == seat
        holder = conn.execute(sa.select(members.c.device).where(*taken)).first()
        if holder is None:
            return False
        conn.execute(members.update().where(*taken).values(seat=None))
        _move_on(conn, table_id)  # that phone's poll redraws what it may do
        return True


def set_everyone_edits(table_id: str, allowed: bool) -> None:
    """Let every seated phone edit every board, or only its own. The version moves on, so
    every phone's live poll redraws what it may edit."""
    with writing() as conn:
        row = locked(conn, table_id)
        if row.everyone_edits != allowed:
            conn.execute(
                score_tables.update()
                .where(score_tables.c.id == table_id)
                .values(everyone_edits=allowed)
            )
            _move_on(conn, table_id)


def _move_on(conn: Connection, table_id: str) -> None:
    """A new version with the same boards: phones polling the table draw it again."""
    conn.execute(
        score_tables.update()
        .where(score_tables.c.id == table_id)
        .values(version=score_tables.c.version + 1)
    )


def finish_table(table_id: str, finished: bool = True) -> StoredTable:
    """Finish a table (read-only from now on, its join code retired, its undo history
    trimmed to the last ``FINISHED_HISTORY`` steps) or reopen it.

    The version moves on, so every phone's live poll notices.
    """
    with writing() as conn:
        row = locked(conn, table_id)
        if (row.finished_at is not None) != finished:
            code = None if finished else new_join_code()
            conn.execute(
                score_tables.update()
                .where(score_tables.c.id == table_id)
                .values(
                    finished_at=utc_now() if finished else None,
                    join_code=code,
                    version=row.version + 1,
                    oldest=trim_history(conn, row) if finished else row.oldest,
                )
            )
            if finished:  # photos only the dropped steps showed go with them
                prune_photos(conn, table_id)
        row = locked(conn, table_id)
        return table_from_row(row)


def ensure_join_code(table_id: str) -> str | None:
    """The table's join code, making one for a table from before join codes (None when
    the table is finished)."""
    for attempt in range(5):
        try:
            with writing() as conn:
                row = locked(conn, table_id)
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
