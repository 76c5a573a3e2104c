"""The public dice record (``/dice-record`` and its JSON, CSV and PNG, ``boardgammon stats
dice-report``) over v2 rolls: a new user's trial found it empty on a server whose rolls were all
v2 (``read_database`` read only the v1 table). Every revealed roll counts, of both protocols:
the opening rolls and the computer's too, never a void roll (docs/api.md, docs/server.md §The
dice record's report)."""

from __future__ import annotations

import csv
import io
import json
import time
from collections import Counter

import pytest
from fastapi.testclient import TestClient
from gameplay import Player, live_match, make_app
from test_match_dice_v2 import LINK_WAIT_S, Device, events, past_opening, play_first, roll
from typer.testing import CliRunner

from boardgammon.cli import app as cli
from boardgammon.server.services import services

REVEALED = ("revealed", "played")


@pytest.fixture
def client(database_url):
    with TestClient(make_app(database_url, dice="v2", link_wait_s=LINK_WAIT_S)) as c:
        yield c


def live_rolls(client, turns: int) -> str:
    """ann and bob, each with a device, roll the opening roll(s), then ``turns`` normal rolls
    (each played); bob then resigns, which voids the roll committed for the next turn. The
    match's ID."""
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    players = {0: ann, 1: bob}
    match_id = live_match(ann, bob)
    devices: dict[int, Device | None] = {0: Device(ann), 1: Device(bob)}
    for device in devices.values():
        assert device is not None
        device.register(match_id)
    past_opening(players, devices, match_id)
    while (state := ann.state(match_id))["phase"] == "play" or turns:
        if state["phase"] == "play":
            assert play_first(players[state["turn"]], match_id).status_code == 200
        else:
            assert state["phase"] == "roll", state["phase"]
            roll(players, devices, match_id, state["turn"])
            turns -= 1
    assert state["phase"] == "roll", state["phase"]
    assert players[state["turn"]].act(match_id, "resign", points=3).status_code == 200
    resigner = 1 - state["turn"]
    players[resigner].act(match_id, "accept_resign")
    assert ann.state(match_id)["phase"] == "match_over"
    return match_id


def computer_rolls(client) -> str:
    """carl plays the computer (v2, his device's link in the computer's rolls) until the
    computer has rolled, then resigns; the match's ID."""
    carl = Player.register(client, "carl")
    r = carl.post("/api/matches/computer", {"level": "easy", "length": 1})
    assert r.status_code == 201, r.text
    match_id = r.json()["match_id"]
    device = Device(carl)
    device.register(match_id)
    rolled = 0
    for _ in range(600):
        state = carl.state(match_id)
        if state["phase"] == "match_over":
            return match_id
        pending = state["pending_roll"]
        if pending and pending["seat"] == 1 and pending["state"] == "requested":
            events(device.contribute(match_id, pending), "roll")
            rolled += 1
        elif state["turn"] == 0 and state["phase"] in ("opening", "roll", "play"):
            if rolled and state["phase"] != "opening":
                carl.act(match_id, "resign", points=3)  # the computer accepts
            elif state["phase"] == "play":
                play_first(carl, match_id)
            else:
                carl.roll(match_id)
        elif state["turn"] == 0 and state["phase"] in ("resign_offered", "double_offered"):
            carl.act(match_id, "accept_resign" if state["phase"] == "resign_offered" else "take")
        else:
            time.sleep(0.05)  # the computer thinks
    raise AssertionError(f"match {match_id} did not end")


def revealed_rolls(client, match_id: str) -> list[dict]:
    document = client.get(f"/api/audit/{match_id}").json()
    assert document["verified"] is True
    return [r for r in document["rolls"] if r["state"] in REVEALED]


def table(rolls: list[dict]) -> list[list[int]]:
    counts = Counter(tuple(r["dice"]) for r in rolls)
    return [[counts[(a, b)] for b in range(1, 7)] for a in range(1, 7)]


def sources(report: dict) -> dict[str, int]:
    return {s["label"]: s["rolls"] for s in report["order_tests"]["entropy_sources"]}


