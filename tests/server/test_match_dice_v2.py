"""Matches played over the API with v2 dice (issue #25): each device's chain anchor, the
roller's request, the opponent's link revealed by its device, the wait that ends in ``absent``,
the computer's rolls with the human's link, opening rolls marked, and the finished match's
record passing the independent spec verifier. Every test runs on SQLite and PostgreSQL."""

from __future__ import annotations

import hashlib
import html
import json
import os
import re
import subprocess
import sys
import time

import pytest
from fastapi.testclient import TestClient
from gameplay import Player, Wall, live_match, make_app

from boardgammon.dice.transparency import (
    ProofError,
    check_log,
    signed_head_bytes,
    verify_ed25519,
)
from boardgammon.dice.verify import derive_dice_v2, verify_document
from boardgammon.server.dice_record_v2 import GUARANTEES
from boardgammon.server.i18n import translator
from boardgammon.server.services import services
from tests.dice import spec_verifier_v2

LINK_WAIT_S = 3.0


class Device:
    """A player's device: its hash chain (``links[0]`` the anchor, SHA-256 of each link the
    one before it), as docs/fair-dice.md §Version 2 describes it."""

    def __init__(self, player: Player, length: int = 200) -> None:
        self.player = player
        chain = [os.urandom(32)]
        for _ in range(length):
            chain.append(hashlib.sha256(chain[-1]).digest())
        self.links = [link.hex() for link in reversed(chain)]

    @property
    def anchor(self) -> str:
        return self.links[0]

    def link_after(self, prev: str, steps: int = 1) -> str:
        """The link ``steps`` places after ``prev`` (the one due for a roll whose
        ``opponent_link_steps`` is ``steps``)."""
        return self.links[self.links.index(prev) + steps]

    def register(self, match_id: str):
        return self.player.act(match_id, "anchor", anchor=self.anchor)

    def contribute(self, match_id: str, pending: dict):
        return self.player.act(
            match_id,
            "contribute",
            roll_id=pending["roll_id"],
            link=self.link_after(pending["opponent_prev_link"], pending["opponent_link_steps"]),
        )


@pytest.fixture
def wall():
    return Wall()


@pytest.fixture
def client(database_url, wall):
    with TestClient(make_app(database_url, wall, dice="v2", link_wait_s=LINK_WAIT_S)) as c:
        yield c


def code(response) -> str:
    return response.json()["error"]["code"]


def events(response, kind: str) -> list[dict]:
    assert response.status_code == 200, response.text
    return [e for e in response.json()["events"] if e["type"] == kind]


def check_dice(match_id: str, roll: dict) -> None:
    seed = bytes.fromhex(roll["server_seed"])
    assert hashlib.sha256(seed).hexdigest() == roll["commitment"]
    link = bytes.fromhex(roll["opponent_entropy"]) if roll["opponent_entropy"] else None
    assert (
        list(
            derive_dice_v2(
                seed,
                match_id,
                roll["roll_id"],
                roll["nonce"],
                roll["kind"],
                bytes.fromhex(roll["roller_entropy"]),
                link,
            )
        )
        == roll["dice"]
    )


def play_first(player: Player, match_id: str):
    state = player.state(match_id)
    return player.act(match_id, "play", play=state["legal_plays"][0]["notation"])


def roll(
    players: dict[int, Player], devices: dict[int, Device | None], match_id: str, seat: int
) -> dict:
    """``seat`` rolls; the opponent's device, if it has a chain, reveals its link."""
    r = players[seat].roll(match_id)
    device = devices[1 - seat]
    if device is None:
        return events(r, "roll")[0]
    pending = players[seat].state(match_id)["pending_roll"]
    assert events(r, "roll_requested")[0]["roll_id"] == pending["roll_id"]
    return events(device.contribute(match_id, pending), "roll")[0]


def past_opening(
    players: dict[int, Player], devices: dict[int, Device | None], match_id: str
) -> None:
    """Roll the opening rolls, each marked ``opening``."""
    while (state := players[0].state(match_id))["phase"] == "opening":
        rolled = roll(players, devices, match_id, state["turn"])
        assert rolled["kind"] == "opening"
        assert rolled["opponent_source"] == (
            "none" if devices[1 - rolled["seat"]] is None else "client"
        )
        check_dice(match_id, rolled)


def test_a_live_roll_takes_the_opponents_link(client, wall):
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    devices = {0: Device(ann), 1: Device(bob)}
    match_id = live_match(ann, bob)
    state = ann.state(match_id)
    # The first roll waits for both anchors: each roll fixes the opponent's link.
    assert state["dice_protocol"] == "v2" and state["pending_roll"] is None
    assert events(devices[0].register(match_id), "commitment") == []
    r = devices[1].register(match_id)
    assert events(r, "anchor")[0]["anchor"] == devices[1].anchor
    assert events(r, "commitment")[0]["seat"] == 0
    # The same anchor again changes nothing; another is refused and the first stays.
    assert events(devices[0].register(match_id), "anchor") == []
    r = ann.act(match_id, "anchor", anchor=os.urandom(32).hex())
    assert (r.status_code, code(r)) == (409, "anchor_registered")
    r = ann.act(match_id, "anchor", anchor="zz" * 32)
    assert (r.status_code, code(r)) == (422, "bad_entropy")
    players = {0: ann, 1: bob}
    past_opening(players, dict(devices), match_id)
    checked = 0
    for _ in range(12):
        state = ann.state(match_id)
        if state["phase"] == "match_over":
            break
        seat = state["turn"]
        if state["phase"] == "play":
            assert play_first(players[seat], match_id).status_code == 200
            continue
        roller, opponent = players[seat], devices[1 - seat]
        committed = roller.state(match_id)["pending_roll"]
        assert (committed["state"], committed["roller_entropy_sha256"]) == ("committed", None)
        r = roller.roll(match_id)
        assert events(r, "roll") == []
        requested = events(r, "roll_requested")[0]
        pending = roller.state(match_id)["pending_roll"]
        assert pending["state"] == "requested" and pending["kind"] == "normal"
        # The roller's input is fixed where the opponent's device sees it, before its link
        # leaves: the event and the state both carry its SHA-256.
        pinned = requested["roller_entropy_sha256"]
        assert re.fullmatch(r"[0-9a-f]{64}", pinned) and pending["roller_entropy_sha256"] == pinned
        assert opponent.player.state(match_id)["pending_roll"]["roller_entropy_sha256"] == pinned
        assert requested["opponent_prev_link"] == pending["opponent_prev_link"]
        # Every link revealed: each roll takes the link right after the last one (k = 1).
        assert requested["opponent_link_steps"] == pending["opponent_link_steps"] == 1
        # The cube decision came before the request: no double now; and no resignation from
        # either seat until the dice are shown (a pending offer would leave the revealed roll
        # nowhere to go: the engine rolls only in the roll phase).
        assert code(roller.act(match_id, "double")) == "wrong_phase"
        for player in players.values():
            r = player.act(match_id, "resign", points=1)
            assert (r.status_code, code(r)) == (400, "wrong_phase"), r.text
        # The roller cannot reveal the opponent's link; a wrong link is refused; neither
        # changes the match.
        r = devices[seat].player.act(
            match_id, "contribute", roll_id=pending["roll_id"], link=devices[seat].links[1]
        )
        assert (r.status_code, code(r)) == (409, "not_your_turn")  # as everywhere else
        r = opponent.player.act(
            match_id, "contribute", roll_id=pending["roll_id"], link=os.urandom(32).hex()
        )
        assert code(r) == "link_mismatch"
        assert roller.state(match_id)["pending_roll"] == pending
        rolled = events(opponent.contribute(match_id, pending), "roll")[0]
        assert rolled["opponent_source"] == "client" and rolled["roller_source"] == "client"
        assert rolled["opponent_entropy"] == opponent.link_after(
            pending["opponent_prev_link"], pending["opponent_link_steps"]
        )
        check_dice(match_id, rolled)
        assert hashlib.sha256(bytes.fromhex(rolled["roller_entropy"])).hexdigest() == pinned
        # The same link again is no error and rolls nothing.
        assert events(opponent.contribute(match_id, pending), "roll") == []
        # Another link for it, or the roller's, is told what became of the roll (a new
        # user's trial: "the roller has not asked to roll").
        r = opponent.player.act(match_id, "contribute", roll_id=pending["roll_id"],
                                link=os.urandom(32).hex())
        assert (r.status_code, code(r)) == (400, "wrong_phase")
        assert r.json()["error"]["message"] == (
            f"roll {pending['roll_id']} is revealed already, with the link you sent for it: "
            f"a roll takes one link")
        r = devices[seat].player.act(match_id, "contribute", roll_id=pending["roll_id"],
                                     link=os.urandom(32).hex())
        assert r.json()["error"]["message"] == (
            f"roll {pending['roll_id']} is your own, revealed already: its link was your "
            f"opponent's to send"), r.text
        checked += 1
    assert checked >= 3
    document = client.get(f"/api/audit/{match_id}").json()
    assert document["format"] == "boardgammon-audit-v2" and document["verified"] is True
    assert document["anchors"] == [devices[0].anchor, devices[1].anchor]
    assert document["counts"]["live"] == checked + len(
        [r for r in document["rolls"] if r["kind"] == "opening" and r["dice"]]
    )
    assert spec_verifier_v2.check(document) == [
        "ok" if r["state"] in ("revealed", "played") else "pending" for r in document["rolls"]
    ]


