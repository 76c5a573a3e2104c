"""The server's refusals in the page's language (a new user's trial: the lobby, sign-in and the
match page showed the API's English words to German and Japanese players): the client says a
known error code in its own words, and the server's message otherwise."""

from __future__ import annotations

import pytest
from test_web_lobby import PASSWORD, new_page, register

pytestmark = [pytest.mark.browser]


def test_sign_in_refusals_in_each_language(browser, live_server, output_dir):
    taken = new_page(browser, live_server)
    register(taken, "taken_name")
    page = new_page(browser, live_server)
    page.set_viewport_size({"width": 360, "height": 740})
    error = page.locator("form.auth .error")
    for lang, wrong, name_taken in (
            ("en", "Unknown name or wrong password.", "This name is taken: choose another."),
            ("de", "Unbekannter Name oder falsches Passwort.",
             "Dieser Name ist vergeben: Wähle einen anderen."),
            ("ja", "ユーザー名またはパスワードが違います。",
             "この名前は使われています。別の名前を選んでください。")):
        page.select_option("select#lang", lang)
        page.fill('input[name="username"]', "nobody_here")
        page.fill('input[name="password"]', PASSWORD)
        page.click('[data-action="signin"]')
        page.wait_for_function("([sel, text]) => document.querySelector(sel)?.textContent === text",
                               arg=["form.auth .error", wrong])
        page.fill('input[name="username"]', "taken_name")
        page.click('[data-action="register"]')
        page.wait_for_function("([sel, text]) => document.querySelector(sel)?.textContent === text",
                               arg=["form.auth .error", name_taken])
    assert error.inner_text() == "この名前は使われています。別の名前を選んでください。"
    page.screenshot(path=str(output_dir / "refusal-ja-360.png"))
    assert page.errors == [] and taken.errors == []
    page.context.close()
    taken.context.close()
