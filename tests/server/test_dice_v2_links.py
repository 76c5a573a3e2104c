"""Every v2 roll uses up one link of its opponent's chain, whatever becomes of it (issue #25,
``docs/fair-dice.md`` §Terms (v2)): a link that came "too late" (``absent``) or went with a
voided roll is never taken again, so a server that held it back cannot use it to grind the next
roll's seed. Through :mod:`boardgammon.server.dice_record_v2`, checked by the package's
verifier and by the independent one."""

from __future__ import annotations

import copy
import secrets

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boardgammon.dice import new_match_id
from boardgammon.dice.verify import (
    LINK_MISMATCH,
    MALFORMED,
    chain_link_steps,
    derive_dice_v2,
    opponent_link_steps,
)
from boardgammon.server import dice_record_v2 as v2
from boardgammon.server.db import open_database
from tests.dice import spec_verifier_v2
from tests.helpers.dice_v2 import Device
from tests.server.test_dice_v2_adversarial import audit, first_failure, rehash


def _unchanged_after_refusal(s, match_id: str, roll_id: str, link: bytes) -> None:
    before = v2.match_rolls(s, match_id)
    with pytest.raises(v2.LinkMismatch, match="in exactly"):
        v2.contribute(s, roll_id, link)
    assert v2.match_rolls(s, match_id) == before


def test_a_link_declared_late_is_used_up(database):
    """The opponent's device sent x_1 for roll 0; the server held it and revealed the roll
    ``absent``. The next roll of the same roller takes x_2 (k = 2): x_1, which the server has
    known since before it committed that roll's seed, is refused and changes nothing."""
    match_id, opponent = new_match_id(), Device()
    with database.sessions() as s:
        v2.register_anchor(s, match_id, 1, opponent.anchor)
        first = v2.commit_roll(s, match_id, 0)
        v2.request_roll(s, first.roll_id, first.commitment, secrets.token_bytes(16))
        held = opponent.links[1]  # arrived, kept back by the server
        assert v2.reveal_without_opponent(s, first.roll_id).opponent_source == "absent"
        v2.mark_played(s, first.roll_id)
        nxt = v2.commit_roll(s, match_id, 0)
        assert nxt.opponent_prev_link == opponent.anchor.hex()
        assert v2.link_steps(v2.match_rolls(s, match_id)) == [1, 2]
        v2.request_roll(s, nxt.roll_id, nxt.commitment, secrets.token_bytes(16))
        _unchanged_after_refusal(s, match_id, nxt.roll_id, held)
        revealed = v2.contribute(s, nxt.roll_id, opponent.links[2])
        assert revealed.opponent_entropy == opponent.links[2]
        v2.mark_played(s, nxt.roll_id)
        # The link after the one revealed is due next: x_3 over x_2, one step.
        third = v2.commit_roll(s, match_id, 0)
        assert third.opponent_prev_link == opponent.links[2].hex()
        v2.request_roll(s, third.roll_id, third.commitment, secrets.token_bytes(16))
        _unchanged_after_refusal(s, match_id, third.roll_id, opponent.links[4])
        v2.contribute(s, third.roll_id, opponent.links[3])
    document = audit(database, match_id)
    assert document["verified"], document["failure"]
    assert [r["opponent_link_steps"] for r in document["rolls"]] == [1, 2, 1]
    assert spec_verifier_v2.check(document) == ["ok", "ok", "ok"]
    assert spec_verifier_v2.steps(document) == [1, 2, 1]

    # A record forged to use the held link for roll 1 (k = 1 where 2 is due), its dice
    # derived from it and every hash rewritten, fails both verifiers.
    for shown_steps, verdict, spec_verdict in ((None, LINK_MISMATCH, "bad: link"),
                                               (1, MALFORMED, "bad: steps")):
        forged = copy.deepcopy(document)
        entry = forged["rolls"][1]
        entry["opponent_entropy"] = held.hex()
        entry["dice"] = list(derive_dice_v2(
            bytes.fromhex(entry["server_seed"]), match_id, entry["roll_id"], entry["nonce"],
            entry["kind"], bytes.fromhex(entry["roller_entropy"]), held))
        if shown_steps is None:
            del entry["opponent_link_steps"]
        else:
            entry["opponent_link_steps"] = shown_steps
        rehash(forged)
        assert first_failure(forged) == (1, verdict)
        assert spec_verifier_v2.check(forged)[1] == spec_verdict


