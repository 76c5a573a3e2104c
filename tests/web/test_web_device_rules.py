"""The device's v2 checks against four ways around them (docs/fair-dice.md §The device's
check, the second review's items), in Chromium with the server stood in by Playwright routing
(test_web_dice_links.Server): a v2 match relabelled v1 is ✗ ``protocol_downgraded``, also after
a reload; a void roll followed by an ``opening`` roll is judged by the first state that showed
the roll gone, not by the state the device checks in; two tabs' saves keep each other's links
and the earliest time a link left; an anchor-log check that failed on this device is tried
again."""

from __future__ import annotations

import hashlib
import json
import re

import pytest
from test_web_anchor_log import KEY as LOG_KEY
from test_web_anchor_log import MATCH, proofs, public_hex
from test_web_dice_links import (
    ENTROPY,
    LINKS,
    SEED,
    TEXTS,
    VOID_REST,
    LoggedServer,
    Server,
    bobs_page,
    entry,
    link_sent_for_rol_a,
    nothing_failed_once_looked_up,
    pending,
    record,
    rolling,
    show,
    verdict_title,
    wait_sent,
)
from test_web_dice_requests import KNOWN, socket_page, stored_known
from webstate import MATCH_ID, make_state, revealed_roll

from boardgammon.dice.verify import derive_dice_v2
from boardgammon.engine import Board

pytestmark = pytest.mark.browser

DOWNGRADED = ("this device saw this match as one with v2 dice (the opponent's device adds its "
              "part to every roll), and the server now shows it, or this roll, as v1")
SHOWN = ("roll_id", "seat", "nonce", "commitment", "server_seed", "dice", "kind",
         "roller_entropy", "roller_source", "opponent_prev_link", "opponent_entropy",
         "opponent_source")


def spectators_page(browser, static_url):
    """A page in English with nothing stored: no chain (a spectator's). (context, page)"""
    context = browser.new_context(viewport={"width": 800, "height": 900})
    page = context.new_page()
    page.base = static_url
    page.add_init_script("localStorage.setItem('bg.lang', 'en')")
    return context, page


def revealed_v2() -> tuple[dict, dict]:
    """Ann's rol_a revealed, v2 (bob's device absent): (its `rolls[]` entry, its audit entry)."""
    dice = list(derive_dice_v2(SEED, MATCH_ID, "rol_a", 7, "normal", ENTROPY, None))
    played = entry(0, "rol_a", "played", LINKS[0], server_seed=SEED.hex(), dice=dice,
                   opponent_source="absent", revealed_at="2026-12-02T12:00:03.000000Z",
                   played_at="2026-12-02T12:00:04.000000Z")
    return {k: played[k] for k in SHOWN}, played


def v1_state(**extra) -> dict:
    """A spectator's state of the match labelled v1 (the state builder's default), with a
    v1-shaped revealed roll rol_v1 (no ``kind``, no link)."""
    roll = revealed_roll("rol_v1", 0, 3, SEED, ENTROPY)
    return make_state(Board.initial(), on_roll=0, you=None, phase="roll", rolls=[roll], **extra)


def verdict_of(page, roll_id: str) -> str:
    mark = page.locator(f'.dice-log li[data-roll="{roll_id}"] .verdict:not(.pending)')
    mark.wait_for(state="attached", timeout=15_000)
    return mark.get_attribute("data-verdict") or ""


