"""The match page's device and a server that misuses v2 links (issue #25), in Chromium with the
server stood in by Playwright routing (test_web_board.StandIn): the device sends its link for
a requested roll once per roll (again only for the same roll, also after a reload); a roll
voided after the link or the roller's entropy was sent, or left open, with a roll of the same
game after it, is listed ✗ ``void_after_request``; a new roll that asks for a link already
sent gets none and shows ✗ ``link_reused``; an audit document that does not check out
against the public log is not believed."""

from __future__ import annotations

import copy
import hashlib
import re

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from test_web_board import StandIn
from webstate import MATCH_ID, make_state

from boardgammon.dice.transparency import (
    head_bytes,
    inclusion_path,
    leaf_bytes,
    leaf_hash,
    root_of,
)
from boardgammon.dice.verify import (
    EVENT_TIMES,
    chain_link,
    commitment,
    derive_dice_v2,
    entry_after,
    entry_hash_v2,
    leaf_time,
    roll_changes,
)
from boardgammon.engine import Board

pytestmark = pytest.mark.browser

SEED, ENTROPY = bytes(range(32)), bytes(range(0xA0, 0xB0))
KEY = Ed25519PrivateKey.generate()  # the public log's key, at its fixed address
KEY_HEX = KEY.public_key().public_bytes(serialization.Encoding.Raw,
                                        serialization.PublicFormat.Raw).hex()
TEXTS = {
    "roll_missing": "the match's record has no such roll",
    "void_after_request": "the server voided this roll after this device's input",
    "link_reused": "the server asked for a link of this device's chain that it had sent already",
    "link_dropped": "this device sent its link for this roll before the server revealed it",
    "link_late": "this device's link left only after the server had revealed the roll",
    "log_mismatch": "the public log holds another roll than the one shown",
    "log_proof": "the inclusion proof does not lead to the signed tree head",
    "log_signature": "the tree head's signature does not verify with the log's published key",
}
LINK_DROPPED_REST = (", and the roll was made without it: the server could have picked the "
                     "outcome with or without it. A connection slower than the server's wait "
                     "for the link (3 s unless the server is set otherwise) gives the same with "
                     "an honest server: the link arrives after the wait is over. This device "
                     "cannot tell the two apart")
VOID_REST = " (its entropy or its link) had reached it: it could have chosen to roll again"


def chain(length: int = 6) -> list[str]:
    links = [bytes(range(0xB0, 0xD0))]
    for _ in range(length):
        links.append(chain_link(links[-1]))
    return [x.hex() for x in reversed(links)]


LINKS = chain()


def pending(roll_id: str, prev: str, steps: int) -> dict:
    return {"roll_id": roll_id, "seat": 0, "nonce": 7, "commitment": commitment(SEED),
            "kind": "normal", "state": "requested", "opponent_prev_link": prev,
            "opponent_link_steps": steps,
            "roller_entropy_sha256": hashlib.sha256(ENTROPY).hexdigest()}


def entry(seq: int, roll_id: str, state: str, prev: str, **fields) -> dict:
    """An audit entry of seat 0's roll, bob's (seat 1's) chain its opponent."""
    base = {"seq": seq, "roll_id": roll_id, "nonce": 7, "seat": 0, "kind": "normal",
            "state": state, "commitment": commitment(SEED), "server_seed": None,
            "roller_entropy": ENTROPY.hex(), "roller_source": "client",
            "opponent_prev_link": prev, "opponent_entropy": None, "opponent_source": None,
            "dice": None, "committed_at": "2026-12-02T12:00:00.000000Z",
            "requested_at": "2026-12-02T12:00:01.000000Z", "voided_at": None, "log": []}
    return base | fields


