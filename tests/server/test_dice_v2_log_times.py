"""A v2 roll's log leaves carry the record's times (issue #25 review): each leaf's ``at`` is the
record's time of the change it stands for, in the log's spelling (``verify.leaf_time``), so a
server cannot show one time in the public log and another in the record.

It was not so before: the leaf's time was checked by nothing (only the last leaf's entry hash,
which covers the record's times, was compared), so a log whose leaf says another time than the
record's (the tree re-hashed), or a record whose time of an earlier change differs from its
leaf's (the entry hash re-made, the last leaf's too), verified everywhere. Tampered on either
side, each check now fails naming the leaf and the record's field: the server's verdict (audit
JSON and page), ``verify.py --log``, ``transparency.py``, the roll's own program and the
independent ``spec_verifier_v2``."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text, update

from boardgammon.dice import transparency, verify
from boardgammon.server import dice_record_v2 as v2
from boardgammon.server.app import create_app
from boardgammon.server.services import services
from boardgammon.server.settings import Settings
from boardgammon.server.tables import DiceRollV2
from tests.dice import spec_verifier_v2
from tests.helpers.dice_log import rebuild_nodes
from tests.helpers.dice_v2 import Device, play_match


@pytest.fixture
def served(database_url, tmp_path, monkeypatch) -> Iterator[tuple[TestClient, str]]:
    monkeypatch.chdir(tmp_path)  # the log key's default place
    with TestClient(create_app(Settings(database_url=database_url))) as client:
        yield client, database_url


def leaves(client: TestClient) -> list[str]:
    return [e["leaf"] for e in client.get("/api/log/entries?start=0&count=1000").json()]


def encoded(fields: dict) -> str:
    return json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def run_program(client: TestClient, match_id: str, roll_id: str) -> subprocess.CompletedProcess:
    program = client.get(f"/api/audit/{match_id}/rolls/{roll_id}/verify.py")
    assert program.status_code == 200, program.text
    return subprocess.run([sys.executable, "-c", program.text], capture_output=True, text=True,
                          timeout=60, check=False)


def verdicts(client: TestClient, match_id: str, tmp_path) -> dict:
    """What every check says of the match as served now."""
    document = client.get(f"/api/audit/{match_id}").json()
    log = leaves(client)
    (tmp_path / "audit.json").write_text(json.dumps(document))
    (tmp_path / "entries.json").write_text(
        json.dumps([{"index": i, "leaf": leaf} for i, leaf in enumerate(log)]))
    said: list[str] = []
    status = verify.run(str(tmp_path / "audit.json"), out=said.append,
                        log=str(tmp_path / "entries.json"))
    try:
        transparency.check_log(document)
        checker = "ok"
    except transparency.ProofError as exc:
        checker = str(exc)
    return {
        "document": document,
        "verify": (status, said[-1]),
        "transparency": checker,
        "spec": spec_verifier_v2.check(document, log),
        "spec_listed": spec_verifier_v2.check(document),
    }


def tamper_leaf(client: TestClient, database_url: str, match_id: str, roll_id: str) -> str:
    """The log says the roll was revealed a second later than the record does (the tree made
    again over the changed leaf, the old heads gone). The record's field it contradicts."""
    with services(client.app).db.sessions() as s:
        index, leaf = s.execute(
            text("SELECT idx, leaf FROM log_entries WHERE roll_id = :r AND leaf LIKE :e"),
            {"r": roll_id, "e": '%"event":"revealed"%'},
        ).one()
        fields = json.loads(leaf)
        moved = datetime.fromisoformat(fields["at"]) + timedelta(seconds=1)
        fields["at"] = moved.isoformat()
        s.execute(text("UPDATE log_entries SET leaf = :l WHERE idx = :i"),
                  {"l": encoded(fields), "i": index})
        s.commit()
    rebuild_nodes(database_url)
    return "revealed_at"


def tamper_record(client: TestClient, database_url: str, match_id: str, roll_id: str) -> str:
    """The record says the (last) roll was committed a second earlier than its leaf does: its
    entry hash made again, and the last leaf's, which names it, too (the tree re-hashed). The
    record's field the log contradicts."""
    with services(client.app).db.sessions() as s:
        stored = next(r for r in v2.match_rolls(s, match_id) if r.roll_id == roll_id)
        earlier = stored.committed_at - timedelta(seconds=1)
        entry = stored.to_json() | {"committed_at": v2.format_time(earlier)}
        new_hash = verify.entry_hash_v2(match_id, entry)
        s.execute(update(DiceRollV2).where(DiceRollV2.roll_id == roll_id)
                  .values(committed_at=earlier, entry_hash=new_hash))
        index, leaf = s.execute(
            text("SELECT idx, leaf FROM log_entries WHERE roll_id = :r ORDER BY idx DESC"),
            {"r": roll_id}).first()
        assert json.loads(leaf)["entry_hash"] == stored.entry_hash
        s.execute(text("UPDATE log_entries SET leaf = :l WHERE idx = :i"),
                  {"l": leaf.replace(stored.entry_hash, new_hash), "i": index})
        s.commit()
    rebuild_nodes(database_url)
    return "committed_at"