def test_a_v2_match_relabelled_v1_is_a_downgrade(browser, static_url):
    """A spectator's device sees the match as v2 (a pending roll with v2 fields, the state
    saying v2) and keeps that. The server then labels the match v1: its v2 roll shows ✗
    protocol_downgraded (it showed ✓, checked as v2 with the state's word), and after a
    reload a v1-shaped roll in a state with nothing v2 about it does too (it showed ✓, checked
    as v1). A match that was v1 from the start is checked as v1, ✓."""
    context, page = spectators_page(browser, static_url)
    committed = make_state(Board.initial(), on_roll=0, you=None, phase="roll",
                           dice_protocol="v2",
                           pending_roll=pending("rol_a", LINKS[0], 1) | {"state": "committed"})
    server = LoggedServer(page, committed, {"match_id": MATCH_ID, "rolls": []})
    show(page, server, committed, server.audit)
    page.wait_for_function("(key) => (JSON.parse(localStorage.getItem(key) || '{}').$match || {})"
                           ".dice_protocol === 'v2'", arg=KNOWN)

    shown, played = revealed_v2()
    relabelled = make_state(Board.initial(), on_roll=1, you=None, phase="roll",
                            dice_protocol="v1", rolls=[shown])
    show(page, server, relabelled, {"match_id": MATCH_ID, "rolls": [played]})
    assert DOWNGRADED in verdict_title(page, "rol_a")
    assert "rol_a" in page.inner_text(".dice-alert")

    # Reloaded: nothing in this state is v2, only what the device kept says so.
    show(page, server, v1_state(), {"match_id": MATCH_ID, "rolls": []})
    assert DOWNGRADED in verdict_title(page, "rol_v1")
    context.close()

    context, page = spectators_page(browser, static_url)
    server = LoggedServer(page, v1_state(), {"match_id": MATCH_ID, "rolls": []})
    show(page, server, v1_state(), server.audit)
    assert verdict_of(page, "rol_v1") == "ok"
    assert "$match" not in stored_known(page)
    context.close()


def test_a_chain_of_the_match_holds_it_to_v2(browser, static_url):
    """Bob's device keeps a chain for the match (made only for a v2 match): a state that
    calls the match v1 from the page's first load on still has its v1-shaped roll ✗
    protocol_downgraded."""
    context, page = bobs_page(browser, static_url, 800, 900)
    state = v1_state() | {"you": 1}
    server = LoggedServer(page, state, {"match_id": MATCH_ID, "rolls": []})
    show(page, server, state, server.audit)
    assert DOWNGRADED in verdict_title(page, "rol_v1")
    context.close()


class FlakyRecord(Server):
    """Server whose audit document answers 503 while ``failing``; ``documents`` counts the
    reads answered."""

    failing = True

    def __init__(self, page, state, audit):
        self.documents: list[str] = []
        super().__init__(page, state, audit)

    def handle(self, route, request):
        path = re.sub(r"^https?://[^/]+", "", request.url)
        if path == f"/api/audit/{MATCH_ID}":
            if self.failing:
                return self.json(route, {"error": {"code": "unavailable", "message": "busy"}},
                                 503)
            self.documents.append(path)
        return super().handle(route, request)


@pytest.mark.parametrize(("game_first_seen", "flagged"), [(1, True), (2, False)],
                         ids=["same-game", "next-game"])
def test_the_game_is_settled_by_the_first_state_past_the_roll(browser, static_url,
                                                              game_first_seen, flagged):
    """Bob's device sent its link for rol_a in game 1. The next state shows rol_a gone and
    rol_b, labelled ``opening``, pending in game ``game_first_seen``; the match's record cannot
    be read then. The device looks rol_a up only after a reload on the match's end (a state
    of game 2): a reroll of the same game labelled ``opening`` is ✗ void_after_request (it
    was spared, the match being over by then); a roll whose game had ended is not."""
    page, _, _ = link_sent_for_rol_a(browser, static_url)
    voided = entry(0, "rol_a", "void", LINKS[0], voided_at="2026-12-02T12:00:02.000000Z")
    opening = entry(1, "rol_b", "committed", LINKS[0], kind="opening", roller_entropy=None,
                    roller_source=None, requested_at=None)
    audit = record(voided, opening)
    next_roll = make_state(Board.initial(), on_roll=0, you=1, phase="opening",
                           dice_protocol="v2", game_number=game_first_seen,
                           pending_roll=pending("rol_b", LINKS[0], 2)
                           | {"state": "committed", "kind": "opening"})
    server = FlakyRecord(page, next_roll, audit)
    show(page, server, next_roll, audit)
    page.wait_for_function("(key) => (JSON.parse(localStorage.getItem(key) || '{}').rol_a || {})"
                           ".passed_game !== undefined", arg=KNOWN)
    page.wait_for_timeout(300)
    assert stored_known(page)["rol_a"]["passed_game"] == game_first_seen
    assert page.locator('.dice-log .verdict[data-verdict="failed"]').count() == 0

    server.failing = False
    over = make_state(Board.initial(), on_roll=0, you=1, phase="match_over",
                      dice_protocol="v2", game_number=2)
    show(page, server, over, audit)
    if flagged:
        assert verdict_title(page, "rol_a") == TEXTS["void_after_request"] + VOID_REST
    else:
        nothing_failed_once_looked_up(page, server.documents)
    page.context.close()


