"""The reading pages (server/routes/pages.py) over HTTP: one address each in three languages
without an account, the guessed addresses of the dice page redirecting with their query, the
match-ID box's answers (a redirect to the audit page, or a message on the page), and the
header and footer every page shares with the audit page."""

from __future__ import annotations

import html
import re

import pytest
from fastapi.testclient import TestClient
from gameplay import Player, live_match, make_app

from boardgammon.server.i18n import LANGUAGES, SITE_PAGES


@pytest.fixture
def client(sqlite_url):
    with TestClient(make_app(sqlite_url)) as c:
        yield c


def test_every_page_in_every_language_without_an_account(client):
    for _, path in SITE_PAGES:
        for code in LANGUAGES:
            r = client.get(f"{path}?lang={code}")
            assert r.status_code == 200, (path, code)
            assert f'<html lang="{code}">' in r.text
            # No inline scripts or handlers: the pages must work under a strict CSP.
            assert not re.search(r"<script(?![^>]*\bsrc=)|\son[a-z]+=", r.text), (path, code)
            for _, other in SITE_PAGES:
                assert f'href="{other}?lang={code}"' in r.text, (path, code, other)
    german = client.get("/glossary", headers={"Accept-Language": "de-AT,de;q=0.9"})
    assert '<html lang="de">' in german.text


@pytest.mark.parametrize("alias", ["/provably-fair", "/verify", "/dice", "/audit"])
def test_the_guessed_addresses_of_the_dice_page_redirect_with_their_query(client, alias):
    r = client.get(f"{alias}?lang=ja", follow_redirects=False)
    assert (r.status_code, r.headers["location"]) == (301, "/fair?lang=ja")
    assert client.get(alias, follow_redirects=False).headers["location"] == "/fair"


def test_glossary_has_the_same_terms_in_every_language(client):
    terms = {code: re.findall(r'<dt id="([a-z-]+)">', client.get(f"/glossary?lang={code}").text)
             for code in LANGUAGES}
    assert terms["en"] == [
        "point", "blot", "anchor", "prime", "pip-count", "home-board", "bar", "dance",
        "bear-off", "cube", "take", "drop", "match", "crawford", "gammon", "backgammon",
        "equity", "mwc", "pr", "ply", "luck",
    ]
    assert terms["de"] == terms["ja"] == terms["en"]


@pytest.mark.parametrize("path", ["/rules", "/fair", "/glossary", "/skill-levels", "/odds"])
def test_german_pages_address_the_reader_informally_like_the_client(client, path):
    # The web client (web/i18n.js) says "du"; the server's German pages must not switch to "Sie".
    page = client.get(f"{path}?lang=de").text
    body = page[page.index("<main"):] if "<main" in page else page
    text = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", body)).split())
    # Not even a third-person "Ihr Protokoll" (its record), which a reader of a du-page would
    # take for "your" (a new user's trial): these pages say it otherwise.
    assert not re.findall(r"\b(?:Sie|Ihnen|Ihr|Ihre|Ihrem|Ihren|Ihrer|Ihres)\b", text), path
    assert re.search(r"\b(?:du|dein\w*|dir|dich)\b", text, re.IGNORECASE), path


def test_match_box_opens_a_real_matchs_audit_page(client):
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    match_id = live_match(ann, bob)
    r = client.get(f"/fair?match=+{match_id}+&lang=de", follow_redirects=False)
    assert (r.status_code, r.headers["location"]) == (303, f"/audit/{match_id}?lang=de")
    audit = client.get(r.headers["location"]).text
    assert 'href="/fair?lang=de" id="about-fair"' in audit
    assert 'href="/glossary?lang=de"' in audit


@pytest.mark.parametrize(("typed", "message"), [
    ("<b>x", "&lt;b&gt;x is not a match ID."),
    ("mat_bad-chars", "mat_bad-chars is not a match ID."),
    ("mat_doesnotexist", "There is no dice record for match mat_doesnotexist on this server."),
])
def test_match_box_answers_a_malformed_or_unknown_id_on_the_page(client, typed, message):
    r = client.get("/fair", params={"match": typed, "lang": "en"})
    assert r.status_code == 200
    assert message in r.text and 'role="alert"' in r.text
    assert f'id="match-id" name="match" value="{html.escape(typed)}"' in r.text


