"""The client's dice verifier (web/fairdice.js) run inside Chromium with Web Crypto: the known
answers of issue 3 / docs/fair-dice.md, agreement with the Python reference
(boardgammon.dice.verify) on random inputs, and the verdicts on tampered records."""

from __future__ import annotations

import random

import pytest
from webpage import run_client

from boardgammon.dice.verify import commitment, derive_dice

pytestmark = pytest.mark.browser

SEED = bytes(range(32)).hex()
ENTROPY = bytes(range(0xA0, 0xB0)).hex()
MATCH = "mat_TESTVECTOR0001"
ROLL = "rol_0001"


def test_issue_vectors(module_page):
    got = run_client(
        module_page,
        """return {
            commitment: await fd.commitmentOf(arg.seed),
            nonce0: await fd.deriveDice(arg.seed, arg.match, arg.roll, 0, arg.entropy),
            nonce29: await fd.deriveDice(arg.seed, arg.match, arg.roll, 29, arg.entropy),
        };""",
        {"seed": SEED, "entropy": ENTROPY, "match": MATCH, "roll": ROLL},
    )
    assert got == {
        "commitment": "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd",
        "nonce0": [1, 4],
        "nonce29": [1, 1],  # block 0 starts with 0xff, which is skipped
    }


def test_agrees_with_python_reference(module_page):
    rng = random.Random(20260518)
    cases = []
    for i in range(150):
        seed = rng.randbytes(32)
        entropy = rng.randbytes(16)
        # IDs as the server makes them, plus non-ASCII text to pin UTF-8 in lp().
        match_id = "mat_" + rng.randbytes(15).hex() if i % 10 else "mat_ü" + str(i)
        nonce = rng.choice([0, 1, 29, rng.randrange(2**32), rng.randrange(2**53)])
        cases.append({
            "seed": seed.hex(), "entropy": entropy.hex(), "match": match_id,
            "roll": f"rol_{i:04d}", "nonce": nonce,
            "dice": list(derive_dice(seed, match_id, f"rol_{i:04d}", nonce, entropy)),
            "commitment": commitment(seed),
        })
    got = run_client(
        module_page,
        """const out = [];
        for (const c of arg) {
            out.push({dice: await fd.deriveDice(c.seed, c.match, c.roll, c.nonce, c.entropy),
                      commitment: await fd.commitmentOf(c.seed)});
        }
        return out;""",
        cases,
    )
    assert got == [{"dice": c["dice"], "commitment": c["commitment"]} for c in cases]


def _record(nonce=0):
    dice = list(derive_dice(bytes(range(32)), MATCH, ROLL, nonce, bytes(range(0xA0, 0xB0))))
    return {
        "roll_id": ROLL, "seat": 0, "nonce": nonce, "server_seed": SEED,
        "commitment": commitment(bytes(range(32))), "client_entropy": ENTROPY,
        "entropy_source": "client", "dice": dice,
    }


CHECK = "return await fd.checkRoll(arg.match, arg.roll, arg.known);"


@pytest.mark.parametrize(
    ("change", "known_change", "problems"),
    [
        ({}, {}, []),
        ({"server_seed": "ff" * 32}, {}, ["commitment_mismatch", "dice_mismatch"]),
        ({"dice": [6, 6]}, {}, ["dice_mismatch"]),
        ({"client_entropy": "00" * 16, "dice": [5, 3]}, {}, ["dice_mismatch", "entropy_not_ours"]),
        ({}, {"nonce": 7}, ["nonce_changed"]),
        ({}, {"commitment": "00" * 32}, ["commitment_changed"]),
        ({"server_seed": "zz"}, {}, ["malformed"]),
    ],
)
def test_verdicts(module_page, change, known_change, problems):
    roll = _record() | change
    known = {"nonce": 0, "commitment": _record()["commitment"], "entropy": ENTROPY} | known_change
    verdict = run_client(module_page, CHECK, {"match": MATCH, "roll": roll, "known": known})
    assert verdict["problems"] == problems
    assert verdict["ok"] is (problems == [])
    if not problems:
        assert verdict["checked"] == ["commitment", "dice", "promise", "entropy"]


def test_entropy_drawn_fresh_on_the_device(module_page):
    drawn = run_client(module_page, "return [fd.newEntropy(), fd.newEntropy()];")
    assert all(len(x) == 32 and int(x, 16) >= 0 for x in drawn)
    assert drawn[0] != drawn[1]


def test_opponent_roll_checked_without_entropy(module_page):
    known = {"nonce": 0, "commitment": _record()["commitment"]}
    verdict = run_client(module_page, CHECK, {"match": MATCH, "roll": _record(), "known": known})
    assert verdict == {"ok": True, "problems": [], "checked": ["commitment", "dice", "promise"]}
