"""A roll retried after the server refused it sends the entropy of the first try (issue #25:
with fresh entropy per press, a server that answers "busy" and waits for the retry could choose
between two outcomes). In Chromium against a real server; the first roll request is answered
503 ``busy`` on its way out, the second goes through."""

from __future__ import annotations

import json
import re

import pytest
from webpage import new_page, play_the_computer

pytestmark = pytest.mark.browser


def test_a_retried_roll_sends_the_same_entropy(browser, live_server):
    page = new_page(browser, live_server, width=360)
    rolls: list[dict] = []

    def handle(route, request):
        body = request.post_data_json or {}
        if body.get("type") != "roll":
            route.continue_()
            return
        rolls.append(body)
        if len(rolls) == 1:
            error = {"code": "busy", "message": "the match is being changed; retry"}
            route.fulfill(
                status=503, content_type="application/json", body=json.dumps({"error": error})
            )
        else:
            route.continue_()

    page.route(re.compile(r".*/api/matches/[^/]+/actions$"), handle)
    play_the_computer(page)
    page.wait_for_selector('[data-action="roll"]')
    page.click('[data-action="roll"]')
    page.wait_for_selector(".status.error")  # "busy", shown to the player
    page.wait_for_selector('[data-action="roll"]')
    page.click('[data-action="roll"]')
    # The roll was made and checked: its ✓ in the dice log (the board's mark goes with the
    # dice, and the computer may have won the opening roll and moved on already).
    page.locator('.dice-log .verdict[data-verdict="ok"]').first.wait_for(state="attached")
    assert len(rolls) == 2
    first, retry = rolls
    assert first["action_id"] != retry["action_id"]
    assert re.fullmatch(r"[0-9a-f]{32}", first["entropy"])
    assert (retry["roll_id"], retry["commitment"], retry["entropy"]) == (
        first["roll_id"],
        first["commitment"],
        first["entropy"],
    )
    # After a reload the stored entropy is still the one for this roll.
    stored = page.evaluate(
        "() => Object.entries(localStorage)"
        ".filter(([k]) => k.startsWith('bg.rolls.')).map(([, v]) => v)"
    )
    assert any(
        json.loads(v).get(first["roll_id"], {}).get("entropy") == first["entropy"] for v in stored
    )
    page.context.close()
