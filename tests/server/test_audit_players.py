"""The audit page of a real match (issue 22): its players by name, each roll's row under the
roller's name and anchored by its roll ID, the way back to the match, the app's language taken
from its cookie, the icon at /favicon.ico; and the pages' links home carrying the language.
On SQLite and PostgreSQL."""

from __future__ import annotations

import html
import json
import re

import pytest
from fastapi.testclient import TestClient
from gameplay import Player, live_match, make_app, step

from boardgammon.server.i18n import LANGUAGE_COOKIE, LANGUAGES, SITE_PAGES


@pytest.fixture
def client(database_url):
    with TestClient(make_app(database_url)) as c:
        yield c


def rows(page: str) -> dict[str, str]:
    """Each roll's row on the audit page by its anchor (the ``id`` of its ``<tr>``)."""
    return dict(re.findall(r'<tr id="(rol_[A-Za-z0-9]+)"[^>]*>(.*?)</tr>', page, re.DOTALL))


def cell(row: str, cls: str) -> str:
    found = re.search(rf'<td [^>]*class="{cls}"[^>]*>([^<]*)</td>', row)
    assert found, f"no {cls} cell in {row!r}"
    return html.unescape(found.group(1))


def played_match(client: TestClient) -> tuple[str, dict[int, Player]]:
    alice, bob = Player.register(client, "alice"), Player.register(client, "bob")
    match_id = live_match(alice, bob)
    seats = {p["seat"]: p["username"] for p in alice.state(match_id)["players"]}
    players = {seat: alice if name == "alice" else bob for seat, name in seats.items()}
    for _ in range(8):
        step(players, match_id)
    return match_id, players


def test_the_audit_page_names_the_players_and_leads_back(client):
    match_id, players = played_match(client)
    record = client.get(f"/api/audit/{match_id}").json()["rolls"]
    assert len(record) >= 4
    words = {
        "en": ("against", "Back to the match"),
        "de": ("gegen", "Zurück zum Match"),
        "ja": ("対", "対戦に戻る"),
    }
    for code, (against, back) in words.items():
        page = client.get(f"/audit/{match_id}?lang={code}").text
        line = re.search(r'<p id="players">(.*?)</p>', page, re.DOTALL).group(1)
        assert line == f"{players[0].name} {against} {players[1].name}"
        assert f'<a href="/match/{match_id}?lang={code}" id="back-to-match">{back}</a>' in page
        # Every roll, the opening rolls included, under the name of the seat that rolled it,
        # anchored by its roll ID; never "Seat 0/1".
        by_anchor = rows(page)
        assert list(by_anchor) == [r["roll_id"] for r in record]
        for entry in record:
            assert cell(by_anchor[entry["roll_id"]], "roller") == players[entry["seat"]].name
            if entry["dice"]:
                assert cell(by_anchor[entry["roll_id"]], "dice") == "{}-{}".format(*entry["dice"])


def test_the_computer_is_named_by_its_level(client):
    guest = Player.register(client, "carol")
    r = guest.post("/api/matches/computer", {"level": "easy", "length": 1, "variant": "standard"})
    assert r.status_code == 201, r.text
    match_id = r.json()["match_id"]
    state = guest.state(match_id)
    assert client.get(f"/api/audit/{match_id}").status_code == 200
    seats = {p["seat"]: p for p in state["players"]}
    computer = next(s for s, p in seats.items() if p["bot"])
    expected = {"en": "Computer (easy)", "de": "Computer (leicht)",
                "ja": "コンピューター (やさしい)"}
    for code, name in expected.items():
        page = client.get(f"/audit/{match_id}?lang={code}").text
        line = html.unescape(re.search(r'<p id="players">(.*?)</p>', page).group(1))
        first, second = (name, "carol") if computer == 0 else ("carol", name)
        assert line.startswith(first) and line.endswith(second)


def test_the_profile_names_the_computer_opponent_in_its_language(client):
    """A player's page lists a match against the computer with the level in the page's
    language, as the audit page names it (it said "Computer (easy)" in German)."""
    Player.register(client, "dave").post(
        "/api/matches/computer", {"level": "hard", "length": 1, "variant": "standard"})
    expected = {"en": "Computer (hard)", "de": "Computer (schwer)",
                "ja": "コンピューター (むずかしい)"}
    for code, name in expected.items():
        page = html.unescape(client.get(f"/player/dave?lang={code}").text)
        opponents = re.findall(r'<tr data-match="mat_\w+"><td>[^<]*</td><td>([^<]*)</td>', page)
        assert opponents == [name], (code, opponents)


def test_a_record_without_a_match_has_no_players_line(client):
    from boardgammon.dice import new_match_id
    from boardgammon.server import dice_record
    from boardgammon.server.services import services

    match_id = new_match_id()
    with services(client.app).db.sessions() as session:
        roll = dice_record.commit_roll(session, match_id, 1)
        dice_record.reveal_roll(session, roll.roll_id, roll.commitment, bytes(16))
    page = client.get(f"/audit/{match_id}").text
    assert 'id="players"' not in page and 'id="back-to-match"' not in page
    assert cell(rows(page)[roll.roll_id], "roller") == "1"


