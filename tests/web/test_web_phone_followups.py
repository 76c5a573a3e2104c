"""Three follow-ups from a new user's trial on phones (web, 2026-12), measured in the browser:
at 320 px the match page scrolled sideways (its scroll width 358 px: the chat's error line, one
unbroken path, ran past its box); in German "Angemeldet als guest-86548d15" broke inside the
name, at its hyphen; the ✓/✗ beside the current turn and in the move list said what they mean
only in a tooltip, which a phone cannot show. The server is stood in
(test_web_board.StandIn) with states and move lists from the server's own builders; the chat's
read is refused as every unknown call is (a 404 whose message is the path). Screenshots in
test-output/web/."""

from __future__ import annotations

import json

import pytest
from test_web_layout_fixes import LINES_JS, GuestStandIn
from test_web_result_dialog import long_finished_state
from webstate import MATCH_ID, revealed_roll

from boardgammon.engine import Match
from boardgammon.server.match_state import MatchInfo, Seat, build_state
from boardgammon.server.move_list import move_list

pytestmark = pytest.mark.browser

PHONES = [(320, 640), (360, 740), (390, 844)]
NAME = "guest-86548d15"
"""The guest's name the header broke at its hyphen (German, 390 px)."""

OVERFLOW_JS = """() => {
  // The page's scroll width, and what sticks out: elements past the window's right edge or
  // whose content is wider than their box.
  const width = window.innerWidth;
  const out = [...document.querySelectorAll('body *')].filter((e) => {
    const r = e.getBoundingClientRect();
    return r.width > 0 && (r.right > width + 0.5 || e.scrollWidth > e.clientWidth + 1
      && getComputedStyle(e).overflowX === 'visible' && e.clientWidth > 0);
  }).map((e) => `${e.tagName}.${e.getAttribute('class')} ${e.scrollWidth}/${e.clientWidth}`);
  return {scroll: document.documentElement.scrollWidth, width, out};
}"""

TEXTS = {
    "en": {"legend": "✓ dice verified on this device, ✗ check failed: "
                     "tap a mark for the roll on the audit page.",
           "ok": "✓ verified", "failed": "✗ FAILED",
           "label": "verified: this roll on the audit page",
           "held": "Checked on this device and passed:", "what": "What failed:"},
    "de": {"legend": "✓ Würfel auf diesem Gerät geprüft, ✗ Prüfung fehlgeschlagen: "
                     "Tippe auf ein Zeichen für den Wurf auf der Prüfseite.",
           "ok": "✓ geprüft", "failed": "✗ FEHLER",
           "label": "geprüft: dieser Wurf auf der Prüfseite",
           "held": "Auf diesem Gerät geprüft und bestanden:", "what": "Fehlgeschlagen:"},
    "ja": {"legend": "✓ この端末でダイスを検証済み、✗ 検証失敗："
                     "記号をタップすると監査ページでそのロールを表示します。",
           "ok": "✓ 検証済み", "failed": "✗ 失敗", "label": "検証済み: 監査ページのこのロール",
           "held": "この端末で検証し、問題がなかった項目：", "what": "検証に失敗した項目："},
}


def game_in_play(forged: bool = False) -> tuple[dict, dict]:
    """A match between ann and bob three turns in, its dice from the recipe (the record's
    rolls verify on the device): the state from the seat on roll, with the dice to play, and
    its move list. ``forged``: the current roll's seed is not the committed one (✗)."""
    match = Match(1, players=("ann", "bob"))
    rolls: list[dict] = []

    def roll(seat: int) -> list[int]:
        n = len(rolls)
        rolls.append(revealed_roll(f"rol_{n:02d}", seat, n, bytes([n + 1]) * 32, bytes([n]) * 16))
        return rolls[-1]["dice"]

    while (dice := roll(0))[0] == dice[1]:
        match.roll_opening(*dice)
    match.roll_opening(*dice)
    seat = 0 if dice[0] > dice[1] else 1
    match.play(seat, match.game.legal_plays()[0])
    for turn in range(3):
        seat = 1 - seat
        match.roll(seat, *roll(seat))
        if turn < 2:
            match.play(seat, match.game.legal_plays()[0])
    if forged:
        rolls[-1]["server_seed"] = "00" * 32
    info = MatchInfo(MATCH_ID, (Seat(1, "ann"), Seat(2, "bob")), 1, "standard", "live", None,
                     None)
    state = dict(build_state(info, match, [], seat, 0.0, lambda t: t, {"chain_head": "ab" * 32}))
    state["rolls"] = rolls
    state["clocks"] = {"delay": 12.0, "reserve": [120.0, 95.5], "running": seat,
                       "delay_left": 12.0, "as_of": 0.0}
    return state, {"games": move_list(match)}