def record(*rolls: dict, key: Ed25519PrivateKey = KEY) -> dict:
    """The match's audit document as the server serves it (GET /api/audit/{match_id}): the
    audit entries ``rolls`` chained by prev_hash and hashed, each with the public log's leaf of
    its last change and that leaf's inclusion proof to a head signed with ``key``."""
    entries, prev = [], "0" * 64
    for roll in rolls:
        entry_ = dict(roll, prev_hash=prev)
        prev = entry_["entry_hash"] = entry_hash_v2(MATCH_ID, entry_)
        entries.append(entry_)
    # One leaf per change of each roll, with the roll as it stood then (docs/fair-dice.md
    # §The record (v2), A roll's leaves).
    changes = [(n, event, leaf_bytes(event, entry_after(e, event) | {
        "match_id": MATCH_ID, "entry_hash": entry_hash_v2(MATCH_ID, entry_after(e, event))},
        leaf_time(e[EVENT_TIMES[event]])))
        for n, e in enumerate(entries) for event in roll_changes(e)]
    leaves = [leaf for _, _, leaf in changes]
    hashes = [leaf_hash(leaf) for leaf in leaves]
    for entry_ in entries:
        entry_["log"] = []
    for index, (n, event, leaf) in enumerate(changes):
        path = inclusion_path(index, len(leaves), lambda lo, hi: root_of(hashes[lo:hi]))
        entries[n]["log"].append({"index": index, "event": event, "leaf": leaf.decode(),
                                  "inclusion_path": [p.hex() for p in path]})
    root = root_of(hashes)
    head = {"format": "boardgammon-log-head-v1", "tree_size": len(leaves), "timestamp": 1,
            "root_hash": root.hex(), "signature": key.sign(head_bytes(len(leaves), 1, root)).hex()}
    public = key.public_key().public_bytes(serialization.Encoding.Raw,
                                           serialization.PublicFormat.Raw).hex()
    return {"format": "boardgammon-audit-v2", "match_id": MATCH_ID, "chain_head": prev,
            "rolls": entries,
            "log": {"format": "boardgammon-log-v1", "public_key": public, "head": head,
                    "anchors": []}}


class Server(StandIn):
    """StandIn plus the match's audit document, each roll's proof made from it, and the log's
    key; POSTs are kept."""

    def __init__(self, page, state, audit):
        self.audit = audit
        super().__init__(page, state)

    def handle(self, route, request):
        path = re.sub(r"^https?://[^/]+", "", request.url)
        if path == f"/api/audit/{MATCH_ID}":
            return self.json(route, self.audit)
        proof = re.fullmatch(rf"/api/audit/{MATCH_ID}/rolls/([^/]+)/proof\?after=(-?\d+)", path)
        if proof:  # the roll's proof, its entries before it after `after`; no log (log_missing)
            rolls = self.audit["rolls"]
            at = next(i for i, r in enumerate(rolls) if r["roll_id"] == proof.group(1))
            after = int(proof.group(2))
            return self.json(route, {"match_id": MATCH_ID, "roll": rolls[at],
                                     "preceding": [r for r in rolls[:at] if r["seq"] > after],
                                     "covered": True,
                                     "retry_after": None, "log": {"head": None}})
        if path == "/api/log/public-key":
            return self.json(route, {"public_key": KEY_HEX})
        return super().handle(route, request)

    def links_sent(self) -> list[tuple[str, str]]:
        return [(a["roll_id"], a["link"]) for a in self.actions if a["type"] == "contribute"]


def show(page, server: Server, state: dict, audit: dict) -> None:
    server.state, server.audit = state, audit
    page.goto(f"{page.base}/match/{MATCH_ID}")
    page.wait_for_selector("svg.board")


def rolled_again_on_roll(page, first: dict, audit_a: dict, rerolled: dict,
                         audit_b: dict) -> Server:
    """Show ``first`` (and ``audit_a``); the page's roll action is answered with ``rerolled``
    and the audit document becomes ``audit_b`` (a server that voids the roll the page rolls
    and commits another); the page's Roll button pressed. The stand-in server."""
    server = Server(page, first, audit_a)

    def reply(action: dict) -> dict:
        if action["type"] != "roll":
            return server.state
        server.audit = audit_b
        return rerolled

    server.reply = reply
    show(page, server, first, audit_a)
    page.click('.controls [data-action="roll"]')
    return server


