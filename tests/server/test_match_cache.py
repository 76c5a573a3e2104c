"""The per-process match cache: bounded (least recently used out first) and without finished
matches, while every view stays what the match log says."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from gameplay import Player, computer_waits, live_match, make_app, play_out, step
from pydantic import TypeAdapter

from boardgammon.server.actions import ClientAction
from boardgammon.server.match_repository import MatchCache
from boardgammon.server.services import services

action = TypeAdapter(ClientAction).validate_python


@pytest.fixture
def client(sqlite_url):
    with TestClient(make_app(sqlite_url)) as c:
        yield c


def service(client):
    return services(client.app).game.service


def test_a_finished_match_leaves_the_cache(client):
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    match_id = live_match(ann, bob)
    step({0: ann, 1: bob}, match_id)
    assert match_id in service(client).matches.cache
    final = play_out({0: ann, 1: bob}, match_id)
    assert match_id not in service(client).matches.cache
    again = ann.state(match_id)
    assert again["result"] == final["result"] and again["games"] == final["games"]
    assert again["rolls"] == final["rolls"]
    assert match_id not in service(client).matches.cache  # read again: replayed, not kept


def test_a_finished_match_against_the_computer_drops_its_bot(client):
    ann = Player.register(client, "ann")
    match_id = ann.post("/api/matches/computer", {"level": "easy", "length": 1}).json()["match_id"]
    with computer_waits(ann, match_id) as wait:  # the computer plays in the background
        while True:
            state = wait()
            if state["phase"] == "match_over":
                break
            if state["phase"] == "resign_offered":  # the bot may resign
                assert ann.act(match_id, "accept_resign").status_code == 200
            else:
                step({0: ann}, match_id)
    assert state["phase"] == "match_over"
    svc = service(client)
    assert match_id not in svc.matches.cache and match_id not in svc._bots


def test_the_cache_is_bounded_least_recently_used_out_first(client):
    service(client).matches.cache = MatchCache(2)
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    ids = [live_match(ann, bob) for _ in range(3)]
    cache = service(client).matches.cache
    assert len(cache) == 2 and ids[0] not in cache and ids[1] in cache and ids[2] in cache
    pending = ann.state(ids[2])["pending_roll"]
    ann.state(ids[1])  # now ids[2] is the least recently used
    before = ann.state(ids[0])  # replayed from the log, and ids[2] goes
    assert ids[0] in cache and ids[1] in cache and ids[2] not in cache and len(cache) == 2
    assert before["phase"] == "opening" and before["pending_roll"]["seat"] == 0
    # An evicted match plays on exactly where it was.
    state = step({0: ann, 1: bob}, ids[2])
    assert [r["roll_id"] for r in state["rolls"]] == [pending["roll_id"]]
    assert ids[2] in cache and ids[1] not in cache and len(cache) == 2


def test_cache_size_must_be_positive():
    with pytest.raises(ValueError, match="at least 1"):
        MatchCache(0)


def test_per_match_locks_do_not_outlive_their_use(client):
    import gc

    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    players = {0: ann, 1: bob}
    matches = [live_match(ann, bob) for _ in range(5)]
    for match_id in matches:
        for _ in range(4):
            step(players, match_id)
    gc.collect()
    runtime = services(client.app).game
    # Nobody holds or waits for a lock now: the tables keep none (they kept one per match
    # ever touched, for the life of the process).
    assert runtime.service.locks is runtime.locks is runtime.hub.locks
    assert len(runtime.locks) == 0
    assert all(ann.state(m)["phase"] in ("roll", "play", "opening") for m in matches)


def test_the_computer_thinks_outside_the_write(client, monkeypatch):
    """Deciding holds no database write: on SQLite the write lock is every match's, and a hard
    decision takes up to a second."""
    import os

    svc = service(client)
    ann = Player.register(client, "ann")
    match_id = ann.post("/api/matches/computer", {"level": "easy", "length": 1}).json()["match_id"]
    held = []
    decide = svc._decide

    def watched(live, seat):
        writer = svc.db.turn
        free = writer.acquire(blocking=False)  # a plain Lock: held by anyone, even us
        if free:
            writer.release()
        held.append(not free)
        return decide(live, seat)

    monkeypatch.setattr(svc, "_decide", watched)
    for n in range(40):  # drive the match in this thread only: ann's steps, then the computer's
        state = svc.view(match_id, (0,)).states[0]
        if state["phase"] == "match_over" or len(held) >= 3:
            break
        if state["turn"] == 1:
            assert svc.bot_step(match_id) is not None
        elif state["phase"] in ("opening", "roll"):
            pending = state["pending_roll"]
            svc.act(match_id, ann.user["id"], action({"action_id": f"r{n}", "type": "roll",
                                                      "roll_id": pending["roll_id"],
                                                      "commitment": pending["commitment"],
                                                      "entropy": os.urandom(16).hex()}))
        elif state["phase"] == "play":
            svc.act(match_id, ann.user["id"], action({"action_id": f"p{n}", "type": "play",
                                                      "play": state["legal_plays"][0]["notation"]}))
        else:
            svc.act(match_id, ann.user["id"], action(
                {"action_id": f"a{n}", "type": "accept_resign"}
                if state["phase"] == "resign_offered" else {"action_id": f"t{n}", "type": "take"}))
    assert held and not any(held)
