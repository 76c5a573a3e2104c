"""The match analysis in Chromium: the result screen's "Match analysis" button with the number
of blunders, and the sheet (web/analysis.js) — "analysing…" until the server is done, then each
player's luck, the match PR, the cube decisions on their own and a review of every decision
with its board, the play made and the best alternatives. First with the API stood in by
Playwright routing (positions from the rules engine), then against a real server after a
1-point match against the computer."""

from __future__ import annotations

import json
import re
import time

import numpy as np
import pytest
from webpage import checkers, play_the_computer
from webstate import MATCH_ID, make_state

from boardgammon.engine import Board

pytestmark = pytest.mark.browser

OPENING = Board.initial()
AFTER_31 = OPENING.play("8/5 6/5", (3, 1)).swapped()  # seat 1 (bob) to roll, bob's view
AFTER_64 = AFTER_31.play("24/14", (6, 4)).swapped()  # back to ann


def player(seat, name, pr, luck, luck_mwc, blunders):
    return {"seat": seat, "name": name, "pr": pr, "error_rate": pr * 2,
            "checker_error_rate": pr * 2, "decisions": 3, "unforced": 2, "forced": 0,
            "cube_decisions": 1,
            "checker_loss": 0.2, "cube_loss": 0.0,
            "skill": {"doubtful": 0, "error": 0, "blunder": blunders},
            "cube_errors": {"missed double": 0, "wrong double": 0, "wrong take": blunders,
                            "wrong drop": 0},
            "luck": luck, "luck_mwc": luck_mwc,
            "luck_rolls": {"very lucky": 0, "lucky": 1, "unlucky": 0, "very unlucky": 0},
            "luck_adjusted": 0.5 - luck_mwc, "self_judged": False}


def checker(seat, turn, board, dice, play, best, loss, skill, luck):
    return {"type": "checker", "game": 0, "turn": turn, "seat": seat,
            "position_id": board.position_id, "score": [0, 0], "cube": 1, "cube_owner": None,
            "dice": list(dice), "play": play, "legal": 15, "forced": False, "best": best,
            "loss": loss, "loss_mwc": loss / 2, "skill": skill, "luck": luck,
            "luck_label": "lucky" if luck > 0.1 else None}


def cube(seat, turn, board, kind, action, best_action, error, loss):
    return {"type": "cube", "game": 0, "turn": turn, "seat": seat, "kind": kind,
            "position_id": board.position_id, "score": [0, 0], "cube": 1, "cube_owner": None,
            "action": action, "nd": 0.412, "dt": 0.655, "dp": 1.0, "best_action": best_action,
            "close": True, "error": error, "loss": loss, "loss_mwc": loss / 2,
            "skill": "blunder" if loss >= 0.16 else None}


ANALYSIS = {
    "status": "done", "length": 1, "score": [1, 0], "winner": 0, "plies": 0,
    "pr": 12.3, "blunders": 2,
    "players": [player(0, "ann", 8.5, 0.321, 0.104, 0), player(1, "bob", 16.25, -0.287, -0.09, 2)],
    "moves": [
        checker(0, 0, OPENING, (3, 1), "8/5 6/5",
                [{"play": "8/5 6/5", "equity": 0.151, "plies": 0},
                 {"play": "24/23 13/10", "equity": 0.012, "plies": 0}], 0.0, None, 0.213),
        checker(1, 0, AFTER_31, (6, 4), "24/14",
                [{"play": "24/18 13/9", "equity": -0.05, "plies": 0},
                 {"play": "8/2 6/2", "equity": -0.071, "plies": 0},
                 {"play": "24/14", "equity": -0.23, "plies": 0}], 0.18, "blunder", -0.12),
        cube(0, 1, AFTER_64, "double", "double", "double, take", None, 0.0),
        cube(1, 1, AFTER_64, "take", "drop", "take", "wrong drop", 0.345),
    ],
}


