"""The match page's device and a server that misuses v2 links (issue #25), in Chromium with the
server stood in by Playwright routing (test_web_board.StandIn): the device sends its link for
a requested roll once per roll (again only for the same roll, also after a reload); a roll
voided after the link was sent is listed ✗ ``void_after_request``; a new roll that asks for a
link already sent gets none and shows ✗ ``link_reused``."""

from __future__ import annotations

import re

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from test_web_board import StandIn
from webstate import MATCH_ID, make_state

from boardgammon.dice.transparency import head_bytes, leaf_bytes, leaf_hash, root_of
from boardgammon.dice.verify import (
    EVENT_TIMES,
    chain_link,
    commitment,
    derive_dice_v2,
    entry_hash_v2,
    leaf_time,
)
from boardgammon.engine import Board

pytestmark = pytest.mark.browser

SEED, ENTROPY = bytes(range(32)), bytes(range(0xA0, 0xB0))
TEXTS = {
    "roll_missing": "the match's record has no such roll",
    "void_after_request": "the server voided this roll after this device's input",
    "link_reused": "the server asked for a link of this device's chain that it had sent already",
    "link_dropped": "this device sent its link for this roll before the server revealed it",
    "link_late": "this device's link left only after the server had revealed the roll",
}
LINK_DROPPED_REST = (", and the roll was made without it: the server could have picked the "
                     "outcome with or without it")


def chain(length: int = 6) -> list[str]:
    links = [bytes(range(0xB0, 0xD0))]
    for _ in range(length):
        links.append(chain_link(links[-1]))
    return [x.hex() for x in reversed(links)]


LINKS = chain()


def pending(roll_id: str, prev: str, steps: int) -> dict:
    return {"roll_id": roll_id, "seat": 0, "nonce": 7, "commitment": commitment(SEED),
            "kind": "normal", "state": "requested", "opponent_prev_link": prev,
            "opponent_link_steps": steps}


def entry(seq: int, roll_id: str, state: str, prev: str, **fields) -> dict:
    """An audit entry of seat 0's roll, bob's (seat 1's) chain its opponent."""
    base = {"seq": seq, "roll_id": roll_id, "nonce": 7, "seat": 0, "kind": "normal",
            "state": state, "commitment": commitment(SEED), "server_seed": None,
            "roller_entropy": ENTROPY.hex(), "roller_source": "client",
            "opponent_prev_link": prev, "opponent_entropy": None, "opponent_source": None,
            "dice": None, "committed_at": "2026-12-02T12:00:00.000000Z",
            "requested_at": "2026-12-02T12:00:01.000000Z", "voided_at": None, "log": []}
    return base | fields


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
            return self.json(route, {"public_key": "00" * 32})
        return super().handle(route, request)

    def links_sent(self) -> list[tuple[str, str]]:
        return [(a["roll_id"], a["link"]) for a in self.actions if a["type"] == "contribute"]


def show(page, server: Server, state: dict, audit: dict) -> None:
    server.state, server.audit = state, audit
    page.goto(f"{page.base}/match/{MATCH_ID}")
    page.wait_for_selector("svg.board")


def wait_sent(page, server: Server, count: int) -> list[tuple[str, str]]:
    for _ in range(100):
        if len(server.links_sent()) >= count:
            break
        page.wait_for_timeout(100)
    return server.links_sent()


def verdict_title(page, roll_id: str) -> str:
    mark = page.locator(f'.dice-log li[data-roll="{roll_id}"] .verdict[data-verdict="failed"]')
    mark.wait_for(state="attached", timeout=15_000)
    return mark.get_attribute("title") or ""