def nothing_failed_once_looked_up(page, documents: list) -> None:
    """Wait until the page read the audit document (``documents``: the URLs of its reads, a
    list that grows) to look a void roll up, then half a second more: no roll shows ✗."""
    for _ in range(100):
        if documents:
            break
        page.wait_for_timeout(100)
    assert documents
    page.wait_for_timeout(500)
    assert page.locator('.dice-log .verdict[data-verdict="failed"]').count() == 0


def wait_sent(page, server: Server, count: int) -> list[tuple[str, str]]:
    for _ in range(100):
        if len(server.links_sent()) >= count:
            break
        page.wait_for_timeout(100)
    return server.links_sent()


def link_sent_for_rol_a(browser, static_url: str, width: int = 800, height: int = 900):
    """Bob's page, shown ann's roll rol_a requested, has sent its link for it. (page, the
    stand-in server, the audit documents' URLs the page reads from now on)"""
    _, page = bobs_page(browser, static_url, width, height)
    first = rolling(pending_roll=pending("rol_a", LINKS[0], 1))
    audit_a = record(entry(0, "rol_a", "requested", LINKS[0]))
    server = Server(page, first, audit_a)
    documents: list[str] = []
    page.on("request", lambda r: documents.append(r.url)
            if r.url.endswith(f"/api/audit/{MATCH_ID}") else None)
    show(page, server, first, audit_a)
    assert wait_sent(page, server, 1) == [("rol_a", LINKS[1])]
    return page, server, documents


def verdict_title(page, roll_id: str) -> str:
    mark = page.locator(f'.dice-log li[data-roll="{roll_id}"] .verdict[data-verdict="failed"]')
    mark.wait_for(state="attached", timeout=15_000)
    return mark.get_attribute("title") or ""


def bobs_page(browser, static_url: str, width: int, height: int, accepted: bool = False):
    """A page in English holding bob's (seat 1's) chain, registered (and, ``accepted``, taken
    by the server): kept only if the page has none yet (a reload keeps it). (context, page)"""
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.base = static_url
    page.add_init_script("localStorage.setItem('bg.lang', 'en')")
    taken = ", accepted: true" if accepted else ""
    page.add_init_script(
        f"localStorage.getItem('bg.chain.{MATCH_ID}') || localStorage.setItem("
        f"'bg.chain.{MATCH_ID}', JSON.stringify({{seed: '{LINKS[-1]}', length: "
        f"{len(LINKS) - 1}, registered: true{taken}}}))"
    )
    return context, page


def rolling(**extra) -> dict:
    """Ann (seat 0) on roll with v2 dice, seen by bob (seat 1)."""
    return make_state(Board.initial(), on_roll=0, you=1, phase="roll", dice_protocol="v2",
                      **extra)


