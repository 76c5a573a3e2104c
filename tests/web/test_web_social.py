"""Chat, games to watch and notifications in a real browser: a chat line holding markup is
shown as the characters typed (nothing runs, no element is made), the lobby's watch list opens
a match as a spectator and counts them, and an invitation reaches the header's badge and, in a
background tab, the title and a browser notification asked for only after a click."""

from __future__ import annotations

import os
import time

import pytest

pytestmark = [pytest.mark.browser]

PASSWORD = "correct horse battery"
XSS = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>&amp; <b>bold</b>'

# Records the browser notifications the page makes and the permission requests, and lets a
# test put the page "in a background tab" (document.hidden) without a second window.
FAKE_NOTIFICATIONS = """
window.__shown = []; window.__asked = 0; window.__hidden = false;
Object.defineProperty(document, 'hidden', { get: () => window.__hidden });
class FakeNotification {
  constructor(title, options) { window.__shown.push({ title, body: options.body }); }
  static get permission() { return window.__permission || 'default'; }
  static async requestPermission() { window.__asked += 1; window.__permission = 'granted';
                                     return 'granted'; }
}
window.Notification = FakeNotification;
localStorage.setItem('bg.lang', 'en');
"""


def signed_in(browser, base: str, name: str, width: int = 800):
    context = browser.new_context(base_url=base, viewport={"width": width, "height": 900})
    context.add_init_script(FAKE_NOTIFICATIONS)
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.dialogs = []
    page.on("dialog", lambda d: (page.dialogs.append(d.message), d.dismiss()))
    r = page.request.post(base + "/api/auth/register",
                          data={"username": name, "password": PASSWORD})
    assert r.status == 201, r.text()
    return page


def match_between(owner, guest) -> str:
    seek = owner.request.post("/api/seeks", data={"length": 3}).json()
    r = guest.request.post(f"/api/seeks/{seek['id']}/accept")
    assert r.status == 201, r.text()
    return r.json()["match_id"]


def test_chat_shows_markup_as_text_on_both_sides(browser, live_server, output_dir):
    ann = signed_in(browser, live_server, "ann_chat", width=360)
    bob = signed_in(browser, live_server, "bob_chat")
    match_id = match_between(ann, bob)
    for page in (ann, bob):
        page.goto(f"/match/{match_id}")
        page.wait_for_selector("section.chat:not([hidden])")
    ann.fill('section.chat input[name="chat"]', XSS)
    ann.click('[data-action="chat-send"]')
    for page in (ann, bob):
        line = page.wait_for_selector("ol.chat-lines li .text")
        assert line.text_content() == XSS
        assert page.locator("ol.chat-lines img, ol.chat-lines script, ol.chat-lines b").count() == 0
        assert page.evaluate("window.__xss") is None
        assert page.dialogs == [] and page.errors == []
    assert ann.input_value('section.chat input[name="chat"]') == ""
    # A line over 300 characters cannot be typed (maxlength); the server's own refusal of
    # one is tested in tests/server/test_social.py.
    ann.fill('section.chat input[name="chat"]', "x" * 400)
    assert len(ann.input_value('section.chat input[name="chat"]')) == 300
    box = ann.locator('[data-action="chat-send"]').bounding_box()
    assert box["width"] >= 44 and box["height"] >= 44
    assert ann.evaluate("document.documentElement.scrollWidth") <= 360
    ann.screenshot(path=str(output_dir / "social-chat-360.png"), full_page=True)
    bob.screenshot(path=str(output_dir / "social-chat-800.png"), full_page=True)
    # Muting ann: bob no longer reads her new lines, and sees them again when he unmutes.
    bob.click('[data-action="chat-mute"]')
    bob.wait_for_selector('[data-action="chat-mute"][aria-pressed="true"]')
    ann.fill('section.chat input[name="chat"]', "while muted")
    ann.click('[data-action="chat-send"]')
    ann.wait_for_selector("ol.chat-lines li:nth-child(2)")
    bob.wait_for_timeout(500)
    assert bob.locator("ol.chat-lines li").count() == 0
    bob.click('[data-action="chat-mute"]')
    bob.wait_for_selector("ol.chat-lines li:nth-child(2)")
    for page in (ann, bob):
        page.context.close()


def test_watch_list_opens_the_spectator_view(browser, live_server, output_dir):
    ann = signed_in(browser, live_server, "ann_watch")
    bob = signed_in(browser, live_server, "bob_watch")
    cyd = signed_in(browser, live_server, "cyd_watch", width=360)
    match_id = match_between(ann, bob)
    ann.goto(f"/match/{match_id}")
    ann.wait_for_selector("section.chat:not([hidden])")
    cyd.goto("/")
    item = cyd.wait_for_selector(f'[data-watch="{match_id}"]')
    assert "ann_watch (1500) vs bob_watch (1500)" in item.text_content()
    assert "0–0 / 3" in item.text_content()
    cyd.screenshot(path=str(output_dir / "social-watch-360.png"), full_page=True)
    cyd.click(f'[data-watch="{match_id}"] a')
    cyd.wait_for_url(f"**/match/{match_id}")
    cyd.wait_for_selector("section.match svg.board")
    assert cyd.locator("section.chat").is_hidden()  # spectators neither read nor write
    ann.wait_for_selector('.spectators[data-spectators="1"]')
    assert ann.text_content(".spectators") == "1 spectator"
    # The spectator sees the count as well, and a second one arriving, live.
    cyd.wait_for_selector('.spectators[data-spectators="1"]')
    dan = signed_in(browser, live_server, "dan_watch", width=360)
    dan.goto(f"/match/{match_id}")
    for page in (ann, cyd, dan):
        page.wait_for_selector('.spectators[data-spectators="2"]')
    assert cyd.text_content(".spectators") == "2 spectators"
    cyd.screenshot(path=str(output_dir / "social-spectator-count-360.png"), full_page=True)
    dan.goto("/")
    cyd.wait_for_selector('.spectators[data-spectators="1"]')
    cyd.goto("/")
    ann.wait_for_selector('.spectators[data-spectators="0"]', state="attached")
    assert ann.errors == [] and cyd.errors == [] and dan.errors == []
    for page in (ann, bob, cyd, dan):
        page.context.close()


