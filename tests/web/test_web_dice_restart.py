"""The match page after a server restart while a live v2 roll is requested and waits for the
opponent's link, in Chromium with the server stood in by Playwright routing
(test_web_dice_links.Server) and the match socket spoken by the test: the restarted server
lost the request and shows the roll ``committed`` again, at a LOWER ``version`` (committed is
step 1 of a roll, requested 2). The first state of a new socket connection is taken whatever
its version (the page used to drop every state until a reload); the roller's page asks for
the roll again by itself, once, with the entropy it kept; the opponent's page, asked again
for the same roll with the same roller hash, sends the same link again, and under another
hash still nothing (✗ roller_entropy_changed, marked ``roller_changed``)."""

from __future__ import annotations

import hashlib
import json

import pytest
from test_web_dice_links import ENTROPY, LINKS, Server, bobs_page, pending, rolling, wait_sent
from webstate import MATCH_ID, make_state

from boardgammon.engine import Board

pytestmark = pytest.mark.browser

KNOWN = f"bg.rolls.{MATCH_ID}"
HASH = hashlib.sha256(ENTROPY).hexdigest()
OTHER_HASH = hashlib.sha256(bytes(range(0x10, 0x20))).hexdigest()


class Sockets:
    """The page's match sockets, in the order it opened them; the test speaks for the
    server on the newest."""

    def __init__(self, page):
        self.page = page
        self.opened: list = []
        page.route_web_socket("**/ws/**", lambda ws: self.opened.append(ws))

    def wait(self, count: int):
        for _ in range(100):
            if len(self.opened) >= count:
                break
            self.page.wait_for_timeout(100)
        assert len(self.opened) >= count, f"{len(self.opened)} sockets, not {count}"
        return self.opened[count - 1]

    def send(self, message: dict) -> None:
        self.opened[-1].send(json.dumps(message))

    def reconnect(self, state: dict) -> None:
        """The socket drops; the page connects again, and the new connection's first state is
        ``state`` (what GET answers is left as it is)."""
        count = len(self.opened)
        self.opened[-1].close()
        self.wait(count + 1)
        self.send({"type": "state", "state": state})

    def restart(self, server: Server, state: dict) -> None:
        """The server restarts: the socket drops; the page connects again and the new
        connection's first state is ``state`` (also what GET the match answers from now)."""
        server.state = state
        self.reconnect(state)


def status(page) -> str:
    return page.locator("p.status").inner_text()


def stored_known(page) -> dict:
    return page.evaluate("(key) => JSON.parse(localStorage.getItem(key) || '{}')", KNOWN)


def open_page(browser, static_url, state: dict, you: int):
    """A page of ``you``'s seat (bob's chain registered on the device) shown ``state`` with
    the socket's first state sent. (context, page, server, sockets)"""
    context, page = bobs_page(browser, static_url, 800, 900)
    server = Server(page, state, {"match_id": MATCH_ID, "rolls": []})
    sockets = Sockets(page)  # after the StandIn's own route: this one answers
    page.goto(f"{page.base}/match/{MATCH_ID}")
    page.wait_for_selector("svg.board")
    sockets.wait(1)
    sockets.send({"type": "state", "state": state})
    page.wait_for_timeout(300)
    assert you == state["you"]
    return context, page, server, sockets


def rolls_sent(server: Server) -> list[dict]:
    return [a for a in server.actions if a["type"] == "roll"]


def asked_with(requested: dict, action: dict) -> dict:
    """``requested`` with the hash of the entropy the roll ``action`` sent, as the server
    shows a request."""
    digest = hashlib.sha256(bytes.fromhex(action["entropy"])).hexdigest()
    return requested | {"pending_roll": requested["pending_roll"]
                        | {"roller_entropy_sha256": digest}}


def test_another_devices_request_is_not_asked_again_by_this_one(browser, static_url):
    """Ann pressed Roll on this page, but the server shows rol_a requested under another
    hash (her other device's entropy won): no mark, and after a restart that shows the roll
    committed again, this page sends nothing by itself (its own entropy would give the
    server a second outcome)."""
    committed = make_state(Board.initial(), on_roll=0, you=0, phase="roll",
                           dice_protocol="v2",
                           pending_roll=pending("rol_a", LINKS[0], 1) | {"state": "committed"})
    requested = committed | {"version": committed["version"] + 1,
                             "pending_roll": pending("rol_a", LINKS[0], 1)
                             | {"roller_entropy_sha256": OTHER_HASH}}
    context, page, server, sockets = open_page(browser, static_url, committed, 0)
    server.reply = lambda action: requested if action["type"] == "roll" else server.state
    page.click('.controls [data-action="roll"]')
    page.wait_for_timeout(800)
    assert len(rolls_sent(server)) == 1
    assert stored_known(page)["rol_a"].get("seen_requested") is not True
    sockets.restart(server, committed)
    page.wait_for_timeout(1500)
    assert len(rolls_sent(server)) == 1
    context.close()


