"""The v2 dice record on SQLite and PostgreSQL: whole matches (live, correspondence with an
absent opponent, against the computer) verify with the package's verifier and with the
independent one written from the spec; every refusal leaves the roll exactly as it was."""

from __future__ import annotations

import ast
import secrets
from pathlib import Path

import pytest

from boardgammon.dice import new_match_id
from boardgammon.dice.verify import verify_document
from boardgammon.server import dice_record_v2 as v2
from boardgammon.server.refusals import ErrorCode
from tests.dice import spec_verifier_v2
from tests.helpers.dice_v2 import Device, play_match


def audit(db, match_id: str) -> dict:
    with db.sessions() as s:
        return v2.audit_document(s, match_id)


def test_the_independent_verifier_imports_nothing_from_the_package():
    tree = ast.parse(Path(spec_verifier_v2.__file__).read_text())
    imported = {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    imported |= {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    # Standard library only: the log's leaves are JSON, their times ISO 8601; datetime
    # subtracts a roll's request from its reveal (the match leaf's stated link wait).
    assert imported == {"__future__", "datetime", "hashlib", "hmac", "json", "struct"}


@pytest.mark.parametrize("kind", ["live", "correspondence", "computer"])
def test_every_roll_of_a_match_verifies_both_ways(database, kind):
    devices = (Device(), Device() if kind != "computer" else None)
    match_id = play_match(database, 24, devices, absent_every=3 if kind == "correspondence" else 0)
    document = audit(database, match_id)
    assert document["verified"] and document["failure"] is None
    assert [r["verdict"] for r in document["rolls"]] == ["ok"] * 24
    assert spec_verifier_v2.check(document) == ["ok"] * 24
    rolls = document["rolls"]
    assert rolls[0]["kind"] == "opening" and {r["kind"] for r in rolls[1:]} == {"normal"}
    sources = [(r["roller_source"], r["opponent_source"]) for r in rolls]
    if kind == "live":
        assert set(sources) == {("client", "client")}
    elif kind == "correspondence":
        assert sources[0] == sources[3] == ("client", "absent") and sources[1] == (
            "client",
            "client",
        )
    else:  # the computer rolls with server entropy and the human's link; the human's rolls
        # have no opponent device
        assert sources[0::2] == [("client", "none")] * 12
        assert sources[1::2] == [("server", "client")] * 12
    expected = {
        "live": {"live": 24},
        "correspondence": {"live": 16, "opponent_absent": 8},
        "computer": {"computer": 12, "no_opponent_device": 12},
    }[kind]
    assert document["counts"] == dict.fromkeys(v2.GUARANTEES, 0) | expected
    # Every party's time is on the record: the opponent's link came before the reveal.
    for r in rolls:
        assert r["committed_at"] <= r["requested_at"] <= r["revealed_at"] <= r["played_at"]
        assert (r["opponent_at"] is not None) == (r["opponent_source"] == "client")


def test_a_retry_of_the_request_with_the_same_entropy_gives_the_same_roll(database):
    match_id, device = new_match_id(), Device()
    entropy = secrets.token_bytes(16)
    with database.sessions() as s:
        v2.register_anchor(s, match_id, 1, device.anchor)
        roll = v2.commit_roll(s, match_id, 0)
        first = v2.request_roll(s, roll.roll_id, roll.commitment, entropy)
        again = v2.request_roll(s, roll.roll_id, roll.commitment, entropy)
        assert again == first
        with pytest.raises(v2.AlreadyRequested) as refused:
            v2.request_roll(s, roll.roll_id, roll.commitment, secrets.token_bytes(16))
        assert refused.value.code is ErrorCode.ALREADY_ROLLED
        assert v2.match_rolls(s, match_id) == [first]
        link = device.next_link()
        revealed = v2.contribute(s, roll.roll_id, link)
        assert v2.contribute(s, roll.roll_id, link) == revealed
        v2.mark_played(s, roll.roll_id)
        # The computer's request (server entropy) repeated is the same request, not a new draw.
        computer = v2.commit_roll(s, match_id, 1)
        asked = v2.request_roll(s, computer.roll_id, computer.commitment, None)
        assert asked.roller_source == "server"
        assert v2.request_roll(s, computer.roll_id, computer.commitment, None) == asked
        with pytest.raises(v2.AlreadyRequested):
            v2.request_roll(s, computer.roll_id, computer.commitment, secrets.token_bytes(16))


def test_refusals_change_nothing(database):
    match_id, device = new_match_id(), Device()
    with database.sessions() as s:
        v2.register_anchor(s, match_id, 1, device.anchor)
        with pytest.raises(v2.AnchorRegistered):
            v2.register_anchor(s, match_id, 1, Device().anchor)
        assert v2.anchors(s, match_id) == [None, device.anchor.hex()]
        roll = v2.commit_roll(s, match_id, 0)
        before = v2.match_rolls(s, match_id)
        with pytest.raises(v2.WrongRollState):  # the link comes only after the request
            v2.contribute(s, roll.roll_id, device.links[1])
        with pytest.raises(v2.CommitmentMismatch):
            v2.request_roll(s, roll.roll_id, "0" * 64, bytes(16))
        with pytest.raises(v2.RollPending):
            v2.commit_roll(s, match_id, 0)
        assert v2.match_rolls(s, match_id) == before
        requested = v2.request_roll(s, roll.roll_id, roll.commitment, bytes(16))
        for wrong in (device.links[2], secrets.token_bytes(32)):
            with pytest.raises(v2.LinkMismatch) as refused:
                v2.contribute(s, roll.roll_id, wrong)
            assert refused.value.code is ErrorCode.LINK_MISMATCH
        with pytest.raises(v2.BadEntropy):
            v2.contribute(s, roll.roll_id, bytes(16))
        assert v2.match_rolls(s, match_id) == [requested]


def test_a_void_roll_keeps_its_seed_and_the_chain_goes_on(database):
    match_id, device = new_match_id(), Device()
    with database.sessions() as s:
        v2.register_anchor(s, match_id, 1, device.anchor)
        roll = v2.commit_roll(s, match_id, 0)
        v2.request_roll(s, roll.roll_id, roll.commitment, bytes(16))
        void = v2.void_roll(s, roll.roll_id)
        assert void.server_seed is None and void.to_json()["server_seed"] is None
        with pytest.raises(v2.WrongRollState):
            v2.reveal_without_opponent(s, roll.roll_id)
        # The link was never revealed: the next roll still hashes to the anchor, but the void
        # roll used up x_1 (it may have reached the server), so x_2 is due and x_1 refused.
        # The void ended its game (a requested roll is voided only then, else "void after
        # request"): the next roll is the next game's opening.
        nxt = v2.commit_roll(s, match_id, 0, "opening")
        assert nxt.opponent_prev_link == device.anchor.hex()
        nxt = v2.request_roll(s, nxt.roll_id, nxt.commitment, bytes(16))
        used_up = device.next_link()
        with pytest.raises(v2.LinkMismatch):
            v2.contribute(s, nxt.roll_id, used_up)
        v2.contribute(s, nxt.roll_id, device.next_link())
    document = audit(database, match_id)
    assert [r["verdict"] for r in document["rolls"]] == ["never revealed", "ok"]
    assert spec_verifier_v2.check(document) == ["void", "ok"]
    assert verify_document(document).ok