def test_odds_page_shows_the_odds_commands_figures(client):
    from boardgammon.stats import doubles_odds, kniffel_odds

    page = client.get("/odds", params={"rolls": 10, "margin": 1, "games": 5, "lang": "de"}).text
    odds = doubles_odds(rolls=10, margin=1, games=5)
    for key in ("p_at_least_one_double", "p_run_of_3", "p_opponent_run_of_3_within_games"):
        row = re.search(rf'<tr data-key="{key}"><td>[^<]*</td><td>([^<]*)</td>', page)
        # German: a decimal comma, a no-break space before the percent sign.
        german = f"{float(getattr(odds, key)) * 100:.2f}".replace(".", ",") + "\u00a0%"
        assert row and row.group(1) == german
    kniffel = f"{float(kniffel_odds().optimal[2]) * 100:.2f}".replace(".", ",")
    assert f"{kniffel}\u00a0%" in page  # 4,60 %

    bad = client.get("/odds", params={"rolls": 0}).text
    assert 'id="doubles-problem"' in bad and 'id="doubles-table"' not in bad
    assert 'id="hit-answer"' in bad  # the other questions are still answered


def test_dice_record_page_shows_the_stats_commands_figures(client, sqlite_url, monkeypatch):
    import json

    from typer.testing import CliRunner

    from boardgammon.cli import app as cli
    from boardgammon.dice import new_match_id
    from boardgammon.server import dice_record as record
    from boardgammon.server.services import services

    assert 'id="record-empty"' in client.get("/dice-record").text
    assert client.get("/dice-record.json").status_code == 404
    with services(client.app).db.sessions() as session:
        for _ in range(3):
            match_id = new_match_id()
            for seat in (0, 1, 0, 1):
                roll = record.commit_roll(session, match_id, seat)
                record.reveal_roll(session, roll.roll_id, roll.commitment, bytes(16))
                record.mark_played(session, roll.roll_id)
    monkeypatch.setenv("BOARDGAMMON_DATABASE_URL", sqlite_url)
    printed = CliRunner().invoke(cli, ["stats", "dice-report", "--json"])
    assert printed.exit_code == 0, printed.output
    command = json.loads(printed.stdout)

    served = client.get("/dice-record.json").json()
    assert served == command
    page = client.get("/dice-record?lang=de").text
    assert "12 Würfe (24 Würfel)" in page
    statistic = f"{command['chi2_cells']['statistic']:.2f}".replace(".", ",")
    assert f"Chi-Quadrat {statistic}, 35 Freiheitsgrade" in page
    cells = re.findall(r"<td>(\d+)</td>", page.split('id="outcomes"')[1].split("</table>")[0])
    assert [int(c) for c in cells] == [c for row in command["table"] for c in row]
    csv_rows = client.get("/dice-record.csv").text.splitlines()
    assert csv_rows[0] == "die1,die2,count,expected" and len(csv_rows) == 37
    assert client.get("/dice-record.png").headers["content-type"] == "image/png"
    # The picture in the page's language: the German page links the German picture.
    assert '<img src="/dice-record.png?lang=de"' in page
    # a phone shrinks it to a third: a tap opens it whole
    assert '<a href="/dice-record.png?lang=de" id="record-picture">' in page
    pictures = {lang: client.get(f"/dice-record.png?lang={lang}").content
                for lang in ("en", "de", "ja")}
    assert len(set(pictures.values())) == 3 and all(
        p.startswith(b"\x89PNG") for p in pictures.values())
    assert client.get("/dice-record.png", cookies={"bg_lang": "ja"}).content == pictures["ja"]


@pytest.mark.parametrize("field,value", [("blocked", "²"), ("blocked", "①"),
                                         ("bearoff", "¹,0,0,0,0,0"), ("blocked", "9" * 4400),
                                         ("bearoff", "1" * 4400)])