def test_an_absent_opponent_costs_the_wait_and_the_roll_says_so(client, wall):
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    match_id = live_match(ann, bob)
    bobs = Device(bob)
    bobs.register(match_id)
    # Ann's device never registers: the first roll waits for it, no longer than the wait.
    wall.advance(LINK_WAIT_S - 0.5)
    client.portal.call(services(client.app).game.tick)
    assert ann.state(match_id)["pending_roll"] is None
    wall.advance(1.0)
    client.portal.call(services(client.app).game.tick)
    assert ann.state(match_id)["pending_roll"]["seat"] == 0
    players = {0: ann, 1: bob}
    past_opening(players, {0: None, 1: bobs}, match_id)
    state = ann.state(match_id)
    while not (state["phase"] == "roll" and state["turn"] == 0):
        seat = state["turn"]
        if state["phase"] == "play":
            play_first(players[seat], match_id)
        else:  # ann's device registered no chain: bob's rolls go on at once ("none")
            assert events(players[seat].roll(match_id), "roll")[0]["opponent_source"] == "none"
        state = ann.state(match_id)
    assert events(ann.roll(match_id), "roll_requested")
    wall.advance(LINK_WAIT_S - 0.5)
    client.portal.call(services(client.app).game.tick)
    assert ann.state(match_id)["pending_roll"]["state"] == "requested"
    wall.advance(1.0)
    client.portal.call(services(client.app).game.tick)
    state = ann.state(match_id)
    assert state["pending_roll"] is None and state["phase"] == "play"
    rolled = state["rolls"][-1]
    assert rolled["opponent_source"] == "absent" and rolled["opponent_entropy"] is None
    check_dice(match_id, rolled)
    document = client.get(f"/api/audit/{match_id}").json()
    assert document["verified"] is True and document["counts"]["opponent_absent"] == 1
    assert play_first(ann, match_id).status_code == 200
    if ann.state(match_id)["phase"] != "match_over":
        assert events(bob.roll(match_id), "roll")[0]["opponent_source"] == "none"
        # Bob rolled with ann as the opponent and no chain: a late anchor is taken all the
        # same (test_a_late_anchor_takes_part_from_the_roll_it_missed).
        r = ann.act(match_id, "anchor", anchor=os.urandom(32).hex())
        assert [e["type"] for e in r.json()["events"]][:1] == ["anchor"]


def log_leaves(client, document: dict) -> list[str]:
    """The public log up to the document's signed head, as ``GET /api/log/entries`` serves
    it."""
    size = document["log"]["head"]["tree_size"]
    return [e["leaf"] for start in range(0, size, 1000)
            for e in client.get(f"/api/log/entries?start={start}&count=1000").json()][:size]


