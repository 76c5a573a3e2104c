"""Faults a new user found at 390 px (web trial, 2026-12): the result dialog of a rated match
did not say how the ratings changed, and its list of every roll made it thousands of pixels
tall on a phone; in the opening the player waiting was not told who rolls. The server is
stood in (test_web_board.StandIn) with states from the server's own builder; each test runs in
the three languages, screenshots in test-output/web/."""

from __future__ import annotations

import pytest
from test_web_board import StandIn
from webstate import MATCH_ID, make_state, revealed_roll

from boardgammon.engine import Board

pytestmark = pytest.mark.browser

HISTORY = {"ann": (1500.0, 1512.4), "bob": (1500.0, 1487.6)}
"""Each player's rating before and after the match, as their profile's history has it."""

TEXTS = {
    "en": {
        "ratings": ["ann: rating 1500 → 1512 (+12)", "bob: rating 1500 → 1488 (−12)"],
        "dice": "Dice record: 40 revealed rolls, all verified",
        "yours": "Opening roll: your turn to roll one die.",
        "theirs": "Opening roll: waiting for bob to roll.",
        "tied": "The opening roll tied at 4-4: rolled again. "
                "Opening roll: waiting for bob to roll.",
    },
    "de": {
        "ratings": ["ann: Wertung 1500 → 1512 (+12)", "bob: Wertung 1500 → 1488 (−12)"],
        "dice": "Würfelprotokoll: 40 aufgedeckte Würfe, alle geprüft",
        "yours": "Eröffnungswurf: Du würfelst mit einem Würfel.",
        "theirs": "Eröffnungswurf: Warten, bis bob würfelt.",
        "tied": "Der Eröffnungswurf war ein Gleichstand (4-4): neu gewürfelt. "
                "Eröffnungswurf: Warten, bis bob würfelt.",
    },
    "ja": {
        "ratings": ["ann：レーティング 1500 → 1512（+12）", "bob：レーティング 1500 → 1488（−12）"],
        "dice": "ダイス記録：公開済みロール 40 回、すべて検証済み",
        "yours": "オープニングロール：あなたがダイスを 1 個振る番です。",
        "theirs": "オープニングロール：bob が振るのを待っています。",
        "tied": "オープニングロールは 4-4 の同点：振り直しました。"
                " オープニングロール：bob が振るのを待っています。",
    },
}


class ProfileStandIn(StandIn):
    """Also answers the players' profiles (docs/api.md §Players) with a rating history whose
    entry for this match is :data:`HISTORY`'s, counting the requests; with ``hold``, only once
    the test calls :meth:`release`."""

    def __init__(self, page, state, history=HISTORY, hold=False):
        self.history, self.profile_requests, self.held = history, 0, [] if hold else None
        super().__init__(page, state)

    def handle(self, route, request):
        name = request.url.rsplit("/api/players/", 1)[-1]
        if "/api/players/" not in request.url or "/" in name:
            return super().handle(route, request)
        self.profile_requests += 1
        if self.held is not None:
            self.held.append((route, name))
            return None
        return self.answer(route, name)

    def release(self) -> None:
        held, self.held = self.held or [], None
        for route, name in held:
            self.answer(route, name)

    def answer(self, route, name):
        entries = [{"match_id": "mat_OTHER", "at": "2026-12-01T00:00:00Z",
                    "before": 1480.0, "after": 1500.0}]
        if name in self.history:
            before, after = self.history[name]
            entries.append({"match_id": MATCH_ID, "at": "2026-12-04T00:00:00Z",
                            "before": before, "after": after})
        return self.json(route, {"name": name, "guest": False, "joined": "2026-12-01T00:00:00Z",
                                 "ratings": [{"variant": "standard", "rating": entries[-1]["after"],
                                              "deviation": 300.0, "matches": 2,
                                              "experience": 2, "history": entries}]})


@pytest.fixture(params=["en", "de", "ja"])
def page(browser, static_url, request):
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.add_init_script(f"localStorage.setItem('bg.lang', '{request.param}')")
    page.base, page.lang = static_url, request.param
    yield page
    context.close()