def test_odds_questions_that_are_not_small_whole_numbers_are_answered_on_the_page(
        client, field, value):
    # A fresh reviewer's: str.isdigit took '²' and '①', and int() refused them and numbers
    # of thousands of digits: 500s.
    r = client.get("/odds", params={field: value})
    assert r.status_code == 200
    assert "whole numbers separated by commas or spaces" in r.text
    assert 'id="doubles-table"' in r.text  # the other questions are still answered


def test_an_operators_refresh_shows_new_rolls_without_waiting_a_day(client, sqlite_url,
                                                                   monkeypatch):
    from typer.testing import CliRunner

    from boardgammon.cli import app as cli
    from boardgammon.dice import new_match_id
    from boardgammon.server import dice_record as record
    from boardgammon.server.services import services

    def play_rolls(count: int) -> None:
        with services(client.app).db.sessions() as session:
            match_id = new_match_id()
            for seat in range(count):
                roll = record.commit_roll(session, match_id, seat % 2)
                record.reveal_roll(session, roll.roll_id, roll.commitment, bytes(16))
                record.mark_played(session, roll.roll_id)

    play_rolls(4)
    assert client.get("/dice-record.json").json()["rolls"] == 4
    play_rolls(6)
    # Cached for a day: the new rolls are not in the report yet.
    assert client.get("/dice-record.json").json()["rolls"] == 4
    monkeypatch.setenv("BOARDGAMMON_DATABASE_URL", sqlite_url)
    asked = CliRunner().invoke(cli, ["stats", "refresh-record"])
    assert asked.exit_code == 0, asked.output
    assert client.get("/dice-record.json").json()["rolls"] == 10
    assert "10 Würfe (20 Würfel)" in client.get("/dice-record?lang=de").text
    assert client.get("/dice-record.csv").text.count("\n") == 37
    # Made once per request: later pages keep that report until the next day or request.
    play_rolls(2)
    assert client.get("/dice-record.json").json()["rolls"] == 10
    assert CliRunner().invoke(cli, ["stats", "refresh-record"]).exit_code == 0
    assert client.get("/dice-record.json").json()["rolls"] == 12


