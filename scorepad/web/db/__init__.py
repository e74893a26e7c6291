"""Storage: tables of players (their board-file document, metadata, undo history), layouts,
seats and join codes, rate limits and photos.

SQLAlchemy Core over SQLite (a WAL file under ``instance/``) or PostgreSQL when
``DATABASE_URL`` names one. Every state-changing call is one short transaction that locks
the table's row first (``BEGIN IMMEDIATE`` on SQLite, ``SELECT ... FOR UPDATE`` on
PostgreSQL), so several gunicorn workers never interleave two edits of the same table.

The web layer uses this package's names (``db.get_table``, ``db.NotFound``); the modules
behind them: :mod:`.schema` (tables, errors, ids), :mod:`.connect` (engine, transactions),
:mod:`.tables` (documents and history), :mod:`.sharing` (host, seats, finishing, join
codes), :mod:`.limits` (rate limits shared by the workers), :mod:`.layout_store`,
:mod:`.photo_store` (the photo a board was read from, kept as evidence).
"""

from scorepad.web.db.connect import (
    create_schema,
    database_url,
    engine,
    init_app,
    make_engine,
    reading,
    writing,
)
from scorepad.web.db.layout_store import (
    StoredLayout,
    create_layout,
    delete_layout,
    edit_layout,
    get_layout,
    list_layouts,
)
from scorepad.web.db.limits import refund, take
from scorepad.web.db.photo_store import (
    PHOTOS_PER_PLAYER,
    StoredPhoto,
    add_photo,
    delete_photo,
    get_photo,
)
from scorepad.web.db.schema import (
    CODE_ALPHABET,
    CODE_LENGTH,
    ID_LENGTH,
    Conflict,
    NotFound,
    SeatTaken,
    history,
    layouts,
    members,
    metadata,
    new_join_code,
    new_table_id,
    normal_code,
    photos,
    rate_limits,
    score_tables,
)
from scorepad.web.db.sharing import (
    Member,
    adopt,
    claim_seat,
    ensure_join_code,
    finish_table,
    free_seat,
    member,
    members_of,
    set_everyone_edits,
    table_by_code,
    table_state,
)
from scorepad.web.db.tables import (
    HISTORY_LIMIT,
    StoredTable,
    create_table,
    delete_table,
    edit_table,
    get_table,
    list_tables,
    redo,
    undo,
)

__all__ = [
    "CODE_ALPHABET",
    "CODE_LENGTH",
    "HISTORY_LIMIT",
    "ID_LENGTH",
    "PHOTOS_PER_PLAYER",
    "Conflict",
    "Member",
    "NotFound",
    "SeatTaken",
    "StoredLayout",
    "StoredPhoto",
    "StoredTable",
    "add_photo",
    "adopt",
    "claim_seat",
    "create_layout",
    "create_schema",
    "create_table",
    "database_url",
    "delete_layout",
    "delete_photo",
    "delete_table",
    "edit_layout",
    "edit_table",
    "engine",
    "ensure_join_code",
    "finish_table",
    "free_seat",
    "get_layout",
    "get_photo",
    "get_table",
    "history",
    "init_app",
    "layouts",
    "list_layouts",
    "list_tables",
    "make_engine",
    "member",
    "members",
    "members_of",
    "metadata",
    "new_join_code",
    "new_table_id",
    "normal_code",
    "photos",
    "rate_limits",
    "reading",
    "redo",
    "refund",
    "score_tables",
    "set_everyone_edits",
    "table_by_code",
    "table_state",
    "take",
    "undo",
    "writing",
]
