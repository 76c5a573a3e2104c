"""The audit page in Chromium (issue 22): on a 360 px phone it scrolls sideways nowhere, its
heading and every roll's dice and verdict in view, every tap target at least 44 × 44 px, in
de/en/ja; it names the players, leads back
to the match, opens in the app's language, marks the roll a link names (``#rol_…``), and loads
without a missing file (the icon). Screenshots at 360 and 1280 px go to test-output/web/."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator

import pytest

from boardgammon.server.i18n import LANGUAGES
from tests.helpers.actions import next_action
from tests.web.test_web_pages import computer_match, overflow

pytestmark = pytest.mark.browser


@pytest.fixture
def audited(browser, live_server) -> Iterator[tuple]:
    """A 360 × 740 px page and a guest's match against the computer on the live server, its
    first roll on record: (page, match ID); the page's context is closed afterwards."""
    context = browser.new_context(viewport={"width": 360, "height": 740})
    page = context.new_page()
    yield page, computer_match(page, live_server)
    context.close()


def each_language(
    page, base: str, match_id: str, widths: tuple[int, ...]
) -> Iterator[tuple[str, int]]:
    """Opens the audit page of ``match_id`` in each language at each of ``widths`` (px, the
    window 800 px high) in turn, yielding (language, width) while it is open."""
    for code in LANGUAGES:
        for width in widths:
            page.set_viewport_size({"width": width, "height": 800})
            page.goto(f"{base}/audit/{match_id}?lang={code}")
            yield code, width


def play_until(page, base: str, match_id: str, revealed: int) -> dict:
    """The guest's rolls and first legal plays through the API, the computer answering, until
    ``revealed`` rolls of the match are revealed (or it ends); the audit JSON then."""
    for _ in range(600):
        audit = page.request.get(f"{base}/api/audit/{match_id}").json()
        state = page.request.get(f"{base}/api/matches/{match_id}").json()
        done = sum(r["dice"] is not None for r in audit["rolls"]) >= revealed
        if done or state["phase"] == "match_over":
            return audit
        ready = state["phase"] == "play" or (
            state["phase"] in ("opening", "roll") and state.get("pending_roll"))
        if state["turn"] != state["you"] or not ready:
            time.sleep(0.05)
            continue
        answer = page.request.post(f"{base}/api/matches/{match_id}/actions",
                                   data=next_action(state, os.urandom(8).hex()))
        assert answer.status == 200, answer.text()
    raise AssertionError(f"fewer than {revealed} rolls revealed in {match_id}")


def in_view(page, selector: str, width: int) -> bool:
    """Whether every element ``selector`` finds lies within the window's width."""
    return page.evaluate(
        """([selector, width]) => [...document.querySelectorAll(selector)].every(e => {
             const box = e.getBoundingClientRect();
             return box.left >= 0 && box.right <= width + 0.5; })""",
        [selector, width],
    )


def small_targets(page) -> list[str]:
    """The page's visible links, buttons, fields and disclosures smaller than 44 × 44 px."""
    return page.evaluate(
        """() => [...document.querySelectorAll('a, button, summary, input, select, textarea')]
             .filter(e => e.getClientRects().length)
             .map(e => [e, e.getBoundingClientRect()])
             .filter(([e, box]) => box.width < 44 || box.height < 44)
             .map(([e, box]) => `${e.outerHTML.slice(0, 60)} ${box.width}×${box.height}`)"""
    )