def test_links_are_sent_once_per_roll_and_misuse_is_shown(browser, static_url):
    context, page = bobs_page(browser, static_url, 800, 900)

    # Ann asked to roll rol_a: bob's device sends x_1; a reload sends it again for rol_a only.
    first = rolling(pending_roll=pending("rol_a", LINKS[0], 1))
    audit_a = record(entry(0, "rol_a", "requested", LINKS[0]))
    server = Server(page, first, audit_a)
    show(page, server, first, audit_a)
    assert wait_sent(page, server, 1) == [("rol_a", LINKS[1])]
    show(page, server, first, audit_a)
    assert wait_sent(page, server, 2) == [("rol_a", LINKS[1]), ("rol_a", LINKS[1])]

    # The server voided rol_a after the link arrived and asks for the next roll's link: x_2
    # (k = 2) is sent, and rol_a is listed as voided after this device's input.
    voided = entry(0, "rol_a", "void", LINKS[0], voided_at="2026-12-02T12:00:05.000000Z")
    audit_b = record(voided, entry(1, "rol_b", "requested", LINKS[0]))
    show(page, server, rolling(pending_roll=pending("rol_b", LINKS[0], 2)), audit_b)
    assert TEXTS["void_after_request"] in verdict_title(page, "rol_a")
    assert page.locator('.dice-log li[data-state="void"]').count() == 1
    assert "rol_a" in page.inner_text(".dice-alert")
    assert wait_sent(page, server, 3)[2:] == [("rol_b", LINKS[2])]

    # A new roll that asks for x_2 again (prev x_0, 2 steps: as if rol_b had not used it):
    # nothing is sent, and once it is revealed without the link it shows ✗ link_reused.
    voided_b = entry(1, "rol_b", "void", LINKS[0], voided_at="2026-12-02T12:00:09.000000Z")
    audit_c = record(voided, voided_b, entry(2, "rol_c", "requested", LINKS[0]))
    show(page, server, rolling(pending_roll=pending("rol_c", LINKS[0], 2)), audit_c)
    page.wait_for_function(
        "(key) => (JSON.parse(localStorage.getItem(key) || '{}').rol_c || {}).link_reused",
        arg=f"bg.rolls.{MATCH_ID}",
    )
    assert server.links_sent()[3:] == []
    dice = list(derive_dice_v2(SEED, MATCH_ID, "rol_c", 7, "normal", ENTROPY, None))
    revealed = entry(2, "rol_c", "played", LINKS[0], server_seed=SEED.hex(), dice=dice,
                     opponent_source="absent", revealed_at="2026-12-02T12:00:13.000000Z",
                     played_at="2026-12-02T12:00:20.000000Z")
    shown = {k: revealed[k] for k in ("roll_id", "seat", "nonce", "commitment", "server_seed",
                                      "dice", "kind", "roller_entropy", "roller_source",
                                      "opponent_prev_link", "opponent_entropy",
                                      "opponent_source")}
    show(page, server, rolling(rolls=[shown]), record(voided, voided_b, revealed))
    assert TEXTS["link_reused"] in verdict_title(page, "rol_c")
    assert server.links_sent()[3:] == []
    context.close()


def test_a_roll_dropped_from_the_record_after_this_devices_input_is_shown(browser, static_url):
    """The server asked for bob's link for rol_a, then moved on to rol_b with a record in
    which rol_a never was (rather than void after its request, which would be flagged): rol_a
    is listed ✗ roll_missing."""
    context, page = bobs_page(browser, static_url, 360, 740)

    first = rolling(pending_roll=pending("rol_a", LINKS[0], 1))
    audit_a = record(entry(0, "rol_a", "requested", LINKS[0]))
    server = Server(page, first, audit_a)
    show(page, server, first, audit_a)
    assert wait_sent(page, server, 1) == [("rol_a", LINKS[1])]
    # rol_b committed (not requested yet) as the record's first roll: rol_a is gone.
    audit_b = record(entry(0, "rol_b", "committed", LINKS[0], roller_entropy=None,
                           roller_source=None, requested_at=None))
    later = rolling(pending_roll=pending("rol_b", LINKS[0], 1) | {"state": "committed"})
    show(page, server, later, audit_b)
    assert TEXTS["roll_missing"] in verdict_title(page, "rol_a")
    assert "rol_a" in page.inner_text(".dice-alert")
    assert server.links_sent() == [("rol_a", LINKS[1])]
    context.close()


