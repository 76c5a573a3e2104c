"""Ratings in Chromium: a rated seek with a rating range posted from the lobby's form and shown
to another player with the owner's rating; the profile page (rating, history plot, matches with
their links) and the leaderboard, in every language, at 360 and 1280 px without sideways
scrolling (screenshots in test-output/web/ for review)."""

from __future__ import annotations

import os
import time

import pytest

from boardgammon.server.i18n import LANGUAGES

pytestmark = pytest.mark.browser

PASSWORD = "correct horse battery"


def overflow(page) -> int:
    return page.evaluate("document.documentElement.scrollWidth - window.innerWidth")


class Api:
    """A player acting through the API with a bearer token (Playwright's request context)."""

    def __init__(self, request, base: str, name: str) -> None:
        self.request, self.base = request, base
        r = request.post(f"{base}/api/auth/register", data={"username": name, "password": PASSWORD})
        assert r.status == 201, r.text()
        self.headers = {"Authorization": f"Bearer {r.json()['token']}"}

    def get(self, path: str) -> dict:
        r = self.request.get(f"{self.base}{path}", headers=self.headers)
        assert r.ok, r.text()
        return r.json()

    def post(self, path: str, body: dict):
        return self.request.post(f"{self.base}{path}", data=body, headers=self.headers)


def rated_resigned_match(owner: Api, other: Api, loser: int) -> str:
    """A rated 1-point match between ``owner`` (seat 0) and ``other``: the opening roll, then
    seat ``loser`` resigns and the other accepts."""
    seek = owner.post("/api/seeks", {"length": 1, "rated": True}).json()
    match_id = other.post(f"/api/seeks/{seek['id']}/accept", {}).json()["match_id"]
    seats = (owner, other)
    counter = 0
    while (state := owner.get(f"/api/matches/{match_id}"))["phase"] == "opening":
        if state["turn"] is None or state["pending_roll"] is None \
                or state["pending_roll"].get("state") == "requested":
            # v2 dice: the first roll waits (up to the link wait) for devices these API
            # players do not have, then goes on without them
            time.sleep(0.2)
            continue
        player = seats[state["turn"]]
        pending = player.get(f"/api/matches/{match_id}")["pending_roll"]
        counter += 1
        r = player.post(
            f"/api/matches/{match_id}/actions",
            {
                "action_id": f"o{counter}",
                "type": "roll",
                "roll_id": pending["roll_id"],
                "commitment": pending["commitment"],
                "entropy": os.urandom(16).hex(),
            },
        )
        assert r.ok, r.text()
    assert (
        seats[loser]
        .post(f"/api/matches/{match_id}/actions", {"action_id": "r", "type": "resign", "points": 1})
        .ok
    )
    assert (
        seats[1 - loser]
        .post(f"/api/matches/{match_id}/actions", {"action_id": "a", "type": "accept_resign"})
        .ok
    )
    return match_id


