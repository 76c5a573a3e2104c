"""Reads never take SQLite's write lock (issue #25, live-play latency): ``GET`` and ``HEAD``
requests get a read session (``db.get_session``), so a device's proof, state and audit
requests during play answer while a match write holds the file, instead of sleeping in SQLite's
busy handler with every writer queued behind them; the few writes they make (a signed head,
a sign-in session marked used) are short transactions of ``Database.writing``. A write in a
read session fails at once rather than upgrading (which SQLite refuses once another
connection committed); on PostgreSQL too (a ``READ ONLY`` transaction), and on both as a bug
(500), not as a database outage (503)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from fastapi import Depends
from fastapi.testclient import TestClient
from sqlalchemy import delete, func, select, text, update
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from boardgammon.dice.transparency import leaf_hash, verify_inclusion
from boardgammon.server import dice_log
from boardgammon.server.app import create_app
from boardgammon.server.auth import TOUCH_EVERY
from boardgammon.server.db import get_session
from boardgammon.server.services import services
from boardgammon.server.settings import Settings
from boardgammon.server.tables import AuthToken, LogHead
from tests.helpers.dice_v2 import Device, play_match

KEY = dice_log.LogKey(Ed25519PrivateKey.generate())
ANSWER_S = 5.0
"""Well under SQLite's 30 s busy timeout: a read that waited for the file would miss it."""


@pytest.fixture
def client(sqlite_url, tmp_path, monkeypatch) -> Iterator[TestClient]:
    monkeypatch.chdir(tmp_path)  # the log key's default place
    settings = Settings(database_url=sqlite_url, log_head_interval_s=3600.0)
    with TestClient(create_app(settings)) as c:
        yield c


def test_reads_answer_while_a_match_write_holds_the_file(client):
    db = services(client.app).db
    match_id = play_match(db, 6, (Device(), Device()))
    roll_id = client.get(f"/api/audit/{match_id}").json()["rolls"][-1]["roll_id"]  # signs
    token = client.post("/api/auth/guest").json()["token"]
    bearer = {"Authorization": f"Bearer {token}"}
    reads = [f"/api/audit/{match_id}/rolls/{roll_id}/proof?after=-1", f"/api/audit/{match_id}",
             f"/audit/{match_id}", f"/api/audit/{match_id}/anchors", "/api/log/head", "/api/me"]
    # Another match's write: this process's turn and SQLite's write lock, held.
    with ThreadPoolExecutor(len(reads)) as pool, db.writing() as write:
        write.execute(text("SELECT 1"))  # BEGIN IMMEDIATE: the file is taken
        started = time.monotonic()
        answers = [pool.submit(client.get, url, headers=bearer) for url in reads]
        try:
            codes = [a.result(timeout=ANSWER_S).status_code for a in answers]
        finally:
            write.rollback()  # a read that waits for the file ends once the test is done
        waited = time.monotonic() - started
    assert codes == [200] * len(reads) and waited < ANSWER_S


def test_a_read_that_must_sign_a_head_signs_it_in_the_turn(client):
    """The audit JSON of a match the newest head does not cover signs a head: in a write of
    its own, which waits for the turn like any other write, not in the request's session."""
    db = services(client.app).db
    first = play_match(db, 2, (Device(), Device()))
    client.get(f"/api/audit/{first}")
    second = play_match(db, 2, (Device(), Device()))  # the newest head does not cover it
    with ThreadPoolExecutor(1) as pool, db.writing() as write:
        answer = pool.submit(client.get, f"/api/audit/{second}")
        time.sleep(0.5)
        assert not answer.done()  # it waits for the turn, not for SQLite's busy handler
        write.rollback()
    document = answer.result(timeout=ANSWER_S).json()
    assert document["log"]["head"]["tree_size"] == document["rolls"][-1]["log"][-1]["index"] + 1
    with db.read_sessions() as s:
        assert s.execute(select(func.count()).select_from(LogHead)).scalar_one() == 2


# SQLite's query_only, PostgreSQL's read-only transaction.
REFUSED = "attempt to write a readonly database|in a read-only transaction"


def test_a_write_in_a_read_session_fails_and_changes_nothing(database):
    play_match(database, 2, (Device(), Device()))
    with database.read_sessions() as s, pytest.raises(DBAPIError, match=REFUSED):
        dice_log.signed_head(s, KEY)  # on PostgreSQL its SELECT … FOR UPDATE fails first
    with database.read_sessions() as s, pytest.raises(DBAPIError, match=REFUSED):
        s.execute(update(AuthToken).values(last_used_at=datetime.now(UTC)))
    with database.read_sessions() as s:
        assert s.execute(select(func.count()).select_from(LogHead)).scalar_one() == 0
    with database.writing() as s:  # the same pooled connection writes again
        assert dice_log.signed_head(s, KEY)["tree_size"] == dice_log.size(s)
    with database.read_sessions() as s:  # and reads only once it is back in the pool
        assert s.execute(select(func.count()).select_from(LogHead)).scalar_one() == 1
        with pytest.raises(DBAPIError, match=REFUSED):
            s.execute(delete(LogHead))


def test_only_read_sessions_are_read_only(database):
    """Each kind of session, twice, on the one pooled connection that served the other kind
    just before: the read ones read only, the write ones write."""
    ask = ("PRAGMA query_only" if database.is_sqlite
           else "SELECT current_setting('transaction_read_only') = 'on'")
    seen = set()
    for _ in range(2):
        for factory, read_only in ((database.read_sessions, True), (database.sessions, False)):
            with factory() as s:
                assert bool(s.execute(text(ask)).scalar()) is read_only
                seen.add(id(s.connection().connection.dbapi_connection))
    assert len(seen) == 1 and database.engine.pool.checkedout() == 0