class StandIn:
    """The API for one finished match: its state, and its analysis `pending` for the first
    `pending` requests, then ANALYSIS."""

    def __init__(self, page, pending: int, analysis: dict = ANALYSIS):
        self.pending, self.analysis = pending, analysis
        self.asked = 0
        self.state = make_state(
            Board.from_points({1: 1}, {1: 1}), phase="match_over", score=[1, 0],
            games=[{"game_number": 1, "winner": 0, "points": 1, "how": "resign"}],
            result={"winner": 0, "score": [1, 0], "chain_head": "ab" * 32,
                    "audit_url": f"/audit/{MATCH_ID}", "analysis_url": None})
        page.route("**/api/**", self.handle)
        page.route_web_socket("**/ws/**", lambda ws: None)

    def handle(self, route, request):
        path = re.sub(r"^https?://[^/]+", "", request.url)
        if path == "/api/me":
            body = {"user": {"id": 1, "username": "ann", "guest": False}}
        elif path == f"/api/matches/{MATCH_ID}":
            body = self.state
        elif path == f"/api/matches/{MATCH_ID}/analysis":
            self.asked += 1
            body = {"status": "pending"} if self.asked <= self.pending else self.analysis
        else:
            body = {"error": {"code": "not_found", "message": path}}
            return route.fulfill(status=404, content_type="application/json",
                                 body=json.dumps(body))
        route.fulfill(status=200, content_type="application/json", body=json.dumps(body))


@pytest.fixture
def page(browser, static_url):
    context = browser.new_context(viewport={"width": 800, "height": 1000})
    page = context.new_page()
    page.add_init_script("localStorage.getItem('bg.lang') || localStorage.setItem('bg.lang', 'en')")
    page.base = static_url
    yield page
    context.close()


def review_state(page) -> dict:
    """What the review shows: counter, heading, the play line, table rows, the marked rows,
    the dice drawn ([value, on the opponent's side]) and how many of the opponent's checkers
    are on the board."""
    return page.evaluate("""() => {
      const all = (sel) => [...document.querySelectorAll(sel)];
      const text = (sel) => document.querySelector(sel).textContent;
      const labels = all('svg.board text.count.theirs');
      return {
        counter: text('.review-counter'),
        head: text('.decision-head'),
        played: text('.review-detail .played'),
        rows: all('.review-detail table tr').map((r) => [...r.children].map((c) => c.textContent)),
        chosen: all('.review-detail tr.chosen').map((r) => r.dataset.play),
        best: all('.review-detail tr.best').map((r) => r.dataset.row),
        dice: all('svg.board .die').map((d) => [+d.dataset.die, d.classList.contains('them')]),
        // Five checkers are drawn per point at most; a label gives the full count.
        theirs: all('svg.board circle.checker.theirs').length
          + labels.reduce((n, t) => n + (+t.textContent - 5), 0),
      };
    }""")


