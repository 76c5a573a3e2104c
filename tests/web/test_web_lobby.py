"""Lobby and routing faults found by trying the site as a new user: a double click posts one
seek, "my matches" says how each match is played, the inviter is taken to the live match their
invitee accepted, and an unknown or malformed match address says so instead of hanging."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser]

PASSWORD = "correct horse battery"


def new_page(browser, base: str):
    context = browser.new_context(base_url=base, viewport={"width": 800, "height": 1000})
    context.add_init_script("localStorage.setItem('bg.lang', 'en')")
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.goto(base + "/")
    page.wait_for_selector("form.auth")
    return page


def register(page, name: str) -> None:
    page.fill('input[name="username"]', name)
    page.fill('input[name="password"]', PASSWORD)
    page.click('[data-action="register"]')
    page.wait_for_selector(f'[data-username="{name}"]')
    page.wait_for_selector('form.create [data-action="post-seek"]')


def invitation(browser, base: str, sender: str, invitee: str):
    """Two registered players in their own browser contexts, the first having just posted a
    (live, default) invitation to the second from the lobby form; their pages."""
    ann, bob = new_page(browser, base), new_page(browser, base)
    register(ann, sender)
    register(bob, invitee)
    ann.fill('form.create input[name="invite"]', invitee)
    ann.click('form.create [data-action="post-seek"]')
    return ann, bob


def posts_to(page, path: str) -> list[str]:
    """The paths of the POST requests to ``path`` the page sends from now on, as a list that
    fills as they are sent."""
    sent: list[str] = []
    page.on("request", lambda r: r.method == "POST" and r.url.endswith(path)
            and sent.append(path))
    return sent


def own_seeks(page, name: str) -> int:
    return sum(s["owner"] == name for s in page.request.get("/api/lobby").json()["seeks"])


def test_double_click_posts_one_seek(browser, live_server):
    page = new_page(browser, live_server)
    register(page, "dbl_click")
    posts = posts_to(page, "/api/seeks")
    page.dblclick('form.create [data-action="post-seek"]')
    page.wait_for_selector(".lists li[data-seek]")
    assert posts == ["/api/seeks"]  # both clicks came before the first answer
    assert own_seeks(page, "dbl_click") == 1
    assert page.locator(".lists li[data-seek]").count() == 1
    page.context.close()


def test_a_second_post_of_the_same_seek_is_explained_and_the_link_copies(
        browser, live_server, output_dir):
    """A new user's trial: a click on "Post seek" after the first had landed posted the same
    seek again; the join link was text broken inside "http" with no way to copy it; the rated
    switch was a large empty square; and "no player named …" was English on a Japanese page."""
    page = new_page(browser, live_server)
    register(page, "again_post")
    page.click('form.create [data-action="post-seek"]')
    page.wait_for_selector(".lists li[data-seek]")
    page.click('form.create [data-action="post-seek"]')
    page.wait_for_selector(".lobby .error:has-text('You already have this seek open: it is "
                           "under “Your seeks and invitations”.')")
    assert own_seeks(page, "again_post") == 1
    seek = page.request.get("/api/lobby").json()["mine"][0]
    url = f"{live_server}{seek['join_url']}"
    assert page.locator(".join-url code").inner_text() == url
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.click('.join-url [data-action="copy"]')
    page.wait_for_selector('.join-url [data-action="copy"]:has-text("Copied")')
    assert page.evaluate("navigator.clipboard.readText()") == url
    # Refusals a player meets are said in the page's language (the server's are English).
    page.select_option("select#lang", "ja")
    page.fill('form.create input[name="invite"]', "  nosuchuser ")  # pasted, with spaces
    page.click('form.create [data-action="post-seek"]')
    said = "「nosuchuser」という名前のプレイヤーはいません。"
    page.wait_for_selector(f".lobby .error:has-text('{said}')")
    page.select_option("select#lang", "en")
    page.fill('form.create input[name="invite"]', "AGAIN_post")  # oneself, in other case
    page.click('form.create [data-action="post-seek"]')
    page.wait_for_selector(".lobby .error:has-text('You cannot invite yourself: leave the name "
                           "empty to post an open seek.')")
    assert own_seeks(page, "again_post") == 1
    page.fill('form.create input[name="invite"]', "")
    for width in (390, 1280):  # at 390 the phone's 44 px rule for inputs applies too
        page.set_viewport_size({"width": width, "height": 900})
        box = page.locator('form.create input[name="rated"]').bounding_box()
        assert box is not None and box["width"] <= 26 and box["height"] <= 26, (width, box)
        page.screenshot(path=str(output_dir / f"lobby-join-link-{width}.png"), full_page=True)
    assert page.errors == []
    page.context.close()


def test_double_click_starts_one_computer_match(browser, live_server):
    page = new_page(browser, live_server)
    register(page, "dbl_bot")
    posts = posts_to(page, "/api/matches/computer")
    page.dblclick('form.computer [data-action="play-computer"]')
    page.wait_for_selector("svg.board")
    assert posts == ["/api/matches/computer"]
    assert len(page.request.get("/api/matches").json()) == 1
    page.context.close()


def test_my_matches_say_variant_and_clock(browser, live_server):
    ann, bob = new_page(browser, live_server), new_page(browser, live_server)
    register(ann, "ann_list")
    register(bob, "bob_list")
    ann.select_option('form.create select[name="variant"]', "nackgammon")
    ann.select_option('form.create select[name="clock"]', "blitz")
    ann.click('form.create [data-action="post-seek"]')
    ann.wait_for_selector(".lists li[data-seek]")
    ann.select_option('form.create select[name="variant"]', "hypergammon")
    ann.select_option('form.create select[name="mode"]', "correspondence")
    ann.select_option('form.create select[name="days"]', "3")
    ann.click('form.create [data-action="post-seek"]')
    ann.wait_for_function("() => document.querySelectorAll('.lists li[data-seek]').length === 2")
    seeks = bob.request.get("/api/lobby").json()["seeks"]
    for seek in seeks:
        assert bob.request.post(f"/api/seeks/{seek['id']}/accept").ok
    bob.reload()
    bob.wait_for_function("() => document.querySelectorAll('.lists li[data-match]').length === 2")
    by_variant = {s["variant"]: s for s in seeks}
    items = dict(bob.eval_on_selector_all(
        ".lists li[data-match]", "els => els.map(e => [e.dataset.match, e.textContent])"))
    summaries = {m["variant"]: m["match_id"] for m in bob.request.get("/api/matches").json()}
    live = items[summaries["nackgammon"]]
    assert "Nackgammon" in live and "blitz (8s + 60s/pt)" in live, live
    post = items[summaries["hypergammon"]]
    assert "Hypergammon" in post and "Correspondence" in post, post
    assert by_variant["hypergammon"]["days"] == 3
    ann.context.close()
    bob.context.close()


def test_inviter_is_taken_to_the_live_match_the_invitee_accepted(browser, live_server):
    ann, bob = invitation(browser, live_server, "ann_inv", "bob_inv")
    bob.wait_for_selector('.lists li[data-seek] [data-action="accept"]', timeout=5000)
    bob.click('.lists li[data-seek] [data-action="accept"]')
    bob.wait_for_selector("svg.board")
    ann.wait_for_url(bob.url, timeout=8000)
    ann.wait_for_selector("svg.board")
    ann.context.close()
    bob.context.close()


@pytest.mark.parametrize("path", ["/match/mat_nonexistent", "/match/nonexistent", "/match/%ZZ"])
def test_unknown_match_address_says_so(browser, live_server, path):
    page = new_page(browser, live_server)
    page.click('[data-action="guest"]')
    page.wait_for_selector("section.lobby")
    page.goto(live_server + path)
    page.wait_for_selector(".status.error", timeout=5000)
    assert "no match" in page.locator(".status").inner_text()
    assert page.locator('a[href="/"]').count() >= 1  # a way back to the lobby
    assert page.errors == []
    page.context.close()


@pytest.mark.parametrize("path", ["/match/mat_nonexistent", "/match/%ZZ"])
@pytest.mark.parametrize("first", ["socket", "read"])
def test_no_match_is_said_whichever_answer_comes_first(browser, live_server, path, first):
    """The page reads the match and opens its socket at once; either may answer first, and the
    later answer must not replace "there is no match" (a malformed ID's read answers 422 with
    the API's rule, the socket not_found). Each order is forced: the other answer is held back
    until the first one's words are shown, then let through."""
    page = new_page(browser, live_server)
    page.click('[data-action="guest"]')
    page.wait_for_selector("section.lobby")
    expected = f"There is no match {'%ZZ' if path.endswith('%ZZ') else 'mat_nonexistent'}."
    held = []
    if first == "socket":
        page.route("**/api/matches/*", lambda route, request: held.append(route))
    else:
        page.route_web_socket("**/ws/matches/**", lambda ws: held.append(ws))
    page.goto(live_server + path)
    status = page.locator(".status.error")
    status.wait_for(timeout=5000)
    assert status.inner_text() == expected
    assert len(held) == 1  # the other answer is still to come
    if first == "socket":
        with page.expect_response("**/api/matches/*", timeout=5000):
            held[0].continue_()
    else:
        server = held[0].connect_to_server()  # the server's not_found frame, then close 4404
        page.wait_for_timeout(500)
        assert server is not None
    page.wait_for_timeout(300)  # the late answer handled
    assert status.inner_text() == expected
    assert page.locator('a[href="/"]').count() >= 1
    # Only the words and the way back: no empty board, options or dice record.
    assert page.locator("section.match svg.board, .dice-record, .match-options").count() == 0
    assert page.errors == []
    page.context.close()


@pytest.mark.parametrize(("path", "selector"), [
    ("/match/%20", ".status.error"), ("/match/%20/analysis", "section.analysis p.error"),
    ("/match/a%20b", ".status.error"), ("/match/" + "x" * 5000, ".status.error"),
    ("/match/" + "y" * 5000 + "/analysis", "section.analysis p.error")],
    ids=["blank", "blank-analysis", "inner-blank", "long", "long-analysis"])
def test_an_id_of_blanks_is_shown_as_the_address_shows_it(browser, live_server, path, selector):
    """A fresh user's: /match/%20 said "There is no match ." with the ID invisible. The page
    comes with status 404 (no such match), and its words name the ID as the address bar does."""
    page = new_page(browser, live_server)
    page.click('[data-action="guest"]')
    page.wait_for_selector("section.lobby")
    response = page.goto(live_server + path)
    assert response.status == 404
    status = page.locator(selector)
    status.wait_for(timeout=5000)
    shown = path.split("/")[2]
    shown = shown if len(shown) <= 40 else shown[:40] + "…"  # a long ID is cut
    assert status.inner_text() == f"There is no match {shown}."
    assert page.errors == []
    page.context.close()


@pytest.mark.parametrize("size", [(390, 844), (1280, 800)])
@pytest.mark.parametrize(("path", "ready"), [("/match/mat_nonexistent", ".status.error"),
                                             ("/audit/mat_nonexistent", "footer.site")])
def test_the_footer_of_a_short_page_is_at_the_foot_of_the_window(browser, live_server, size,
                                                                  path, ready):
    """A fresh user's: on a short page the footer sat mid-screen with empty space below it.
    The client's page and a server-rendered one alike."""
    page = new_page(browser, live_server)
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.goto(live_server + path)
    page.wait_for_selector(ready)
    box = page.locator("footer.site").bounding_box()
    assert box is not None and abs(box["y"] + box["height"] - size[1]) < 1
    assert page.evaluate("document.documentElement.scrollHeight") == size[1]  # no scrolling
    page.context.close()


def test_a_refused_seek_stays_explained_past_the_next_poll(browser, live_server):
    page = new_page(browser, live_server)
    page.clock.install()  # the lobby polls on the page's timers, which the test moves
    register(page, "ann_refused")
    page.fill('form.create input[name="invite"]', "no_such_player")
    page.click('form.create [data-action="post-seek"]')
    page.wait_for_selector(".lobby > .error:not(:empty)")
    polls = []
    page.on("response", lambda r: r.url.endswith("/api/lobby") and polls.append(r))
    page.clock.run_for(4500)  # two lobby polls (every 2 s)
    while len(polls) < 2:
        page.wait_for_event("response")
    polls[-1].finished()
    page.evaluate("0")  # a round trip through the page's event loop: the poll is rendered
    assert "no_such_player" in page.locator(".lobby > .error").inner_text()
    page.fill('form.create input[name="invite"]', "")
    page.click('form.create [data-action="post-seek"]')  # the next action replaces it
    page.wait_for_selector(".lists li[data-seek]")
    assert page.locator(".lobby > .error").inner_text() == ""
    page.context.close()


def test_the_sender_lists_and_withdraws_their_invitation(browser, live_server):
    ann, bob = invitation(browser, live_server, "ann_mine", "bob_mine")
    item = ann.locator('.lists li[data-seek]')
    item.wait_for()
    assert item.count() == 1
    text = item.inner_text()
    assert "invited: bob_mine" in text and "/join/sek_" in text
    section = ann.locator(".lists section", has=ann.locator("li[data-seek]"))
    assert section.locator("h2").inner_text() == "Your seeks and invitations"
    bob.wait_for_selector('.lists li[data-seek] [data-action="accept"]', timeout=5000)
    item.locator('[data-action="withdraw"]').click()
    ann.wait_for_function("() => !document.querySelector('.lists li[data-seek]')")
    assert bob.request.get("/api/lobby").json()["invitations"] == []
    bob.wait_for_function("() => !document.querySelector('.lists li[data-seek]')", timeout=5000)
    ann.context.close()
    bob.context.close()


def test_my_matches_show_both_clocks(browser, live_server):
    ann, bob = new_page(browser, live_server), new_page(browser, live_server)
    register(ann, "ann_clk")
    register(bob, "bob_clk")
    seek = ann.request.post("/api/seeks", data={"length": 1, "clock": "blitz"}).json()
    assert bob.request.post(f"/api/seeks/{seek['id']}/accept").ok
    bob.reload()
    bob.wait_for_selector(".lists li[data-match] .clocks")
    # blitz: 60 s per point; the opening roll is not rolled yet (inside the delay window).
    assert bob.locator(".lists li[data-match] .clocks").inner_text() == (
        "clock: you 1:00 · opponent 1:00")
    ann.context.close()
    bob.context.close()


def test_open_seeks_and_invitations_say_their_clock_or_days(browser, live_server, output_dir):
    ann, bob = new_page(browser, live_server), new_page(browser, live_server)
    register(ann, "ann_terms")
    register(bob, "bob_terms")
    bob.set_viewport_size({"width": 390, "height": 900})
    posted = [ann.request.post("/api/seeks", data=body).json()["id"] for body in (
        {"length": 3, "clock": "blitz"},
        {"length": 3},
        {"length": 5, "mode": "correspondence", "days": 7},
        {"length": 1, "mode": "correspondence", "days": 1, "invite": "bob_terms"},
    )]
    bob.reload()
    bob.wait_for_function("() => document.querySelectorAll('.lists li[data-seek]').length === 4")
    text = dict(bob.eval_on_selector_all(
        ".lists li[data-seek]", "els => els.map(e => [e.dataset.seek, e.firstChild.textContent])"))
    assert [text[k] for k in posted] == [
        "ann_terms: 3-point Backgammon, Live · blitz (8s + 60s/pt)",
        "ann_terms: 3-point Backgammon, Live · no clock",
        "ann_terms: 5-point Backgammon, correspondence, 7 days per move",
        "ann_terms: 1-point Backgammon, correspondence, 1 day per move",
    ]
    bob.screenshot(path=str(output_dir / "lobby-seek-terms-390.png"), full_page=True)
    bob.goto(live_server + "/?lang=de")
    bob.wait_for_function("() => document.querySelectorAll('.lists li[data-seek]').length === 4")
    first = bob.locator(f'.lists li[data-seek="{posted[0]}"]').inner_text()
    assert first.startswith("ann_terms: Backgammon auf 3 Punkte, Live · Blitz (8 s + 60 s/Pkt.)")
    week = bob.locator(f'.lists li[data-seek="{posted[2]}"]').inner_text()
    assert week.startswith("ann_terms: Backgammon auf 5 Punkte, Fernpartie, 7 Tage pro Zug")
    bob.screenshot(path=str(output_dir / "lobby-seek-terms-de-390.png"), full_page=True)
    ann.context.close()
    bob.context.close()


def test_a_404_that_is_not_the_apis_own_says_there_is_no_match(browser, live_server):
    """A proxy's 404 page (no API body: code http_404) stops the page as the API's does."""
    page = new_page(browser, live_server)
    page.click('[data-action="guest"]')
    page.wait_for_selector("section.lobby")
    page.route("**/api/matches/*", lambda route, request: route.fulfill(
        status=404, content_type="text/html", body="<html>not here</html>"))
    page.route_web_socket("**/ws/matches/**", lambda ws: None)
    page.goto(live_server + "/match/mat_gone")
    status = page.locator(".status.error")
    status.wait_for(timeout=5000)
    assert status.inner_text() == "There is no match mat_gone."
    assert page.locator('a[href="/"]').count() >= 1
    page.context.close()