def long_finished_state() -> dict:
    """ann won a 1-point match; the record holds 40 revealed rolls (this device's entropy)."""
    rolls = [revealed_roll(f"rol_{n:02d}", n % 2, n, bytes([n + 1]) * 32, bytes([n]) * 16)
             for n in range(40)]
    return make_state(Board.from_points({1: 1}, {1: 1}), phase="match_over", rolls=rolls,
                      games=[{"game_number": 1, "winner": 0, "points": 1, "how": "single"}])


def test_result_dialog_shows_ratings_and_a_closed_dice_record(page, output_dir):
    stand_in = ProfileStandIn(page, long_finished_state(), hold=True)
    page.goto(f"{page.base}/match/{MATCH_ID}")
    texts = TEXTS[page.lang]
    record = page.locator(".result details.dice-record")
    record.wait_for()
    summary = record.locator("summary")
    page.wait_for_function(
        "() => !document.querySelector('.result .verify-list .verdict.pending')")
    assert summary.inner_text() == texts["dice"]
    assert record.get_attribute("open") is None
    assert record.locator(".verify-list li").count() == 40
    assert not record.locator(".verify-list").is_visible()
    assert summary.bounding_box()["height"] >= 44
    # opened, it stays open when the dialog is drawn again (here: with the ratings)
    summary.click()
    assert record.locator(".verify-list").is_visible()
    stand_in.release()
    page.wait_for_selector(".result .rating-change")
    assert page.locator(".result .rating-change").all_inner_texts() == texts["ratings"]
    assert page.locator(".result details.dice-record").get_attribute("open") == ""
    page.locator(".result details.dice-record summary").click()
    # closed, the dialog fits in about two screens, the result and ratings in the first
    dialog = page.locator("section.result").bounding_box()
    assert dialog["height"] < 2 * 844, dialog
    assert page.locator(".result .rating-change").last.bounding_box()["y"] < 844
    page.screenshot(path=str(output_dir / f"result-dialog-{page.lang}-390.png"), full_page=True)
    assert stand_in.profile_requests == 2  # once per player, not on every drawing


def test_a_failed_roll_is_counted_in_the_closed_record(page):
    state = long_finished_state()
    state["rolls"][3]["dice"] = [6, 6] if state["rolls"][3]["dice"] != [6, 6] else [5, 5]
    ProfileStandIn(page, state, history={})  # an unrated match: no entry in any history
    page.goto(f"{page.base}/match/{MATCH_ID}")
    page.wait_for_function(
        "() => !document.querySelector('.result .verify-list .verdict.pending')")
    summary = page.locator(".result details.dice-record summary").inner_text()
    assert summary.endswith({"en": "1 FAILED", "de": "1 mit FEHLER", "ja": "1 件失敗"}[page.lang])
    page.wait_for_timeout(200)  # the profiles have answered
    assert page.locator(".result .rating-change").count() == 0


@pytest.mark.parametrize("on_roll", [0, 1])
def test_the_opening_says_who_rolls(page, output_dir, on_roll):
    ProfileStandIn(page, make_state(Board.initial(), phase="opening", on_roll=on_roll))
    page.goto(f"{page.base}/match/{MATCH_ID}")
    page.wait_for_selector("svg.board")
    status = page.locator(".status")
    status.wait_for()
    assert status.inner_text() == TEXTS[page.lang]["yours" if on_roll == 0 else "theirs"]
    page.screenshot(path=str(output_dir / f"opening-{on_roll}-{page.lang}-390.png"))


class TiedOpeningStandIn(StandIn):
    """Also answers the move list (docs/api.md §Matches): game 1 began with an opening roll
    tied at 4-4."""

    def handle(self, route, request):
        if request.url.endswith(f"/api/matches/{MATCH_ID}/moves"):
            return self.json(route, {"games": [{"game_number": 1, "score": [0, 0],
                                                "opening": [[4, 4]], "lines": [],
                                                "resignations": [], "result": None}]})
        return super().handle(route, request)


def test_a_tied_opening_says_who_rolls_next(page):
    tie = [{**revealed_roll("rol_0", 0, 0, bytes([1]) * 32, bytes(16), dice=[4, 4]),
            "kind": "opening"}]
    TiedOpeningStandIn(page, make_state(Board.initial(), phase="opening", on_roll=1, rolls=tie))
    page.goto(f"{page.base}/match/{MATCH_ID}")
    page.wait_for_selector(".moves-game .opening")
    assert page.locator(".status").inner_text() == TEXTS[page.lang]["tied"]