def test_rated_seek_profile_and_leaderboard(browser, live_server, output_dir):
    context = browser.new_context(viewport={"width": 360, "height": 800})
    page = context.new_page()
    ann, bob = Api(page.request, live_server, "ann"), Api(page.request, live_server, "bob")
    matches = [rated_resigned_match(ann, bob, loser=1) for _ in range(5)]

    # cyd posts a rated seek with a range from the lobby's form.
    answer = page.request.post(
        f"{live_server}/api/auth/register", data={"username": "cyd", "password": PASSWORD}
    )
    assert answer.status == 201
    page.goto(live_server)
    page.wait_for_selector('[data-action="post-seek"]')
    assert page.locator('input[name="min_rating"]').is_hidden()
    page.click("label.field.check")
    page.fill('input[name="min_rating"]', "1400")
    page.fill('input[name="max_rating"]', "1700")
    box = page.locator("label.field.check").bounding_box()
    assert box["height"] >= 44 and box["width"] >= 44
    page.click('[data-action="post-seek"]')
    page.wait_for_selector("[data-seek]")
    page.screenshot(path=str(output_dir / "ratings-lobby-360.png"), full_page=True)
    seek = ann.get("/api/lobby")["seeks"][0]
    assert (seek["owner"], seek["rated"], seek["min_rating"], seek["max_rating"]) == (
        "cyd",
        True,
        1400,
        1700,
    )
    # ann sees cyd's rating beside the name, and is above the range: no Accept, the reason.
    ann_context = browser.new_context(viewport={"width": 360, "height": 800})
    ann_page = ann_context.new_page()
    assert ann_page.request.post(
        f"{live_server}/api/auth/login", data={"username": "ann", "password": PASSWORD}
    ).ok
    ann_page.goto(live_server)
    item = ann_page.locator(f'[data-seek="{seek["id"]}"]')
    item.wait_for()
    assert "cyd" in item.inner_text() and "(1500)" in item.inner_text()
    assert "1400–1700" in item.inner_text()
    rating = ann.get("/api/players/ann")["ratings"][0]["rating"]
    assert rating > 1700
    assert item.locator('[data-action="accept"]').count() == 0
    assert item.locator(".refusal").inner_text() == "your rating is outside its range"
    ann_context.close()

    for width in (360, 390, 1280):
        page.set_viewport_size({"width": width, "height": 800})
        for code in LANGUAGES:
            page.goto(f"{live_server}/player/ann?lang={code}")
            assert page.locator("h1#player-name").inner_text() == "ann"
            plot = page.locator('section.rating[data-variant="standard"] polyline')
            assert len(plot.get_attribute("points").split()) == 6  # the start, then 5 matches
            rows = page.locator("#player-matches tbody tr")
            assert rows.count() == 5
            assert [rows.nth(k).get_attribute("data-match") for k in range(5)] == matches[::-1]
            links = rows.first.locator("a")
            assert [links.nth(k).get_attribute("href") for k in range(3)] == [
                f"/match/{matches[-1]}",
                f"/audit/{matches[-1]}",
                f"/match/{matches[-1]}/analysis",
            ]
            assert links.first.bounding_box()["height"] >= 44
            # result, opponent and rating change come first: in view without scrolling the table
            first = rows.first.locator("td")
            assert first.nth(0).inner_text().split()[-1] == "1–0"
            assert first.nth(1).inner_text() == "bob"
            assert first.nth(2).inner_text().startswith("+")
            # each heading on one line, the rating change's aside (ポイント was one per line)
            lines = page.evaluate("""() => [...document.querySelectorAll('#player-matches th')]
                .map((th) => th.getClientRects().length && th.textContent
                     ? (() => { const r = document.createRange(); r.selectNodeContents(th);
                                return r.getClientRects().length; })() : 1)""")
            assert [n for k, n in enumerate(lines) if k != 2] == [1] * (len(lines) - 1), (
                code, width, lines)
            table = page.locator("#player-matches").bounding_box()
            for k in range(3):
                cell = first.nth(k).bounding_box()
                assert cell["x"] + cell["width"] <= table["x"] + table["width"], (code, width, k)
            page.screenshot(
                path=str(output_dir / f"ratings-player-{code}-{width}.png"), full_page=True
            )
            assert overflow(page) == 0, f"/player/ann?lang={code} scrolls at {width} px"
            # A wide screen shows the whole table, links included; a phone each match as a
            # card (it had hidden every column after the date off to the right).
            hidden = page.evaluate("(t => t.scrollWidth - t.clientWidth)"
                                   "(document.querySelector('#player-matches'))")
            assert hidden == 0, f"/player/ann?lang={code}: the table hides {hidden} px"
            luck = first.nth(7).bounding_box()
            assert luck["x"] + luck["width"] <= table["x"] + table["width"], (code, width)

            page.goto(f"{live_server}/leaderboard/standard?lang={code}")
            cells = page.locator("#leaderboard tbody tr").all_inner_texts()
            assert [c.split("\t")[:2] for c in cells] == [["1", "ann"], ["2", "bob"]]
            page.screenshot(
                path=str(output_dir / f"ratings-leaderboard-{code}-{width}.png"), full_page=True
            )
            assert overflow(page) == 0, f"leaderboard?lang={code} scrolls at {width} px"
    page.click("#leaderboard a >> text=bob")
    page.wait_for_url(f"{live_server}/player/bob?lang=ja")
    assert page.locator(".rating-line").inner_text().startswith("レーティング")

    # the last match's result dialog says both players' rating change, from their histories
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{live_server}/match/{matches[-1]}?lang=en")
    page.wait_for_selector(".result .rating-change")
    expected = []
    for name in ("ann", "bob"):
        entry = next(e for e in ann.get(f"/api/players/{name}")["ratings"][0]["history"]
                     if e["match_id"] == matches[-1])
        before, after = round(entry["before"]), round(entry["after"])
        change = f"+{after - before}" if after >= before else f"\u2212{before - after}"
        expected.append(f"{name}: rating {before} → {after} ({change})")
    assert page.locator(".result .rating-change").all_inner_texts() == expected
    assert "(+" in expected[0] and "(\u2212" in expected[1]  # ann won, bob lost
    page.screenshot(path=str(output_dir / "ratings-result-dialog-390.png"), full_page=True)
    context.close()
