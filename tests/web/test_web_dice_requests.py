"""The match page's device and a v2 roll's request (issue #25 review), in Chromium with the
server stood in by Playwright routing (test_web_dice_links.Server): a void roll followed by a
roll of the same game labelled ``opening`` is a reroll; a link sent while the chain was still
being computed after a reload is kept (and the chain's store backs up ``known``); a request
for another roll than the one shown reads the state again; a ``clock`` event is folded in only
with its request; a second request with another hash is marked on the page that sent the
link; no Resign while a requested roll waits for the link."""

from __future__ import annotations

import hashlib
import json
import re

import pytest
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
    rolled_again_on_roll,
    rolling,
    show,
    verdict_title,
    wait_sent,
)
from webstate import MATCH_ID, make_state

from boardgammon.dice.verify import derive_dice_v2
from boardgammon.engine import Board

pytestmark = pytest.mark.browser

ROLLER_CHANGED = ("this device sent its link after the server had shown the roller's input "
                  "fixed")
KNOWN = f"bg.rolls.{MATCH_ID}"
OTHER = bytes(range(0x10, 0x20))  # roller entropy other than the one whose hash was shown


def stored_known(page) -> dict:
    return page.evaluate("(key) => JSON.parse(localStorage.getItem(key) || '{}')", KNOWN)


@pytest.mark.parametrize(("game_number", "flagged"), [(1, True), (2, False)],
                         ids=["same-game", "next-game"])
def test_a_reroll_labelled_opening_is_still_a_reroll(browser, static_url, game_number,
                                                     flagged):
    """Bob's device sent its link for rol_a (game 1); the record then holds rol_a void and
    rol_b, labelled ``opening``. Only where the state shows a later game (2) is rol_a voided
    with its game; with the game unchanged (1) the label is the server's word alone and rol_a
    is ✗ void_after_request."""
    page, server, documents = link_sent_for_rol_a(browser, static_url)
    assert stored_known(page)["rol_a"]["game_number"] == 1
    voided = entry(0, "rol_a", "void", LINKS[0], voided_at="2026-12-02T12:00:02.000000Z")
    opening = entry(1, "rol_b", "committed", LINKS[0], kind="opening", roller_entropy=None,
                    roller_source=None, requested_at=None)
    after = make_state(Board.initial(), on_roll=0, you=1, phase="opening", dice_protocol="v2",
                       game_number=game_number,
                       pending_roll=pending("rol_b", LINKS[0], 2) | {"state": "committed",
                                                                     "kind": "opening"})
    show(page, server, after, record(voided, opening))
    if flagged:
        assert verdict_title(page, "rol_a") == TEXTS["void_after_request"] + VOID_REST
        assert "rol_a" in page.inner_text(".dice-alert")
    else:
        nothing_failed_once_looked_up(page, documents)  # the page looked rol_a up
    page.context.close()


def test_a_rollers_reroll_labelled_opening_is_still_a_reroll(browser, static_url):
    """Ann (seat 0) asks to roll rol_a in game 1: her entropy is stored with the game. The
    server voids rol_a and commits rol_b labelled ``opening`` while the state still shows game
    1: rol_a is ✗ void_after_request."""
    context, page = bobs_page(browser, static_url, 800, 900)
    unasked = {"roller_entropy": None, "roller_source": None, "requested_at": None}
    first = make_state(Board.initial(), on_roll=0, you=0, phase="roll", dice_protocol="v2",
                       pending_roll=pending("rol_a", LINKS[0], 1) | {"state": "committed"})
    rerolled = make_state(Board.initial(), on_roll=0, you=0, phase="opening",
                          dice_protocol="v2", version=first["version"] + 1,
                          pending_roll=pending("rol_b", LINKS[0], 2)
                          | {"state": "committed", "kind": "opening"})
    assert rerolled["game_number"] == first["game_number"] == 1
    audit_a = record(entry(0, "rol_a", "committed", LINKS[0], **unasked))
    audit_b = record(entry(0, "rol_a", "void", LINKS[0], voided_at="2026-12-02T12:00:02.000000Z"),
                     entry(1, "rol_b", "committed", LINKS[0], kind="opening", **unasked,
                           committed_at="2026-12-02T12:00:02.000000Z"))
    rolled_again_on_roll(page, first, audit_a, rerolled, audit_b)
    assert verdict_title(page, "rol_a") == TEXTS["void_after_request"] + VOID_REST
    assert stored_known(page)["rol_a"]["game_number"] == 1
    context.close()


