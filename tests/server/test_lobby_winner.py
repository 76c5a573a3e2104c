"""My matches name the winner of a finished match with its final score (issue 22): after a
resignation and after a flag (which once showed "0–0 … finished" with no winner)."""

from __future__ import annotations

from fastapi.testclient import TestClient

from boardgammon.server.services import services
from tests.server.gameplay import Player, Wall, both_moved, live_match, make_app


def _summary(player: Player, match_id: str) -> dict:
    r = player.get("/api/matches")
    assert r.status_code == 200, r.text
    return next(m for m in r.json() if m["match_id"] == match_id)


def _seats(player: Player, match_id: str) -> dict[str, int]:
    return {p["username"]: p["seat"] for p in player.state(match_id)["players"]}


def test_a_resigned_match_names_its_winner(database_url):
    with TestClient(make_app(database_url)) as client:
        ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
        match_id = live_match(ann, bob, length=3)
        seat = _seats(ann, match_id)
        players = {seat["ann"]: ann, seat["bob"]: bob}
        assert _summary(ann, match_id)["winner"] is None
        while (state := ann.state(match_id))["phase"] == "opening":
            roller = players[state["turn"]]
            assert roller.roll(match_id).status_code == 200
        # bob gives up a gammon; ann (2 points) wins nothing yet: the match goes on
        assert bob.act(match_id, "resign", points=2).status_code == 200
        assert ann.act(match_id, "accept_resign").status_code == 200
        assert _summary(bob, match_id)["winner"] is None
        while (state := ann.state(match_id))["phase"] == "opening":
            assert players[state["turn"]].roll(match_id).status_code == 200
        assert bob.act(match_id, "resign", points=1).status_code == 200
        assert ann.act(match_id, "accept_resign").status_code == 200
        for player in (ann, bob):
            summary = _summary(player, match_id)
            assert summary["status"] == "finished"
            assert summary["winner"] == seat["ann"]
            assert summary["score"][seat["ann"]] == 3 and summary["score"][seat["bob"]] == 0
            assert summary["score"] == ann.state(match_id)["result"]["score"]


def test_a_match_lost_on_time_names_its_winner_at_the_match_length(database_url):
    wall = Wall()
    with TestClient(make_app(database_url, wall)) as client:
        ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
        match_id = live_match(ann, bob, length=3, clock="bullet")  # 5 s delay, 30 s reserve a point
        seat = _seats(ann, match_id)
        players = {seat["ann"]: ann, seat["bob"]: bob}
        mover = both_moved(players, match_id)["turn"]  # a no-show would abort it instead
        wall.advance(200.0)  # past the delay and the 3-point reserve (90 s)
        client.portal.call(services(client.app).game.tick)
        summary = _summary(ann, match_id)
        assert summary["status"] == "finished"
        assert summary["winner"] == 1 - mover
        assert summary["score"][1 - mover] == 3 and summary["score"][mover] == 0
