"""Ratings through the API on SQLite and PostgreSQL: rated and unrated seeks, the update once
when a rated match ends by any ending, rating ranges, guests, profiles and the leaderboard."""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime

import pytest
from fastapi.testclient import TestClient
from gameplay import Player, Wall, both_moved, live_match, make_app, play_out, step
from sqlalchemy import select

from boardgammon.ratings import GlickoRating, glicko
from boardgammon.server import ratings
from boardgammon.server.services import services
from boardgammon.server.tables import (
    DiceRoll,
    MatchAnalysisRow,
    PlayerRating,
    RatedMatch,
    RatingChange,
)


@pytest.fixture
def wall():
    return Wall()


@pytest.fixture
def client(database_url, wall):
    with TestClient(make_app(database_url, wall)) as c:
        yield c


def rated_match(owner: Player, other: Player, **seek) -> str:
    return live_match(owner, other, rated=True, **seek)


def resign_now(players: dict[int, Player], match_id: str, seat: int) -> None:
    """``seat`` resigns the current game for 3 points (the whole of a short match), the other
    accepts."""
    r = players[seat].act(match_id, "resign", points=3)
    assert r.status_code == 200, r.text
    r = players[1 - seat].act(match_id, "accept_resign")
    assert r.status_code == 200, r.text


def open_game(players: dict[int, Player], match_id: str) -> None:
    while players[0].state(match_id)["phase"] == "opening":
        step(players, match_id)


def profile(client: TestClient, name: str) -> dict:
    r = client.get(f"/api/players/{name}")
    assert r.status_code == 200, r.text
    return r.json()


def test_a_rated_match_changes_both_ratings_once_by_glicko2(client):
    # Played out to the bear-off (first legal play each turn).
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    match_id = rated_match(ann, bob, length=1)
    players = {0: ann, 1: bob}
    final = play_out(players, match_id)
    winner = final["games"][-1]["winner"]
    names = ("ann", "bob")
    won, lost = glicko.update(GlickoRating(), GlickoRating(), 1)
    assert profile(client, names[winner])["ratings"][0]["rating"] == round(won.rating, 1)
    loser = profile(client, names[1 - winner])["ratings"][0]
    assert loser["rating"] == round(lost.rating, 1)
    assert loser["matches"] == 1 and loser["experience"] == 1
    assert loser["history"] == [
        {
            "match_id": match_id,
            "at": loser["history"][0]["at"],
            "before": 1500.0,
            "after": round(lost.rating, 1),
        }
    ]
    # Its lobby listing and the player's match list say so.
    page = client.get(f"/api/players/{names[winner]}/matches").json()
    assert page["total"] == 1 and page["matches"][0]["rated"] is True
    assert page["matches"][0]["result"] == "won"
    assert page["matches"][0]["rating_change"] == round(won.rating - 1500, 1)
    assert page["matches"][0]["links"]["audit"] == f"/audit/{match_id}"
    # The profile page: one match in the singular, German decimals with commas.
    change = round(won.rating - 1500, 1)
    english = client.get(f"/player/{names[winner]}").text
    assert f"{round(won.rating):.0f} (deviation" in english and "1 rated match," in english
    assert f"{change:+.1f}" in english
    german = client.get(f"/player/{names[winner]}?lang=de").text
    assert "1 gewertetes Match," in german and f"{change:+.1f}".replace(".", ",") in german


def test_resignation_right_after_the_opening_roll_is_rated(client, database):
    # The documented rule: a resignation ends a game like any other ending; in a 1-point match
    # right after the opening roll it decides the match, and the match is rated.
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    match_id = rated_match(ann, bob, length=1)
    players = {0: ann, 1: bob}
    open_game(players, match_id)
    resign_now(players, match_id, 1)
    assert ann.state(match_id)["phase"] == "match_over"
    assert profile(client, "ann")["ratings"][0]["rating"] > 1500
    assert profile(client, "bob")["ratings"][0]["rating"] < 1500
    # Resigning again changes nothing: the match is over, the ratings stay.
    assert bob.act(match_id, "resign", points=1).status_code == 409
    with database.sessions() as s:
        assert len(s.scalars(select(RatingChange)).all()) == 2
        assert s.get(RatedMatch, match_id).rated_at is not None