def bobs_page(browser, static_url: str, width: int, height: int):
    """A page in English holding bob's (seat 1's) chain, registered: kept only if the page has
    none yet (a reload keeps it). (context, page)"""
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.base = static_url
    page.add_init_script("localStorage.setItem('bg.lang', 'en')")
    page.add_init_script(
        f"localStorage.getItem('bg.chain.{MATCH_ID}') || localStorage.setItem("
        f"'bg.chain.{MATCH_ID}', JSON.stringify({{seed: '{LINKS[-1]}', length: "
        f"{len(LINKS) - 1}, registered: true}}))"
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
    audit_a = {"match_id": MATCH_ID, "rolls": [entry(0, "rol_a", "requested", LINKS[0])]}
    server = Server(page, first, audit_a)
    show(page, server, first, audit_a)
    assert wait_sent(page, server, 1) == [("rol_a", LINKS[1])]
    show(page, server, first, audit_a)
    assert wait_sent(page, server, 2) == [("rol_a", LINKS[1]), ("rol_a", LINKS[1])]

    # The server voided rol_a after the link arrived and asks for the next roll's link: x_2
    # (k = 2) is sent, and rol_a is listed as voided after this device's input.
    voided = entry(0, "rol_a", "void", LINKS[0], voided_at="2026-12-02T12:00:05.000000Z")
    audit_b = {"match_id": MATCH_ID,
               "rolls": [voided, entry(1, "rol_b", "requested", LINKS[0])]}
    show(page, server, rolling(pending_roll=pending("rol_b", LINKS[0], 2)), audit_b)
    assert TEXTS["void_after_request"] in verdict_title(page, "rol_a")
    assert page.locator('.dice-log li[data-state="void"]').count() == 1
    assert "rol_a" in page.inner_text(".dice-alert")
    assert wait_sent(page, server, 3)[2:] == [("rol_b", LINKS[2])]

    # A new roll that asks for x_2 again (prev x_0, 2 steps: as if rol_b had not used it):
    # nothing is sent, and once it is revealed without the link it shows ✗ link_reused.
    voided_b = entry(1, "rol_b", "void", LINKS[0], voided_at="2026-12-02T12:00:09.000000Z")
    audit_c = {"match_id": MATCH_ID, "rolls": [voided, voided_b,
                                               entry(2, "rol_c", "requested", LINKS[0])]}
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
    show(page, server, rolling(rolls=[shown]),
         {"match_id": MATCH_ID, "rolls": [voided, voided_b, revealed]})
    assert TEXTS["link_reused"] in verdict_title(page, "rol_c")
    assert server.links_sent()[3:] == []
    context.close()


def test_a_roll_dropped_from_the_record_after_this_devices_input_is_shown(browser, static_url):
    """The server asked for bob's link for rol_a, then moved on to rol_b with a record in
    which rol_a never was (rather than void after its request, which would be flagged): rol_a
    is listed ✗ roll_missing."""
    context, page = bobs_page(browser, static_url, 360, 740)

    first = rolling(pending_roll=pending("rol_a", LINKS[0], 1))
    audit_a = {"match_id": MATCH_ID, "rolls": [entry(0, "rol_a", "requested", LINKS[0])]}
    server = Server(page, first, audit_a)
    show(page, server, first, audit_a)
    assert wait_sent(page, server, 1) == [("rol_a", LINKS[1])]
    # rol_b committed (not requested yet) as the record's first roll: rol_a is gone.
    audit_b = {"match_id": MATCH_ID, "rolls": [entry(0, "rol_b", "committed", LINKS[0],
                                                     roller_entropy=None, roller_source=None,
                                                     requested_at=None)]}
    later = rolling(pending_roll=pending("rol_b", LINKS[0], 1) | {"state": "committed"})
    show(page, server, later, audit_b)
    assert TEXTS["roll_missing"] in verdict_title(page, "rol_a")
    assert "rol_a" in page.inner_text(".dice-alert")
    assert server.links_sent() == [("rol_a", LINKS[1])]
    context.close()


def test_a_void_whose_request_the_record_leaves_out_is_still_a_reroll(browser, static_url):
    """The server showed rol_a requested and took bob's link, then rolled again (rol_b, the
    same game) with rol_a void and no request time in the record, as if the request had never
    reached it: bob's device saw the request, so rol_a is ✗ void_after_request all the same.
    Stored, so that a reload of the page still knows."""
    context, page = bobs_page(browser, static_url, 360, 740)
    first = rolling(pending_roll=pending("rol_a", LINKS[0], 1))
    audit_a = {"match_id": MATCH_ID, "rolls": [entry(0, "rol_a", "requested", LINKS[0])]}
    server = Server(page, first, audit_a)
    show(page, server, first, audit_a)
    assert wait_sent(page, server, 1) == [("rol_a", LINKS[1])]
    page.wait_for_function(
        "(key) => (JSON.parse(localStorage.getItem(key) || '{}').rol_a || {}).seen_requested",
        arg=f"bg.rolls.{MATCH_ID}",
    )
    unrecorded = entry(0, "rol_a", "void", LINKS[0], roller_entropy=None, roller_source=None,
                       requested_at=None, voided_at="2026-12-02T12:00:05.000000Z")
    audit_b = {"match_id": MATCH_ID,
               "rolls": [unrecorded, entry(1, "rol_b", "requested", LINKS[0])]}
    show(page, server, rolling(pending_roll=pending("rol_b", LINKS[0], 2)), audit_b)
    assert TEXTS["void_after_request"] in verdict_title(page, "rol_a")
    assert "rol_a" in page.inner_text(".dice-alert")
    context.close()


def test_a_roll_voided_with_its_game_is_not_a_reroll(browser, static_url):
    """Ann asked to roll rol_a and bob's device sent its link; before the dice were revealed
    the game ended (ann resigned during the wait), and the record goes on with the next
    game's opening roll: rol_a is void after its request with a roll after it, as in a busy
    reroll, but that roll opens a new game: no ✗. A normal roll in its place (the same turn
    rolled again) is still ✗ void_after_request."""
    context, page = bobs_page(browser, static_url, 800, 900)
    first = rolling(pending_roll=pending("rol_a", LINKS[0], 1))
    audit_a = {"match_id": MATCH_ID, "rolls": [entry(0, "rol_a", "requested", LINKS[0])]}
    server = Server(page, first, audit_a)
    documents: list[str] = []
    page.on("request", lambda r: documents.append(r.url)
            if r.url.endswith(f"/api/audit/{MATCH_ID}") else None)
    show(page, server, first, audit_a)
    assert wait_sent(page, server, 1) == [("rol_a", LINKS[1])]

    voided = entry(0, "rol_a", "void", LINKS[0], voided_at="2026-12-02T12:00:02.000000Z")
    opening = entry(1, "rol_b", "committed", LINKS[0], kind="opening", roller_entropy=None,
                    roller_source=None, requested_at=None)
    new_game = make_state(Board.initial(), on_roll=0, you=1, phase="opening",
                          dice_protocol="v2", game_number=2,
                          pending_roll=pending("rol_b", LINKS[0], 2) | {"state": "committed",
                                                                        "kind": "opening"})
    show(page, server, new_game, {"match_id": MATCH_ID, "rolls": [voided, opening]})
    for _ in range(100):  # the page looked rol_a up in the audit document
        if documents:
            break
        page.wait_for_timeout(100)
    assert documents
    page.wait_for_timeout(500)
    assert page.locator('.dice-log .verdict[data-verdict="failed"]').count() == 0
    assert page.locator(".dice-alert").count() == 0 or "rol_a" not in page.inner_text(
        ".dice-alert")

    # The same void followed by a normal roll of the same game: a reroll, flagged.
    reroll = {**opening, "kind": "normal"}
    show(page, server, rolling(pending_roll=pending("rol_b", LINKS[0], 2)
                               | {"state": "committed"}),
         {"match_id": MATCH_ID, "rolls": [voided, reroll]})
    assert TEXTS["void_after_request"] in verdict_title(page, "rol_a")
    context.close()



KEY = Ed25519PrivateKey.generate()


class LoggedServer(Server):
    """Server whose proof of a roll at seq 0 is a real one: its entry hashed, one leaf, a head
    signed with KEY (the log's key at its address), so a roll can show ✓ (or ⚠)."""

    def handle(self, route, request):
        path = re.sub(r"^https?://[^/]+", "", request.url)
        if path == "/api/log/public-key":
            return self.json(route, {"public_key": KEY.public_key().public_bytes(
                serialization.Encoding.Raw, serialization.PublicFormat.Raw).hex()})
        if "/proof?after=" in path:
            roll = dict(self.audit["rolls"][0], prev_hash="0" * 64)
            roll["entry_hash"] = entry_hash_v2(MATCH_ID, roll)
            # At the record's time of the change, as every leaf is (the device checks it).
            leaf = leaf_bytes(roll["state"], roll | {"match_id": MATCH_ID},
                              leaf_time(roll[EVENT_TIMES[roll["state"]]]))
            root = root_of([leaf_hash(leaf)])
            head = {"format": "boardgammon-log-head-v1", "tree_size": 1, "timestamp": 1,
                    "root_hash": root.hex(), "signature": KEY.sign(head_bytes(1, 1, root)).hex()}
            roll["log"] = [{"index": 0, "event": roll["state"], "leaf": leaf.decode(),
                            "inclusion_path": []}]
            return self.json(route, {"match_id": MATCH_ID, "roll": roll, "preceding": [],
                                     "covered": True, "retry_after": None,
                                     "log": {"head": head, "public_key": KEY.public_key()
                                             .public_bytes(serialization.Encoding.Raw,
                                                           serialization.PublicFormat.Raw)
                                             .hex()}})
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
