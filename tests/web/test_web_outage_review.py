"""A database outage as a player meets it (issue 21, review). A page opened during one:
``/api/me`` answers 503 ``database_unavailable``, so whether the visitor is signed in is
unknown; the lobby must not show the sign-in form then (a signed-in player took it for being
signed out); it says "server problem, clocks stopped" in the player's language, asks again
after a few seconds, and shows the lobby once the server answers. A play refused in one must
stay sendable though the match cannot be read either."""

from __future__ import annotations

import json
import re

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


class Outage:
    """Answers ``/api/me`` 503 ``database_unavailable`` until :attr:`down` is cleared, then as
    the signed-in ``ann``; every other API call is an empty answer."""

    def __init__(self, page) -> None:
        self.down = True
        self.asked = 0
        page.route("**/api/**", self.handle)
        page.route_web_socket("**/ws/**", lambda ws: None)

    def handle(self, route, request):
        path = re.sub(r"^https?://[^/]+", "", request.url).split("?")[0]
        if path == "/api/me":
            self.asked += 1
            if self.down:
                return route.fulfill(
                    status=503, content_type="application/json", headers={"Retry-After": "5"},
                    body=json.dumps({"error": {"code": "database_unavailable",
                                               "message": "server problem: the database is "
                                                          "unreachable; try again in 5 s"}}))
            return route.fulfill(status=200, content_type="application/json", body=json.dumps(
                {"user": {"id": 1, "username": "ann", "guest": False}}))
        body = [] if path in ("/api/matches", "/api/watch") else {}
        return route.fulfill(status=200, content_type="application/json", body=json.dumps(body))


@pytest.mark.parametrize(("lang", "width", "height"),
                         [("de", 360, 740), ("en", 390, 844), ("ja", 1280, 900)])
def test_an_outage_at_sign_in_is_no_sign_in_form(browser, static_url, output_dir, lang, width,
                                                  height):
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.add_init_script(f"localStorage.setItem('bg.lang', '{lang}')")
    outage = Outage(page)
    page.goto(f"{static_url}/")
    notice = page.locator(".outage [role=alert]")
    notice.wait_for()
    assert notice.inner_text().startswith(SHOWN[lang])
    assert "try again in 5 s" not in notice.inner_text()  # the server's English not echoed
    assert page.locator("form.auth").count() == 0
    page.screenshot(path=str(output_dir / f"outage-signin-{lang}-{width}.png"), full_page=True)
    outage.down = False
    page.locator(".lobby").wait_for(timeout=15_000)
    assert outage.asked >= 2
    assert page.locator(".outage").count() == 0
    context.close()


class WholeOutage(StandIn):
    """The match loads; then the database goes: the action and every later read of the match
    are 503 ``database_unavailable`` (the client's refresh after the refusal fails too)."""

    def __init__(self, page, state) -> None:
        super().__init__(page, state)
        self.down = False
        self.over = False  # set by the test: the database is back

    def handle(self, route, request):
        path = re.sub(r"^https?://[^/]+", "", request.url)
        if not self.over and path.startswith(f"/api/matches/{MATCH_ID}") and \
                (self.down or request.method == "POST"):
            self.down = True
            if request.method == "POST":
                self.actions.append(request.post_data)
            return route.fulfill(
                status=503, content_type="application/json", headers={"Retry-After": "5"},
                body=json.dumps({"error": {"code": "database_unavailable", "message": "server "
                                           "problem: the database is unreachable; try again"}}))
        return super().handle(route, request)


@pytest.mark.parametrize(("lang", "width"), [("de", 360), ("ja", 1280)])
def test_after_a_refused_play_in_an_outage_the_play_can_be_sent_again(browser, static_url,
                                                                      output_dir, lang, width):
    """The refusal's refresh fails as well in a real outage; the controls were left as drawn
    while the play was on its way (disabled), so the player could not send it again when the
    server came back, and the clock then ran on."""
    context = browser.new_context(viewport={"width": width, "height": 800})
    page = context.new_page()
    page.add_init_script(f"localStorage.setItem('bg.lang', '{lang}')")
    outage = WholeOutage(page, make_state(Board.initial(), dice=(3, 1)))
    page.goto(f"{static_url}/match/{MATCH_ID}")
    page.wait_for_selector("svg.board .hit")
    tap(page, 8)
    tap(page, 5)
    tap(page, 6)
    send = page.locator('[data-action="send"]')
    send.click()
    page.locator(".status.error").wait_for()
    assert page.locator(".status.error").inner_text().startswith(SHOWN[lang])
    page.wait_for_timeout(500)  # the failed refresh has come back
    page.screenshot(path=str(output_dir / f"outage-resend-{lang}-{width}.png"), full_page=True)
    assert send.is_enabled()
    assert send.get_attribute("aria-disabled") == "false"
    outage.over = True
    with page.expect_response(f"**/api/matches/{MATCH_ID}/actions") as answer:
        send.click()
    assert answer.value.status == 200
    assert len(outage.actions) == 2
    assert json.loads(outage.actions[0])["play"] == outage.actions[1]["play"] == "8/5 6/5"
    context.close()
