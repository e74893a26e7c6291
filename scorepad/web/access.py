"""Who may do what at a shared table: the host, the seats, and everyone else.

Each browser holds one secret key in a cookie (``scorepad_device``: 256 random bits,
``HttpOnly``, ``SameSite=Lax``, ``Secure`` over HTTPS). The server stores only its SHA-256
(:func:`device`), bound in ``members`` to a table as its *host* (the phone that created it)
and/or to one *seat* (a player of the table, claimed on the join page). So the right to edit
a board is the secret that phone holds: another phone cannot present it, and when the host
frees the seat the binding is gone and the same phone's requests are refused.

Rights (:class:`Rights`):

- the host edits every board, and alone may free seats, let everyone edit, finish or reopen
  and delete the table;
- a seat edits its own board, and every board when the host lets everyone edit;
- anyone else who has the table's address sees it read-only and may claim a free seat
  (a phone whose seat the host freed too: its refusals say so, :attr:`Rights.freed`);
- a finished table is read-only for everybody.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass, replace
from typing import Any

from flask import Flask, Response, current_app, g, request
from flask_babel import gettext  # type: ignore[import-untyped]

from scorepad.web import db

COOKIE = "scorepad_device"
#: The cookie lives two years: a phone keeps its seats and its list of tables.
COOKIE_AGE = 2 * 365 * 24 * 3600


class Forbidden(PermissionError):
    """This phone may not make that change; the message says why, for the player."""


def init_app(app: Flask) -> None:
    app.after_request(_set_cookie)


def _key() -> str | None:
    """This browser's secret key, if it sent a well-formed one."""
    if "device_key" in g:
        key: str | None = g.device_key
        return key
    raw = request.cookies.get(COOKIE, "")
    # A short or odd value is not a key this app made: treat the browser as new.
    return raw if 40 <= len(raw) <= 64 and raw.replace("-", "").replace("_", "").isalnum() else None


def _hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def device() -> str | None:
    """The stored identity of this browser (SHA-256 of its key), or None for a new one."""
    key = _key()
    return _hash(key) if key else None


def ensure_device() -> str:
    """This browser's identity, giving it a new secret key (set on the response) if needed."""
    key = _key()
    if key is None:
        key = secrets.token_urlsafe(32)
        g.device_key = key
        g.set_device_cookie = True
    return _hash(key)


def _set_cookie(resp: Response) -> Response:
    if g.get("set_device_cookie"):
        resp.set_cookie(
            COOKIE,
            g.device_key,
            max_age=COOKIE_AGE,
            httponly=True,
            samesite="Lax",
            secure=request.is_secure,
            path="/",
        )
    return resp


@dataclass(frozen=True)
class Rights:
    """What this phone may do at one table."""

    host: bool
    seat: int | None
    everyone_edits: bool
    finished: bool
    #: The host freed this phone's seat (and it has taken none since): it edits nothing, and
    #: a refusal says so rather than naming the board's owner.
    freed: bool = False

    def can_edit(self, player: int) -> bool:
        if self.finished:
            return False
        return self.host or self.seat == player or (self.seat is not None and self.everyone_edits)

    @property
    def can_edit_any(self) -> bool:
        return not self.finished and (self.host or self.seat is not None)

    @property
    def can_edit_all(self) -> bool:
        return not self.finished and (self.host or (self.seat is not None and self.everyone_edits))

    def at(self, stored: db.StoredTable) -> Rights:
        """These rights as ``stored`` stands (finished, or everyone allowed to edit, since
        they were read)."""
        return replace(self, everyone_edits=stored.everyone_edits, finished=stored.finished)


def rights(stored: db.StoredTable) -> Rights:
    """This phone's rights at ``stored``."""
    return rights_at(stored.id).at(stored)


def rights_at(table_id: str) -> Rights:
    """This phone's place at a table, read without the table itself (an edit reads the table
    anyway and fills in ``everyone_edits`` and ``finished`` from what it read).

    A table from before hosts is adopted by its first visitor, who becomes its host.
    """
    mine = db.member(table_id, device())
    if (
        mine is None
        and current_app.config.get("ADOPT_HOSTLESS_TABLES", True)
        and not any(m.host for m in db.members_of(table_id))
    ):
        db.adopt(table_id, ensure_device())
        mine = db.member(table_id, device())
    return Rights(
        host=bool(mine and mine.host),
        seat=mine.seat if mine else None,
        everyone_edits=False,
        finished=False,
        freed=bool(mine and mine.freed),
    )


def require_host(stored: db.StoredTable) -> Rights:
    found = rights(stored)
    if not found.host:
        raise Forbidden(gettext("Only the table's host can do that."))
    return found


def check_change(
    found: Rights,
    before: db.StoredTable,
    doc: dict[str, Any],
    meta: dict[str, Any],
    names: list[str],
) -> None:
    """Refuse a change (an edit, an undo or a redo) that touches a board this phone may not
    edit, or the table's shared records (e.g. Spring Meadow's recorded phases) without the
    right to edit every board."""
    if found.finished:
        raise Forbidden(gettext("This table is finished: its boards are read-only."))
    for i in changed_boards(before.doc, doc):
        if not found.can_edit(i):
            name = names[i] if i < len(names) else str(i + 1)
            if found.freed:
                raise Forbidden(seat_freed(name))
            raise Forbidden(
                gettext(
                    "That would change %(name)s's board, which only %(name)s's phone or the "
                    "host can edit.",
                    name=name,
                )
            )
    if (meta != before.meta or _shared(doc) != _shared(before.doc)) and not found.can_edit_all:
        raise Forbidden(
            gettext("Only the host (or everyone, when the host allows it) can change that.")
        )


def seat_freed(name: str) -> str:
    """Why a phone whose seat the host freed may not edit ``name``'s board (it may have been
    that board's phone), and what it can do."""
    return str(
        gettext(
            "The host freed your seat at this table, so this phone can no longer edit "
            "%(name)s's board. To edit again, take a seat from the join page.",
            name=name,
        )
    )


def changed_boards(old: dict[str, Any], new: dict[str, Any]) -> list[int]:
    """The seats whose boards differ between two versions of a table (a seat only one of
    them has counts as changed)."""
    a, b = old.get("players", []), new.get("players", [])
    return [
        i
        for i in range(max(len(a), len(b)))
        if (a[i] if i < len(a) else None) != (b[i] if i < len(b) else None)
    ]


def _shared(doc: dict[str, Any]) -> dict[str, Any]:
    """The parts of a board file that belong to no single player (game options)."""
    return {k: v for k, v in doc.items() if k != "players"}