HOLD_DIGEST = """
(() => {
  if (localStorage.getItem('test.released')) return;  // held on the first load only
  const subtle = crypto.subtle;
  const digest = subtle.digest.bind(subtle);
  let release;
  const held = new Promise((done) => { release = done; });
  window.releaseDigest = () => release();
  subtle.digest = async (...args) => { await held; return digest(...args); };
})();
"""


def revealed_with_other_roller_input() -> tuple[dict, dict]:
    """rol_a revealed with bob's link x_1 and roller entropy whose hash is not the one the
    request showed: (the state, the audit document)."""
    dice = list(derive_dice_v2(SEED, MATCH_ID, "rol_a", 7, "normal", OTHER,
                               bytes.fromhex(LINKS[1])))
    revealed = entry(0, "rol_a", "played", LINKS[0], server_seed=SEED.hex(), dice=dice,
                     roller_entropy=OTHER.hex(), opponent_entropy=LINKS[1],
                     opponent_source="client", revealed_at="2026-12-02T12:00:05.000000Z",
                     played_at="2026-12-02T12:00:06.000000Z")
    shown = {k: revealed[k] for k in ("roll_id", "seat", "nonce", "commitment", "server_seed",
                                      "dice", "kind", "roller_entropy", "roller_source",
                                      "opponent_prev_link", "opponent_entropy",
                                      "opponent_source")}
    return rolling(rolls=[shown]), {"match_id": MATCH_ID, "rolls": [revealed]}


def test_a_link_sent_once_the_chain_is_ready_is_kept_across_a_reload(browser, static_url):
    """Bob's page loads with its chain stored, and the state (rol_a requested) comes before the
    chain's links are computed (SHA-256 held back here): the link leaves once they are. What
    that answer kept (the link, the roller's hash) is saved, so after a reload rol_a, revealed
    with other roller input, is ✗ roller_entropy_changed; it was kept in memory only, and a
    reload cleared the ✗."""
    context, page = bobs_page(browser, static_url, 800, 900)
    page.add_init_script(HOLD_DIGEST)
    first = rolling(pending_roll=pending("rol_a", LINKS[0], 1))
    audit_a = {"match_id": MATCH_ID, "rolls": [entry(0, "rol_a", "requested", LINKS[0])]}
    server = LoggedServer(page, first, audit_a)
    show(page, server, first, audit_a)
    page.wait_for_timeout(300)
    assert server.links_sent() == []  # the chain is not ready: the answer waits for it
    page.evaluate("() => { localStorage.setItem('test.released', '1'); window.releaseDigest(); }")
    assert wait_sent(page, server, 1) == [("rol_a", LINKS[1])]
    page.wait_for_function("(key) => (JSON.parse(localStorage.getItem(key) || '{}').rol_a || {})"
                           ".link !== undefined", arg=KNOWN)
    kept = stored_known(page)["rol_a"]
    assert kept["link"] == LINKS[1]
    assert kept["roller_entropy_sha256"] == hashlib.sha256(ENTROPY).hexdigest()

    state, audit = revealed_with_other_roller_input()
    server = LoggedServer(page, state, audit)
    show(page, server, state, audit)
    assert ROLLER_CHANGED in verdict_title(page, "rol_a")
    assert server.links_sent() == []
    context.close()