def test_a_flagged_match_is_rated_for_the_player_on_time(client, wall):
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    match_id = rated_match(ann, bob, clock="bullet")
    players = {0: ann, 1: bob}
    slow = both_moved(players, match_id)["turn"]  # before a first move, a flag aborts
    wall.advance(40.0)  # bullet: 30 s of reserve in a 1-point match, 5 s of delay
    state = players[slow].state(match_id)
    r = players[slow].act(match_id, "play", play=state["legal_plays"][0]["notation"])
    assert (r.status_code, r.json()["error"]["code"]) == (409, "time_expired")
    assert players[1 - slow].state(match_id)["phase"] == "match_over"
    names = ("ann", "bob")
    assert profile(client, names[slow])["ratings"][0]["rating"] < 1500
    assert profile(client, names[1 - slow])["ratings"][0]["rating"] > 1500


def test_unrated_guest_and_computer_matches_change_nothing(client, wall):
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    players = {0: ann, 1: bob}
    match_id = live_match(ann, bob)  # unrated by default
    open_game(players, match_id)
    resign_now(players, match_id, 1)
    wall.advance(60.0)  # the test's clock stands still: the computer match is the newer
    r = ann.post("/api/matches/computer", {"level": "easy", "length": 1})
    assert r.status_code == 201
    assert profile(client, "ann")["ratings"] == []
    page = client.get("/api/players/ann/matches").json()
    assert [m["rated"] for m in page["matches"]] == [False, False]
    assert page["matches"][0]["opponent"] == "Computer (easy)"


def test_guests_are_refused_rated_seeks_and_the_state_stays(client):
    ann = Player.register(client, "ann")
    g = client.post("/api/auth/guest")
    guest = Player(client, g.json()["user"]["username"], g.json()["token"])
    r = guest.post("/api/seeks", {"rated": True})
    assert r.status_code == 403 and r.json()["error"]["code"] == "guest_unrated"
    seek = ann.post("/api/seeks", {"rated": True}).json()
    r = guest.post(f"/api/seeks/{seek['id']}/accept")
    assert r.status_code == 403 and r.json()["error"]["code"] == "guest_unrated"
    assert [s["id"] for s in ann.get("/api/lobby").json()["seeks"]] == [seek["id"]]
    assert guest.get("/api/lobby").json()["mine"] == []


def test_a_rating_range_refuses_a_player_outside_it(client, database):
    ann, bob, cyd = (Player.register(client, n) for n in ("ann", "bob", "cyd"))
    with database.sessions() as s:
        s.add(
            PlayerRating(
                user_id=bob.user["id"],
                variant="standard",
                rating=1720.0,
                deviation=80.0,
                volatility=0.06,
                experience=300,
                matches=40,
                updated_at=datetime.now(UTC),
            )
        )
        s.commit()
    seek = ann.post("/api/seeks", {"rated": True, "min_rating": 1400, "max_rating": 1700})
    assert seek.status_code == 201, seek.text
    seek = seek.json()
    assert (seek["rated"], seek["min_rating"], seek["max_rating"]) == (True, 1400, 1700)
    r = bob.post(f"/api/seeks/{seek['id']}/accept")
    assert r.status_code == 403
    assert r.json()["error"] == {
        "code": "outside_rating_range",
        "message": "your standard rating 1720 is outside this seek's range 1400–1700",
    }
    assert [s["id"] for s in cyd.get("/api/lobby").json()["seeks"]] == [seek["id"]]
    # A newcomer (1500) is inside; the lobby shows each owner's rating beside the name.
    lobby = cyd.get("/api/lobby").json()
    assert lobby["seeks"][0]["owner_rating"] == 1500.0
    assert cyd.post(f"/api/seeks/{seek['id']}/accept").status_code == 201


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"min_rating": 1400}, "a rating range is for rated seeks only"),
        (
            {"rated": True, "min_rating": 1800, "max_rating": 1700},
            "min_rating 1800 is above max_rating 1700",
        ),
    ],
)
def test_bad_ranges_are_refused(client, body, message):
    ann = Player.register(client, "ann")
    r = ann.post("/api/seeks", body)
    assert r.status_code == 422 and r.json()["error"]["message"] == message
    assert ann.get("/api/lobby").json()["mine"] == []