def test_a_read_session_sees_one_snapshot(database):
    """A read session's statements all see the database as it was at its first one, on
    every backend (SQLite: a WAL read transaction; PostgreSQL: ``REPEATABLE READ``): an audit
    document read in several statements (its rolls, then their log leaves) cannot mix two
    states of the record, where under PostgreSQL's default (``READ COMMITTED``) each
    statement saw every commit before it. A write session keeps the default; the next read
    session sees the commit."""
    match_id = play_match(database, 2, (Device(), Device()))
    count = select(func.count()).select_from(LogHead)
    with database.read_sessions() as s:
        assert s.execute(count).scalar_one() == 0
        with database.writing() as w:
            dice_log.signed_head(w, KEY)  # commits a head
        assert s.execute(count).scalar_one() == 0  # still the first statement's database
        assert dice_log.size(s) > 0 and match_id
    with database.read_sessions() as s:
        assert s.execute(count).scalar_one() == 1
    if not database.is_sqlite:
        with database.read_sessions() as s:
            level = s.execute(text("SHOW transaction_isolation")).scalar()
        with database.sessions() as s:
            default = s.execute(text("SHOW transaction_isolation")).scalar()
        assert (level, default) == ("repeatable read", "read committed")


@pytest.fixture
def any_client(database_url, tmp_path, monkeypatch) -> Iterator[TestClient]:
    """An app on each backend; a GET and a POST route that write the same row, the way a
    route that forgot ``Database.writing`` would (500 for the GET, nothing written)."""
    monkeypatch.chdir(tmp_path)
    app = create_app(Settings(database_url=database_url, log_head_interval_s=3600.0))

    def stray_write(session: Session = Depends(get_session)) -> dict:
        session.execute(update(AuthToken).values(last_used_at=STRAY))
        session.commit()
        return {"written": True}

    app.add_api_route("/test/stray-write", stray_write, methods=["GET", "POST"])
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c


STRAY = datetime(2001, 1, 1, tzinfo=UTC)


def test_a_get_route_that_writes_in_its_session_fails_on_every_backend(any_client):
    db = services(any_client.app).db
    any_client.post("/api/auth/guest")
    assert any_client.get("/test/stray-write").status_code == 500
    with db.read_sessions() as s:
        assert s.execute(select(AuthToken.last_used_at)).scalar_one() != STRAY
    assert any_client.post("/test/stray-write").json() == {"written": True}
    with db.read_sessions() as s:
        assert s.execute(select(AuthToken.last_used_at)).scalar_one() == STRAY


def test_the_get_routes_that_write_write_on_every_backend(any_client):
    """A signed head (the audit JSON of a match no head covers yet) and a sign-in session
    marked used: both in a session of ``Database.writing``, not in the request's."""
    db = services(any_client.app).db
    match_id = play_match(db, 2, (Device(), Device()))
    document = any_client.get(f"/api/audit/{match_id}").json()
    assert document["log"]["head"]["tree_size"] == document["rolls"][-1]["log"][-1]["index"] + 1
    token = any_client.post("/api/auth/guest").json()["token"]
    stale = datetime.now(UTC) - TOUCH_EVERY - timedelta(minutes=1)
    with db.writing() as s:
        s.execute(update(AuthToken).values(last_used_at=stale))
        s.commit()
    me = any_client.get("/api/me", headers={"Authorization": f"Bearer {token}"})
    assert me.status_code == 200
    with db.read_sessions() as s:
        assert s.execute(select(func.count()).select_from(LogHead)).scalar_one() == 1
        used = s.execute(select(AuthToken.last_used_at)).scalar_one()
    assert used > datetime.now(UTC) - timedelta(minutes=1)


def test_signing_from_a_read_session_after_another_commit(database):
    """A read session's snapshot predates another connection's commit: the head is signed
    in a write session (upgrading would fail with SQLITE_BUSY_SNAPSHOT), and what the read
    session reads afterwards is the signed tree."""
    play_match(database, 2, (Device(), Device()))
    with database.read_sessions() as s:
        before = dice_log.size(s)  # the snapshot begins
        play_match(database, 2, (Device(), Device()))
        head = dice_log.signed_head(s, KEY, writing=database.writing)
        tree_size = head["tree_size"]
        assert tree_size > before
        proof = dice_log.inclusion_proof(s, tree_size - 1, tree_size)
    verify_inclusion(tree_size - 1, tree_size, leaf_hash(proof["leaf"].encode()),
                     [bytes.fromhex(p) for p in proof["inclusion_path"]],
                     bytes.fromhex(head["root_hash"]))
    with database.read_sessions() as s:  # signed once, and reused while it covers the log
        assert dice_log.signed_head(s, KEY, writing=database.writing) == head
        assert s.execute(select(func.count()).select_from(LogHead)).scalar_one() == 1


def test_a_get_marks_its_sign_in_session_used_when_due(client):
    db = services(client.app).db
    token = client.post("/api/auth/guest").json()["token"]
    stale = datetime.now(UTC) - TOUCH_EVERY - timedelta(minutes=1)
    with db.writing() as s:
        s.execute(update(AuthToken).values(last_used_at=stale))
        s.commit()
    assert client.get("/api/me", headers={"Authorization": f"Bearer {token}"}).status_code == 200
    with db.read_sessions() as s:
        used = s.execute(select(AuthToken.last_used_at)).scalar_one()
    assert used > datetime.now(UTC) - timedelta(minutes=1)
