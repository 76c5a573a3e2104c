"""The match screen in Chromium against a real server (issue 22): after every play the other
player sees it marked with the dice that were played, the computer's dice and play are shown,
the move list equals the match's ``.mat`` export line for line, the result dialog comes into
view with the right final score and no Crawford badge, and at phone widths every control is
at least 44 × 44 px with no horizontal scroll. Screenshots go to test-output/web/."""

from __future__ import annotations

import os
import re
import time

import pytest
from webpage import new_page, play_by_tapping, play_the_computer, press, register, seen

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LIMIT_S = int(os.environ.get("SCREEN_LIMIT_S", "400"))


def state_of(page, match_id: str) -> dict:
    return page.request.get(f"/api/matches/{match_id}").json()


def shown_last_play(page) -> dict:
    """What the page shows of the last play: its line, the marks' points, the kept dice."""
    return page.evaluate("""() => {
      const all = (sel, key) => [...document.querySelectorAll(sel)].map(e => +e.dataset[key]);
      return {
        text: document.querySelector('.last-play').textContent,
        from: all('svg.board [data-last-from]', 'lastFrom'),
        to: all('svg.board [data-last-to]', 'lastTo'),
        hit: all('svg.board [data-last-hit]', 'lastHit'),
        dice: all('svg.board .die.last', 'die'),
      };
    }""")


def check_last_play(page, last: dict, viewer: int) -> None:
    """``page`` (the seat ``viewer``) shows ``last`` (the state's last_play): the line names the
    dice and the play, the marks sit on its points in the viewer's numbering, and the dice
    stay on the board."""
    page.wait_for_function(
        "([d, p]) => document.querySelector('.last-play').textContent.includes(d)"
        " && document.querySelector('.last-play').textContent.includes(p)",
        arg=["-".join(map(str, last["dice"])), last["play"]],
    )

    def view(p: int) -> int:
        return p if last["seat"] == viewer or p in (0, 25) else 25 - p

    shown = shown_last_play(page)
    assert sorted(shown["from"]) == sorted(view(m[0]) for m in last["moves"])
    assert sorted(shown["to"]) == sorted(view(m[1]) for m in last["moves"])
    assert sorted(shown["hit"]) == sorted(view(m[1]) for m in last["moves"] if m[2])
    a, b = last["dice"]
    assert sorted(shown["dice"]) == sorted([a] * 4 if a == b else [a, b])


def mat_lines(text: str) -> list[list[tuple[str, str]]]:
    """Per game, each numbered line of a ``.mat`` text as (left, right) column texts."""
    games: list[list[tuple[str, str]]] = []
    for line in text.splitlines():
        if re.match(r"^ Game \d+$", line):
            games.append([])
        elif m := re.match(r"^\s*\d+\) (.*)$", line):
            body = re.sub(r"\s*Wins \d+ points?$", "", m.group(1))
            if not body[:28].strip():  # the left column empty
                games[-1].append(("", body.strip()))
                continue
            # a left entry longer than its column pushes the right one along, as gnubg writes
            entry = re.match(
                r"(\d\d:(?: (?:\d+|bar)(?:/(?:\d+|off)\*?)+(?:\(\d\))?)*"
                r"|Doubles => \d+|Takes|Drops)\s*(.*)$",
                body,
            )
            assert entry, line
            games[-1].append((entry.group(1), entry.group(2).strip()))
    return games


def same_entry(shown: str, mat: str) -> bool:
    """A move-list entry and a ``.mat`` column say the same turn in the same words: a play's
    dice and standard notation character for character (``52: 13/8 24/22``, ``bar/22*``,
    ``8/5(2)``, ``24/13``: the export writes what the list writes). Only the English words
    of the list differ from the format's fixed ones, as the list speaks the page's language:
    ``Doubles to N`` for ``Doubles => N``, and a dance's roll followed by ``cannot move`` (a
    roll a resignation left unplayed is the roll alone in both)."""
    if re.fullmatch(r"\d\d:", mat):
        return shown in (mat, f"{mat} cannot move")
    if m := re.fullmatch(r"Doubles => (\d+)", mat):
        return shown == f"Doubles to {m.group(1)}"
    return shown == mat


