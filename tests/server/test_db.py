"""The database layer's SQLite settings and its background checkpoint (``boardgammon.server.db``),
and the same calls on PostgreSQL, where a checkpoint is PostgreSQL's own business."""

from __future__ import annotations

import os
from datetime import UTC, datetime

import pytest

from boardgammon.server import dice_record
from boardgammon.server.db import SQLITE_AUTOCHECKPOINT_PAGES, create_db_engine, open_database
from boardgammon.server.dice_record import reveal_roll


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