def test_a_late_anchor_takes_part_from_the_roll_it_missed(client, wall):
    """Ann's device comes after the wait for the anchors (docs/fair-dice.md §Checking the
    anchors (v2)): the rolls before stay ``none``; the committed roll of bob's it missed is
    voided, never requested, and committed again with ann's anchor; from then on every roll
    of bob's takes ann's links, and the record passes the server's verdict, verify.py and the
    spec's verifier, with the log. A second anchor for ann's seat (a new device) is refused."""
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    match_id = live_match(ann, bob, length=3)
    bobs, anns = Device(bob), Device(ann)
    bobs.register(match_id)
    wall.advance(LINK_WAIT_S + 0.5)
    client.portal.call(services(client.app).game.tick)
    players = {0: ann, 1: bob}
    past_opening(players, {0: None, 1: bobs}, match_id)
    state = ann.state(match_id)
    nones = 0  # bob's rolls without ann's chain, one at least
    while not (state["phase"] == "roll" and state["turn"] == 1 and nones):
        if state["phase"] == "play":
            assert play_first(players[state["turn"]], match_id).status_code == 200
        else:
            rolled = roll(players, {0: None, 1: bobs}, match_id, state["turn"])
            nones += rolled["opponent_source"] == "none"
        state = ann.state(match_id)
    missed = state["pending_roll"]
    assert missed["seat"] == 1 and missed["state"] == "committed"
    assert missed["opponent_prev_link"] is None
    early = {r["roll_id"] for r in state["rolls"] if r["opponent_source"] == "none"}
    wall.advance(2.0)
    r = anns.register(match_id)
    assert [e["type"] for e in r.json()["events"]] == ["anchor", "commitment"], r.text
    again = ann.state(match_id)["pending_roll"]
    assert again["roll_id"] != missed["roll_id"] and again["seat"] == 1
    assert again["opponent_prev_link"] == anns.anchor and again["opponent_link_steps"] == 1
    # The voided roll is the roller's no more.
    refused = bob.act(match_id, "roll", **bob.roll_action({"pending_roll": missed}))
    assert (refused.status_code, code(refused)) == (400, "roll_mismatch")
    # One anchor per seat and match: another device of ann's is refused, nothing changed.
    other = Device(ann).register(match_id)
    assert (other.status_code, code(other)) == (409, "anchor_registered")
    assert anns.register(match_id).json()["events"] == []
    devices = {0: anns, 1: bobs}
    taken = 0
    for _ in range(60):
        state = ann.state(match_id)
        if state["phase"] == "match_over" or taken >= 3:
            break
        seat = state["turn"]
        if state["phase"] == "play":
            assert play_first(players[seat], match_id).status_code == 200
            continue
        rolled = roll(players, devices, match_id, seat)
        assert rolled["opponent_source"] == "client"
        taken += seat == 1
    assert taken >= 1
    document = client.get(f"/api/audit/{match_id}").json()
    assert document["verified"] is True, document["failure"]
    assert document["anchors"] == [anns.anchor, bobs.anchor]
    rolls = {r["roll_id"]: r for r in document["rolls"]}
    void, recommitted = rolls[missed["roll_id"]], rolls[again["roll_id"]]
    assert void["state"] == "void" and void["requested_at"] is None
    assert void["opponent_prev_link"] is None and void["seq"] + 1 == recommitted["seq"]
    # Voided and committed again in the anchor's transaction: one time, hashed in both.
    assert void["voided_at"] == recommitted["committed_at"] != void["committed_at"]
    assert recommitted["opponent_prev_link"] == anns.anchor
    assert recommitted["opponent_entropy"] == anns.links[1]
    assert [e["event"] for e in void["log"]] == ["committed", "void"]
    anchor_leaf = next(e["index"] for e in document["log"]["anchors"]
                       if json.loads(e["leaf"])["seat"] == 0)
    assert void["log"][0]["index"] < anchor_leaf < void["log"][1]["index"]
    # Bob's rolls before it took no link of ann's, and every one after it did.
    for entry in document["rolls"]:
        if entry["seat"] == 1 and entry["seq"] < void["seq"]:
            assert entry["opponent_prev_link"] is None
        elif entry["seat"] == 1 and entry["seq"] > void["seq"]:
            assert entry["opponent_prev_link"] is not None
    assert {r["roll_id"] for r in document["rolls"] if r["opponent_source"] == "none"} == early
    log = log_leaves(client, document)
    assert verify_document(document, log_leaves=log).ok
    assert not any(v.startswith("bad") for v in spec_verifier_v2.check(document, log))
    assert not any(v.startswith("bad") for v in spec_verifier_v2.check(document))


def test_a_link_that_came_too_late_is_used_up(client, wall, tmp_path):
    """A roll revealed ``absent`` (the wait ran out; the link comes after) uses up the
    opponent's link: the same roller's next roll asks for the one after it (k = 2), the late
    link is refused with nothing changed, and the record and that roll's program verify."""
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    match_id = live_match(ann, bob, length=3)
    devices = {0: Device(ann), 1: Device(bob)}
    for device in devices.values():
        device.register(match_id)
    players = {0: ann, 1: bob}
    past_opening(players, dict(devices), match_id)
    late: dict | None = None
    checked = None
    for _ in range(40):
        state = ann.state(match_id)
        if state["phase"] == "match_over" or checked:
            break
        seat = state["turn"]
        if state["phase"] == "play":
            assert play_first(players[seat], match_id).status_code == 200
            continue
        if late is None:
            # The opponent's device answers only after the wait: the roll goes on "absent".
            assert events(players[seat].roll(match_id), "roll_requested")
            late = players[seat].state(match_id)["pending_roll"] | {"roller": seat}
            wall.advance(LINK_WAIT_S + 0.5)
            client.portal.call(services(client.app).game.tick)
            assert ann.state(match_id)["rolls"][-1]["opponent_source"] == "absent"
            r = devices[1 - seat].contribute(match_id, late)
            assert (r.status_code, code(r)) == (400, "wrong_phase")
            continue
        if seat != late["roller"]:
            roll(players, dict(devices), match_id, seat)
            continue
        r = players[seat].roll(match_id)
        pending = players[seat].state(match_id)["pending_roll"]
        assert events(r, "roll_requested")[0]["opponent_link_steps"] == 2
        assert pending["opponent_prev_link"] == late["opponent_prev_link"]
        assert pending["opponent_link_steps"] == 2
        opponent = devices[1 - seat]
        stale = opponent.link_after(late["opponent_prev_link"], late["opponent_link_steps"])
        r = opponent.player.act(match_id, "contribute", roll_id=pending["roll_id"], link=stale)
        assert (r.status_code, code(r)) == (400, "link_mismatch")
        assert "in exactly 2 step" in r.json()["error"]["message"]
        assert players[seat].state(match_id)["pending_roll"] == pending
        rolled = events(opponent.contribute(match_id, pending), "roll")[0]
        assert rolled["opponent_entropy"] == opponent.link_after(pending["opponent_prev_link"], 2)
        check_dice(match_id, rolled)
        checked = rolled["roll_id"]
    assert checked is not None, "the match ended before the roller rolled again"
    document = client.get(f"/api/audit/{match_id}").json()
    assert document["verified"] is True, document["failure"]
    steps = {r["roll_id"]: r["opponent_link_steps"] for r in document["rolls"]}
    assert steps[late["roll_id"]] == late["opponent_link_steps"] and steps[checked] == 2
    assert spec_verifier_v2.steps(document) == [r["opponent_link_steps"]
                                                for r in document["rolls"]]
    assert not any(v.startswith("bad") for v in spec_verifier_v2.check(document))
    done = _run(tmp_path, _row_programs(client, match_id)[checked])
    assert done.returncode == 0, done.stderr
    assert "the opponent's link (2 SHA-256 steps to opponent_prev_link" in done.stdout
    single = next(r["roll_id"] for r in document["rolls"]
                  if r["opponent_link_steps"] == 1 and r["opponent_source"] == "client")
    once = _run(tmp_path, _row_programs(client, match_id)[single])
    assert once.returncode == 0, once.stderr
    assert "the opponent's link (1 SHA-256 step to opponent_prev_link" in once.stdout
    # The roll's proof carries what a device needs to count k itself: the entries before it
    # back to the one that last revealed this opponent's link, the absent roll among them,
    # without a gap and chained by their hashes into the roll.
    proof = client.get(f"/api/audit/{match_id}/rolls/{checked}/proof").json()
    before, rolled_entry = proof["preceding"], proof["roll"]
    assert [r["seq"] for r in before] == list(range(before[0]["seq"], rolled_entry["seq"]))
    assert late["roll_id"] in [r["roll_id"] for r in before]
    assert before[0]["seq"] == 0 or (before[0]["seat"] == rolled_entry["seat"]
                                     and before[0]["opponent_entropy"] is not None)
    assert [r["entry_hash"] for r in before] == [
        r["prev_hash"] for r in [*before[1:], rolled_entry]]
    assert spec_verifier_v2.steps({"rolls": [*before, rolled_entry]})[-1] == 2


