"""Storage: documents, undo history, layouts; on SQLite and (when configured) PostgreSQL."""

from __future__ import annotations

import threading
from typing import Any

import pytest
import sqlalchemy as sa
from flask import Flask

from scorepad.web import db


def doc(n: int) -> dict[str, Any]:
    return {"game": "sunflower-valley", "players": [{"name": "Anna", "n": n}]}


def bump(to: int) -> Any:
    return lambda stored: (doc(to), stored.meta)


def test_create_and_read_back(app: Flask) -> None:
    with app.app_context():
        table_id = db.create_table("sunflower-valley", "A table", doc(0), {"layout": "x"})
        stored = db.get_table(table_id)
    assert stored.doc == doc(0)
    assert stored.meta == {"layout": "x"}
    assert stored.title == "A table"
    assert not stored.can_undo and not stored.can_redo


def test_unknown_table_is_not_found(app: Flask) -> None:
    with app.app_context(), pytest.raises(db.NotFound):
        db.get_table("nope")
    with app.app_context(), pytest.raises(db.NotFound):
        db.edit_table("nope", bump(1))
    with app.app_context(), pytest.raises(db.NotFound):
        db.undo("nope")


def test_edit_undo_redo_walk_the_history(app: Flask) -> None:
    with app.app_context():
        table_id = db.create_table("g", "t", doc(0), {})
        for n in (1, 2, 3):
            db.edit_table(table_id, bump(n))
        assert db.undo(table_id).doc == doc(2)
        assert db.undo(table_id).doc == doc(1)
        stored = db.redo(table_id)
        assert stored.doc == doc(2) and stored.can_undo and stored.can_redo
        assert db.get_table(table_id).doc == doc(2)


def test_new_edit_after_undo_drops_the_redo_entries(app: Flask) -> None:
    with app.app_context():
        table_id = db.create_table("g", "t", doc(0), {})
        db.edit_table(table_id, bump(1))
        db.edit_table(table_id, bump(2))
        db.undo(table_id)
        stored = db.edit_table(table_id, bump(9))
        assert not stored.can_redo
        assert db.redo(table_id).doc == doc(9)  # nothing to redo: unchanged
        assert db.undo(table_id).doc == doc(1)


def test_undo_at_the_start_changes_nothing(app: Flask) -> None:
    with app.app_context():
        table_id = db.create_table("g", "t", doc(0), {})
        stored = db.undo(table_id)
        assert stored.doc == doc(0) and stored.version == 1


def test_unchanged_edit_stores_no_history(app: Flask) -> None:
    with app.app_context():
        table_id = db.create_table("g", "t", doc(0), {})
        stored = db.edit_table(table_id, bump(0))
        assert stored.version == 1 and not stored.can_undo


def test_a_failing_change_stores_nothing(app: Flask) -> None:
    def refuse(_stored: db.StoredTable) -> Any:
        raise ValueError("no")

    with app.app_context():
        table_id = db.create_table("g", "t", doc(0), {})
        with pytest.raises(ValueError):
            db.edit_table(table_id, refuse)
        stored = db.get_table(table_id)
        assert stored.doc == doc(0) and stored.version == 1


def test_stale_version_is_a_conflict(app: Flask) -> None:
    with app.app_context():
        table_id = db.create_table("g", "t", doc(0), {})
        db.edit_table(table_id, bump(1), expected_version=1)
        with pytest.raises(db.Conflict):
            db.edit_table(table_id, bump(2), expected_version=1)
        assert db.get_table(table_id).doc == doc(1)


