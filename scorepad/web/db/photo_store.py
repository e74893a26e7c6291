"""The photo a board was read from, kept as evidence shown beside the board."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa

from scorepad.web.db.connect import locked, reading, utc_now, writing
from scorepad.web.db.schema import NotFound, history, new_id, photos


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
#: Older photos that the undo history still shows beside the board are kept too (Undo back
#: to a reading brings its photo back), the newest of them up to this many.
PHOTOS_IN_HISTORY = 12


def add_photo(table_id: str, player: int, mime: str, data: bytes) -> str:
    """Keep a photo of ``player``'s board. The player's older photos go, but for the newest
    :data:`PHOTOS_PER_PLAYER` and those the table's history shows (:func:`_shown_in_history`)."""
    photo_id = new_id()
    with writing() as conn:
        locked(conn, table_id)  # the table exists, and two uploads do not race the pruning
        conn.execute(
            photos.insert().values(
                id=photo_id,
                table_id=table_id,
                player=player,
                mime=mime,
                data=data,
                created_at=utc_now(),
            )
        )
        prune_photos(conn, table_id, [player])
    return photo_id


def prune_photos(conn: sa.Connection, table_id: str, players: Iterable[int] | None = None) -> None:
    """Drop the players' photos (all players' by default) but for the newest
    :data:`PHOTOS_PER_PLAYER` and those the table's history shows (a finished table's
    trimmed history shows fewer)."""
    if players is None:
        players = conn.execute(
            sa.select(photos.c.player).where(photos.c.table_id == table_id).distinct()
        ).scalars()
    for player in list(players):
        newest = (
            sa.select(photos.c.id)
            .where(photos.c.table_id == table_id, photos.c.player == player)
            .order_by(photos.c.created_at.desc(), photos.c.id)
            .limit(PHOTOS_PER_PLAYER)
        )
        keep = {row.id for row in conn.execute(newest)}
        keep.update(_shown_in_history(conn, table_id, player)[:PHOTOS_IN_HISTORY])
        conn.execute(
            photos.delete().where(
                photos.c.table_id == table_id,
                photos.c.player == player,
                photos.c.id.not_in(keep),
            )
        )


def _shown_in_history(conn: sa.Connection, table_id: str, player: int) -> list[str]:
    """Ids of the player's photos that the table's history entries show beside the board
    (``meta["photos"][player]["id"]``, as ``web.doubts`` keeps it), the newest entry first."""
    query = (
        sa.select(history.c.meta)
        .where(history.c.table_id == table_id)
        .order_by(history.c.seq.desc())
    )
    ids: list[str] = []
    for row in conn.execute(query):
        shown = json.loads(row.meta).get("photos", {}).get(str(player), {}).get("id")
        if shown and shown not in ids:
            ids.append(shown)
    return ids


def photo_ids(table_id: str) -> frozenset[str]:
    """The ids of the photos kept with a table (a history entry may name one since pruned)."""
    with reading() as conn:
        rows = conn.execute(sa.select(photos.c.id).where(photos.c.table_id == table_id))
        return frozenset(row.id for row in rows)


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
