"""One roll proof built per state of the match's record and head, and served to both players'
pages and to their retries (issue #25, the proofs' cost: 200 live matches' pages asking for
every roll's proof saturated a 2-core server). A change of the match builds it again; a
change of another match does not; a proof not yet under a signed head is served again with
its ``Retry-After`` counted anew until a newer head exists."""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import pytest
from fastapi.testclient import TestClient

from boardgammon.dice.transparency import check_log
from boardgammon.server import dice_log
from boardgammon.server import dice_record_v2 as v2
from boardgammon.server.app import create_app
from boardgammon.server.proof_cache import ProofCache
from boardgammon.server.routes.audit import roll_entries
from boardgammon.server.services import services
from boardgammon.server.settings import Settings
from tests.helpers.dice_v2 import Device, play_match


@contextmanager
def started(url: str, interval_s: float) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(database_url=url, log_head_interval_s=interval_s))) as c:
        yield c


@pytest.fixture
def builds(monkeypatch) -> list[str]:
    """The roll IDs whose proof's window was read (each build of a v2 proof reads it)."""
    read: list[str] = []
    real = v2.roll_window

    def counted(session, match_id, roll_id, after=None):
        read.append(roll_id)
        return real(session, match_id, roll_id, after)

    monkeypatch.setattr(v2, "roll_window", counted)
    return read


def one_roll_document(proof: dict) -> dict:
    return {"format": proof["record_format"], "match_id": proof["match_id"],
            "log": proof["log"], "rolls": [proof["roll"]]}


def test_both_players_and_retries_get_the_proof_built_once(sqlite_url, tmp_path, monkeypatch,
                                                           builds):
    monkeypatch.chdir(tmp_path)
    with started(sqlite_url, interval_s=0.0) as c:
        db = services(c.app).db
        match_id = play_match(db, 6, (Device(), Device()))
        other = play_match(db, 2, (Device(), Device()))
        rolls = c.get(f"/api/audit/{match_id}").json()["rolls"]
        url = f"/api/audit/{match_id}/rolls/{rolls[4]['roll_id']}/proof?after=2"
        first = c.get(url)
        assert first.status_code == 200 and first.json()["covered"] is True
        # The other player's page, a retry, a page reloaded: the same bytes, not built again.
        assert [c.get(url).content for _ in range(3)] == [first.content] * 3
        assert builds == [rolls[4]["roll_id"]]
        check_log(one_roll_document(first.json()))
        # Another `after` is another proof (another `preceding`).
        other_after = c.get(url.replace("after=2", "after=-1")).json()
        assert [e["seq"] for e in other_after["preceding"]] == [0, 1, 2, 3]
        assert len(builds) == 2
        # Another match's change (its leaves, a newer head) leaves this match's proofs be.
        with db.sessions() as s:
            v2.void_roll(s, v2.commit_roll(s, other, 0).roll_id)
        assert c.get(url).content == first.content and len(builds) == 2
        # A change of this match builds it again, from the record as it is now.
        with db.sessions() as s:
            v2.void_roll(s, v2.commit_roll(s, match_id, 0).roll_id)
        again = c.get(url).json()
        assert len(builds) == 3
        assert again["log"]["head"]["tree_size"] > first.json()["log"]["head"]["tree_size"]
        assert again["roll"] == first.json()["roll"] | {"log": again["roll"]["log"]}
        check_log(one_roll_document(again))


def test_a_proof_not_yet_under_a_head_is_built_again_once_one_covers_it(sqlite_url, tmp_path,
                                                                        monkeypatch, builds):
    monkeypatch.chdir(tmp_path)
    with started(sqlite_url, interval_s=3600.0) as c:
        db = services(c.app).db
        match_id = play_match(db, 2, (Device(), None))
        c.get(f"/api/audit/{match_id}")  # a head over both rolls
        with db.sessions() as s:
            roll = v2.commit_roll(s, match_id, 0)
            roll = v2.request_roll(s, roll.roll_id, roll.commitment, bytes(16))
            roll = v2.reveal_without_opponent(s, roll.roll_id)
        url = f"/api/audit/{match_id}/rolls/{roll.roll_id}/proof?after=-1"
        waits = []
        for _ in range(3):
            answer = c.get(url)
            assert answer.json()["covered"] is False and answer.json()["roll"]["log"] == []
            waits.append(int(answer.headers["retry-after"]))
        assert builds == [roll.roll_id]  # the answer kept, its wait counted anew each time
        assert all(3590 <= wait <= 3600 for wait in waits)
        c.get(f"/api/audit/{match_id}")  # the audit page signs a head that covers the roll
        proof = c.get(url).json()
        assert proof["covered"] is True and [e["event"] for e in proof["roll"]["log"]] == [
            "committed", "requested", "revealed"]
        assert builds == [roll.roll_id] * 2
        check_log(one_roll_document(proof))


