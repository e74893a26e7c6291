"""The database schema (SQLAlchemy Core), the errors storage raises, and the ids and join
codes it hands out."""

from __future__ import annotations

import secrets

import sqlalchemy as sa

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
    # The phone that made it (its device hash), the only one that may change it; None for
    # layouts stored before layouts had owners (anyone may change those, as then).
    sa.Column("owner", sa.String(64), nullable=True),
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


class NotFound(LookupError):
    """No such table or layout (the message never says which ids exist)."""


class Conflict(RuntimeError):
    """The table changed since the client last saw it (another phone edited it)."""


class SeatTaken(RuntimeError):
    """Another phone holds that seat (or won the race for it)."""


def new_id() -> str:
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