def test_the_computers_rolls_take_the_humans_link(client):
    ann = Player.register(client, "ann")
    r = ann.post("/api/matches/computer", {"level": "easy", "length": 1})
    assert r.status_code == 201, r.text
    match_id = r.json()["match_id"]
    device = Device(ann)
    device.register(match_id)
    computer_rolls = 0
    for _ in range(200):
        state = ann.state(match_id)
        if state["phase"] == "match_over" or computer_rolls >= 2:
            break
        pending = state["pending_roll"]
        if pending and pending["seat"] == 1 and pending["state"] == "requested":
            # The computer asked (its cube decision made): its dice wait for ann's link.
            rolled = events(device.contribute(match_id, pending), "roll")[0]
            assert rolled["roller_source"] == "server" and rolled["opponent_source"] == "client"
            check_dice(match_id, rolled)
            # The server's own entropy for the computer was fixed before ann's link left.
            assert hashlib.sha256(bytes.fromhex(rolled["roller_entropy"])).hexdigest() \
                == pending["roller_entropy_sha256"]
            computer_rolls += 1
        elif state["turn"] == 0 and state["phase"] in ("opening", "roll"):
            ann.roll(match_id)
        elif state["turn"] == 0 and state["phase"] == "play":
            play_first(ann, match_id)
        elif state["turn"] == 0 and state["phase"] == "resign_offered":
            ann.act(match_id, "accept_resign")
        elif state["turn"] == 0 and state["phase"] == "double_offered":
            ann.act(match_id, "take")
        else:
            time.sleep(0.2)  # the computer thinks (its task runs in the client's event loop)
    assert computer_rolls >= 1  # no game ends before the computer has rolled
    document = client.get(f"/api/audit/{match_id}").json()
    assert document["verified"] is True and document["counts"]["computer"] == computer_rolls
    # A roll's proof carries the entries its k counts and no more: none for ann's rolls (the
    # computer has no chain, there is no k), however long the record; for the computer's, those
    # back to the last one that revealed ann's link (or from seq 0).
    rolls = document["rolls"]
    assert any(e["seq"] > 0 and e["opponent_prev_link"] is None for e in rolls)
    for entry in rolls:
        proof = client.get(f"/api/audit/{match_id}/rolls/{entry['roll_id']}/proof").json()
        got = [r["seq"] for r in proof["preceding"]]
        if entry["opponent_prev_link"] is None:
            assert got == [], entry["roll_id"]
        else:
            start = max((e["seq"] for e in rolls[: entry["seq"]]
                         if e["seat"] == entry["seat"] and e["opponent_entropy"]), default=0)
            assert got == list(range(start, entry["seq"]))


def _finish_against_the_computer(ann: Player, match_id: str) -> None:
    """ann (seat 0) ends a 1-point match against the computer: she rolls, and resigns a
    backgammon once she has a play (the computer accepts)."""
    for _ in range(600):
        state = ann.state(match_id)
        if state["phase"] == "match_over":
            return
        if state["turn"] == 0 and state["phase"] in ("opening", "roll"):
            ann.roll(match_id)
        elif state["turn"] == 0 and state["phase"] == "play":
            ann.act(match_id, "resign", points=3)
        elif state["turn"] == 0:
            ann.act(match_id, "decline_resign" if state["phase"] == "resign_offered" else "take")
        else:
            time.sleep(0.05)
    raise AssertionError(f"match {match_id} did not end")


def test_a_rematch_where_the_computer_rolls_first_waits_for_the_humans_anchor(client, wall):
    """Found by an outside audit: a rematch against the computer swaps the colours, so the
    computer (seat 0) rolls first, and its opening roll was committed when the match was
    made, before the human's page could register its chain: the anchor was refused as too
    late and none of the computer's rolls took the human's link, against "the computer's
    rolls take the human's link". The first roll now waits for the human's anchor, as a live
    match's waits for both devices', and for no longer than the link wait."""
    ann = Player.register(client, "ann")
    first = ann.post("/api/matches/computer", {"level": "easy", "length": 1}).json()["match_id"]
    _finish_against_the_computer(ann, first)
    rematch = ann.post(f"/api/matches/{first}/rematch").json()["match_id"]
    state = ann.state(rematch)
    assert (state["you"], state["players"][0]["bot"]) == (1, "easy")
    assert (state["pending_roll"], state["rolls"], state["turn"]) == (None, [], None)
    device = Device(ann)
    assert device.register(rematch).status_code == 200
    for _ in range(600):
        pending = ann.state(rematch)["pending_roll"]
        if pending is not None and pending["state"] == "requested":
            break
        time.sleep(0.05)
    else:
        raise AssertionError("the computer did not ask for its opening roll")
    assert (pending["seat"], pending["kind"], pending["opponent_prev_link"]) == (
        0, "opening", device.anchor)
    rolled = events(device.contribute(rematch, pending), "roll")[0]
    assert (rolled["roller_source"], rolled["opponent_source"]) == ("server", "client")
    check_dice(rematch, rolled)
    document = client.get(f"/api/audit/{rematch}").json()
    assert document["verified"] is True and document["counts"]["computer"] == 1



def test_without_the_humans_device_the_computers_first_roll_waits_only_the_link_wait(
        client, wall, caplog):
    ann = Player.register(client, "ann")
    first = ann.post("/api/matches/computer", {"level": "easy", "length": 1}).json()["match_id"]
    _finish_against_the_computer(ann, first)
    rematch = ann.post(f"/api/matches/{first}/rematch").json()["match_id"]
    wall.advance(LINK_WAIT_S - 0.5)
    client.portal.call(services(client.app).game.tick)  # nothing due yet
    assert ann.state(rematch)["rolls"] == [] and ann.state(rematch)["pending_roll"] is None
    wall.advance(1.0)
    client.portal.call(services(client.app).game.tick)
    for _ in range(600):
        rolls = ann.state(rematch)["rolls"]
        if rolls:
            break
        time.sleep(0.05)
    else:
        raise AssertionError("the computer's first roll never came")
    assert (rolls[0]["seat"], rolls[0]["kind"], rolls[0]["opponent_source"]) == (
        0, "opening", "none")
    # A late anchor is taken all the same (test_a_late_anchor_takes_part_from_the_roll_it_missed).
    r = ann.act(rematch, "anchor", anchor=os.urandom(32).hex())
    assert events(r, "anchor")
    # While its first roll waited the computer had nothing to do, and did nothing (it logged
    # "the computer could not act" with a traceback each time it was started).
    assert not [r for r in caplog.records if "could not act" in r.getMessage()]