def test_the_audit_page_fits_a_phone_names_the_players_and_leads_back(
    audited, live_server, output_dir
):
    page, match_id = audited
    audit = play_until(page, live_server, match_id, revealed=6)
    missing: list[str] = []  # from here on: the audit pages and what they load
    page.on("response", lambda r: missing.append(r.url) if r.status >= 400 else None)
    state = page.request.get(f"{live_server}/api/matches/{match_id}").json()
    guest = next(p["username"] for p in state["players"] if p["seat"] == state["you"])
    for code in LANGUAGES:
        for width in (360, 390, 1280):
            page.set_viewport_size({"width": width, "height": 800})
            page.goto(f"{live_server}/audit/{match_id}?lang={code}")
            assert overflow(page) == 0, (code, width)
            # The heading is whole (no word cut off by the edge), the dice and verdicts in view.
            assert page.eval_on_selector("h1", "h => h.scrollWidth <= h.clientWidth")
            assert in_view(page, "#rolls td.dice", width), (code, width)
            assert in_view(page, "#rolls td.verdict", width)
            if width < 1280:
                assert small_targets(page) == [], (code, width)
            # The command a count names stays on one line (a 360 px line in German and
            # Japanese broke it after "--").
            command = page.locator('#counts li[data-kind="no_opponent_device"] code.command')
            assert command.inner_text() == "verify.py --log", (code, width)
            assert command.evaluate("c => c.getClientRects().length") == 1, (code, width)
            page.screenshot(path=str(output_dir / f"audit-{code}-{width}.png"), full_page=True)
        assert guest in page.inner_text("#players")
        # How the match is played, as the public log states it (docs/fair-dice.md §The
        # public log, Match leaf), above the counts that it explains.
        assert page.get_attribute("#mode", "data-mode") == "computer"
        assert in_view(page, "#mode", 1280)
        # With the server's wait for the human's link, as the leaf states it (3 s default).
        assert page.get_attribute("#link-wait", "data-link-wait-ms") == "3000"
        # Each row under its roller's name, anchored by its roll ID (the computer may have
        # rolled again since: the record only grows).
        shown = page.eval_on_selector_all(
            "#rolls tbody tr[id]",
            "rows => rows.map(r => [r.id, r.querySelector('.roller').innerText])",
        )
        record = page.request.get(f"{live_server}/api/audit/{match_id}").json()["rolls"]
        assert len(shown) >= len(audit["rolls"])
        assert [roll_id for roll_id, _ in shown] == [r["roll_id"] for r in record[: len(shown)]]
        for (_, player), entry in zip(shown, record, strict=False):
            # The computer by its level, in the page's language ("コンピューター (やさしい)").
            level = {"en": "easy", "de": "leicht", "ja": "やさしい"}[code]
            expected = guest if entry["seat"] == state["you"] else level
            assert expected in player and (player == guest) == (expected == guest)
    assert missing == [], f"answered with an error: {missing}"

    # The way back opens the match, in the page's language.
    page.set_viewport_size({"width": 360, "height": 740})
    page.goto(f"{live_server}/audit/{match_id}?lang=de")
    page.click("#back-to-match")
    page.wait_for_url(f"{live_server}/match/{match_id}?lang=de")
    page.wait_for_selector("svg.board")
    assert page.get_attribute("html", "lang") == "de"


def test_pages_follow_the_apps_language_and_the_app_theirs(audited, live_server):
    page, match_id = audited
    page.goto(live_server)
    page.select_option("#lang", "de")
    # Opened from the German app without ?lang= (as a link or a typed address): German.
    page.goto(f"{live_server}/audit/{match_id}")
    assert page.get_attribute("html", "lang") == "de"
    page.goto(f"{live_server}/rules")
    assert page.get_attribute("html", "lang") == "de"
    # A reading page in Japanese leads to the app in Japanese, which keeps it.
    page.goto(f"{live_server}/glossary?lang=ja")
    page.click("footer.site a[href^='/?lang=']")
    page.wait_for_url(f"{live_server}/?lang=ja")
    page.wait_for_selector("#lang")
    assert page.locator("#lang").input_value() == "ja"
    page.goto(live_server)
    assert page.locator("#lang").input_value() == "ja"
    # Chosen again in the app, the language outlives a reload of an address that named one.
    page.goto(f"{live_server}/?lang=ja")
    page.select_option("#lang", "en")
    assert page.url == f"{live_server}/?lang=en"
    page.reload()
    assert page.locator("#lang").input_value() == "en"
    page.select_option("#lang", "ja")
    page.goto(f"{live_server}/audit/{match_id}")
    assert page.get_attribute("html", "lang") == "ja"


def test_a_link_to_a_roll_opens_its_row_in_view(audited, live_server, output_dir):
    page, match_id = audited
    audit = play_until(page, live_server, match_id, revealed=8)
    last = audit["rolls"][-1]["roll_id"]
    page.goto(f"{live_server}/audit/{match_id}?lang=en#{last}")
    row = page.locator(f"#rolls tr#{last}")
    assert page.evaluate("location.hash") == f"#{last}"
    assert row.evaluate("r => r.matches(':target')")
    box = row.bounding_box()
    assert box is not None and 0 <= box["y"] < 740
    page.screenshot(path=str(output_dir / "audit-anchor-en-360.png"))
    assert page.request.get(f"{live_server}/favicon.ico").status == 200


def sideways(page) -> dict[str, int]:
    """By how many CSS pixels the page and each of its tables are wider than their box (what
    scrolls sideways), for those that are."""
    return page.evaluate(
        """() => {
             const out = {};
             const page = document.documentElement.scrollWidth - window.innerWidth;
             if (page > 0) out.page = page;
             for (const t of document.querySelectorAll('table')) {
               const more = t.scrollWidth - t.clientWidth;
               if (more > 1) out[t.id || 'table'] = more;
             }
             return out; }"""
    )


