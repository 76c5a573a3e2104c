"""A v2 match's wait for the opponent's link is stated in its match leaf and kept with the
match (``docs/fair-dice.md`` §The public log, Match leaf; §The roll's life (v2), step 3;
migration ``0024_match_link_wait``). Before, the wait was a setting of each process
(``BOARDGAMMON_LINK_WAIT``) in no record: a process restarted with a smaller setting revealed
the match's rolls without the link sooner, and no verifier could tell. Now a restarted process
never reveals the match's roll ``absent`` sooner than the stated wait after its request (a
larger setting of its own waits longer), whether the request was written before the restart
or is held in the new process, and with Redis (every request written at once). On SQLite and
PostgreSQL. A server that cuts the stated wait short is caught by its own audit verdict and both
verifiers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime

import pytest
from fastapi.testclient import TestClient
from gameplay import REDIS, Player, Wall, live_match, make_app, redis_or_skip
from sqlalchemy import insert, select, update
from test_dice_v2_held import to_roll
from test_due_ids import START, _match, _migrate, match_columns
from test_match_dice_v2 import LINK_WAIT_S, Device, events, past_opening

from boardgammon.dice import new_match_id, verify
from boardgammon.server import match_dice, match_repository
from boardgammon.server.db import create_db_engine, open_database
from boardgammon.server.match_service import MatchService
from boardgammon.server.service_clock import ServiceClock
from boardgammon.server.services import services
from boardgammon.server.tables import MatchRow
from tests.dice import spec_verifier_v2

STATED_MS = round(LINK_WAIT_S * 1000)


@pytest.fixture
def wall():
    return Wall()


def stored_wait(client: TestClient, match_id: str) -> int | None:
    """The link wait the database keeps with the match (ms)."""
    with services(client.app).db.read_sessions() as s:
        return s.scalar(select(MatchRow.link_wait_ms).where(MatchRow.id == match_id))


def leaf_fields(client: TestClient, match_id: str) -> dict:
    """The fields of the match leaf the match's audit document lists."""
    return json.loads(client.get(f"/api/audit/{match_id}").json()["log"]["match"]["leaf"])


def waited(entry: dict) -> float:
    """Seconds from a roll's request to its reveal, by the record's times."""
    asked = datetime.fromisoformat(entry["requested_at"].replace("Z", "+00:00"))
    revealed = datetime.fromisoformat(entry["revealed_at"].replace("Z", "+00:00"))
    return (revealed - asked).total_seconds()


def test_each_kind_of_match_states_the_wait_it_has(database_url, wall):
    """A live match and one against the computer wait for a link: their leaves state the
    process's wait, 3000 ms, kept with the match; a correspondence match waits for none: its
    leaf has no ``link_wait_ms`` and the match keeps none."""
    with TestClient(make_app(database_url, wall, dice="v2", link_wait_s=LINK_WAIT_S)) as client:
        ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
        live = live_match(ann, bob)
        devices = {0: Device(ann), 1: Device(bob)}
        for device in devices.values():
            assert device.register(live).status_code == 200
        past_opening({0: ann, 1: bob}, dict(devices), live)
        fields = leaf_fields(client, live)
        assert fields["mode"] == "live" and fields["link_wait_ms"] == STATED_MS == 3000
        assert stored_wait(client, live) == 3000
        assert (f'"link_wait_ms":3000,"match_id":"{live}","mode":"live"}}'
                in client.get(f"/api/audit/{live}").json()["log"]["match"]["leaf"])

        cat, dan = Player.register(client, "cat"), Player.register(client, "dan")
        post = live_match(cat, dan, mode="correspondence", days=3)
        for player in (cat, dan):
            assert Device(player).register(post).status_code == 200
        while (state := cat.state(post))["phase"] == "opening":
            assert {0: cat, 1: dan}[state["turn"]].roll(post).status_code == 200
        fields = leaf_fields(client, post)
        assert fields["mode"] == "correspondence" and "link_wait_ms" not in fields
        assert stored_wait(client, post) is None

        eve = Player.register(client, "eve")
        r = eve.post("/api/matches/computer", {"level": "easy", "length": 1})
        assert r.status_code == 201, r.text
        computer = r.json()["match_id"]
        assert Device(eve).register(computer).status_code == 200
        client.portal.call(services(client.app).game.tick)
        fields = leaf_fields(client, computer)
        assert fields["mode"] == "computer" and fields["link_wait_ms"] == 3000
        assert stored_wait(client, computer) == 3000


