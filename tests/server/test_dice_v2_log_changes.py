"""A v2 roll's leaves are exactly its changes, each with the roll's entry hash as it stood
after that change (``docs/fair-dice.md`` §The record (v2), A roll's leaves; issue #25, "every
state change hashed" and the public log).

Before, the verifiers read a roll's first leaf (its commitment), its last (state and entry
hash) and every leaf's time. Two servers passed them all:

- one that took a request with the device's entropy and revealed the roll with other entropy
  (ground after the request), writing each leaf as it went: its last leaf names the roll as
  revealed, its chain is intact, and only the roller's own device could tell;
- one that wrote no leaf for a request: the log then hides where the roll was requested, which
  is what ``chain skipped`` reads.

Both now fail the server's verdict, ``verify.py --log``, the roll's program and the spec's own
verifier; ``transparency.py``, which does not hash the record, catches the missing leaf."""

from __future__ import annotations

import json
import secrets

import pytest
from sqlalchemy import update

from boardgammon.dice import verify
from boardgammon.server import dice_log
from boardgammon.server import dice_record_v2 as v2
from boardgammon.server.services import services
from boardgammon.server.tables import DiceRollV2
from tests.helpers.dice_v2 import Device
from tests.server.test_dice_v2_log_times import run_program, served, verdicts  # noqa: F401


def play(db, rolls: int, interfere=None) -> str:
    """A live match of ``rolls`` rolls, both devices present; ``interfere(session, k, roll)``
    runs after roll ``k``'s request, before the opponent's link (the server misbehaving)."""
    match_id, devices = "mat_" + secrets.token_hex(8), (Device(), Device())
    with db.sessions() as s:
        for seat, device in enumerate(devices):
            v2.register_anchor(s, match_id, seat, device.anchor)
        for k in range(rolls):
            roll = v2.commit_roll(s, match_id, k % 2, "opening" if k == 0 else "normal")
            roll = v2.request_roll(s, roll.roll_id, roll.commitment, secrets.token_bytes(16))
            if interfere is not None:
                interfere(s, k, roll)
            roll = v2.contribute(s, roll.roll_id, devices[1 - k % 2].next_link())
            v2.mark_played(s, roll.roll_id)
    return match_id


def roll_list(document: dict) -> list[dict]:
    return document["rolls"]


def test_an_honest_match_passes_every_check_of_its_leaves(served, tmp_path):  # noqa: F811
    client, _ = served
    match_id = play(services(client.app).db, 3)
    said = verdicts(client, match_id, tmp_path)
    assert said["document"]["verified"] is True, said["document"]["failure"]
    assert said["verify"][0] == 0 and said["transparency"] == "ok"
    assert said["spec"] == said["spec_listed"] == ["ok", "ok", "ok"]
    document = said["document"]
    for roll in document["rolls"]:
        events = [e["event"] for e in roll["log"]]
        assert events == ["committed", "requested", "revealed", "played"]
        # The request's leaf holds the roll as it stood then: entropy in, seed and link not.
        requested = next(e for e in roll["log"] if e["event"] == "requested")
        stood = verify.entry_after(roll, "requested")
        assert stood["roller_entropy"] == roll["roller_entropy"]
        assert stood["server_seed"] is stood["opponent_entropy"] is stood["dice"] is None
        assert json.loads(requested["leaf"])["entry_hash"] == verify.entry_hash_v2(
            match_id, stood)
    program = run_program(client, match_id, document["rolls"][2]["roll_id"])
    assert program.returncode == 0 and "holds the roll as it stood after it" in program.stdout


def test_entropy_ground_after_the_request_fails_every_verifier_that_hashes(
        served, tmp_path):  # noqa: F811
    client, _ = served

    def grind(session, k, roll):
        if k == 2:  # the server swaps the device's entropy for its own before the reveal
            session.execute(update(DiceRollV2).where(DiceRollV2.roll_id == roll.roll_id)
                            .values(roller_entropy=secrets.token_bytes(16).hex()))

    match_id = play(services(client.app).db, 3, grind)
    said = verdicts(client, match_id, tmp_path)
    document = said["document"]
    roll = document["rolls"][2]
    # The record alone is consistent: its chain verifies, its last leaf names it.
    chain_only = {k: v for k, v in document.items() if k != "log"}
    chain_only["rolls"] = [{k: v for k, v in r.items() if k != "log"} for r in roll_list(document)]
    assert verify.verify_document(chain_only).ok
    # verify.py without the log reads the leaves the document lists: they contradict it.
    listed = verify.verify_document(document)
    assert (listed.failure.index, listed.failure.verdict) == (2, verify.LOG_MISMATCH)
    assert json.loads(roll["log"][-1]["leaf"])["entry_hash"] == roll["entry_hash"]

    failure = document["failure"]
    assert document["verified"] is False
    assert (failure["index"], failure["reason"]) == (2, verify.LOG_MISMATCH)
    assert "(requested of roll" in failure["detail"]
    assert "a field fixed by then was changed afterwards" in failure["detail"]
    assert roll["verdict"] == verify.LOG_MISMATCH
    status, last = said["verify"]
    assert status == 1 and verify.LOG_MISMATCH in last and "as it stood after" in last
    assert said["transparency"] == "ok"  # it checks the log, not the record's hashes
    assert said["spec"] == said["spec_listed"] == ["ok", "ok", "bad: log hash"]
    program = run_program(client, match_id, roll["roll_id"])
    assert program.returncode == 1
    assert "FAILED: log entry" in program.stderr and "(requested)" in program.stderr


