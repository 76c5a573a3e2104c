"""Deleting an account in a real browser (issue 23): the lobby's "Delete account" box refuses a
wrong password with the account unchanged, then deletes it after the confirmation; the
opponent's match screen then shows the match forfeited and the placeholder name, translated."""

from __future__ import annotations

import pytest
from test_web_social import PASSWORD, match_between, signed_in

pytestmark = [pytest.mark.browser]


def _delete(page, password: str | None) -> None:
    box = page.locator("details.delete-box")
    if not box.evaluate("d => d.open"):
        page.click("details.delete-box summary")
    if password is not None:
        page.fill('form.delete-account input[name="password"]', password)
    page.check('form.delete-account input[name="confirm"]')
    page.click('[data-action="delete-account"]')


def test_deleting_an_account_from_the_lobby(browser, live_server, output_dir):
    ann = signed_in(browser, live_server, "ann_gone", width=360)
    bob = signed_in(browser, live_server, "bob_stays")
    match_id = match_between(ann, bob)
    bob.goto(f"/match/{match_id}")
    bob.wait_for_selector(".player .name")
    ann.goto("/")
    ann.wait_for_selector("details.delete-box")
    ann.click("details.delete-box summary")
    # Nothing is sent before the confirmation is ticked (the form requires it).
    ann.fill('form.delete-account input[name="password"]', "not the password")
    ann.click('[data-action="delete-account"]')
    assert ann.request.get("/api/me").status == 200
    _delete(ann, "not the password")
    ann.wait_for_selector("form.delete-account .error:has-text('Wrong password')")
    ann.screenshot(path=str(output_dir / "account-delete-360.png"), full_page=True)
    assert ann.request.get("/api/me").status == 200
    assert bob.request.get(f"/api/matches/{match_id}").json()["phase"] != "match_over"
    _delete(ann, PASSWORD)
    ann.wait_for_selector("form input[name='username']")  # the sign-in page
    assert ann.request.get("/api/me").status == 401
    # The opponent's screen: the match is over, won by forfeit, against "deleted player".
    bob.wait_for_function("() => document.body.textContent.includes('deleted player')")
    names = bob.locator(".player .name").all_text_contents()
    assert any(n.startswith("deleted player") for n in names), names
    assert not any("ann_gone" in n for n in names), names
    state = bob.request.get(f"/api/matches/{match_id}").json()
    assert state["phase"] == "match_over" and state["games"][-1]["how"] == "forfeit"
    bob.screenshot(path=str(output_dir / "account-deleted-opponent-800.png"), full_page=True)
    # In German the placeholder is translated.
    bob.goto(f"/match/{match_id}?lang=de")
    bob.wait_for_function("() => document.body.textContent.includes('gelöschter Spieler')")
    assert ann.errors == [] and bob.errors == []