class PhoneStandIn(GuestStandIn):
    """Also answers the move list, and with ``name`` as the guest signed in."""

    def __init__(self, page, state, moves=None, name=None):
        self.moves, self.name = moves, name
        super().__init__(page, state)

    def handle(self, route, request):
        if self.moves and request.url.endswith(f"/api/matches/{MATCH_ID}/moves"):
            return self.json(route, self.moves)
        if self.name and request.url.endswith("/api/me"):
            return self.json(route, {"user": {"id": 1, "username": self.name, "guest": True}})
        return super().handle(route, request)


def open_match(browser, static_url, size, lang, state, moves=None, name=None, sockets=None):
    context = browser.new_context(viewport={"width": size[0], "height": size[1]},
                                  has_touch=True, reduced_motion="reduce")
    page = context.new_page()
    page.add_init_script(f"localStorage.setItem('bg.lang', '{lang}')")
    PhoneStandIn(page, state, moves, name)
    if sockets is not None:  # the test speaks through them
        page.route_web_socket("**/ws/**", lambda ws: sockets.append(ws))
    page.goto(f"{static_url}/match/{MATCH_ID}")
    page.wait_for_selector("svg.board .hit")
    return context, page


def fits(page) -> None:
    measured = page.evaluate(OVERFLOW_JS)
    assert measured["scroll"] <= measured["width"], measured


@pytest.mark.parametrize("size", PHONES, ids=lambda s: f"{s[0]}px")
@pytest.mark.parametrize("lang", ["de", "en", "ja"])
def test_the_match_page_is_no_wider_than_a_phone(browser, static_url, output_dir, lang, size):
    state, moves = game_in_play()
    context, page = open_match(browser, static_url, size, lang, state, moves)
    page.wait_for_selector(".move-list .roll-check.ok")
    page.wait_for_selector(".chat .error:not(:empty)")  # the chat's read, refused
    page.wait_for_selector(".dice-mark .verdict.ok")
    fits(page)
    # with the dice record open, and a roll's checks in words
    page.tap(".match-main > .dice-record > summary")
    page.tap(".dice-log li:first-child button.verdict")
    fits(page)
    if size[0] == 320:
        page.screenshot(path=str(output_dir / f"phone-play-{lang}-320.png"), full_page=True)
    context.close()

    context, page = open_match(browser, static_url, size, lang, long_finished_state())
    page.wait_for_selector(".result .verify-list .verdict.ok", state="attached")
    page.wait_for_selector(".chat .error:not(:empty)")
    fits(page)
    page.tap(".result details.dice-record > summary")
    page.tap(".result .verify-list li:first-child button.verdict")
    fits(page)
    if size[0] == 320:
        page.screenshot(path=str(output_dir / f"phone-result-{lang}-320.png"), full_page=True)
    context.close()


