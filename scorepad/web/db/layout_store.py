"""Layouts: a game's sheet or board side, defined once by a table and reused."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa

from scorepad.web.db.connect import dumps, reading, utc_now, writing
from scorepad.web.db.schema import NotFound, layouts, new_id


@dataclass(frozen=True)
class StoredLayout:
    id: str
    game: str
    name: str
    data: dict[str, Any]
    updated_at: datetime
    owner: str | None = None  # the device hash of the phone that made it

    def may_change(self, device: str | None) -> bool:
        """Only the phone that made a layout changes it (one made before owners: anyone)."""
        return self.owner is None or self.owner == device


def _layout(row: sa.Row[Any]) -> StoredLayout:
    return StoredLayout(
        id=row.id,
        game=row.game,
        name=row.name,
        data=json.loads(row.data),
        updated_at=row.updated_at,
        owner=row.owner,
    )


def create_layout(game: str, name: str, data: dict[str, Any], owner: str | None = None) -> str:
    layout_id, now = new_id(), utc_now()
    with writing() as conn:
        conn.execute(
            layouts.insert().values(
                id=layout_id,
                game=game,
                name=name[:80],
                data=dumps(data),
                created_at=now,
                updated_at=now,
                owner=owner,
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
    layout_id: str,
    change: Callable[[StoredLayout], tuple[str, dict[str, Any]]],
    device: str | None = None,
) -> StoredLayout:
    """Replace a layout's name and data with what ``change`` returns (it may raise). A
    layout from before owners becomes the changing ``device``'s."""
    with writing() as conn:
        query = layouts.select().where(layouts.c.id == layout_id).with_for_update()
        row = conn.execute(query).first()
        if row is None:
            raise NotFound("no such layout")
        name, data = change(_layout(row))
        now = utc_now()
        owner = row.owner or device
        conn.execute(
            layouts.update()
            .where(layouts.c.id == layout_id)
            .values(name=name[:80], data=dumps(data), updated_at=now, owner=owner)
        )
        return StoredLayout(
            id=row.id, game=row.game, name=name[:80], data=data, updated_at=now, owner=owner
        )


def delete_layout(layout_id: str) -> None:
    with writing() as conn:
        gone = conn.execute(layouts.delete().where(layouts.c.id == layout_id))
    if gone.rowcount == 0:
        raise NotFound("no such layout")