def test_the_public_log_tables_fit_a_phone_and_link_each_rolls_proof_and_program(
    audited, live_server, output_dir
):
    # Issue #25: the log's tables scrolled sideways at 360 px; each row's program and each
    # roll's proofs are links now (embedded, they made a long match's page hundreds of KB).
    page, match_id = audited
    audit = play_until(page, live_server, match_id, revealed=6)
    for code, width in each_language(page, live_server, match_id, (360, 1280)):
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        tables = ("log-head",) + (("rolls",) if width == 360 else ())
        assert not set(sideways(page)) & {"page", *tables}, (code, width, sideways(page))
        # No label spills into the value beside it (a Japanese phone's "/api/log/public-key"
        # ran over the key: a fixed column's cell overflows without scrolling its table).
        spilled = page.eval_on_selector_all(
            "#log-head th, #log-head td, #log-anchors th, #log-anchors td",
            "cells => cells.filter(c => c.scrollWidth > c.clientWidth + 1).map(c => c.innerText)")
        assert spilled == [], (code, width, spilled)
        if width == 360:
            assert small_targets(page) == [], code
        page.locator("#public-log").scroll_into_view_if_needed()
        page.screenshot(path=str(output_dir / f"audit-log-{code}-{width}.png"))
    page.goto(f"{live_server}/audit/{match_id}?lang=en")
    revealed = [r for r in audit["rolls"] if r["server_seed"] is not None]
    for entry in revealed:
        link = page.locator(f"#verify-roll-{entry['roll_id']}")
        program = page.request.get(live_server + link.get_attribute("href"))
        assert program.status == 200 and f"roll_id = '{entry['roll_id']}'" in program.text()
    proofs = page.locator("#rolls a.log-proof")
    assert proofs.count() >= len(audit["rolls"])  # the computer may have rolled since
    proof = page.request.get(live_server + proofs.first.get_attribute("href")).json()
    assert proof["format"] == "boardgammon-roll-proof-v1"
    assert proof["roll"]["roll_id"] == audit["rolls"][0]["roll_id"]


def test_a_row_opened_shows_every_value_in_full_and_fits_a_phone(audited, live_server, output_dir):
    # Issue #25, the page's weight: a row carries no hash in full; opened, it shows every value
    # of its entry (fetched from the roll's proof) and its log leaves, wrapped within a phone.
    page, match_id = audited
    # A normal roll (after the opening roll and its rerolls of doubles: as many as the dice
    # say, so the match is played on until one is revealed).
    revealed, entry = 4, None
    while entry is None:
        audit = play_until(page, live_server, match_id, revealed=revealed)
        entry = next((r for r in audit["rolls"] if r["kind"] == "normal" and r["dice"]), None)
        revealed += 2
    for code, width in each_language(page, live_server, match_id, (360, 1280)):
        details = page.locator(f"#{entry['roll_id']} + tr.roll-more details")
        details.locator("summary").click()
        values = details.locator("dl")
        values.locator("dd").first.wait_for()
        shown = dict(zip(values.locator("dt").all_inner_texts(),
                         values.locator("dd").all_inner_texts(), strict=True))
        for name in ("commitment", "server_seed", "roller_entropy", "prev_hash",
                     "entry_hash", "committed_at"):
            assert entry[name] in shown.values(), (code, name)
        assert "#" in shown and shown["#"] == str(entry["seq"])
        # No line without a value (a verified roll has no reason to give: no empty "Why").
        assert all(v.strip() for v in shown.values()), (code, shown)
        # Every field under its label in the page's language, never its JSON name; a value
        # the record writes as a code is said in words, the code after it in brackets (the
        # words may hold parentheses: "server (the computer rolls) [server]").
        assert not set(entry) & set(shown), (code, set(entry) & set(shown))
        # The roll's kind in the plain terms of the record's field: a normal roll, not "turn".
        said = {"en": "normal roll", "de": "normaler Wurf", "ja": "通常のロール"}[code]
        assert shown[{"en": "Kind", "de": "Art", "ja": "種類"}[code]] == f"{said} [normal]"
        assert page.inner_text(f"#{entry['roll_id']} td.kind") == said
        assert not [v for v in shown.values() if ") (" in v], (code, shown)
        # The log's leaves by their index and event (the leaf's own field).
        log = shown[{"en": "Log entries (index: event)", "de": "Log-Einträge (Index: Ereignis)",
                     "ja": "ログ項目（番号：イベント）"}[code]]
        assert [int(leaf.split(": ")[0]) for leaf in log.split(", ")] == [
            e["index"] for e in entry["log"]]
        # The row's program is linked once, under the values (testers saw it twice).
        programs = page.locator(f"#{entry['roll_id']} + tr.roll-more a[href$='/verify.py']")
        assert programs.count() == 1, code
        assert programs.get_attribute("id") == f"verify-roll-{entry['roll_id']}"
        assert page.evaluate("document.documentElement.scrollWidth") <= width, (code, width)
        assert "page" not in sideways(page)
        if width == 360:
            assert small_targets(page) == [], code
        details.scroll_into_view_if_needed()
        page.screenshot(path=str(output_dir / f"audit-row-open-{code}-{width}.png"))
    # A proof that cannot be fetched says so in the row, and where the values are.
    page.route("**/proof", lambda route: route.fulfill(status=503, body="busy"))
    page.goto(f"{live_server}/audit/{match_id}?lang=de")
    details = page.locator(f"#{audit['rolls'][0]['roll_id']} + tr.roll-more details")
    details.locator("summary").click()
    assert details.locator("p").inner_text() == (
        "Die Werte ließen sich nicht laden: der Link oben öffnet sie als JSON.")
    assert details.locator("dl").count() == 0