def test_the_apps_language_cookie_chooses_the_pages_language(client):
    match_id, _ = played_match(client)
    client.cookies.set(LANGUAGE_COOKIE, "de")
    assert '<html lang="de">' in client.get(f"/audit/{match_id}").text
    for _, path in SITE_PAGES:
        assert '<html lang="de">' in client.get(path).text, path
    # ?lang= still wins, and the cookie wins over the browser's Accept-Language.
    assert '<html lang="ja">' in client.get(f"/audit/{match_id}?lang=ja").text
    assert '<html lang="de">' in client.get("/rules", headers={"Accept-Language": "ja"}).text
    # A cookie naming no language of ours is ignored.
    client.cookies.set(LANGUAGE_COOKIE, "xx")
    assert '<html lang="ja">' in client.get("/rules", headers={"Accept-Language": "ja"}).text


def test_favicon_is_served(client):
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200
    assert icon.headers["content-type"].startswith("image/svg+xml")
    assert icon.content == client.get("/static/favicon.svg").content
    assert client.head("/favicon.ico").status_code == 200


def test_the_links_home_carry_the_language(client):
    for _, path in SITE_PAGES:
        for code in LANGUAGES:
            page = client.get(f"{path}?lang={code}").text
            assert f'<a class="brand" href="/?lang={code}">' in page, (path, code)
            assert f'<a href="/?lang={code}">' in page, (path, code)


def test_german_pages_write_decimal_commas_and_japanese_points(client):
    german = {
        "/skill-levels": ["<td>2,5–5</td>", "<td>12,5–17,5</td>"],
        "/odds?distance=6": ["17 von 36 Würfen (47,22\u00a0%)"],
    }
    japanese = {"/skill-levels": ["<td>2.5–5</td>"], "/odds?distance=6": ["（47.22%）"]}
    for code, expected in (("de", german), ("ja", japanese)):
        for path, phrases in expected.items():
            page = client.get(path, params={"lang": code}).text
            for phrase in phrases:
                assert phrase in page, (code, path, phrase)
    # The clock presets' reserve in a 5-point match: a decimal comma in German.
    rules = client.get("/rules?lang=de").text
    table = rules.split('class="presets"')[1].split("</table>")[0]
    assert re.findall(r"<td>([0-9.,]+) min</td>", table) == ["2,5", "5", "10", "15", "25"]
    # Japanese writes its own units (a new user's trial found "s" and "min" there).
    rules = client.get("/rules?lang=ja").text
    table = rules.split('class="presets"')[1].split("</table>")[0]
    assert re.findall(r"<td>([0-9.,]+) 分</td>", table) == ["2.5", "5", "10", "15", "25"]
    assert "<td>12 秒</td>" in table and " s</td>" not in table


def test_every_level_and_clock_preset_has_a_name_in_every_language(client):
    from boardgammon.bots.base import levels
    from boardgammon.engine.clock import PRESETS
    from boardgammon.server.i18n import MESSAGES

    for code, table in MESSAGES.items():
        assert {f"level.{name}" for name in levels()} <= set(table), code
        assert {f"preset.{name}" for name in PRESETS} <= set(table), code
    rules = client.get("/rules?lang=de").text.split('class="presets"')[1].split("</table>")[0]
    assert re.findall(r"<tr><td>([^<]*)</td>", rules) == [
        "Bullet",
        "Blitz",
        "Schnell",
        "Standard",
        "Langsam",
    ]


def test_each_chain_anchor_is_named_by_its_player(database_url):
    # v2 dice: each device's anchor is a leaf of the public log, listed on the audit page under
    # the name of the player whose device registered it, as the rolls are (a new user's trial
    # found "Seat 0's chain anchor").
    from test_match_dice_v2 import Device

    with TestClient(make_app(database_url, dice="v2")) as c:
        alice, bob = Player.register(c, "alice"), Player.register(c, "bob")
        match_id = live_match(alice, bob)
        for who in (alice, bob):
            r = who.act(match_id, "anchor", anchor=Device(who).anchor)
            assert r.status_code == 200, r.text
        seats = {p["username"]: p["seat"] for p in alice.state(match_id)["players"]}
        anchors = c.get(f"/api/audit/{match_id}").json()["log"]["anchors"]
        assert sorted(json.loads(a["leaf"])["seat"] for a in anchors) == [0, 1]
        for code, word in (("en", "{}'s chain anchor"), ("de", "Kettenanker von {}"),
                           ("ja", "{} のチェーンのアンカー")):
            page = html.unescape(c.get(f"/audit/{match_id}?lang={code}").text)
            for name, seat in seats.items():
                row = re.search(rf'<tr data-anchor-seat="{seat}"><th>(.*?)</th>', page)
                assert row and row.group(1) == word.format(name), (code, row and row.group(1))
            assert "Seat 0" not in page and "Sitz 0" not in page