def test_the_rollers_page_takes_the_lower_state_and_asks_again_once(browser, static_url):
    """Ann presses Roll: one roll request, answered ``requested`` (V+1). The server restarts
    and shows rol_a ``committed`` (V): her page takes it and asks again by itself, once, with
    the same entropy, roll ID and commitment; shown ``requested`` again and then ``committed``
    again (a second restart), once more."""
    committed = make_state(Board.initial(), on_roll=0, you=0, phase="roll",
                           dice_protocol="v2",
                           pending_roll=pending("rol_a", LINKS[0], 1) | {"state": "committed"})
    requested = committed | {"version": committed["version"] + 1,
                             "pending_roll": pending("rol_a", LINKS[0], 1)}
    context, page, server, sockets = open_page(browser, static_url, committed, 0)
    server.reply = lambda action: (asked_with(requested, action) if action["type"] == "roll"
                                   else server.state)

    page.click('.controls [data-action="roll"]')
    page.wait_for_function("(t) => document.querySelector('p.status').innerText === t",
                           arg="Rolling: waiting for your opponent's device to add its part "
                               "to the dice…")
    page.wait_for_timeout(500)
    first = rolls_sent(server)
    assert len(first) == 1  # the normal flow: one request
    assert stored_known(page)["rol_a"]["seen_requested"] is True
    assert stored_known(page)["rol_a"]["entropy"] == first[0]["entropy"]

    # The restart: the socket drops, polling GETs bring `committed` (V), dropped as older;
    # the new connection's first state is taken, and the roll is asked for again.
    sockets.restart(server, committed)
    for _ in range(50):
        if len(rolls_sent(server)) >= 2:
            break
        page.wait_for_timeout(100)
    page.wait_for_timeout(1000)  # time for a second, unwanted, request
    again = rolls_sent(server)
    assert len(again) == 2
    assert again[1]["action_id"] != first[0]["action_id"]
    assert ({k: again[1][k] for k in ("roll_id", "commitment", "entropy")}
            == {k: first[0][k] for k in ("roll_id", "commitment", "entropy")})
    # The answer showed it requested again: marked again, for the next change.
    page.wait_for_function("(key) => JSON.parse(localStorage.getItem(key)).rol_a"
                           ".seen_requested === true", arg=KNOWN)

    # A second restart that loses it again: asked once more, the same entropy.
    sockets.restart(server, committed)
    for _ in range(50):
        if len(rolls_sent(server)) >= 3:
            break
        page.wait_for_timeout(100)
    page.wait_for_timeout(1000)
    thrice = rolls_sent(server)
    assert len(thrice) == 3
    assert thrice[2]["entropy"] == first[0]["entropy"]
    context.close()


def test_a_roll_never_seen_requested_is_not_asked_again(browser, static_url):
    """A page that shows its own roll committed and never saw it requested (the state after
    a reconnect, no press of Roll on it) sends nothing by itself: Roll is offered."""
    committed = make_state(Board.initial(), on_roll=0, you=0, phase="roll",
                           dice_protocol="v2",
                           pending_roll=pending("rol_a", LINKS[0], 1) | {"state": "committed"})
    context, page, server, sockets = open_page(browser, static_url, committed, 0)
    sockets.restart(server, committed)
    page.wait_for_timeout(1000)
    assert rolls_sent(server) == []
    page.wait_for_selector('.controls [data-action="roll"]')
    context.close()