def test_a_requested_roll_voided_uses_up_its_link(database):
    """A roll voided after its request (the link may have reached the server) and one voided
    before it: each uses up a link, so the roll after them takes x_3. The first void ends its
    game (an honest server voids a requested roll only then: the next roll is an opening one;
    a normal one would be ``void after request``)."""
    match_id, opponent = new_match_id(), Device()
    with database.sessions() as s:
        v2.register_anchor(s, match_id, 1, opponent.anchor)
        roll = v2.commit_roll(s, match_id, 0)
        v2.request_roll(s, roll.roll_id, roll.commitment, secrets.token_bytes(16))
        v2.void_roll(s, roll.roll_id)  # after x_1 arrived, the game ending during the wait
        roll = v2.commit_roll(s, match_id, 0, "opening")
        v2.void_roll(s, roll.roll_id)  # never requested: it was committed all the same
        roll = v2.commit_roll(s, match_id, 0, "opening")
        v2.request_roll(s, roll.roll_id, roll.commitment, secrets.token_bytes(16))
        for stale in opponent.links[1:3]:
            _unchanged_after_refusal(s, match_id, roll.roll_id, stale)
        v2.contribute(s, roll.roll_id, opponent.links[3])
    document = audit(database, match_id)
    assert document["verified"], document["failure"]
    assert [r["opponent_link_steps"] for r in document["rolls"]] == [1, 2, 3]
    assert spec_verifier_v2.check(document) == ["void", "void", "ok"]


def test_steps_count_per_opponent_and_restart_after_a_revealed_link():
    entries = [
        {"seat": 0, "opponent_prev_link": "a", "opponent_entropy": None},  # seat 1's 1st
        {"seat": 1, "opponent_prev_link": None, "opponent_entropy": None},  # seat 0: no chain
        {"seat": 0, "opponent_prev_link": "a", "opponent_entropy": "b"},  # seat 1's 2nd
        {"seat": 0, "opponent_prev_link": "b", "opponent_entropy": None},
        {"seat": 0, "opponent_prev_link": "b", "opponent_entropy": None},
    ]
    assert opponent_link_steps(entries) == [1, None, 2, 1, 2]
    link = secrets.token_bytes(32)
    assert chain_link_steps(link, 0) == link
    with pytest.raises(ValueError, match="0 or more"):
        chain_link_steps(link, -1)


@pytest.fixture(scope="module")
def property_db(tmp_path_factory):
    db = open_database(f"sqlite:///{tmp_path_factory.mktemp('v2links')}/db.sqlite3")
    yield db
    db.dispose()


ENDINGS = ("link", "absent", "void_requested", "void_committed")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    chains=st.sampled_from([(True, True), (True, False), (False, True)]),
    rolls=st.lists(st.tuples(st.integers(0, 1), st.sampled_from(ENDINGS)), min_size=1,
                   max_size=10),
    wrong=st.integers(0, 14),
)
def test_random_histories_take_exactly_the_due_link(property_db, chains, rolls, wrong):
    """Random rolls (either seat, any ending): the link due is x_index with index the
    opponent's links used so far; any other link of its chain is refused, state unchanged;
    both verifiers accept the record and count the same ``k`` as the package. A roll voided
    after its request ends its game, as on an honest server (the next roll is an opening
    one), or, an opening roll, the match (no roll follows it): else ``void after
    request``."""
    match_id = new_match_id()
    devices = [Device(length=16) if has else None for has in chains]
    index = [0, 0]  # the opponent's last link used up, per seat
    expected: list[int | None] = []
    since = [0, 0]  # links used up since the last one revealed
    with property_db.sessions() as s:
        for seat, device in enumerate(devices):
            if device is not None:
                v2.register_anchor(s, match_id, seat, device.anchor)
        kind = "normal"
        for seat, ending in rolls:
            opponent = 1 - seat
            roll = v2.commit_roll(s, match_id, seat, kind)
            chain = devices[opponent]
            if chain is not None:
                index[opponent] += 1
                since[opponent] += 1
                expected.append(since[opponent])
            else:
                expected.append(None)
            if ending == "void_committed":
                v2.void_roll(s, roll.roll_id)
                continue
            v2.request_roll(s, roll.roll_id, roll.commitment, secrets.token_bytes(16))
            if ending == "void_requested":
                v2.void_roll(s, roll.roll_id)
                if kind == "opening":
                    break  # the match ended
                kind = "opening"  # the game ended: the next one opens
                continue
            kind = "normal"
            if ending == "link" and chain is not None:
                if wrong != index[opponent]:
                    _unchanged_after_refusal(s, match_id, roll.roll_id, chain.links[wrong])
                v2.contribute(s, roll.roll_id, chain.links[index[opponent]])
                since[opponent] = 0
            else:
                v2.reveal_without_opponent(s, roll.roll_id)
            v2.mark_played(s, roll.roll_id)
        document = v2.audit_document(s, match_id)
        assert v2.link_steps(v2.match_rolls(s, match_id)) == expected
    assert document["verified"], document["failure"]
    assert [r["opponent_link_steps"] for r in document["rolls"]] == expected
    assert spec_verifier_v2.steps(document) == expected
    assert not any(v.startswith("bad") for v in spec_verifier_v2.check(document))
