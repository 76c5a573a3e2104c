"""The device checks, after the server accepted its chain anchor, that the public log holds it
(web/dicechain.js ``checkAnchor``, docs/fair-dice.md §The device's check): a leaf naming the
match, its seat and its anchor, with an inclusion proof to a head signed by the log's key.
Otherwise each roll where this device is the opponent shows ✗ with the reason, in Chromium."""

from __future__ import annotations

import json

import pytest
import test_web_dice_links as on_page
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from webstate import MATCH_ID

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


def log_leaves(anchor: str, late: bool = False) -> list[bytes]:
    """A log of three leaves: a roll of seat 0 committed, seat 1's anchor, the roll requested
    (``late``: the anchor after the request)."""
    roll = {"match_id": MATCH, "roll_id": "rol_0001", "seq": 0, "nonce": 0, "seat": 0,
            "commitment": "ab" * 32, "entry_hash": "cd" * 32}
    leaves = [leaf_bytes("committed", roll, "2026-12-03T10:00:00+00:00"),
              anchor_leaf_bytes(MATCH, 1, anchor, "2026-12-03T10:00:01+00:00"),
              leaf_bytes("requested", roll, "2026-12-03T10:00:02+00:00")]
    return [leaves[0], leaves[2], leaves[1]] if late else leaves


def proofs(anchor: str, how: str, late: bool = False) -> dict:
    """GET /api/audit/{m}/anchors as a server would answer: honest, or each way of not."""
    shown = "00" * 32 if how == "other_anchor" else anchor
    leaves = log_leaves(shown, late)
    at = 2 if late else 1
    hashes = [leaf_hash(leaf) for leaf in leaves]
    root = root_of(hashes)
    path = [p.hex() for p in inclusion_path(at, 3, lambda lo, hi: root_of(hashes[lo:hi]))]
    if how == "bad_proof":
        path[0] = "00" * 32
    signer = Ed25519PrivateKey.generate() if how == "other_key" else KEY
    head = {"format": "boardgammon-log-head-v1", "tree_size": 3, "timestamp": 1,
            "root_hash": root.hex(), "signature": signer.sign(head_bytes(3, 1, root)).hex()}
    listed = [] if how == "left_out" else [
        {"index": at, "event": "anchor", "leaf": leaves[at].decode(), "inclusion_path": path}]
    return {"format": "boardgammon-log-v1", "public_key": public_hex(KEY), "head": head,
            "anchors": listed}


def stand_in(module_page, how: str, late: bool = False, failures: int = 0,
             answer=None) -> None:
    """The server stood in: the anchor action accepted, the anchors' proofs as ``how`` says
    (:func:`proofs`, or ``answer(anchor)``), after ``failures`` reads answered 503, the log's
    public key."""
    registered: list[str] = []
    reads: list[int] = []

    def actions(route, request):
        registered.append(request.post_data_json["anchor"])
        route.fulfill(status=200, content_type="application/json",
                      body=json.dumps({"events": [{"type": "anchor", "seat": 1}]}))

    def anchors(route, request):
        reads.append(1)
        if len(reads) <= failures:
            route.fulfill(status=503, content_type="application/json",
                          body=json.dumps({"code": "unavailable", "message": "busy"}))
            return
        body = answer(registered[0]) if answer else proofs(registered[0], how, late)
        route.fulfill(status=200, content_type="application/json", body=json.dumps(body))

    def key(route, request):
        route.fulfill(status=200, content_type="application/json",
                      body=json.dumps({"public_key": public_hex(KEY)}))

    module_page.route("**/api/matches/*/actions", actions)
    module_page.route(f"**/api/audit/{MATCH}/anchors", anchors)
    module_page.route("**/api/log/public-key", key)


def none_roll() -> dict:
    """A revealed roll of seat 0 where this device (seat 1) is the opponent, without its
    chain (``none``), requested (its hashed ``requested_at``, the time of its leaf in
    :func:`log_leaves`) before this device's anchor left: not ✗ anchor_silenced."""
    seed, entropy = bytes(range(32)), bytes(16)
    return {"seq": 0, "roll_id": "rol_0001", "seat": 0, "nonce": 0, "kind": "normal",
            "requested_at": "2026-12-03T10:00:02.000000Z",
            "server_seed": seed.hex(), "commitment": commitment(seed),
            "roller_entropy": entropy.hex(), "roller_source": "client",
            "opponent_prev_link": None, "opponent_entropy": None, "opponent_source": "none",
            "dice": list(derive_dice_v2(seed, MATCH, "rol_0001", 0, "normal", entropy, None))}


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
    stand_in(module_page, how)
    roll = none_roll()
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