def test_a_link_sent_without_a_game_number_is_held_to_its_game(browser, static_url):
    """The state that asked for bob's link gave no game number: the device keeps ``null``
    with the link, and a void rol_a followed by an ``opening`` roll is ✗ void_after_request
    even where the next state shows game 2 (nothing says in which game the link was sent;
    without a game kept, the kinds used to decide and it was spared)."""
    context, page = bobs_page(browser, static_url, 800, 900)
    asked = rolling(pending_roll=pending("rol_a", LINKS[0], 1))
    del asked["game_number"]
    server = Server(page, asked, record(entry(0, "rol_a", "requested", LINKS[0])))
    show(page, server, asked, server.audit)
    assert wait_sent(page, server, 1) == [("rol_a", LINKS[1])]
    page.wait_for_function("(key) => (JSON.parse(localStorage.getItem(key) || '{}').rol_a || {})"
                           ".link !== undefined", arg=KNOWN)
    assert stored_known(page)["rol_a"]["game_number"] is None
    voided = entry(0, "rol_a", "void", LINKS[0], voided_at="2026-12-02T12:00:02.000000Z")
    opening = entry(1, "rol_b", "committed", LINKS[0], kind="opening", roller_entropy=None,
                    roller_source=None, requested_at=None)
    new_game = make_state(Board.initial(), on_roll=0, you=1, phase="opening",
                          dice_protocol="v2", game_number=2,
                          pending_roll=pending("rol_b", LINKS[0], 2)
                          | {"state": "committed", "kind": "opening"})
    show(page, server, new_game, record(voided, opening))
    assert verdict_title(page, "rol_a") == TEXTS["void_after_request"] + VOID_REST
    context.close()


TWO_TABS = """async (arg) => {
  const dc = await import('/static/dicechain.js');
  const key = "bg.chain." + arg.match;
  localStorage.setItem(key, JSON.stringify({ seed: arg.seed, length: arg.length,
    registered: true }));
  const stored = () => JSON.parse(localStorage.getItem(key));
  const asked = (rollId, steps) => ({ you: 1, game_number: 1, pending_roll: {
    roll_id: rollId, seat: 0, state: "requested", opponent_prev_link: arg.anchor,
    opponent_link_steps: steps, roller_entropy_sha256: arg.hash } });
  // Two pages of the match, each with its copy of the store as it was when it loaded.
  const a = new dc.DeviceChain(arg.match);
  const b = new dc.DeviceChain(arg.match);
  await a.ready;
  await b.ready;
  await a.answer(asked("rol_1", 1), {});
  // b's copy knows nothing of rol_1; its check of the log saves it, and its anchor's
  // answer (a 200 that proves nothing yet: no answer time), with it.
  b.stored.anchor_log = "ok";
  b.stored.accepted = true;
  b.stored.anchor_sent_at = 50;
  b.save();
  const afterB = stored();
  await b.answer(asked("rol_2", 2), {});
  // a's copy knows nothing of rol_2, nor of b's anchor; it kept an anchor pair that proves
  // the server had it, sent later than b's first send.
  a.stored.anchor_index = 1;
  a.stored.anchor_sent_at = 100;
  a.stored.anchor_answered_at = 200;
  a.save();
  return { afterB, last: stored() };
}"""


