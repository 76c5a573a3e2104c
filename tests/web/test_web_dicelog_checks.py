"""A roll's checks in words in the match page's dice record: the ✓/✗ mark's tooltip needs a
hover that a phone has not, so a tap on the mark (or Enter, or Space) opens the list of what
this device checked, and for ✗ what failed, under the roll's row; a tap again closes it. The
record is drawn again on every state: an opened list stays open, on the same element."""

from __future__ import annotations

import json
import re
import time

import pytest
from test_web_board import StandIn, finished_state
from webpage import play_by_tapping, play_the_computer, seen
from webstate import MATCH_ID

pytestmark = pytest.mark.browser

PROOF_URL = re.compile(r".*/api/audit/mat_[^/?]+/rolls/(rol_[^/?]+)/proof\?after=-?\d+$")
HELD = "Checked on this device and passed:"
FAILED = "What failed:"
LOG_PROOF = "the inclusion proof does not lead to the signed tree head"
LOG_CHECKED = re.compile(
    r"^in the public log: inclusion proof checked against the signed tree head of \d+ entries$")


def panel_of(page, roll_id: str) -> dict:
    """The roll's mark and its checks as the page shows them: the mark's text, aria-expanded
    and title, whether the list is visible, its headings and its items in order."""
    return page.evaluate(
        """(id) => {
          const mark = document.querySelector(`.dice-log li[data-roll="${id}"] button.verdict`);
          const panel = document.getElementById(mark.getAttribute('aria-controls'));
          const r = panel.getBoundingClientRect();
          return {text: mark.textContent, expanded: mark.getAttribute('aria-expanded'),
                  title: mark.title, verdict: mark.dataset.verdict,
                  visible: !panel.hidden && r.width > 0 && r.height > 0,
                  inside: panel.closest('li') === mark.closest('li'),
                  heads: [...panel.querySelectorAll('p')].map((p) => p.innerText),
                  items: [...panel.querySelectorAll('[role=list]')].map(
                    (u) => [...u.querySelectorAll('[role=listitem]')].map((i) => i.innerText))};
        }""",
        roll_id,
    )