def test_button_pending_then_done_and_the_sheet(page, output_dir):
    stand_in = StandIn(page, pending=2)
    page.goto(f"{page.base}/match/{MATCH_ID}")
    button = page.locator("section.result .analysis-link")
    button.wait_for()
    assert "analysing…" in button.inner_text()
    # The button polls until the server is done, then carries both players' blunders.
    page.wait_for_selector("section.result .analysis-link[data-blunders]", timeout=10_000)
    assert button.inner_text() == "Match analysis · 2 very bad decisions (??)"
    assert button.get_attribute("data-blunders") == "2"
    page.screenshot(path=str(output_dir / "analysis-result-button.png"), full_page=True)

    stand_in.asked, stand_in.pending = 0, 1  # the sheet asks again: pending once more
    button.click()
    page.wait_for_selector("section.analysis .analysing")
    assert page.locator(".analysing").inner_text() == "analysing…"
    assert page.url.endswith(f"/match/{MATCH_ID}/analysis")
    page.wait_for_selector(".analysis-summary", timeout=10_000)

    assert page.locator(".match-pr").inner_text().startswith("Match PR 12.3 (both players")
    assert page.locator(".match-pr .blunders").inner_text() == "2 very bad decisions (??)"
    # What PR means is a link away, in the page's language.
    assert page.get_attribute(".match-pr a.skill-link", "href") == "/skill-levels?lang=en"
    table = page.eval_on_selector_all(
        ".analysis-summary tr", "rs => rs.map((r) => [...r.children].map((c) => c.textContent))")
    rows = {r[0]: r[1:] for r in table}
    assert rows[""] == ["ann (white)", "bob (black)"]
    assert rows["PR"] == ["8.5", "16.3"]
    assert rows["Luck (EMG)"] == ["+0.321", "−0.287"]
    assert rows["Luck (MWC)"] == ["+10.4%", "−9.0%"]  # as English writes it (numerals.py)
    assert rows["Luck-adjusted result (MWC)"] == ["+39.6%", "+59.0%"]
    # German writes a decimal comma and a (non-breaking) space before the percent sign.
    page.select_option("#lang", "de")
    # Functions, not expressions: Playwright polls an expression with eval, which the page's
    # Content-Security-Policy refuses.
    page.wait_for_function("() => document.querySelector('.analysis-summary th[data-seat=\"0\"]')"
                           " && !document.querySelector('.analysis-summary').innerText"
                           ".includes('(white)')")
    german = page.eval_on_selector_all(
        ".analysis-summary tr", "rs => rs.map((r) => [...r.children].map((c) => c.textContent))")
    values = [r[1:] for r in german]
    assert ["+0,321", "−0,287"] in values
    assert ["+10,4\u00a0%", "−9,0\u00a0%"] in values and ["+39,6\u00a0%", "+59,0\u00a0%"] in values
    assert ["8,5", "16,3"] in values
    page.select_option("#lang", "en")
    page.wait_for_function("() => document.querySelector('.analysis-summary') && document"
                           ".querySelector('.analysis-summary').innerText.includes('(white)')")
    # The row names that are glossary terms link to their entries, in the page's language.
    terms = page.eval_on_selector_all(
        ".analysis-summary th a.glossary-link", "as => as.map((a) => a.getAttribute('href'))")
    assert terms == ["/glossary?lang=en#pr", "/glossary?lang=en#luck", "/glossary?lang=en#mwc"]
    assert rows["Doubtful ?! / bad ? / very bad ?? (plays and cube)"] == [
        "0 / 0 / 0", "0 / 0 / 2"]
    # What the luck-adjusted result is, and why it can pass ±100 % (a fresh user read it as a
    # bug).
    assert page.locator(".analysis-note").inner_text().startswith(
        "Luck-adjusted result: the result (+50 % won, −50 % lost) minus the player's luck")

    # The cube decisions are listed on their own, each with the right action and its error.
    cubes = page.eval_on_selector_all(".cube-decisions li", "ls => ls.map((l) => l.textContent)")
    assert cubes == ["Decision 3 · Game 1, ann: double — best: double, take (lost 0.000)",
                     "Decision 4 · Game 1, bob: drop — best: take wrong drop (lost 0.345)"]
    assert page.locator(".cube-clear").count() == 0

    # The review starts at the first decision: the opening position from ann's side.
    first = review_state(page)
    assert first["counter"] == "Decision 1 of 4"
    assert first["played"] == "Rolled 3-1, played 8/5 6/5 · lost 0.000 · roll luck +0.213 (lucky)"
    assert first["rows"][1:] == [["1", "8/5 6/5", "+0.151", "", "0"],
                                 ["2", "24/23 13/10", "+0.012", "−0.139", "0"]]
    assert first["chosen"] == ["8/5 6/5"]
    assert first["dice"] == [[3, False], [1, False]]
    assert [checkers(page, p) for p in (6, 8, 13, 24, 5)] == [5, 3, 5, 2, 0]
    assert page.is_disabled('[data-action="prev"]')

    # Bob's blunder: his position ID is from his side; the board stays on ann's.
    page.click('[data-action="next"]')
    second = review_state(page)
    assert second["counter"] == "Decision 2 of 4"
    assert second["head"] == "Game 1, bob very bad ??"
    assert second["played"].startswith("Rolled 6-4, played 24/14 · lost 0.180")
    assert second["rows"][1:] == [["1", "24/18 13/9", "−0.050", "", "0"],
                                  ["2", "8/2 6/2", "−0.071", "−0.021", "0"],
                                  ["3", "24/14", "−0.230", "−0.180", "0"]]
    assert second["chosen"] == ["24/14"]
    assert second["dice"] == [[6, True], [4, True]]  # bob's dice, on his side of the board
    assert [checkers(page, p) for p in (6, 8, 5)] == [4, 2, 2]  # after ann's 8/5 6/5
    assert second["theirs"] == 15

    page.click('[data-action="next"]')
    page.click('[data-action="next"]')
    take = review_state(page)
    assert take["counter"] == "Decision 4 of 4"
    assert take["played"] == "drop (cube at 1) · best: take wrong drop · lost 0.345"
    assert take["rows"] == [["No double", "+0.412"], ["Double, take", "+0.655"],
                            ["Double, drop", "+1.000"]]
    assert take["best"] == ["dt"]
    assert page.is_disabled('[data-action="next"]')
    # ann's side after bob's 24/14: the take's position is the doubler's (ann's) view.
    assert [checkers(page, p) for p in (6, 8, 5)] == [4, 2, 2]
    assert "null" not in page.inner_text("body") and "undefined" not in page.inner_text("body")
    # The keyboard steps through the review as the buttons do; it stops at either end.
    for key, counter in (("Home", 1), ("ArrowLeft", 1), ("ArrowRight", 2), ("End", 4),
                         ("ArrowRight", 4), ("ArrowLeft", 3)):
        page.keyboard.press(key)
        assert review_state(page)["counter"] == f"Decision {counter} of 4", key
    assert review_state(page)["played"] == "double (cube at 1) · best: double, take · lost 0.000"
    assert page.get_attribute('[data-action="prev"]', "aria-keyshortcuts") == "ArrowLeft"
    # The address names the decision shown; a reload or a change of language keeps it (a
    # fresh user's: the language selector sent the review back to decision 1).
    assert page.url.endswith(f"/match/{MATCH_ID}/analysis#decision-3")
    page.select_option("#lang", "de")
    page.wait_for_selector(".review-counter")
    assert review_state(page)["counter"] == "Entscheidung 3 von 4"
    page.select_option("#lang", "en")
    page.goto(f"{page.base}/match/{MATCH_ID}/analysis#decision-2")
    page.wait_for_selector(".review-counter")
    assert review_state(page)["counter"] == "Decision 2 of 4"
    # A button disabled under the keyboard's focus hands the focus to the other one.
    page.focus('[data-action="next"]')
    page.keyboard.press("End")
    focused = page.evaluate("document.activeElement.dataset.action")
    assert focused == "prev" and page.is_disabled('[data-action="next"]')
    page.keyboard.press("Home")
    assert page.evaluate("document.activeElement.dataset.action") == "next"
    page.screenshot(path=str(output_dir / "analysis-sheet.png"), full_page=True)

    # A cube decision in the list opens it in the review.
    page.click('.cube-decisions li[data-decision="2"] a')
    assert review_state(page)["counter"] == "Decision 3 of 4"

    # On a phone the list's text wraps as text: each link starts on its number's line (a
    # fresh user saw every number on a line of its own, the link a centred box below it).
    page.set_viewport_size({"width": 360, "height": 740})
    tops = page.eval_on_selector_all(".cube-decisions li", """ls => ls.map((l) => [
        l.getBoundingClientRect().top, l.querySelector('a').getClientRects()[0].top,
        l.getBoundingClientRect().height])""")
    for li_top, link_top, height in tops:
        assert abs(link_top - li_top) < 4 and height > 30  # wrapped, on the number's line


