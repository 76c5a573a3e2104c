"""``boardgammon witness`` against a real server (uvicorn, SQLite): it pins the key, co-signs a
head that extends the last one it saw, and — run as its own process — catches a server whose
log table was truncated or rewritten (and re-hashed, and its old heads deleted) between two
runs, exiting 1 with the reason while its state keeps the last good head."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy import create_engine, text

from boardgammon.commands.witness import run
from tests.helpers.dice_log import rebuild_nodes
from tests.helpers.servers import serving_in_thread
from tests.server.gameplay import Player, live_match, make_app, step


@pytest.fixture
def server(tmp_path, monkeypatch) -> Iterator[tuple[str, str]]:
    """A server on a fresh SQLite file: its base URL and the database URL."""
    monkeypatch.chdir(tmp_path)  # the log key's default place, ./var/, in the test's folder
    database_url = f"sqlite:///{tmp_path / 'server.sqlite3'}"
    # Heads signed whenever the log grew (no interval): the test reads the log's size from the
    # newest head right after each step of play.
    app = make_app(database_url, log_head_interval_s=0.0)
    with serving_in_thread(app) as port:
        yield f"http://127.0.0.1:{port}", database_url


def kept_for(state: Path, url: str) -> dict:
    """The state ``state`` keeps for the server at ``url`` (one file keeps several)."""
    return json.loads(state.read_text())["servers"][url]


def witness_process(url: str, state: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.run(
        [sys.executable, "-m", "boardgammon.cli", "witness", url, "--state", str(state)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )


@pytest.mark.slow  # two witness processes start the CLI (~10-20 s each on a busy machine)
def test_witness_catches_a_truncated_and_a_rewritten_history(server, tmp_path):
    url, database_url = server
    with httpx.Client(base_url=url, timeout=30) as client:
        players = {0: Player.register(client, "alice"), 1: Player.register(client, "bob")}
        match_id = live_match(players[0], players[1])

        def play(steps: int) -> int:
            for _ in range(steps):
                step(players, match_id)
            return client.get("/api/log/head").json()["tree_size"]

        state = tmp_path / "witness.json"
        said: list[str] = []
        play(2)
        assert run(url, state, post=True, out=said.append) == 0
        assert said[0].startswith("pinned the log's key")
        assert stat.S_IMODE(state.stat().st_mode) == 0o600
        first = kept_for(state, url)["last_head"]
        assert client.get("/api/log/witnesses").json()[0]["head"] == first

        seen = play(4)
        said.clear()
        assert run(url, state, out=said.append) == 0
        assert said[0] == f"consistent with the head of size {first['tree_size']} seen before"
        assert kept_for(state, url)["last_head"]["tree_size"] == seen

        # Truncated: the last three leaves deleted, the tree re-hashed, old heads gone.
        engine = create_engine(database_url)
        with engine.begin() as db:
            cut = [
                dict(row._mapping)
                for row in db.execute(
                    text("SELECT * FROM log_entries WHERE idx >= :n"), {"n": seen - 3}
                )
            ]
            db.execute(text("DELETE FROM log_entries WHERE idx >= :n"), {"n": seen - 3})
        rebuild_nodes(database_url)
        assert client.get("/api/log/head").json()["tree_size"] == seen - 3
        caught = witness_process(url, state)
        assert caught.returncode == 1, caught.stdout + caught.stderr
        assert f"the log shrank: it showed {seen} entries" in caught.stdout
        # Put back as it was, the log is the one the witness saw: no alarm.
        with engine.begin() as db:
            db.execute(
                text(
                    "INSERT INTO log_entries (idx, match_id, roll_id, leaf, created_at) "
                    "VALUES (:idx, :match_id, :roll_id, :leaf, :created_at)"
                ),
                cut,
            )
        rebuild_nodes(database_url)
        assert run(url, state, out=said.append) == 0

        # Rewritten: the first leaf changed, the tree re-hashed, and the log grown past the
        # size the witness saw, so that a head of a larger size is all the server shows.
        with engine.begin() as db:
            changed = db.execute(
                text("UPDATE log_entries SET leaf = replace(leaf, :was, :now) WHERE idx = 0"),
                {"was": '"event":"committed"', "now": '"event":"void"'},
            )
            assert changed.rowcount == 1
            assert (
                '"event":"void"'
                in db.execute(text("SELECT leaf FROM log_entries WHERE idx = 0")).scalar_one()
            )
        engine.dispose()
        rebuild_nodes(database_url)
        grown = play(6)
        assert grown > seen
        caught = witness_process(url, state)
        assert caught.returncode == 1, caught.stdout + caught.stderr
        assert (
            f"two histories: the head of size {grown}" in caught.stdout
            and f"does not extend the head of size {seen}" in caught.stdout
        )
        # The state still holds the last good head: every later run says so too.
        assert kept_for(state, url)["last_head"]["tree_size"] == seen


def test_a_roll_left_out_of_the_audit_is_found_by_a_scan_of_the_log(server, tmp_path):
    # A server that deletes a match's last roll serves a record whose chain is intact and
    # whose every remaining leaf is proven: only the log still holds the deleted roll's leaves.
    url, database_url = server
    with httpx.Client(base_url=url, timeout=30) as client:
        players = {0: Player.register(client, "alice"), 1: Player.register(client, "bob")}
        match_id = live_match(players[0], players[1])
        for _ in range(4):
            step(players, match_id)
    engine = create_engine(database_url)
    with engine.begin() as db:
        last = db.execute(
            text("SELECT roll_id, seq FROM dice_rolls WHERE match_id = :m ORDER BY seq DESC"),
            {"m": match_id},
        ).first()
        assert last is not None
        db.execute(text("DELETE FROM dice_rolls WHERE roll_id = :r"), {"r": last.roll_id})
    engine.dispose()

    def checker(*args: str) -> subprocess.CompletedProcess:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
        return subprocess.run(
            [sys.executable, "-m", "boardgammon.dice.transparency", *args,
             f"{url}/api/audit/{match_id}"],
            capture_output=True, text=True, env=env, timeout=120, check=False,
        )

    # The server's own verdict reads its log (the code is honest, its database was not) ...
    document = httpx.get(f"{url}/api/audit/{match_id}").json()
    assert not document["verified"] and document["failure"]["reason"] == "log mismatch"
    # ... but a served document can leave the roll out whole: only the scan finds it then.
    assert checker().returncode == 0
    caught = checker("--scan")
    assert caught.returncode == 1, caught.stdout + caught.stderr
    assert f"of roll {last.roll_id}, seq {last.seq}) is not in the document" in caught.stdout


@pytest.mark.parametrize("size", ["600", 600.0, True])
def test_a_head_whose_size_is_no_integer_is_reported_not_a_crash(tmp_path, monkeypatch, size):
    # The head's bytes were signed from int(tree_size), so a size served as "600" or 600.0
    # verified, and the witness then compared it with an integer: a TypeError, no verdict.
    from boardgammon.commands import witness as witness_command
    from boardgammon.dice.transparency import head_bytes
    from boardgammon.server.dice_log import LogKey

    key = LogKey.load_or_create(tmp_path / "server.pem")
    root = bytes(range(32))
    heads = [{"tree_size": 5, "timestamp": 1, "root_hash": root.hex()},
             {"tree_size": size, "timestamp": 2, "root_hash": root.hex()}]
    for head in heads:
        head["signature"] = key.sign(head_bytes(int(head["tree_size"]), head["timestamp"],
                                                root)).hex()
    served = iter(heads)

    def fetch(url: str, path: str, body: dict | None = None) -> dict:
        if path == "/api/log/public-key":
            return {"public_key": key.public_key.hex()}
        return next(served)

    monkeypatch.setattr(witness_command, "_fetch", fetch)
    state = tmp_path / "witness.json"
    said: list[str] = []
    assert run("http://server.test", state, out=said.append) == 0
    kept = state.read_text()
    said.clear()
    assert run("http://server.test", state, out=said.append) == 1
    assert said == [f"MISBEHAVIOUR: a malformed tree head: its tree_size {size!r} is no integer"]
    assert state.read_text() == kept


class _FakeLog:
    """A log server the test scripts: leaves of its own, heads signed with its key, and
    consistency proofs computed from the leaves it serves (or refused, as a forking server
    would refuse the one that shows the fork)."""

    def __init__(self, key, leaves: list[bytes]) -> None:
        self.key, self.leaves = key, leaves
        self.refuse_proofs: int | None = None  # an HTTP status to answer proofs with
        self.proof_body: object = None  # a body to answer proofs with instead of the proof
        self.refuse_first: int | None = None  # answer 503 to proofs from this size only

    def head(self, size: int, timestamp: int) -> dict:
        from boardgammon.dice.transparency import head_bytes, leaf_hash, root_of

        root = root_of([leaf_hash(x) for x in self.leaves[:size]])
        return {"tree_size": size, "timestamp": timestamp, "root_hash": root.hex(),
                "signature": self.key.sign(head_bytes(size, timestamp, root)).hex()}

    def fetch_for(self, heads):
        from boardgammon.commands.witness import Unreadable
        from boardgammon.dice.transparency import consistency_path, leaf_hash, root_of

        served = iter(heads)

        def fetch(url: str, path: str, body: dict | None = None) -> dict:
            if path == "/api/log/public-key":
                return {"public_key": self.key.public_key.hex()}
            if path == "/api/log/head":
                return next(served)
            assert path.startswith("/api/log/proof/consistency?"), path
            if self.refuse_proofs is not None:
                raise Unreadable(f"{path}: HTTP {self.refuse_proofs} no",
                                 status=self.refuse_proofs)
            if self.proof_body is not None:
                return self.proof_body  # type: ignore[return-value]
            first, second = (int(part.split("=")[1]) for part in path.split("?")[1].split("&"))
            if first == self.refuse_first:
                raise Unreadable(f"{path}: HTTP 503 busy", status=503)
            hashes = [leaf_hash(x) for x in self.leaves]
            proof = consistency_path(first, second, lambda lo, hi: root_of(hashes[lo:hi]))
            return {"consistency_path": [p.hex() for p in proof]}

        return fetch


def test_a_fork_the_server_will_not_prove_is_kept_and_caught_later(tmp_path, monkeypatch):
    """Found by an outside audit: a server that showed a witness a signed head off its
    history and answered the consistency request with a 404 only made the witness say
    "cannot witness" (exit 2), and the signed head, the evidence, was thrown away. Now the
    witness keeps it, and the first head it can check it against shows the two histories."""
    from boardgammon.commands import witness as witness_command
    from boardgammon.server.dice_log import LogKey

    key = LogKey.load_or_create(tmp_path / "server.pem")
    honest = [f"leaf {i}".encode() for i in range(20)]
    log = _FakeLog(key, honest)
    fork = _FakeLog(key, honest[:10] + [f"forged {i}".encode() for i in range(10)])
    state = tmp_path / "witness.json"
    said: list[str] = []

    def witness(heads, refuse: int | None = None) -> int:
        log.refuse_proofs = refuse
        monkeypatch.setattr(witness_command, "_fetch", log.fetch_for(heads))
        said.clear()
        return run("http://server.test", state, out=said.append)

    assert witness([log.head(10, 1)]) == 0
    assert kept_for(state, "http://server.test")["unproven"] == []
    forged = fork.head(14, 2)
    assert witness([forged], refuse=503) == 2  # a server too busy to answer, it says
    assert said == [f"cannot witness http://server.test: the server signed a head of size 14 "
                    f"(root {forged['root_hash']}) but gave no proof that it extends the head "
                    "of size 10 seen before (/api/log/proof/consistency?first=10&second=14: "
                    "HTTP 503 no); the signed head is kept in the state file as evidence"]
    kept = kept_for(state, "http://server.test")
    assert kept["last_head"]["tree_size"] == 10
    assert [u["head"] for u in kept["unproven"]] == [forged]
    assert witness([forged], refuse=503) == 2  # shown again: kept once
    assert [u["head"] for u in kept_for(state, "http://server.test")["unproven"]] == [forged]
    # Too small a log to judge the fork by: it waits.
    assert witness([log.head(12, 3)]) == 0
    assert said[1] == ("a head of size 14 signed before is still unproven (the log has not "
                       "grown to it yet)")
    # Grown past it, the log's server keeps refusing the proof: nothing is co-signed.
    kept = state.read_text()
    log.refuse_first = 14
    assert witness([log.head(16, 4)]) == 2
    log.refuse_first = None
    assert said[0].endswith("not co-signed") and "size 14" in said[0], said
    assert kept_for(state, "http://server.test")["last_head"]["tree_size"] == 12
    # The honest log grows past it: the forged head does not fit, and says so for good.
    before = state.read_text()
    assert before == kept
    assert witness([log.head(16, 4)]) == 1
    assert said[0].startswith("MISBEHAVIOUR: two histories: the head of size 16")
    assert f"does not extend the head of size 14 (root {forged['root_hash']})" in said[0]
    assert state.read_text() == before


def test_two_heads_of_one_size_with_different_roots_need_no_proof(tmp_path, monkeypatch):
    from boardgammon.commands import witness as witness_command
    from boardgammon.server.dice_log import LogKey

    key = LogKey.load_or_create(tmp_path / "server.pem")
    log = _FakeLog(key, [f"leaf {i}".encode() for i in range(8)])
    fork = _FakeLog(key, [f"other {i}".encode() for i in range(8)])
    state = tmp_path / "witness.json"
    said: list[str] = []
    monkeypatch.setattr(witness_command, "_fetch", log.fetch_for([log.head(8, 1)]))
    assert run("http://server.test", state, out=said.append) == 0
    other = fork.head(8, 2)
    log.refuse_proofs = 404  # no proof is asked for
    monkeypatch.setattr(witness_command, "_fetch", log.fetch_for([other]))
    said.clear()
    assert run("http://server.test", state, out=said.append) == 1
    assert said == [f"MISBEHAVIOUR: two histories: two heads of size 8 with different roots, "
                    f"{log.head(8, 1)['root_hash']} and {other['root_hash']}"]


@pytest.mark.parametrize("answer", [404, [], {"consistency_path": None},
                                    {"consistency_path": [1]}, "x"])
def test_a_refused_or_malformed_proof_between_signed_heads_is_misbehaviour(
        tmp_path, monkeypatch, answer):
    """Found by the audit's second look: a 404 for a proof between two heads the log's key
    signed let a forking server stay "unproven" for ever, and a malformed 200 answer crashed
    the witness (a TypeError, no verdict). Both are the server refusing to show its history."""
    from boardgammon.commands import witness as witness_command
    from boardgammon.server.dice_log import LogKey

    key = LogKey.load_or_create(tmp_path / "server.pem")
    log = _FakeLog(key, [f"leaf {i}".encode() for i in range(12)])
    state = tmp_path / "witness.json"
    monkeypatch.setattr(witness_command, "_fetch", log.fetch_for([log.head(6, 1)]))
    assert run("http://server.test", state, out=lambda line: None) == 0
    kept = state.read_text()
    if answer == 404:
        log.refuse_proofs = 404
    else:
        log.proof_body = answer
    monkeypatch.setattr(witness_command, "_fetch", log.fetch_for([log.head(12, 2)]))
    said: list[str] = []
    assert run("http://server.test", state, out=said.append) == 1
    assert len(said) == 1 and said[0].startswith("MISBEHAVIOUR: "), said
    if answer == 404:
        assert "refuses the consistency proof between two heads it signed, of sizes 6" in said[0]
    else:
        assert said[0].startswith("MISBEHAVIOUR: two histories: the head of size 12")
    assert state.read_text() == kept


def test_one_state_file_witnesses_several_servers(tmp_path, monkeypatch):
    """Found by a new user's trial: the state file kept one server's state without its
    address, so witnessing a second server with the default file said "MISBEHAVIOUR: the
    log's key changed" (exit status 1). Each server's state is now kept under its address; a
    key change at the same address is still misbehaviour."""
    from boardgammon.commands import witness as witness_command
    from boardgammon.server.dice_log import LogKey

    first = _FakeLog(LogKey.load_or_create(tmp_path / "a.pem"), [b"a%d" % i for i in range(12)])
    second = _FakeLog(LogKey.load_or_create(tmp_path / "b.pem"), [b"b%d" % i for i in range(12)])
    state = tmp_path / "boardgammon-witness.json"
    said: list[str] = []

    def witness(url: str, log: _FakeLog, size: int) -> int:
        monkeypatch.setattr(witness_command, "_fetch", log.fetch_for([log.head(size, size)]))
        said.clear()
        return run(url, state, out=said.append)

    assert witness("https://a.test", first, 4) == 0
    assert witness("https://b.test/", second, 5) == 0, said
    assert said[0] == (f"pinned the log's key {second.key.public_key.hex()} (first run for "
                       "https://b.test)")
    # The same server however its address is written: its own history goes on.
    assert witness("HTTPS://A.Test:443/", first, 8) == 0, said
    assert said[0] == "consistent with the head of size 4 seen before"
    assert witness("https://b.test", second, 9) == 0, said
    assert said[0] == "consistent with the head of size 5 seen before"
    kept = json.loads(state.read_text())
    assert set(kept["servers"]) == {"https://a.test", "https://b.test"}
    assert kept["servers"]["https://a.test"]["last_head"]["tree_size"] == 8
    assert stat.S_IMODE(state.stat().st_mode) == 0o600
    # Another key at an address seen before is what it always was.
    before = state.read_text()
    assert witness("https://a.test", second, 10) == 1
    assert said == [f"MISBEHAVIOUR: the log's key changed from {first.key.public_key.hex()} "
                    f"to {second.key.public_key.hex()}"]
    assert state.read_text() == before


def test_an_old_state_file_goes_to_the_server_whose_key_it_pinned(tmp_path, monkeypatch):
    """A state file from before 2026-12-05 (one server, no address): a server with another key
    is refused with what to do (exit status 2, the file unchanged: it may be another server,
    or this one with a changed key); the server whose key it pinned takes it over, and the
    file then keeps other servers beside it."""
    from boardgammon.commands import witness as witness_command
    from boardgammon.server.dice_log import LogKey

    first = _FakeLog(LogKey.load_or_create(tmp_path / "a.pem"), [b"a%d" % i for i in range(12)])
    second = _FakeLog(LogKey.load_or_create(tmp_path / "b.pem"), [b"b%d" % i for i in range(12)])
    state = tmp_path / "boardgammon-witness.json"
    old_head = first.head(6, 1)
    state.write_text(json.dumps({
        "format": "boardgammon-witness-v1", "witness_key": "11" * 32,
        "server_key": first.key.public_key.hex(), "last_head": old_head, "unproven": []}))
    old = state.read_text()
    said: list[str] = []

    def witness(url: str, log: _FakeLog, size: int) -> int:
        monkeypatch.setattr(witness_command, "_fetch", log.fetch_for([log.head(size, size)]))
        said.clear()
        return run(url, state, out=said.append)

    assert witness("https://b.test", second, 5) == 2
    assert len(said) == 1 and said[0].startswith("cannot witness https://b.test: the state file "
                                                 "is from a witness before 2026-12-05"), said
    assert "witness that server first with this file" in said[0]
    assert "witness https://b.test with another --state file" in said[0]
    assert "MISBEHAVIOUR" not in said[0]
    assert state.read_text() == old
    assert witness("https://a.test", first, 10) == 0, said
    assert said[:2] == ["took the state file's state from before 2026-12-05 (no address, the "
                        "same log key) as https://a.test's",
                        "consistent with the head of size 6 seen before"]
    kept = json.loads(state.read_text())
    assert kept["format"] == "boardgammon-witness-v2" and "unclaimed" not in kept
    assert kept["witness_private_key"] == "11" * 32  # the witness keeps its identity
    assert witness("https://b.test", second, 5) == 0, said
    assert set(json.loads(state.read_text())["servers"]) == {"https://a.test", "https://b.test"}
