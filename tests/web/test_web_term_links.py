"""The match screen's "dance" and "bear off" link to their glossary entries like its other terms
(issue 24), in each language, with the server stood in (test_web_board.StandIn): a dance offers
"What is a dance?" beside its button; a side that has borne off checkers shows how many, linked
to "bear off"."""

from __future__ import annotations

import pytest
from test_web_board import StandIn
from webstate import MATCH_ID, make_state

from boardgammon.engine import Board

pytestmark = pytest.mark.browser

TEXTS = {
    "en": ("What is a dance?", "Borne off: 5"),
    "de": ("Was heißt Tanzen?", "Abgetragen: 5"),
    "ja": ("ダンスとは？", "ベアオフ済み: 5"),
}


@pytest.fixture(params=list(TEXTS))
def page(request, browser, static_url):
    context = browser.new_context(viewport={"width": 360, "height": 740})
    page = context.new_page()
    page.add_init_script(f"localStorage.setItem('bg.lang', '{request.param}')")
    page.base, page.lang = static_url, request.param
    yield page
    context.close()


def open_match(page, state) -> None:
    StandIn(page, state)
    page.goto(f"{page.base}/match/{MATCH_ID}")
    page.wait_for_selector("svg.board .hit")


def test_a_dance_links_to_its_glossary_entry(page, output_dir):
    board = Board.from_points({25: 2, 13: 13}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 5})
    open_match(page, make_state(board, dice=(6, 3)))
    link = page.locator('.controls a.glossary-link[data-term="dance"]')
    assert link.inner_text() == TEXTS[page.lang][0]
    assert link.get_attribute("href") == f"/glossary?lang={page.lang}#dance"
    assert link.get_attribute("target") == "_blank"
    page.screenshot(path=str(output_dir / f"term-dance-{page.lang}-360.png"))
    assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") == 0


def test_borne_off_checkers_link_to_bearing_off(page, output_dir):
    # ann (seat 0) has borne off 5 of her 15; bob none.
    board = Board.from_points({6: 5, 5: 5}, {6: 5, 5: 5, 4: 5})
    open_match(page, make_state(board, dice=(6, 5)))
    links = page.locator('.player a.glossary-link[data-term="bear-off"]')
    assert links.count() == 1
    assert links.inner_text() == TEXTS[page.lang][1]
    assert links.get_attribute("href") == f"/glossary?lang={page.lang}#bear-off"
    assert page.locator('.player[data-seat="0"] .off[data-off="5"] a').count() == 1
    page.screenshot(path=str(output_dir / f"term-bear-off-{page.lang}-360.png"))