def test_v1_matches_keep_v1_and_take_no_anchor(database_url):
    with TestClient(make_app(database_url, dice="v1")) as client:
        ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
        match_id = live_match(ann, bob)
        state = ann.state(match_id)
        assert state["dice_protocol"] == "v1" and "kind" not in state["pending_roll"]
        r = ann.act(match_id, "anchor", anchor=os.urandom(32).hex())
        assert (r.status_code, code(r)) == (400, "wrong_phase")
        rolled = events(ann.roll(match_id), "roll")[0]
        assert rolled["entropy_source"] == "client" and "kind" not in rolled
        assert client.get(f"/api/audit/{match_id}").json()["format"] == "boardgammon-audit-v1"


def play_out_v2(
    players: dict[int, Player], devices: dict[int, Device | None], match_id: str
) -> dict:
    """Play to the end (first legal play each turn, every link revealed); the match_end
    event."""
    for _ in range(3000):
        state = players[0].state(match_id)
        seat = state["turn"]
        if state["phase"] in ("opening", "roll"):
            roll(players, devices, match_id, seat)
            continue
        r = play_first(players[seat], match_id)
        ended = events(r, "match_end")
        if ended:
            return ended[0]
    raise AssertionError("the match did not end")


def played_v2_match(client) -> tuple[str, dict]:
    """ann and bob, each with a device that registered its chain, play a 1-point live match to
    its end (every link revealed): (the match's ID, the match_end event)."""
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    match_id = live_match(ann, bob)
    devices: dict[int, Device | None] = {0: Device(ann), 1: Device(bob)}
    for device in devices.values():
        assert device is not None
        device.register(match_id)
    return match_id, play_out_v2({0: ann, 1: bob}, devices, match_id)


@pytest.mark.parametrize("lang", ["en", "de", "ja"])
def test_a_finished_v2_match_is_in_the_public_log_under_its_signed_head(client, lang):
    match_id, ended = played_v2_match(client)
    document = client.get(f"/api/audit/{match_id}").json()
    assert document["verified"] is True
    # Every change of every roll is a leaf, requests included, each proven under the head.
    check_log(document)
    # Both devices' anchors are leaves too; read with the whole log, both verifiers pass.
    size = document["log"]["head"]["tree_size"]
    log = [e["leaf"] for start in range(0, size, 1000)
           for e in client.get(f"/api/log/entries?start={start}&count=1000").json()][:size]
    assert [json.loads(e["leaf"])["seat"] for e in document["log"]["anchors"]] == [0, 1]
    assert verify_document(document, log_leaves=log).ok
    assert not any(v.startswith("bad") for v in spec_verifier_v2.check(document, log))
    for entry in document["rolls"]:
        events_logged = [leaf["event"] for leaf in entry["log"]]
        assert events_logged in (
            ["committed", "requested", "revealed", "played"],
            ["committed", "void"],
        ), events_logged
    # The result carries a signed head that includes the match's last change.
    head = ended["result"]["log_head"]
    last = max(leaf["index"] for entry in document["rolls"] for leaf in entry["log"])
    assert head["tree_size"] > last
    key = bytes.fromhex(document["log"]["public_key"])
    assert verify_ed25519(key, bytes.fromhex(head["signature"]), signed_head_bytes(head))
    assert ended["result"]["chain_head"] == document["chain_head"]
    # Each player's own dice statistics count their normal rolls, not the opening ones.
    for seat, name in ((0, "ann"), (1, "bob")):
        own = [r for r in document["rolls"] if r["seat"] == seat and r["kind"] == "normal"
               and r["state"] in ("revealed", "played")]
        assert client.get(f"/api/players/{name}/dice").json()["rolls"] == len(own) > 0
    # The page serves the v2 record with each kind of roll counted in plain words.
    page = client.get(f"/audit/{match_id}?lang={lang}")
    assert page.status_code == 200, page.text
    live = document["counts"]["live"]
    assert live > 0 and f'data-kind="live">{translator(lang)("counts.live", count=live)}' in (
        html.unescape(page.text)
    )
    assert translator(lang)("kind.opening") in page.text
    assert all(f'id="{entry["roll_id"]}"' in page.text for entry in document["rolls"])


def test_a_finished_match_gives_the_head_its_result_showed_after_a_reload(client):
    # The result dialog's head came only with the live match_end event: a reload lost it.
    match_id, ended = played_v2_match(client)
    shown = ended["result"]["log_head"]
    # Later changes elsewhere and newer heads do not move the match's head.
    played_v2_match_between(client, "cid", "dan")
    newest = client.get(f"/api/audit/{match_id}").json()["log"]["head"]
    answer = client.get(f"/api/audit/{match_id}/head")
    assert answer.status_code == 200, answer.text
    assert answer.json() == {"head": shown}
    assert newest["tree_size"] > shown["tree_size"]
    unknown = client.get("/api/audit/mat_" + "a" * 24 + "/head")
    assert (unknown.status_code, code(unknown)) == (404, "not_found")
    assert client.get("/api/audit/nonsense/head").status_code == 422


def test_a_match_no_head_covers_yet_gets_one_signed(database_url, wall):
    # Heads signed at most hourly: a head covering the match's newest entry is signed at once.
    with TestClient(make_app(database_url, wall, dice="v2", link_wait_s=LINK_WAIT_S,
                             log_head_interval_s=3600.0)) as c:
        ann, bob = Player.register(c, "ann"), Player.register(c, "bob")
        match_id = live_match(ann, bob)
        # Nothing of it in the log before the anchors (its first roll waits for them).
        assert c.get(f"/api/audit/{match_id}/head").status_code == 404
        for player in (ann, bob):
            Device(player).register(match_id)
        first = c.get(f"/api/audit/{match_id}/head").json()["head"]
        document = c.get(f"/api/audit/{match_id}").json()
        last = max([leaf["index"] for entry in document["rolls"] for leaf in entry["log"]]
                   + [leaf["index"] for leaf in document["log"]["anchors"]])
        assert first["tree_size"] == last + 1
        key = bytes.fromhex(document["log"]["public_key"])
        assert verify_ed25519(key, bytes.fromhex(first["signature"]), signed_head_bytes(first))


def played_v2_match_between(client, one: str, other: str) -> str:
    """Like :func:`played_v2_match` between two other players; the match's ID."""
    a, b = Player.register(client, one), Player.register(client, other)
    match_id = live_match(a, b)
    devices: dict[int, Device | None] = {0: Device(a), 1: Device(b)}
    for device in devices.values():
        assert device is not None
        device.register(match_id)
    play_out_v2({0: a, 1: b}, devices, match_id)
    return match_id


