"""A server that had the device's anchor cannot silence its chain by how it answers
(web/dicechain.js, docs/fair-dice.md §The device's check): the device keeps when the attempt
whose answer proves the server received the anchor left (``anchor_sent_at``, its clock, just
before that POST) and when that answer came back (``anchor_answered_at``), and a revealed roll
where it is the opponent that says ``none`` for its seat and was requested more than
``ANCHOR_FLIGHT_MS`` after that shows ✗ ``anchor_silenced`` where the answer proves the server
had it: 409 ``anchor_registered`` with no other chain for the seat, or a 200 that took more
than ``ANCHOR_FLIGHT_MS`` to come back (held back, so that the log puts the anchor's leaf after
the roll's request). A 5xx or no answer proves nothing (an honest server may never have had
the anchor): no flag; a quick 200 leaves the rolls to the log's order (chain_skipped). In
Chromium."""

from __future__ import annotations

import json
import time

import pytest
import test_web_anchor_log as anchor_log
import test_web_dice_links as on_page
from test_web_anchor_log import MATCH, none_roll, stand_in

from boardgammon.dice.verify import derive_dice_v2

pytestmark = pytest.mark.browser

REGISTERED = (409, {"error": {"code": "anchor_registered", "message": "registered already"}})
BUSY = (503, {"error": {"code": "unavailable", "message": "busy"}})

# Register this device's chain for seat 1 (``arg.tries`` times, as the match page does with
# each state; ``arg.reloadAfter``: a new DeviceChain, a reload, after that many); where
# ``arg.answeredAfter`` is a number, the stored answer's time is set to that many ms after
# ``anchor_sent_at`` (a 200 held back that long, without waiting), where null it is removed (a
# store written by the old code); then check each of ``arg.rolls`` (`none` rolls of seat 0,
# their `requested_at` in ms after the kept ``anchor_sent_at``, ``after_ms``, or after the first
# try's start, ``after_first_ms``, or an ISO text) with its leaves (``arg.leaves``: committed,
# requested; the anchor's left out). Returns [anchor_sent_at per try, [problems, unsettled] per
# roll, stored, ANCHOR_FLIGHT_MS, each try's start].
CHECK = """async (arg) => {
  const dc = await import('/static/dicechain.js');
  localStorage.removeItem("bg.chain." + arg.match);
  let chain = new dc.DeviceChain(arg.match);
  const sent = [];
  const left = [];
  for (let i = 0; i < arg.tries; i++) {
    if (i === arg.reloadAfter) {
      chain = new dc.DeviceChain(arg.match);
      await chain.ready;
    }
    left.push(Date.now());
    await chain.register({ dice_protocol: "v2", you: 1, phase: "roll" });
    sent.push(JSON.parse(localStorage.getItem("bg.chain." + arg.match)).anchor_sent_at ?? null);
    await new Promise((done) => { setTimeout(done, arg.pause); });
  }
  if (arg.answeredAfter !== undefined) {
    const kept = JSON.parse(localStorage.getItem("bg.chain." + arg.match));
    if (arg.answeredAfter === null) delete kept.anchor_answered_at;
    else kept.anchor_answered_at = kept.anchor_sent_at + arg.answeredAfter;
    localStorage.setItem("bg.chain." + arg.match, JSON.stringify(kept));
  }
  const reloaded = new dc.DeviceChain(arg.match);  // what a reload holds
  await reloaded.ready;
  const first = reloaded.stored.anchor_sent_at ?? left[0];
  const iso = (ms) => new Date(ms).toISOString().replace("Z", "000Z");
  const leaves = (arg.leaves || []).map((leaf, index) => ({ leaf, index,
    event: JSON.parse(leaf).event })).filter((e) => e.event !== "anchor");
  const verdicts = [];
  for (const r of arg.rolls) {
    const at = r.after_ms !== undefined ? iso(first + r.after_ms)
      : r.after_first_ms !== undefined ? iso(left[0] + r.after_first_ms) : r.requested_at;
    const entry = { ...r.roll, requested_at: at, log: leaves };
    const v = await dc.checkRollV2InRecord(arg.match, r.roll, null, [entry], reloaded, 1);
    verdicts.push([v.problems, v.unsettled === true]);
  }
  return [sent, verdicts, reloaded.stored, dc.ANCHOR_FLIGHT_MS, left];
}"""


