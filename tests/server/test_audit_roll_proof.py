"""One roll's proof and one roll's program (issue #25, the audit's cost):
``GET /api/audit/{match_id}/rolls/{roll_id}/proof`` gives a roll's entry and its log leaves
proven against a signed head, a few KB where the whole audit document grew with every roll;
heads are signed at most once per ``BOARDGAMMON_LOG_HEAD_INTERVAL``, a roll not yet under the
newest head answers ``covered: false`` with ``Retry-After``; ``…/verify.py`` is the row's
filled-in program, the audit page links it and the proof instead of embedding them (a
60-roll page was 870 KB, then 160 KB; 58 KB now). Bad IDs are refused with their status and
change nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from boardgammon.dice import new_match_id, verify
from boardgammon.dice.transparency import (
    ProofError,
    check_log,
    leaf_hash,
    signed_head_bytes,
    verify_ed25519,
    verify_inclusion,
)
from boardgammon.server import dice_log
from boardgammon.server import dice_record as record
from boardgammon.server import dice_record_v2 as v2
from boardgammon.server.app import create_app
from boardgammon.server.routes.audit import roll_program, roll_program_v2
from boardgammon.server.services import services
from boardgammon.server.settings import Settings
from boardgammon.server.tables import LogHead
from tests.helpers.dice_v2 import Device, play_match

ENTROPY = bytes(range(0xA0, 0xB0))


@contextmanager
def started(url: str, interval_s: float = 1.0) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(database_url=url, log_head_interval_s=interval_s))) as c:
        yield c


@pytest.fixture
def client(sqlite_url, tmp_path, monkeypatch) -> Iterator[TestClient]:
    monkeypatch.chdir(tmp_path)  # the log key's default place
    with started(sqlite_url, interval_s=3600.0) as c:
        yield c


def heads(c: TestClient) -> int:
    with services(c.app).db.sessions() as session:
        return session.execute(select(func.count()).select_from(LogHead)).scalar_one()


def one_roll_document(proof: dict) -> dict:
    """The proof as an audit document of one roll, the shape the log checkers read."""
    return {"format": proof["record_format"], "match_id": proof["match_id"],
            "log": proof["log"], "rolls": [proof["roll"]]}


def run_python(tmp_path, name: str, text: str, *args: str) -> subprocess.CompletedProcess:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    # -I -S: no site packages, no PYTHONPATH: the standard library alone.
    return subprocess.run([sys.executable, "-I", "-S", str(path), *args], capture_output=True,
                          text=True, timeout=60, cwd=tmp_path, check=False)


def test_each_rolls_proof_verifies_and_is_small(client, tmp_path):
    match_id = play_match(services(client.app).db, 60, (Device(), Device()))
    document = client.get(f"/api/audit/{match_id}").json()
    key = bytes.fromhex(client.get("/api/log/public-key").json()["public_key"])
    sizes = []
    checker = client.get("/audit/transparency.py").text
    for entry in document["rolls"]:
        answer = client.get(f"/api/audit/{match_id}/rolls/{entry['roll_id']}/proof")
        assert answer.status_code == 200 and "retry-after" not in answer.headers
        sizes.append(len(answer.content))
        proof = answer.json()
        assert proof["format"] == "boardgammon-roll-proof-v1" and proof["covered"] is True
        assert proof["retry_after"] is None and proof["match_id"] == match_id
        assert proof["record_format"] == "boardgammon-audit-v2"
        # The same entry and leaves as the whole document, under the same head here (the
        # document's head covers the match and nothing was added since).
        # The match's anchors and mode (and their proofs) are the document's alone.
        assert proof["roll"] == entry and proof["log"] == {
            k: v for k, v in document["log"].items() if k not in ("anchors", "match")}
        head = proof["log"]["head"]
        assert verify_ed25519(key, bytes.fromhex(head["signature"]), signed_head_bytes(head))
        root = bytes.fromhex(head["root_hash"])
        for leaf in proof["roll"]["log"]:
            verify_inclusion(leaf["index"], head["tree_size"], leaf_hash(leaf["leaf"].encode()),
                             [bytes.fromhex(p) for p in leaf["inclusion_path"]], root)
        assert "signature verified" in check_log(one_roll_document(proof))[0]
        # The same lines, but for the note on the match leaf, which a proof never lists.
        assert check_log(proof) == [line for line in check_log(one_roll_document(proof))
                                    if "log entry of the match's mode" not in line]
    # The stdlib checker as served, on the last roll's proof as served, and bent.
    saved = tmp_path / "proof.json"
    saved.write_text(json.dumps(proof))
    done = run_python(tmp_path, "transparency.py", checker, str(saved))
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{len(proof['roll']['log'])} log entries of its rolls included" in done.stdout
    proof["roll"]["log"][-1]["inclusion_path"][0] = "00" * 32
    saved.write_text(json.dumps(proof))
    done = run_python(tmp_path, "transparency.py", checker, str(saved))
    assert done.returncode == 1 and done.stdout.startswith("FAILED: leaf"), done.stdout
    # Bytes a device fetches per roll: the proof stays a few KB; the whole document (what it
    # fetched before) is 60 rolls' worth.
    assert max(sizes) < 8_000 < 60_000 < len(json.dumps(document))
    assert heads(client) == 1  # one head for all of it


def due_entries(document: dict, entry: dict) -> list[dict]:
    """The entries before ``entry`` that its link's k counts: back to the last one of the same
    roller that revealed the opponent's link, or from the first; none without a chain."""
    if entry["opponent_prev_link"] is None:
        return []
    before = document["rolls"][: entry["seq"]]
    start = max((e["seq"] for e in before
                 if e["seat"] == entry["seat"] and e["opponent_entropy"]), default=0)
    return before[start:]