def move_list(page) -> list[list[tuple[str, str]]]:
    return page.evaluate("""() => [...document.querySelectorAll('.move-list .moves-game')].map(
      g => [...g.querySelectorAll('.turns li')].map(li => [...li.querySelectorAll('.cell')].map(
        c => (c.querySelector('.turn-entry') || c).textContent.trim())))""")


def test_each_play_is_shown_to_the_other_player_and_the_move_list_is_the_mat(
    browser, live_server, output_dir
):
    ann = new_page(browser, live_server, width=1280)
    register(ann, "ann_screen")
    bob = new_page(browser, live_server, width=390)
    register(bob, "bob_screen")
    ann.select_option('form.create select[name="length"]', "1")
    ann.click('form.create [data-action="post-seek"]')
    bob.goto(ann.locator(".join-url code").inner_text())
    bob.click('section.join [data-action="accept"]')
    bob.wait_for_selector("svg.board")
    ann.wait_for_selector("svg.board", timeout=10_000)
    match_id = bob.url.rsplit("/", 1)[1]
    seat = {p: state_of(p, match_id)["you"] for p in (ann, bob)}
    pages = [ann, bob]
    plays = 0
    deadline = time.monotonic() + LIMIT_S
    while not all(seen(p)["result"] for p in pages):
        assert time.monotonic() < deadline, "the match did not end in time"
        acted = False
        for page in pages:
            other = bob if page is ann else ann
            now = seen(page)
            if now["busy"]:
                continue
            if now["roll"]:
                press(page, "roll")
            elif now["answer"]:
                press(page, now["answer"])
            elif now["dance"] or now["movable"]:
                if now["dance"]:
                    press(page, "dance")
                else:
                    play_by_tapping(page)
                    press(page, "send")
                last = state_of(page, match_id)["last_play"]
                if last is not None:  # None: the play ended the game
                    check_last_play(other, last, seat[other])
                    check_last_play(page, last, seat[page])
                    if plays == 2:
                        ann.screenshot(path=str(output_dir / "screen-last-play-desktop.png"))
                        bob.screenshot(
                            path=str(output_dir / "screen-last-play-390.png"), full_page=True
                        )
                plays += 1
            else:
                continue
            acted = True
        if not acted:
            ann.wait_for_timeout(30)
    assert plays >= 6

    mat = mat_lines(ann.request.get(f"/api/matches/{match_id}/export.mat").text())
    for page in pages:
        page.wait_for_function(
            "(n) => document.querySelectorAll('.move-list .turns li').length === n",
            arg=sum(len(g) for g in mat),
        )
        shown = move_list(page)
        assert [len(g) for g in shown] == [len(g) for g in mat]
        for shown_game, mat_game in zip(shown, mat, strict=True):
            for (left, right), (mat_left, mat_right) in zip(shown_game, mat_game, strict=True):
                assert same_entry(left, mat_left), (left, mat_left)
                assert same_entry(right, mat_right), (right, mat_right)
        # every roll in the list has its verdict, linked to its row on the audit page
        page.wait_for_function("() => !document.querySelector('.move-list .roll-check.pending')")
        links = page.eval_on_selector_all(
            ".move-list .roll-check", "els => els.map(e => [e.textContent, e.getAttribute('href')])"
        )
        assert links and all(
            t == "✓" and re.fullmatch(rf"/audit/{match_id}\?lang=en#\S+", h) for t, h in links
        ), links

        # the result dialog is in view, with the right final score and no Crawford badge
        final = state_of(page, match_id)
        box = page.locator("section.result").bounding_box()
        assert box is not None and 0 <= box["y"] < page.viewport_size["height"] / 2
        you = seat[page]
        score = final["result"]["score"]
        names = [player["username"] for player in final["players"]]
        assert sorted(score) == [0, 1]  # a 1-point match, whatever the gammons
        assert (
            page.locator(".result .final-score").inner_text()
            == f"Final score: {names[you]} {score[you]}–{score[1 - you]} {names[1 - you]}"
        )
        assert page.locator(".score-line .crawford").count() == 0
        assert page.locator(".result .audit-link").inner_text() == "Provably fair dice · Verify"
        assert page.locator(".result .match-id").inner_text() == match_id
        # every roll of the dice record links to its own row of the audit page
        rows = page.eval_on_selector_all(".result .verify-list a.roll-row",
                                         "links => links.map(a => a.getAttribute('href'))")
        assert rows and all(r.startswith(f"/audit/{match_id}?lang=") and "#rol_" in r
                            for r in rows)
        assert len(set(rows)) == len(rows)
    ann.screenshot(path=str(output_dir / "screen-result-desktop.png"))
    bob.screenshot(path=str(output_dir / "screen-result-390.png"))
    ann.screenshot(path=str(output_dir / "screen-moves-desktop.png"), full_page=True)
    bob.screenshot(path=str(output_dir / "screen-moves-390.png"), full_page=True)

    # a past turn, read-only, and back
    bob.locator(".move-list button.turn-entry").first.click()
    bob.wait_for_selector(".past-turn:not([hidden])")
    bob.screenshot(path=str(output_dir / "screen-past-turn-390.png"))
    assert bob.locator(".controls button").count() == 0  # read-only: no roll, no double
    bob.click('[data-action="live"]')
    bob.wait_for_selector(".past-turn[hidden]", state="attached")

    # Rematch: bob asks, ann sees the offer and agrees; both go to the new match, colours swapped
    bob.click('[data-action="rematch"]')
    bob.wait_for_selector(".rematch-wait")
    ann.wait_for_selector('[data-action="rematch"]:has-text("accept")', timeout=10_000)
    ann.screenshot(path=str(output_dir / "screen-rematch-offer-desktop.png"))
    ann.click('[data-action="rematch"]')
    for page in pages:
        page.wait_for_url(re.compile(r".*/match/(?!" + match_id + r")mat_\w+$"), timeout=10_000)
    assert ann.url == bob.url
    new = state_of(ann, ann.url.rsplit("/", 1)[1])
    old = state_of(ann, match_id)
    assert [p["username"] for p in new["players"]] == [
        p["username"] for p in reversed(old["players"])
    ]
    assert (new["length"], new["variant"], new["mode"]) == (1, old["variant"], "live")
    # Opened again later, the finished match stays on screen: its agreed rematch is a link.
    rematch_url = ann.url
    ann.goto(rematch_url.rsplit("/match/", 1)[0] + f"/match/{match_id}")
    ann.wait_for_selector('[data-action="open-rematch"]', timeout=10_000)
    ann.wait_for_timeout(4000)  # longer than the rematch poll
    assert ann.url.endswith(f"/match/{match_id}")
    assert ann.get_attribute('[data-action="open-rematch"]', "href") == \
        "/match/" + rematch_url.rsplit("/", 1)[1]
    ann.context.close()
    bob.context.close()