def test_a_v2_roll_stripped_of_its_log_entries_fails_the_log_check(client):
    # A server that rewrites a roll (new entropy and dice from the seed it holds), re-hashes
    # the chain and serves the roll without its leaves passed: check_log counted it as a roll
    # "committed before the log began", which no v2 roll can be (the log came first).
    match_id, _ = played_v2_match(client)
    document = client.get(f"/api/audit/{match_id}").json()
    check_log(document)
    last = document["rolls"][-1]
    for stripped in ([], last["log"][1:]):
        rolls = [*document["rolls"][:-1], {**last, "log": stripped}]
        with pytest.raises(ProofError, match=f"roll {last['roll_id']}") as caught:
            check_log({**document, "rolls": rolls})
        assert "every change of a v2 roll is logged" in str(caught.value)


def _clocked(client, wall) -> tuple[str, dict[int, Player], dict[int, Device]]:
    """A live 1-point bullet match (5 s delay, 30 s reserve) whose devices registered."""
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    match_id = live_match(ann, bob, clock="bullet")
    devices = {0: Device(ann), 1: Device(bob)}
    for device in devices.values():
        device.register(match_id)
    return match_id, {0: ann, 1: bob}, devices


def test_the_wait_for_a_link_is_the_late_players_time(client, wall):
    match_id, players, devices = _clocked(client, wall)
    ann = players[0]
    wall.advance(4.0)  # ann thinks 4 s of her 5 s delay before she asks for the opening roll
    assert events(ann.roll(match_id), "roll_requested")
    wall.advance(2.5)  # bob's device answers 2.5 s later
    clocks = ann.state(match_id)["clocks"]
    assert clocks["running"] == 1 and clocks["delay_left"] == 0.0
    assert clocks["reserve"] == pytest.approx([30.0, 27.5])
    # A server that forgot the match (restarted, cache evicted) puts the wait back on.
    services(client.app).game.service.matches.cache.pop(match_id)
    assert ann.state(match_id)["clocks"]["reserve"] == pytest.approx([30.0, 27.5])
    pending = ann.state(match_id)["pending_roll"]
    rolled = events(devices[1].contribute(match_id, pending), "roll")[0]
    assert rolled["opponent_source"] == "client"
    state = ann.state(match_id)
    # Ann's clock stood still during the wait: 6.5 s since the start, 4 s of them hers.
    assert state["clocks"]["reserve"] == pytest.approx([30.0, 27.5])
    if state["clocks"]["running"] == 0:  # ann won the opening roll: her move goes on
        assert state["clocks"]["delay_left"] == pytest.approx(1.0)
    services(client.app).game.service.matches.cache.pop(match_id)
    assert ann.state(match_id)["clocks"]["reserve"] == pytest.approx([30.0, 27.5])


def test_the_wait_for_the_anchors_is_nobodys_time(client, wall):
    """The first roll waits for both devices' anchors (up to the link wait): the opening
    roller's clock starts when the roll can be made, not at the match's creation, even when
    it was the opponent's device that never registered."""
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    match_id = live_match(ann, bob, clock="bullet")  # 5 s delay, 30 s reserve
    Device(bob).register(match_id)  # ann's never does
    wall.advance(LINK_WAIT_S - 0.5)
    client.portal.call(services(client.app).game.tick)
    state = ann.state(match_id)
    assert state["pending_roll"] is None
    # Meanwhile the state shows no clock running, and none charged.
    assert state["clocks"]["running"] is None
    assert state["clocks"]["delay_left"] == pytest.approx(5.0)
    assert state["clocks"]["reserve"] == pytest.approx([30.0, 30.0])
    wall.advance(1.0)
    client.portal.call(services(client.app).game.tick)
    state = ann.state(match_id)
    assert state["pending_roll"]["seat"] == 0
    assert state["clocks"]["running"] == 0
    assert state["clocks"]["delay_left"] == pytest.approx(5.0)
    assert state["clocks"]["reserve"] == pytest.approx([30.0, 30.0])
    wall.advance(2.0)
    assert ann.state(match_id)["clocks"]["delay_left"] == pytest.approx(3.0)
    # Replayed from the database (a restart, an evicted cache): the same clock.
    services(client.app).game.service.matches.cache.pop(match_id)
    clocks = ann.state(match_id)["clocks"]
    assert clocks["delay_left"] == pytest.approx(3.0)
    assert clocks["reserve"] == pytest.approx([30.0, 30.0])
    # Both anchors at once: the roll is committed with the second, and the clock starts then.
    carl, dora = Player.register(client, "carl"), Player.register(client, "dora")
    other = live_match(carl, dora, clock="bullet")
    Device(carl).register(other)
    wall.advance(1.5)
    Device(dora).register(other)
    clocks = carl.state(other)["clocks"]
    assert carl.state(other)["pending_roll"]["seat"] == 0
    assert (clocks["running"], clocks["delay_left"]) == (0, pytest.approx(5.0))


def test_a_flag_during_the_wait_for_a_link_aborts_for_the_absent_player(database_url, wall):
    with TestClient(make_app(database_url, wall, dice="v2", link_wait_s=60.0)) as client:
        match_id, players, _ = _clocked(client, wall)
        ann = players[0]
        assert events(ann.roll(match_id), "roll_requested")
        # Bob's device never answers; the wait (up to 60 s here) runs his 30 s reserve down.
        wall.advance(29.5)
        client.portal.call(services(client.app).game.tick)
        state = ann.state(match_id)
        assert state["phase"] == "opening" and state["pending_roll"]["state"] == "requested"
        assert state["clocks"]["reserve"] == pytest.approx([30.0, 0.5])
        wall.advance(1.0)
        client.portal.call(services(client.app).game.tick)
        state = ann.state(match_id)
        assert state["phase"] == "match_over"
        # Bob never made a move: the match is aborted (a flag once he had would lose it).
        assert state["games"][-1]["how"] == "abort"
        assert (state["result"]["winner"], state["result"]["aborted"]) == (None, 1)
        assert state["pending_roll"] is None
        # Ann's clock never ran: 30.5 s passed, all of them bob's.
        document = client.get(f"/api/audit/{match_id}").json()
        assert [r["state"] for r in document["rolls"]] == ["void"]
        assert document["verified"] is True


def test_a_roll_asked_for_after_the_first_move_minute_finds_the_match_aborted(client, wall):
    # Ann never moved for a minute (a 5-point rapid match: her reserve has 600 s left); her
    # late request must not start a wait for bob's device, which would put it on his clock.
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    match_id = live_match(ann, bob, length=5, clock="rapid")
    for player in (ann, bob):
        assert Device(player).register(match_id).status_code == 200
    wall.advance(61.0)
    r = ann.roll(match_id)
    assert (r.status_code, code(r)) == (409, "match_over")
    state = bob.state(match_id)
    assert (state["result"]["aborted"], state["games"][-1]["how"]) == (0, "abort")
    assert state["clocks"]["reserve"] == [pytest.approx(600.0 - 49.0), 600.0]