def test_a_proof_waits_for_the_head_due_within_the_hold(sqlite_url, tmp_path, monkeypatch,
                                                        builds):
    """The head signed less than the interval ago does not cover the roll: the request waits
    until the next one is due and answers covered, built once, where it answered
    ``covered: false`` and was asked again after ``Retry-After``."""
    monkeypatch.chdir(tmp_path)
    with started(sqlite_url, interval_s=0.5) as c:
        db = services(c.app).db
        match_id = play_match(db, 2, (Device(), None))
        with db.sessions() as s:
            roll = v2.commit_roll(s, match_id, 0)
            roll = v2.request_roll(s, roll.roll_id, roll.commitment, bytes(16))
        c.get(f"/api/audit/{match_id}")  # a head signed now, before the reveal
        with db.sessions() as s:
            v2.reveal_without_opponent(s, roll.roll_id)
        started_at = time.monotonic()
        answer = c.get(f"/api/audit/{match_id}/rolls/{roll.roll_id}/proof?after=-1")
        waited = time.monotonic() - started_at
        proof = answer.json()
        assert answer.status_code == 200 and proof["covered"] is True
        assert "retry-after" not in answer.headers and proof["retry_after"] is None
        assert [e["event"] for e in proof["roll"]["log"]] == ["committed", "requested",
                                                              "revealed"]
        assert builds == [roll.roll_id] and waited < 0.5 + 1.0  # the interval, not a retry's
        check_log(one_roll_document(proof))


def test_requests_at_once_build_the_proof_once(sqlite_url, tmp_path, monkeypatch):
    """Both players' pages ask at the same moment (the same state reaches both): the second
    request waits for the first's build and takes it."""
    monkeypatch.chdir(tmp_path)
    with started(sqlite_url, interval_s=0.0) as c:
        parts = services(c.app)
        match_id = play_match(parts.db, 4, (Device(), Device()))
        roll_id = c.get(f"/api/audit/{match_id}").json()["rolls"][3]["roll_id"]
        built: list[str] = []

        def ask() -> dict:
            with parts.db.read_sessions() as session:
                def entries() -> tuple[str, dict, list[dict]]:
                    built.append(roll_id)
                    time.sleep(0.3)  # the other request arrives meanwhile
                    return roll_entries(session, match_id, roll_id, 1)

                proof = dice_log.cached_roll_proof(
                    session, parts.log_key, parts.proofs, match_id, roll_id, 1, entries, 0.0,
                    writing=parts.db.writing)
                assert isinstance(proof, dict)
                return proof

        with ThreadPoolExecutor(2) as pool:
            first, second = pool.map(lambda _: ask(), range(2))
        assert built == [roll_id] and first is second and first["covered"] is True


def test_the_cache_is_bounded_and_keeps_a_proof_for_its_version_only():
    cache = ProofCache(capacity=2)
    a, b, c = ("mat_a", "rol_a", -1), ("mat_a", "rol_b", 3), ("mat_b", "rol_c", None)
    cache.put(a, 7, {"roll": "a"})
    cache.put(b, 7, {"roll": "b"})
    assert cache.get(a, 7) == {"roll": "a"}  # a used last: b goes first
    cache.put(c, 1, {"roll": "c"})
    assert len(cache) == 2 and cache.get(b, 7) is None and cache.get(c, 1) == {"roll": "c"}
    assert cache.get(a, 8) is None  # the match changed: dropped
    assert len(cache) == 1 and cache.get(a, 7) is None
    with pytest.raises(ValueError, match="at least 1 proof, not 0"):
        ProofCache(capacity=0)