@pytest.mark.parametrize("redis", [False, True], ids=["held", "redis"])
@pytest.mark.parametrize(("restart_wait", "waits"), [(1.0, LINK_WAIT_S), (5.0, 5.0)])
def test_a_restarted_process_waits_at_least_the_stated_wait(database_url, wall, redis,
                                                            restart_wait, waits):
    """The match's leaf states 3 s; the process restarts with ``BOARDGAMMON_LINK_WAIT``
    ``restart_wait``. A roll requested before the stop (written by the clean stop) and one
    requested after it (held in the new process, or written at once with Redis) each go
    without the link only once ``waits`` (the larger of the two) has passed since their
    request: not at the new process's 1 s. The record shows it, and verifies."""
    if redis:
        redis_or_skip()
    extra = {"redis_url": REDIS} if redis else {}
    with TestClient(make_app(database_url, wall, dice="v2", link_wait_s=LINK_WAIT_S,
                             **extra)) as client:
        match_id, players, _ = to_roll(client, wall)
        seat = players[0].state(match_id)["turn"]
        assert events(players[seat].roll(match_id), "roll_requested")
        first = players[seat].state(match_id)["pending_roll"]["roll_id"]
    with TestClient(make_app(database_url, wall, dice="v2", link_wait_s=restart_wait,
                             **extra)) as client:
        for player in players.values():
            player.client = client
        game = services(client.app).game
        assert stored_wait(client, match_id) == STATED_MS
        rolled = []
        for roll_id in (first, None):
            if roll_id is None:  # the next roll, requested in this process
                roller = players[players[0].state(match_id)["turn"]]
                assert roller.state(match_id)["phase"] == "roll"
                assert events(roller.roll(match_id), "roll_requested")
                roll_id = roller.state(match_id)["pending_roll"]["roll_id"]
            else:
                roller = players[seat]
            wall.advance(min(restart_wait, LINK_WAIT_S) + 0.5)
            assert match_id not in game._service.due_ids()
            client.portal.call(game.tick)
            pending = roller.state(match_id)["pending_roll"]
            assert (pending["roll_id"], pending["state"]) == (roll_id, "requested")
            wall.advance(waits - min(restart_wait, LINK_WAIT_S) - 0.4)  # waits + 0.1 s in all
            assert match_id in game._service.due_ids()
            client.portal.call(game.tick)
            state = roller.state(match_id)
            assert state["rolls"][-1]["roll_id"] == roll_id
            assert state["rolls"][-1]["opponent_source"] == "absent"
            rolled.append(roll_id)
            notation = state["legal_plays"][0]["notation"]
            assert roller.act(match_id, "play", play=notation).status_code == 200
        document = client.get(f"/api/audit/{match_id}").json()
        program = client.get(f"/api/audit/{match_id}/rolls/{rolled[-1]}/verify.py").text
        assert document["verified"] is True, document["failure"]
        run = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                             timeout=60)
        assert run.returncode == 0, run.stdout + run.stderr
        assert ("the roll, revealed without the opponent's link, waited the 3 s the match's "
                "log entry states") in run.stdout
        for entry in document["rolls"]:
            if entry["roll_id"] in rolled:
                assert waited(entry) == pytest.approx(waits + 0.1, abs=0.01)
        report = verify.verify_document(document)
        assert report.ok, report.failure
        assert report.mode is not None and report.mode.link_wait_ms == STATED_MS
        assert not [v for v in spec_verifier_v2.check(document) if v.startswith("bad")]


