"""Property tests of the v2 record (hypothesis): in a match played through the service with
every kind of roll (live, opponent absent, the computer's, void after a request, pending), a
change to any one field of any entry fails both the package's verifier and the independent
one written from the spec; nothing that matters escapes the hash."""

from __future__ import annotations

import copy
import secrets

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardgammon.dice import new_match_id
from boardgammon.dice.verify import TIME_FIELDS, verify_document
from boardgammon.server import dice_record_v2 as v2
from boardgammon.server.db import open_database
from tests.dice import spec_verifier_v2
from tests.helpers.dice_v2 import Device

FIELDS = (
    "seq",
    "roll_id",
    "nonce",
    "seat",
    "kind",
    "state",
    "commitment",
    "server_seed",
    "roller_entropy",
    "roller_source",
    "opponent_prev_link",
    "opponent_entropy",
    "opponent_source",
    "opponent_link_steps",
    "dice",
    "prev_hash",
    "entry_hash",
    *TIME_FIELDS,
)


@pytest.fixture(scope="module")
def document(tmp_path_factory) -> dict:
    """Rolls: opening (live), a computer-like roll (server entropy, the link revealed), a roll
    without the opponent's link, a roll voided after its request (its game ended during the
    wait), then the next game's opening roll, pending."""
    db = open_database(f"sqlite:///{tmp_path_factory.mktemp('v2props')}/db.sqlite3")
    match_id, devices = new_match_id(), (Device(), Device())
    try:
        with db.sessions() as s:
            for seat in (0, 1):
                v2.register_anchor(s, match_id, seat, devices[seat].anchor)
            steps = [
                (0, "opening", True, "link"),
                (1, "normal", False, "link"),
                (0, "normal", True, "absent"),
                (1, "normal", True, "void"),
            ]
            for seat, kind, device, ending in steps:
                roll = v2.commit_roll(s, match_id, seat, kind)
                entropy = secrets.token_bytes(16) if device else None
                roll = v2.request_roll(s, roll.roll_id, roll.commitment, entropy)
                if ending == "void":
                    v2.void_roll(s, roll.roll_id)
                    continue
                if ending == "link":
                    roll = v2.contribute(s, roll.roll_id, devices[1 - seat].next_link())
                else:
                    roll = v2.reveal_without_opponent(s, roll.roll_id)
                v2.mark_played(s, roll.roll_id)
            v2.commit_roll(s, match_id, 0, "opening")
            return v2.audit_document(s, match_id)
    finally:
        db.dispose()


def other_value(field: str, value, draw):
    """A value of the field's kind that differs from ``value``."""
    if field == "dice":
        return draw(
            st.sampled_from(
                [[a, b] for a in range(1, 7) for b in range(1, 7) if [a, b] != value]
                + ([None] if value else [])
            )
        )
    if isinstance(value, int):
        return value + draw(st.integers(1, 5))
    choices = {
        "kind": ["opening", "normal"],
        "seat": [0, 1],
        "state": ["committed", "requested", "revealed", "played", "void"],
        "roller_source": ["client", "server", None],
        "opponent_source": ["client", "absent", "none", None],
    }
    if field in choices:
        return draw(st.sampled_from([c for c in choices[field] if c != value]))
    if value is None:
        size = {"server_seed": 64, "roller_entropy": 32}.get(field, 64)
        return (
            "0" * (size - 1) + "1" if not field.endswith("_at") else "2026-12-02T00:00:00.000000Z"
        )
    position = draw(st.integers(0, len(value) - 1))
    digits = "0123456789" if field.endswith("_at") else "0123456789abcdef"
    if value[position] not in digits:
        return value + "0"
    replacement = draw(st.sampled_from([c for c in digits if c != value[position]]))
    return value[:position] + replacement + value[position + 1 :]


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_any_single_change_fails_verification(document, data):
    assert verify_document(document).ok
    assert spec_verifier_v2.check(document) == ["ok", "ok", "ok", "void", "pending"]
    forged = copy.deepcopy(document)
    index = data.draw(st.integers(0, len(forged["rolls"]) - 1))
    field = data.draw(st.sampled_from(FIELDS))
    entry = forged["rolls"][index]
    entry[field] = other_value(field, entry[field], data.draw)
    assert not verify_document(forged).ok, (index, field, entry[field])
    verdicts = spec_verifier_v2.check(forged)
    assert any(v.startswith("bad") for v in verdicts), (index, field, entry[field])
