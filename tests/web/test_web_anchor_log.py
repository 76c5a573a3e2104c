"""The device checks, after the server accepted its chain anchor, that the public log holds it
(web/dicechain.js ``checkAnchor``, docs/fair-dice.md §The device's check): a leaf naming the
match, its seat and its anchor, with an inclusion proof to a head signed by the log's key.
Otherwise each roll where this device is the opponent shows ✗ with the reason, in Chromium."""

from __future__ import annotations

import json

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from boardgammon.dice.transparency import (
    anchor_leaf_bytes,
    head_bytes,
    inclusion_path,
    leaf_bytes,
    leaf_hash,
    root_of,
)
from boardgammon.dice.verify import commitment, derive_dice_v2

pytestmark = pytest.mark.browser

MATCH = "mat_ANCHORLOG0001"
KEY = Ed25519PrivateKey.generate()


def public_hex(key: Ed25519PrivateKey) -> str:
    return key.public_key().public_bytes(serialization.Encoding.Raw,
                                         serialization.PublicFormat.Raw).hex()


def proofs(anchor: str, how: str) -> dict:
    """GET /api/audit/{m}/anchors as a server would answer: honest, or each way of not."""
    roll = {"match_id": MATCH, "roll_id": "rol_x", "seq": 0, "nonce": 1, "seat": 0,
            "commitment": "ab" * 32, "entry_hash": "cd" * 32}
    shown = "00" * 32 if how == "other_anchor" else anchor
    leaves = [leaf_bytes("committed", roll, "2026-12-03T10:00:00+00:00"),
              anchor_leaf_bytes(MATCH, 1, shown, "2026-12-03T10:00:01+00:00"),
              leaf_bytes("requested", roll, "2026-12-03T10:00:02+00:00")]
    hashes = [leaf_hash(leaf) for leaf in leaves]
    root = root_of(hashes)
    path = [p.hex() for p in inclusion_path(1, 3, lambda lo, hi: root_of(hashes[lo:hi]))]
    if how == "bad_proof":
        path[0] = "00" * 32
    signer = Ed25519PrivateKey.generate() if how == "other_key" else KEY
    head = {"format": "boardgammon-log-head-v1", "tree_size": 3, "timestamp": 1,
            "root_hash": root.hex(), "signature": signer.sign(head_bytes(3, 1, root)).hex()}
    listed = [] if how == "left_out" else [
        {"index": 1, "event": "anchor", "leaf": leaves[1].decode(), "inclusion_path": path}]
    return {"format": "boardgammon-log-v1", "public_key": public_hex(KEY), "head": head,
            "anchors": listed}


@pytest.mark.parametrize(
    ("how", "found"),
    [
        ("honest", "ok"),
        ("left_out", "anchor_unlogged"),
        ("other_anchor", "anchor_unlogged"),
        ("bad_proof", "anchor_unlogged"),
        ("other_key", "log_signature"),
    ],
)
def test_the_device_checks_its_anchor_is_in_the_log(module_page, how, found):
    registered: list[str] = []

    def actions(route, request):
        registered.append(request.post_data_json["anchor"])
        route.fulfill(status=200, content_type="application/json",
                      body=json.dumps({"events": [{"type": "anchor", "seat": 1}]}))

    def anchors(route, request):
        route.fulfill(status=200, content_type="application/json",
                      body=json.dumps(proofs(registered[0], how)))

    def key(route, request):
        route.fulfill(status=200, content_type="application/json",
                      body=json.dumps({"public_key": public_hex(KEY)}))

    module_page.route("**/api/matches/*/actions", actions)
    module_page.route(f"**/api/audit/{MATCH}/anchors", anchors)
    module_page.route("**/api/log/public-key", key)
    seed, entropy = bytes(range(32)), bytes(16)
    # A roll of seat 0 where this device (seat 1) is the opponent.
    roll = {"seq": 0, "roll_id": "rol_0001", "seat": 0, "nonce": 0, "kind": "normal",
            "server_seed": seed.hex(), "commitment": commitment(seed),
            "roller_entropy": entropy.hex(), "roller_source": "client",
            "opponent_prev_link": None, "opponent_entropy": None, "opponent_source": "none",
            "dice": list(derive_dice_v2(seed, MATCH, "rol_0001", 0, "normal", entropy, None))}
    got = module_page.evaluate(
        """async (arg) => {
        const dc = await import('/static/dicechain.js');
        localStorage.removeItem("bg.chain." + arg.match);
        const chain = new dc.DeviceChain(arg.match);
        await chain.register({ dice_protocol: "v2", you: 1, phase: "roll" });
        const again = new dc.DeviceChain(arg.match);  // a reload keeps what the log said
        await again.ready;
        const verdict = await dc.checkRollV2InRecord(arg.match, arg.roll, null, [arg.roll],
            again, 1);
        return [again.stored.anchor_log, verdict.problems];
        }""",
        {"match": MATCH, "roll": roll},
    )
    assert got[0] == found
    # The roll says `none` for this device's accepted chain: chain_skipped always; and the
    # log's answer on the anchor where it failed.
    assert got[1] == ["chain_skipped"] + ([] if found == "ok" else [found])