# Every interactive element, the board's points, bar and tray included (role=button).
SMALL = (
    "button, a[href], select, input, textarea, summary, [role=button], "
    "[tabindex]:not([tabindex='-1'])"
)


def undersized(page) -> list:
    """Visible interactive elements (HTML, and the board's SVG targets) smaller than 44 × 44
    px."""
    return page.evaluate(
        """(sel) => [...document.querySelectorAll(sel)].filter(e => {
        const r = e.getBoundingClientRect();
        return r.width > 0 && r.height > 0 && (r.width < 44 || r.height < 44);
      }).map(e => [e.tagName, e.dataset.point !== undefined ? `point ${e.dataset.point}`
                   : e.className && e.className.baseVal === undefined ? e.className : '',
                   e.textContent.trim().slice(0, 30), Math.round(e.getBoundingClientRect().width),
                   Math.round(e.getBoundingClientRect().height)])""",
        SMALL,
    )


def no_horizontal_scroll(page) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]


@pytest.mark.parametrize(("width", "height"), [(360, 740), (390, 844)])
def test_phone_tap_targets_and_no_horizontal_scroll(
    browser, live_server, output_dir, width, height
):
    context = browser.new_context(base_url=live_server, viewport={"width": width, "height": height})
    context.add_init_script("localStorage.setItem('bg.lang', 'en')")
    page = context.new_page()
    page.goto(live_server + "/")
    page.click('[data-action="guest"]')
    page.wait_for_selector('form.computer [data-action="play-computer"]')
    no_horizontal_scroll(page)
    assert (small := undersized(page)) == [], small
    page.screenshot(path=str(output_dir / f"screen-lobby-{width}.png"), full_page=True)
    page.select_option('form.computer select[name="length"]', "1")
    page.click('form.computer [data-action="play-computer"]')
    page.wait_for_selector('svg.board .hit[data-point="24"]', state="attached")
    page.wait_for_selector(".controls button")
    no_horizontal_scroll(page)
    # the board's 26 targets are among the elements measured
    assert page.locator("svg.board [role=button]").count() == 26
    assert (small := undersized(page)) == [], small
    # Once the move list has turns (whoever won the opening roll), its plays and their ✓
    # links too: a ✓ 28 px wide failed this test when the computer had played first.
    deadline = time.monotonic() + 60
    while page.locator(".move-list .roll-check").count() < 2:
        assert time.monotonic() < deadline, seen(page)
        now = seen(page)
        if now["roll"]:
            page.click('[data-action="roll"]')
        elif now["dance"]:
            page.click('[data-action="dance"]')
        elif now["movable"] and not now["busy"]:
            play_by_tapping(page)
            page.click('[data-action="send"]')
        page.wait_for_timeout(100)
    page.wait_for_selector(".move-list button.turn-entry")
    no_horizontal_scroll(page)
    assert (small := undersized(page)) == [], small
    page.screenshot(path=str(output_dir / f"screen-match-{width}.png"), full_page=True)
    context.close()


