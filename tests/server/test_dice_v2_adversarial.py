"""The v2 dice against a dishonest server and dishonest players (``docs/fair-dice.md``
§Threat model): a server that refuses and retries, voids after seeing the dice or grinds; a
roller allied with the server; an opponent allied with the server; an opponent who withholds;
and a record rewritten in the database. Each either cannot change the roll or is caught by the
verifier (the package's and the independent one)."""

from __future__ import annotations

import copy
import hashlib
import secrets

import pytest
from sqlalchemy import update

from boardgammon.dice import new_match_id
from boardgammon.dice.verify import (
    CHAIN_BROKEN,
    LINK_MISMATCH,
    VOID_AFTER_REQUEST,
    VOID_AFTER_REVEAL,
    derive_dice_v2,
    entry_hash_v2,
    verify_document,
)
from boardgammon.server import dice_record_v2 as v2
from boardgammon.server.tables import DiceRollV2
from tests.dice import spec_verifier_v2
from tests.helpers.dice_v2 import Device, play_match


def audit(db, match_id: str) -> dict:
    with db.sessions() as s:
        return v2.audit_document(s, match_id)


def first_failure(document: dict) -> tuple[int, str]:
    report = verify_document(document)
    assert report.failure is not None
    return report.failure.index, report.failure.verdict


def test_refuse_and_retry_gives_the_server_no_second_outcome(database):
    """The server takes the request, then answers "busy" (its transaction rolled back) and the
    device retries with the entropy it stored: one outcome only, and a request with other
    entropy is refused."""
    match_id, device = new_match_id(), Device()
    entropy = secrets.token_bytes(16)
    with database.sessions() as s:
        v2.register_anchor(s, match_id, 1, device.anchor)
        roll = v2.commit_roll(s, match_id, 0)
        v2.request_roll(s, roll.roll_id, roll.commitment, entropy, commit=False)
        outcome = v2.contribute(s, roll.roll_id, device.links[1], commit=False).dice
        s.rollback()  # "busy": nothing the server did is kept
        assert v2.match_rolls(s, match_id)[0].state == "committed"
        v2.request_roll(s, roll.roll_id, roll.commitment, entropy)
        with pytest.raises(v2.AlreadyRequested):
            v2.request_roll(s, roll.roll_id, roll.commitment, secrets.token_bytes(16))
        assert v2.contribute(s, roll.roll_id, device.links[1]).dice == outcome


def test_a_void_after_the_dice_were_known_is_caught(database):
    match_id = play_match(database, 4, (Device(), Device()))
    with database.sessions() as s:
        roll = v2.match_rolls(s, match_id)[2]
        # The server saw the dice and relabels the roll void (a "drop"), hiding the seed and
        # dice but not the consumed link (the next roll's link needs it) ...
        s.execute(
            update(DiceRollV2)
            .where(DiceRollV2.roll_id == roll.roll_id)
            .values(state="void", die1=None, die2=None, played_at=None, voided_at=roll.played_at)
        )
        s.commit()
    document = audit(database, match_id)
    assert first_failure(document) == (2, VOID_AFTER_REVEAL)
    assert spec_verifier_v2.check(document)[2].startswith("bad")
    # ... and a forger who also rewrites every hash after it is caught the same way.
    rehash(document)
    assert first_failure(document) == (2, VOID_AFTER_REVEAL)
    assert spec_verifier_v2.check(document)[2] == "bad: void after reveal"


def test_hiding_the_consumed_link_breaks_the_opponents_chain(database):
    """A revealed roll relabelled void (its link, seed and dice hidden) leaves the next roll
    of the same roller pointing at a link the record no longer shows. Since a void roll uses
    up a link too, a forger who also moves that next roll back to the link before the hidden
    one (k = 2) makes the record consistent again: that rewrite changes the chain head, so it
    needs the published head (and the opponent's device saw its link sent for a roll that
    ended void: ``void_after_request``). A void that keeps the roll's request, with a roll of
    the same game after it, is ``void after request`` at once: the forger must erase the
    request too (its roller's device then flags the roll as well)."""
    match_id = play_match(database, 6, (Device(), Device()))
    document = audit(database, match_id)
    forged = copy.deepcopy(document)
    entry = forged["rolls"][2]
    entry.update(
        state="void",
        server_seed=None,
        dice=None,
        opponent_entropy=None,
        opponent_at=None,
        opponent_source=None,
        revealed_at=None,
        played_at=None,
        voided_at=entry["played_at"],
    )
    rehash(forged)
    assert first_failure(forged) == (2, VOID_AFTER_REQUEST)
    assert spec_verifier_v2.check(forged)[2] == "bad: void after request"
    entry.update(requested_at=None, roller_entropy=None, roller_source=None)
    rehash(forged)
    # Roll 4 is seat 0's again: its opponent's link hashes to the hidden one, not to the one
    # before it.
    assert first_failure(forged) == (4, LINK_MISMATCH)
    assert spec_verifier_v2.check(forged)[4] == "bad: opponent chain"
    later = forged["rolls"][4]
    later.update(opponent_prev_link=forged["rolls"][0]["opponent_entropy"], opponent_link_steps=2)
    rehash(forged)
    assert verify_document(forged).ok
    assert not spec_verifier_v2.check(forged)[4].startswith("bad")
    report = verify_document(forged, expected_head=document["chain_head"])
    assert report.failure is not None and report.failure.verdict == CHAIN_BROKEN