def test_a_proof_is_built_from_its_window_not_the_whole_record(client, monkeypatch):
    """The proof endpoint reads and hashes the roll, its ``preceding`` and the entry before
    them, never the match's whole document, and answers what the document says of them."""
    match_id = play_match(services(client.app).db, 40, (Device(), Device()), absent_every=4)
    document = client.get(f"/api/audit/{match_id}").json()
    hashed = []
    real = verify.entry_hash_v2
    monkeypatch.setattr(verify, "entry_hash_v2", lambda m, e: hashed.append(e["seq"]) or real(m, e))

    def whole(*_: object) -> None:
        raise AssertionError("the proof built the whole audit document")

    monkeypatch.setattr(v2, "audit_document", whole)
    monkeypatch.setattr(v2, "verify_document", whole)
    for entry in document["rolls"][1:]:
        hashed.clear()
        proof = client.get(f"/api/audit/{match_id}/rolls/{entry['roll_id']}/proof").json()
        due = due_entries(document, entry)
        assert proof["roll"] == entry
        assert proof["preceding"] == [{k: v for k, v in e.items() if k != "log"} for e in due]
        first = due[0]["seq"] if due else entry["seq"]
        assert sorted(hashed) == list(range(max(first - 1, 0), entry["seq"] + 1))


def test_after_bounds_preceding_for_an_opponent_who_never_revealed(client):
    """Seat 1's device never reveals a link (always ``absent``): without ``after`` each of
    seat 0's proofs carries the record back to seq 0; with ``after`` only the entries after
    the one the device checked last."""
    match_id = play_match(services(client.app).db, 41, (Device(), Device()), absent_every=1)
    rolls = client.get(f"/api/audit/{match_id}").json()["rolls"]
    last = rolls[-1]
    assert last["seat"] == 0 and last["opponent_link_steps"] == 21
    url = f"/api/audit/{match_id}/rolls/{last['roll_id']}/proof"
    assert [e["seq"] for e in client.get(url).json()["preceding"]] == list(range(40))
    for after, seqs in [(37, [38, 39]), (39, []), (40, []), (-1, list(range(40)))]:
        proof = client.get(f"{url}?after={after}").json()
        assert [e["seq"] for e in proof["preceding"]] == seqs
        assert proof["roll"] == client.get(url).json()["roll"]
    # After seq 1, from the other seat's proof: everything after it, whatever its roller.
    seqs = [e["seq"] for e in client.get(
        f"/api/audit/{match_id}/rolls/{rolls[7]['roll_id']}/proof?after=1").json()["preceding"]]
    assert seqs == [2, 3, 4, 5, 6]
    answer = client.get(f"{url}?after=-2")
    assert answer.status_code == 422 and answer.json()["error"]["code"] == "invalid_request"
    assert "after" in answer.json()["error"]["message"]