def test_the_chain_store_backs_up_what_known_lost(browser, static_url):
    """Bob's device sent its link for rol_a; ``known`` then lost the link and the roller's
    hash (a save that never happened, an older page): the chain's store still has both (kept
    before the link left), and rol_a, revealed with other roller input, is ✗
    roller_entropy_changed."""
    page, server, _ = link_sent_for_rol_a(browser, static_url)
    page.wait_for_function("(key) => (JSON.parse(localStorage.getItem(key) || '{}').rol_a || {})"
                           ".link !== undefined", arg=KNOWN)
    state, audit = revealed_with_other_roller_input()
    server = LoggedServer(page, state, audit)
    page.add_init_script(f"""(() => {{  // the page's known before the reload, as lost
        const known = JSON.parse(localStorage.getItem('{KNOWN}') || '{{}}');
        if (known.rol_a) {{
            delete known.rol_a.link; delete known.rol_a.link_sent_at;
            delete known.rol_a.roller_entropy_sha256;
            localStorage.setItem('{KNOWN}', JSON.stringify(known));
        }}
    }})()""")
    show(page, server, state, audit)
    assert ROLLER_CHANGED in verdict_title(page, "rol_a")
    page.context.close()


def socket_page(browser, static_url, state: dict):
    """Bob's page shown ``state`` with the test speaking through its match socket, which has
    sent its first state (so that the page takes the socket's events). (context, page, server,
    socket, the GETs of the match's state so far)"""
    context, page = bobs_page(browser, static_url, 800, 900)
    server = Server(page, state, {"match_id": MATCH_ID, "rolls": []})
    sockets: list = []
    page.route_web_socket("**/ws/**", lambda ws: sockets.append(ws))
    gets: list[str] = []
    page.on("request", lambda r: gets.append(r.url) if r.method == "GET"
            and re.search(rf"/api/matches/{MATCH_ID}$", r.url) else None)
    show(page, server, state, server.audit)
    for _ in range(50):
        if any("/ws/matches/" in ws.url for ws in sockets):
            break
        page.wait_for_timeout(100)
    socket = next(ws for ws in sockets if "/ws/matches/" in ws.url)
    socket.send(json.dumps({"type": "state", "state": state}))
    for _ in range(50):  # the page reads the state once more after the socket's first
        if len(gets) >= 2:
            break
        page.wait_for_timeout(100)
    assert len(gets) >= 2
    page.wait_for_timeout(200)
    return context, page, server, socket, gets


def clock_texts(page) -> list[str]:
    return page.eval_on_selector_all(".clock", "els => els.map(e => e.textContent)")


def test_a_request_for_another_roll_reads_the_state(browser, static_url):
    """Bob's page shows ann's rol_a committed; the socket brings a roll_requested for rol_b (the
    batches in between were lost): the page reads the state, which shows rol_b requested, and
    its device sends its link for rol_b. The event used to be dropped, and nothing asked."""
    older = rolling(pending_roll=pending("rol_a", LINKS[0], 1) | {"state": "committed"})
    context, page, server, socket, gets = socket_page(browser, static_url, older)
    before = len(gets)
    server.state = rolling(version=older["version"] + 3,
                           pending_roll=pending("rol_b", LINKS[0], 1))
    socket.send(json.dumps({"type": "roll_requested", "seat": 0, "roll_id": "rol_b",
                            "opponent_prev_link": LINKS[0], "opponent_link_steps": 1,
                            "roller_entropy_sha256": hashlib.sha256(ENTROPY).hexdigest()}))
    assert wait_sent(page, server, 1) == [("rol_b", LINKS[1])]
    assert len(gets) > before
    context.close()


