"""The texts of the device's dice verdicts (web/i18n.js): every problem and warning code the
checks push has a text in each language, and ✗ ``link_dropped`` names the honest cause too, a
connection slower than the server's wait for the link (docs/fair-dice.md §The device's check,
"A link sent and not used"; a user's trial on a slow connection read it as the server
cheating)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from boardgammon.server.match_service import LINK_WAIT_S

pytestmark = pytest.mark.browser

WEB = Path(__file__).resolve().parents[2] / "src" / "boardgammon" / "web"
LANGUAGES = ("en", "de", "ja")


def _texts(page, key: str) -> dict[str, str]:
    return page.evaluate(
        "async (key) => { const i = await import('/static/i18n.js'); const out = {};"
        " for (const l of ['en', 'de', 'ja']) { i.setLang(l); out[l] = i.t(key); }"
        " i.setLang('en'); return out; }", key)


def test_every_code_the_checks_push_has_a_text_in_each_language(module_page):
    codes = set()
    for name in ("fairdice.js", "dicechain.js", "match.js"):
        source = (WEB / name).read_text(encoding="utf-8")
        codes |= set(re.findall(r'(?:problems|warnings)\.push\("([a-z_]+)"\)', source))
        codes |= set(re.findall(r'problems: \["([a-z_]+)"', source))
    assert {"link_dropped", "link_late", "malformed", "protocol_downgraded"} <= codes
    keys = module_page.evaluate(
        "async () => { const i = await import('/static/i18n.js');"
        " return Object.fromEntries(['en', 'de', 'ja'].map((l) => [l, i.keys(l)])); }")
    for language in LANGUAGES:
        missing = sorted(c for c in codes if f"dice.problem.{c}" not in keys[language])
        assert missing == [], (language, missing)


def test_a_dropped_link_names_a_slow_connection_as_well(module_page):
    """✗ link_dropped says what happened (the link left before the reveal, the roll went
    without it, the server could have chosen) and that a connection slower than the server's
    wait, by default ``LINK_WAIT_S`` (3 s), gives the same with an honest server."""
    texts = _texts(module_page, "dice.problem.link_dropped")
    wait = f"{LINK_WAIT_S:g}"
    assert wait == "3"
    assert texts["en"].startswith(
        "this device sent its link for this roll before the server revealed it, and the roll "
        "was made without it: the server could have picked the outcome with or without it. ")
    assert f"slower than the server's wait for the link ({wait} s unless" in texts["en"]
    assert texts["en"].endswith("This device cannot tell the two apart")
    assert f"langsamer ist als die Wartezeit des Servers auf das Glied ({wait} s," in texts["de"]
    assert "Ergebnis mit oder ohne es wählen" in texts["de"]
    assert f"リンク待ち時間（サーバーで別の設定がなければ{wait}秒）より遅い" in texts["ja"]
    assert "どちらの結果も選べました" in texts["ja"]