def _row_programs(client, match_id: str) -> dict[str, str]:
    """The audit page's filled-in programs by roll ID (the first roll's in "Verify it
    yourself"; each row links to its own, which is the same for the first)."""
    page = client.get(f"/audit/{match_id}?lang=en").text
    programs = {
        roll_id: client.get(link).text
        for roll_id, link in re.findall(r'<a id="verify-roll-(rol_\w+)" href="([^"]+)">', page)
    }
    first = re.search(r'<pre id="verify-roll"><code>(.*?)</code></pre>', page, re.DOTALL)
    assert first is not None
    text = html.unescape(first.group(1))
    assert programs[re.search(r"^roll_id = '(rol_\w+)'$", text, re.MULTILINE).group(1)] == text
    return programs


def _run(tmp_path, text: str) -> subprocess.CompletedProcess:
    path = tmp_path / "verify_roll.py"
    path.write_text(text, encoding="utf-8")
    # -I -S: no site-packages, no PYTHONPATH, no current directory: the standard library only.
    return subprocess.run(
        [sys.executable, "-I", "-S", str(path)], capture_output=True, text=True, timeout=60,
        cwd=tmp_path,
    )


def test_every_v2_row_has_a_program_that_checks_it(client, wall, tmp_path):
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    match_id = live_match(ann, bob)
    devices = {0: Device(ann), 1: Device(bob)}
    for device in devices.values():
        device.register(match_id)
    players = {0: ann, 1: bob}
    past_opening(players, dict(devices), match_id)
    for _ in range(8):
        state = ann.state(match_id)
        if state["phase"] == "match_over":
            break
        if state["phase"] == "play":
            play_first(players[state["turn"]], match_id)
        else:
            roll(players, dict(devices), match_id, state["turn"])
    document = client.get(f"/api/audit/{match_id}").json()
    revealed = [r for r in document["rolls"] if r["server_seed"] is not None]
    programs = _row_programs(client, match_id)
    assert sorted(programs) == sorted(r["roll_id"] for r in revealed) and len(revealed) >= 4
    for entry in revealed:
        text = programs[entry["roll_id"]]
        done = _run(tmp_path, text)
        assert done.returncode == 0, done.stderr
        d1, d2 = entry["dice"]
        assert (f"the dice {d1}-{d2}, the entry hash, {len(entry['log'])} log entries of "
                f"{entry['roll_id']} and 2 chain anchor(s)") in done.stdout
        assert "the opponent's link" in done.stdout
    # Tampered values: each is caught, with the reason.
    entry = revealed[-1]
    text = programs[entry["roll_id"]]
    d1, d2 = entry["dice"]
    path_hash = entry["log"][0]["inclusion_path"][0]
    # Other entropy gives the same dice once in 36 or so: then the entry hash catches it.
    changes = {
        f"dice = ({d1}, {d2})": (f"dice = ({d1 % 6 + 1}, {d2})", ("the dice are",)),
        entry["roller_entropy"]: ("00" * 16, ("the dice are", "the entry hashes to")),
        entry["opponent_entropy"]: ("00" * 32, ("the opponent's link",)),
        f"'{path_hash}'": (f"'{'0' * 64}'", ("inclusion proof",)),
        f"'{entry['played_at'] or entry['revealed_at']}'": (
            "'2030-01-01T00:00:00.000000Z'", ("the entry hashes to",)),
    }
    for old, (new, reasons) in changes.items():
        assert old in text
        # The roll's own values come first; the entries before it may repeat a time.
        done = _run(tmp_path, text.replace(old, new, 1))
        assert done.returncode == 1 and done.stderr.startswith("FAILED: "), (old, done.stderr)
        assert any(reason in done.stderr for reason in reasons), (old, done.stderr)


def test_the_opponents_link_tells_the_roller_no_turn_it_had_already(client):
    """A roll's request and its link leave the turn with the roller: their pages hear no
    ``turn`` from either (the link's once was one more publish per v2 roll, for nothing);
    they hear it when the opponent's play passes the turn to them."""
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    devices = {0: Device(ann), 1: Device(bob)}
    players = {0: ann, 1: bob}
    match_id = live_match(ann, bob)
    for device in devices.values():
        device.register(match_id)
    past_opening(players, dict(devices), match_id)
    if ann.state(match_id)["phase"] == "play":  # the opening roll's winner plays it
        assert play_first(players[ann.state(match_id)["turn"]], match_id).status_code == 200
    seat = ann.state(match_id)["turn"]
    roller = players[seat]
    with client.websocket_connect("/ws/me", headers=roller.headers) as me:
        assert me.receive_json()["type"] == "hello"
        roll(players, dict(devices), match_id, seat)  # the request, then the opponent's link
        me.send_text("ping")
        assert me.receive_json() == {"type": "pong"}  # no "turn" came before it
        assert play_first(roller, match_id).status_code == 200
        roll(players, dict(devices), match_id, 1 - seat)  # the roller's link: still no turn
        assert play_first(players[1 - seat], match_id).status_code == 200
        assert me.receive_json() == {"type": "turn", "match_id": match_id}


def _frames_until_pong(socket) -> list[dict]:
    """The frames a match socket has queued, read up to the answer to a ping sent now."""
    socket.send_json({"type": "ping"})
    frames = []
    while (frame := socket.receive_json())["type"] != "pong":
        assert frame["type"] != "error", frame
        frames.append(frame)
    return frames


def test_a_request_sends_its_events_without_a_state(client):
    """A v2 roll's request changes nothing a state shows but the pending roll's ``state``
    and hash and the clocks, which its ``roll_requested`` event carries (the clocks folded in
    from its ``clock`` event): every connection gets that one frame and no ``state``, which
    would tell nothing more (issue #25's capacity target: a state built and sent per
    connection, spared). The link's reveal then brings the state as every other action
    does."""
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    devices: dict[int, Device | None] = {0: Device(ann), 1: Device(bob)}
    match_id = live_match(ann, bob, clock="blitz")
    for device in devices.values():
        assert device is not None
        device.register(match_id)
    players = {0: ann, 1: bob}
    past_opening(players, devices, match_id)
    if ann.state(match_id)["phase"] == "play":
        assert play_first(players[ann.state(match_id)["turn"]], match_id).status_code == 200
    seat = ann.state(match_id)["turn"]
    roller, opponent = players[seat], devices[1 - seat]
    assert opponent is not None
    path = f"/ws/matches/{match_id}"
    with client.websocket_connect(path, headers=roller.headers) as mine, \
            client.websocket_connect(path, headers=opponent.player.headers) as theirs, \
            client.websocket_connect(path) as watching:
        sockets = (mine, theirs, watching)
        for socket in sockets:
            assert socket.receive_json()["type"] == "state"
            _frames_until_pong(socket)  # a spectator count, if any
        r = roller.roll(match_id)
        requested = events(r, "roll_requested")[0]
        for socket in sockets:
            frames = _frames_until_pong(socket)
            # One frame: the request's clocks inside its event (the HTTP answer has both).
            assert [f["type"] for f in frames] == ["roll_requested"]
            assert {k: v for k, v in frames[0].items() if k != "clocks"} == requested
            assert frames[0]["clocks"] == events(r, "clock")[0]["clocks"]
            assert frames[0]["clocks"]["running"] == 1 - seat  # the wait is the opponent's
        pending = opponent.player.state(match_id)["pending_roll"]
        assert pending["roller_entropy_sha256"] == requested["roller_entropy_sha256"]
        rolled = events(opponent.contribute(match_id, pending), "roll")[0]
        for socket in sockets:
            frames = _frames_until_pong(socket)
            # The link's clock event is in its HTTP answer; on the socket the state says it.
            assert [f["type"] for f in frames] == ["roll", "state"]
            assert frames[0] == rolled and frames[1]["state"]["dice"] == rolled["dice"]
            assert frames[1]["state"]["clocks"]["running"] == seat


