"""Joining a shared table, and the host's controls.

A table is joined through its address ``/t/<id>/join`` (128 random bits, shown as a QR code
drawn on the server) or its short join code typed at ``/join``. Joining claims a free seat
(one of the table's players); that phone then edits that board. The host (the phone that
created the table) sees the code, the QR code and who holds each seat on ``/t/<id>/seats``,
and can free a seat, let everyone edit every board, and finish or reopen the table.

Join attempts are rate-limited in the database (:func:`scorepad.web.db.take`), per client
network (an IPv6 address's /64): wrong join codes (``JOIN_CODE_LIMIT``) and seat claims
(``JOIN_LIMIT``), so a code cannot be guessed by brute force through any number of workers.
"""

from __future__ import annotations

import ipaddress
from typing import Any

from flask import Blueprint, Response, current_app, request, url_for
from flask_babel import gettext  # type: ignore[import-untyped]

from scorepad.web import access, db
from scorepad.web.boards import whole_number
from scorepad.web.htmx import page_or_fragment, redirect_to
from scorepad.web.qr import qr_svg

bp = Blueprint("seats", __name__)

#: (attempts, seconds): wrong join codes per client address, seat claims per client address.
JOIN_CODE_LIMIT = (10, 600)
JOIN_LIMIT = (30, 600)


def limit_setting(name: str, default: tuple[int, int]) -> tuple[int, int]:
    """A rate limit, (attempts, seconds), from the app's config (tests set their own)."""
    limit, period = current_app.config.get(name, default)
    return int(limit), int(period)


#: The well-known NAT64 prefix (RFC 6052): the IPv4 address is its last 32 bits.
NAT64 = ipaddress.IPv6Network("64:ff9b::/96")