def test_refresh_record_refuses_a_database_that_is_not_there(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from boardgammon.cli import app as cli

    missing = tmp_path / "none.sqlite3"
    monkeypatch.setenv("BOARDGAMMON_DATABASE_URL", f"sqlite:///{missing}")
    asked = CliRunner().invoke(cli, ["stats", "refresh-record"])
    assert asked.exit_code == 2
    assert f"no server database at {missing}" in asked.stderr
    assert not missing.exists()


def test_every_language_has_every_page_text():
    from boardgammon.server.i18n import MESSAGES

    english = set(MESSAGES["en"])
    assert {code: sorted(english ^ set(texts)) for code, texts in MESSAGES.items()} == {
        code: [] for code in MESSAGES}


@pytest.mark.parametrize("lang,params,field,words", [
    ("de", {"distance": "0"}, "hit", "Ein Blot kann 1 bis 24 Augen entfernt sein, nicht 0."),
    ("ja", {"distance": "0"}, "hit", "ブロットまでは1〜24ピップです（0ではなく）。"),
    ("de", {"bearoff": "1,1"}, "bearoff", "Sechs Anzahlen, für die Felder 1–6, nicht 2."),
    ("de", {"rolls": "0"}, "doubles",
     "„Würfe je Seite (N)“ nimmt eine ganze Zahl von 1 bis 5.000, nicht 0."),
    # A new user's: each of these said "takes one whole number", though each is one.
    ("en", {"distance": "99999999999999999999"}, "hit",
     "A blot can be 1 to 24 pips away, not 99999999999999999999."),
    ("en", {"distance": "30"}, "hit", "A blot can be 1 to 24 pips away, not 30."),
    ("en", {"rolls": "-1"}, "doubles",
     "“Rolls each (N)” takes a whole number from 1 to 5,000, not -1."),
    ("en", {"margin": "-3"}, "doubles",
     "“Margin (D)” takes a whole number from 0 to 5,000, not -3."),
    ("en", {"games": "9" * 5000}, "doubles",
     f"“Games (G)” takes a whole number from 1 to 200,000, not {'9' * 40}."),
    ("ja", {"rolls": "５００１"}, "doubles", "」は1〜5,000の整数です（5001ではなく）。"),
    ("en", {"margin": "-"}, "doubles", "takes one whole number, not “-”."),
    ("de", {"distance": "abc"}, "hit", "„Augen bis zum Blot (1–24)“ nimmt eine ganze Zahl"),
    ("ja", {"rolls": "abc"}, "doubles", "には整数を1つ入れてください（「abc」ではなく）。"),
    ("en", {"games": "x"}, "doubles", "takes one whole number, not “x”."),
])
def test_odds_questions_are_refused_on_the_page_in_its_language(client, lang, params, field,
                                                                  words):
    # A fresh reviewer's: the de/ja pages refused in English, and distance=abc was a JSON 422.
    r = client.get("/odds", params={"lang": lang, **params})
    assert r.status_code == 200
    problem = re.search(rf'id="{field}-problem">([^<]*)<', r.text)
    assert problem and words in html.unescape(problem.group(1))


def test_odds_takes_full_width_digits_and_commas(client):
    from boardgammon.odds import hit_count

    page = client.get("/odds", params={"lang": "ja", "distance": "８", "blocked": "３，５",
                                       "bearoff": "１、１　０,0,0,0"}).text
    assert 'id="hit-problem"' not in page and 'id="bearoff-problem"' not in page
    hit = re.search(r'id="hit-answer">.*?36 通り中 (\d+) 通り', page, re.S)
    assert hit and int(hit.group(1)) == hit_count(8, [3, 5]).count
    assert 'value="３，５"' in page  # the question is kept as typed


def test_match_box_understands_a_pasted_or_capitalised_id(client):
    # A fresh reviewer's: a pasted tab got the middleware's bare English 400, and a capitalised
    # ID or a pasted audit address was "not a match ID".
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    match_id = live_match(ann, bob)
    for typed in (f"{match_id}\t", f"\n{match_id.upper()}\r\n",
                  f"https://boardgammon.example/audit/{match_id}?lang=en"):
        r = client.get("/fair", params={"match": typed, "lang": "de"}, follow_redirects=False)
        assert (r.status_code, r.headers["location"]) == (303, f"/audit/{match_id}?lang=de")


@pytest.mark.parametrize(("lang", "words"), [
    ("de", "enthält ein Steuerzeichen (U+0009)"),
    ("ja", "には制御文字（U+0009）が含まれています"),
    ("en", "holds a control character (U+0009)"),
])
def test_match_box_answers_a_control_character_on_the_page(client, lang, words):
    r = client.get(f"/fair?lang={lang}&match=mat_12%09x")
    assert r.status_code == 200
    assert words in r.text and 'id="match-problem"' in r.text
    assert 'value="mat_12\ufffdx"' in r.text
    # IDs in paths are still refused by the middleware.
    assert client.get("/audit/mat_12%09x").status_code == 400


def test_match_box_cuts_a_long_bad_id(client):
    r = client.get("/fair", params={"match": "x" * 5000, "lang": "en"})
    assert r.status_code == 200 and "x" * 5000 not in r.text
    assert f'value="{"x" * 80}…"' in r.text and f'{"x" * 80}… is not a match ID.' in r.text


def test_dice_record_page_says_when_a_chi_square_is_rough(client, sqlite_url, monkeypatch):
    # A fresh reviewer's: the page dropped the command's caveat for fewer than 5 expected per
    # cell, and said "1 rolls".
    from boardgammon.dice import new_match_id
    from boardgammon.server import dice_record as record
    from boardgammon.server.services import services
    from boardgammon.stats.report import summary

    with services(client.app).db.sessions() as session:
        roll = record.commit_roll(session, new_match_id(), 0)
        record.reveal_roll(session, roll.roll_id, roll.commitment, bytes(16))
        record.mark_played(session, roll.roll_id)
    report = client.get("/dice-record.json").json()
    assert report["chi2_cells"]["approximation_ok"] is False
    assert summary(report)[0].startswith("1 roll (2 dice).")
    english = client.get("/dice-record?lang=en").text
    assert "1 roll (2 dice)" in english
    chi2 = english.split('id="chi2"')[1].split("</ul>")[0]
    assert "But only 0.0 are expected per cell, under the 5" in chi2  # 1/36
    assert "But only 0.3 are expected per cell, under the 5" in chi2  # 2/6
    german = client.get("/dice-record?lang=de").text
    assert "1 Wurf (2 Würfel)" in german
    assert "Aber je Feld werden nur 0,0 erwartet" in german
    sources = german.split('id="source-table"')[1].split("</table>")[0]
    assert "grob: 0,0 je Feld erwartet, unter 5" in sources
    assert "grob: 0,3 je Feld erwartet, unter 5" in sources


def test_odds_page_shows_direct_and_indirect_shots_apart(client):
    page = client.get("/odds", params={"distance": "6", "lang": "en"}).text
    assert "17 of 36 throws" in page and "11 direct, 6 indirect (combination shots)." in page
    row = re.search(r'<tr data-distance="6">((?:<td>[^<]*</td>)+)</tr>', page)
    assert row and re.findall(r"<td>([^<]*)</td>", row.group(1))[:4] == ["6", "17", "11", "6"]


def test_language_links_keep_the_rest_of_the_address(client):
    # A fresh reviewer's: they dropped the typed ID and the calculator's question.
    page = client.get("/odds", params={"lang": "en", "distance": "8", "blocked": "3 5"}).text
    assert 'href="/odds?distance=8&amp;blocked=3+5&amp;lang=de" hreflang="de"' in page
    fair = client.get("/fair", params={"match": "mat_nothere", "lang": "ja"}).text
    assert 'href="/fair?match=mat_nothere&amp;lang=en" hreflang="en"' in fair
    assert 'href="/rules?lang=ja" hreflang="ja"' in client.get("/rules").text
    long = client.get("/fair", params={"match": "x" * 5000, "lang": "en"}).text
    assert 'href="/fair?lang=de" hreflang="de"' in long
    # A fresh user's: on the page of an unknown address the links decoded %2F and led to /etc.
    gone = client.get("/match/..%2F..%2Fetc?lang=en")
    assert gone.status_code == 404
    assert 'href="/match/..%2F..%2Fetc?lang=de" hreflang="de"' in gone.text


@pytest.mark.parametrize("address", ["/fair", "/rules", "/skill-levels", "/odds", "/glossary",
                                     "/dice-record", "/verify"])
def test_pages_answer_head(client, address):
    # A fresh reviewer's: HEAD got 405 on the pages.
    r = client.head(address, follow_redirects=False)
    assert r.status_code == client.get(address, follow_redirects=False).status_code
    assert r.status_code in (200, 301)


V1_CLAIM = {"en": "no part in them", "de": "keinen Anteil daran", "ja": "一切関与していません"}
"""The v1 page's sentence that the opponent took no part in a roll: false for v2 matches."""

OPPONENT = {"en": "opponent", "de": "Gegner", "ja": "相手"}


def test_fair_page_describes_dice_v2(client):
    # A new user's finding: /fair described dice v1 (two inputs, "your opponent had no part in
    # them", the computer's rolls from the server's bytes alone) while new matches roll v2.
    for code in LANGUAGES:
        page = client.get(f"/fair?lang={code}").text
        text = html.unescape(re.sub(r"<[^>]+>", "", page))
        assert V1_CLAIM[code] not in text, code
        # The three contributions to every roll, in the order they are fixed.
        parts = re.findall(r'<li data-contribution="([a-z]+)">(.+?)</li>', page, re.S)
        assert [name for name, _ in parts] == ["seed", "roller", "opponent"], code
        assert "SHA-256" in parts[0][1] and "16" in parts[1][1], code
        assert OPPONENT[code] in parts[2][1], code
        # What each kind of roll proves, and what older (v1) matches prove.
        kinds = re.findall(r'<li data-kind="([a-z_]+)">', page)
        assert kinds == ["live", "opponent_absent", "computer", "no_opponent_device"], code
        assert 'id="v1"' in page, code
        # The witness anyone can run, the log's heads and co-signatures, the audit pages.
        assert "<code>boardgammon witness" in page, code
        for address in ("/api/log/head", "/api/log/witnesses", "/audit/verify.py",
                        "/audit/transparency.py"):
            assert f'href="{address}"' in page, (code, address)


@pytest.mark.parametrize(("lang", "said", "gone"), [
    ("en", "whose opponent's device is not asked", "not online"),
    ("de", "nicht gefragt wird", "nicht online"),
    ("ja", "相手の端末に問い合わせない通信対局の手番", "オンラインでなかった"),
])
def test_the_fair_page_says_a_correspondence_turn_does_not_ask_the_device(
        client, lang, said, gone):
    """Found by an outside audit: the page said a correspondence turn's roll lacked the
    opponent's link because the opponent was not online; the server never asks for it."""
    page = client.get(f"/fair?lang={lang}").text
    kind = page.split('data-kind="opponent_absent"')[1].split("</li>")[0]
    assert said in " ".join(kind.split()) and gone not in page


# A new user's trial (2026-12): the HTML 404 had no viewport (980 px wide on a 320 px phone),
# no styling and no language; a player page's bad ?page= answered JSON; /odds wrote its ranges
# as 5000 in every language and said one bad field of the doubles form at a time.

VIEWPORT = '<meta name="viewport" content="width=device-width, initial-scale=1">'


def error_text(page: str) -> str:
    found = re.search(r'<p id="error-text">([^<]*)</p>', page)
    assert found, page
    return html.unescape(found.group(1))


@pytest.mark.parametrize("address,headers,cookies,lang,title,text", [
    ("/nope", {}, {}, "en", "Not found", "There is no page at this address."),
    ("/nope?lang=de", {}, {}, "de", "Nicht gefunden", "Unter dieser Adresse gibt es keine Seite."),
    ("/nope", {"Accept-Language": "de-DE,de;q=0.9"}, {}, "de", "Nicht gefunden",
     "Unter dieser Adresse gibt es keine Seite."),
    ("/nope", {"Accept-Language": "de"}, {"bg_lang": "ja"}, "ja", "見つかりません",
     "このアドレスにはページがありません。"),
    ("/player/nobody_x", {}, {}, "en", "Not found", "There is no player “nobody_x”."),
    ("/player/nobody_x?lang=de", {}, {}, "de", "Nicht gefunden",
     "Es gibt keinen Spieler „nobody_x“."),
    ("/leaderboard/chess?lang=ja", {}, {}, "ja", "見つかりません",
     "「chess」のランキングはありません。"),
])
def test_a_404_is_a_page_of_the_site_in_the_pages_language(client, address, headers, cookies,
                                                           lang, title, text):
    client.cookies.update(cookies)
    r = client.get(address, headers=headers)
    assert r.status_code == 404
    assert r.headers["content-type"] == "text/html; charset=utf-8"
    page = r.text
    assert f'<html lang="{lang}">' in page and VIEWPORT in page
    assert '<link rel="stylesheet" href="/static/style.css">' in page
    assert '<header id="header">' in page and '<footer class="site">' in page
    assert f"<h1>{title}</h1>" in page and f"<title>{title} · Boardgammon</title>" in page
    assert error_text(page) == text
    assert f'<a id="error-home" href="/?lang={lang}">' in page


def test_other_refusals_of_a_page_are_pages_too_and_the_api_keeps_json(client):
    r = client.post("/rules?lang=de")
    assert (r.status_code, r.headers["content-type"]) == (405, "text/html; charset=utf-8")
    assert set(r.headers["allow"].split(", ")) == {"GET", "HEAD"} and VIEWPORT in r.text
    assert error_text(r.text) == "Diese Adresse nimmt diese Art von Anfrage nicht an."
    r = client.get("/api/nope?lang=de")
    assert (r.status_code, r.json()) == (404, {"error": {
        "code": "not_found", "message": "no such endpoint: GET /api/nope (see /docs)"}})
    r = client.get("/api/players/nobody_x")
    assert (r.status_code, r.json()) == (404, {"error": {
        "code": "not_found", "message": "no player named 'nobody_x'"}})


@pytest.mark.parametrize("page,text", [
    ("abc", "„abc“ ist keine Seitenzahl: Die Seiten sind ab 1 nummeriert."),
    ("0", "„0“ ist keine Seitenzahl: Die Seiten sind ab 1 nummeriert."),
    ("-2", "„-2“ ist keine Seitenzahl: Die Seiten sind ab 1 nummeriert."),
])
def test_a_bad_page_number_of_a_players_page_is_an_html_400(client, page, text):
    Player.register(client, "ann")
    r = client.get("/player/ann", params={"page": page, "lang": "de"})
    assert (r.status_code, r.headers["content-type"]) == (400, "text/html; charset=utf-8")
    assert "<h1>Ungültige Anfrage</h1>" in r.text and VIEWPORT in r.text
    assert error_text(r.text) == text
    assert '<a href="/player/ann?lang=de">Die Seite von ann</a>' in r.text


def test_a_page_past_the_last_is_404_on_the_page_and_the_api_without_echoing_it(client):
    Player.register(client, "ann")
    huge = "99999999999999999999999"
    assert client.get("/player/ann?page=1").status_code == 200
    r = client.get(f"/player/ann?page={huge}")
    assert (r.status_code, r.headers["content-type"]) == (404, "text/html; charset=utf-8")
    assert error_text(r.text) == "The matches of ann end at page 1: there is no page after it."
    assert "99999" not in r.text.split("<main>")[1]  # only the language links keep the query
    r = client.get("/player/ann?page=2&lang=de")
    assert error_text(r.text) == (
        "Die Matches von ann enden auf Seite 1: Danach gibt es keine Seite.")
    for page in (huge, "2"):
        r = client.get(f"/api/players/ann/matches?page={page}")
        assert (r.status_code, r.json()) == (404, {"error": {
            "code": "not_found", "message": "no such page: the matches of ann end at page 1"}})
    assert client.get("/api/players/ann/matches?page=1").json()["page"] == 1


@pytest.mark.parametrize("lang,params,words", [
    ("de", {"rolls": "0"}, "„Würfe je Seite (N)“ nimmt eine ganze Zahl von 1 bis 5.000, nicht 0."),
    ("de", {"games": "0"}, "„Spiele (G)“ nimmt eine ganze Zahl von 1 bis 200.000, nicht 0."),
    ("en", {"games": "0"}, "“Games (G)” takes a whole number from 1 to 200,000, not 0."),
    ("ja", {"margin": "-1"}, "」は0〜5,000の整数です（-1ではなく）。"),
    ("de", {"rolls": "5000", "games": "100"},
     "Würfe × Spiele dürfen höchstens 200.000 sein, nicht 5.000 × 100."),
])
def test_odds_ranges_are_written_as_the_language_writes_numbers(client, lang, params, words):
    r = client.get("/odds", params={"lang": lang, **params})
    assert r.status_code == 200
    problem = re.search(r'id="doubles-problem">([^<]*)<', r.text)
    assert problem and words in html.unescape(problem.group(1))


def test_odds_says_every_bad_field_of_the_doubles_form_at_once(client):
    r = client.get("/odds", params={"rolls": "-1", "margin": "-3", "games": "0"})
    assert r.status_code == 200
    problem = re.search(r'id="doubles-problem">([^<]*)<', r.text)
    assert problem and html.unescape(problem.group(1)) == (
        "“Rolls each (N)” takes a whole number from 1 to 5,000, not -1. "
        "“Margin (D)” takes a whole number from 0 to 5,000, not -3. "
        "“Games (G)” takes a whole number from 1 to 200,000, not 0.")


@pytest.mark.parametrize(("lang", "title"), [("en", "Bad request"), ("de", "Ungültige Anfrage")])
def test_a_control_character_in_a_page_address_gets_the_sites_page(client, lang, title):
    """A fresh user's: /match/%00 answered a bare English line of text; the API keeps its
    JSON refusal."""
    page = client.get(f"/match/%00?lang={lang}")
    assert page.status_code == 400 and page.headers["content-type"].startswith("text/html")
    assert title in page.text and 'href="/' in page.text
    api = client.get("/api/matches/%00")
    assert api.status_code == 422 and api.json()["error"]["code"] == "invalid_request"