def test_a_server_with_only_v2_rolls_shows_them_on_every_form_of_the_record(
        client, database_url, monkeypatch):
    assert 'id="record-empty"' in client.get("/dice-record").text  # nothing rolled yet
    live = live_rolls(client, turns=4)
    computer = computer_rolls(client)
    document = client.get(f"/api/audit/{live}").json()
    # What the record must leave out and keep is there: a void roll, opening rolls.
    assert [r["state"] for r in document["rolls"]][-1] == "void"
    assert any(r["kind"] == "opening" for r in document["rolls"])
    played = revealed_rolls(client, live) + revealed_rolls(client, computer)
    with services(client.app).db.sessions() as session:
        from sqlalchemy import func, select

        from boardgammon.server.tables import DiceRoll, DiceRollV2

        assert session.execute(select(func.count()).select_from(DiceRoll)).scalar() == 0
        assert session.execute(select(func.count()).select_from(DiceRollV2)).scalar() > len(
            played)  # the void rolls

    served = client.get("/dice-record.json")
    assert served.status_code == 200, served.text
    report = served.json()
    assert report["rolls"] == len(played) >= 7
    assert report["table"] == table(played)
    assert report["order_tests"]["by_match"]["sequences"] == 2
    # carl's device gave the entropy of his rolls, the server the computer's.
    assert sources(report) == {
        "client": sum(r["roller_source"] == "client" for r in played),
        "server": sum(r["roller_source"] == "server" for r in played),
    }
    assert sources(report)["server"] >= 1
    page = client.get("/dice-record?lang=en").text
    assert 'id="record-empty"' not in page
    assert f"{len(played)} rolls ({2 * len(played)} dice)" in page
    rows = list(csv.DictReader(io.StringIO(client.get("/dice-record.csv").text)))
    assert {(int(r["die1"]), int(r["die2"])): int(r["count"]) for r in rows} == {
        (a, b): table(played)[a - 1][b - 1] for a in range(1, 7) for b in range(1, 7)}
    png = client.get("/dice-record.png")
    assert png.status_code == 200 and png.headers["content-type"] == "image/png"
    monkeypatch.setenv("BOARDGAMMON_DATABASE_URL", database_url)
    printed = CliRunner().invoke(cli, ["stats", "dice-report", "--json"])
    assert printed.exit_code == 0, printed.output
    assert json.loads(printed.stdout) == report


def test_the_record_counts_v1_and_v2_rolls_together(client, database_url, monkeypatch):
    from boardgammon.dice import new_match_id
    from boardgammon.server import dice_record as v1
    from boardgammon.server.dice_stats import read_database

    live = live_rolls(client, turns=2)
    v2_rolls = revealed_rolls(client, live)
    v1_dice = []
    with services(client.app).db.sessions() as session:
        match_id = new_match_id()  # a match from before v2, its rolls in the v1 table
        for seat in (0, 1, 0):
            committed = v1.commit_roll(session, match_id, seat)
            revealed = v1.reveal_roll(session, committed.roll_id, committed.commitment,
                                      bytes(16))
            v1.mark_played(session, committed.roll_id)
            v1_dice.append({"dice": list(revealed.dice)})
        v1.commit_roll(session, match_id, 1)  # committed, never revealed: not counted

    report = client.get("/dice-record.json").json()
    assert report["rolls"] == len(v1_dice) + len(v2_rolls) == 3 + len(v2_rolls)
    assert report["table"] == table(v1_dice + v2_rolls)
    assert report["order_tests"]["by_match"]["sequences"] == 2
    assert sources(report) == {"client": 3 + len(v2_rolls)}
    record = read_database(database_url)
    assert len(record) == report["rolls"]
    # Each match's rolls together, in the order played.
    by_match = [list(zip(record.die1[record.match == m].tolist(),
                         record.die2[record.match == m].tolist(), strict=True))
                for m in sorted(set(record.match.tolist()))]
    assert sorted(by_match) == sorted([[tuple(r["dice"]) for r in v1_dice],
                                       [tuple(r["dice"]) for r in v2_rolls]])
    monkeypatch.setenv("BOARDGAMMON_DATABASE_URL", database_url)
    printed = CliRunner().invoke(cli, ["stats", "dice-report", "--json"])
    assert printed.exit_code == 0, printed.output
    assert json.loads(printed.stdout) == report