def test_the_computers_dice_and_play_are_shown_after_each_of_its_turns(
    browser, live_server, output_dir
):
    page = new_page(browser, live_server, width=390)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    play_the_computer(page)
    page.wait_for_selector("svg.board")
    match_id = page.url.rsplit("/", 1)[1]
    checked = []
    shown = None
    deadline = time.monotonic() + LIMIT_S
    while True:
        if time.monotonic() > deadline:
            page.screenshot(path=str(output_dir / "screen-computer-stuck.png"), full_page=True)
            raise AssertionError(f"the match did not end in time: {seen(page)} {errors}")
        now = seen(page)
        if now["busy"]:
            continue
        if now["roll"] or now["result"]:  # the computer has played: before our next roll
            last = state_of(page, match_id)["last_play"]
            if last and last["seat"] == 1 and last != shown:
                check_last_play(page, last, 0)
                assert "Computer (easy)" in shown_last_play(page)["text"]
                if not checked:
                    page.screenshot(path=str(output_dir / "screen-computer-390.png"))
                checked.append(last)
            shown = last
            if now["result"]:
                break
        if now["roll"]:
            press(page, "roll")
        elif now["answer"]:
            press(page, now["answer"])
        elif now["dance"]:
            press(page, "dance")
        elif now["movable"]:
            play_by_tapping(page)
            press(page, "send")
        else:
            page.wait_for_timeout(50)
    assert len(checked) >= 2
    # the computer always agrees to a rematch: it opens at once, colours swapped
    page.click('[data-action="rematch"]')
    page.wait_for_url(re.compile(r".*/match/(?!" + match_id + r")mat_\w+$"), timeout=10_000)
    new = state_of(page, page.url.rsplit("/", 1)[1])
    assert new["you"] == 1 and new["players"][0]["bot"] == "easy"
    page.context.close()


