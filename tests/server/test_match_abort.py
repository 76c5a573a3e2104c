"""A live match whose player never makes a first move is aborted, not lost on time: a new user
posted a seek, left, and lost 0–5 on time with no roll made (``docs/api.md`` §A match)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from fastapi.testclient import TestClient
from gameplay import Player, Wall, live_match, make_app, step

from boardgammon.server.match_repository import unanalysed_ids
from boardgammon.server.services import services
from boardgammon.server.tables import MatchAnalysisRow


@pytest.fixture
def wall():
    return Wall()


@pytest.fixture
def client(database_url, wall):
    with TestClient(make_app(database_url, wall)) as c:
        yield c


def tick(client: TestClient) -> None:
    client.portal.call(services(client.app).game.tick)


def test_a_poster_who_never_rolls_has_the_match_aborted_unrated(client, wall, database):
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    match_id = live_match(ann, bob, length=5, clock="rapid", rated=True)
    state = bob.state(match_id)
    assert state["phase"] == "opening" and state["turn"] == 0  # ann's opening roll
    assert state["clocks"]["first_move_left"] == 60.0
    wall.advance(59.0)
    tick(client)
    state = bob.state(match_id)
    assert state["phase"] == "opening"  # not yet: a minute for the first move
    assert state["clocks"]["first_move_left"] == pytest.approx(1.0)
    wall.advance(1.5)
    tick(client)
    state = bob.state(match_id)
    assert state["phase"] == "match_over" and state["turn"] is None
    result = state["result"]
    assert (result["winner"], result["aborted"], result["score"]) == (None, 0, [0, 0])
    assert state["games"] == [{"game_number": 1, "winner": None, "points": 0, "how": "abort"}]
    assert state["clocks"]["running"] is None
    assert state["clocks"]["reserve"] == [pytest.approx(600.0 - 48.5), 600.0]  # 12 s free
    assert state["pending_roll"] is None  # the roll asked for at the start is voided
    r = ann.act(match_id, "resign", points=1)
    assert (r.status_code, r.json()["error"]["code"]) == (409, "match_over")
    assert "aborted: seat 0 did not make a first move in time" in r.json()["error"]["message"]
    # Nobody's rating moved: neither player has a rating yet.
    for name in ("ann", "bob"):
        assert client.get(f"/api/players/{name}").json()["ratings"] == []
        played = client.get(f"/api/players/{name}/matches").json()["matches"]
        assert [(m["match_id"], m["status"], m["result"], m["rated"]) for m in played] == [
            (match_id, "finished", "aborted", False)]
        assert set(played[0]["links"]) == {"match", "audit"}  # nothing to analyse
    r = client.get(f"/api/matches/{match_id}/analysis")
    assert (r.status_code, r.json()["error"]["code"]) == (409, "match_aborted")
    with database.sessions() as s:
        assert match_id not in unanalysed_ids(s, 10)  # the worker leaves it out
    # The all-zero figures of an analysis made before (by an older worker) are no PR or luck.
    with database.sessions() as s:
        s.add(MatchAnalysisRow(match_id=match_id, status="done", plies=2, claimed_t=0.0,
                               updated_at=datetime.now(UTC), result=json.dumps({"players": [
                                   {"seat": 0, "pr": 0.0, "luck_mwc": 0.0},
                                   {"seat": 1, "pr": 0.0, "luck_mwc": 0.0}]})))
        s.commit()
    row = client.get("/api/players/ann/matches").json()["matches"][0]
    assert (row["pr"], row["luck"]) == (None, None)
    assert 'id="pr-none"' in client.get("/player/ann").text  # no PR history from it
    summary = bob.get("/api/matches").json()[0]
    assert (summary["status"], summary["winner"], summary["score"]) == ("finished", None, [0, 0])
    page = client.get("/player/ann?lang=de")
    assert page.status_code == 200 and "abgebrochen 0–0" in page.text
    assert f"/match/{match_id}/analysis" not in page.text


def test_the_accepter_who_never_plays_has_a_minute_from_their_first_turn(client, wall):
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    match_id = live_match(ann, bob, length=3, clock="blitz")
    players = {0: ann}  # bob never comes
    while ann.state(match_id)["turn"] == 0:
        step(players, match_id)  # ann's opening roll and, if she won it, her play
    assert ann.state(match_id)["turn"] == 1
    wall.advance(59.9)
    tick(client)
    assert ann.state(match_id)["phase"] != "match_over"
    wall.advance(0.2)
    tick(client)
    result = ann.state(match_id)["result"]
    assert (result["winner"], result["aborted"]) == (None, 1)


def test_a_first_move_within_the_minute_plays_on(client, wall):
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    match_id = live_match(ann, bob, length=3, clock="blitz")
    wall.advance(50.0)
    state = step({0: ann, 1: bob}, match_id)  # ann's opening roll, 50 s in: 42 s charged
    assert state["phase"] in ("opening", "play") and state["result"] is None
    assert state["clocks"]["reserve"] == [pytest.approx(180.0 - 42.0), 180.0]
    # Ann's turn goes on (she won the opening roll) with no first move to wait for; bob's
    # first (his opening play, or the re-roll of a tie) has its minute from now.
    assert state["clocks"]["first_move_left"] == (None if state["turn"] == 0 else 60.0)
    wall.advance(3600.0)  # ann has acted: whoever is to move now is waited for as usual
    tick(client)
    over = ann.state(match_id)["result"]
    if state["turn"] == 0:  # ann won the opening roll and never played it: her flag, a loss
        assert (over["winner"], over["aborted"]) == (1, None)
    else:  # bob's first move (his opening play, or the re-roll of a tie) never came
        assert (over["winner"], over["aborted"]) == (None, 1)


def test_the_wait_for_the_devices_before_the_first_roll_is_nobodys_minute(database_url):
    # v2 dice: the first roll waits (up to the link wait, 60 s here) for the players' device
    # anchors, which these API players never send; nobody can act until it is committed, so
    # the minute for the first move starts there, not at the match's start.
    wall = Wall()
    with TestClient(make_app(database_url, wall, dice="v2", link_wait_s=60.0)) as client:
        ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
        match_id = live_match(ann, bob, length=5, clock="rapid")
        assert ann.state(match_id)["pending_roll"] is None  # waiting for the anchors
        wall.advance(60.5)
        tick(client)  # the link wait is over: the first roll is committed without them
        state = ann.state(match_id)
        assert state["result"] is None and state["pending_roll"] is not None
        assert state["clocks"]["first_move_left"] == 60.0
        wall.advance(59.0)
        tick(client)
        assert ann.state(match_id)["result"] is None
        wall.advance(1.5)
        tick(client)
        assert ann.state(match_id)["result"]["aborted"] == 0