@pytest.mark.parametrize("tamper", [tamper_leaf, tamper_record], ids=["leaf", "record"])
def test_a_leaf_time_that_is_not_the_records_fails_every_check(served, tmp_path, tamper):
    client, database_url = served
    match_id = play_match(services(client.app).db, 3, (Device(), Device()))
    roll_id = client.get(f"/api/audit/{match_id}").json()["rolls"][2]["roll_id"]

    honest = verdicts(client, match_id, tmp_path)
    assert honest["document"]["verified"] is True
    assert honest["verify"][0] == 0
    assert honest["transparency"] == "ok"
    assert honest["spec"] == honest["spec_listed"] == ["ok", "ok", "ok"]
    program = run_program(client, match_id, roll_id)
    assert program.returncode == 0 and "each log entry is at the record's time" in program.stdout

    field = tamper(client, database_url, match_id, roll_id)
    caught = verdicts(client, match_id, tmp_path)
    document = caught["document"]
    assert document["verified"] is False
    failure = document["failure"]
    assert (failure["roll_id"], failure["reason"]) == (roll_id, verify.LOG_MISMATCH)
    assert f"the record's {field} is" in failure["detail"]
    assert document["rolls"][2]["verdict"] == verify.LOG_MISMATCH
    page = client.get(f"/audit/{match_id}")
    assert page.status_code == 200 and f"the record&#39;s {field} is" in page.text
    status, last = caught["verify"]
    assert status == 1 and verify.LOG_MISMATCH in last and f"the record's {field} is" in last
    assert f"the record's {field} is" in caught["transparency"]
    assert caught["spec"] == caught["spec_listed"] == ["ok", "ok", "bad: log time"]
    program = run_program(client, match_id, roll_id)
    assert program.returncode == 1
    assert "FAILED: log entry" in program.stderr and "the record's time" in program.stderr


def test_whole_second_times_are_written_without_a_fraction_in_the_log(served):
    # Python's isoformat leaves out a zero fraction, the record's time never does: the rule
    # (verify.leaf_time) says how the two spellings of one time correspond.
    client, _ = served
    other = Device()
    moment = datetime(2026, 12, 3, 9, 0, 0, tzinfo=UTC)
    with services(client.app).db.sessions() as s:
        match_id = "mat_wholeseconds"
        v2.register_anchor(s, match_id, 1, other.anchor, now=moment)
        roll = v2.commit_roll(s, match_id, 0, "opening", now=moment)
        roll = v2.request_roll(s, roll.roll_id, roll.commitment, bytes(16),
                               now=moment + timedelta(seconds=1))
        roll = v2.contribute(s, roll.roll_id, other.next_link(),
                             now=moment + timedelta(seconds=2, microseconds=5))
        v2.mark_played(s, roll.roll_id, now=moment + timedelta(seconds=3))
    document = client.get(f"/api/audit/{match_id}").json()
    assert document["verified"] is True, document["failure"]
    entry = document["rolls"][0]
    assert (entry["committed_at"], entry["revealed_at"]) == (
        "2026-12-03T09:00:00.000000Z", "2026-12-03T09:00:02.000005Z")
    at = [json.loads(e["leaf"])["at"] for e in entry["log"]]
    assert at == ["2026-12-03T09:00:00+00:00", "2026-12-03T09:00:01+00:00",
                  "2026-12-03T09:00:02.000005+00:00", "2026-12-03T09:00:03+00:00"]
    assert spec_verifier_v2.check(document, leaves(client)) == ["ok"]
    assert verify.verify_document(document, log_leaves=leaves(client)).ok


@pytest.mark.parametrize(
    ("record_time", "in_the_log"),
    [
        ("2026-12-02T13:00:00.000000Z", "2026-12-02T13:00:00+00:00"),
        ("2026-12-02T13:00:00.123456Z", "2026-12-02T13:00:00.123456+00:00"),
        ("2026-12-02T13:00:00.100000Z", "2026-12-02T13:00:00.100000+00:00"),
        ("1999-01-31T23:59:59.000001Z", "1999-01-31T23:59:59.000001+00:00"),
    ],
)
def test_the_three_spellings_of_the_rule_agree(record_time, in_the_log):
    # verify.py, transparency.py and the spec's reading each stand alone: one rule, three texts.
    assert verify.leaf_time(record_time) == in_the_log
    assert transparency.leaf_time(record_time) == in_the_log
    assert spec_verifier_v2.log_time(record_time) == in_the_log
    assert datetime.fromisoformat(in_the_log) == datetime.fromisoformat(
        record_time.replace("Z", "+00:00"))


@pytest.mark.parametrize("bad", ["2026-12-02T13:00:00Z", "2026-12-02 13:00:00.000000Z",
                                 "2026-12-02T13:00:00.000000+00:00", "2026-13-02T13:00:00.000000Z"])
def test_a_record_time_not_as_the_spec_writes_it_has_no_spelling_in_the_log(bad):
    for leaf_time in (verify.leaf_time, transparency.leaf_time):
        with pytest.raises(ValueError, match="is not a time YYYY-MM-DDTHH:MM:SS.ffffffZ"):
            leaf_time(bad)