def test_an_opening_tie_shows_both_dice_then_the_re_roll(browser, static_url, output_dir):
    """The dice are forced by standing in for the server (Playwright routing) with states and
    move lists the server's own builders make from an engine match: 4-4, then 3-5."""
    from test_web_board import StandIn
    from webstate import MATCH_ID

    from boardgammon.engine import Match
    from boardgammon.server.match_state import MatchInfo, Seat, build_state
    from boardgammon.server.move_list import move_list

    match = Match(1, players=("ann", "bob"))
    info = MatchInfo(MATCH_ID, (Seat(1, "ann"), Seat(2, "bob")), 1, "standard", "live", None, None)

    def now() -> tuple[dict, dict]:
        return (
            dict(build_state(info, match, [], 0, 0.0, lambda t: t)),
            {"games": move_list(match)},
        )

    class WithMoves(StandIn):
        def handle(self, route, request):
            if request.url.endswith(f"/api/matches/{MATCH_ID}/moves"):
                return self.json(route, self.moves)
            return super().handle(route, request)

    match.roll_opening(4, 4)
    context = browser.new_context(viewport={"width": 390, "height": 844})
    context.add_init_script("localStorage.setItem('bg.lang', 'en')")
    page = context.new_page()
    state, moves = now()
    state["turn"] = 0  # ann rolls the re-roll (the stand-in has no dice record to say so)
    stand_in = WithMoves(page, state)
    stand_in.moves = moves
    page.goto(f"{static_url}/match/{MATCH_ID}")
    page.wait_for_selector("text=Opening roll: ann 4 · bob 4, a tie: rolled again")
    assert sorted(
        page.eval_on_selector_all("svg.board .die.last", "e => e.map(d => +d.dataset.die)")
    ) == [4, 4]
    assert "tied at 4-4" in page.locator(".status").inner_text()
    page.screenshot(path=str(output_dir / "screen-opening-tie-390.png"))
    # each side's die in its checkers' colour: ann's (the viewer's) light, bob's dark
    fills = die_fills(page)
    assert fills["dice"] == [[4, "me", fills["mine"]], [4, "them", fills["theirs"]]]
    assert fills["mine"] != fills["theirs"]

    # ann's turn (the opening roll is hers): said in the title and icon once the tab is hidden
    assert page.title() == "Boardgammon"
    page.evaluate("""() => {
      Object.defineProperty(document, 'visibilityState', { get: () => 'hidden' });
      document.dispatchEvent(new Event('visibilitychange'));
    }""")
    assert page.title() == "● Your turn · Boardgammon"
    assert page.get_attribute('link[rel="icon"]', "href") == "/static/favicon-turn.svg"
    page.click('[data-action="mute"]')  # the mute is remembered on this device

    match.roll_opening(3, 5)  # bob wins the opening and plays 5-3
    stand_in.state, stand_in.moves = now()
    page.click('[data-action="flip"]')  # the board's direction, remembered on this device
    assert page.locator("svg.board g.flipped").count() == 1
    page.click('[data-action="colours"]')
    page.reload()
    page.wait_for_selector("text=Opening roll: ann 3 · bob 5")
    assert page.locator("svg.board g.flipped").count() == 1
    assert page.get_attribute("svg.board", "class") == "board colours-reversed"
    assert page.get_attribute('[data-action="mute"]', "aria-pressed") == "true"
    page.screenshot(path=str(output_dir / "screen-flipped-390.png"))
    # bob plays the opening roll: ann's 3 and bob's 5, each in its side's colour as chosen
    # (reversed: ann's checkers dark now), on its side's half of the board
    page.wait_for_function("() => document.querySelectorAll('svg.board .die').length === 2")
    reversed_fills = die_fills(page)
    assert reversed_fills["mine"] == fills["theirs"] and reversed_fills["theirs"] == fills["mine"]
    assert sorted(reversed_fills["dice"]) == [
        [3, "me", reversed_fills["mine"]],
        [5, "them", reversed_fills["theirs"]],
    ]
    assert page.locator(".move-list .opening").all_inner_texts() == [
        "Opening roll: ann 4 · bob 4, a tie: rolled again",
        "Opening roll: ann 3 · bob 5",
    ]

    # Escape leaves a past turn shown from the move list for the live board
    match.play(1, "24/21 13/8")
    stand_in.state, stand_in.moves = now()
    page.reload()
    page.click('.move-list button.turn-entry[data-play="24/21 13/8"]')
    page.wait_for_selector(".past-turn:not([hidden])")
    assert page.locator('.move-list button.turn-entry[aria-pressed="true"]').count() == 1
    page.keyboard.press("Escape")
    page.wait_for_selector(".past-turn[hidden]", state="attached")
    assert page.locator('.move-list button.turn-entry[aria-pressed="true"]').count() == 0
    # the live board again: bob's play marked on it
    assert page.locator("svg.board [data-last-to]").count() == 2

    # a past turn shows its own pip counts and its dice, not the live ones
    match.roll(0, 6, 1)
    match.play(0, "13/7 8/7")
    stand_in.state, stand_in.moves = now()
    page.reload()
    page.wait_for_selector('.move-list button.turn-entry[data-play="13/7 8/7"]')
    pips = '[data-seat="0"] > .pips'
    assert page.get_attribute(pips, "data-pips") == "160"  # live: ann has played her 6-1
    page.click('.move-list button.turn-entry[data-play="24/21 13/8"]')
    page.wait_for_selector(".past-turn:not([hidden])")
    assert page.get_attribute(pips, "data-pips") == "167"  # before ann's 6-1
    assert [d[:2] for d in die_fills(page)["dice"]] == [[3, "them"], [5, "them"]]
    page.keyboard.press("Escape")
    page.wait_for_selector(".past-turn[hidden]", state="attached")
    assert page.get_attribute(pips, "data-pips") == "160"
    context.close()


