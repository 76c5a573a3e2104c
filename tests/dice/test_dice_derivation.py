"""The dice derivation (docs/fair-dice.md): known-answer vectors from issue 3, our own vectors for
blocks that run out (the HMAC substituted), the 42-values-per-face property, input checks, IDs."""

from __future__ import annotations

import hashlib
import hmac
import re
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from boardgammon.dice import ids, verify
from boardgammon.dice.verify import commitment, derive_dice, dice_prefix

SEED = bytes(range(0x00, 0x20))
ENTROPY = bytes(range(0xA0, 0xB0))
MATCH = "mat_TESTVECTOR0001"
ROLL = "rol_0001"


def test_commitment_vector():
    assert commitment(SEED) == "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"


def test_prefix_vector():
    assert dice_prefix(MATCH, ROLL, 0, ENTROPY).hex() == (
        "00000013" + b"boardgammon-dice-v1".hex()
        + "00000012" + b"mat_TESTVECTOR0001".hex()
        + "00000008" + b"rol_0001".hex()
        + "0000000000000000"
        + "00000010a0a1a2a3a4a5a6a7a8a9aaabacadaeaf"
    )


@pytest.mark.parametrize(("nonce", "dice"), [(0, (1, 4)), (29, (1, 1))])
def test_issue_vectors(nonce, dice):
    assert derive_dice(SEED, MATCH, ROLL, nonce, ENTROPY) == dice


def test_nonce_29_skips_its_first_byte():
    block0 = verify.hmac_sha256(SEED, dice_prefix(MATCH, ROLL, 29, ENTROPY) + bytes(4))
    assert block0[0] == 0xFF
    assert (block0[1] % 6 + 1, block0[2] % 6 + 1) == (1, 1)


def _substitute_blocks(monkeypatch, replaced: dict[int, bytes]) -> None:
    """Replace the HMAC of the given block indices; other blocks keep the real HMAC."""
    real = verify.hmac_sha256

    def fake(key: bytes, message: bytes) -> bytes:
        index = int.from_bytes(message[-4:], "big")
        return replaced[index] if index in replaced else real(key, message)

    monkeypatch.setattr(verify, "hmac_sha256", fake)


@pytest.mark.parametrize(
    ("nonce", "replaced", "dice"),
    [
        # Block 0 all 0xff: both dice from real block 1 (nonce 0: 0029a4…, nonce 29: 4eef96…).
        (0, {0: b"\xff" * 32}, (1, 6)),
        (29, {0: b"\xff" * 32}, (1, 6)),
        # Block 0 accepts only its last byte 0x07 (die 2); the second die is block 1's first byte.
        (0, {0: b"\xfc" * 31 + b"\x07"}, (2, 1)),
        # Blocks 0 and 1 all rejected: block 2 (855ee3…) gives 0x85 → 2, 0x5e → 5.
        (0, {0: b"\xff" * 32, 1: b"\xfe" * 32}, (2, 5)),
    ],
)
def test_block_zero_runs_out(monkeypatch, nonce, replaced, dice):
    _substitute_blocks(monkeypatch, replaced)
    assert derive_dice(SEED, MATCH, ROLL, nonce, ENTROPY) == dice


def test_block_one_of_vector_is_what_the_runout_vectors_use():
    prefix = dice_prefix(MATCH, ROLL, 0, ENTROPY)
    block1 = hmac.new(SEED, prefix + (1).to_bytes(4, "big"), hashlib.sha256).hexdigest()
    assert block1.startswith("0029a4")


def test_each_face_has_42_of_252_byte_values():
    faces = Counter(verify.dice_from_blocks([bytes([b, b])])[0] for b in range(252))
    assert faces == {face: 42 for face in range(1, 7)}
    for rejected in range(252, 256):
        with pytest.raises(ValueError, match="0 accepted"):
            verify.dice_from_blocks([bytes([rejected] * 32)])


def _reference_dice(seed: bytes, match_id: str, roll_id: str, nonce: int, entropy: bytes):
    """An independent reading of the spec: the concatenated HMAC stream, filtered."""
    def lp(x: bytes) -> bytes:
        return len(x).to_bytes(4, "big") + x

    prefix = (lp(b"boardgammon-dice-v1") + lp(match_id.encode()) + lp(roll_id.encode())
              + nonce.to_bytes(8, "big") + lp(entropy))
    stream = b"".join(
        hmac.new(seed, prefix + i.to_bytes(4, "big"), hashlib.sha256).digest() for i in range(4)
    )
    accepted = [b % 6 + 1 for b in stream if b < 252]
    return accepted[0], accepted[1]


@given(
    seed=st.binary(min_size=32, max_size=32),
    entropy=st.binary(min_size=16, max_size=16),
    nonce=st.integers(min_value=0, max_value=2**64 - 1),
    match_id=st.text(min_size=1, max_size=40),
    roll_id=st.text(min_size=1, max_size=40),
)
def test_matches_independent_reading_of_the_spec(seed, entropy, nonce, match_id, roll_id):
    dice = derive_dice(seed, match_id, roll_id, nonce, entropy)
    assert dice == _reference_dice(seed, match_id, roll_id, nonce, entropy)
    assert all(1 <= d <= 6 for d in dice)


def test_every_input_changes_the_dice_stream():
    base = (SEED, MATCH, ROLL, 0, ENTROPY)
    prefixes = {
        dice_prefix(*base[1:]),
        dice_prefix("mat_TESTVECTOR0002", ROLL, 0, ENTROPY),
        dice_prefix(MATCH, "rol_0002", 0, ENTROPY),
        dice_prefix(MATCH, ROLL, 1, ENTROPY),
        dice_prefix(MATCH, ROLL, 0, bytes(16)),
    }
    assert len(prefixes) == 5
    # Length prefixes keep the fields apart: moving a character across a boundary changes it.
    assert dice_prefix("mat_a", "rol_b", 0, ENTROPY) != dice_prefix("mat_", "arol_b", 0, ENTROPY)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((SEED[:31], MATCH, ROLL, 0, ENTROPY), "server seed must be 32 bytes, got 31"),
        ((SEED.hex(), MATCH, ROLL, 0, ENTROPY), "server seed must be 32 bytes, got str"),
        ((SEED, MATCH, ROLL, 0, ENTROPY + b"x"), "client entropy must be 16 bytes, got 17"),
        ((SEED, MATCH, ROLL, -1, ENTROPY), "nonce must be an integer in 0"),
        ((SEED, MATCH, ROLL, 2**64, ENTROPY), "nonce must be an integer in 0"),
    ],
)
def test_bad_inputs_are_refused(args, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        derive_dice(*args)


def test_commitment_refuses_hex_seed():
    with pytest.raises(ValueError, match="server seed must be 32 bytes"):
        commitment(SEED.hex().encode())


def test_ids_have_prefix_and_120_random_bits():
    match_ids = {ids.new_match_id() for _ in range(1000)}
    roll_ids = {ids.new_roll_id() for _ in range(1000)}
    assert len(match_ids) == len(roll_ids) == 1000
    assert all(re.fullmatch(r"mat_[a-z2-7]{24}", m) for m in match_ids)
    assert all(re.fullmatch(r"rol_[a-z2-7]{24}", r) for r in roll_ids)
    assert all(ids.is_match_id(m) for m in match_ids) and all(ids.is_roll_id(r) for r in roll_ids)
    assert ids.is_match_id(MATCH) and ids.is_roll_id(ROLL)
    for bad in ("mat_", "rol_abc", "mat_a/b", "mat_" + "a" * 65, "MAT_abc", "mat_ä"):
        assert not ids.is_match_id(bad)
