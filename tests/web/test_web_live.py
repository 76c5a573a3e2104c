"""Whole matches in Chromium against a real server: two people in two browser contexts play a
1-point live match to the end by tapping on the board, and a guest plays a 1-point match
against the computer. The pages are driven generically (whatever the dice) from what they
show; screenshots of the board, the result screen and the audit page go to test-output/web/."""

from __future__ import annotations

import re
import time

import pytest
from webpage import (
    checkers,
    lit,
    new_page,
    play_by_tapping,
    play_the_computer,
    points_with,
    press,
    register,
    seen,
    tap,
    wait_gone,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

MATCH_LIMIT_S = 400


def first_play_checks(page) -> None:
    """On this page's first turn to play: lit destinations, undo and the refusal of an
    incomplete play, all before the play is built for real."""
    page.wait_for_selector(".dice-mark .verdict.ok")  # the roll was checked on this device
    sources = points_with(page, "movable")
    assert sources
    source = max(sources)
    before = checkers(page, source)
    tap(page, source)
    destinations = lit(page)
    if destinations:  # several destinations: lit until one is tapped
        assert page.locator(f'svg.board .hit.selected[data-point="{source}"]').count() == 1
        tap(page, destinations[0])
    assert checkers(page, source) == before - 1
    if seen(page)["movable"]:  # more to move: sending now is refused on the page
        page.locator('[data-action="send"]').click(force=True)
        assert page.locator(".status.refusal").count() == 1
    page.click('[data-action="undo"]')
    assert checkers(page, source) == before
    assert page.locator("svg.board .die.used").count() == 0


def drive(pages: list, auto: bool, screenshot=None, until=None) -> dict:
    """Let each page act whenever it can until every page shows the result screen (or
    ``until()`` holds). Returns counts of what was done."""
    done = {"rolls": 0, "plays": 0, "dances": 0, "checked": set()}
    deadline = time.monotonic() + MATCH_LIMIT_S
    while not (until() if until else all(seen(p)["result"] for p in pages)):
        assert time.monotonic() < deadline, "the match did not end in time"
        acted = False
        for page in pages:
            now = seen(page)
            if now["busy"]:
                continue
            if now["roll"]:
                press(page, "roll")
                done["rolls"] += 1
                acted = True
            elif now["answer"]:  # the computer may offer to resign
                press(page, now["answer"])
                acted = True
            elif now["dance"]:
                if auto:  # the page sends it by itself after a moment
                    wait_gone(page, "dance")
                else:
                    press(page, "dance")
                done["dances"] += 1
                acted = True
            elif now["movable"]:
                if page not in done["checked"]:
                    first_play_checks(page)
                    done["checked"].add(page)
                    if screenshot:
                        screenshot(page)
                play_by_tapping(page)
                if auto:  # the last tap sent it
                    wait_gone(page, "send")
                else:
                    press(page, "send")
                done["plays"] += 1
                acted = True
        if not acted:
            pages[0].wait_for_timeout(30)
    return done


def check_dice_verified(page) -> int:
    """Every revealed roll in the page's dice record carries the verified mark; how many."""
    page.wait_for_function(
        "() => !document.querySelector('.verify-list .verdict.pending')")
    verdicts = page.eval_on_selector_all(
        ".verify-list li",
        "els => els.map(e => [e.textContent, e.querySelector('.verdict').title])")
    assert verdicts and all("✓" in text for text, _ in verdicts), verdicts
    assert page.locator(".dice-alert").inner_text() == ""
    return len(verdicts)


def check_result(page, winner: str, output_dir, name: str) -> str:
    result = page.locator("section.result")
    text = result.inner_text()
    assert f"{winner} wins the match" in text
    # A 1-point match: the winner has 1 point or more (a gammon may count 2), the loser none.
    assert re.search(r"Final score: .+ (0–[1-3]|[1-3]–0) .+", text)
    how = "single game|gammon|backgammon|resignation"
    assert re.search(rf"Game 1: {re.escape(winner)} wins (1 point|[23] points) \(({how})\)",
                     text)
    match_id = page.locator(".match-id").inner_text()
    assert re.fullmatch(r"mat_\w+", match_id)
    assert page.get_attribute(".audit-link", "href") == f"/audit/{match_id}?lang=en"
    assert re.fullmatch("[0-9a-f]{64}", page.locator(".chain-head").inner_text())
    page.screenshot(path=str(output_dir / f"{name}-result.png"), full_page=True)
    return match_id


def check_downloads(page, match_id: str) -> None:
    mat = page.request.get(f"/api/matches/{match_id}/export.mat")
    assert mat.ok and "1 point match" in mat.text()
    record = page.request.get(f"/api/matches/{match_id}/export.json")
    assert record.ok and record.json()


def check_audit(page, output_dir, name: str, rolls: int) -> None:
    page.click(".audit-link")
    page.wait_for_selector("#summary")
    assert page.locator("#summary.ok").count() == 1
    assert page.locator("td.ok").count() >= rolls
    page.screenshot(path=str(output_dir / f"{name}-audit.png"), full_page=True)


def test_two_players_play_a_live_match_by_tapping(browser, live_server, output_dir):
    ann = new_page(browser, live_server)
    register(ann, "ann_web")
    bob = new_page(browser, live_server, width=390)  # a phone-sized window
    bob.click('[data-action="guest"]')
    bob.wait_for_selector("section.lobby")

    ann.wait_for_selector('form.create [data-action="post-seek"]')
    ann.select_option('form.create select[name="length"]', "1")
    ann.select_option('form.create select[name="clock"]', "slow")
    ann.click('form.create [data-action="post-seek"]')
    join_url = ann.locator(".join-url code").inner_text()
    assert re.fullmatch(rf"{live_server}/join/\S+", join_url)

    bob.goto(join_url)  # the shared link
    bob.click('section.join [data-action="accept"]')
    bob.wait_for_selector("svg.board")
    ann.wait_for_selector("svg.board", timeout=10_000)  # the lobby opens the accepted match
    assert ann.url == bob.url

    boards = []

    def shot(page):
        if not boards:
            page.screenshot(path=str(output_dir / "live-board.png"), full_page=True)
            boards.append(page)

    done = drive([ann, bob], auto=False, screenshot=shot)
    assert done["plays"] >= 10 and done["checked"] == {ann, bob}

    winner = ann.locator(".result .winner").inner_text().removesuffix(" wins the match")
    assert winner in ("ann_web", bob.locator('[data-username]').get_attribute("data-username"))
    match_id = check_result(ann, winner, output_dir, "live")
    assert check_result(bob, winner, output_dir, "live-bob") == match_id
    rolls = check_dice_verified(ann)
    assert check_dice_verified(bob) == rolls
    assert rolls == done["rolls"]  # every roll, the opening ones included, was verified
    check_downloads(ann, match_id)
    check_audit(ann, output_dir, "live", rolls)
    # Every roll took the opponent's link from its page (a request comes as its events alone,
    # no state: the page answers the event); none went without it for want of an answer.
    record = ann.request.get(f"{live_server}/api/audit/{match_id}").json()["rolls"]
    sources = {r["opponent_source"] for r in record if r["opponent_prev_link"] and r["dice"]}
    assert sources == {"client"}, [(r["seq"], r["opponent_source"]) for r in record]
    ann.context.close()
    bob.context.close()


def test_guest_plays_the_computer(browser, live_server, output_dir):
    page = new_page(browser, live_server)
    play_the_computer(page)
    page.wait_for_selector("svg.board")
    page.click('[data-action="auto"]')
    assert page.get_attribute('[data-action="auto"]', "aria-pressed") == "true"

    done = drive([page], auto=True)
    assert done["plays"] >= 5

    names = page.eval_on_selector_all(".verify-list li", "els => els.map(e => e.textContent)")
    # The computer's rolls are checked too, and say that the guest's device took part in them
    # (its link, docs/fair-dice.md §What each kind of roll proves), not the server alone.
    guest = page.get_attribute("[data-username]", "data-username")
    assert any(n.startswith("Computer (easy): ")
               and f"(dice from: server · {guest}'s device)" in n for n in names), names
    result = page.locator(".result .winner").inner_text()
    winner = result.removesuffix(" wins the match")
    match_id = check_result(page, winner, output_dir, "computer")
    rolls = check_dice_verified(page)
    check_audit(page, output_dir, "computer", rolls)
    assert match_id in page.url
    page.context.close()


def test_guest_keeps_the_account_then_signs_in_again(browser, live_server):
    page = new_page(browser, live_server)
    page.click('[data-action="guest"]')
    page.wait_for_selector("section.lobby")
    assert page.get_attribute("[data-username]", "data-username").startswith("guest")
    page.click(".upgrade-box summary")
    page.fill('.upgrade input[name="username"]', "kept_guest")
    page.fill('.upgrade input[name="password"]', "correct horse battery")
    page.click('[data-action="upgrade"]')
    page.wait_for_selector('[data-username="kept_guest"]')
    assert page.locator(".upgrade-box").count() == 0
    assert page.request.get("/api/me").json()["user"]["guest"] is False

    page.click('[data-action="signout"]')
    page.wait_for_selector("form.auth")
    page.fill('input[name="username"]', "kept_guest")
    page.fill('input[name="password"]', "wrong password!")
    page.click('[data-action="signin"]')
    page.wait_for_selector("form.auth .error:not(:empty)")  # the server's refusal, shown
    page.fill('input[name="password"]', "correct horse battery")
    page.click('[data-action="signin"]')
    page.wait_for_selector("section.lobby")
    page.context.close()


def test_a_signed_out_visitor_watches_a_match(browser, live_server):
    """The API lets anyone watch; so does the client: /match/{id} signed out shows the board
    as a spectator (no sign-in form, no controls) and follows the match as it goes on."""
    import httpx

    tokens = []
    for name in ("ann", "bob"):
        r = httpx.post(f"{live_server}/api/auth/register",
                       json={"username": name, "password": "correct horse battery"})
        tokens.append({"Authorization": f"Bearer {r.json()['token']}"})
    seek = httpx.post(f"{live_server}/api/seeks", json={"length": 1}, headers=tokens[0]).json()
    match_id = httpx.post(f"{live_server}/api/seeks/{seek['id']}/accept",
                          headers=tokens[1]).json()["match_id"]
    context = browser.new_context(base_url=live_server)
    context.add_init_script("localStorage.setItem('bg.lang', 'en')")
    page = context.new_page()
    page.goto(f"{live_server}/match/{match_id}")
    # the board's frame is drawn before the first state arrives: wait for its points
    page.wait_for_selector('svg.board .hit[data-point="24"]', state="attached")
    assert page.locator("form.auth").count() == 0
    assert page.locator('[data-action="roll"]').count() == 0
    assert checkers(page, 24) == 2 and checkers(page, 13) == 5
    # Ann rolls the opening roll; the spectator's page shows it in the dice record. (These
    # players have no devices: the first v2 roll waits for their anchors, at most 3 s.)
    for _ in range(100):
        state = httpx.get(f"{live_server}/api/matches/{match_id}", headers=tokens[0]).json()
        if state["pending_roll"]:
            break
        time.sleep(0.1)
    pending = state["pending_roll"]
    r = httpx.post(f"{live_server}/api/matches/{match_id}/actions", headers=tokens[0],
                   json={"action_id": "a1", "type": "roll", "roll_id": pending["roll_id"],
                         "commitment": pending["commitment"], "entropy": "ab" * 16})
    assert r.status_code == 200, r.text
    page.wait_for_selector(".dice-log li", state="attached")  # in the closed record panel
    assert page.locator("form.auth").count() == 0
    context.close()


def test_a_device_without_the_players_chain_says_so(browser, live_server, output_dir):
    """A player starts a match against the computer on one device (its chain registered),
    then opens it in another browser, which holds no chain of the match: its anchor is answered
    409 anchor_registered. That page says it cannot add its part to the computer's rolls, and
    the computer's rolls it sees (the server's input alone: `absent`, no link of ours) say that
    the chain is kept by another device, not that this one "did not answer in time"."""
    first = new_page(browser, live_server)
    register(first, "cara_chain")
    answer = first.request.post(f"{live_server}/api/matches/computer",
                                data={"level": "easy", "length": 3, "variant": "standard"})
    assert answer.status == 201, answer.text()
    match_id = answer.json()["match_id"]
    first.goto(f"{live_server}/match/{match_id}")
    first.wait_for_function("(k) => { const c = JSON.parse(localStorage.getItem(k));"
                            " return c && c.registered && c.accepted; }",
                            arg=f"bg.chain.{match_id}")
    assert first.locator(".chain-warning").is_hidden()
    first.context.close()

    page = new_page(browser, live_server, width=390)
    page.fill('input[name="username"]', "cara_chain")
    page.fill('input[name="password"]', "correct horse battery")
    page.click('[data-action="signin"]')
    page.wait_for_selector("section.lobby")
    page.goto(f"{live_server}/match/{match_id}")
    page.wait_for_selector(".chain-warning:not([hidden])")
    assert page.locator(".chain-warning").inner_text() == (
        "Your dice chain for this match is kept by another device or browser (the one you "
        "started it with), or this browser's site data was cleared. This device cannot add its "
        "part to the computer's rolls: they are made from the server's input alone. Open the "
        "match on the device you started it with to take part in every roll.")
    page.screenshot(path=str(output_dir / "chain-elsewhere-phone.png"), full_page=True)

    def computer_roll() -> dict | None:
        state = page.request.get(f"{live_server}/api/matches/{match_id}").json()
        you = state["you"]
        return next((r for r in state["rolls"] if r["seat"] != you and r.get("dice")
                     and r["kind"] == "normal"), None)

    drive([page], auto=False, until=lambda: computer_roll() is not None)
    roll = computer_roll()
    assert (roll["roller_source"], roll["opponent_source"]) == ("server", "absent"), roll
    row = page.locator(f'.dice-log li[data-roll="{roll["roll_id"]}"] .contributors')
    row.wait_for(state="attached")  # in the closed "dice record"
    assert row.text_content() == ("(dice from: server; your chain for this match is kept by "
                                "another device, so this one could not answer)")
    page.context.close()