def test_the_dice_record_says_an_opening_roll_is_each_sides_die(browser, static_url):
    """The match page's dice record (in the game and in the result dialog) names an opening
    roll as one die of each side, seat 0's first, a tie as a tie, not as the roll of the seat
    whose device rolled it (as a fresh user read "ann: 4-4" for an opening tie)."""
    from test_web_board import StandIn
    from webstate import MATCH_ID, make_state, revealed_roll

    from boardgammon.engine import Board

    rolls = [
        {**revealed_roll(f"rol_{n}", seat, n, bytes([n]) * 32, bytes(16), dice=dice),
         "kind": kind}
        for n, (seat, dice, kind) in enumerate(
            [(0, [4, 4], "opening"), (1, [3, 5], "opening"), (0, [6, 2], "normal")])
    ]
    context = browser.new_context(viewport={"width": 390, "height": 844})
    context.add_init_script("localStorage.setItem('bg.lang', 'en')")
    page = context.new_page()
    for phase in ("roll", "match_over"):
        StandIn(page, make_state(Board.initial(), phase=phase, rolls=rolls))
        page.goto(f"{static_url}/match/{MATCH_ID}")
        record = ".result .verify-list" if phase == "match_over" else ".dice-log"
        page.wait_for_selector(f"{record} a.roll-row", state="attached")
        assert page.locator(f"{record} a.roll-row").all_text_contents() == [
            "Opening roll: ann 4 · bob 4, a tie: rolled again",
            "Opening roll: ann 3 · bob 5",
            "ann: 6-2",
        ]
    context.close()


def test_the_opening_rolls_winner_played_both_sides_dice(browser, static_url, output_dir):
    """ann and bob tie the opening roll at 3-3, then ann loses it 1 to 2 and bob plays it at
    once (as the computer does, re-rolling a tie itself): ann sees the tie and the opening
    roll said with bob's play and its dice kept one of each side, hers in her colour (she saw
    "bob rolled 2-1", both dice in his colour, as if he had rolled them, and no tie)."""
    from test_web_board import StandIn
    from webstate import MATCH_ID, revealed_roll

    from boardgammon.engine import Match
    from boardgammon.server.match_state import MatchInfo, Seat, build_state
    from boardgammon.server.move_list import move_list

    class WithMoves(StandIn):
        def handle(self, route, request):
            if request.url.endswith(f"/api/matches/{MATCH_ID}/moves"):
                return self.json(route, {"games": move_list(match)})
            return super().handle(route, request)

    match = Match(1, players=("ann", "bob"))
    match.roll_opening(3, 3)
    match.roll_opening(1, 2)
    match.play(1, "13/11 6/5")
    info = MatchInfo(MATCH_ID, (Seat(1, "ann"), Seat(2, "bob")), 1, "standard", "live", None, None)
    state = dict(build_state(info, match, [], 0, 0.0, lambda t: t))
    state["rolls"] = [
        {**revealed_roll(f"rol_{n}", n, n, bytes(32), bytes(16), dice=dice), "kind": "opening"}
        for n, dice in enumerate([[3, 3], [1, 2]])
    ]
    context = browser.new_context(viewport={"width": 390, "height": 844},
                                  reduced_motion="reduce")
    context.add_init_script("localStorage.setItem('bg.lang', 'en')")
    page = context.new_page()
    WithMoves(page, state)
    page.goto(f"{static_url}/match/{MATCH_ID}")
    page.wait_for_selector("svg.board .die.last")
    page.wait_for_selector(".move-list .opening")
    line = page.locator(".last-play").inner_text()
    assert line.startswith("Opening roll: ann 3 · bob 3, a tie: rolled again"
                           " · Opening roll: ann 1 · bob 2 · bob rolled "), line
    assert line.endswith(" and played 13/11 6/5"), line
    fills = die_fills(page)
    assert fills["dice"] == [[1, "me", fills["mine"]], [2, "them", fills["theirs"]]]
    page.screenshot(path=str(output_dir / "screen-opening-lost-390.png"))
    context.close()


