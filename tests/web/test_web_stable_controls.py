"""A tap on Roll is not lost when a state arrives mid-tap (issue 22, a lost Roll seen once):
the controls are redrawn on every state the socket brings, and a button replaced between
pointerdown and pointerup gets no click. A control that is unchanged stays the same element."""

from __future__ import annotations

import json

import pytest
from test_web_board import StandIn
from webstate import MATCH_ID, make_state

from boardgammon.engine import Board

pytestmark = pytest.mark.browser


class QuietStandIn(StandIn):
    """Answers the notifications and the chat too, empty: refused, each draws its message
    whenever its answer comes, and the page moves under the pointer mid-tap (a lost tap in CI,
    the pointerdown landing on the header's message)."""

    def handle(self, route, request):
        if request.url.endswith("/api/notifications"):
            return self.json(route, {"items": []})
        if request.url.endswith(f"/api/matches/{MATCH_ID}/chat"):
            return self.json(route, {"messages": []})
        return super().handle(route, request)


def test_a_state_between_pointerdown_and_pointerup_on_roll_still_rolls(browser, static_url):
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.add_init_script("localStorage.setItem('bg.lang', 'en')")
    pending = {"roll_id": "rol_mid", "seat": 0, "nonce": 7, "commitment": "ab" * 32}
    state = make_state(Board.initial(), phase="roll", pending_roll=pending)
    stand_in = QuietStandIn(page, state)
    sockets: list = []
    page.route_web_socket("**/ws/**", lambda ws: sockets.append(ws))  # the test speaks through it
    page.goto(f"{static_url}/match/{MATCH_ID}")
    page.wait_for_selector('[data-action="roll"]')
    page.wait_for_function("() => document.querySelector('.clock') !== null")
    sockets = [ws for ws in sockets if "/ws/matches/" in ws.url]  # not the notifications'
    assert len(sockets) == 1
    page.eval_on_selector('[data-action="roll"]', "b => { b.marked = 'yes';"
                          " b.addEventListener('pointerdown', () => { b.pressed = true; }); }")

    box = page.locator('[data-action="roll"]').bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    assert page.eval_on_selector('[data-action="roll"]', "b => b.pressed") is True  # not moved
    # A newer state (bob's clock has run) arrives and the page redraws its controls.
    newer = {**state, "version": state["version"] + 1,
             "clocks": {**state["clocks"], "reserve": [120.0, 90.0]}}
    sockets[0].send(json.dumps({"type": "state", "state": newer}))
    page.wait_for_function(
        "() => [...document.querySelectorAll('.clock')].some(c => c.textContent.includes('1:30'))"
    )
    assert page.eval_on_selector('[data-action="roll"]', "b => b.marked") == "yes"
    page.mouse.up()
    page.wait_for_function("() => document.querySelector('[data-action=\"roll\"]') === null"
                           " || document.querySelector('[data-action=\"roll\"]').disabled",
                           timeout=5000)
    assert [a["type"] for a in stand_in.actions] == ["roll"]
    assert stand_in.actions[0]["roll_id"] == "rol_mid"
    context.close()
