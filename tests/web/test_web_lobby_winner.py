"""My matches in the lobby name the winner of a finished match with its final score, winner's
first, in each language (issue 22: it said "0–0 … finished" with no winner); the score beside
the opponent's name is from your side."""

from __future__ import annotations

import os
import time

import pytest
from test_web_lobby import new_page, register

pytestmark = [pytest.mark.browser]


def act(page, match_id: str, action: dict) -> dict:
    r = page.request.post(
        f"/api/matches/{match_id}/actions", data={"action_id": os.urandom(8).hex(), **action}
    )
    assert r.ok, r.text()
    return r.json()["state"]


def test_the_lobby_names_the_winner_of_a_finished_match(browser, live_server, output_dir):
    ann, bob = new_page(browser, live_server), new_page(browser, live_server)
    register(ann, "ann_won")
    register(bob, "bob_lost")
    seek = ann.request.post("/api/seeks", data={"length": 1}).json()
    match_id = bob.request.post(f"/api/seeks/{seek['id']}/accept").json()["match_id"]
    pages = {
        p["seat"]: ann if p["username"] == "ann_won" else bob
        for p in ann.request.get(f"/api/matches/{match_id}").json()["players"]
    }
    while (state := ann.request.get(f"/api/matches/{match_id}").json())["phase"] == "opening":
        pending = state["pending_roll"]
        if state["turn"] is None or pending is None or pending.get("state") == "requested":
            # v2 dice: the first roll waits (up to the link wait) for devices these API
            # players do not have, then goes on without them
            time.sleep(0.2)
            continue
        act(
            pages[state["turn"]],
            match_id,
            {
                "type": "roll",
                "roll_id": pending["roll_id"],
                "commitment": pending["commitment"],
                "entropy": os.urandom(16).hex(),
            },
        )
    act(bob, match_id, {"type": "resign", "points": 1})
    assert act(ann, match_id, {"type": "accept_resign"})["phase"] == "match_over"
    item = f'.lists li[data-match="{match_id}"]'
    for page in (ann, bob):  # back to the lobby (a page may have followed the match it joined)
        page.goto("/")
    expected = {
        "en": ("you won 1–0", "ann_won won 1–0"),
        "de": ("du hast 1–0 gewonnen", "ann_won hat 1–0 gewonnen"),
        "ja": ("あなたの勝ち 1–0", "ann_wonの勝ち 1–0"),
    }
    for lang, (winner_sees, loser_sees) in expected.items():
        for page, text in ((ann, winner_sees), (bob, loser_sees)):
            page.select_option("select#lang", lang)
            page.wait_for_function(
                "([sel, text]) => document.querySelector(sel)?.textContent.includes(text)",
                arg=[item, text],
            )
    # The score from each one's side, as the result beside it (bob, seat 1, saw "1–0" beside
    # "ann_won won 1–0").
    assert "· 1–0 / 1 ·" in ann.locator(item).text_content()
    assert "· 0–1 / 1 ·" in bob.locator(item).text_content()
    bob.set_viewport_size({"width": 360, "height": 740})
    bob.screenshot(path=str(output_dir / "lobby-winner-360.png"), full_page=True)
    assert not ann.errors and not bob.errors
    ann.context.close()
    bob.context.close()


def test_the_lobby_says_a_match_nobody_won_was_aborted(browser, live_server, output_dir):
    # The server's summary of an aborted match (tests/server/test_match_abort.py): finished, no
    # winner. A real one takes a minute of waiting for a first move, so the lobby's answer gets
    # one added.
    page = new_page(browser, live_server)
    register(page, "ann_aborted")
    aborted = {"match_id": "mat_aborted000001", "opponent": "bob", "you": 0, "length": 5,
               "variant": "standard", "mode": "live", "score": [0, 0], "your_turn": False,
               "deadline": None, "clock": "rapid", "clocks": None, "status": "finished",
               "winner": None}

    def lobby(route):
        answer = route.fetch().json()
        answer["matches"].append(aborted)
        route.fulfill(json=answer)

    page.route("**/api/lobby", lobby)
    page.goto("/")
    item = '.lists li[data-match="mat_aborted000001"]'
    for lang, text in (("en", "aborted (a first move not made in time)"),
                       ("de", "abgebrochen (ein erster Zug kam nicht rechtzeitig)"),
                       ("ja", "中止（最初の手番が時間内に指されなかった）")):
        page.select_option("select#lang", lang)
        page.wait_for_function(
            "([sel, text]) => document.querySelector(sel)?.textContent.includes(text)",
            arg=[item, text])
        assert "finished" not in page.locator(item).text_content()
    page.set_viewport_size({"width": 360, "height": 740})
    page.screenshot(path=str(output_dir / "lobby-aborted-360.png"), full_page=True)
    assert not page.errors
    page.context.close()
