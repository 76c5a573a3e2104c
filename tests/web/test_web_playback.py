"""The other side's play at a pace a person can follow (issue 22, web/playback.js): the board
before the play, then one checker move at a time with the marks so far, a tap or the skip
button shows the end, which is the board the server sent; none of it under
prefers-reduced-motion."""

from __future__ import annotations

import time
import warnings

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from webpage import new_page, play_by_tapping, play_the_computer, press, seen

from boardgammon.engine import Match
from boardgammon.engine.record import Played
from boardgammon.server.match_state import last_play, points
from tests.helpers.random_match import play_random_match

pytestmark = [pytest.mark.browser]


def _plays(seed: int) -> list[dict]:
    """Every play of a random 3-point match that did not end its game: the boards (as
    state.board.points) before and after it and its state.last_play."""
    record = play_random_match(seed, length=3).record
    match = Match(3, "standard", ("Ann", "Bob"))
    cases = []
    for action in record:
        before = [points(match.game.board_for(s)) for s in (0, 1)]
        games = len(match.games)
        match.apply(action)
        if isinstance(action, Played) and len(match.games) == games and not match.is_over:
            after = [points(match.game.board_for(s)) for s in (0, 1)]
            cases.append({"before": before, "after": after, "last": last_play(match)})
    return cases


def test_the_frames_run_from_the_board_before_the_play_to_the_board_after(module_page):
    cases = [c for seed in (1, 2, 3) for c in _plays(seed)]
    assert sum(1 for c in cases if any(hit for _, _, hit in c["last"]["moves"])) >= 2
    frames = module_page.evaluate(
        """async (cases) => {
          const { playFrames } = await import('/static/playback.js');
          return cases.map((c) => playFrames(c.after, c.last));
        }""",
        cases,
    )
    for case, shown in zip(cases, frames, strict=True):
        assert shown is not None, case
        assert len(shown) == len(case["last"]["moves"]) + 1
        assert shown[0] == case["before"], case["last"]
        assert shown[-1] == case["after"], case["last"]
        for frame in shown:  # 15 checkers a side on every step
            assert [sum(seat) for seat in frame] == [15, 15]
    # Moves that do not fit the board are not shown (the page draws the end instead).
    bad = {**cases[0]["last"], "moves": [[24, 1, 0]] * 20}
    assert (
        module_page.evaluate(
            """async ([after, last]) =>
             (await import('/static/playback.js')).playFrames(after, last)""",
            [cases[0]["after"], bad],
        )
        is None
    )


def drawn(page) -> dict:
    """The checkers the board draws on each point, the bar (25) and the trays (0), by the
    viewer's numbering: {point: [mine, theirs]}."""
    return page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('svg.board .hit')]
             .map((e) => [e.dataset.point, [+e.dataset.mine, +e.dataset.theirs]]))"""
    )


def server_board(state: dict) -> dict:
    """What the board should draw for seat 0 at the end of the play."""
    mine, theirs = state["board"]["points"]
    return {str(p): [mine[p], theirs[25 - p] if 0 < p < 25 else theirs[p]] for p in range(26)}


def test_the_computers_play_step_by_step_and_skip_shows_the_end(browser, live_server, output_dir):
    page = new_page(browser, live_server, width=390, motion=True)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    play_the_computer(page)
    page.wait_for_selector("svg.board")
    match_id = page.url.rsplit("/", 1)[1]
    skipped = watched = False
    lost: list[str] = []  # a roll button that stayed after its click: what the page said
    deadline = time.monotonic() + 240
    while not (skipped and watched):
        assert time.monotonic() < deadline, f"{seen(page)} {errors}"
        step = page.get_attribute("svg.board", "data-playback")
        if step is not None:
            done, total = map(int, step.split("/"))
            assert done < total
            marks = page.locator("svg.board .last-marks .last-to").count()
            assert marks == done
            state = page.request.get(f"/api/matches/{match_id}").json()
            if state["last_play"]["seat"] != 1:
                continue  # drawn before this state's play was read back
            assert drawn(page) != server_board(state)  # a step short of the end
            if not skipped:
                page.screenshot(path=str(output_dir / "playback-step-390.png"))
                page.click('.playback [data-action="skip"]')
                skipped = True
            else:  # watched to its end: one move every 0.4 s
                page.set_viewport_size({"width": 1280, "height": 900})
                page.screenshot(path=str(output_dir / "playback-step-1280.png"))
                steps = [done]
                while (step := page.get_attribute("svg.board", "data-playback")) is not None:
                    steps.append(int(step.split("/")[0]))
                    assert time.monotonic() < deadline
                    page.wait_for_timeout(40)
                # every step shown in turn up to the last one, none cut short by a later state
                assert sorted(set(steps)) == list(range(steps[0], total)), (steps, total)
                watched = True
            assert page.is_hidden('.playback [data-action="skip"]')
            assert drawn(page) == server_board(state)
            assert page.locator("svg.board .last-marks .last-to").count() == total
            continue
        now = seen(page)
        if now["result"]:
            pytest.skip("the match ended before the computer had played twice")
        if now["busy"]:
            page.wait_for_timeout(20)
        elif now["roll"]:
            if page.get_attribute("svg.board", "data-playback") is not None:
                continue  # the computer's play came with our roll button: watch it first
            page.click('[data-action="roll"]')
            try:
                page.wait_for_selector(
                    '.controls [data-action="roll"]', state="detached", timeout=5_000
                )
            except PlaywrightTimeout:  # seen once under load: the roll is tapped again
                lost.append(page.inner_text(".status"))
                continue
            after = seen(page)
            if after["movable"] or after["dance"]:  # our turn: our roll replays nothing
                assert page.get_attribute("svg.board", "data-playback") is None
        elif now["dance"]:
            press(page, "dance")
        elif now["movable"]:
            play_by_tapping(page)
            press(page, "send")
        else:
            page.wait_for_timeout(20)
    assert not errors
    if lost:
        warnings.warn(f"a tap on Roll did not take: {lost}", stacklevel=1)
    page.context.close()