@pytest.mark.parametrize("size", [(320, 640), (390, 844), (1280, 800)], ids=lambda s: f"{s[0]}px")
@pytest.mark.parametrize("lang", ["de", "en", "ja"])
def test_the_header_keeps_the_players_name_whole(browser, static_url, output_dir, lang, size):
    state, _ = game_in_play()
    context, page = open_match(browser, static_url, size, lang, state, name=NAME)
    page.wait_for_selector('header .notify .badge[data-count="0"]')
    lines = page.evaluate(LINES_JS, "header .who")
    said = {"de": f"Angemeldet als {NAME}", "en": f"Signed in as {NAME}",
            "ja": f"{NAME} としてログイン中"}[lang]
    assert "".join(lines).replace(" ", "") == said.replace(" ", "")
    assert sum(NAME in line for line in lines) == 1, lines  # on one line, whole
    if size[0] >= 900:
        assert len(lines) == 1, lines
    # The sign-out button is as wide as its word (it was shrunk below it, the word past its
    # border), and nothing in the header is wider than the window.
    assert page.eval_on_selector('[data-action="signout"]', "b => b.scrollWidth <= b.clientWidth")
    fits(page)
    page.locator("header").screenshot(path=str(output_dir / f"phone-header-{lang}-{size[0]}.png"))
    context.close()


CONTROLS_TOP = "document.querySelector('.controls').getBoundingClientRect().top + scrollY"


def turn_mark(page) -> dict:
    """The current roll's mark beside the status line and its checks as the page shows them."""
    return page.evaluate("""() => {
      const mark = document.querySelector('.turn .dice-mark button.verdict');
      if (!mark) return null;
      const panel = document.getElementById(mark.getAttribute('aria-controls'));
      const r = mark.getBoundingClientRect(), p = panel.getBoundingClientRect();
      const status = document.querySelector('.turn .status').getBoundingClientRect();
      return {text: mark.textContent, expanded: mark.getAttribute('aria-expanded'),
              title: mark.title, width: r.width, height: r.height,
              roll: mark.closest('[data-roll]').dataset.roll,
              visible: !panel.hidden && p.width > 0 && p.height > 0,
              below: p.top >= Math.max(r.bottom, status.bottom) - 1,
              inTurn: panel.closest('.turn') !== null,
              heads: [...panel.querySelectorAll('p')].map((e) => e.innerText),
              items: [...panel.querySelectorAll('[role=listitem]')].map((e) => e.innerText)};
    }""")


@pytest.mark.parametrize("forged", [False, True], ids=["verified", "failed"])
@pytest.mark.parametrize("lang", ["de", "en", "ja"])
def test_a_tap_on_the_turns_mark_shows_its_checks(browser, static_url, output_dir, lang, forged):
    state, moves = game_in_play(forged)
    sockets: list = []
    context, page = open_match(browser, static_url, (390, 844), lang, state, moves,
                               sockets=sockets)
    texts = TEXTS[lang]
    verdict = "failed" if forged else "ok"
    page.wait_for_selector(f".dice-mark .verdict.{verdict}")
    closed = turn_mark(page)
    assert closed is not None, page.inner_html(".turn")  # a button, not a tooltip's span
    assert (closed["text"], closed["expanded"], closed["visible"]) == (
        texts[verdict], "false", False)
    assert closed["roll"] == state["rolls"][-1]["roll_id"]
    assert closed["width"] >= 44 and closed["height"] >= 44  # a phone's tap target
    controls = page.evaluate(CONTROLS_TOP)

    page.tap(".dice-mark button.verdict")
    opened = turn_mark(page)
    assert (opened["expanded"], opened["visible"], opened["below"], opened["inTurn"]) == (
        "true", True, True, True)
    # The same words as the dice record's row for this roll.
    page.tap(".match-main > .dice-record > summary")
    row = f'.dice-log li[data-roll="{opened["roll"]}"] button.verdict'
    page.tap(row)
    record = page.inner_text(f'#{page.get_attribute(row, "aria-controls")}')
    assert [line for line in record.splitlines() if line] == [
        line for line in page.inner_text(".turn .checks").splitlines() if line]
    if forged:
        assert opened["heads"][0] == texts["what"]
        assert opened["title"].split("; ")[0] == opened["items"][0]
    else:
        assert opened["heads"] == [texts["held"]]
        assert opened["items"] == opened["title"].split("; ")
    fits(page)
    page.locator(".turn").screenshot(
        path=str(output_dir / f"phone-turn-checks-{verdict}-{lang}-390.png"))

    # A state arrives (the clocks ran): the mark is the same element, still open.
    page.eval_on_selector(".dice-mark button.verdict", "b => { b.kept = 'yes'; }")
    sockets = [ws for ws in sockets if "/ws/matches/" in ws.url]  # not the notifications'
    newer = {**state, "version": state["version"] + 1,
             "clocks": {**state["clocks"], "reserve": [100.0, 90.0]}}
    sockets[0].send(json.dumps({"type": "state", "state": newer}))
    page.wait_for_function(
        "() => [...document.querySelectorAll('.clock')].some(c => c.textContent.includes('1:30'))")
    assert page.eval_on_selector(".dice-mark button.verdict", "b => b.kept") == "yes"
    assert turn_mark(page) == opened
    # Tapped again, it closes, and the controls are where they were before it opened.
    page.tap(".dice-mark button.verdict")
    assert turn_mark(page)["visible"] is False
    assert page.evaluate(CONTROLS_TOP) == pytest.approx(controls, abs=0.5)
    if lang == "en":
        page.set_viewport_size({"width": 320, "height": 640})
        page.tap(".dice-mark button.verdict")
        fits(page)
        page.locator(".turn").screenshot(
            path=str(output_dir / f"phone-turn-checks-{verdict}-en-320.png"))
        page.set_viewport_size({"width": 1280, "height": 800})
        page.locator(".match-main").screenshot(
            path=str(output_dir / f"phone-turn-checks-{verdict}-en-1280.png"))
    context.close()