def test_a_void_whose_request_the_record_leaves_out_is_still_a_reroll(browser, static_url):
    """The server showed rol_a requested and took bob's link, then rolled again (rol_b, the
    same game) with rol_a void and no request time in the record, as if the request had never
    reached it: bob's device sent its link for rol_a, so rol_a is ✗ void_after_request all the
    same, also after a reload of the page (what it sent is stored with the roll)."""
    page, server, _ = link_sent_for_rol_a(browser, static_url, 360, 740)
    unrecorded = entry(0, "rol_a", "void", LINKS[0], roller_entropy=None, roller_source=None,
                       requested_at=None, voided_at="2026-12-02T12:00:05.000000Z")
    audit_b = record(unrecorded, entry(1, "rol_b", "requested", LINKS[0]))
    show(page, server, rolling(pending_roll=pending("rol_b", LINKS[0], 2)), audit_b)
    assert TEXTS["void_after_request"] in verdict_title(page, "rol_a")
    assert "rol_a" in page.inner_text(".dice-alert")
    page.context.close()


def test_a_roll_voided_with_its_game_is_not_a_reroll(browser, static_url):
    """Ann asked to roll rol_a and bob's device sent its link; before the dice were revealed
    the game ended (ann resigned during the wait), and the record goes on with the next
    game's opening roll: rol_a is void after its request with a roll after it, as in a busy
    reroll, but that roll opens a new game: no ✗. A normal roll in its place (the same turn
    rolled again) is still ✗ void_after_request."""
    page, server, documents = link_sent_for_rol_a(browser, static_url)

    voided = entry(0, "rol_a", "void", LINKS[0], voided_at="2026-12-02T12:00:02.000000Z")
    opening = entry(1, "rol_b", "committed", LINKS[0], kind="opening", roller_entropy=None,
                    roller_source=None, requested_at=None)
    new_game = make_state(Board.initial(), on_roll=0, you=1, phase="opening",
                          dice_protocol="v2", game_number=2,
                          pending_roll=pending("rol_b", LINKS[0], 2) | {"state": "committed",
                                                                        "kind": "opening"})
    show(page, server, new_game, record(voided, opening))
    nothing_failed_once_looked_up(page, documents)
    assert page.locator(".dice-alert").count() == 0 or "rol_a" not in page.inner_text(
        ".dice-alert")

    # The same void followed by a normal roll of the same game: a reroll, flagged.
    reroll = {**opening, "kind": "normal"}
    show(page, server, rolling(pending_roll=pending("rol_b", LINKS[0], 2)
                               | {"state": "committed"}),
         record(voided, reroll))
    assert TEXTS["void_after_request"] in verdict_title(page, "rol_a")
    page.context.close()


@pytest.mark.parametrize("next_kind", ["normal", "opening"])
def test_a_roll_left_requested_with_a_roll_after_it_is_a_reroll(browser, static_url, next_kind):
    """The server took bob's link for rol_a, then rolled again (rol_b) and left rol_a
    ``requested`` in the record instead of voiding it, as if it were still to come: only the
    record's last roll may be open (verify.py: ``left unresolved``), so rol_a is ✗
    void_after_request, whatever the next roll's kind (a game that ends voids its open roll).
    The device used to pass over a requested roll, waiting for it to end."""
    page, server, _ = link_sent_for_rol_a(browser, static_url, 360, 740)
    after = entry(1, "rol_b", "committed", LINKS[0], kind=next_kind, roller_entropy=None,
                  roller_source=None, requested_at=None)
    later = rolling(pending_roll=pending("rol_b", LINKS[0], 2)
                    | {"state": "committed", "kind": next_kind})
    show(page, server, later, record(entry(0, "rol_a", "requested", LINKS[0]), after))
    assert verdict_title(page, "rol_a") == TEXTS["void_after_request"] + VOID_REST
    assert "rol_a" in page.inner_text(".dice-alert")
    page.context.close()


