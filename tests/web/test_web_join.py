"""The join page (an invitation or seek link) shows the seek before it is accepted (issue 23):
who offers it with their rating, length, variant, clock, rated or not and the rating range; a
seek no longer open says whether it was taken (with a link to its match) or withdrawn, and
offers nothing to accept."""

from __future__ import annotations

import pytest
from test_web_social import signed_in

pytestmark = [pytest.mark.browser]


def _details(page) -> dict[str, str]:
    page.wait_for_selector("dl.seek-details dt")
    terms = page.locator("dl.seek-details dt").all_text_contents()
    values = page.locator("dl.seek-details dd").all_text_contents()
    return dict(zip(terms, values, strict=True))


def test_the_join_page_shows_the_seek_then_accepts_it(browser, live_server, output_dir):
    ann = signed_in(browser, live_server, "ann_join")
    bob = signed_in(browser, live_server, "bob_join", width=360)
    seek = ann.request.post("/api/seeks", data={
        "length": 7, "variant": "nackgammon", "clock": "blitz", "invite": "bob_join",
        "rated": True, "min_rating": 1400}).json()
    bob.goto(seek["join_url"])
    assert _details(bob) == {
        "Offered by": "ann_join (1500)",
        "Invitation for": "bob_join",
        "Length (points)": "7 points",
        "Variant": "Nackgammon",
        "Clock": "blitz (8s + 60s/pt)",
        "Rating": "rated",
        "Opponent's rating": "1400–any",
    }
    assert bob.get_attribute("dl.seek-details a.profile", "href") == "/player/ann_join?lang=en"
    # Each term on its value's line, also beside the phone's 44 px profile link.
    middles = bob.evaluate("""() => ["dl.seek-details dt", "dl.seek-details dd a.profile"].map(
        (sel) => {
          const range = document.createRange();
          range.selectNodeContents(document.querySelector(sel));
          const box = range.getBoundingClientRect();
          return box.top + box.height / 2;
        })""")
    assert abs(middles[0] - middles[1]) < 2, middles
    bob.screenshot(path=str(output_dir / "join-details-360.png"), full_page=True)
    # In German, an unrated correspondence seek.
    other = ann.request.post("/api/seeks", data={"length": 1, "mode": "correspondence",
                                                 "days": 1}).json()
    bob.goto(f"{other['join_url']}?lang=de")
    assert _details(bob) == {
        "Angeboten von": "ann_join (1500)",
        "Länge (Punkte)": "1 Punkt",
        "Variante": "Backgammon",
        "Uhr": "Fernpartie, 1 Tag pro Zug",
        "Wertung": "ungewertet",
    }
    bob.screenshot(path=str(output_dir / "join-details-de-360.png"), full_page=True)
    # A third player with the link of bob's invitation: no Accept the server would refuse.
    cyd = signed_in(browser, live_server, "cyd_join", width=360)
    cyd.goto(seek["join_url"])
    cyd.wait_for_selector("section.join .own-seek:has-text('This invitation is for bob_join: "
                          "only they can accept it.')")
    assert cyd.locator('section.join [data-action="accept"]').is_hidden()
    assert cyd.errors == []
    cyd.context.close()
    bob.goto(f"{seek['join_url']}?lang=en")
    bob.wait_for_selector("dl.seek-details dt")
    bob.click('section.join [data-action="accept"]')
    bob.wait_for_url("**/match/mat_*")
    match_path = bob.evaluate("location.pathname")
    # Taken now: the link says so, with nothing to accept, and leads both players (and anyone
    # else, to watch) to the match it started.
    for player in (bob, ann):
        player.goto(seek["join_url"])
        player.wait_for_selector("section.join .seek-closed:has-text('was accepted')")
        assert player.locator('section.join [data-action="accept"]').is_hidden()
        assert player.locator("dl.seek-details dt").count() == 0
        assert player.locator("section.join h2").count() == 0
        assert player.get_attribute("section.join a.to-match", "href") == match_path
    bob.screenshot(path=str(output_dir / "join-accepted-360.png"), full_page=True)
    ann.click("section.join a.to-match")
    ann.wait_for_url(f"**{match_path}")
    ann.wait_for_selector("svg.board")
    assert ann.errors == [] and bob.errors == []


def test_ones_own_seek_and_a_seek_that_is_not_there(browser, live_server):
    """A fresh user's trial: one's own join link offered an Accept button the server refuses
    (own_seek), and a link to a seek that is gone or never was showed a heading over nothing
    with no way back."""
    ann = signed_in(browser, live_server, "ann_own")
    seek = ann.request.post("/api/seeks", data={"length": 3}).json()
    ann.goto(seek["join_url"])
    ann.wait_for_selector("dl.seek-details dt")
    assert ann.locator("section.join .own-seek").inner_text() == (
        "This is your own seek: share this link; the match starts when someone accepts it.")
    assert ann.locator('section.join [data-action="accept"]').is_hidden()
    assert ann.request.delete(f"/api/seeks/{seek['id']}").status == 204
    ann.goto(seek["join_url"])
    ann.wait_for_selector("section.join .seek-closed:has-text('This seek was withdrawn.')")
    assert ann.locator('section.join [data-action="accept"]').is_hidden()
    assert ann.locator("section.join a.to-match").count() == 0
    for address in ("/join/sek_nothing", "/join/%20"):
        response = ann.goto(live_server + address)
        assert response.status == 404
        ann.wait_for_selector("section.join .error:has-text('There is no seek with this link.')")
        assert ann.locator("section.join h2").count() == 0
        assert ann.locator('section.join [data-action="accept"]').is_hidden()
        ann.click('section.join a[href="/"]')
        ann.wait_for_selector("section.lobby")
    assert ann.errors == []