def test_an_actions_log_leaves_are_written_together(client):
    """A play marks its roll played and commits the next one: two leaves of the public log,
    written in one go at the commit (the size row grown once, one insert of the leaves, one
    of their subtrees), not one after the other (issue #25: fewer statements per action).
    The tree stays the RFC tree: the match's rows verify against the log."""
    from sqlalchemy import event as sa_event

    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    devices: dict[int, Device | None] = {0: Device(ann), 1: Device(bob)}
    match_id = live_match(ann, bob)
    for device in devices.values():
        assert device is not None
        device.register(match_id)
    players = {0: ann, 1: bob}
    past_opening(players, devices, match_id)
    engine = services(client.app).db.engine
    statements: list[str] = []

    def seen(conn, cursor, statement, *args) -> None:
        statements.append(statement)

    def log_writes() -> list[str]:
        return [s.split("(")[0].split(" SET ")[0].strip() for s in statements
                if s.startswith(("UPDATE log_size", "INSERT INTO log_"))]

    sa_event.listen(engine, "before_cursor_execute", seen)
    try:
        plays = 0
        while plays < 3:
            state = ann.state(match_id)
            assert state["phase"] != "match_over"
            if state["phase"] in ("opening", "roll"):
                statements.clear()
                roll(players, devices, match_id, state["turn"])
                continue
            size = len(client.get("/api/log/entries?start=0&count=1000").json())
            statements.clear()
            assert play_first(players[state["turn"]], match_id).status_code == 200
            assert log_writes() == ["UPDATE log_size", "INSERT INTO log_entries",
                                    "INSERT INTO log_nodes"]
            entries = client.get("/api/log/entries?start=0&count=1000").json()
            assert [json.loads(e["leaf"])["event"] for e in entries[size:]] == [
                "played", "committed"]
            plays += 1
    finally:
        sa_event.remove(engine, "before_cursor_execute", seen)
    document = client.get(f"/api/audit/{match_id}").json()
    assert verify_document(document).ok


def test_the_audit_of_no_match_says_so_and_of_a_match_not_rolled_yet_says_that(client):
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    match_id = live_match(ann, bob)  # waits for both devices' anchors: no roll yet
    for path, message in [
        ("/api/audit/mat_nosuch", "no match 'mat_nosuch'"),
        ("/api/audit/mat_nosuch/head", "no match 'mat_nosuch'"),
        ("/api/audit/mat_nosuch/rolls/rol_nosuch/proof", "no match 'mat_nosuch'"),
        ("/api/audit/mat_nosuch/rolls/rol_nosuch/verify.py", "no match 'mat_nosuch'"),
        (f"/api/audit/{match_id}", f"match {match_id!r} has no rolls yet"),
        (f"/api/audit/{match_id}/rolls/rol_nosuch/proof", f"match {match_id!r} has no rolls yet"),
        (f"/api/audit/{match_id}/head", f"match {match_id} has no entries in the public log"),
    ]:
        r = client.get(path, headers={"Accept": "application/json"})
        assert (r.status_code, r.json()["error"]) == (
            404, {"code": "not_found", "message": message}), path
    pages = {
        ("mat_nosuch", "en"): "There is no match mat_nosuch.",
        ("mat_nosuch", "de"): "Es gibt kein Match mat_nosuch.",
        (match_id, "en"): f"Match {match_id} has no rolls yet, so there is no dice record.",
        (match_id, "de"): (f"Das Match {match_id} hat noch keine Würfe, also gibt es kein "
                           f"Würfelprotokoll."),
    }
    for (shown, lang), text in pages.items():
        page = client.get(f"/audit/{shown}?lang={lang}")
        assert page.status_code == 404 and f"<p>{text}</p>" in page.text, page.text
    assert ann.state(match_id)["pending_roll"] is None  # looking changed nothing


def test_while_the_first_roll_waits_for_the_anchors_no_seat_has_the_turn(client):
    """Before a live match's first roll is committed nobody can act, so ``turn`` is null (as
    ``pending_roll``); the web client reads the wait from those. Once both anchors are in, the
    roll is committed and ``turn`` is its roller's seat. The lobby's list of one's matches
    says the same (``your_turn``)."""
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    match_id = live_match(ann, bob)

    def your_turn(player: Player) -> bool:
        return next(m["your_turn"] for m in player.get("/api/matches").json()
                    if m["match_id"] == match_id)

    Device(ann).register(match_id)
    for player in (ann, bob):
        state = player.state(match_id)
        assert (state["phase"], state["turn"], state["pending_roll"], state["rolls"]) == (
            "opening", None, None, [])
        assert your_turn(player) is False
    Device(bob).register(match_id)
    state = ann.state(match_id)
    assert (state["phase"], state["turn"], state["pending_roll"]["seat"]) == ("opening", 0, 0)
    assert (your_turn(ann), your_turn(bob)) == (True, False)


def test_the_audit_page_says_what_its_chain_head_is_and_lists_the_kinds_rolled(client, wall):
    """Mid-match the chain head is the one so far, not "published when the match ends"; the
    opening roll's row says whose each die is; only the kinds of roll the match has are
    listed (the JSON's ``counts`` keep every kind, zeros too). Once over, the head is the one
    the result dialog published."""
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    devices = {0: Device(ann), 1: Device(bob)}
    match_id = live_match(ann, bob)
    devices[0].register(match_id)
    devices[1].register(match_id)
    past_opening({0: ann, 1: bob}, dict(devices), match_id)
    t = translator("en")
    page = html.unescape(client.get(f"/audit/{match_id}?lang=en").text)
    assert f'{t("audit.chain_head_so_far")}: <code id="chain-head">' in page
    assert t("audit.chain_head") not in page
    assert t("kind.opening_dice", first="ann", second="bob") in page
    counts = client.get(f"/api/audit/{match_id}").json()["counts"]
    assert set(counts) == set(GUARANTEES) and counts["live"] > 0
    assert re.findall(r'<li data-kind="([a-z_]+)">', page) == [
        kind for kind in GUARANTEES if counts[kind]]
    assert ann.act(match_id, "resign", points=1).status_code == 200
    assert bob.act(match_id, "accept_resign").status_code == 200
    page = html.unescape(client.get(f"/audit/{match_id}?lang=en").text)
    assert f'{t("audit.chain_head")}: <code id="chain-head">' in page
