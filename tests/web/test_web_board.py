"""The match page in Chromium with the server stood in by Playwright request routing: states
from the rules engine in the API's format (docs/api.md), so the dice are chosen, not random.
Checks what the page shows and what it sends: lit destinations, a single destination moving at
once, undo, the refusal of an incomplete play, doubles, a dance, the on-device dice check, the
result screen, keyboard use, the three languages and a phone-width layout."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect
from webpage import checkers, lit, tap
from webstate import MATCH_ID, make_state, revealed_roll

from boardgammon.dice.verify import commitment, derive_dice
from boardgammon.engine import Board, Game, Match
from boardgammon.engine.errors import EngineError

pytestmark = pytest.mark.browser

SEED = bytes(range(32))


class StandIn:
    """Answers the client's API calls: GET the match gives `state`; each POSTed action is kept
    in `actions` and answered by `reply(action)` (a new state), default: the same state."""

    def __init__(self, page, state, reply=None):
        self.state = state
        self.actions: list[dict] = []
        self.reply = reply or (lambda action: self.state)
        page.route("**/api/**", self.handle)
        page.route_web_socket("**/ws/**", lambda ws: None)  # never connected: no live events

    def handle(self, route, request):
        path = re.sub(r"^https?://[^/]+", "", request.url)
        if path == "/api/me":
            return self.json(route, {"user": {"id": 1, "username": "ann", "guest": False}})
        if path == f"/api/matches/{MATCH_ID}" and request.method == "GET":
            return self.json(route, self.state)
        if path == f"/api/matches/{MATCH_ID}/actions" and request.method == "POST":
            action = json.loads(request.post_data)
            self.actions.append(action)
            self.state = self.reply(action)
            return self.json(route, {"state": self.state, "events": []})
        return self.json(route, {"error": {"code": "not_found", "message": path}}, 404)

    @staticmethod
    def json(route, body, status=200):
        route.fulfill(status=status, content_type="application/json", body=json.dumps(body))


@pytest.fixture
def page(browser, static_url):
    context = browser.new_context(viewport={"width": 800, "height": 900})
    page = context.new_page()
    page.add_init_script("localStorage.getItem('bg.lang') || localStorage.setItem('bg.lang', 'en')")
    page.base = static_url
    yield page
    context.close()


def open_match(page, state, reply=None) -> StandIn:
    stand_in = StandIn(page, state, reply)
    page.goto(f"{page.base}/match/{MATCH_ID}")
    page.wait_for_selector("svg.board .hit")
    return stand_in


def test_tap_undo_refusal_and_send(page, output_dir):
    board = Board.initial()
    stand_in = open_match(page, make_state(board, dice=(3, 1)),
                          reply=lambda a: make_state(board.play(a["play"], (3, 1)).swapped(),
                                                     on_roll=1, phase="roll"))
    movable = page.eval_on_selector_all("svg.board .hit.movable",
                                        "els => els.map(e => +e.dataset.point)")
    assert sorted(movable) == [6, 8, 13, 24]
    assert page.locator("svg.board .die").count() == 2
    page.screenshot(path=str(output_dir / "board-component.png"))

    tap(page, 8)
    assert lit(page) == [5, 7]
    send = page.locator('[data-action="send"]')
    assert send.get_attribute("aria-disabled") == "true"
    tap(page, 5)
    assert (checkers(page, 8), checkers(page, 5)) == (2, 1)
    assert page.locator("svg.board .die.used").count() == 1

    # aria-disabled keeps the button focusable and clickable (Playwright would wait for it to be
    # enabled): a click with one checker still to move is refused on the page, nothing is sent.
    send.click(force=True)
    assert "incomplete" in page.locator(".status").inner_text()
    assert page.locator(".status.refusal").count() == 1
    assert stand_in.actions == []

    page.click('[data-action="undo"]')
    assert (checkers(page, 8), checkers(page, 5)) == (3, 0)
    assert page.locator("svg.board .die.used").count() == 0

    tap(page, 8)
    tap(page, 5)
    tap(page, 6)  # only the 1 is left: 6/5 is the single destination, so it moves at once
    assert (checkers(page, 6), checkers(page, 5)) == (4, 2)
    assert send.get_attribute("aria-disabled") == "false"
    send.click()
    page.wait_for_selector("text=bob to move.")
    assert [a["play"] for a in stand_in.actions] == ["8/5 6/5"]
    assert stand_in.actions[0]["type"] == "play" and stand_in.actions[0]["action_id"]


def test_doubles_show_four_dice_and_auto_send(page):
    board = Board.initial()
    stand_in = open_match(page, make_state(board, dice=(3, 3)),
                          reply=lambda a: make_state(board, on_roll=1, phase="roll"))
    assert page.locator("svg.board .die").count() == 4
    page.click('[data-action="auto"]')
    assert page.get_attribute('[data-action="auto"]', "aria-pressed") == "true"
    for left in (2, 1):
        tap(page, 8)  # 8/5 is the only destination, so the tap moves the checker at once
        assert (checkers(page, 8), lit(page)) == (left, [])
    assert page.locator("svg.board .die.used").count() == 2
    for _ in range(2):
        tap(page, 6)
        if lit(page):
            tap(page, 3)
    page.wait_for_selector("text=bob to move.")
    assert [a["play"] for a in stand_in.actions] == ["8/5(2) 6/3(2)"]


def test_dance_is_shown_and_recorded(page):
    board = Board.from_points({25: 2, 13: 13}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 5})
    stand_in = open_match(page, make_state(board, dice=(6, 3)),
                          reply=lambda a: make_state(board, on_roll=1, phase="roll"))
    assert "No legal play with 6-3" in page.locator(".status").inner_text()
    assert page.locator("svg.board .hit.movable").count() == 0
    page.click('[data-action="dance"]')
    page.wait_for_selector("text=bob to move.")
    assert [a["play"] for a in stand_in.actions] == [""]


def roll_flow(page, tamper):
    """Roll from the pending commitment; the stand-in reveals with `tamper(entropy)`."""
    board = Board.initial()
    pending = {"roll_id": "rol_web1", "seat": 0, "nonce": 41, "commitment": commitment(SEED)}

    def reply(action):
        entropy = bytes.fromhex(tamper(action["entropy"]))
        roll = revealed_roll("rol_web1", 0, 41, SEED, entropy)
        return make_state(board, dice=tuple(roll["dice"]), rolls=[roll])

    stand_in = open_match(page, make_state(board, phase="roll", pending_roll=pending), reply)
    page.click('[data-action="roll"]')
    page.wait_for_selector(".dice-mark .verdict:not(.pending)")
    return stand_in


def test_own_roll_verified_on_the_device(page):
    stand_in = roll_flow(page, lambda entropy: entropy)
    sent = stand_in.actions[0]
    assert sent["type"] == "roll" and sent["roll_id"] == "rol_web1"
    assert sent["commitment"] == commitment(SEED) and re.fullmatch("[0-9a-f]{32}", sent["entropy"])
    assert page.locator(".dice-mark .verdict.ok").inner_text() == "✓ verified"
    dice = derive_dice(SEED, MATCH_ID, "rol_web1", 41, bytes.fromhex(sent["entropy"]))
    assert page.locator("svg.board .die").first.get_attribute("data-die") == str(dice[0])
    assert page.locator(".dice-alert").inner_text() == ""


def test_foreign_entropy_raises_a_loud_warning(page):
    roll_flow(page, lambda entropy: "00" * 16)  # the reveal ignores this device's entropy
    assert page.locator(".dice-mark .verdict.failed").inner_text() == "✗ FAILED"
    alert = page.locator(".dice-alert")
    assert alert.is_visible()
    assert "does not hold this device's entropy" in alert.inner_text()


def finished_state():
    board = Board.from_points({1: 1}, {1: 1})
    rolls = [revealed_roll("rol_a", 0, 3, SEED, bytes(16)),
             revealed_roll("rol_b", 1, 4, bytes(range(1, 33)), bytes(range(16)), "server")]
    rolls[1]["dice"] = [6, 6] if rolls[1]["dice"] != [6, 6] else [5, 5]  # a forged record
    return make_state(
        board, phase="match_over", score=[1, 0], rolls=rolls,
        games=[{"game_number": 1, "winner": 0, "points": 1, "how": "single"}])


def test_result_screen(page, output_dir):
    open_match(page, finished_state())
    result = page.locator("section.result")
    result.wait_for()
    page.wait_for_selector(".verify-list .verdict.failed", state="attached")
    # the dice record is closed; its summary counts the rolls and the failed one
    assert result.locator("details.dice-record summary").inner_text() == \
        "Dice record: 2 revealed rolls, 1 FAILED"
    result.locator("details.dice-record summary").click()
    text = result.inner_text()
    assert "ann wins the match" in text and "Final score: ann 1–0 bob" in text
    assert "Game 1: ann wins 1 point (single game)" in text
    assert "null" not in page.inner_text("body") and "undefined" not in page.inner_text("body")
    assert page.locator(".verify-list li").count() == 2
    assert page.locator('.verify-list li[data-roll="rol_a"] .verdict').inner_text() == "✓ verified"
    assert page.locator('.verify-list li[data-roll="rol_b"] .verdict').inner_text() == "✗ FAILED"
    assert page.locator(".match-id").inner_text() == MATCH_ID
    assert page.get_attribute(".audit-link", "href") == f"/audit/{MATCH_ID}?lang=en"
    assert page.get_attribute(".analysis-link", "href") == f"/match/{MATCH_ID}/analysis"
    for kind in ("mat", "json"):
        href = page.get_attribute(f'a[download$=".{kind}"]', "href")
        assert href == f"/api/matches/{MATCH_ID}/export.{kind}"
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.click('[data-action="copy"]')
    assert page.evaluate("navigator.clipboard.readText()") == MATCH_ID
    page.screenshot(path=str(output_dir / "result-component.png"), full_page=True)


class HeadStandIn(StandIn):
    """Also answers the match's signed log head (``GET /api/audit/{id}/head``), counting the
    requests."""

    HEAD = {"format": "boardgammon-log-head-v1", "tree_size": 447, "timestamp": 1,
            "root_hash": "cd" * 32, "signature": "ef" * 64}

    def __init__(self, page, state):
        self.head_requests = 0
        super().__init__(page, state)

    def handle(self, route, request):
        if request.url.endswith(f"/api/audit/{MATCH_ID}/head"):
            self.head_requests += 1
            return self.json(route, {"head": self.HEAD})
        return super().handle(route, request)


def test_a_reloaded_result_still_shows_the_signed_log_head(page):
    # The head came only with the live match_end event: opening the finished match later
    # showed no head (issue #25: the result dialog shows the signed head that includes it).
    stand_in = HeadStandIn(page, finished_state())
    page.goto(f"{page.base}/match/{MATCH_ID}")
    line = page.locator("section.result .log-head")
    line.wait_for()
    assert "tree of 447 entries" in line.inner_text()
    assert ("cd" * 32) in line.inner_text()
    page.wait_for_timeout(300)
    assert stand_in.head_requests == 1  # asked once, not on every render


def test_no_chat_box_against_the_computer(page):
    # A new user was offered "Message to your opponent" in a game against the computer.
    human = make_state(Board.initial(), dice=(3, 1))
    open_match(page, human)
    page.wait_for_selector("section.chat:not([hidden])")
    computer = make_state(Board.initial(), dice=(3, 1))
    computer["players"][1] = {**computer["players"][1], "bot": "hard"}
    open_match(page, computer)
    page.wait_for_timeout(300)  # the state is drawn: the board is there
    assert page.locator("section.chat").is_hidden()


def test_clocks_count_the_delay_then_the_reserve(page):
    state = make_state(Board.initial(), dice=(3, 1))
    state["clocks"] = {"delay": 12.0, "reserve": [120.0, 95.5], "running": 0,
                       "delay_left": 1.0, "as_of": 0.0}
    # Installed, the page's clock still runs with the wall's; paused, it moves only when the
    # test moves it (a loaded CI machine had let 0.4 s pass before run_for: "reserve 1:58").
    page.clock.install(time=1_000_000)
    page.clock.pause_at(1_001_000)
    open_match(page, state)
    mine = page.locator('[data-clock-seat="0"]')
    theirs = page.locator('[data-clock-seat="1"]')
    assert mine.inner_text() == "delay 0:01 · reserve 2:00"
    assert "in-delay" in mine.get_attribute("class")
    assert theirs.inner_text() == "reserve 1:36"  # 95.5 s, rounded up; not running
    page.clock.run_for(2600)  # the 1 s of delay, then 1.6 s charged to the reserve
    assert mine.inner_text() == "reserve 1:59"
    classes = mine.get_attribute("class")
    assert "in-delay" not in classes and "running" in classes
    assert theirs.inner_text() == "reserve 1:36"


def test_a_first_move_awaited_counts_down_to_the_abort(page, output_dir):
    state = make_state(Board.initial(), dice=(3, 1))
    state["clocks"] = {"delay": 12.0, "reserve": [120.0, 95.5], "running": 0,
                       "delay_left": 12.0, "first_move_left": 45.0, "as_of": 0.0}
    page.set_viewport_size({"width": 360, "height": 740})
    page.clock.install(time=1_000_000)
    page.clock.pause_at(1_001_000)  # the page's time moves only with run_for
    open_match(page, state)
    mine = page.locator('[data-clock-seat="0"]')
    assert mine.inner_text() == "first move within 0:45"
    assert "first-move" in mine.get_attribute("class")
    assert mine.get_attribute("title").startswith("A first move of the match not made in time")
    assert page.locator('[data-clock-seat="1"]').inner_text() == "reserve 1:36"
    # What the countdown's end means, in the page (a phone shows no tooltip).
    assert page.locator(".first-move-note").inner_text() == mine.get_attribute("title")
    page.clock.run_for(10_000)
    assert mine.inner_text() == "first move within 0:35"
    page.screenshot(path=str(output_dir / "first-move-360.png"))
    page.select_option("select#lang", "de")
    # 0:45 where the page read the state again for the new language (the stand-in answers as
    # of its start)
    assert mine.inner_text() in ("erster Zug binnen 0:35", "erster Zug binnen 0:45")
    state["clocks"]["first_move_left"] = None  # ann has moved: the note goes
    open_match(page, state)
    assert page.locator(".first-move-note").is_hidden()


def test_result_screen_of_a_match_lost_on_time(page):
    state = finished_state()
    state["score"] = state["result"]["score"] = [0, 0]
    state["result"]["winner"] = 1
    state["games"] = [{"game_number": 1, "winner": 1, "points": 0, "how": "flag"}]
    open_match(page, state)
    result = page.locator("section.result")
    result.wait_for()
    text = result.inner_text()
    assert "wins the match on time" in text and "Final score: ann 0–0 bob" in text
    assert "0 point" not in text


def test_result_screen_of_an_aborted_match(page, output_dir):
    # bob never made a first move: nobody won, no rating moved, there is nothing to analyse.
    state = finished_state()
    state["score"] = state["result"]["score"] = [0, 0]
    state["result"]["winner"], state["result"]["aborted"] = None, 1
    state["games"] = [{"game_number": 1, "winner": None, "points": 0, "how": "abort"}]
    page.set_viewport_size({"width": 390, "height": 844})
    open_match(page, state)
    result = page.locator("section.result")
    result.wait_for()
    assert result.locator("h2").inner_text() == "Match aborted"
    assert result.locator("p.aborted").inner_text() == (
        "bob did not make a first move in time, so the match was aborted: nobody wins, and it "
        "counts for no rating.")
    text = result.inner_text()
    assert "wins the match" not in text and "Final score" not in text
    assert "Game 1: the match was aborted (a first move was not made in time)" in text
    assert result.locator(".analysis-link").count() == 0
    assert result.locator(".audit-link").count() == 1
    assert "null" not in text and "undefined" not in text
    page.screenshot(path=str(output_dir / "result-aborted-phone.png"), full_page=True)
    state["result"]["aborted"] = 0  # ann's own page, when it was she who made no move
    open_match(page, state)
    page.wait_for_selector("section.result p.aborted:has-text('You did not make a first move in "
                           "time, so the match was aborted')")


def test_keyboard_only_play_with_visible_focus(page):
    board = Board.initial()
    stand_in = open_match(page, make_state(board, dice=(6, 5)),
                          reply=lambda a: make_state(board, on_roll=1, phase="roll"))
    focusable = page.eval_on_selector_all(
        "svg.board [tabindex='0']", "els => els.map(e => +e.dataset.point).sort((a, b) => a - b)")
    assert focusable == [8, 13, 24]  # only what can be played is a tab stop
    page.focus('svg.board .hit[data-point="24"]')
    page.keyboard.press("Tab")  # from the 24 point onwards to the next focusable point
    page.keyboard.press("Shift+Tab")
    assert page.evaluate("document.activeElement.dataset.point") == "24"
    stroke = page.evaluate("getComputedStyle(document.activeElement).stroke")
    assert stroke == "rgb(255, 176, 0)"  # the focus colour, drawn only with keyboard focus
    page.keyboard.press("Enter")  # 24/18: the 5 is blocked, so the 6 moves at once
    assert checkers(page, 18) == 1
    page.focus('svg.board .hit[data-point="13"]')
    page.keyboard.press(" ")  # remaining die 5 gives one destination: 13/8 at once
    send = page.locator('[data-action="send"]')
    send.focus()
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline == "solid"
    page.keyboard.press("Enter")
    page.wait_for_selector("text=bob to move.")
    assert [a["play"] for a in stand_in.actions] == ["24/18 13/8"]


def test_languages(page):
    open_match(page, make_state(Board.initial(), dice=(3, 1)))
    keys = page.evaluate(
        "async () => { const i = await import('/static/i18n.js');"
        " return Object.fromEntries(['en', 'de', 'ja'].map((l) => [l, i.keys(l).sort()])); }")
    assert keys["de"] == keys["en"] and keys["ja"] == keys["en"]
    page.select_option("#lang", "de")
    page.wait_for_selector("text=Zug senden")
    assert "Du bist am Zug" in page.locator(".status").inner_text()
    page.select_option("#lang", "ja")
    page.wait_for_selector("text=手を送る")
    assert page.evaluate("document.documentElement.lang") == "ja"
    page.reload()
    page.wait_for_selector("text=手を送る")  # the choice is remembered


def test_counts_take_the_plural_of_their_language(page):
    """A fresh user saw "1 blunders": strings that depend on a count have plural forms."""
    open_match(page, make_state(Board.initial(), dice=(3, 1)))
    got = page.evaluate(
        "async () => { const i = await import('/static/i18n.js'); const out = [];"
        " for (const l of ['en', 'de', 'ja']) { i.setLang(l); for (const n of [0, 1, 2])"
        " out.push(i.t('analysis.blunders', { n })); }"
        " i.setLang('en'); out.push(i.t('result.game', { n: 3, name: 'ann', points: 1,"
        " how: 'single game' }));"
        " return out; }")
    assert got == ["0 very bad decisions (??)", "1 very bad decision (??)",
                   "2 very bad decisions (??)",
                   "0 sehr schlechte Entscheidungen (??)", "1 sehr schlechte Entscheidung (??)",
                   "2 sehr schlechte Entscheidungen (??)",
                   "大悪手 (??) 0", "大悪手 (??) 1", "大悪手 (??) 2",
                   "Game 3: ann wins 1 point (single game)"]


@pytest.mark.parametrize(("protocol", "pending", "says"), [
    ("v2", False, "waiting a moment for both players' devices to register their chains"),
    ("v2", True, "Opening roll: your turn to roll one die."),
    ("v1", False, "Opening roll: your turn to roll one die."),
])
def test_the_wait_for_the_chains_before_the_first_roll_says_what_it_waits_for(
        page, protocol, pending, says):
    """A live v2 match's first roll is committed once both devices registered their chains
    (up to 3 s): the page said only "Opening roll." with no Roll button meanwhile."""
    roll = {"roll_id": "rol_" + "a" * 26, "seat": 0, "nonce": 0, "commitment": "c" * 64,
            "state": "committed"} if pending else None
    open_match(page, make_state(Board.initial(), phase="opening", dice_protocol=protocol,
                                pending_roll=roll))
    status = page.locator(".status")
    expect(status).to_contain_text(says)
    if says.startswith("Opening roll:"):
        assert "devices" not in status.inner_text()


def test_a_match_length_takes_the_plural_of_its_language(page):
    """A 1-point match read "… auf 1 Punkte" in German (the lobby's seek, the score
    line, the analysis heading and the invitation all said it)."""
    open_match(page, make_state(Board.initial(), dice=(3, 1)))
    got = page.evaluate(
        "async () => { const i = await import('/static/i18n.js'); const out = [];"
        " for (const l of ['de', 'en']) { i.setLang(l); for (const length of [1, 5]) {"
        " out.push(i.t('match.score', { a: 0, b: 0, length }));"
        " out.push(i.t('lobby.seek', { owner: 'ann', variant: 'Backgammon', length,"
        " mode: 'live' }));"
        " out.push(i.t('notify.invitation', { name: 'ann', length }));"
        " out.push(i.t('analysis.match', { a: 'ann', b: 'bob', sa: 1, sb: 0, length,"
        " plies: 0 })); } }"
        " i.setLang('en'); return out; }")
    assert got == [
        "Stand 0–0 · Match auf 1 Punkt", "ann: Backgammon auf 1 Punkt, live",
        "ann lädt dich zu einem Match auf 1 Punkt ein",
        "ann – bob, Endstand 1–0, Match auf 1 Punkt, beurteilt von unserem Netz mit 0-ply",
        "Stand 0–0 · Match auf 5 Punkte", "ann: Backgammon auf 5 Punkte, live",
        "ann lädt dich zu einem Match auf 5 Punkte ein",
        "ann – bob, Endstand 1–0, Match auf 5 Punkte, beurteilt von unserem Netz mit 0-ply",
        "Score 0–0 · 1-point match", "ann: 1-point Backgammon, live",
        "ann invites you to a 1-point match",
        "ann – bob, final score 1–0, 1-point match, judged by our network at 0-ply",
        "Score 0–0 · 5-point match", "ann: 5-point Backgammon, live",
        "ann invites you to a 5-point match",
        "ann – bob, final score 1–0, 5-point match, judged by our network at 0-ply",
    ]


def test_phone_width(browser, static_url, output_dir):
    context = browser.new_context(viewport={"width": 360, "height": 740}, device_scale_factor=2,
                                  has_touch=True, is_mobile=True)
    page = context.new_page()
    page.base = static_url
    open_match(page, make_state(Board.initial(), dice=(3, 1)))
    width = page.evaluate("document.querySelector('svg.board').getBoundingClientRect().width")
    assert 300 <= width <= 360
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    page.tap('svg.board .hit[data-point="8"]')
    assert lit(page) == [5, 7]
    page.screenshot(path=str(output_dir / "board-phone.png"), full_page=True)
    context.close()


def test_a_one_point_match_has_no_cube(browser, static_url, output_dir):
    # No doubling in a 1-point match: no cube on the board, none named beside the score; a
    # 3-point match's centred cube shows 64 and is named (money play keeps it as well).
    for width in (360, 800):
        context = browser.new_context(viewport={"width": width, "height": 800})
        page = context.new_page()
        page.base = static_url
        page.add_init_script("localStorage.setItem('bg.lang', 'en')")
        open_match(page, make_state(Board.initial(), dice=(3, 1)))
        assert page.locator("svg.board g.cube").count() == 0
        assert page.locator(".cube-info").count() == 0
        assert page.locator(".score-text").inner_text() == "Score 0–0 · 1-point match"
        page.screenshot(path=str(output_dir / f"board-one-point-{width}.png"), full_page=True)
        open_match(page, make_state(Board.initial(), dice=(3, 1), length=3))
        page.wait_for_selector("svg.board g.cube")
        assert page.locator("svg.board g.cube text").text_content() == "64"
        assert page.locator(".cube-info").inner_text() == "Cube 1 · centred"
        context.close()


CUBE = {"value": 2, "owner": 0, "available": True}


@pytest.mark.parametrize(
    ("state", "buttons", "press", "sent"),
    [
        # On roll with the cube available: Double beside Roll.
        (dict(phase="roll", cube=CUBE,
              pending_roll={"roll_id": "rol_c", "seat": 0, "nonce": 5, "commitment": "ab" * 32}),
         ["double", "roll"], "double", {"type": "double"}),
        # Doubled by bob: ann (the seat that must act) takes or drops.
        (dict(phase="double_offered", on_roll=1, turn=0,
              cube={"value": 2, "owner": 0, "available": False}),
         ["take", "drop"], "drop", {"type": "drop"}),
        # bob offers to resign a gammon: ann accepts or declines.
        (dict(phase="resign_offered", turn=0, resignation={"seat": 1, "points": 2}),
         ["accept-resign", "decline-resign"], "accept-resign", {"type": "accept_resign"}),
    ],
)
def test_cube_and_resignation_answers(page, state, buttons, press, sent):
    stand_in = open_match(page, make_state(Board.initial(), **state))
    shown = page.eval_on_selector_all(
        ".controls button[data-action]", "els => els.map(e => e.dataset.action)")
    assert [b for b in shown if b not in ("auto", "resign")] == buttons
    page.click(f'[data-action="{press}"]')
    page.wait_for_function("() => !document.querySelector('.controls button:disabled')")
    assert [{k: v for k, v in a.items() if k != "action_id"} for a in stand_in.actions] == [sent]


def test_resign_menu(page):
    board = Board.initial()
    offered = make_state(board, phase="resign_offered", turn=1,
                         resignation={"seat": 0, "points": 2})
    stand_in = open_match(page, make_state(board, dice=(3, 1)), reply=lambda a: offered)
    page.click('[data-action="resign"]')
    assert page.locator("[data-resign]").count() == 3
    page.click('[data-resign="2"]')
    page.wait_for_function("() => !document.querySelector('.controls button:disabled')")
    assert [(a["type"], a["points"]) for a in stand_in.actions] == [("resign", 2)]
    assert page.locator(".status").inner_text() == (
        "You offered to resign: 2 points. Waiting for the answer.")
    assert page.locator(".controls button").count() == 0  # nothing to do but wait


def _engine_accepts_resign(phase: str) -> bool:
    """Whether the rules engine takes a resignation from seat 0 in ``phase`` (its own rule,
    :meth:`boardgammon.engine.Game.resign`), from a game really in that phase."""
    if phase == "opening":
        game = Match(1, players=("ann", "bob")).game
    else:
        game = Game.from_position(Board.initial(), 0)
        if phase == "play":
            game.roll(0, 3, 1)
        elif phase == "double_offered":
            game.double(0)
    assert game.phase.value == phase
    try:
        game.resign(0, 1)
    except EngineError:
        return False
    return True


@pytest.mark.parametrize("phase", ["opening", "roll", "play", "double_offered"])
def test_resign_is_offered_only_where_the_server_accepts_it(page, phase):
    # Before the opening roll the page offered "Resign…", and the server refused it with
    # "cannot resign now: waiting for the opening roll".
    fields = {"dice": (3, 1)} if phase == "play" else {}
    if phase == "double_offered":
        fields = {"on_roll": 1, "turn": 0, "cube": {"value": 2, "owner": None, "available": False}}
    open_match(page, make_state(Board.initial(), phase=phase, **fields))
    page.wait_for_selector('.controls [data-action="auto"]')
    offered = page.locator('.controls [data-action="resign"]').count() == 1
    assert offered == _engine_accepts_resign(phase)


FOCUS_STYLE = """() => {
  const e = document.activeElement;
  const s = getComputedStyle(e);
  // A glossary link is named by its term (data-term), so it is not taken for the brand link.
  return {tag: e.tagName,
          label: e.dataset.action || e.dataset.point || e.dataset.term || e.name || e.id || '',
          visible: s.outlineStyle === 'solid' || s.stroke === 'rgb(255, 176, 0)'};
}"""


def test_every_control_reachable_by_tab_with_visible_focus(page):
    open_match(page, make_state(Board.initial(), dice=(3, 1)))
    seen = []
    for _ in range(30):
        page.keyboard.press("Tab")
        focus = page.evaluate(FOCUS_STYLE)
        if focus["tag"] == "BODY" or (seen and focus == seen[0]):
            break
        seen.append(focus)
    labels = [f["label"] for f in seen]
    assert all(f["visible"] for f in seen), seen
    for control in ("lang", "signout", "6", "8", "13", "24", "undo", "send", "auto", "resign"):
        assert control in labels, labels


def test_two_tabs_send_one_entropy_for_one_roll(browser, static_url):
    """Two pages of the match on one device (one localStorage), both open before either rolled:
    the first asks to roll and the server answers as if nothing happened (a refusal in all
    but name); the second's Roll sends the same entropy for that roll, not fresh bytes that
    would give the server a second outcome to choose from."""
    context = browser.new_context(viewport={"width": 800, "height": 900})
    pages = [context.new_page(), context.new_page()]
    board = Board.initial()
    pending = {"roll_id": "rol_tabs", "seat": 0, "nonce": 41, "commitment": commitment(SEED)}
    state = make_state(board, phase="roll", pending_roll=pending)
    stand_ins = []
    for page in pages:
        page.add_init_script("localStorage.setItem('bg.lang', 'en')")
        stand_ins.append(StandIn(page, state))
        page.goto(f"{static_url}/match/{MATCH_ID}")
        page.wait_for_selector('[data-action="roll"]')
    for page, stand_in in zip(pages, stand_ins, strict=True):
        page.click('[data-action="roll"]')
        for _ in range(100):
            if stand_in.actions:
                break
            page.wait_for_timeout(50)
    sent = [s.actions[0] for s in stand_ins]
    assert [a["roll_id"] for a in sent] == ["rol_tabs", "rol_tabs"]
    assert re.fullmatch("[0-9a-f]{32}", sent[0]["entropy"])
    assert sent[1]["entropy"] == sent[0]["entropy"]
    context.close()
