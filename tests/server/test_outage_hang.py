"""A database that hangs instead of failing (a network partition: statements neither answer
nor fail until it heals) is an outage too (issue 21, review). Through a proxy that stopped
forwarding, a bullet match's player lost on time once the database came back 45 s later: the
heartbeat had hung, not failed, so its gap was never credited, and the actions waiting behind
it were charged the whole hang. Now a heartbeat whose own read of the service clock waited
past ``DOWN_AFTER_S`` credits the gap (so does the next one after a background round that hung
that long anywhere), and an action that arrives while the round has hung that long waits for
a heartbeat, as after a failed one."""

from __future__ import annotations

import threading

from fastapi.testclient import TestClient
from gameplay import Player, Wall, live_match, make_app

from boardgammon.server.service_clock import DOWN_AFTER_S, ServiceClock
from boardgammon.server.services import services


def test_a_heartbeat_that_hung_credits_the_gap(sqlite_url, monkeypatch):
    wall = Wall()
    with TestClient(make_app(sqlite_url, wall), raise_server_exceptions=False) as client:
        game = services(client.app).game
        wall.advance(1.0)
        client.portal.call(game.tick)
        row = ServiceClock._row

        def hangs(session):
            wall.advance(40.0)  # the statement answered 40 s after it was sent
            return row(session)

        monkeypatch.setattr(ServiceClock, "_row", staticmethod(hangs))
        with game.service.db.sessions() as session:
            credited = game.clock.beat(session)
        assert 40.0 <= credited <= 41.0 + DOWN_AFTER_S
        assert game.clock.downtime == credited
        monkeypatch.setattr(ServiceClock, "_row", staticmethod(row))
        wall.advance(1.0)
        with game.service.db.sessions() as session:  # a prompt beat credits nothing
            assert game.clock.beat(session) == 0.0


def test_an_action_during_a_hung_heartbeat_waits_for_the_heartbeat(sqlite_url, monkeypatch):
    """Bullet (5 s delay, 30 s reserve): a heartbeat hangs for 45 s while the player acts; the
    roll is taken with the hang credited, not as a flag."""
    wall = Wall()
    with TestClient(make_app(sqlite_url, wall), raise_server_exceptions=False) as client:
        game = services(client.app).game
        ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
        match_id = live_match(ann, bob, clock="bullet")
        state = ann.state(match_id)
        assert state["clocks"]["running"] == 0
        wall.advance(10.0)  # counted: the 5 s delay and 5 s of the reserve
        client.portal.call(game.tick)
        row, sent, healed = ServiceClock._row, threading.Event(), threading.Event()

        def hangs(session):
            sent.set()
            healed.wait(30)
            return row(session)

        monkeypatch.setattr(ServiceClock, "_row", staticmethod(hangs))
        wall.advance(1.0)
        beat = threading.Thread(target=client.portal.call, args=(game.tick,))
        beat.start()
        assert sent.wait(30)
        wall.advance(45.0)  # the database hangs on
        answer: list = []
        act = threading.Thread(target=lambda: answer.append(ann.post(
            f"/api/matches/{match_id}/actions",
            {"type": "roll", "action_id": "r1", **ann.roll_action(state)})))
        act.start()
        act.join(1.0)
        assert not answer  # it waits for the heartbeat
        monkeypatch.setattr(ServiceClock, "_row", staticmethod(row))
        healed.set()
        beat.join(30)
        act.join(30)
        assert answer and answer[0].status_code == 200, answer and answer[0].text
        after = answer[0].json()["state"]
        assert after["phase"] != "match_over"
        assert 24.0 <= after["clocks"]["reserve"][0] <= 25.5, after["clocks"]