def test_history_is_capped(app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(db.tables, "HISTORY_LIMIT", 3)
    with app.app_context():
        table_id = db.create_table("g", "t", doc(0), {})
        for n in range(1, 8):
            db.edit_table(table_id, bump(n))
        undone = [db.undo(table_id).doc["players"][0]["n"] for _ in range(5)]
    assert undone == [6, 5, 4, 4, 4]


def test_a_finished_table_keeps_its_last_undo_steps(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(db.tables, "FINISHED_HISTORY", 2)
    with app.app_context():
        table_id = db.create_table("g", "t", doc(0), {})
        for n in range(1, 8):
            db.edit_table(table_id, bump(n))
        db.undo(table_id)  # at 6, with 7 to redo
        db.finish_table(table_id)
        with db.reading() as conn:
            kept = conn.execute(
                sa.select(db.history.c.seq).where(db.history.c.table_id == table_id)
            ).scalars()
            assert sorted(kept) == [4, 5, 6, 7]  # steps 0-3 dropped, the redo step kept
        db.finish_table(table_id, finished=False)
        undone = [db.undo(table_id).doc["players"][0]["n"] for _ in range(4)]
        assert undone == [5, 4, 4, 4]
        assert db.redo(table_id).doc["players"][0]["n"] == 5


def test_meta_is_part_of_the_history(app: Flask) -> None:
    with app.app_context():
        table_id = db.create_table("g", "t", doc(0), {"pins": 0})
        db.edit_table(table_id, lambda s: (s.doc, {"pins": 1}))
        assert db.undo(table_id).meta == {"pins": 0}


def test_concurrent_edits_are_all_kept(app: Flask) -> None:
    """Threads (like gunicorn workers) editing one table never lose an edit."""
    with app.app_context():
        table_id = db.create_table("g", "t", {"count": 0}, {})

    def add_one() -> None:
        with app.app_context():
            for _ in range(10):
                db.edit_table(table_id, lambda s: ({"count": s.doc["count"] + 1}, s.meta))

    threads = [threading.Thread(target=add_one) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    with app.app_context():
        assert db.get_table(table_id).doc == {"count": 40}


def test_list_tables_newest_first(app: Flask) -> None:
    """A phone's list holds the tables it hosts, newest first; never anyone else's."""
    with app.app_context():
        first = db.create_table("g", "first", doc(0), {}, host="phone-a")
        second = db.create_table("g", "second", doc(0), {}, host="phone-a")
        db.create_table("g", "theirs", doc(0), {}, host="phone-b")
        db.edit_table(first, bump(1))
        assert [t.id for t in db.list_tables("phone-a")] == [first, second]
        assert db.list_tables(None) == [] and db.list_summaries(None) == []
        # The list without the documents says the same, with the versions.
        summaries = db.list_summaries("phone-a")
        assert [(t.id, t.title, t.version) for t in summaries] == [
            (first, "first", 2),
            (second, "second", 1),
        ]
        assert {t.id for t in db.get_tables([first, second, "gone"])} == {first, second}
        db.finish_table(second)
        assert [t.id for t in db.list_summaries("phone-a", finished=True)] == [second]
        assert db.list_summaries("phone-a", finished=True)[0].finished
        db.delete_table(first)
        assert [t.id for t in db.list_tables("phone-a")] == [second]
        with pytest.raises(db.NotFound):
            db.delete_table(first)


def test_layouts_round_trip(app: Flask) -> None:
    with app.app_context():
        layout_id = db.create_layout(
            "sunflower-valley", "Sheet C", {"name": "Sheet C", "cells": []}
        )
        db.create_layout("spring-meadow", "Side 1", {"name": "Side 1"})
        assert [x.name for x in db.list_layouts("sunflower-valley")] == ["Sheet C"]
        changed = db.edit_layout(layout_id, lambda x: ("Sheet D", {**x.data, "name": "Sheet D"}))
        assert changed.name == "Sheet D"
        assert db.get_layout(layout_id).data["name"] == "Sheet D"
        with pytest.raises(db.NotFound):
            db.get_layout(layout_id, "spring-meadow")
        db.delete_layout(layout_id)
        with pytest.raises(db.NotFound):
            db.get_layout(layout_id)


def test_database_url_normalises_postgres_schemes() -> None:
    assert db.database_url("postgres://u@h/d") == "postgresql+psycopg://u@h/d"
    assert db.database_url("postgresql://u@h/d") == "postgresql+psycopg://u@h/d"
    assert db.database_url("sqlite:///x.db") == "sqlite:///x.db"


def test_sqlite_runs_in_wal_mode(tmp_path: Any) -> None:
    engine = db.make_engine(f"sqlite:///{tmp_path / 'w.sqlite3'}")
    with engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
    engine.dispose()


def test_writers_lock_file_sits_beside_a_database_file_only(tmp_path: Any) -> None:
    # An in-memory database once left a ":memory:.lock" file in the working directory.
    from scorepad.web.db.connect import _lock_path

    path = tmp_path / "w.sqlite3"
    assert _lock_path(db.make_engine(f"sqlite:///{path}")) == f"{path}.lock"
    for url in ("sqlite://", "sqlite:///:memory:", "sqlite:///file:x?mode=memory&uri=true"):
        assert _lock_path(db.make_engine(url)) is None, url
    assert _lock_path(db.make_engine("postgresql://u@h/d")) is None


def _start_worker(database: str) -> str:
    """What a gunicorn worker does at start without --preload: the schema and the secret."""
    from scorepad.web import create_app

    app = create_app({"DATABASE_URL": f"sqlite:///{database}"})
    return str(app.config["SECRET_KEY"])


def test_workers_starting_together_share_one_schema_and_one_secret(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Without gunicorn's --preload every worker creates the SQLite schema and the instance's
    # secret key at once: once, a worker read "database is locked" and failed to boot, and
    # another read the key file before it was written.
    import multiprocessing

    monkeypatch.setenv("SCOREPAD_INSTANCE_PATH", str(tmp_path / "instance"))
    monkeypatch.delenv("SECRET_KEY", raising=False)
    monkeypatch.delenv("DATABASE_URL", raising=False)
    database = str(tmp_path / "fresh.sqlite3")
    with multiprocessing.get_context("spawn").Pool(6) as pool:
        keys = pool.map(_start_worker, [database] * 6)
    assert len(set(keys)) == 1 and len(keys[0]) == 64