def test_position_ids_decoded_as_the_engine_does(page):
    """web/analysis.js decodes gnubg Position IDs like boardgammon.engine.ids, on random
    positions with checkers on the bar and borne off."""
    rng = np.random.default_rng(9)
    boards = [OPENING, AFTER_31, Board.from_points({25: 2, 2: 1}, {25: 1, 20: 14})]
    for _ in range(40):
        sides = []
        for _side in range(2):
            row = np.zeros(25, dtype=int)
            for place in rng.integers(0, 25, size=rng.integers(0, 16)):
                row[place] += 1
            sides.append(row)
        # The sides may not share a point: the opponent's point p is 25 - p in our numbering.
        for p in range(24):
            if sides[0][p] and sides[1][23 - p]:
                sides[1][23 - p] = 0
        boards.append(Board(np.array(sides, dtype=np.int8)))
    page.goto(f"{page.base}/blank")
    decoded = page.evaluate(
        "async (ids) => { const a = await import('/static/analysis.js');"
        " return ids.map((id) => a.decodePositionId(id)); }",
        [b.position_id for b in boards])
    assert decoded == [b.array.tolist() for b in boards]


def test_sheet_of_a_match_still_being_played_follows_it_to_the_analysis(page):
    """Opened while the match is played, the sheet says so and keeps asking (it stayed on the
    message for good, found by a fresh user): once the match is over and analysed, it shows."""
    stand_in = StandIn(page, pending=1)
    over = {"playing": True}
    playing = {**stand_in.state, "phase": "play", "result": None}
    asked = {"analysis": 0, "state": 0}

    def handle(route, request):
        if over["playing"] and "analysis" in request.url:
            asked["analysis"] += 1
            return route.fulfill(status=409, content_type="application/json", body=json.dumps(
                {"error": {"code": "match_not_finished", "message": "playing"}}))
        if over["playing"] and request.url.endswith(f"/api/matches/{MATCH_ID}"):
            asked["state"] += 1
            return route.fulfill(status=200, content_type="application/json",
                                 body=json.dumps(playing))
        return stand_in.handle(route, request)

    page.unroute("**/api/**")
    page.route("**/api/**", handle)
    page.goto(f"{page.base}/match/{MATCH_ID}/analysis")
    page.wait_for_selector("section.analysis .waiting")
    assert page.locator("section.analysis .waiting").inner_text() == (
        "The match is still being played; it is analysed once it is over.")
    # It follows the match's state (200 in any phase), not the analysis, whose 409 a browser
    # logs as an error each time it is asked.
    deadline = time.monotonic() + 15
    while asked["state"] < 2:
        assert time.monotonic() < deadline, asked
        page.wait_for_timeout(200)
    assert asked["analysis"] == 1
    over["playing"] = False
    page.wait_for_selector("section.analysis .analysing", timeout=10_000)
    page.wait_for_selector(".analysis-summary", timeout=10_000)
    assert page.locator(".match-pr").inner_text().startswith("Match PR 12.3 (both players")