def test_record_result_counts_a_match_once(client, database):
    # Two processes finishing the same match both call record_result in their transactions;
    # only the first finds the match unrated.
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    match_id = rated_match(ann, bob)
    ids = (ann.user["id"], bob.user["id"])
    with database.sessions() as s:
        assert ratings.record_result(s, match_id, ids, 0, 1, "standard") is True
        assert ratings.record_result(s, match_id, ids, 0, 1, "standard") is False
        s.commit()
    with database.sessions() as s:
        rows = s.scalars(select(PlayerRating).order_by(PlayerRating.user_id)).all()
        assert [r.matches for r in rows] == [1, 1]


def test_leaderboard_needs_five_rated_matches_and_orders_by_rating(client, database):
    ann, bob, cyd = (Player.register(client, n) for n in ("ann", "bob", "cyd"))
    for k in range(5):
        players = {0: ann, 1: bob} if k % 2 == 0 else {0: bob, 1: ann}
        match_id = rated_match(players[0], players[1])
        open_game(players, match_id)
        resign_now(players, match_id, 0 if players[0] is bob else 1)  # ann wins every one
    match_id = rated_match(cyd, ann)
    open_game({0: cyd, 1: ann}, match_id)
    resign_now({0: cyd, 1: ann}, match_id, 1)
    board = client.get("/api/leaderboard/standard").json()
    assert board["min_matches"] == 5
    assert [(p["rank"], p["name"], p["matches"]) for p in board["players"]] == [
        (1, "ann", 6),
        (2, "bob", 5),
    ]  # cyd has one rated match only
    assert board["players"][0]["rating"] > 1500 > board["players"][1]["rating"]
    assert client.get("/api/leaderboard/nackgammon").json()["players"] == []
    r = client.get("/api/leaderboard/chess")
    assert r.status_code == 422 and "unknown variant 'chess'" in r.json()["error"]["message"]


def test_profiles_of_unknown_players_and_pages(client):
    r = client.get("/api/players/nobody")
    assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"
    Player.register(client, "ann")
    r = client.get("/api/players/ANN/matches?page=0")
    assert r.status_code == 422 and "pages start at 1" in r.json()["error"]["message"]
    assert client.get("/api/players/ann/matches?page=1").json()["matches"] == []
    # A page past the last is 404 (a number past what the database's integers hold too, not a
    # 500), on the API and on the page.
    for page in ("3", "99999999999999999999"):
        r = client.get(f"/api/players/ann/matches?page={page}")
        assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"
        assert client.get(f"/player/ann?page={page}").status_code == 404
    page = client.get("/player/ann?lang=de")
    assert page.status_code == 200 and "Noch kein gewertetes Match" in page.text
    assert "ランキング" in client.get("/leaderboard/standard?lang=ja").text
    assert "1 / (1 + 10^(−D·√n / 2000))" in client.get("/ratings").text
    # The pages people type and follow answer a page, not the API's JSON.
    for address in ("/player/nobody", "/leaderboard/chess", "/player/%3Cimg%20src%3Dx%3E"):
        r = client.get(address)
        assert r.status_code == 404 and r.headers["content-type"].startswith("text/html")
        assert "Not found" in r.text and "<img" not in r.text
    r = client.get("/player/ann?page=0")
    assert r.status_code == 400 and r.headers["content-type"].startswith("text/html")