def test_the_opponents_page_sends_the_same_link_again_under_the_same_hash(browser,
                                                                          static_url):
    """Bob's page is shown ann's rol_a requested (V+1) and sends x_1. The server restarts and
    shows rol_a ``committed`` (V): taken. Ann's device asks again (roll_requested, the same
    hash): bob's page sends x_1 again. After another restart, a request with another hash
    gets nothing, and rol_a is marked roller_changed."""
    committed = rolling(pending_roll=pending("rol_a", LINKS[0], 1) | {"state": "committed"})
    requested = committed | {"version": committed["version"] + 1,
                             "pending_roll": pending("rol_a", LINKS[0], 1)}
    context, page, server, sockets = open_page(browser, static_url, requested, 1)
    assert wait_sent(page, server, 1) == [("rol_a", LINKS[1])]
    ann = requested["players"][0]["username"]
    assert status(page) == f"{ann} is rolling: this device adds its part to the dice…"

    sockets.restart(server, committed)
    page.wait_for_function("(t) => document.querySelector('p.status').innerText === t",
                           arg=f"{ann} to move.")
    page.wait_for_timeout(300)
    assert server.links_sent() == [("rol_a", LINKS[1])]  # nothing for a committed roll

    server.state = requested
    sockets.send({"type": "roll_requested", "seat": 0, "roll_id": "rol_a",
                  "opponent_prev_link": LINKS[0], "opponent_link_steps": 1,
                  "roller_entropy_sha256": HASH})
    assert wait_sent(page, server, 2) == [("rol_a", LINKS[1]), ("rol_a", LINKS[1])]
    page.wait_for_timeout(500)
    assert len(server.links_sent()) == 2  # once per request

    # Restarted again; this time the request shows another roller hash: nothing is sent.
    sockets.restart(server, committed)
    page.wait_for_function("(t) => document.querySelector('p.status').innerText === t",
                           arg=f"{ann} to move.")
    sockets.send({"type": "roll_requested", "seat": 0, "roll_id": "rol_a",
                  "opponent_prev_link": LINKS[0], "opponent_link_steps": 1,
                  "roller_entropy_sha256": OTHER_HASH})
    page.wait_for_function("(key) => (JSON.parse(localStorage.getItem(key) || '{}').rol_a || {})"
                           ".roller_changed === true", arg=KNOWN)
    page.wait_for_timeout(500)
    assert len(server.links_sent()) == 2
    context.close()


def test_a_link_whose_every_try_failed_is_sent_again(browser, static_url):
    """Bob's link for rol_a fails on its way three times (the server down); the server comes
    back still holding the request (rol_a requested, the same hash, on the new connection):
    the same link leaves again (on the old connection it is not sent again: a post lost three
    times goes again only once the page has connected again)."""
    requested = rolling(pending_roll=pending("rol_a", LINKS[0], 1))
    committed = rolling(pending_roll=pending("rol_a", LINKS[0], 1) | {"state": "committed"})
    context, page, server, sockets = open_page(browser, static_url, requested, 1)
    assert wait_sent(page, server, 1) == [("rol_a", LINKS[1])]
    tries: list[str] = []

    def down(route, request):
        body = request.post_data_json or {}
        if body.get("type") == "contribute" and len(tries) < 3:
            tries.append(body["link"])
            return Server.json(route, {"error": {"code": "unavailable", "message": "down"}},
                               503)
        return route.fallback()

    page.route(f"**/api/matches/{MATCH_ID}/actions", down)  # from now: the next three fail
    sockets.restart(server, committed)
    sockets.send({"type": "roll_requested", "seat": 0, "roll_id": "rol_a",
                  "opponent_prev_link": LINKS[0], "opponent_link_steps": 1,
                  "roller_entropy_sha256": HASH})
    for _ in range(50):
        if len(tries) >= 3:
            break
        page.wait_for_timeout(100)
    assert tries == [LINKS[1]] * 3
    assert len(server.links_sent()) == 1
    # Back, the request held: the new connection's first state shows it requested.
    later = requested | {"version": committed["version"] + 1}
    sockets.restart(server, later)
    assert wait_sent(page, server, 2) == [("rol_a", LINKS[1]), ("rol_a", LINKS[1])]
    context.close()


def test_a_roll_shown_again_under_another_commitment_keeps_the_first(browser, static_url):
    """The page was shown rol_a under one commitment; the server shows the same roll under
    another (a new seed after it had the device's entropy): Roll sends the first commitment,
    which the server refuses, and the device keeps the first, so the reveal's check would say
    commitment_changed, never ✓ under the new seed."""
    committed = make_state(Board.initial(), on_roll=0, you=0, phase="roll",
                           dice_protocol="v2",
                           pending_roll=pending("rol_a", LINKS[0], 1) | {"state": "committed"})
    context, page, server, sockets = open_page(browser, static_url, committed, 0)
    first = committed["pending_roll"]["commitment"]
    other = committed | {"version": committed["version"] + 1,
                         "pending_roll": committed["pending_roll"] | {"commitment": "ab" * 32}}
    server.state = other
    sockets.send({"type": "state", "state": other})
    page.wait_for_timeout(300)
    page.click('.controls [data-action="roll"]')
    page.wait_for_timeout(500)
    sent = rolls_sent(server)
    assert [a["commitment"] for a in sent] == [first]
    assert stored_known(page)["rol_a"]["commitment"] == first
    context.close()