def answering(page, answers, delay_s: float = 0.0) -> list[dict]:
    """The anchor's posts answered with ``answers`` in turn (status, body), the last again
    for ever; an answer of None passes the post on to the routes set before (stand_in's 200).
    ``delay_s``: each answer held back this long. The posts, a list that grows."""
    posted: list[dict] = []

    def handle(route, request):
        posted.append(request.post_data_json)
        answer = answers[min(len(posted), len(answers)) - 1]
        if delay_s:
            time.sleep(delay_s)
        if answer is None:
            route.fallback()
            return
        status, body = answer
        route.fulfill(status=status, content_type="application/json", body=json.dumps(body))

    page.route("**/api/matches/*/actions", handle)
    return posted


def check(page, rolls, tries=1, reload_after=-1, pause_ms=0, late=False, **answered_after):
    """CHECK's answer; ``answered_after=ms`` (or None) sets (removes) ``anchor_answered_at``."""
    extra = {"answeredAfter": answered_after["answered_after"]} if answered_after else {}
    return page.evaluate(CHECK, {
        "match": MATCH, "rolls": rolls, "tries": tries, "reloadAfter": reload_after,
        "pause": pause_ms, **extra,
        "leaves": [leaf.decode() for leaf in anchor_log.log_leaves("00" * 32, late)]})


def test_an_anchor_answered_anchor_registered_does_not_silence_the_device(module_page):
    """The server answers the anchor 409 anchor_registered (another device of the player, it
    says), and rolls ``none`` for the seat: a roll requested well after the anchor left is ✗
    anchor_silenced (the device used to take the answer's word and flag nothing); one
    requested before it left, or within ANCHOR_FLIGHT_MS after, is not."""
    answering(module_page, [REGISTERED])
    sent, verdicts, stored, flight, left = check(module_page, [
        {"roll": none_roll(), "requested_at": "2026-01-01T00:00:00.000000Z"},
        {"roll": none_roll(), "after_ms": 1_000},
        {"roll": none_roll(), "after_ms": 31_000},
        {"roll": none_roll(), "requested_at": None},
    ])
    assert flight == 30_000
    assert isinstance(sent[0], int) and sent[0] >= left[0]
    assert stored["anchor_answered_at"] >= sent[0]
    assert stored["registered"] is True and "accepted" not in stored
    assert verdicts == [[[], False], [[], False], [["anchor_silenced"], False],
                        [["anchor_silenced"], False]]


def logged(page, answer: dict) -> list[int]:
    """GET /api/audit/{MATCH}/anchors answered with ``answer``, the log's key with its own;
    the reads, a list that grows."""
    reads: list[int] = []

    def anchors(route, request):
        reads.append(1)
        route.fulfill(status=200, content_type="application/json", body=json.dumps(answer))

    def key(route, request):
        route.fulfill(status=200, content_type="application/json",
                      body=json.dumps({"public_key": anchor_log.public_hex(anchor_log.KEY)}))

    page.route(f"**/api/audit/{MATCH}/anchors", anchors)
    page.route("**/api/log/public-key", key)
    return reads