def test_a_tap_on_a_mark_shows_the_checks_which_stay_open_as_states_arrive(
    browser, live_server, output_dir
):
    context = browser.new_context(base_url=live_server, viewport={"width": 390, "height": 844},
                                  has_touch=True, reduced_motion="reduce")
    context.add_init_script("localStorage.setItem('bg.lang', 'en')")
    page = context.new_page()
    # The first roll's proof as the server sends it (✓); every later roll's with its first
    # inclusion hash altered (✗: the proof does not lead to the signed head).
    rolls: list[str] = []

    def proofs(route, request):
        roll_id = PROOF_URL.match(request.url)[1]
        if roll_id not in rolls:
            rolls.append(roll_id)
        response = route.fetch()
        proof = response.json()
        if roll_id != rolls[0]:
            for entry in proof["roll"].get("log", []):
                if entry["inclusion_path"]:
                    first = entry["inclusion_path"][0]
                    entry["inclusion_path"][0] = ("0" if first[0] != "0" else "1") + first[1:]
        route.fulfill(response=response, body=json.dumps(proof))

    page.route(PROOF_URL, proofs)
    try:
        page.goto(live_server + "/")
        page.wait_for_selector("form.auth")
        play_the_computer(page, length=3)
        page.wait_for_selector('[data-action="roll"]')
        page.tap('[data-action="roll"]')
        page.tap(".dice-record > summary")
        page.wait_for_selector(".dice-log button.verdict", timeout=30_000)
        first = rolls[0]
        ok = f'.dice-log li[data-roll="{first}"] button.verdict'
        before = panel_of(page, first)
        assert (before["text"], before["verdict"], before["expanded"], before["visible"]) == (
            "✓ verified", "ok", "false", False)
        mark = page.locator(ok).bounding_box()
        assert mark["width"] >= 44 and mark["height"] >= 44  # a phone's tap target

        page.tap(ok)
        opened = panel_of(page, first)
        assert (opened["expanded"], opened["visible"], opened["inside"]) == ("true", True, True)
        assert opened["heads"] == [HELD]
        [checks] = opened["items"]
        assert checks == opened["title"].split("; ")  # the tooltip's checks, in words
        for named in ["seed matches commitment", "dice follow from the recipe",
                      "tree head signature (Ed25519) verified"]:
            assert named in checks
        assert sum(bool(LOG_CHECKED.match(c)) for c in checks) == 1
        # The text fits the phone: no line runs past the screen's edge.
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        page.eval_on_selector(ok, "b => { b.kept = 'yes'; }")

        # Play on until a later roll is in the record with its ✗: states keep arriving and
        # the record is drawn again on each.
        deadline = time.monotonic() + 90
        failed = '.dice-log button.verdict[data-verdict="failed"]'
        while page.locator(failed).count() == 0:
            assert time.monotonic() < deadline, (seen(page), rolls)
            now = seen(page)
            if now["result"]:
                break
            if now["roll"]:
                page.tap('[data-action="roll"]')
            elif now["answer"]:
                page.tap(f'[data-action="{now["answer"]}"]')
            elif now["dance"]:
                page.tap('[data-action="dance"]')
            elif now["movable"] and not now["busy"]:
                play_by_tapping(page)
                if seen(page)["send"]:
                    page.click('[data-action="send"]')
            page.wait_for_timeout(100)
        page.wait_for_selector(failed, timeout=30_000)
        assert page.locator(".dice-log > li").count() == page.locator(".dice-log li").count() >= 2
        assert page.eval_on_selector(ok, "b => b.kept") == "yes"  # the same element
        assert panel_of(page, first) == opened  # still open, the same words

        bad = page.eval_on_selector(failed, "b => b.closest('li').dataset.roll")
        assert bad != first
        assert panel_of(page, bad)["visible"] is False
        failed = f'.dice-log li[data-roll="{bad}"] button.verdict'
        page.tap(failed)
        refused = panel_of(page, bad)
        assert (refused["text"], refused["expanded"], refused["visible"]) == (
            "✗ FAILED", "true", True)
        assert refused["heads"][0] == FAILED and refused["items"][0] == [LOG_PROOF]
        assert refused["title"] == LOG_PROOF
        # What held besides: the signature (only the path was altered), never the log's proof.
        assert refused["heads"][-1] == HELD
        assert "tree head signature (Ed25519) verified" in refused["items"][-1]
        assert not any(LOG_CHECKED.match(c) for c in refused["items"][-1])
        page.locator(failed).scroll_into_view_if_needed()
        page.screenshot(path=str(output_dir / "dicelog-checks-390.png"), full_page=True)
        page.set_viewport_size({"width": 1280, "height": 900})
        page.locator(".dice-record").screenshot(path=str(output_dir / "dicelog-checks-1280.png"))

        # A tap again closes it; so does Enter from the keyboard, and Space opens it again.
        page.tap(ok)
        assert (panel_of(page, first)["expanded"], panel_of(page, first)["visible"]) == (
            "false", False)
        page.focus(failed)
        page.keyboard.press("Enter")
        assert panel_of(page, bad)["visible"] is False
        page.keyboard.press("Space")
        assert panel_of(page, bad)["visible"] is True
    finally:
        page.unroute_all(behavior="ignoreErrors")
        context.close()  # no route of this page outlives the test's server


def test_the_result_dialogs_record_keeps_a_rolls_checks_open_when_drawn_again(browser,
                                                                           static_url):
    """The result dialog is drawn anew with each state (its record's verdicts come in): a
    roll's checks opened there stay open, though every element is new."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True)
    page = context.new_page()
    page.add_init_script("localStorage.setItem('bg.lang', 'en')")
    state = finished_state()  # rol_a as the recipe gives it, rol_b with other dice
    StandIn(page, state)
    sockets: list = []
    page.route_web_socket("**/ws/**", lambda ws: sockets.append(ws))  # the test speaks through it
    page.goto(f"{static_url}/match/{MATCH_ID}")
    page.wait_for_selector(".verify-list .verdict.failed", state="attached")
    page.tap("section.result details.dice-record > summary")
    mark = '.verify-list li[data-roll="rol_b"] button.verdict'
    page.tap(mark)
    panel = f'section.result #{page.get_attribute(mark, "aria-controls")}'
    assert page.get_attribute(mark, "aria-expanded") == "true"
    said = page.inner_text(panel)
    assert [line for line in said.splitlines() if line] == [
        "What failed:", "the dice do not follow from the recipe",
        "Checked on this device and passed:", "seed matches commitment"]
    page.eval_on_selector(".verify-list", "n => { n.old = true; }")
    sockets = [ws for ws in sockets if "/ws/matches/" in ws.url]  # not the notifications'
    sockets[0].send(json.dumps({"type": "state",
                                "state": {**state, "version": state["version"] + 1}}))
    page.wait_for_function("() => document.querySelector('.verify-list').old === undefined")
    assert page.get_attribute(mark, "aria-expanded") == "true"
    assert page.is_visible(panel) and page.inner_text(panel) == said
    assert not page.is_visible('section.result #checks-result-rol_a')  # never opened
    context.close()
