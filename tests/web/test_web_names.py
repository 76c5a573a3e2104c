"""Player names on the board against a real server: the computer is named once, by its level,
in the page's language ("Computer (easy)", not "Computer (easy) (computer)")."""

from __future__ import annotations

import pytest
from webpage import new_page

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("lang,expected", [("en", "Computer (medium)"),
                                           ("ja", "コンピューター (ふつう)")])
def test_the_computer_is_named_once(browser, live_server, lang, expected):
    page = new_page(browser, live_server)
    page.evaluate(f"localStorage.setItem('bg.lang', '{lang}')")
    page.reload()
    page.click('[data-action="guest"]')
    page.wait_for_selector('form.computer [data-action="play-computer"]')
    page.select_option('form.computer select[name="level"]', "medium")
    page.click('form.computer [data-action="play-computer"]')
    page.wait_for_selector("svg.board")
    # Both players' panels (the header's own name is a span.name too, drawn first: a CI run
    # read it alone once).
    panels = "[data-seat] > span.name"
    # A function, not an expression: Playwright polls an expression with eval, which the page's
    # Content-Security-Policy refuses (a CI run under load polled and failed).
    page.wait_for_function("(sel) => document.querySelectorAll(sel).length === 2", arg=panels)
    names = page.eval_on_selector_all(panels, "els => els.map(e => e.textContent)")
    assert expected in names
    assert not any("computer)" in n.lower() and n.count("(") > 1 for n in names)
    assert not any("コンピューター)" in n for n in names)
    page.context.close()
