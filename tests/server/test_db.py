"""The database layer's SQLite settings and its background checkpoint (``boardgammon.server.db``),
and the same calls on PostgreSQL, where a checkpoint is PostgreSQL's own business."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime

import anyio.to_thread
import pytest
from fastapi.testclient import TestClient

from boardgammon.server import dice_record
from boardgammon.server.app import create_app
from boardgammon.server.db import (
    SQLITE_AUTOCHECKPOINT_PAGES,
    TO_THREAD_WORKERS,
    WORKER_THREADS,
    create_db_engine,
    open_database,
)
from boardgammon.server.dice_record import reveal_roll
from boardgammon.server.services import services
from boardgammon.server.settings import Settings


def _pragma(db, name: str):
    with db.engine.connect() as connection:
        return connection.exec_driver_sql(f"PRAGMA {name}").scalar()


def _some_rolls(db, count: int) -> None:
    """Commit ``count`` rolls (each committed, revealed, played) to one match."""
    match_id = "mat_checkpoint"
    for _ in range(count):
        with db.sessions() as s:
            roll = dice_record.commit_roll(s, match_id, 0, now=datetime.now(UTC))
        with db.sessions() as s:
            reveal_roll(s, roll.roll_id, roll.commitment, os.urandom(16))
        with db.sessions() as s:
            dice_record.mark_played(s, roll.roll_id)


def test_sqlite_pragmas(sqlite_url):
    database = open_database(sqlite_url)
    assert _pragma(database, "journal_mode") == "wal"
    assert _pragma(database, "synchronous") == 1  # NORMAL
    assert _pragma(database, "wal_autocheckpoint") == SQLITE_AUTOCHECKPOINT_PAGES
    assert _pragma(database, "foreign_keys") == 1
    database.dispose()


def test_checkpoint_copies_every_committed_page(database):
    _some_rolls(database, 5)
    result = database.checkpoint()
    if not database.is_sqlite:
        assert result is None
        return
    in_log, copied = result
    # Nothing checkpointed those commits before (far below the automatic threshold), and no
    # reader holds a page back: everything goes in.
    assert 0 < in_log == copied < SQLITE_AUTOCHECKPOINT_PAGES
    # The data is still all there, read through a fresh engine.
    engine = create_db_engine(str(database.engine.url))
    with engine.connect() as connection:
        assert connection.exec_driver_sql(
            "SELECT count(*) FROM dice_rolls WHERE state = 'played'").scalar() == 5
    engine.dispose()


def test_synchronous_setting_is_checked(monkeypatch, sqlite_url):
    monkeypatch.setenv("BOARDGAMMON_SQLITE_SYNCHRONOUS", "OFF")
    with pytest.raises(ValueError, match="NORMAL or FULL, not 'OFF'"):
        create_db_engine(sqlite_url)


def test_the_sqlite_pool_has_a_connection_for_every_thread_that_holds_a_session(
    sqlite_url, tmp_path, monkeypatch
):
    """Every thread that may hold a session at once gets a connection without waiting: the
    sync routes' threads (AnyIO's limiter, which the running server sets to WORKER_THREADS),
    the event loop's executor's, and a second session in each. With SQLAlchemy's default pool
    for SQLite (5, and 10 more) the sixteenth waited 30 s for one, then failed."""
    monkeypatch.chdir(tmp_path)  # the log key's default place
    with TestClient(create_app(Settings(database_url=sqlite_url))) as client:
        tokens = client.portal.call(
            lambda: anyio.to_thread.current_default_thread_limiter().total_tokens)
        assert tokens == WORKER_THREADS == 40
        engine = services(client.app).db.engine
        held = []
        # Checked out in another thread, so that a pool too small fails the test in seconds
        # (its checkout waits the pool's 30 s), not by hanging it.
        with ThreadPoolExecutor(max_workers=1) as checkout:
            try:
                for _ in range(2 * (tokens + TO_THREAD_WORKERS)):
                    held.append(checkout.submit(engine.connect).result(timeout=5))
                assert all(not c.closed for c in held)
            finally:
                for connection in held:
                    connection.close()


def test_a_test_schema_is_dropped_under_an_open_transaction(postgres_url):
    # The fixture's teardown meets an app still reading in its schema when the test asked for
    # the app before the database (CI saw the drop deadlock with such a read): the reader's
    # session is ended and the schema goes.
    import psycopg

    from tests.server.conftest import CONNINFO, _drop_schema

    schema = postgres_url.rsplit("%3D", 1)[1]
    db = open_database(postgres_url)
    db.dispose()
    reader = psycopg.connect(f"{CONNINFO} options=-csearch_path={schema}")
    try:
        reader.execute("SELECT count(*) FROM dice_rolls").fetchone()  # a lock held, open
        _drop_schema(schema)
        with psycopg.connect(CONNINFO) as conn:
            left = conn.execute("SELECT count(*) FROM pg_namespace WHERE nspname = %s",
                                (schema,))
            assert left.fetchone() == (0,)
        with pytest.raises(psycopg.OperationalError):
            reader.execute("SELECT 1")
    finally:
        reader.close()