def test_a_rows_program_counts_k_from_the_entries_it_carries(client, tmp_path):
    """The program of a roll whose link is two steps on (an ``absent`` roll between) counts k
    itself from the entries before the roll, which it hashes and chains into the roll: one
    left out, or a k that is not the record's, fails."""
    match_id = play_match(services(client.app).db, 12, (Device(), Device()), absent_every=3)
    document = client.get(f"/api/audit/{match_id}").json()
    entry = [e for e in document["rolls"] if e["opponent_link_steps"] == 2
             and e["opponent_source"] == "client"][-1]
    program = client.get(f"/api/audit/{match_id}/rolls/{entry['roll_id']}/verify.py").text
    assert "opponent_link_steps = 2" not in program  # not given: counted
    due = due_entries(document, entry)
    done = run_python(tmp_path, "verify_roll.py", program)
    assert done.returncode == 0, done.stderr
    assert (f"the opponent's link (2 SHA-256 steps to opponent_prev_link, counted from the "
            f"{len(due)} entries before this roll" in done.stdout)
    # The absent roll left out: the entries no longer chain into the roll.
    absent = next(e for e in due[1:] if e["seat"] == entry["seat"] and not e["opponent_entropy"])
    line = next(x for x in program.splitlines() if repr(absent["roll_id"]) in x)
    bent = run_python(tmp_path, "bent.py", program.replace(line + "\n", ""))
    assert bent.returncode == 1 and "does not hash and chain into it" in bent.stderr