def client_address() -> str:
    """The client's network, for rate limits (behind a proxy: SCOREPAD_TRUSTED_PROXIES): an
    IPv4 address, or an IPv6 address's /64. One home or phone is given a whole /64 and
    picks addresses in it at will (privacy extensions), so a limit per IPv6 address could
    be dodged by changing address for every guess."""
    raw = request.remote_addr or "unknown"
    try:
        address = ipaddress.ip_address(raw)
    except ValueError:
        return raw
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:  # ::ffff:a.b.c.d from a dual-stack socket
            return str(address.ipv4_mapped)
        if address in NAT64:  # an IPv4 client behind a 4-to-6 translator: its own address
            return str(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return raw


def _too_many(template: str, fragment: str, **ctx: Any) -> Response:
    ctx["message"] = gettext(
        "Too many attempts from this network. Wait a few minutes and try again."
    )
    resp = page_or_fragment(template, fragment, 429, **ctx)
    resp.headers["Retry-After"] = "60"
    return resp


# --- joining -----------------------------------------------------------------------------------


@bp.get("/join")
def code_form() -> Response:
    return page_or_fragment(
        "seats/code.html", "seats/_code_form.html", message=None, code=request.args.get("code", "")
    )


@bp.post("/join")
def join_by_code() -> Response:
    """A typed join code: the table's join page, or a message; wrong codes are rate-limited."""
    code = db.normal_code(request.form.get("code", ""))
    bucket = f"code:{client_address()}"
    limit, period = limit_setting("JOIN_CODE_LIMIT", JOIN_CODE_LIMIT)
    if not db.take(bucket, limit, period):
        return _too_many("seats/code.html", "seats/_code_form.html", code=code)
    table_id = db.table_by_code(code)
    if table_id is None:
        message = gettext("No open table has this code. Check it on the host's screen.")
        return page_or_fragment(
            "seats/code.html", "seats/_code_form.html", 404, message=message, code=code
        )
    db.refund(bucket)  # only wrong codes count against the limit
    return redirect_to("seats.join", table_id=table_id)


def _seats(stored: db.StoredTable) -> list[dict[str, Any]]:
    """Every player of the table with the phone holding it (if any)."""
    holders = {m.seat: m for m in db.members_of(stored.id) if m.seat is not None}
    mine = access.device()
    return [
        {
            "index": i,
            "name": p.get("name", ""),
            "taken": i in holders,
            "yours": i in holders and holders[i].device == mine,
            "host": i in holders and holders[i].host,
            "since": holders[i].joined_at if i in holders else None,
        }
        for i, p in enumerate(stored.doc.get("players", []))
    ]


def _join_context(stored: db.StoredTable, message: str | None = None) -> dict[str, Any]:
    return {
        "table": stored,
        "seats": _seats(stored),
        "rights": access.rights(stored),
        "message": message,
    }


@bp.get("/t/<table_id>/join")
def join(table_id: str) -> Response:
    stored = db.get_table(table_id)
    return page_or_fragment("seats/join.html", "seats/_join.html", **_join_context(stored))


@bp.post("/t/<table_id>/join")
def claim(table_id: str) -> Response:
    """Claim a free seat for this phone; it then edits that player's board."""
    stored = db.get_table(table_id)
    seat = whole_number(request.form.get("seat", ""))
    if seat is None or not 0 <= seat < len(stored.doc.get("players", [])):
        ctx = _join_context(stored, gettext("Choose one of the table's players."))
        return page_or_fragment("seats/join.html", "seats/_join.html", 422, **ctx)
    limit, period = limit_setting("JOIN_LIMIT", JOIN_LIMIT)
    if not db.take(f"join:{client_address()}", limit, period):
        return _too_many("seats/join.html", "seats/_join.html", **_join_context(stored))
    try:
        db.claim_seat(table_id, access.ensure_device(), seat)
    except db.SeatTaken:
        message = (
            gettext("This table is finished.")
            if stored.finished
            else gettext("Another phone holds that seat.")
        )
        ctx = _join_context(db.get_table(table_id), message)
        return page_or_fragment("seats/join.html", "seats/_join.html", 409, **ctx)
    return redirect_to("editor.show", table_id=table_id, p=seat)


def join_code(stored: db.StoredTable) -> str | None:
    """The table's join code (None once finished); a table from before codes gets one."""
    if stored.finished:
        return None
    return stored.join_code or db.ensure_join_code(stored.id)


# --- the host's screen ----------------------------------------------------------------------


@bp.get("/t/<table_id>/seats")
def manage(table_id: str) -> Response:
    stored = db.get_table(table_id)
    code = join_code(stored)
    join_url = url_for("seats.join", table_id=table_id, _external=True)
    return page_or_fragment(
        "seats/manage.html",
        "seats/_manage.html",
        table=stored,
        seats=_seats(stored),
        rights=access.rights(stored),
        code=code,
        join_url=join_url,
        qr=qr_svg(join_url),
    )


@bp.post("/t/<table_id>/seats/<int:seat>/free")
def free(table_id: str, seat: int) -> Response:
    """The host takes a seat back: that phone can no longer edit the board."""
    stored = db.get_table(table_id)
    access.require_host(stored)
    if seat < len(stored.doc.get("players", [])):  # no other seat is ever held
        db.free_seat(table_id, seat)
    return redirect_to("seats.manage", table_id=table_id)


@bp.post("/t/<table_id>/everyone")
def everyone(table_id: str) -> Response:
    """Let every seated phone edit every board (or only its own again)."""
    access.require_host(db.get_table(table_id))
    db.set_everyone_edits(table_id, request.form.get("allowed") == "on")
    return redirect_to("seats.manage", table_id=table_id)


@bp.post("/t/<table_id>/finish")
def finish(table_id: str) -> Response:
    """Finish the table: boards read-only, live updates stop, it counts in the statistics."""
    access.require_host(db.get_table(table_id))
    db.finish_table(table_id, True)
    return redirect_to("tables.results", table_id=table_id)


@bp.post("/t/<table_id>/reopen")
def reopen(table_id: str) -> Response:
    access.require_host(db.get_table(table_id))
    db.finish_table(table_id, False)
    return redirect_to("editor.show", table_id=table_id)
