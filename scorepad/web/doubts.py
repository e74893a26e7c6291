"""Cells a photo left in doubt: which cells of a board the recogniser was unsure of.

Kept in the table's metadata (``meta["photos"][player] = {"id", "check": [[a, b], ...]}``,
``[q, r]`` hexes or ``[row, col]`` squares), so the doubts survive reloads, follow undo and
redo, and are the same on every phone. A tap on a doubtful cell marks it checked.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from scorepad.web import db
from scorepad.web.boards import whole_pair


def photo_of(meta: Mapping[str, Any], player: int) -> dict[str, Any]:
    """The player's last photo: ``{"id", "check": [[a, b], ...]}`` (empty when none)."""
    found = meta.get("photos", {}).get(str(player))
    return dict(found) if isinstance(found, Mapping) else {}


def evidence_ids(
    table_id: str, meta: Mapping[str, Any], players: Iterable[int]
) -> list[str | None]:
    """Per player asked for, the id of the photo shown beside the board, None when there is
    none or it is no longer kept (an undo far back: ``db.PHOTOS_IN_HISTORY``). The store is
    asked only when one of them has a photo."""
    ids = [photo_of(meta, i).get("id") for i in players]
    kept = db.photo_ids(table_id) if any(ids) else frozenset()
    return [i if i in kept else None for i in ids]


def flagged(meta: Mapping[str, Any], player: int) -> set[tuple[int, int]]:
    """The cells of the player's board still to check after a photo."""
    return {(int(a), int(b)) for a, b in photo_of(meta, player).get("check", [])}


def unchecked(meta: Mapping[str, Any]) -> int:
    """How many cells read from photos are still to check, on every board: finishing the
    table says so first (its boards then become read-only, the outlines are dropped)."""
    photos = meta.get("photos", {})
    return sum(
        len(found.get("check", [])) for found in photos.values() if isinstance(found, Mapping)
    )


def with_photo(
    meta: Mapping[str, Any], player: int, photo_id: str, check: list[list[int]]
) -> dict[str, Any]:
    photos = {**meta.get("photos", {}), str(player): {"id": photo_id, "check": check}}
    return {**meta, "photos": photos}


def checked(meta: dict[str, Any], player: int, done: set[tuple[int, int]] | None) -> dict[str, Any]:
    """``meta`` with ``done`` cells (every cell when None) no longer to check."""
    photo = photo_of(meta, player)
    if not photo.get("check"):
        return meta
    left = [] if done is None else [c for c in photo["check"] if (c[0], c[1]) not in done]
    if len(left) == len(photo["check"]):
        return meta
    photos = {**meta["photos"], str(player): {**photo, "check": left}}
    return {**meta, "photos": photos}


def tapped_cells(form: Mapping[str, str]) -> set[tuple[int, int]]:
    """The cells a tap form names: ``q, r``, ``row, col`` or a drag's ``squares``."""
    parts = form.get("squares", "").split(";") if form.get("squares") else []
    parts += [f"{form.get('q', '')},{form.get('r', '')}", f"{form.get('row')},{form.get('col')}"]
    return {cell for part in parts if (cell := whole_pair(part)) is not None}


def listed(
    meta: Mapping[str, Any], player: int, labels: Mapping[tuple[int, int], str]
) -> list[dict[str, Any]]:
    """The cells still to check, least sure first: ``{"a", "b", "label"}`` for the editor."""
    return [
        {"a": a, "b": b, "label": labels[(a, b)]}
        for a, b in photo_of(meta, player).get("check", [])
        if (a, b) in labels
    ]