def test_a_server_that_cuts_the_stated_wait_short_is_caught(database_url, wall, monkeypatch):
    """A server that ignores its match's stated wait (the stated due time replaced by the
    process's own: how every server behaved before the wait was stated) and, restarted with a
    1 s wait, reveals a roll 1.5 s after its request under a leaf stating 3000 ms: its own
    audit verdict, verify.py and the spec's verifier all fail the roll as ``absent too
    early``; the audit page names it."""
    with TestClient(make_app(database_url, wall, dice="v2", link_wait_s=LINK_WAIT_S)) as client:
        match_id, players, _ = to_roll(client, wall)

    def own_wait_only(link_due, link_wait, link_wait_ms):
        return link_due

    monkeypatch.setattr(match_dice, "stated_link_due", own_wait_only)
    monkeypatch.setattr(match_repository, "stated_link_due", own_wait_only)
    roll_ids = []
    with TestClient(make_app(database_url, wall, dice="v2", link_wait_s=1.0)) as client:
        for player in players.values():
            player.client = client
        for _ in range(2):  # two rolls in a row, each revealed 1.5 s after its request
            while (state := players[0].state(match_id))["phase"] != "roll":
                mover = players[state["turn"]]
                notation = mover.state(match_id)["legal_plays"][0]["notation"]
                assert mover.act(match_id, "play", play=notation).status_code == 200
            roller = players[state["turn"]]
            assert events(roller.roll(match_id), "roll_requested")
            roll_ids.append(roller.state(match_id)["pending_roll"]["roll_id"])
            wall.advance(1.5)
            client.portal.call(services(client.app).game.tick)
            assert roller.state(match_id)["rolls"][-1]["opponent_source"] == "absent"
        document = client.get(f"/api/audit/{match_id}").json()
        page = client.get(f"/audit/{match_id}").text
        programs = [client.get(f"/api/audit/{match_id}/rolls/{r}/verify.py").text
                    for r in roll_ids]
    # Each roll's own program checks the wait too (it carries the match's leaf and its proof).
    for program in programs:
        run = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                             timeout=60)
        assert run.returncode == 1, run.stdout
        assert "absent too early" in run.stdout + run.stderr
        assert "states that the server waits 3 s for the link" in run.stdout + run.stderr
    roll_id = roll_ids[0]
    index, second = (next(i for i, e in enumerate(document["rolls"]) if e["roll_id"] == r)
                     for r in roll_ids)
    assert waited(document["rolls"][index]) == pytest.approx(1.5, abs=0.01)
    assert document["verified"] is False
    assert (document["failure"]["reason"], document["failure"]["roll_id"]) == (
        verify.ABSENT_TOO_EARLY, roll_id)
    assert "states that the server waits 3 s for the link" in document["failure"]["detail"]
    assert "revealed without the opponent&#39;s link before the server&#39;s stated wait" in page
    # Each roll revealed too soon is marked, not only the first (the document's failure).
    assert [document["rolls"][i]["verdict"] for i in (index, second)] == [
        verify.ABSENT_TOO_EARLY] * 2
    report = verify.verify_document(document)
    assert (report.failure.verdict, report.failure.index) == (verify.ABSENT_TOO_EARLY, index)
    assert report.checks[second].verdict == verify.ABSENT_TOO_EARLY
    assert spec_verifier_v2.check(document)[index] == "bad: absent too early"
    assert spec_verifier_v2.check(document)[second] == "bad: absent too early"


def test_a_match_without_a_stored_wait_waits_as_the_process_says(database_url, wall):
    """A match from before migration 0024 keeps no wait (its leaf, if any, states none): a
    process restarted with a 1 s wait reveals its roll without the link after 1 s, as every
    process did before; verify.py checks no wait for it."""
    with TestClient(make_app(database_url, wall, dice="v2", link_wait_s=LINK_WAIT_S)) as client:
        match_id, players, _ = to_roll(client, wall)
        with services(client.app).db.writing() as s:
            s.execute(update(MatchRow).where(MatchRow.id == match_id).values(link_wait_ms=None))
            s.commit()
    with TestClient(make_app(database_url, wall, dice="v2", link_wait_s=1.0)) as client:
        for player in players.values():
            player.client = client
        roller = players[players[0].state(match_id)["turn"]]
        assert events(roller.roll(match_id), "roll_requested")
        wall.advance(1.5)
        client.portal.call(services(client.app).game.tick)
        last = roller.state(match_id)["rolls"][-1]
        assert last["opponent_source"] == "absent"
        document = client.get(f"/api/audit/{match_id}").json()
    entry = next(e for e in document["rolls"] if e["roll_id"] == last["roll_id"])
    assert waited(entry) == pytest.approx(1.5, abs=0.01)
    # The leaf, written before the row's wait was taken away, still states 3 s: the record is
    # judged by the leaf, whatever the row says.
    assert verify.verify_document(document).failure.verdict == verify.ABSENT_TOO_EARLY


