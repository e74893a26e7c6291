"""Rate limits counted in the database, so they hold across gunicorn workers."""

from __future__ import annotations

import secrets
import time
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from scorepad.web.db.connect import writing
from scorepad.web.db.schema import rate_limits


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