def test_a_clock_event_is_folded_in_only_with_its_request(browser, static_url):
    """A ``clock`` event with no request just folded in (another action's, a late batch's)
    leaves the clocks shown as they were; right after the request of the pending roll it is
    the clocks as of now."""
    state = rolling(pending_roll=pending("rol_a", LINKS[0], 1) | {"state": "committed"})
    context, page, server, socket, _ = socket_page(browser, static_url, state)
    assert any("1:36" in text for text in clock_texts(page))
    later = {**state["clocks"], "reserve": [60.0, 30.0]}
    socket.send(json.dumps({"type": "clock", "clocks": later}))
    page.wait_for_timeout(500)
    assert not any("0:30" in text for text in clock_texts(page))
    assert any("1:36" in text for text in clock_texts(page))

    socket.send(json.dumps({"type": "roll_requested", "seat": 0, "roll_id": "rol_a",
                            "opponent_prev_link": LINKS[0], "opponent_link_steps": 1,
                            "roller_entropy_sha256": hashlib.sha256(ENTROPY).hexdigest()}))
    socket.send(json.dumps({"type": "clock", "clocks": later}))
    page.wait_for_function("() => [...document.querySelectorAll('.clock')]"
                           ".some(c => c.textContent.includes('0:30'))")
    assert wait_sent(page, server, 1) == [("rol_a", LINKS[1])]
    context.close()


def test_a_second_request_with_another_hash_is_marked_on_the_page_that_sent(browser,
                                                                             static_url):
    """Bob's page sent its link for rol_a under the roller's hash H; the same page is then
    shown rol_a requested again with another hash: nothing is sent again, and rol_a is marked
    ``roller_changed`` (the page used to pass over a roll it had sent the link for)."""
    state = rolling(pending_roll=pending("rol_a", LINKS[0], 1))
    context, page, server, socket, _ = socket_page(browser, static_url, state)
    assert wait_sent(page, server, 1) == [("rol_a", LINKS[1])]
    again = rolling(version=state["version"] + 1,
                    pending_roll=pending("rol_a", LINKS[0], 1)
                    | {"roller_entropy_sha256": hashlib.sha256(OTHER).hexdigest()})
    server.state = again
    socket.send(json.dumps({"type": "state", "state": again}))
    page.wait_for_function("(key) => (JSON.parse(localStorage.getItem(key) || '{}').rol_a || {})"
                           ".roller_changed === true", arg=KNOWN)
    page.wait_for_timeout(300)
    assert server.links_sent() == [("rol_a", LINKS[1])]
    context.close()


@pytest.mark.parametrize("you", [0, 1], ids=["roller", "opponent"])
def test_no_resign_while_a_requested_roll_waits_for_the_link(browser, static_url, you):
    """While ann's requested v2 roll waits for bob's link the server refuses a resignation
    (wrong_phase): neither player is offered Resign (as the cube is not), and both are once
    the roll is only committed."""
    context, page = bobs_page(browser, static_url, 800, 900)
    committed = make_state(Board.initial(), on_roll=0, you=you, phase="roll",
                           dice_protocol="v2",
                           pending_roll=pending("rol_a", LINKS[0], 1) | {"state": "committed"})
    server = Server(page, committed, {"match_id": MATCH_ID, "rolls": []})
    show(page, server, committed, server.audit)
    page.wait_for_selector('.controls [data-action="resign"]')
    requested = committed | {"version": committed["version"] + 1,
                             "pending_roll": pending("rol_a", LINKS[0], 1)}
    show(page, server, requested, server.audit)
    page.wait_for_selector('.controls [data-action="auto"]')
    assert page.locator('.controls [data-action="resign"]').count() == 0
    assert page.locator('.controls [data-action="double"]').count() == 0
    assert page.locator('.controls [data-action="roll"]').count() == 0
    # The status says what the wait is, not "Your turn: roll." (a new user's trial).
    status = page.locator("p.status").inner_text()
    assert status == ("Rolling: waiting for your opponent's device to add its part to the "
                      "dice…" if you == 0 else
                      f"{committed['players'][0]['username']} is rolling: this device adds its "
                      "part to the dice…")
    context.close()
