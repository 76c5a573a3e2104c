"""One name per variant everywhere (issue 23): the web client (lobby, watch list, result, join
page: ``web/i18n.js`` ``variant.*``) and the server's pages (profile, leaderboard:
``server/i18n.py`` ``player.variant.*``; the rules page's diagrams) name each variant alike in
each language."""

from __future__ import annotations

import re
from pathlib import Path

from fastapi.testclient import TestClient
from gameplay import make_app

from boardgammon.engine.board import Variant
from boardgammon.server.i18n import MESSAGES

WEB_I18N = Path(__file__).parents[2] / "src" / "boardgammon" / "web" / "i18n.js"


def web_names() -> dict[str, dict[str, str]]:
    """``{language: {variant: name}}`` from the client's string tables, read as text (each
    language's table starts at ``  xx: {``)."""
    text = WEB_I18N.read_text(encoding="utf-8")
    tables = re.split(r"^  (en|de|ja): \{$", text, flags=re.MULTILINE)[1:]
    return {code: dict(re.findall(r'"variant\.(\w+)": "([^"]+)"', body))
            for code, body in zip(tables[::2], tables[1::2], strict=True)}


def test_the_client_and_the_pages_name_each_variant_alike(sqlite_url):
    web = web_names()
    assert set(web) == set(MESSAGES) == {"en", "de", "ja"}
    for code, table in MESSAGES.items():
        pages = {v.value: table[f"player.variant.{v.value}"] for v in Variant}
        assert web[code] == pages, code
    assert web["en"]["standard"] == web["de"]["standard"] == "Backgammon"
    assert web["ja"]["standard"] == "バックギャモン"
    with TestClient(make_app(sqlite_url)) as client:
        for code in web:
            rules = client.get(f"/rules?lang={code}").text
            assert re.search(rf"{web[code]['standard']}[:：]", rules), code


def test_german_calls_a_match_match_everywhere_and_a_game_spiel():
    """German named a match "Partie" in the client and "Match" on the server's pages, and a
    German backgammon player reads "Partie" as a single game (gnubg's German does): one term,
    "Match", in the client's strings, the server's messages and its German pages."""
    text = WEB_I18N.read_text(encoding="utf-8")
    tables = dict(zip(*[iter(re.split(r"^  (en|de|ja): \{$", text, flags=re.MULTILINE)[1:])] * 2,
                      strict=True))
    german = [tables["de"], *map(str, MESSAGES["de"].values())]
    pages = Path(__file__).parents[2] / "src" / "boardgammon" / "server" / "templates" / "pages"
    german += [p.read_text(encoding="utf-8") for p in pages.glob("*.de.html")]
    assert not [t for t in german if "Partie" in t]
    assert '"result.winner": "{name} gewinnt das Match"' in tables["de"]
    assert '"lobby.matches": "Meine Matches"' in tables["de"]