def test_sheet_of_an_unknown_match_offers_the_lobby_not_the_match(page):
    page.route("**/api/**", lambda route, request: route.fulfill(
        status=404 if "analysis" in request.url else 200, content_type="application/json",
        body=json.dumps({"error": {"code": "not_found", "message": "no match nope"}}
                        if "analysis" in request.url
                        else {"user": {"id": 1, "username": "ann", "guest": False}})))
    page.goto(f"{page.base}/match/nope/analysis")
    page.wait_for_selector("section.analysis .error")
    assert page.locator("section.analysis .error").inner_text() == "There is no match nope."
    # No link back to a match that is not there; the way to the lobby instead (a fresh user
    # found the header's logo the only way out).
    links = page.locator("section.analysis a[data-link]")
    assert links.count() == 1 and links.get_attribute("href") == "/"
    assert links.inner_text() == "Back to lobby"


def test_sheet_of_a_malformed_match_id_says_there_is_no_such_match(page):
    """Found by a fresh user: /match/nonexistent/analysis showed the server's rule for a match
    ID ("path.match_id: a match ID looks like mat_…") and a link back to no match."""
    page.route("**/api/**", lambda route, request: route.fulfill(
        status=422 if "analysis" in request.url else 200, content_type="application/json",
        body=json.dumps({"error": {"code": "invalid_request",
                                   "message": "path.match_id: a match ID looks like mat_…"}}
                        if "analysis" in request.url
                        else {"user": {"id": 1, "username": "ann", "guest": False}})))
    page.goto(f"{page.base}/match/nonexistent/analysis")
    page.wait_for_selector("section.analysis .error")
    assert page.locator("section.analysis .error").inner_text() == (
        "There is no match nonexistent.")
    assert [page.locator("section.analysis a[data-link]").nth(i).get_attribute("href")
            for i in range(page.locator("section.analysis a[data-link]").count())] == ["/"]
    page.select_option("#lang", "de")
    page.wait_for_selector("section.analysis .error")
    assert page.locator("section.analysis .error").inner_text() == "Es gibt kein Match nonexistent."