def test_the_migration_adds_the_wait_and_leaves_old_matches_without(database_url):
    """0024 on a database of 0023: the column is there, every match from before has none; it
    goes down and up again."""
    _migrate(database_url, "0023_resumption_downtime")
    engine = create_db_engine(database_url)
    match_id = new_match_id()
    try:
        with engine.begin() as connection:
            connection.execute(insert(MatchRow.__table__).values(
                _match(match_id, "v2", "live", "active", START)))
    finally:
        engine.dispose()
    db = open_database(database_url)
    try:
        with db.read_sessions() as s:
            assert s.scalar(select(MatchRow.link_wait_ms).where(MatchRow.id == match_id)) is None
    finally:
        db.dispose()
    assert "link_wait_ms" not in match_columns(database_url, "0023_resumption_downtime")
    assert "link_wait_ms" in match_columns(database_url, "head")


@pytest.mark.parametrize("seconds", [-1.0, 0.0, 0.5, 60.5, 3000.0, 1e11, float("inf"),
                                     float("nan")])
def test_a_wait_no_leaf_should_state_is_refused_at_the_start(seconds):
    """The process's wait is stated in each live match's leaf in whole ms, for good: a wait
    outside 1 to 60 s (milliseconds given for seconds; a wait no device can meet; 1e11 s,
    which overflowed the due-time arithmetic on every tick, and on the next start too) is
    refused when the service is made, before any database is touched, saying which
    setting."""
    with pytest.raises(ValueError, match=r"the link wait \(BOARDGAMMON_LINK_WAIT\) must be 1 "
                                         r"to 60 seconds, got "):
        MatchService(None, ServiceClock(), link_wait_s=seconds)  # type: ignore[arg-type]


@pytest.mark.parametrize(("name", "value", "says"), [
    ("BOARDGAMMON_LINK_WAIT", "abc", "from 1 to 60"),
    ("BOARDGAMMON_LINK_WAIT", "3s", "from 1 to 60"),
    ("BOARDGAMMON_LINK_WAIT", "3000", "from 1 to 60"),
    ("BOARDGAMMON_LINK_WAIT", "1e400", "from 1 to 60"),
    ("BOARDGAMMON_LINK_WAIT", "nan", "from 1 to 60"),
    ("BOARDGAMMON_LINK_GRACE", "-1", "from 0 to 3600"),
])
def test_serve_names_a_bad_wait_setting_and_starts_nothing(name, value, says, tmp_path):
    """``boardgammon serve`` with a bad wait setting prints one line naming the setting, its
    value and the range, and exits 2 (it printed a 49- or 103-line traceback before)."""
    env = {**os.environ, name: value,
           "BOARDGAMMON_DATABASE_URL": f"sqlite:///{tmp_path / 'bg.sqlite3'}"}
    run = subprocess.run([sys.executable, "-m", "boardgammon.cli", "serve", "--port", "1"],
                         capture_output=True, text=True, env=env, timeout=120, cwd=tmp_path)
    assert run.returncode == 2, run.stderr
    assert run.stderr.startswith(f"boardgammon serve: {name}={value!r}: give a number of "
                                 f"seconds {says}")
    assert "Traceback" not in run.stderr and len(run.stderr.splitlines()) == 1
    assert not (tmp_path / "bg.sqlite3").exists()  # nothing was started