def test_grinding_needs_a_void_after_the_reveal(database):
    """Before the opponent's link is in, the server (even knowing the roller's entropy) does
    not know the dice: the same seed and entropy give spread outcomes over the links the
    opponent might hold. To pick among outcomes it must void a revealed roll, which the
    verifier names."""
    seed, entropy = secrets.token_bytes(32), secrets.token_bytes(16)
    outcomes = {
        derive_dice_v2(
            seed, "mat_grind", "rol_grind", 7, "normal", entropy, secrets.token_bytes(32)
        )
        for _ in range(300)
    }
    assert len(outcomes) >= 30  # of 36: the server alone cannot foresee the roll
    test_a_void_after_the_dice_were_known_is_caught(database)


def test_the_roller_allied_with_the_server_cannot_know_or_choose_the_roll():
    """Server and roller know the seed and the roller's entropy before the cube decision, and
    may grind the entropy; without the opponent's link (fixed at the anchor, unknown to them)
    the best they can do is chance."""
    seed = secrets.token_bytes(32)
    opponent = Device(length=200)
    hits = 0
    for k in range(200):
        # The allied pair pick the entropy that makes 6-6 with their guess of the link.
        guess = secrets.token_bytes(32)
        entropy = next(
            e
            for e in (secrets.token_bytes(16) for _ in range(10_000))
            if derive_dice_v2(seed, "mat_ally", f"rol_{k}", k, "normal", e, guess) == (6, 6)
        )
        actual = derive_dice_v2(
            seed, "mat_ally", f"rol_{k}", k, "normal", entropy, opponent.links[k + 1]
        )
        hits += actual == (6, 6)
    assert hits <= 20  # chance is 200/36 ≈ 5.6; 20 is p < 1e-5


def test_the_opponent_allied_with_the_server_cannot_choose_the_roll():
    """Seed and link are fixed before the roller's entropy exists: over the roller's possible
    entropy the outcomes spread over every face."""
    seed, link = secrets.token_bytes(32), secrets.token_bytes(32)
    outcomes = {
        derive_dice_v2(seed, "mat_ally", "rol_x", 3, "normal", secrets.token_bytes(16), link)
        for _ in range(300)
    }
    assert len(outcomes) >= 30


def test_an_opponent_who_withholds_cannot_stall_or_choose(database):
    """The opponent sees the roller's request and withholds its link; the roll is revealed
    without it (recorded ``absent``) and the link is used up all the same: the next roll
    takes the link after it, fixed as much as the first, so the opponent cannot swap in
    another link after seeing a roll (neither the one it kept nor any other)."""
    match_id, opponent = new_match_id(), Device()
    with database.sessions() as s:
        v2.register_anchor(s, match_id, 1, opponent.anchor)
        roll = v2.commit_roll(s, match_id, 0)
        v2.request_roll(s, roll.roll_id, roll.commitment, secrets.token_bytes(16))
        revealed = v2.reveal_without_opponent(s, roll.roll_id)
        assert revealed.opponent_source == "absent" and revealed.opponent_entropy is None
        with pytest.raises(v2.WrongRollState):  # too late to join this roll
            v2.contribute(s, roll.roll_id, opponent.links[1])
        v2.mark_played(s, roll.roll_id)
        nxt = v2.commit_roll(s, match_id, 0)
        assert nxt.opponent_prev_link == opponent.anchor.hex()
        v2.request_roll(s, nxt.roll_id, nxt.commitment, secrets.token_bytes(16))
        for other in (opponent.links[1], opponent.links[3]):
            with pytest.raises(v2.LinkMismatch):
                v2.contribute(s, nxt.roll_id, other)
        assert v2.contribute(s, nxt.roll_id, opponent.links[2]).opponent_source == "client"
    document = audit(database, match_id)
    assert document["verified"]
    assert document["rolls"][0]["opponent_source"] == "absent"
    assert [r["opponent_link_steps"] for r in document["rolls"]] == [1, 2]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("state", "committed"),  # a void roll relabelled committed
        ("voided_at", "2099-01-01T00:00:00.000000Z"),  # its time rewritten
        ("kind", "opening"),
        ("roller_source", "server"),
    ],
)
def test_every_field_that_matters_is_hashed(database, field, value):
    match_id = new_match_id()
    with database.sessions() as s:
        roll = v2.commit_roll(s, match_id, 0)
        v2.void_roll(s, roll.roll_id)
        roll = v2.commit_roll(s, match_id, 1)
        roll = v2.request_roll(s, roll.roll_id, roll.commitment, bytes(16))
        v2.reveal_without_opponent(s, roll.roll_id)
    document = audit(database, match_id)
    assert document["verified"]
    forged = copy.deepcopy(document)
    index = 0 if field in ("state", "voided_at") else 1
    forged["rolls"][index][field] = value
    if field == "state":
        forged["rolls"][0]["voided_at"] = None
    index_failed, reason = first_failure(forged)
    assert index_failed == index and reason in (CHAIN_BROKEN, "dice mismatch")
    assert spec_verifier_v2.check(forged)[index].startswith("bad")