def test_a_void_the_device_never_saw_requested_is_a_reroll(browser, static_url):
    """Ann (seat 0) asks to roll rol_a: her device stores its entropy, then sends it. The
    server never shows rol_a requested (its answer already shows the turn's next roll, rol_b)
    and records rol_a void with no request time and no entropy, as if the request had never
    arrived, and rolls again. Ann's device sent its input for rol_a, which is all it needs to
    know: rol_a is ✗ void_after_request (it was flagged only where the record had the request
    or the device had seen it)."""
    context, page = bobs_page(browser, static_url, 800, 900)  # this device's chain, registered
    unasked = {"roller_entropy": None, "roller_source": None, "requested_at": None}
    first = make_state(Board.initial(), on_roll=0, you=0, phase="roll", dice_protocol="v2",
                       pending_roll=pending("rol_a", LINKS[0], 1) | {"state": "committed"})
    rerolled = first | {"version": first["version"] + 1,
                        "pending_roll": pending("rol_b", LINKS[0], 2) | {"state": "committed"}}
    audit_a = record(entry(0, "rol_a", "committed", LINKS[0], **unasked))
    audit_b = record(entry(0, "rol_a", "void", LINKS[0], **unasked,
                           voided_at="2026-12-02T12:00:02.000000Z"),
                     entry(1, "rol_b", "committed", LINKS[0], **unasked,
                           committed_at="2026-12-02T12:00:02.000000Z"))
    server = rolled_again_on_roll(page, first, audit_a, rerolled, audit_b)
    assert verdict_title(page, "rol_a") == TEXTS["void_after_request"] + VOID_REST
    rolled = [a for a in server.actions if a["type"] == "roll"]
    assert [a["roll_id"] for a in rolled] == ["rol_a"]
    stored = page.evaluate("(key) => JSON.parse(localStorage.getItem(key)).rol_a",
                           f"bg.rolls.{MATCH_ID}")
    assert stored["entropy"] == rolled[0]["entropy"] and len(stored["entropy"]) == 32
    assert "seen_requested" not in stored
    context.close()


VOIDED = entry(0, "rol_a", "void", LINKS[0], voided_at="2026-12-02T12:00:02.000000Z")
NEXT = entry(1, "rol_b", "committed", LINKS[0], roller_entropy=None, roller_source=None,
             requested_at=None, committed_at="2026-12-02T12:00:02.000000Z")


def relabelled() -> dict:
    """The record with rol_b called an opening roll after it was hashed."""
    document = record(VOIDED, NEXT)
    document["rolls"][1]["kind"] = "opening"
    return document


def signed_elsewhere() -> dict:
    """A record of its own, hashed and logged, under a head signed by another key."""
    return record(VOIDED, NEXT | {"kind": "opening"}, key=Ed25519PrivateKey.generate())


def under_the_real_head() -> dict:
    """A record of its own, hashed and logged, shown with the real record's signed head,
    which its leaves are not under."""
    document = record(VOIDED, NEXT | {"kind": "opening"})
    document["log"] = copy.deepcopy(record(VOIDED, NEXT)["log"])
    return document


@pytest.mark.parametrize(("forged", "problem"), [
    (relabelled, "log_mismatch"),
    (signed_elsewhere, "log_signature"),
    (under_the_real_head, "log_proof"),
])
def test_a_record_that_does_not_check_out_is_not_believed(browser, static_url, forged,
                                                           problem):
    """The server took bob's link for rol_a and rolled again in the same turn (rol_b), and
    serves bob's device a record of its own in which rol_b opens the next game, so that rol_a
    looks voided with its game: no flag, as the device believed whatever document it got. The
    device now checks the document against the public log (its chain, its last entry's leaf
    and the leaf's inclusion proof to a head signed with the log's key) and, after reading it
    twice, lists rol_a ✗ with what failed. The real record, under the real head, gives ✗
    void_after_request (test_a_roll_voided_with_its_game_is_not_a_reroll)."""
    page, server, documents = link_sent_for_rol_a(browser, static_url)
    new_game = make_state(Board.initial(), on_roll=0, you=1, phase="opening",
                          dice_protocol="v2", game_number=2,
                          pending_roll=pending("rol_b", LINKS[0], 2) | {"state": "committed",
                                                                        "kind": "opening"})
    show(page, server, new_game, forged())
    assert verdict_title(page, "rol_a") == TEXTS[problem]
    assert "rol_a" in page.inner_text(".dice-alert")
    assert len(documents) >= 2  # read again before it is not believed
    page.context.close()