def test_two_tabs_keep_each_others_links(module_page):
    """Two pages of the match on one device (two tabs) each save the chain's store from their
    own copy. A copy that missed the other tab's link no longer drops it: ``sent`` is united,
    ``highest`` the larger, ``accepted`` stays, the anchor's times are the earliest pair that
    proves the server had it, and each link's first departure (``sent_at``) is kept. A stale
    save used to write its copy over the other's: the next roll could ask for a link sent
    already and get it."""
    def actions(route, request):
        route.fulfill(status=200, content_type="application/json",
                      body=json.dumps({"state": None, "events": []}))

    module_page.route("**/api/matches/*/actions", actions)
    got = module_page.evaluate(TWO_TABS, {
        "match": MATCH, "seed": LINKS[-1], "length": len(LINKS) - 1, "anchor": LINKS[0],
        "hash": hashlib.sha256(ENTROPY).hexdigest()})
    after_b, last = got["afterB"], got["last"]
    assert after_b["sent"] == {"rol_1": 1} and after_b["highest"] == 1
    assert after_b["anchor_log"] == "ok"
    assert last["sent"] == {"rol_1": 1, "rol_2": 2} and last["highest"] == 2
    assert set(last["sent_at"]) == {"rol_1", "rol_2"}
    assert last["sent_at"]["rol_1"] == after_b["sent_at"]["rol_1"]
    assert [last["anchor_log"], last["anchor_index"], last["accepted"]] == ["ok", 1, True]
    assert [last["anchor_sent_at"], last["anchor_answered_at"]] == [100, 200]


def test_a_second_tab_keeps_the_first_departure_of_a_link(browser, static_url):
    """Bob has two tabs on the match. The first sends its link for rol_a; the second, which
    loaded before, is then shown the same request and sends the same link again (a retry of
    the same roll). The link's departure stays the first tab's, in ``known`` and with the
    chain: the later one replaced it, and a roll revealed without the link in between showed
    ✗ link_dropped where the first tab showed ⚠ link_late."""
    committed = rolling(pending_roll=pending("rol_a", LINKS[0], 1) | {"state": "committed"})
    context, late, late_server, socket, _ = socket_page(browser, static_url, committed)
    first = context.new_page()
    first.base = static_url
    requested = rolling(version=committed["version"] + 1,
                        pending_roll=pending("rol_a", LINKS[0], 1))
    first_server = Server(first, requested, {"match_id": MATCH_ID, "rolls": []})
    show(first, first_server, requested, first_server.audit)
    assert wait_sent(first, first_server, 1) == [("rol_a", LINKS[1])]
    first.wait_for_function("(key) => Number.isFinite((JSON.parse(localStorage.getItem(key) "
                            "|| '{}').rol_a || {}).link_sent_at)", arg=KNOWN)
    left = stored_known(first)["rol_a"]["link_sent_at"]
    first.wait_for_timeout(300)

    socket.send(json.dumps({"type": "state", "state": requested}))
    assert wait_sent(late, late_server, 1) == [("rol_a", LINKS[1])]
    late.wait_for_timeout(500)
    assert stored_known(late)["rol_a"]["link_sent_at"] == left
    chain = late.evaluate("(k) => JSON.parse(localStorage.getItem(k))", f"bg.chain.{MATCH_ID}")
    assert chain["sent"] == {"rol_a": 1} and chain["sent_at"]["rol_a"] == left
    context.close()


