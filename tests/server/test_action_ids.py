"""Client-chosen action IDs (docs/api.md §``action``): a resend is answered as before, an ID
reused for another action is refused, and no client ID can collide with the server's own log
entries (the computer's actions, a claimed flag)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from gameplay import Player, Wall, computer_waits, live_match, make_app, step

from boardgammon.engine.match import Match
from boardgammon.server.services import services


@pytest.fixture
def client(sqlite_url):
    with TestClient(make_app(sqlite_url)) as c:
        yield c


def code(response) -> str:
    return response.json()["error"]["code"]


def test_an_action_id_reused_for_another_action_is_refused(client):
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    match_id = live_match(ann, bob)
    players = {0: ann, 1: bob}
    while ann.state(match_id)["phase"] == "opening":
        step(players, match_id)
    mover = players[ann.state(match_id)["turn"]]
    state = mover.state(match_id)
    plays = [p["notation"] for p in state["legal_plays"]]
    assert len(plays) >= 2
    first = mover.act(match_id, "play", action_id="p1", play=plays[0])
    assert first.status_code == 200, first.text
    after = ann.state(match_id)
    # Another play, or another kind of action, under the same ID is not a resend: it was
    # answered 200 with the first play's result, so the client believed it had applied.
    pending = after["pending_roll"]
    for r in (mover.act(match_id, "play", action_id="p1", play=plays[1]),
              mover.act(match_id, "resign", action_id="p1", points=3),
              mover.act(match_id, "double", action_id="p1"),
              # a roll under a play's ID: said "already_rolled", as if dice had been rolled
              mover.act(match_id, "roll", action_id="p1", roll_id=pending["roll_id"],
                        commitment=pending["commitment"], entropy="00" * 16)):
        assert (r.status_code, code(r)) == (409, "action_id_reused"), r.text
        assert "p1" in r.json()["error"]["message"]
    # Someone who does not play here learns nothing of the match's action IDs.
    eve = Player.register(client, "eve")
    for r in (eve.act(match_id, "double", action_id="p1"), eve.act(match_id, "double")):
        assert (r.status_code, code(r)) == (403, "not_your_match"), r.text
    assert ann.state(match_id) == after
    again = mover.act(match_id, "play", action_id="p1", play=plays[0])
    assert again.status_code == 200
    assert again.json()["events"] == first.json()["events"][:len(again.json()["events"])]
    assert ann.state(match_id) == after


def test_a_client_action_id_cannot_block_the_computer(client):
    ann = Player.register(client, "ann")
    # The computer's log entries were named "bot:<version>", in the clients' namespace: a
    # client that used the next one first froze the computer (every write of its action hit
    # the unique constraint, 503 busy, forever).
    match_id = client.post("/api/matches/computer", json={"level": "easy", "length": 1},
                           headers=ann.headers).json()["match_id"]
    r = ann.act(match_id, "roll", action_id="bot:1", **ann.roll_action(ann.state(match_id)))
    assert r.status_code == 200, r.text
    state = r.json()["state"]
    if state["turn"] == 0:  # ann won the opening roll: her play is log entry 1
        r = ann.act(match_id, "play", action_id="bot:2",
                    play=state["legal_plays"][0]["notation"])
        assert r.status_code == 200, r.text
    with computer_waits(ann, match_id) as wait:
        while True:
            state = wait()
            record = Match.from_dict(ann.get(f"/api/matches/{match_id}/export.json").json()
                                     ).record
            if any(a.seat == 1 for a in record):  # the computer rolled or played
                break
            assert state["phase"] != "match_over"
            # e.g. an opening tie that ann won on the computer's re-roll
            step({0: ann}, match_id)
    assert any(a.seat == 1 for a in record), record


def test_a_client_action_id_cannot_block_a_flag(sqlite_url):
    wall = Wall()
    with TestClient(make_app(sqlite_url, wall)) as client:
        ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
        match_id = live_match(ann, bob, clock="bullet")  # 5 s delay, 30 s reserve
        # The opening roll is log entry 0; a flag claimed next was logged as "flag:1".
        r = ann.act(match_id, "roll", action_id="flag:1",
                    **ann.roll_action(ann.state(match_id)))
        assert r.status_code == 200, r.text
        mover = r.json()["state"]["turn"]
        wall.advance(40.0)
        client.portal.call(services(client.app).game.tick)
        state = ann.state(match_id)
        assert state["phase"] == "match_over", state["phase"]
        if mover == 0:  # ann won the opening roll: she has acted, and her flag loses
            assert (state["result"]["winner"], state["games"][-1]["how"]) == (1, "flag")
        else:  # bob's first move never came: aborted instead (test_match_abort.py)
            assert (state["result"]["aborted"], state["games"][-1]["how"]) == (1, "abort")