def test_a_players_dice_are_their_own_rolls_only(client, database):
    # v1 records (make_app rolls v1 here) do not mark opening rolls: the profile finds them in
    # the match's record and leaves them out, as it does with v2's marked ones.
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    assert client.get("/api/players/ann/dice").json() is None
    players = {0: ann, 1: bob}
    matches = []
    for _ in range(2):
        match_id = live_match(ann, bob)
        open_game(players, match_id)
        for _ in range(6):
            step(players, match_id)
        matches.append(match_id)
    rolls = []
    for match_id in matches:
        # Each match is in its first game: its opening rolls (ties too) are the first revealed.
        record = client.get(f"/api/matches/{match_id}/export.json").json()
        openings = sum(1 for a in record["actions"] if a["kind"] == "opening")
        assert openings >= 1
        with database.sessions() as s:
            revealed = s.execute(
                select(DiceRoll.seat, DiceRoll.die1, DiceRoll.die2)
                .where(DiceRoll.match_id == match_id,
                       DiceRoll.state.in_(("revealed", "played")))
                .order_by(DiceRoll.seq)
            ).all()
        assert [r[1:] for r in revealed[:openings]] == [
            tuple(a["dice"]) for a in record["actions"] if a["kind"] == "opening"]
        rolls += revealed[openings:]
    for seat, name in enumerate(("ann", "bob")):
        table = [[0] * 6 for _ in range(6)]
        for roll_seat, d1, d2 in rolls:
            if roll_seat == seat:  # ann is seat 0 of both matches
                table[d1 - 1][d2 - 1] += 1
        report = client.get(f"/api/players/{name}/dice").json()
        assert report["table"] == table and report["rolls"] == sum(map(sum, table))
        assert report["doubles"]["doubles"] == sum(table[k][k] for k in range(6))
    page = client.get("/player/ann?lang=en").text
    assert "This player&#39;s own" in page or "This player's own" in page
    assert 'id="dice-chi2"' in page


def test_two_processes_claiming_the_same_flag_rate_the_match_once(database_url, wall):
    # Two apps on one database stand for two server processes (each its own match cache,
    # locks and service): both find the reserve run out and settle the match at once.
    with (
        TestClient(make_app(database_url, wall)) as one,
        TestClient(make_app(database_url, wall)) as two,
    ):
        ann, bob = Player.register(one, "ann"), Player.register(one, "bob")
        match_id = rated_match(ann, bob, clock="bullet")
        slow = both_moved({0: ann, 1: bob}, match_id)["turn"]  # before one, a flag aborts
        wall.advance(40.0)
        start = threading.Barrier(2)

        def settle(client: TestClient) -> None:
            start.wait()
            services(client.app).game.service.settle(match_id)

        with ThreadPoolExecutor(max_workers=2) as pool:
            list(pool.map(settle, (one, two)))
        assert ann.state(match_id)["result"]["winner"] == 1 - slow
        for client, name in ((one, "ann"), (two, "bob")):
            rating = profile(client, name)["ratings"][0]
            assert rating["matches"] == 1 and len(rating["history"]) == 1
        won, lost = glicko.update(GlickoRating(), GlickoRating(), 1)
        assert profile(two, ("ann", "bob")[slow])["ratings"][0]["rating"] == round(lost.rating, 1)


def test_pr_and_luck_come_from_the_analysis(client, database, wall):
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    players = {0: bob, 1: ann}  # ann is seat 1
    ids = []
    for pr in (7.5, 4.25):
        wall.advance(60.0)  # the test's clock stands still: one match after the other
        match_id = live_match(bob, ann)
        open_game(players, match_id)
        resign_now(players, match_id, 0)
        ids.append(match_id)
        result = {
            "players": [
                {"seat": 0, "pr": 20.0, "luck_mwc": -0.1},
                {"seat": 1, "pr": pr, "luck_mwc": 0.125},
            ]
        }
        with database.sessions() as s:
            s.add(
                MatchAnalysisRow(
                    match_id=match_id,
                    status="done",
                    plies=2,  # as deep as the worker goes: its second pass leaves it alone
                    result=json.dumps(result),
                    claimed_t=0.0,
                    updated_at=datetime.now(UTC),
                )
            )
            s.commit()
        if len(ids) == 1:  # one analysed match: a dot in the middle, and its PR said once
            html = client.get("/player/ann").text
            assert 'points="300.0,80.0"' in html and '<circle cx="300.0" cy="80.0"' in html
            assert "PR of the one analysed match so far: 7.5 (lower is better)." in html
            assert "PR jedes" not in client.get("/player/ann?lang=de").text
    page = client.get("/api/players/ann/matches").json()
    assert [(m["match_id"], m["pr"], m["luck"], m["result"]) for m in page["matches"]] == [
        (ids[1], 4.25, 0.125, "won"),
        (ids[0], 7.5, 0.125, "won"),
    ]
    html = client.get("/player/ann").text
    assert 'id="pr-plot"' in html
    assert "PR of each of 2 analysed matches, oldest first; the best 4.2, the worst 7.5" in html
    assert 'points="0.0,0.0 600.0,160.0"' in html  # 7.5 at the top, then 4.25 at the bottom
    assert html.count("<circle ") == 2
    # luck in MWC percent with a real minus sign, as the analysis page writes it
    assert html.count("<td>+12.5%</td>") == 2
    assert client.get("/player/bob").text.count("<td>\u221210.0%</td>") == 2
    assert client.get("/player/bob?lang=de").text.count("<td>\u221210,0\u00a0%</td>") == 2