@pytest.mark.parametrize("lang", ["de", "en", "ja"])
def test_the_move_lists_marks_say_what_they_mean(browser, static_url, output_dir, lang):
    state, moves = game_in_play()
    context, page = open_match(browser, static_url, (390, 844), lang, state, moves)
    texts = TEXTS[lang]
    page.wait_for_selector(".move-list .roll-check.ok")
    marks = page.eval_on_selector_all(".move-list .roll-check", """els => els.map((a) => {
      const r = a.getBoundingClientRect();
      return {text: a.textContent, label: a.getAttribute('aria-label'),
              href: a.getAttribute('href'), width: r.width, height: r.height};
    })""")
    assert len(marks) == 3  # the opening roll's play and two more: the roll on turn is not
    for mark in marks:
        assert mark["text"] == "✓" and mark["label"] == texts["label"], mark
        assert mark["href"].startswith(f"/audit/{MATCH_ID}?lang={lang}#rol_"), mark
        assert mark["width"] >= 44 and mark["height"] >= 44, mark
    # What ✓ and ✗ mean, said once in words above the list, on the screen without a hover.
    legend = page.locator(".move-list .moves-legend")
    assert legend.count() == 1
    assert legend.inner_text() == texts["legend"]
    box = legend.bounding_box()
    title = page.locator("#moves-title").bounding_box()
    first = page.locator(".move-list .moves-game").first.bounding_box()
    assert title["y"] + title["height"] <= box["y"] and box["y"] + box["height"] <= first["y"]
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390
    fits(page)
    page.locator(".move-list").screenshot(path=str(output_dir / f"phone-moves-{lang}-390.png"))
    # A tap on a mark still opens the roll's row on the audit page.
    href = marks[0]["href"]
    page.tap(".move-list .roll-check >> nth=0")
    page.wait_for_url(f"**{href}")
    if lang == "en":
        context.close()
        context, page = open_match(browser, static_url, (1280, 800), lang, state, moves)
        page.wait_for_selector(".move-list .roll-check.ok")
        assert page.locator(".move-list .moves-legend").inner_text() == texts["legend"]
        page.locator(".move-list").screenshot(path=str(output_dir / "phone-moves-en-1280.png"))
    context.close()


def test_a_move_list_without_marks_has_no_legend(browser, static_url):
    state, moves = game_in_play()
    state["rolls"] = []  # a record not read yet: no mark, nothing to explain
    context, page = open_match(browser, static_url, (390, 844), "en", state, moves)
    page.wait_for_selector(".move-list .turn-entry")
    assert page.locator(".move-list .moves-legend").count() == 0
    context.close()