@pytest.mark.parametrize(
    ("shown", "problems"),
    [("other", []), ("none", ["anchor_unlogged"]), ("another", ["link_chain_broken"])],
    ids=["the-other-devices-leaf", "no-leaf-of-the-seat", "a-leaf-of-another-chain"],
)
def test_an_anchor_registered_by_another_device_of_the_player_is_no_flag(module_page, shown,
                                                                        problems):
    """The honest counterpart: 409 anchor_registered, the log holds the other device's anchor
    leaf for the seat, and the record's rolls where the player is the opponent take that chain
    (its anchor, then its links): no ✗ on this device, however long after its own anchor left.
    A log with no leaf of the seat leaves the answer without ground: the roll takes a chain
    nobody can see (✗ anchor_unlogged); a leaf of another anchor is the seat's chain, which
    the roll does not continue (✗ link_chain_broken)."""
    answering(module_page, [REGISTERED])
    other = on_page.LINKS
    reads = logged(module_page, anchor_log.proofs(
        "11" * 32 if shown == "another" else other[0],
        "left_out" if shown == "none" else "honest"))
    seed, entropy = bytes(range(32)), bytes(16)
    taking = none_roll() | {
        "opponent_prev_link": other[0], "opponent_entropy": other[1],
        "opponent_source": "client",
        "dice": list(derive_dice_v2(seed, MATCH, "rol_0001", 0, "normal", entropy,
                                    bytes.fromhex(other[1])))}
    _, verdicts, stored, _, _ = check(module_page, [{"roll": taking, "after_ms": 60_000}])
    assert verdicts == [[problems, False]]
    assert stored["other_chain"] is True and len(reads) == 1
    assert stored["seat_log"] == ("anchor_unlogged" if shown == "none" else "ok")


def test_an_anchor_answered_5xx_for_ever_flags_nothing(module_page):
    """Every post of the anchor is answered 503: the device tries again with each state, and
    nothing proves the server ever had the anchor (an honest server down, or the post lost on
    its way, rolls ``none`` for the seat): no time is kept and no ``none`` roll is ✗
    anchor_silenced, however long after the first try it was requested."""
    posted = answering(module_page, [BUSY])
    sent, verdicts, stored, _, _ = check(module_page, [
        {"roll": none_roll(), "after_first_ms": -5_000},
        {"roll": none_roll(), "after_first_ms": 31_000},
        {"roll": none_roll(), "after_first_ms": 120_000},
        {"roll": none_roll(), "requested_at": None},
    ], tries=3, pause_ms=20)
    assert len(posted) == 3 and len({p["anchor"] for p in posted}) == 1
    assert sent == [None, None, None]
    assert "anchor_sent_at" not in stored and "anchor_answered_at" not in stored
    assert stored["registered"] is False
    assert verdicts == [[[], False]] * 4


def test_an_anchor_held_back_does_not_spare_the_rolls_in_between(module_page):
    """The server holds the anchor's 200 back (its answer came more than ANCHOR_FLIGHT_MS after
    the post left, by the device's own clock: set in the store, not waited for) and logs the
    anchor's leaf after the request of a ``none`` roll (the late anchor's order, which spares
    the roll chain_skipped): requested more than ANCHOR_FLIGHT_MS after the anchor left, it is
    ✗ anchor_silenced; the honest late anchor's rolls (requested before it left, or within the
    flight) stay clean."""
    stand_in(module_page, "honest", late=True)
    answering(module_page, [None], delay_s=0.5)
    sent, verdicts, stored, _, _ = check(module_page, [
        {"roll": none_roll(), "requested_at": "2026-12-03T10:00:02.000000Z"},
        {"roll": none_roll(), "after_ms": 500},
        {"roll": none_roll(), "after_ms": 29_999},
        {"roll": none_roll(), "after_ms": 30_001},
        {"roll": none_roll(), "after_ms": 120_000},
    ], late=True, answered_after=30_001)
    assert (stored["accepted"], stored["anchor_log"], stored["anchor_index"]) == (True, "ok", 2)
    assert stored["anchor_answered_at"] - stored["anchor_sent_at"] == 30_001
    assert verdicts == [[[], False], [[], False], [[], False], [["anchor_silenced"], False],
                        [["anchor_silenced"], False]]


