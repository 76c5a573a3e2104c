"""A database outage on the match page (issue 21): the refusal ``database_unavailable`` is
shown as "server problem, clocks stopped" in the player's language, not as a generic error,
and the play stays on the board to send again. The server is stood in by Playwright routing
(tests/web/test_web_board.py's StandIn) answering the action with the API's 503."""

from __future__ import annotations

import pytest
from test_web_board import StandIn
from webpage import tap
from webstate import MATCH_ID, make_state

from boardgammon.engine import Board

pytestmark = pytest.mark.browser

SHOWN = {
    "en": "Server problem, clocks stopped",
    "de": "Serverproblem, die Uhren stehen",
    "ja": "サーバーの問題のため、時計は止まっています",
}


class Outage(StandIn):
    """Every POSTed action is kept and answered 503 ``database_unavailable``."""

    def handle(self, route, request):
        if request.method == "POST" and request.url.endswith(f"/api/matches/{MATCH_ID}/actions"):
            self.actions.append(request.post_data)
            return route.fulfill(
                status=503,
                content_type="application/json",
                headers={"Retry-After": "5"},
                body='{"error": {"code": "database_unavailable", "message": "server problem: '
                'the database is unreachable; try again in 5 s"}}',
            )
        return super().handle(route, request)


@pytest.mark.parametrize("width", [360, 1280])
@pytest.mark.parametrize("lang", ["en", "de", "ja"])
def test_an_outage_is_shown_as_clocks_stopped(browser, static_url, output_dir, lang, width):
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    page.add_init_script(f"localStorage.setItem('bg.lang', '{lang}')")
    outage = Outage(page, make_state(Board.initial(), dice=(3, 1)))
    page.goto(f"{static_url}/match/{MATCH_ID}")
    page.wait_for_selector("svg.board .hit")
    tap(page, 8)
    tap(page, 5)
    tap(page, 6)
    page.click('[data-action="send"]')
    status = page.locator(".status.error")
    status.wait_for()
    assert status.inner_text().startswith(SHOWN[lang])
    assert "database" not in status.inner_text()  # the server's English is not echoed
    assert len(outage.actions) == 1
    page.screenshot(path=str(output_dir / f"outage-{lang}-{width}.png"), full_page=True)
    # The play is still there, to be sent again when the server is back.
    assert page.locator('[data-action="send"]').get_attribute("aria-disabled") == "false"
    context.close()


HELD = {
    "en": "This match is on hold",
    "de": "Dieses Match ruht",
    "ja": "この対局は保留中です",
}


class HeldMatch(StandIn):
    """The match's dice record cannot be read: its state is answered 503 ``record_corrupt``."""

    def handle(self, route, request):
        if request.url.endswith(f"/api/matches/{MATCH_ID}") and request.method == "GET":
            return route.fulfill(
                status=503,
                content_type="application/json",
                body='{"error": {"code": "record_corrupt", "message": "the dice record of match '
                f'{MATCH_ID} cannot be read: roll r1\'s server_seed is not 32 bytes of hex."}}}}',
            )
        return super().handle(route, request)


@pytest.mark.parametrize("lang", ["en", "de", "ja"])
def test_a_match_held_by_a_corrupt_record_says_so_in_the_players_language(
        browser, static_url, output_dir, lang):
    context = browser.new_context(viewport={"width": 360, "height": 800})
    page = context.new_page()
    page.add_init_script(f"localStorage.setItem('bg.lang', '{lang}')")
    HeldMatch(page, make_state(Board.initial(), dice=(3, 1)))
    page.goto(f"{static_url}/match/{MATCH_ID}")
    status = page.locator(".status.error")
    status.wait_for()
    assert status.inner_text().startswith(HELD[lang])
    assert "server_seed" not in status.inner_text()  # the server's English is not echoed
    page.screenshot(path=str(output_dir / f"record-corrupt-{lang}-360.png"), full_page=True)
    context.close()