def check_none_roll(module_page, late: bool = False, in_use: bool = False,
                    checks: int = 1) -> list[list]:
    """Register a fresh chain for seat 1 with the stand-in server, then check
    :func:`none_roll` ``checks`` times, its leaves those of :func:`log_leaves` (the anchor's
    left out), a roll before it having used the chain if ``in_use``: for each check
    ``[unsettled, problems, the anchor's place or None, anchor_log or None]``."""
    return module_page.evaluate(
        """async (arg) => {
        const dc = await import('/static/dicechain.js');
        localStorage.removeItem("bg.chain." + arg.match);
        const chain = new dc.DeviceChain(arg.match);
        await chain.register({ dice_protocol: "v2", you: 1, phase: "roll" });
        const leaves = arg.leaves.map((leaf) => ({ leaf, event: JSON.parse(leaf).event }));
        const entry = { ...arg.roll, log: leaves.map((e, index) => ({ ...e, index }))
          .filter((e) => e.event !== "anchor") };
        const results = [];
        for (let i = 0; i < arg.checks; i++) {
          const tally = { ...dc.startTally(), steps: arg.inUse ? [1, 0] : [0, 0] };
          const v = await dc.checkRollV2InRecord(arg.match, arg.roll, null, [entry], chain, 1,
            tally);
          results.push([v.unsettled === true, v.problems, chain.stored.anchor_index ?? null,
                        chain.stored.anchor_log ?? null]);
        }
        return results;
        }""",
        {"match": MATCH, "roll": none_roll(), "inUse": in_use, "checks": checks,
         "leaves": [leaf.decode() for leaf in log_leaves("00" * 32, late)]},
    )


@pytest.mark.parametrize(
    ("late", "in_use", "problems"),
    [(True, False, []), (False, False, ["chain_skipped"]), (True, True, ["chain_skipped"])],
    ids=["requested-before-the-anchor", "requested-after-it", "after-the-chains-first-use"],
)
def test_a_late_anchor_leaves_the_rolls_requested_before_it_alone(module_page, late, in_use,
                                                                  problems):
    """A late anchor (docs/fair-dice.md §The device's check): a ``none`` roll where this
    device is the opponent, requested before its anchor's leaf in the log (the roll's first
    leaf after its commitment's comes before the anchor's), is no ✗; requested after it, or
    once a roll before it used this chain (the tally), it is chain_skipped."""
    stand_in(module_page, "honest", late)
    (got,) = check_none_roll(module_page, late, in_use)
    assert [got[2], got[1]] == [2 if late else 1, problems]


def test_a_failed_read_of_the_log_is_no_verdict_and_is_asked_again(module_page):
    """The device could not read the log for its anchor's place (a 503): an honest ``none``
    roll requested before its late anchor gets no verdict yet (``unsettled``, "…" on the match
    page), never ✗ chain_skipped for our own failed read; the next check reads the log again
    and clears it."""
    stand_in(module_page, "honest", late=True, failures=2)
    # read 1 (the registration's): 503; the first check's read: 503; the second's: the log
    got = [result[:3] for result in check_none_roll(module_page, late=True, checks=2)]
    assert got == [[True, [], None], [False, [], 2]]