def test_a_quick_200_with_the_device_clock_behind_leaves_the_log_order_to_judge(module_page):
    """A 200 answered at once (well within ANCHOR_FLIGHT_MS; here the answer held 0.5 s) and a
    device clock behind the server's: a ``none`` roll whose hashed ``requested_at`` is more
    than ANCHOR_FLIGHT_MS after ``anchor_sent_at`` by the device's clock, yet whose request
    the log puts before the anchor's leaf (a late anchor), is honest: no flag."""
    stand_in(module_page, "honest", late=True)
    answering(module_page, [None], delay_s=0.5)
    sent, verdicts, stored, _, _ = check(module_page, [
        {"roll": none_roll(), "after_ms": 30_001},
        {"roll": none_roll(), "after_ms": 120_000},
    ], late=True)
    assert stored["accepted"] is True and stored["anchor_index"] == 2
    assert 0 <= stored["anchor_answered_at"] - stored["anchor_sent_at"] < 30_000
    assert verdicts == [[[], False], [[], False]]


@pytest.mark.parametrize("answer", ["accepted", "registered"])
def test_a_store_of_the_old_code_flags_nothing_by_the_time(module_page, answer):
    """A store written before ``anchor_answered_at`` (``anchor_sent_at`` the first send,
    whatever its answer) cannot tell what the kept time proves: no roll is ✗ anchor_silenced
    by it, after a 200 (the log's order judges: here a late anchor, clean) or a 409."""
    if answer == "accepted":
        stand_in(module_page, "honest", late=True)
    else:
        answering(module_page, [REGISTERED])
    _, verdicts, stored, _, _ = check(module_page, [
        {"roll": none_roll(), "after_ms": 31_000},
        {"roll": none_roll(), "after_ms": 120_000},
    ], late=True, answered_after=None)
    assert isinstance(stored["anchor_sent_at"], int) and "anchor_answered_at" not in stored
    assert verdicts == [[[], False], [[], False]]


def test_a_roll_after_the_anchor_in_the_log_stays_chain_skipped(module_page):
    """Where the log already says chain_skipped (the roll's request after the anchor's leaf)
    the roll gets that one code, not anchor_silenced besides: one implies the other (here the
    200 counted as held back, so that the time rule applies too)."""
    stand_in(module_page, "honest", late=False)
    _, verdicts, _, _, _ = check(module_page, [{"roll": none_roll(), "after_ms": 60_000}],
                                 answered_after=30_001)
    assert verdicts == [[["chain_skipped"], False]]


def test_the_time_kept_is_the_accepted_sends_across_a_reload(module_page):
    """The anchor's first post is answered 503, the page reloads (a new DeviceChain on the
    stored chain), the next post 503 again, the third 200: the 503s keep nothing, and
    ``anchor_sent_at`` is the accepted post's departure. A ``none`` roll requested more than
    ANCHOR_FLIGHT_MS after the first post (but within it of the accepted one) is clean; with
    the 200 held back (set in the store), one requested more than ANCHOR_FLIGHT_MS after the
    accepted post left is ✗ anchor_silenced, its log order notwithstanding."""
    stand_in(module_page, "honest", late=True)
    posted = answering(module_page, [BUSY, BUSY, None])
    sent, verdicts, stored, _, left = check(module_page, [
        {"roll": none_roll(), "after_first_ms": 30_100},
        {"roll": none_roll(), "after_ms": 29_999},
        {"roll": none_roll(), "after_ms": 30_001},
    ], tries=3, reload_after=1, pause_ms=300, late=True, answered_after=30_001)
    assert len(posted) == 3 and len({p["anchor"] for p in posted}) == 1
    assert sent[:2] == [None, None] and isinstance(sent[2], int) and sent[2] >= left[2] > left[0]
    assert stored["anchor_sent_at"] == sent[2] and stored["accepted"] is True
    assert verdicts == [[[], False], [[], False], [["anchor_silenced"], False]]
