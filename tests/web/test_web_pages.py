"""The reading pages (server/routes/pages.py) in Chromium: every page in every language fits a
360 px screen without horizontal scrolling (screenshots at 360 and 1280 px go to
test-output/web/ for review), the match-ID box opens a real match's audit page and answers a
malformed or unknown ID on the page, the app's footer opens the pages in its language, and the
terms on the match screen and in the lobby link to their glossary entries."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from boardgammon.server.i18n import LANGUAGES, SITE_PAGES

pytestmark = pytest.mark.browser


def overflow(page) -> int:
    """How many CSS pixels the page is wider than its window (0 when nothing scrolls sideways)."""
    return page.evaluate("document.documentElement.scrollWidth - window.innerWidth")


@pytest.mark.parametrize("width", [360, 1280])
def test_every_page_in_every_language_fits(browser, live_server, output_dir, width):
    context = browser.new_context(viewport={"width": width, "height": 800})
    page = context.new_page()
    for key, path in SITE_PAGES:
        for code in LANGUAGES:
            page.goto(f"{live_server}{path}?lang={code}")
            assert page.get_attribute("html", "lang") == code
            assert page.locator("footer.site a[aria-current=page]").get_attribute("href") == (
                f"{path}?lang={code}")
            page.screenshot(path=str(output_dir / f"page-{key}-{code}-{width}.png"),
                            full_page=True)
            assert overflow(page) == 0, f"{path}?lang={code} scrolls sideways at {width} px"
    context.close()


@pytest.mark.parametrize("width", [360, 390])
def test_fair_page_tells_dice_v2_on_a_phone(browser, live_server, output_dir, width):
    # The page described dice v1 (two inputs, "your opponent had no part in them").
    context = browser.new_context(viewport={"width": width, "height": 800})
    page = context.new_page()
    for code in LANGUAGES:
        page.goto(f"{live_server}/fair?lang={code}")
        parts = page.eval_on_selector_all("[data-contribution]",
                                          "els => els.map(e => e.dataset.contribution)")
        assert parts == ["seed", "roller", "opponent"]
        kinds = page.eval_on_selector_all("[data-kind]", "els => els.map(e => e.dataset.kind)")
        assert kinds == ["live", "opponent_absent", "computer", "no_opponent_device"]
        assert "boardgammon witness" in page.locator("#log + p + p").inner_text()
        page.locator("#proves").scroll_into_view_if_needed()
        page.screenshot(path=str(output_dir / f"page-fair-v2-{code}-{width}.png"), full_page=True)
        assert overflow(page) == 0, f"/fair?lang={code} scrolls sideways at {width} px"
    context.close()


def computer_match(page, base: str, length: int = 1) -> str:
    """A guest's match against the computer (1 point unless ``length``), once its first roll
    is on record."""
    page.goto(base)
    page.click('[data-action="guest"]')
    page.wait_for_selector('form.computer [data-action="play-computer"]')
    answer = page.request.post(f"{base}/api/matches/computer",
                               data={"level": "easy", "length": length, "variant": "standard"})
    assert answer.status == 201, answer.text()
    match_id = answer.json()["match_id"]
    for _ in range(200):
        if page.request.get(f"{base}/api/audit/{match_id}").status == 200:
            return match_id
        time.sleep(0.05)
    raise AssertionError(f"no dice record for {match_id} within 10 s")


def reveal_rolls(database: Path) -> None:
    """Three matches of four played rolls each in the live server's dice record."""
    from sqlalchemy.orm import Session

    from boardgammon.dice import new_match_id
    from boardgammon.server import dice_record
    from boardgammon.server.db import create_db_engine

    engine = create_db_engine(f"sqlite:///{database}")
    with Session(engine) as session:
        for _ in range(3):
            match_id = new_match_id()
            for seat in (0, 1, 0, 1):
                roll = dice_record.commit_roll(session, match_id, seat)
                dice_record.reveal_roll(session, roll.roll_id, roll.commitment, bytes(16))
                dice_record.mark_played(session, roll.roll_id)
    engine.dispose()


def test_match_box_opens_the_audit_page_and_answers_bad_ids(browser, live_server, output_dir,
                                                            tmp_path):
    context = browser.new_context(viewport={"width": 360, "height": 800})
    page = context.new_page()
    match_id = computer_match(page, live_server)

    page.goto(f"{live_server}/fair?lang=de")
    page.fill("#match-id", "hello")
    page.click("#match-box button[type=submit]")
    alert = page.locator("#match-problem")
    assert "hello ist keine Match-ID" in alert.inner_text()
    assert page.input_value("#match-id") == "hello"
    page.screenshot(path=str(output_dir / "page-fair-malformed-de-360.png"), full_page=True)
    assert overflow(page) == 0

    page.fill("#match-id", "mat_doesnotexist")
    page.click("#match-box button[type=submit]")
    assert page.locator("#match-problem").inner_text() == (
        "Für das Match mat_doesnotexist gibt es auf diesem Server kein Würfelprotokoll.")

    page.fill("#match-id", f"  {match_id} ")
    page.click("#match-box button[type=submit]")
    page.wait_for_url(f"{live_server}/audit/{match_id}?lang=de")
    assert page.locator("h1").inner_text() == f"Würfelprotokoll des Matches {match_id}"
    assert page.locator("#rolls tbody tr").count() >= 1
    # The audit page leads back to the explanation, in its language.
    assert page.get_attribute("#about-fair", "href") == "/fair?lang=de"
    page.screenshot(path=str(output_dir / "page-audit-de-360.png"), full_page=True)
    assert overflow(page) == 0

    # The dice record, with rolls revealed in the server's database, at both widths.
    reveal_rolls(tmp_path / "web.sqlite3")
    for width in (360, 1280):
        page.set_viewport_size({"width": width, "height": 800})
        page.goto(f"{live_server}/dice-record?lang=de")
        assert page.locator("#outcomes").is_visible()
        # The page and the JSON download are the same cached report (at least our 12 rolls).
        rolls = page.request.get(f"{live_server}/dice-record.json").json()["rolls"]
        assert rolls >= 12 and f"{rolls} Würfe" in page.inner_text("#record-range")
        page.wait_for_function("document.querySelector('figure.plot img').complete")
        page.screenshot(path=str(output_dir / f"page-record-data-de-{width}.png"), full_page=True)
        assert overflow(page) == 0
    context.close()