def test_an_invitation_reaches_the_badge_title_and_a_notification(browser, live_server,
                                                                    output_dir):
    ann = signed_in(browser, live_server, "ann_note")
    bob = signed_in(browser, live_server, "bob_note")
    bob.goto("/")
    bob.wait_for_selector('.notify .badge[data-count="0"]')
    bob.click('[data-action="notifications"]')
    bob.wait_for_selector('[data-action="allow-notifications"]')
    assert bob.evaluate("window.__asked") == 0  # never asked before the click
    bob.click('[data-action="allow-notifications"]')
    assert bob.evaluate("window.__asked") == 1
    bob.evaluate("window.__hidden = true")  # the player went to another tab
    seek = ann.request.post("/api/seeks", data={"invite": "bob_note", "length": 5}).json()
    bob.wait_for_selector('.notify .badge[data-count="1"]')
    bob.wait_for_function("window.__shown.length === 1")
    assert bob.evaluate("window.__shown") == [{"title": "Boardgammon",
                                               "body": "ann_note invites you"}]
    assert bob.title().startswith("● ann_note invites you")
    link = bob.wait_for_selector('.notify-list li[data-kind="invitation"] a')
    assert link.text_content() == "ann_note invites you to a 5-point match"
    assert link.get_attribute("href") == f"/join/{seek['id']}"
    bob.evaluate("window.__hidden = false; document.dispatchEvent(new Event('visibilitychange'))")
    assert bob.title() == "Boardgammon"
    bob.set_viewport_size({"width": 360, "height": 800})
    bob.screenshot(path=str(output_dir / "social-notifications-360.png"), full_page=True)
    assert bob.errors == []
    for page in (ann, bob):
        page.context.close()


def finished_by_resignation(owner, guest, match_id: str) -> None:
    """Rolls the opening through the API (the dice wait for no device link), then the player
    on roll resigns a single game of the 1-point match and the other accepts."""
    pages, ids = {0: owner, 1: guest}, iter(range(1000))

    def act(page, **body):
        r = page.request.post(f"/api/matches/{match_id}/actions",
                              data={"action_id": f"t{next(ids)}", **body})
        assert r.status == 200, r.text()

    for _ in range(60):
        state = owner.request.get(f"/api/matches/{match_id}").json()
        if state["phase"] != "opening":
            break
        pending = state["pending_roll"]
        if pending and pending["state"] == "committed":
            act(pages[pending["seat"]], type="roll", roll_id=pending["roll_id"],
                commitment=pending["commitment"], entropy=os.urandom(16).hex())
        else:
            time.sleep(0.5)
    act(pages[state["turn"]], type="resign", points=1)
    act(pages[1 - state["turn"]], type="accept_resign")


def test_a_rematch_offer_reaches_the_badge_title_and_the_finished_match(browser, live_server):
    ann = signed_in(browser, live_server, "ann_again", width=360)
    bob = signed_in(browser, live_server, "bob_again")
    seek = ann.request.post("/api/seeks", data={"length": 1, "invite": "bob_again"}).json()
    match_id = bob.request.post(f"/api/seeks/{seek['id']}/accept").json()["match_id"]
    finished_by_resignation(ann, bob, match_id)
    ann.goto("/")
    ann.wait_for_selector('.notify .badge[data-count="0"]')
    ann.evaluate("window.__hidden = true")
    assert bob.request.post(f"/api/matches/{match_id}/rematch").json()["offered_by"] == 1
    ann.wait_for_selector('.notify .badge[data-count="1"]')
    assert ann.title().startswith("● Rematch offered")
    ann.click('[data-action="notifications"]')
    link = ann.wait_for_selector('.notify-list li[data-kind="rematch"] a')
    assert link.text_content() == "bob_again offers a rematch"
    link.click()
    ann.wait_for_url(f"{live_server}/match/{match_id}")
    ann.get_by_role("button", name="Rematch: accept bob_again's offer").wait_for()
    assert ann.errors == []
    for page in (ann, bob):
        page.context.close()


def test_a_second_account_in_another_tab_is_refused_with_a_reason(browser, live_server):
    ann = signed_in(browser, live_server, "ann_tabs")
    bob = signed_in(browser, live_server, "bob_tabs")
    match_id = match_between(ann, bob)
    ann.goto(f"/match/{match_id}")
    ann.wait_for_selector("section.chat:not([hidden])")
    # A second tab of ann's browser signs in as bob: the cookie they share is now bob's.
    tab = ann.context.new_page()
    r = tab.request.post(live_server + "/api/auth/login",
                         data={"username": "bob_tabs", "password": PASSWORD})
    assert r.status == 200, r.text()
    ann.fill('section.chat input[name="chat"]', "who am I?")
    ann.click('[data-action="chat-send"]')
    ann.wait_for_selector("section.chat .error:text('signed in as another account')")
    assert ann.input_value('section.chat input[name="chat"]') == "who am I?"  # kept to resend
    assert bob.request.get(f"/api/matches/{match_id}/chat").json()["messages"] == []
    for page in (ann, bob):
        page.context.close()
