"""The device's preferences (bg.lang, bg.auto, bg.mute, board options) in Chromium, read and
written through web/store.js's readPreference / savePreference: a full storage makes room by
dropping a finished match's stores, or keeps the choice for the page; a storage that throws
on every access (disabled by the browser's settings) never throws into a click, and the app
still opens, signs in and plays."""

from __future__ import annotations

import pytest
from test_web_device_storage import FILL_OTHER
from webpage import play_the_computer

pytestmark = [pytest.mark.browser]

# Fill the quota with a key no match owns ("other.blob"), to the last character; then use
# each control that keeps a preference, through the client's own modules.
FULL_OF_OTHER = """async () => {
  localStorage.clear();
  const lo = (await (""" + FILL_OTHER + """)()).size;
  const fits = (text) => {
    try { localStorage.setItem("other.blob", text); return true; } catch { return false; }
  };
  const store = await import('/static/store.js');
  const sound = await import('/static/sound.js');
  const options = await import('/static/options.js');
  const i18n = await import('/static/i18n.js');
  const errors = [];
  const mutedBefore = sound.muted();
  const notice = new sound.Notice();
  const mute = notice.muteButton();
  const controls = options.optionControls(() => {});
  const flip = controls.querySelector('[data-action="flip"]');
  try {
    mute.click();
    flip.click();
    i18n.setLang("ja");
  } catch (err) {
    errors.push(String(err));
  }
  return { size: lo, errors, mutedBefore, muted: sound.muted(),
           flipped: options.boardOptions().flip, lang: i18n.lang(),
           saved: store.readPreference("bg.lang"),
           stored: ["bg.mute", "bg.board.flip", "bg.lang"].map((k) => localStorage.getItem(k)),
           blob: localStorage.getItem("other.blob").length,
           stillFull: !fits("y".repeat(lo + 2)) };
}"""

# The quota filled by one finished match's stores and another key: a preference makes room by
# dropping the finished match (never the other key), and is then in storage.
FULL_WITH_A_FINISHED_MATCH = """async () => {
  localStorage.clear();
  const store = await import('/static/store.js');
  const now = Date.now();
  localStorage.setItem("bg.matches", JSON.stringify({ done: { used: now - 86_400_000,
                                                              over: true } }));
  localStorage.setItem("bg.rolls.done", JSON.stringify({ r: "x".repeat(400_000) }));
  const lo = (await (""" + FILL_OTHER + """)()).size;
  const fits = (text) => {
    try { localStorage.setItem("other.blob", text); return true; } catch { return false; }
  };
  let full = false;
  try { localStorage.setItem("bg.auto", "1"); } catch { full = true; }
  const saved = store.savePreference("bg.auto", "1");
  return { full, saved, auto: localStorage.getItem("bg.auto"),
           read: store.readPreference("bg.auto"),
           done: localStorage.getItem("bg.rolls.done") !== null,
           blob: localStorage.getItem("other.blob").length, size: lo };
}"""

# Every access to localStorage throws (as in a browser whose settings block site data).
DISABLED = """
  for (const name of ["getItem", "setItem", "removeItem", "key", "clear"]) {
    Storage.prototype[name] = function () {
      throw new DOMException("The operation is insecure.", "SecurityError");
    };
  }
"""


def test_a_full_storage_keeps_a_choice_for_the_page(module_page):
    """Storage full of a key no match owns: muting, flipping the board and choosing Japanese
    throw nothing, each takes effect for the page (read back as chosen), nothing of them is
    in storage, and the other key is untouched."""
    got = module_page.evaluate(FULL_OF_OTHER)
    assert got["size"] > 1_000_000 and got["stillFull"]
    assert got["errors"] == []
    assert got["mutedBefore"] is False and got["muted"] is True
    assert got["flipped"] is True
    assert got["lang"] == "ja" and got["saved"] == "ja"
    assert got["stored"] == [None, None, None]
    assert got["blob"] == got["size"]
    module_page.evaluate("() => localStorage.clear()")


def test_a_preference_makes_room_by_dropping_a_finished_match(module_page):
    """Storage full, a finished match's stores in it: saving bg.auto drops that match (the
    one droppable thing) and the preference is in storage; the other key is untouched."""
    got = module_page.evaluate(FULL_WITH_A_FINISHED_MATCH)
    assert got["full"] is True
    assert got["saved"] is True and got["auto"] == "1" and got["read"] == "1"
    assert got["done"] is False
    assert got["blob"] == got["size"]
    module_page.evaluate("() => localStorage.clear()")


def test_the_app_opens_and_plays_with_storage_disabled(browser, live_server):
    """Every localStorage access throws (SecurityError): the lobby still opens (i18n.js keeps
    the language at import), a guest starts a match against the computer, the board shows,
    Mute and the board's flip take effect, and no uncaught error reaches the page."""
    context = browser.new_context(base_url=live_server, viewport={"width": 390, "height": 844},
                                  reduced_motion="reduce", locale="en-US")
    context.add_init_script(DISABLED)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.goto(live_server + "/")
    page.wait_for_selector("form.auth")
    assert page.evaluate("() => { try { localStorage.getItem('x'); return 'read'; } "
                         "catch (e) { return e.name; } }") == "SecurityError"
    play_the_computer(page)
    page.wait_for_selector("svg.board", timeout=15_000)
    mute = page.locator('[data-action="mute"]').first
    assert mute.get_attribute("aria-pressed") == "false"
    mute.click()
    assert mute.get_attribute("aria-pressed") == "true"
    flip = page.locator('[data-action="flip"]').first
    assert flip.get_attribute("aria-pressed") == "false"
    flip.click()
    assert flip.get_attribute("aria-pressed") == "true"
    assert errors == []
    context.close()