def test_the_chain_store_gives_the_links_time_too(browser, static_url):
    """Bob's device sent its link for rol_a; ``known`` then lost the link and its time. The
    chain's store gives both, so rol_a, revealed without the link before it left (this device
    was late), is ⚠ link_late: the link used to come without its time, and the roll was ✗
    link_dropped."""
    page, server, _ = link_sent_for_rol_a(browser, static_url)
    page.wait_for_function("(key) => (JSON.parse(localStorage.getItem(key) || '{}').rol_a || {})"
                           ".link !== undefined", arg=KNOWN)
    dice = list(derive_dice_v2(SEED, MATCH_ID, "rol_a", 7, "normal", ENTROPY, None))
    played = entry(0, "rol_a", "played", LINKS[0], server_seed=SEED.hex(), dice=dice,
                   opponent_source="absent", revealed_at="2026-01-01T00:00:00.000000Z",
                   played_at="2026-01-01T00:00:01.000000Z")
    state, audit = rolling(rolls=[{k: played[k] for k in SHOWN}]), {"match_id": MATCH_ID,
                                                                     "rolls": [played]}
    server = LoggedServer(page, state, audit)
    page.add_init_script(f"""(() => {{  // the page's known before the reload, as lost
        const known = JSON.parse(localStorage.getItem('{KNOWN}') || '{{}}');
        if (known.rol_a) {{
            delete known.rol_a.link; delete known.rol_a.link_sent_at;
            localStorage.setItem('{KNOWN}', JSON.stringify(known));
        }}
    }})()""")
    show(page, server, state, audit)
    mark = page.locator('.dice-log li[data-roll="rol_a"] .verdict:not(.pending)')
    mark.wait_for(state="attached", timeout=15_000)
    assert mark.get_attribute("data-verdict") == "warned"
    assert (mark.get_attribute("title") or "").startswith(TEXTS["link_late"])
    page.context.close()


FAIL_ONE_SAVE = """async (arg) => {
  const dc = await import('/static/dicechain.js');
  localStorage.removeItem("bg.chain." + arg.match);
  const chain = new dc.DeviceChain(arg.match);
  const save = chain.save.bind(chain);
  let failures = 0;
  chain.save = () => {  // the save of the log's answer fails once
    if (chain.stored[arg.field] !== undefined && failures === 0) {
      failures += 1;
      throw new Error("the store could not be written");
    }
    save();
  };
  let first = "resolved";
  try {
    await chain.register({ dice_protocol: "v2", you: 1, phase: "roll" });
  } catch {
    first = "rejected";
  }
  const check = arg.field === "anchor_log" ? () => chain.checkAnchor(1) : () => chain.checkSeat(1);
  const again = await check().then((read) => read, () => "rejected");
  const kept = JSON.parse(localStorage.getItem("bg.chain." + arg.match));
  return [failures, first, again, chain.stored[arg.field] ?? null, kept[arg.field] ?? null];
}"""


@pytest.mark.parametrize("field", ["anchor_log", "seat_log"], ids=["anchor", "seat"])
def test_an_anchor_log_check_that_failed_is_tried_again(module_page, field):
    """The device's look in the log for its anchor (200: ``checkAnchor``) or for its seat's
    chain (409 anchor_registered: ``checkSeat``) fails on this device once (its save throws):
    the next check reads the log again and keeps what it says. The failed check's promise was
    kept, rejected, and every later check of the rolls waited on it ("…" for the page's
    life)."""
    def actions(route, request):
        if field == "anchor_log":
            route.fulfill(status=200, content_type="application/json",
                          body=json.dumps({"events": [{"type": "anchor", "seat": 1}]}))
        else:
            route.fulfill(status=409, content_type="application/json",
                          body=json.dumps({"error": {"code": "anchor_registered",
                                                     "message": "registered already"}}))

    def anchors(route, request):
        route.fulfill(status=200, content_type="application/json",
                      body=json.dumps(proofs(registered[0], "honest")))

    registered: list[str] = []

    def remember(route, request):
        registered.append(request.post_data_json["anchor"])
        actions(route, request)

    def key(route, request):
        route.fulfill(status=200, content_type="application/json",
                      body=json.dumps({"public_key": public_hex(LOG_KEY)}))

    module_page.route("**/api/matches/*/actions", remember)
    module_page.route(f"**/api/audit/{MATCH}/anchors", anchors)
    module_page.route("**/api/log/public-key", key)
    failures, first, again, held, kept = module_page.evaluate(FAIL_ONE_SAVE,
                                                              {"match": MATCH, "field": field})
    assert failures == 1
    assert first == "resolved"  # the registration's check failed: no rejection
    assert [again, held] == [True, "ok"]
    if field == "anchor_log":  # read again and saved (the seat's answer, kept in memory,
        assert kept == "ok"    # is not read again: it goes with the next save)