def listing(anchor: str, second: bool) -> dict:
    """GET /api/audit/{m}/anchors where the device's anchor (leaf 1) comes before a roll's
    request (leaf 2), listed after another entry naming the same anchor at a later place: a
    made-up one (index 3, its proof the real leaf's: it leads nowhere) or, ``second``, a real
    second leaf of it (index 3 of four, proven)."""
    leaves = log_leaves(anchor)
    if second:
        leaves.append(anchor_leaf_bytes(MATCH, 1, anchor, "2026-12-03T10:00:03+00:00"))
    size = len(leaves)
    hashes = [leaf_hash(leaf) for leaf in leaves]
    root = root_of(hashes)

    def path(at: int) -> list[str]:
        return [p.hex() for p in inclusion_path(at, size, lambda lo, hi: root_of(hashes[lo:hi]))]

    head = {"format": "boardgammon-log-head-v1", "tree_size": size, "timestamp": 1,
            "root_hash": root.hex(), "signature": KEY.sign(head_bytes(size, 1, root)).hex()}
    later = {"index": 3, "event": "anchor", "leaf": leaves[1].decode(),
             "inclusion_path": path(3) if second else path(1)}
    real = {"index": 1, "event": "anchor", "leaf": leaves[1].decode(), "inclusion_path": path(1)}
    return {"format": "boardgammon-log-v1", "public_key": public_hex(KEY), "head": head,
            "anchors": [later, real]}


@pytest.mark.parametrize("second", [False, True], ids=["made-up-entry", "later-leaf"])
def test_the_anchors_place_is_its_first_proven_leaf(module_page, second):
    """A server listing another entry for the device's anchor first, at a place after a
    ``none`` roll's request, does not move the anchor there: the place is the smallest index
    among the entries whose inclusion proof leads to the signed root, so the roll requested
    after the real leaf stays chain_skipped."""
    stand_in(module_page, "honest", answer=lambda anchor: listing(anchor, second))
    (got,) = check_none_roll(module_page)
    got = [got[3], got[2], got[1]]
    assert got == ["ok", 1, ["chain_skipped"]]


def test_the_match_page_shows_no_cross_for_its_own_failed_read_of_the_log(browser,
                                                                           static_url):
    """On the match page: bob's (seat 1's) accepted chain, ann's ``none`` roll whose request
    (its leaf 1) comes before bob's anchor leaf (4). While the log's anchors cannot be read
    (503) the roll shows "checking…", not ✗ chain_skipped; once they can, the page checks it
    again by itself and it shows ✓."""
    reads: list[bool] = []
    failing = [True]

    class AnchorServer(on_page.LoggedServer):
        def handle(self, route, request):
            if request.url.endswith(f"/api/audit/{MATCH_ID}/anchors"):
                reads.append(failing[0])
                if failing[0]:
                    return self.json(route, {"error": {"code": "unavailable",
                                                       "message": "busy"}}, 503)
                return self.json(route, anchors)
            return super().handle(route, request)

    leaves = [leaf_bytes("committed", {"match_id": MATCH_ID, "roll_id": "rol_z", "seq": 9,
                                       "nonce": 0, "seat": 0, "commitment": "ab" * 32,
                                       "entry_hash": "cd" * 32}, "2026-12-02T11:00:00+00:00"),
              b"x", b"y", b"z",  # places 1-3, as the roll's other leaves have in its proof
              anchor_leaf_bytes(MATCH_ID, 1, on_page.LINKS[0], "2026-12-02T12:00:05+00:00")]
    hashes = [leaf_hash(leaf) for leaf in leaves]
    root = root_of(hashes)
    path = [p.hex() for p in inclusion_path(4, 5, lambda lo, hi: root_of(hashes[lo:hi]))]
    anchors = {"format": "boardgammon-log-v1", "public_key": on_page.KEY_HEX,
               "head": {"format": "boardgammon-log-head-v1", "tree_size": 5, "timestamp": 1,
                        "root_hash": root.hex(),
                        "signature": on_page.KEY.sign(head_bytes(5, 1, root)).hex()},
               "anchors": [{"index": 4, "event": "anchor", "leaf": leaves[4].decode(),
                            "inclusion_path": path}]}
    context, page = on_page.bobs_page(browser, static_url, 800, 900, accepted=True)
    seed = on_page.SEED
    dice = list(derive_dice_v2(seed, MATCH_ID, "rol_a", 7, "normal", on_page.ENTROPY, None))
    played = on_page.entry(0, "rol_a", "played", None, server_seed=seed.hex(), dice=dice,
                           opponent_source="none", revealed_at="2026-12-02T12:00:02.000000Z",
                           played_at="2026-12-02T12:00:03.000000Z")
    shown = {k: played[k] for k in ("roll_id", "seat", "nonce", "commitment", "server_seed",
                                    "dice", "kind", "roller_entropy", "roller_source",
                                    "opponent_prev_link", "opponent_entropy",
                                    "opponent_source")}
    state, audit = on_page.rolling(rolls=[shown]), {"match_id": MATCH_ID, "rolls": [played]}
    server = AnchorServer(page, state, audit)
    on_page.show(page, server, state, audit)
    mark = page.locator('.dice-log li[data-roll="rol_a"] .verdict')
    for _ in range(100):  # the page's own read, then the roll's check
        if len(reads) >= 2:
            break
        page.wait_for_timeout(100)
    page.wait_for_timeout(300)
    assert len(reads) >= 2
    assert mark.get_attribute("class") == "verdict pending"
    failing[0] = False
    page.locator('.dice-log li[data-roll="rol_a"] .verdict[data-verdict="ok"]').wait_for(
        state="attached", timeout=15_000)
    assert reads[-1] is False
    context.close()