class LoggedServer(Server):
    """Server whose proof of a roll at seq 0 is a real one: its entry hashed, one leaf, a head
    signed with KEY (the log's key at its address), so a roll can show ✓ (or ⚠)."""

    def handle(self, route, request):
        path = re.sub(r"^https?://[^/]+", "", request.url)
        if "/proof?after=" in path:
            # At the record's time of the change, as every leaf is (the device checks it).
            logged = record(self.audit["rolls"][0])
            return self.json(route, {"match_id": MATCH_ID, "roll": logged["rolls"][0],
                                     "preceding": [], "covered": True, "retry_after": None,
                                     "log": logged["log"]})
        return super().handle(route, request)


def test_a_link_sent_and_left_out_is_shown(browser, static_url):
    """Bob's device sent x_1 for rol_a, and the server revealed rol_a without it (``absent``):
    it held the link and could pick the outcome with it or without it (docs/fair-dice.md
    §Threat model). The roll shows ✗ link_dropped; revealed (by its hashed revealed_at) before
    the link left this device, the same roll shows ⚠ link_late instead: the device was late,
    every check holds."""
    context, page = bobs_page(browser, static_url, 800, 900)
    first = rolling(pending_roll=pending("rol_a", LINKS[0], 1))
    audit_a = {"match_id": MATCH_ID, "rolls": [entry(0, "rol_a", "requested", LINKS[0])]}
    server = LoggedServer(page, first, audit_a)
    show(page, server, first, audit_a)
    assert wait_sent(page, server, 1) == [("rol_a", LINKS[1])]
    page.wait_for_function(
        "(key) => Number.isFinite((JSON.parse(localStorage.getItem(key) || '{}').rol_a || {})"
        ".link_sent_at)", arg=f"bg.rolls.{MATCH_ID}")

    dice = list(derive_dice_v2(SEED, MATCH_ID, "rol_a", 7, "normal", ENTROPY, None))

    def revealed_at(at: str, played: str) -> tuple[dict, dict]:
        revealed = entry(0, "rol_a", "played", LINKS[0], server_seed=SEED.hex(), dice=dice,
                         opponent_source="absent", revealed_at=at, played_at=played)
        shown = {k: revealed[k] for k in ("roll_id", "seat", "nonce", "commitment",
                                          "server_seed", "dice", "kind", "roller_entropy",
                                          "roller_source", "opponent_prev_link",
                                          "opponent_entropy", "opponent_source")}
        return rolling(rolls=[shown]), {"match_id": MATCH_ID, "rolls": [revealed]}

    # Revealed after the link left (by this device's clock): the server may have held it.
    show(page, server, *revealed_at("2999-01-01T00:00:00.000000Z", "2999-01-01T00:00:01.000000Z"))
    title = verdict_title(page, "rol_a")
    assert title == TEXTS["link_dropped"] + LINK_DROPPED_REST
    assert "rol_a" in page.inner_text(".dice-alert")
    # Revealed before it left: this device was late. ⚠, not in the alert.
    show(page, server, *revealed_at("2026-01-01T00:00:00.000000Z", "2026-01-01T00:00:01.000000Z"))
    mark = page.locator('.dice-log li[data-roll="rol_a"] .verdict[data-verdict="warned"]')
    mark.wait_for(state="attached", timeout=15_000)
    assert (mark.text_content() or "").startswith("⚠ ")  # the log may be folded away
    assert (mark.get_attribute("title") or "").startswith(TEXTS["link_late"])
    assert page.locator(".dice-alert").count() == 0 or "rol_a" not in page.inner_text(
        ".dice-alert")
    assert server.links_sent() == [("rol_a", LINKS[1])]
    context.close()