def test_a_deleted_roll_leaves_a_visible_gap(database):
    match_id = play_match(database, 5, (Device(), Device()))
    document = audit(database, match_id)
    del document["rolls"][2]
    assert first_failure(document)[0] == 2
    assert spec_verifier_v2.check(document)[2].startswith("bad")


def rehash(document: dict) -> None:
    """Recompute every link of the match chain, as a forger rewriting the record would."""
    prev = document["genesis"]
    for entry in document["rolls"]:
        entry["prev_hash"] = prev
        prev = entry["entry_hash"] = entry_hash_v2(document["match_id"], entry)
    document["chain_head"] = prev


def test_a_consistent_rewrite_needs_the_published_head(database):
    match_id = play_match(database, 4, (Device(), Device()))
    document = audit(database, match_id)
    head = document["chain_head"]
    forged = copy.deepcopy(document)
    forged["rolls"][1]["played_at"] = forged["rolls"][1]["revealed_at"]
    rehash(forged)
    assert verify_document(forged).ok  # internally consistent ...
    report = verify_document(forged, expected_head=head)
    assert not report.ok and report.failure.verdict == CHAIN_BROKEN  # ... but not the head
    assert hashlib.sha256(b"").hexdigest() != head


def test_a_server_that_holds_the_link_back_picks_one_of_two_outcomes(database):
    """What the server alone *can* do (``docs/fair-dice.md`` §Threat model, first row): once
    the opponent's link has reached it, it knows two outcomes, the roll with the link and the
    roll without it, and may record whichever it likes, the second as a link that came too late
    (``absent``). Both records verify; the roll counts as "opponent absent", which is all that
    shows (the device that sent the link is not told otherwise)."""
    match_id, opponent = new_match_id(), Device(length=100)
    differ = wanted = either = 0
    with database.sessions() as s:
        v2.register_anchor(s, match_id, 1, opponent.anchor)
        for _ in range(60):
            roll = v2.commit_roll(s, match_id, 0)
            v2.request_roll(s, roll.roll_id, roll.commitment, secrets.token_bytes(16))
            link = opponent.next_link()
            with_link = v2.contribute(s, roll.roll_id, link, commit=False).dice
            s.rollback()  # the server looked ...
            without = v2.reveal_without_opponent(s, roll.roll_id, commit=False).dice
            s.rollback()  # ... at both, and answers the device "too late" where it suits it
            differ += with_link != without
            either += (6, 6) in (with_link, without)
            if with_link == (6, 6):
                chosen = v2.contribute(s, roll.roll_id, link)
            else:
                chosen = v2.reveal_without_opponent(s, roll.roll_id)
            wanted += chosen.dice == (6, 6)
            v2.mark_played(s, roll.roll_id)
    document = audit(database, match_id)
    assert document["verified"], document["failure"]
    assert spec_verifier_v2.check(document) == ["ok"] * 60
    assert differ >= 50  # 35 of 36 rolls have two outcomes to choose from
    assert wanted == either  # it got 6-6 whenever either outcome was 6-6


@pytest.mark.parametrize("source", ["absent", "none"])
def test_a_revealed_link_relabelled_absent_is_named_as_such(database, source):
    """A roll that reveals the opponent's link yet says its source is ``absent`` (or ``none``),
    re-hashed consistently: the verdict names the source, not a hash that equals itself."""
    match_id = play_match(database, 3, (Device(), Device()))
    document = audit(database, match_id)
    index = next(i for i, r in enumerate(document["rolls"]) if r["opponent_source"] == "client")
    forged = copy.deepcopy(document)
    forged["rolls"][index]["opponent_source"] = source
    rehash(forged)
    report = verify_document(forged)
    assert (report.failure.index, report.failure.verdict) == (index, LINK_MISMATCH)
    assert report.failure.detail == (
        f"the opponent's link is revealed, so the source is client, not {source!r}"
    )
    assert spec_verifier_v2.check(forged)[index].startswith("bad")
