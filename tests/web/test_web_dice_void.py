"""A roll voided because its game ended is no "busy" reroll (issue #25, docs/fair-dice.md
§The device's check), on a real server. Since a resignation cannot be offered while a
requested roll waits for the opponent's link, the honest case left is the race: ann's page
stores its entropy and sends her request, which is lost on its way; bob offers to resign and
ann accepts before her page tries again. The record holds ann's roll void (never requested),
followed by the next game's opening roll. Ann's device stored input for that roll and must not
show it ✗ void_after_request: the game it was for is over (its game number moved on)."""

from __future__ import annotations

import hashlib
import os
import re
import time

import httpx
import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PASSWORD = "correct horse battery"


def test_a_roll_voided_with_its_game_is_not_flagged(browser, live_server):
    with httpx.Client(base_url=live_server, timeout=30) as http:
        r = http.post("/api/auth/register", json={"username": "bob", "password": PASSWORD})
        assert r.status_code == 201, r.text
        bob = {"Authorization": f"Bearer {r.json()['token']}"}
        seek = http.post("/api/seeks", json={"length": 3}, headers=bob)
        assert seek.status_code == 201, seek.text

        context = browser.new_context(base_url=live_server, viewport={"width": 800, "height": 900})
        context.add_init_script("localStorage.setItem('bg.lang', 'en')")
        page = context.new_page()
        documents: list[str] = []
        page.on("request", lambda q: documents.append(q.url)
                if re.search(r"/api/audit/mat_\w+$", q.url) else None)
        page.goto(live_server + "/")
        page.fill('input[name="username"]', "ann")
        page.fill('input[name="password"]', PASSWORD)
        page.click('[data-action="register"]')
        page.wait_for_selector('[data-username="ann"]')
        accepted = page.request.post(f"{live_server}/api/seeks/{seek.json()['id']}/accept")
        assert accepted.status == 201, accepted.text()
        match_id = accepted.json()["match_id"]
        seat_of_ann = 1  # bob made the seek: seat 0
        # Bob's device registers an anchor and never sends a link: each of ann's rolls waits.
        anchor = hashlib.sha256(os.urandom(32)).hexdigest()
        n = iter(range(10_000))

        def bob_acts(kind: str, **fields) -> httpx.Response:
            body = {"action_id": f"b{next(n)}", "type": kind, **fields}
            return http.post(f"/api/matches/{match_id}/actions", json=body, headers=bob)

        def state() -> dict:
            return http.get(f"/api/matches/{match_id}", headers=bob).json()

        assert bob_acts("anchor", anchor=anchor).status_code == 200
        page.goto(f"{live_server}/match/{match_id}")  # ann's device registers its anchor
        page.wait_for_selector("svg.board")

        def ann_acts(kind: str, **fields) -> None:
            answer = page.request.post(
                f"{live_server}/api/matches/{match_id}/actions",
                data={"action_id": f"a{next(n)}", "type": kind, **fields})
            assert answer.status == 200, answer.text()

        # Play until ann is on roll in a normal turn: bob rolls and plays over the API (ann's
        # page sends her links), ann's opening rolls and plays too.
        deadline = time.monotonic() + 120
        while True:
            assert time.monotonic() < deadline, "ann never came to roll"
            now = state()
            pending = now["pending_roll"]
            if pending and pending["state"] == "requested":
                time.sleep(0.2)  # a link awaited: the server reveals it, with or without
                continue
            if now["turn"] == seat_of_ann and now["phase"] == "roll":
                break
            if now["phase"] in ("opening", "roll") and pending:
                entropy = os.urandom(16).hex()
                roll = {"roll_id": pending["roll_id"], "commitment": pending["commitment"],
                        "entropy": entropy}
                if now["turn"] == seat_of_ann:
                    ann_acts("roll", **roll)
                else:
                    assert bob_acts("roll", **roll).status_code == 200
            elif now["phase"] == "play":
                if now["turn"] == seat_of_ann:
                    mine = page.request.get(f"{live_server}/api/matches/{match_id}").json()
                    ann_acts("play", play=mine["legal_plays"][0]["notation"])
                else:
                    play = now["legal_plays"][0]["notation"]
                    assert bob_acts("play", play=play).status_code == 200
            else:
                time.sleep(0.2)

        # Ann asks to roll on her page; the request is lost on its way (each try of it, while
        # this lasts); bob offers to resign and ann accepts: the game is over.
        page.wait_for_selector('.controls [data-action="roll"]:not([disabled])')
        rolled = state()["pending_roll"]["roll_id"]
        lost: list[str] = []

        def lose_rolls(route, request) -> None:
            body = request.post_data_json or {}
            if body.get("type") == "roll":
                lost.append(body.get("roll_id"))
                route.abort()
            else:
                route.continue_()

        page.route("**/api/matches/*/actions", lose_rolls)
        page.click('.controls [data-action="roll"]')
        for _ in range(100):
            if lost:
                break
            page.wait_for_timeout(50)
        assert lost == [rolled] or set(lost) == {rolled}, lost
        assert bob_acts("resign", points=1).status_code == 200
        ann_acts("accept_resign")
        page.unroute("**/api/matches/*/actions", lose_rolls)

        record = http.get(f"/api/audit/{match_id}").json()["rolls"]
        at = next(i for i, r in enumerate(record) if r["roll_id"] == rolled)
        assert record[at]["state"] == "void" and record[at]["requested_at"] is None
        assert record[at + 1]["kind"] == "opening"  # the next game's
        # The page looks the roll up in the audit document once the match moved past it.
        page.wait_for_function(
            f"() => (JSON.parse(localStorage.getItem('bg.rolls.{match_id}') || '{{}}')"
            f"['{rolled}'] || {{}}).entropy !== undefined")
        for _ in range(100):
            if documents:
                break
            page.wait_for_timeout(100)
        assert documents, "the page never looked the void roll up"
        page.wait_for_timeout(1_000)
        assert page.locator('.dice-log .verdict[data-verdict="failed"]').count() == 0
        assert page.locator(f'.dice-log li[data-roll="{rolled}"]').count() == 0
        context.close()