@pytest.mark.slow
def test_real_server_analyses_a_match_against_the_computer(browser, live_server, output_dir):
    """A guest plays a 1-point match against the computer; the server's worker analyses it and
    the button and the sheet show what GET /analysis gives."""
    from test_web_live import drive
    from webpage import new_page

    page = new_page(browser, live_server)
    play_the_computer(page)
    page.wait_for_selector("svg.board")
    page.click('[data-action="auto"]')
    drive([page], auto=True)

    button = page.locator("section.result .analysis-link")
    page.wait_for_selector("section.result .analysis-link[data-blunders]", timeout=120_000)
    match_id = page.locator(".match-id").inner_text()
    analysis = page.request.get(f"/api/matches/{match_id}/analysis").json()
    assert analysis["status"] == "done"
    n = analysis["blunders"]
    assert button.inner_text() == (
        f"Match analysis · {n} very bad decision{'' if n == 1 else 's'} (??)")

    button.click()
    page.wait_for_selector(".analysis-summary", timeout=10_000)
    rows = {r[0]: r[1:] for r in page.eval_on_selector_all(
        ".analysis-summary tr", "rs => rs.map((r) => [...r.children].map((c) => c.textContent))")}
    players = analysis["players"]
    assert rows["Luck (EMG)"] == [f"{'+' if p['luck'] >= 0 else '−'}{abs(p['luck']):.3f}"
                                  for p in players]
    assert rows["Decisions"] == [str(p["decisions"]) for p in players]
    pr = "—" if analysis["pr"] is None else f"{analysis['pr']:.1f}"
    assert page.locator(".match-pr").inner_text().startswith(f"Match PR {pr} (both players")
    moves = analysis["moves"]
    cubes = [m for m in moves if m["type"] == "cube"]
    listed = [m for m in cubes if m["close"] or m["error"]]
    assert page.locator(".cube-decisions li").count() == len(listed)
    assert page.locator(".cube-clear").count() == (len(listed) < len(cubes))
    # Step through every decision: each shows its board and, for a play, the alternatives
    # ranked best first with the play made marked.
    for i, m in enumerate(moves):
        seen = review_state(page)
        assert seen["counter"] == f"Decision {i + 1} of {len(moves)}"
        if m["type"] == "checker":
            assert [r[1] for r in seen["rows"][1:]] == [b["play"] or "(dance)" for b in m["best"]]
            links = page.eval_on_selector_all(
                ".alternatives th a.glossary-link", "ls => ls.map((l) => l.getAttribute('href'))")
            assert links == (["/glossary?lang=en#equity", "/glossary?lang=en#ply"]
                             if m["best"] else [])
            assert sorted(d for d, _ in seen["dice"]) == sorted(m["dice"])
            if not m["forced"]:
                assert seen["chosen"] == [m["play"]]
        if i == 0:
            page.screenshot(path=str(output_dir / "analysis-live.png"), full_page=True)
        if i + 1 < len(moves):
            page.click('[data-action="next"]')
    page.context.close()


def test_real_server_serves_the_sheet_at_its_own_address(browser, live_server):
    """A reload or a shared link of /match/{id}/analysis gets the client from the server
    itself (not only by routing inside the page): the sheet of a match still being played."""
    from webpage import new_page

    page = new_page(browser, live_server)
    page.click('[data-action="guest"]')
    page.wait_for_selector('form.computer [data-action="play-computer"]')
    match_id = page.evaluate(
        "async () => (await (await fetch('/api/matches/computer', {method: 'POST',"
        " headers: {'Content-Type': 'application/json'},"
        " body: JSON.stringify({level: 'easy', length: 1})})).json()).match_id")
    response = page.goto(f"{live_server}/match/{match_id}/analysis")
    assert response.status == 200
    page.wait_for_selector("section.analysis .waiting")
    assert page.locator("section.analysis .waiting").inner_text() == (
        "The match is still being played; it is analysed once it is over.")
    page.reload()
    page.wait_for_selector("section.analysis .waiting")
    page.context.close()


