"""The match page keeps the newest state only (issue 22): an HTTP answer that arrives after the
WebSocket brought newer states is not drawn over them. Before ``state.version`` a late answer
to a play left the page on "Computer to move" after the computer had played, and nothing
brought the newer state back while the socket was up."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from webpage import new_page, play_by_tapping, play_the_computer, seen, wait_gone

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_a_late_answer_to_a_play_does_not_replace_the_computers_reply(browser, live_server):
    page = new_page(browser, live_server, width=800)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    held: list = []

    def hold_the_play(route, request) -> None:
        # The play is applied on the server now; only its answer reaches the page late.
        if not held and request.post_data_json.get("type") in ("play", "dance"):
            held.append((route, route.fetch()))
        else:
            route.continue_()

    page.route("**/api/matches/*/actions", hold_the_play)
    play_the_computer(page)
    page.wait_for_selector("svg.board")
    match_id = page.url.rsplit("/", 1)[1]
    deadline = time.monotonic() + 120
    while not held:
        assert time.monotonic() < deadline, f"no play of ours in time: {seen(page)} {errors}"
        now = seen(page)
        if now["busy"]:
            page.wait_for_timeout(50)
        elif now["roll"]:
            page.click('[data-action="roll"]')
            try:
                wait_gone(page, "roll", timeout=10_000)
            except PlaywrightTimeout:
                # A refused roll (e.g. "busy" on a loaded machine) offers Roll again: the loop
                # presses it again, with the same entropy.
                assert time.monotonic() < deadline, f"Roll stayed: {page.inner_text('.status')}"
        elif now["dance"]:
            page.click('[data-action="dance"]')
        elif now["movable"]:
            play_by_tapping(page)
            page.click('[data-action="send"]')
        else:
            page.wait_for_timeout(50)
        page.wait_for_timeout(50)
    route, answer = held[0]
    stale = answer.json()["state"]
    assert stale["turn"] == 1, stale["phase"]  # the answer says: the computer's turn
    # The computer replies while the answer is held; the socket brings its states.
    while (state := page.request.get(f"/api/matches/{match_id}").json())["turn"] != 0:
        assert time.monotonic() < deadline, state
        page.wait_for_timeout(100)
    assert state["version"] > stale["version"]
    # The page drew it: our roll is offered (disabled while the play's answer is awaited).
    page.wait_for_selector('.controls [data-action="roll"]', state="attached", timeout=15_000)
    route.fulfill(response=answer)
    page.wait_for_timeout(1500)  # time for the late answer to be drawn, if it were
    assert seen(page)["roll"], page.inner_text(".status")
    assert page.inner_text(".status") != "Computer to move"
    assert not errors
    page.context.close()