def test_heads_are_signed_at_a_bounded_rate(database_url, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with started(database_url, interval_s=3600.0) as c:
        db = services(c.app).db
        device = Device()
        match_id = play_match(db, 2, (device, None))
        rolls = c.get(f"/api/audit/{match_id}").json()["rolls"]
        first = c.get(f"/api/audit/{match_id}/rolls/{rolls[0]['roll_id']}/proof").json()
        assert first["covered"] is True and heads(c) == 1
        # Another roll of the match: its leaves are newer than the newest head, signed less
        # than the interval ago.
        with db.sessions() as s:
            roll = v2.commit_roll(s, match_id, 0)
            roll = v2.request_roll(s, roll.roll_id, roll.commitment, ENTROPY)
            roll = v2.reveal_without_opponent(s, roll.roll_id)
        for _ in range(5):
            answer = c.get(f"/api/audit/{match_id}/rolls/{roll.roll_id}/proof")
            proof = answer.json()
            assert answer.status_code == 200 and proof["covered"] is False
            assert int(answer.headers["retry-after"]) == proof["retry_after"] >= 3599
            assert proof["log"]["head"] == first["log"]["head"]
            assert proof["roll"]["log"] == []  # none of its leaves is under that head
            with pytest.raises(ProofError, match=r"not under the signed head yet: fetch its "
                               r"proof again in 3\d{3} s"):
                check_log(proof)
            assert c.get("/api/log/head").json() == first["log"]["head"]
        assert heads(c) == 1
        # The audit document and the roll's program must show a head that includes the match:
        # they sign one whatever the newest one's age, and the proof is covered under it.
        page = c.get(f"/audit/{match_id}")
        assert page.status_code == 200 and heads(c) == 2
        program = c.get(f"/api/audit/{match_id}/rolls/{roll.roll_id}/verify.py")
        assert program.status_code == 200 and heads(c) == 2
        proof = c.get(f"/api/audit/{match_id}/rolls/{roll.roll_id}/proof").json()
        assert proof["covered"] is True and len(proof["roll"]["log"]) == 3
        check_log(one_roll_document(proof))
    # With no interval, every request after a change signs.
    with started(database_url, interval_s=0.0) as c:
        with services(c.app).db.sessions() as s:
            v2.mark_played(s, roll.roll_id)
        before = heads(c)
        for _ in range(3):
            with services(c.app).db.sessions() as s:
                v2.void_roll(s, v2.commit_roll(s, match_id, 1).roll_id)
            assert c.get(f"/api/audit/{match_id}/rolls/{roll.roll_id}/proof").json()["covered"]
        assert heads(c) == before + 3


def test_signed_head_waits_out_the_interval(database):
    key = dice_log.LogKey(Ed25519PrivateKey.generate())
    t0 = datetime(2026, 12, 3, 4, 0, tzinfo=UTC)
    match_id = new_match_id()

    def change(s) -> None:  # two leaves: a roll committed and voided
        record.void_roll(s, record.commit_roll(s, match_id, 0).roll_id)

    with database.sessions() as s:
        change(s)
        first = dice_log.signed_head(s, key, t0, interval_s=1.0)
        change(s)
        grown = dice_log.size(s)
        assert first["tree_size"] < grown
        # Younger than the interval: the newest head, unless a caller needs more leaves.
        for ms in (0, 1, 999):
            at = t0 + timedelta(milliseconds=ms)
            assert dice_log.signed_head(s, key, at, interval_s=1.0) == first
        covering = dice_log.signed_head(s, key, t0 + timedelta(milliseconds=500),
                                        interval_s=1.0, covering=grown)
        assert covering["tree_size"] == grown
        change(s)
        # Old enough: a new head of the whole log.
        later = dice_log.signed_head(s, key, t0 + timedelta(milliseconds=1500), interval_s=1.0)
        assert later["tree_size"] == dice_log.size(s) > grown
        # Nothing grew: the same head, however old.
        assert dice_log.signed_head(s, key, t0 + timedelta(days=1), interval_s=1.0) == later


@pytest.mark.parametrize(
    ("path", "status", "words"),
    [
        ("/api/audit/mat_nosuch/rolls/rol_nosuch/proof", 404, "no match 'mat_nosuch'"),
        ("/api/audit/mat_nosuch/anchors", 404, "no match 'mat_nosuch'"),
        ("/api/audit/match-1/anchors", 422, "path.match_id"),
        ("/api/audit/mat_nosuch/rolls/rol_nosuch/verify.py", 404, "no match 'mat_nosuch'"),
        ("/api/audit/{match}/rolls/rol_nosuch/proof", 404, "has no roll rol_nosuch"),
        ("/api/audit/{match}/rolls/rol_nosuch/verify.py", 404, "has no roll rol_nosuch"),
        ("/api/audit/{match}/rolls/{pending}/verify.py", 404, "not revealed"),
        ("/api/audit/{match}/rolls/{other}/proof", 404, "has no roll"),
        ("/api/audit/{match}/rolls/roll-1/proof", 422, "path.roll_id"),
        ("/api/audit/{match}/rolls/rol_a%20b/verify.py", 422, "path.roll_id"),
        ("/api/audit/match-1/rolls/{pending}/proof", 422, "path.match_id"),
        (f"/api/audit/mat_{'x' * 65}/rolls/{{pending}}/verify.py", 422, "path.match_id"),
    ],
)
def test_bad_ids_are_refused_and_sign_nothing(client, path, status, words):
    db = services(client.app).db
    match_id = play_match(db, 2, (Device(), None))
    other = play_match(db, 1, (Device(), None))
    with db.sessions() as s:
        pending = v2.commit_roll(s, match_id, 0).roll_id
        other_roll = v2.match_rolls(s, other)[0].roll_id
    before = heads(client)
    answer = client.get(path.format(match=match_id, pending=pending, other=other_roll),
                        headers={"Accept": "application/json"})
    assert answer.status_code == status, answer.text
    error = answer.json()["error"]
    assert error["code"] == ("not_found" if status == 404 else "invalid_request")
    assert words in error["message"]
    assert heads(client) == before


@pytest.mark.parametrize(("path", "status", "said"), [
    ("/api/audit/{match}/rolls/{pending}/verify.py", 404,
     "roll {pending} of match {match} has no program: it is not revealed"),
    ("/api/audit/{match}/rolls/rol_nosuch/verify.py", 404, "match {match} has no roll rol_nosuch"),
    ("/api/audit/{match}/rolls/rol_/verify.py", 422, "path.roll_id"),
    ("/api/audit/bogus/rolls/{pending}/verify.py", 422, "path.match_id"),
    ("/api/audit/{match}/rolls/{pending}/verify.py)", 404, "no such endpoint: GET "),
])
def test_an_address_of_no_program_answers_a_program_that_fails(client, tmp_path, path, status,
                                                                 said):
    """Found by new users: fetched as a program is run (``curl URL | python3``: no JSON asked
    for by name), a refusal of a roll's program's address (a roll without a program, a
    malformed ID, the address copied with a stray character after it) is a program that says
    why and exits 1; the API's JSON error is a Python expression, and exited 0."""
    db = services(client.app).db
    match_id = play_match(db, 2, (Device(), None))
    with db.sessions() as s:
        pending = v2.commit_roll(s, match_id, 0).roll_id
    answer = client.get(path.format(match=match_id, pending=pending), headers={"Accept": "*/*"})
    assert answer.status_code == status
    assert answer.headers["content-type"] == "text/x-python; charset=utf-8"
    program = tmp_path / "verify.py"
    program.write_text(answer.text)
    run = subprocess.run([sys.executable, "-I", str(program)], capture_output=True, text=True,
                         timeout=60, check=False)
    assert run.returncode == 1 and run.stdout == ""
    assert run.stderr.startswith("no program: ") and run.stderr.endswith("\n")
    assert said.format(match=match_id, pending=pending) in run.stderr
    # Asked for JSON by name, the API's error as everywhere.
    answer = client.get(path.format(match=match_id, pending=pending),
                        headers={"Accept": "application/json"})
    assert answer.status_code == status
    assert said.format(match=match_id, pending=pending) in answer.json()["error"]["message"]


def test_a_rows_program_runs_alone_for_v2_and_v1(client, tmp_path):
    db = services(client.app).db
    match_id = play_match(db, 6, (Device(), Device()))
    document = client.get(f"/api/audit/{match_id}").json()
    for entry in document["rolls"]:
        answer = client.get(f"/api/audit/{match_id}/rolls/{entry['roll_id']}/verify.py")
        assert answer.status_code == 200
        assert answer.headers["content-type"] == "text/x-python; charset=utf-8"
        assert answer.headers["content-disposition"] == (
            f'attachment; filename="verify-{entry["roll_id"]}.py"')
        # The program the page embedded before, byte for byte (the same head here).
        assert answer.text == roll_program_v2(match_id, entry, due_entries(document, entry),
                                              document["log"]["head"],
                                              document["log"]["anchors"])
        done = run_python(tmp_path, "verify_roll.py", answer.text)
        assert done.returncode == 0, done.stderr
        d1, d2 = entry["dice"]
        assert (f"the dice {d1}-{d2}, the entry hash, {len(entry['log'])} log entries of "
                f"{entry['roll_id']} and 2 chain anchor(s)" in done.stdout)
    bent = run_python(tmp_path, "bent.py", answer.text.replace(
        f"dice = ({d1}, {d2})", f"dice = ({d1 % 6 + 1}, {d2})"))
    assert bent.returncode == 1 and bent.stderr.startswith("FAILED: ")

    v1_match = new_match_id()
    with db.sessions() as s:
        roll = record.commit_roll(s, v1_match, 0)
        record.reveal_roll(s, roll.roll_id, roll.commitment, ENTROPY)
        roll = record.mark_played(s, roll.roll_id)
    entry = client.get(f"/api/audit/{v1_match}").json()["rolls"][0]
    answer = client.get(f"/api/audit/{v1_match}/rolls/{roll.roll_id}/verify.py")
    assert answer.status_code == 200 and answer.text == roll_program(v1_match, entry)
    done = run_python(tmp_path, "verify_v1.py", answer.text)
    assert done.returncode == 0, done.stderr
    assert f"the dice {roll.dice[0]}-{roll.dice[1]} of {roll.roll_id} verify" in done.stdout


def test_a_60_roll_page_links_each_rows_program_and_stays_small(client):
    match_id = play_match(services(client.app).db, 60, (Device(), None))
    document = client.get(f"/api/audit/{match_id}").json()
    page = client.get(f"/audit/{match_id}?lang=en")
    assert page.status_code == 200
    # Each row embedded its program before: 870 KB for these 60 rolls; 160 KB with every row's
    # hashes in full and the whole-match verifier's source on the page; 58 KB without them, 64 KB
    # once the first roll's inline program counted k and checked the anchors (15 KB of it),
    # 70.3 KB once it also checked an absent roll's wait against the match's leaf (2026-12-05).
    assert len(page.content) < 72_000
    for entry in document["rolls"]:
        link = f'/api/audit/{match_id}/rolls/{entry["roll_id"]}/verify.py'
        assert f'<a id="verify-roll-{entry["roll_id"]}" href="{link}">' in page.text
        assert f'href="/api/audit/{match_id}/rolls/{entry["roll_id"]}/proof"' in page.text
    assert page.text.count('<a id="verify-roll-') == 60


@pytest.mark.parametrize(("value", "seconds"), [(None, 1.0), ("", 1.0), ("2.5", 2.5), ("0", 0.0)])
def test_the_interval_setting(value, seconds):
    environ = {} if value is None else {"BOARDGAMMON_LOG_HEAD_INTERVAL": value}
    assert Settings.from_env(environ).log_head_interval_s == seconds


@pytest.mark.parametrize("value", ["-1", "soon", "nan", "inf"])
def test_a_bad_interval_setting_is_refused_by_name(value):
    with pytest.raises(ValueError, match="BOARDGAMMON_LOG_HEAD_INTERVAL"):
        Settings.from_env({"BOARDGAMMON_LOG_HEAD_INTERVAL": value})