def die_fills(page) -> dict:
    """The computed fill of the viewer's checkers, the opponent's and each die's face:
    {mine, theirs, dice: [[value, "me" | "them", fill], …]} (dice sorted by value, then side)."""
    return page.evaluate("""() => {
      const fill = (sel) => getComputedStyle(document.querySelector(sel)).fill;
      const dice = [...document.querySelectorAll('svg.board .die')].map(d => [
        +d.dataset.die, d.classList.contains('me') ? 'me' : 'them',
        getComputedStyle(d.querySelector('rect')).fill]);
      dice.sort((a, b) => a[0] - b[0] || a[1].localeCompare(b[1]));
      return {mine: fill('svg.board .checker.mine'), theirs: fill('svg.board .checker.theirs'),
              dice};
    }""")


def test_the_result_dialog_of_every_ending(browser, static_url, output_dir):
    """For each way a match ends (bear-off single, gammon and backgammon, drop, resignation and
    flag, in 1-point and longer matches) the dialog names the winner and the final score, as
    the server's state builder makes it from the engine's match (the server stood in)."""
    from test_web_board import StandIn
    from webstate import MATCH_ID

    from boardgammon.server.match_state import MatchInfo, Seat, build_state
    from tests.helpers.endings import ENDINGS, ended

    context = browser.new_context(viewport={"width": 360, "height": 740})
    context.add_init_script("localStorage.setItem('bg.lang', 'en')")
    page = context.new_page()
    stand_in = None
    for how, length, score, final in ENDINGS:
        match = ended(how, length, score)
        info = MatchInfo(
            MATCH_ID,
            (Seat(1, "ann"), Seat(2, "bob")),
            length,
            "standard",
            "live",
            "blitz" if how == "flag" else None,
            None,
        )
        state = dict(
            build_state(info, match, [], 1, 10_000.0, lambda t: t, {"chain_head": "ab" * 32})
        )
        if stand_in is None:
            stand_in = StandIn(page, state)
        stand_in.state = state
        page.goto(f"{static_url}/match/{MATCH_ID}")
        page.wait_for_selector("section.result:not([hidden])")
        assert page.locator(".result .winner").inner_text() == "ann wins the match"
        # bob's view: his score first
        assert (
            page.locator(".result .final-score").inner_text()
            == f"Final score: bob {final[1]}–{final[0]} ann"
        ), how
        assert page.locator(".score-line .crawford").count() == 0
        # the board's score line and the players' scores say the final score too (after a
        # flag they said 0–0 under the dialog's "Final score 0–5")
        assert page.locator(".score-line .score-text").inner_text() == \
            f"Score {final[1]}–{final[0]} · {length}-point match", how
        assert page.locator(".player .score").all_inner_texts() == [str(final[0]), str(final[1])]
        box = page.locator("section.result").bounding_box()
        assert box is not None and box["y"] < 740 / 2
        page.screenshot(path=str(output_dir / f"screen-result-{how}-{length}-360.png"))
    context.close()


CONTRIBUTORS = {
    "en": ["dice from: server · ann's device · bob's device",
           "dice from: server · bob's device; ann's device did not answer in time",
           "dice from: server · ann's device",
           "dice from: server; ann's device did not answer in time",
           "dice from: server · ann's device",
           "dice from: server · ann's device",
           "dice from: server"],
    "de": ["Würfel aus: Server · Gerät von ann · Gerät von bob",
           "Würfel aus: Server · Gerät von bob; Gerät von ann antwortete nicht rechtzeitig",
           "Würfel aus: Server · Gerät von ann",
           "Würfel aus: Server; Gerät von ann antwortete nicht rechtzeitig",
           "Würfel aus: Server · Gerät von ann",
           "Würfel aus: Server · Gerät von ann",
           "Würfel aus: Server"],
    "ja": ["ダイスの寄与：サーバー · ann の端末 · bob の端末",
           "ダイスの寄与：サーバー · bob の端末；ann の端末は時間内に応答しなかった",
           "ダイスの寄与：サーバー · ann の端末",
           "ダイスの寄与：サーバー；ann の端末は時間内に応答しなかった",
           "ダイスの寄与：サーバー · ann の端末",
           "ダイスの寄与：サーバー · ann の端末",
           "ダイスの寄与：サーバー"],
}