def test_clear_no_double_turns_are_counted_not_listed(page):
    """A fresh user's 3-point match listed eleven identical "no double — best: no double (lost
    0.000)" rows: only the decisions that count are listed, each with its decision number, and
    the clear turns are counted below them."""
    clear = {**ANALYSIS["moves"][2], "action": "no double", "best_action": "no double",
             "close": False, "nd": 0.1, "dt": -0.3}
    analysis = {**ANALYSIS, "blunders": 1,
                "moves": [*ANALYSIS["moves"][:2], clear, *ANALYSIS["moves"][2:]]}
    StandIn(page, pending=0, analysis=analysis)
    page.goto(f"{page.base}/match/{MATCH_ID}/analysis")
    page.wait_for_selector(".analysis-summary", timeout=10_000)
    assert page.locator(".match-pr .blunders").inner_text() == "1 very bad decision (??)"
    cubes = page.eval_on_selector_all(".cube-decisions li", "ls => ls.map((l) => l.textContent)")
    assert [c.split(" · ")[0] for c in cubes] == ["Decision 4", "Decision 5"]
    assert page.locator(".cube-clear").inner_text() == (
        "1 more turn where not doubling was clearly right.")
    page.click('.cube-decisions li[data-decision="4"] a')
    assert page.locator(".review-counter").inner_text() == "Decision 5 of 5"


def test_the_sheet_names_its_judge_and_warns_of_a_self_judged_player(page, output_dir):
    """Issue 27: the judge in the heading line; a bot judged by its own engine gets a warning,
    in the page's language, that fits a phone's width."""
    bob = {**ANALYSIS["players"][1], "name": "Computer (hard)", "self_judged": True}
    analysis = {**ANALYSIS, "plies": 2, "players": [ANALYSIS["players"][0], bob]}
    StandIn(page, pending=0, analysis=analysis)
    page.goto(f"{page.base}/match/{MATCH_ID}/analysis")
    page.wait_for_selector(".analysis-summary", timeout=10_000)
    assert page.locator(".analysis-match").inner_text().endswith(
        "1-point match, judged by our network at 2-ply")
    warnings = page.locator(".analysis-warning")
    assert warnings.count() == 1
    assert warnings.inner_text() == (
        "Computer (hard) is judged by its own engine (our network at 2-ply): it plays by the "
        "judge's own evaluations, so its PR measures its agreement with itself, not its "
        "skill.")
    page.screenshot(path=str(output_dir / "analysis-self-judged.png"), full_page=True)
    page.set_viewport_size({"width": 360, "height": 740})
    box = warnings.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 360
    page.screenshot(path=str(output_dir / "analysis-self-judged-360.png"), full_page=True)
    page.select_option("#lang", "de")
    page.wait_for_selector(".analysis-warning")
    # The computer's name says its level in the page's language (issue 22), everywhere on
    # the sheet: the heading line, the warning and the table's column.
    assert page.locator(".analysis-warning").inner_text().startswith(
        "Computer (schwer) wird von der eigenen Engine beurteilt (unser Netz mit 2-ply)")
    assert "Computer (schwer)" in page.locator(".analysis-match").inner_text()
    assert page.locator('.analysis-summary th[data-seat="1"]').inner_text() == \
        "Computer (schwer) (Schwarz)"
    # German's long words ("Glücksbereinigtes Ergebnis") wrap: nothing scrolls sideways.
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    page.screenshot(path=str(output_dir / "analysis-self-judged-de-360.png"), full_page=True)
    page.select_option("#lang", "ja")
    page.wait_for_selector(".analysis-warning")
    assert "自分のエンジン" in page.locator(".analysis-warning").inner_text()
    assert page.locator(".analysis-warning").inner_text().startswith("コンピューター (むずかしい)")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    assert "判定は当サイトのネットワーク (2-ply)" in page.locator(".analysis-match").inner_text()


