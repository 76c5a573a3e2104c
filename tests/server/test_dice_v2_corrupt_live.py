"""A v2 (or v1) row whose hex column is not hex of its size (changed by hand, or corrupt) on
the live match path: the match's state and every action answer 503 ``record_corrupt`` naming
the roll and the column (never the stored value: a pending roll's seed is secret), nothing
changes, the operator gets one ERROR line however often the match is asked for, and the
server's start and background tick go on settling the other matches. Before,
``RollV2.from_row`` decoded the column with ``bytes.fromhex`` and every request for the match
was a 500, and the server did not start (the audit already said ``malformed``:
test_dice_v2_corrupt_hex.py). On SQLite and PostgreSQL."""

from __future__ import annotations

import logging
import re

import pytest
from fastapi.testclient import TestClient
from gameplay import Player, Wall, live_match, make_app, step
from sqlalchemy import text

from boardgammon.dice import verify
from boardgammon.server.services import services

STORED = "7a" * 31 + "zz"  # 64 characters, not hex


@pytest.fixture
def wall():
    return Wall()


@pytest.fixture(autouse=True)
def key_place(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the log key's default place, the same for both starts


def started(database_url: str, wall: Wall) -> TestClient:
    return TestClient(make_app(database_url, wall, dice="v2"))


def corrupt(client: TestClient, roll_id: str, column: str, value: str) -> None:
    with services(client.app).db.sessions() as s:
        s.execute(text(f"UPDATE dice_rolls_v2 SET {column} = :v WHERE roll_id = :r"),
                  {"v": value, "r": roll_id})
        s.commit()


def stored(client: TestClient, match_id: str) -> tuple:
    """Everything an action could change: the match's row, log and dice record, the public
    log's leaves."""
    with services(client.app).db.sessions() as s:
        return (
            s.execute(text("SELECT version, status, turn_seat, deadline_t FROM matches "
                           "WHERE id = :m"), {"m": match_id}).all(),
            s.execute(text("SELECT count(*) FROM match_log WHERE match_id = :m"),
                      {"m": match_id}).all(),
            s.execute(text("SELECT * FROM dice_rolls_v2 WHERE match_id = :m ORDER BY seq"),
                      {"m": match_id}).all(),
            s.execute(text("SELECT count(*) FROM log_entries")).all(),
        )


def held(response, roll_id: str, column: str, value: str) -> None:
    assert response.status_code == 503, response.text
    error = response.json()["error"]
    assert error["code"] == "record_corrupt"
    assert f"roll {roll_id}'s {column} is not" in error["message"]
    # The stored text is not echoed.
    assert value not in without_ids(response.text)


def without_ids(text: str) -> str:
    """``text`` with the match and roll IDs (random base32) cut out: "ab" or "zz" can turn up
    inside one by chance (the server's log line failed so once, a roll ID holding "ab")."""
    return re.sub(r"\b[a-z]{3}_[a-z2-7]+\b", "", text)


@pytest.mark.parametrize(
    ("which", "column", "value"),
    [
        ("played", "server_seed", "zz" * 32),
        ("played", "roller_entropy", "ab"),
        ("played", "opponent_prev_link", STORED),
        ("played", "roller_entropy", "ab " * 15 + "a"),  # fromhex reads 16 bytes from it
        ("pending", "server_seed", STORED),
    ],
    ids=["seed-not-hex", "entropy-short", "prev-link-not-hex", "entropy-spaced",
         "pending-seed"],
)
def test_the_match_is_held_with_record_corrupt_and_nothing_changes(
    database_url, wall, caplog, which, column, value
):
    if database_url.startswith("postgresql") and column == "roller_entropy" and len(value) > 32:
        pytest.skip("PostgreSQL's varchar(32) refuses the text, so no row can hold it there")
    with started(database_url, wall) as client:
        ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
        match_id = live_match(ann, bob, mode="correspondence", days=1, length=3)
        players = {0: ann, 1: bob}
        while (state := ann.state(match_id))["phase"] != "roll":
            step(players, match_id)
        bad = state["rolls"][0]["roll_id"] if which == "played" else (
            state["pending_roll"]["roll_id"])
        with services(client.app).db.sessions() as s:
            original = s.execute(text(f"SELECT {column} FROM dice_rolls_v2 WHERE roll_id = :r"),
                                 {"r": bad}).scalar()
        corrupt(client, bad, column, value)
    # A fresh process (a restart, or another server) reads the record from the database.
    with started(database_url, wall) as client, caplog.at_level(logging.ERROR,
                                                                 "boardgammon.dice"):
        ann.client = bob.client = client
        before = stored(client, match_id)
        for player in (ann, bob):
            held(player.get(f"/api/matches/{match_id}"), bad, column, value)
        roller = players[state["turn"]]
        held(roller.act(match_id, "roll", **roller.roll_action(state)), bad, column, value)
        held(roller.act(match_id, "double"), bad, column, value)
        held(players[1 - state["turn"]].act(match_id, "resign", points=1), bad, column, value)
        with client.websocket_connect(f"/ws/matches/{match_id}", headers=ann.headers) as ws:
            frame = ws.receive_json()
            assert (frame["type"], frame["error"]["code"]) == ("error", "record_corrupt")
        assert stored(client, match_id) == before
        lines = [r for r in caplog.records if r.levelno == logging.ERROR]
        assert len(lines) == 1, [r.getMessage() for r in lines]
        assert bad in lines[0].getMessage() and column in lines[0].getMessage()
        assert value not in without_ids(lines[0].getMessage())
        audit = client.get(f"/api/audit/{match_id}")
        assert audit.status_code == 200
        if which == "played":
            assert audit.json()["failure"]["reason"] == verify.MALFORMED
        # Repaired by the operator (the stored value put back): the match goes on.
        corrupt(client, bad, column, original)
        assert roller.roll(match_id).status_code == 200
        assert client.get(f"/api/audit/{match_id}").json()["verified"] is True


def test_a_held_match_keeps_neither_the_start_nor_the_tick_from_settling_the_others(
    database_url, wall
):
    with started(database_url, wall) as client:
        ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
        matches = [live_match(ann, bob, mode="correspondence", days=1) for _ in range(2)]
        held_id, other = matches
        state = ann.state(held_id)
        corrupt(client, state["pending_roll"]["roll_id"], "server_seed", STORED)
    with started(database_url, wall) as client:  # the start settles every active match
        wall.advance(3 * 86400.0)  # both deadlines passed: both are due
        client.portal.call(services(client.app).game.tick)
        ann.client = client
        assert ann.state(other)["phase"] == "match_over"
        assert ann.get(f"/api/matches/{held_id}").json()["error"]["code"] == "record_corrupt"
        with services(client.app).db.sessions() as s:
            assert s.execute(text("SELECT status FROM matches WHERE id = :m"),
                             {"m": held_id}).scalar() == "active"


def test_a_v1_match_is_held_the_same_way(database_url, wall):
    # Matches made before v2 keep v1 dice; Roll.from_row decoded its columns with fromhex too.
    with TestClient(make_app(database_url, wall, dice="v1")) as client:
        ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
        match_id = live_match(ann, bob, mode="correspondence", days=1, length=3)
        while (state := ann.state(match_id))["phase"] != "roll":
            step({0: ann, 1: bob}, match_id)
        bad = state["rolls"][0]["roll_id"]
        with services(client.app).db.sessions() as s:
            s.execute(text("UPDATE dice_rolls SET client_entropy = 'zz' WHERE roll_id = :r"),
                      {"r": bad})
            s.commit()
    with TestClient(make_app(database_url, wall, dice="v1")) as client:
        ann.client = client
        held(ann.get(f"/api/matches/{match_id}"), bad, "client_entropy", "zz")
        assert client.get(f"/api/audit/{match_id}").json()["failure"]["reason"] == (
            verify.MALFORMED)