def test_the_apps_footer_opens_the_pages_in_its_language(browser, live_server):
    context = browser.new_context(viewport={"width": 360, "height": 800})
    page = context.new_page()
    page.goto(live_server)
    page.select_option("#lang", "ja")
    link = page.locator("footer#footer a", has_text="検証可能な公正ダイス")
    assert link.get_attribute("href") == "/fair?lang=ja"
    link.click()
    page.wait_for_url(f"{live_server}/fair?lang=ja")
    assert page.locator("h1").inner_text() == "検証可能な公正ダイス"
    assert overflow(page) == 0
    context.close()


def test_terms_in_the_lobby_and_on_the_match_screen_link_to_the_glossary(browser, live_server,
                                                                        output_dir):
    context = browser.new_context(viewport={"width": 360, "height": 800})
    page = context.new_page()
    match_id = computer_match(page, live_server, length=3)  # a 1-point match has no cube
    for code in LANGUAGES:
        page.goto(live_server)
        page.select_option("#lang", code)
        lobby = page.locator('form.computer a.glossary-link[data-term="match"]')
        assert lobby.get_attribute("href") == f"/glossary?lang={code}#match"
        page.screenshot(path=str(output_dir / f"glossary-links-lobby-{code}-360.png"),
                        full_page=True)

        page.goto(f"{live_server}/match/{match_id}")
        pips = page.locator(".player .pips a.glossary-link").first
        pips.wait_for()
        assert pips.get_attribute("href") == f"/glossary?lang={code}#pip-count"
        assert page.get_attribute(".cube-info a.glossary-link", "href") == (
            f"/glossary?lang={code}#cube")
        # The links are labels around the board, none on it: tapping the board moves.
        assert page.locator("svg.board a").count() == 0
        # The entry opens in a new tab: the match stays where it was.
        with context.expect_page() as opened:
            pips.click()
        glossary = opened.value
        glossary.wait_for_load_state()
        assert glossary.url == f"{live_server}/glossary?lang={code}#pip-count"
        assert glossary.get_attribute("html", "lang") == code
        assert glossary.locator("dt#pip-count:target").is_visible()
        assert glossary.locator("dt#match").is_visible()
        glossary.close()
        assert page.url == f"{live_server}/match/{match_id}"
        for width in (360, 1280):
            page.set_viewport_size({"width": width, "height": 800})
            page.screenshot(path=str(output_dir / f"glossary-links-match-{code}-{width}.png"),
                            full_page=True)
            assert overflow(page) == 0
        page.set_viewport_size({"width": 360, "height": 800})
    context.close()


def test_the_odds_calculator_counts_through_the_engine(browser, live_server):
    from boardgammon.odds import hit_count

    context = browser.new_context(viewport={"width": 360, "height": 800})
    page = context.new_page()
    page.goto(f"{live_server}/odds?lang=en")
    # The direct and indirect shot table, as published: 11, 12, 14, 15, 15, 17 for 1-6.
    shots = page.eval_on_selector_all(
        "#shots tbody tr", "rows => rows.map(r => Number(r.children[1].textContent))")
    assert shots[:12] == [11, 12, 14, 15, 15, 17, 6, 6, 5, 3, 2, 3]
    assert shots == [hit_count(d).count for d in range(1, 25)]
    entering = page.eval_on_selector_all(
        "#entering tbody tr", "rows => rows.map(r => [r.children[1].textContent,"
        " r.children[2].textContent].map(t => Number(t.split('/')[0])))")
    assert entering == [[36 - k * k, (6 - k) ** 2] for k in range(7)]

    page.fill("#hit-form input[name=distance]", "6")
    page.fill("#hit-form input[name=blocked]", "3")
    page.click("#hit-form button")
    answer = page.locator("#hit-answer").inner_text()
    assert "16 of 36 throws (44.44%)" in answer and "3-3" not in answer
    assert hit_count(6, [3]).count == 16

    page.fill("#bearoff-form input[name=bearoff]", "0 2 0 0 0 0")
    page.click("#bearoff-form button")
    assert "26 of 36 throws" in page.locator("#bearoff-answer").inner_text()

    page.fill("#hit-form input[name=blocked]", "6")
    page.click("#hit-form button")
    assert "between the checker and the blot" in page.locator("#hit-problem").inner_text()
    assert overflow(page) == 0
    context.close()