def test_the_sheet_says_a_deeper_analysis_comes_and_shows_it_where_the_reader_was(page, output_dir):
    """Found by a fresh user: a sheet opened at once kept the 0-ply analysis for good (it
    stopped polling at `done`) and did not say a 2-ply one would replace it."""
    shallow = {**ANALYSIS, "deeper": 2}
    deep = {**ANALYSIS, "plies": 2, "deeper": None, "pr": 9.9,
            "moves": [{**m, "loss": 0.25} if i == 1 else m
                      for i, m in enumerate(ANALYSIS["moves"])]}
    stand_in = StandIn(page, pending=0, analysis=shallow)
    page.clock.install()  # the sheet polls on the page's timers, which the test moves
    page.goto(f"{page.base}/match/{MATCH_ID}/analysis#decision-2")
    page.wait_for_selector(".analysis-summary", timeout=10_000)
    assert page.locator(".analysis-deeper").inner_text() == (
        "A deeper analysis (our network at 2-ply) is under way; it will replace this one here.")
    assert page.locator(".analysis-match").inner_text().endswith("at 0-ply")
    asked = stand_in.asked
    page.clock.run_for(10_500)  # the next look: still the shallow one, nothing redrawn
    for _ in range(50):
        if stand_in.asked > asked:
            break
        page.wait_for_timeout(100)
    assert stand_in.asked == asked + 1
    assert page.locator(".review-counter").inner_text() == "Decision 2 of 4"
    stand_in.analysis = deep
    page.clock.run_for(10_500)
    page.wait_for_selector(".analysis-deeper", state="detached", timeout=5_000)
    assert page.locator(".analysis-match").inner_text().endswith("at 2-ply")
    assert page.locator(".match-pr").inner_text().startswith("Match PR 9.9")
    # The reader stays at the decision they were looking at, now with its 2-ply figures.
    assert page.locator(".review-counter").inner_text() == "Decision 2 of 4"
    assert "lost 0.250" in page.locator(".review-detail .played").inner_text()
    asked = stand_in.asked
    page.clock.run_for(30_000)  # done for good: no more looks
    page.wait_for_timeout(1_000)  # a look would have reached the route by now
    assert stand_in.asked == asked


def test_the_sheet_lists_each_resignation_with_its_verdict(page, output_dir):
    """Found by a fresh user: a match lost by resigning a backgammon (a 5-point error by the
    terminal's report) showed "No decisions." and nothing else on the sheet."""
    resignations = [
        {"game": 0, "turn": 3, "seat": 1, "kind": "offer", "points": 3, "cube": 1,
         "position_id": OPENING.position_id, "accepted": 3.0, "played_on": -2.113,
         "loss": 5.113942, "error": "resigned too much"},
        {"game": 0, "turn": 3, "seat": 0, "kind": "accept", "points": 3, "cube": 1,
         "position_id": OPENING.position_id, "accepted": 3.0, "played_on": -2.113,
         "loss": 0.0, "error": None}]
    StandIn(page, pending=0, analysis={**ANALYSIS, "moves": [], "resignations": resignations})
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{page.base}/match/{MATCH_ID}/analysis")
    page.wait_for_selector(".analysis-summary", timeout=10_000)
    items = page.eval_on_selector_all(".resignations li", "ls => ls.map((l) => l.textContent)")
    assert items == [
        "Game 1, bob: offered to resign a backgammon (cube at 1) — resigned too much (lost 5.114)",
        "Game 1, ann: accepted a resignation of a backgammon (cube at 1) — right (lost 0.000)"]
    assert page.locator(".resignations li .cube-error").count() == 1
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.screenshot(path=str(output_dir / "analysis-resignations-390.png"), full_page=True)
    page.select_option("#lang", "de")
    page.wait_for_selector(".resignations li")
    assert page.locator(".resignations li").first.inner_text().startswith(
        "Spiel 1, bob: bot die Aufgabe an: Backgammon (Doppler auf 1) — zu viel aufgegeben")