def test_a_signed_out_visitor_reads_the_offer_then_plays_as_a_guest(browser, live_server,
                                                                     output_dir):
    # A friend's link opened signed out showed the sign-in form alone, nothing of the match.
    from test_web_lobby import new_page

    ann = signed_in(browser, live_server, "ann_link")
    seek = ann.request.post("/api/seeks", data={"length": 3, "clock": "rapid"}).json()
    visitor = new_page(browser, live_server)  # signed out
    visitor.set_viewport_size({"width": 360, "height": 740})
    visitor.goto(seek["join_url"])
    assert _details(visitor) == {
        "Offered by": "ann_link (1500)",
        "Length (points)": "3 points",
        "Variant": "Backgammon",
        "Clock": "rapid (12s + 120s/pt)",
        "Rating": "unrated",
    }
    assert visitor.locator("section.join .own-seek").inner_text() == (
        "Sign in, sign up or play as a guest to accept it.")
    assert visitor.locator('section.join [data-action="accept"]').is_hidden()
    form = visitor.locator("section.join form.auth")
    assert form.locator('[data-action="signin"]').inner_text() == "Sign in"
    assert form.locator('[data-action="guest"]').is_visible()
    visitor.screenshot(path=str(output_dir / "join-signed-out-360.png"), full_page=True)
    visitor.set_viewport_size({"width": 1280, "height": 800})  # in line with the terms
    left = [visitor.locator(sel).bounding_box()["x"]
            for sel in ("dl.seek-details", "section.join form.auth")]
    assert abs(left[0] - left[1]) < 1, left
    visitor.set_viewport_size({"width": 360, "height": 740})
    visitor.click('section.join form.auth [data-action="guest"]')
    visitor.wait_for_selector('section.join [data-action="accept"]:visible')
    assert visitor.locator("section.join form.auth").count() == 0
    visitor.click('section.join [data-action="accept"]')
    visitor.wait_for_url("**/match/mat_*")
    visitor.wait_for_selector("svg.board")
    assert visitor.errors == [] and ann.errors == []


def test_no_accept_for_a_rated_seek_whose_range_leaves_you_out(browser, live_server):
    ann = signed_in(browser, live_server, "ann_range")
    bob = signed_in(browser, live_server, "bob_range", width=360)
    seek = ann.request.post("/api/seeks", data={"rated": True, "min_rating": 1600}).json()
    bob.goto(seek["join_url"])
    bob.wait_for_selector("section.join .own-seek:has-text('Your rating is outside this "
                          "seek\\'s range, so you cannot accept it.')")
    assert bob.locator('section.join [data-action="accept"]').is_hidden()
    bob.goto("/?lang=de")
    refusal = bob.locator(f'.lists li[data-seek="{seek["id"]}"] .refusal')
    refusal.wait_for()
    assert refusal.inner_text() == "deine Wertung liegt außerhalb des Bereichs"
    assert bob.locator(f'.lists li[data-seek="{seek["id"]}"] [data-action="accept"]').count() == 0
    assert bob.errors == [] and ann.errors == []


def test_a_rated_seek_says_so_before_play_as_guest_and_lets_a_guest_keep_the_account(
        browser, live_server, output_dir):
    # A guest who followed a rated seek's link was refused with nowhere to go (a new user's
    # trial): the page says a rated seek is not for guests, and a guest keeps the account on it.
    from test_web_lobby import PASSWORD, new_page

    ann = signed_in(browser, live_server, "ann_rated_link")
    seek = ann.request.post("/api/seeks", data={"rated": True}).json()
    visitor = new_page(browser, live_server)
    visitor.set_viewport_size({"width": 360, "height": 740})
    visitor.goto(seek["join_url"])
    note = visitor.locator("section.join .own-seek")
    note.wait_for()
    assert note.inner_text() == ("Sign in or create an account to accept it: a rated seek is not "
                                 "for guests.")
    terms = [dt.inner_text() for dt in visitor.locator("dl.seek-details dt").all()]
    assert "Rating" in terms and "Opponent's rating" not in terms  # no "any–any"
    visitor.click('section.join form.auth [data-action="guest"]')
    visitor.wait_for_selector("section.join .own-seek:has-text('Guests play unrated')")
    assert visitor.locator('section.join [data-action="accept"]').is_hidden()
    box = visitor.locator("section.join details.upgrade-box")
    box.locator("summary").click()
    box.locator('input[name="username"]').fill("kept_link")
    box.locator('input[name="password"]').fill(PASSWORD)
    visitor.screenshot(path=str(output_dir / "join-guest-rated-360.png"), full_page=True)
    box.locator('[data-action="upgrade"]').click()
    visitor.wait_for_selector('section.join [data-action="accept"]:visible')
    visitor.click('section.join [data-action="accept"]')
    visitor.wait_for_url("**/match/mat_*")
    assert visitor.errors == [] and ann.errors == []