def test_a_chain_the_server_did_not_take_is_not_held_against_the_record(module_page):
    """Another device of this player registered first, and its chain is the record's; this
    device's own anchor was answered 409 anchor_registered. The first roll where the player is
    the opponent takes the other device's first link: no ✗ on this device, whose chain the
    server never took (it used to expect its own anchor there: link_chain_broken)."""

    def actions(route, request):
        route.fulfill(status=409, content_type="application/json",
                      body=json.dumps({"error": {"code": "anchor_registered",
                                                 "message": "registered already"}}))

    module_page.route("**/api/matches/*/actions", actions)
    other = on_page.LINKS  # the other device's chain: other[1] hashes to the anchor other[0]
    seed, entropy = bytes(range(32)), bytes(16)
    link = bytes.fromhex(other[1])
    roll = none_roll() | {
        "opponent_prev_link": other[0], "opponent_entropy": other[1],
        "opponent_source": "client",
        "dice": list(derive_dice_v2(seed, MATCH, "rol_0001", 0, "normal", entropy, link))}
    got = module_page.evaluate(
        """async (arg) => {
        const dc = await import('/static/dicechain.js');
        localStorage.removeItem("bg.chain." + arg.match);
        const chain = new dc.DeviceChain(arg.match);
        await chain.register({ dice_protocol: "v2", you: 1, phase: "roll" });
        const verdict = await dc.checkRollV2InRecord(arg.match, arg.roll, null, [arg.roll],
            chain, 1);
        return [chain.stored.registered, chain.stored.accepted ?? null, verdict.problems,
                verdict.checked.includes("chain")];
        }""",
        {"match": MATCH, "roll": roll},
    )
    assert got == [True, None, [], True]


def _without_path(answer: dict) -> dict:
    return answer | {"anchors": [{k: v for k, v in e.items() if k != "inclusion_path"}
                                 for e in answer["anchors"]]}


def _bad_hex(answer: dict) -> dict:
    return answer | {"anchors": [e | {"inclusion_path": ["zz" * 32]}
                                 for e in answer["anchors"]]}


@pytest.mark.parametrize("spoil", [_without_path, _bad_hex], ids=["no-path", "bad-hex"])
def test_an_anchors_answer_that_cannot_be_read_is_the_servers_word(module_page, spoil):
    """The log's answer on the device's anchor is malformed: not our read failing (which
    leaves the roll unsettled) but the server's answer, so the anchor is not shown in its log
    (anchor_unlogged) and the roll gets its ✗, where the check used to throw and leave the
    roll without a verdict for the page's life."""
    stand_in(module_page, "honest", answer=lambda anchor: spoil(proofs(anchor, "honest")))
    got = module_page.evaluate(
        """async (arg) => {
        const dc = await import('/static/dicechain.js');
        localStorage.removeItem("bg.chain." + arg.match);
        const chain = new dc.DeviceChain(arg.match);
        await chain.register({ dice_protocol: "v2", you: 1, phase: "roll" });
        const read = await chain.checkAnchor(1);
        return [read, chain.stored.anchor_log];
        }""",
        {"match": MATCH},
    )
    assert got == [True, "anchor_unlogged"]