@pytest.mark.parametrize("code", ["en", "de", "ja"])
def test_each_roll_says_who_contributed(browser, static_url, output_dir, code):
    """The dice record labels each roll by the parties whose input went into it, from the
    roll's own fields (v2: roller_source, opponent_source; v1: entropy_source). It called the
    computer's v2 rolls "(server entropy)", as if the server had chosen them alone, though the
    human's device revealed its link for each (docs/fair-dice.md §What each kind of roll
    proves)."""
    from test_web_board import StandIn
    from webstate import MATCH_ID, make_state, revealed_roll

    from boardgammon.engine import Board

    def v2(n: int, seat: int, roller: str, opponent: str) -> dict:
        entry = revealed_roll(f"rol_{n}", seat, n, bytes([n]) * 32, bytes(16), dice=[n % 6 + 1, 2])
        del entry["client_entropy"], entry["entropy_source"]
        return {**entry, "kind": "normal", "roller_entropy": "00" * 16, "roller_source": roller,
                "opponent_prev_link": None if opponent == "none" else "11" * 32,
                "opponent_entropy": "22" * 32 if opponent == "client" else None,
                "opponent_source": opponent}

    rolls = [
        v2(1, 0, "client", "client"),  # live, both devices
        v2(2, 1, "client", "absent"),  # bob's roll, ann's link too late
        v2(3, 1, "server", "client"),  # the computer's roll (seat 1) with ann's link
        v2(4, 1, "server", "absent"),  # the computer's roll without it: the server alone
        v2(5, 0, "client", "none"),    # ann's roll, the opponent without a chain
        revealed_roll("rol_6", 0, 6, bytes([6]) * 32, bytes(16)),            # v1, ann's device
        revealed_roll("rol_7", 1, 7, bytes([7]) * 32, bytes(16), "server"),  # v1, server only
    ]
    context = browser.new_context(viewport={"width": 360, "height": 800})
    context.add_init_script(f"localStorage.setItem('bg.lang', '{code}')")
    page = context.new_page()
    StandIn(page, make_state(Board.initial(), phase="roll", rolls=rolls))
    page.goto(f"{static_url}/match/{MATCH_ID}")
    page.wait_for_selector(".dice-log li small", state="attached")
    labels = page.eval_on_selector_all(".dice-log li", "els => els.map(e => e.dataset.roll)")
    assert labels == [f"rol_{n}" for n in range(1, 8)]
    shown = page.locator(".dice-log li small.contributors").all_text_contents()
    assert shown == [f"({text})" for text in CONTRIBUTORS[code]]
    page.locator("details:has(.dice-log)").evaluate("d => d.open = true")
    page.locator(".dice-log").scroll_into_view_if_needed()
    page.screenshot(path=str(output_dir / f"screen-dice-contributors-{code}-360.png"))
    context.close()


def test_a_correspondence_turns_absent_link_is_not_called_late(browser, static_url):
    """Found by an outside audit: every correspondence turn is revealed without the
    opponent's link (its device is not asked: nobody waits days for it), and the record said
    the device "did not answer in time"."""
    from test_web_board import StandIn
    from webstate import MATCH_ID, make_state, revealed_roll

    from boardgammon.engine import Board

    entry = revealed_roll("rol_1", 1, 1, bytes([1]) * 32, bytes(16), dice=[2, 2])
    del entry["client_entropy"], entry["entropy_source"]
    entry.update(kind="normal", roller_entropy="00" * 16, roller_source="client",
                 opponent_prev_link="11" * 32, opponent_entropy=None, opponent_source="absent")
    shown = {}
    for mode in ("live", "correspondence"):
        context = browser.new_context(viewport={"width": 360, "height": 800})
        page = context.new_page()
        StandIn(page, make_state(Board.initial(), phase="roll", rolls=[entry], mode=mode,
                                 clocks=None))
        page.goto(f"{static_url}/match/{MATCH_ID}")
        page.wait_for_selector(".dice-log li small.contributors", state="attached")
        shown[mode] = page.locator(".dice-log li small.contributors").all_text_contents()
        context.close()
    assert shown == {
        "live": ["(dice from: server · bob's device; ann's device did not answer in time)"],
        "correspondence": ["(dice from: server · bob's device; ann's device is not asked in a "
                           "correspondence match)"]}