def test_a_request_without_its_leaf_fails_every_verifier(served, tmp_path,  # noqa: F811
                                                         monkeypatch):
    client, _ = served
    append = dice_log.append

    def forgetful(session, event, row, at):
        if not (event == "requested" and row["seq"] == 2):
            append(session, event, row, at)

    monkeypatch.setattr(dice_log, "append", forgetful)
    match_id = play(services(client.app).db, 3)
    monkeypatch.setattr(dice_log, "append", append)
    said = verdicts(client, match_id, tmp_path)
    document = said["document"]
    roll = document["rolls"][2]
    assert [e["event"] for e in roll["log"]] == ["committed", "revealed", "played"]

    failure = document["failure"]
    assert document["verified"] is False
    assert (failure["index"], failure["reason"]) == (2, verify.LOG_MISMATCH)
    assert "every change is one entry" in failure["detail"]
    status, last = said["verify"]
    assert status == 1 and "every change is one entry" in last
    assert "every change is one entry" in said["transparency"]
    assert said["spec"] == said["spec_listed"] == ["ok", "ok", "bad: log changes"]
    program = run_program(client, match_id, roll["roll_id"])
    assert program.returncode == 1
    assert "the roll's changes are committed, requested, revealed, played" in program.stderr


def _changed(document: dict, how: str) -> dict:
    """The document with roll 1's listed log entries changed as ``how`` says (the log as it
    is): what a server that shows one reader other leaves than the log's might serve."""
    doc = json.loads(json.dumps(document))
    entries = doc["rolls"][1]["log"]
    if how == "text":
        entries[1]["leaf"] = entries[1]["leaf"].replace('"requested"', '"revealed"')
    elif how == "index":
        entries[1]["index"] = 999
    elif how == "left-out":
        del entries[1]
    elif how == "reordered":
        entries[1], entries[2] = entries[2], entries[1]
    elif how == "none":
        entries.clear()
    elif how == "not-a-list":
        doc["rolls"][1]["log"] = "x"
    elif how == "no-json":
        entries[1]["leaf"] = "{"
    return doc


@pytest.mark.parametrize("how", ["text", "index", "left-out", "reordered", "none", "not-a-list",
                                 "no-json"])
def test_listed_leaves_that_are_not_the_logs_fail_verify_with_the_log(served, tmp_path,  # noqa: F811
                                                                         how):
    # A new user's trial (2026-12-05): verify.py --log compared the anchors and the mode the
    # document lists with the log, not the rolls' own entries, and passed all of these.
    client, _ = served
    match_id = play(services(client.app).db, 3)
    said = verdicts(client, match_id, tmp_path)
    log = [e["leaf"] for e in client.get("/api/log/entries?start=0&count=1000").json()]
    log = log[:said["document"]["log"]["head"]["tree_size"]]
    doc = _changed(said["document"], how)
    report = verify.verify_document(doc, log_leaves=log)
    assert not report.ok
    assert (report.failure.index, report.failure.verdict) == (1, verify.LOG_MISMATCH)
    if how not in ("not-a-list", "no-json", "text"):
        assert "the document lists log entries" in report.failure.detail
    if how == "text":  # the entry's own "event" no longer says what its leaf says
        assert "says 'requested', its leaf 'revealed'" in report.failure.detail
    # Without the log it reads the listed leaves as the document's word, and still sees
    # every one of these but the empty list and the moved index (transparency.py fails both:
    # no commitment; an inclusion proof that leads nowhere).
    alone = verify.verify_document(doc)
    assert alone.ok is (how in ("none", "index"))