def test_an_unfinished_rated_match_changes_nothing(client, database):
    # The documented rule for an abandoned match: no ending, no rating change.
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    match_id = rated_match(ann, bob, length=3)
    open_game({0: ann, 1: bob}, match_id)
    assert profile(client, "ann")["ratings"] == profile(client, "bob")["ratings"] == []
    played = client.get("/api/players/ann/matches").json()["matches"][0]
    assert (played["rated"], played["status"], played["result"]) == (True, "active", None)
    assert played["rating_change"] is None
    with database.sessions() as s:
        assert s.get(RatedMatch, match_id).rated_at is None


def test_each_variant_keeps_its_own_rating(client):
    # A rated Hypergammon match moves the Hypergammon ratings only; Backgammon stays at 1500.
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    players = {0: ann, 1: bob}
    match_id = rated_match(ann, bob, length=1, variant="hypergammon")
    open_game(players, match_id)
    resign_now(players, match_id, 1)
    (rating,) = profile(client, "ann")["ratings"]
    assert rating["variant"] == "hypergammon" and rating["rating"] > 1500
    lobby = ann.post("/api/seeks", {"length": 1, "variant": "standard", "mode": "live",
                                    "rated": True}).json()
    assert lobby["owner_rating"] == 1500
    hyper = ann.post("/api/seeks", {"length": 1, "variant": "hypergammon", "mode": "live",
                                    "rated": True}).json()
    assert hyper["owner_rating"] == pytest.approx(rating["rating"], abs=0.05)


def test_the_lobby_and_the_link_say_who_may_not_accept_a_rated_seek(client):
    # A new user was offered Accept on a rated seek whose range left them out, and a guest on
    # any rated seek: both refused by the server only after the click.
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    guest = Player.guest(client)
    high = ann.post("/api/seeks", {"rated": True, "min_rating": 1600}).json()
    open_range = ann.post("/api/seeks", {"rated": True, "length": 3}).json()
    unrated = ann.post("/api/seeks", {"length": 7}).json()
    expected = {"bob": {high["id"]: "outside_rating_range", open_range["id"]: None,
                        unrated["id"]: None},
                "guest": {high["id"]: "guest_unrated", open_range["id"]: "guest_unrated",
                          unrated["id"]: None}}
    for name, reader in (("bob", bob), ("guest", guest)):
        seen = {s["id"]: s["refusal"] for s in reader.get("/api/lobby").json()["seeks"]}
        assert seen == expected[name]
        for seek_id, refusal in expected[name].items():
            assert reader.get(f"/api/seeks/{seek_id}").json()["refusal"] == refusal
    # The owner's own, and a reader signed out: nothing to refuse.
    assert {s["refusal"] for s in ann.get("/api/lobby").json()["seeks"]} == {None}
    client.cookies.clear()
    assert client.get(f"/api/seeks/{high['id']}").json()["refusal"] is None
    # What the field says is what accepting gets.
    r = bob.post(f"/api/seeks/{high['id']}/accept")
    assert (r.status_code, r.json()["error"]["code"]) == (403, "outside_rating_range")
    r = guest.post(f"/api/seeks/{open_range['id']}/accept")
    assert (r.status_code, r.json()["error"]["code"]) == (403, "guest_unrated")
    # A block between the two: the link's page says so (the lobby leaves such seeks out).
    cyd = Player.register(client, "cyd")
    assert client.put("/api/blocks/ann", headers=cyd.headers).status_code == 200
    assert cyd.get(f"/api/seeks/{unrated['id']}").json()["refusal"] == "blocked"
    r = cyd.post(f"/api/seeks/{unrated['id']}/accept")
    assert (r.status_code, r.json()["error"]["code"]) == (403, "blocked")