def test_states_are_ordered_by_the_servers_start_then_by_version(browser, static_url):
    """States that carry ``boot`` (a single server process, whose answers may not be durable
    yet): a new socket of the same server whose first state is older (a blip: the same boot, a
    lower version) does not take the page back; a restarted server's first state (a later
    boot, a lower version) is taken; and an answer of the old process that arrives after it
    (the earlier boot, a higher version: here the GET the new socket's first state sets off)
    is dropped."""
    boot = 1_764_547_200_000
    playing = make_state(Board.initial(), on_roll=0, you=0, phase="play", dice=(3, 1),
                         version=10, boot=boot)
    rolling_older = make_state(Board.initial(), on_roll=0, you=0, phase="roll", version=8,
                               boot=boot)
    context, page, server, sockets = open_page(browser, static_url, playing, 0)
    shown = status(page)
    assert "roll" not in shown.lower()
    # A blip: the socket drops and connects again to the same process, whose first state
    # (and the GET it sets off) are stale.
    server.state = rolling_older
    sockets.reconnect(rolling_older)
    page.wait_for_timeout(600)
    assert status(page) == shown
    server.state = playing
    # A restart: the new process's first state is older by version, later by boot; the GET
    # that follows it still answers the old process's state.
    restarted = rolling_older | {"version": 3, "boot": boot + 5_000}
    sockets.reconnect(restarted)
    page.wait_for_function("() => document.querySelector('p.status').textContent"
                           ".includes('Your turn: roll')", timeout=3_000)
    page.wait_for_timeout(600)
    assert server.state is playing and status(page) == "Your turn: roll."
    # Restarted again on a host whose clock is behind: an earlier boot, yet the process the
    # new socket speaks to, so its states are taken (the page would freeze otherwise).
    behind = playing | {"version": 2, "boot": boot - 60_000}
    server.state = behind
    sockets.reconnect(behind)
    page.wait_for_function("() => !document.querySelector('p.status').textContent"
                           ".includes('Your turn: roll')", timeout=3_000)
    assert status(page) == shown
    sockets.send({"type": "state", "state": behind | {"version": 3}})
    page.wait_for_timeout(300)
    assert status(page) == shown
    context.close()


def test_a_roll_that_reaches_no_server_says_so_until_the_server_is_back(browser, static_url):
    """Roll pressed while the server cannot be reached (the POST fails in the network): the
    page says so in its language, not the browser's "Failed to fetch", and that it may be
    tried again; once a new socket connection brings the server's state the message goes and
    Roll is offered, and pressing it sends the same entropy."""
    committed = make_state(Board.initial(), on_roll=0, you=0, phase="roll",
                           dice_protocol="v2",
                           pending_roll=pending("rol_a", LINKS[0], 1) | {"state": "committed"})
    context, page, server, sockets = open_page(browser, static_url, committed, 0)
    failed: list[dict] = []

    def unreachable(route, request):
        failed.append(request.post_data_json)
        route.abort("internetdisconnected")

    page.route(f"**/api/matches/{MATCH_ID}/actions", unreachable)
    page.click('.controls [data-action="roll"]')
    page.wait_for_function("() => document.querySelector('p.status').textContent"
                           ".includes('could not be reached')", timeout=3_000)
    assert "Failed to fetch" not in status(page) and "try again" in status(page)
    page.unroute(f"**/api/matches/{MATCH_ID}/actions", unreachable)
    sockets.restart(server, committed)
    page.wait_for_function("() => !document.querySelector('p.status').textContent"
                           ".includes('could not be reached')", timeout=3_000)
    assert status(page) == "Your turn: roll."
    page.click('.controls [data-action="roll"]')
    page.wait_for_timeout(500)
    sent = rolls_sent(server)
    assert [a["entropy"] for a in sent] == [failed[0]["entropy"]]
    context.close()
