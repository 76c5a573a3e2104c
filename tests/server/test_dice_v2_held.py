"""A live v2 roll's request held in the server process and written with the opponent's link
(docs/server.md §A request held until the link): the request writes nothing, the state and the
events show it at once, the link's write records it with the time it was made; a wait that
ends without the link, a refusal meanwhile, a second request with other entropy and a restart
that loses the held request each leave the record as a written request would; with Redis
(several processes) every request is written at once. On SQLite and PostgreSQL."""

from __future__ import annotations

import hashlib
import os
from datetime import datetime

import pytest
from fastapi.testclient import TestClient
from gameplay import REDIS, Player, Wall, live_match, make_app, redis_or_skip
from sqlalchemy import select
from test_match_dice_v2 import LINK_WAIT_S, Device, check_dice, code, events, past_opening

from boardgammon.server.match_service import MatchService
from boardgammon.server.services import services
from boardgammon.server.tables import DiceRollV2, LogEntry
from tests.dice import spec_verifier_v2


def stored(client: TestClient, roll_id: str) -> tuple[str, datetime | None]:
    """The roll's state and ``requested_at`` as the database holds them."""
    with services(client.app).db.read_sessions() as s:
        row = s.execute(select(DiceRollV2.state, DiceRollV2.requested_at)
                        .where(DiceRollV2.roll_id == roll_id)).one()
    return row.state, row.requested_at


def leaves(client: TestClient) -> int:
    """How many leaves the public log holds."""
    with services(client.app).db.read_sessions() as s:
        return len(s.execute(select(LogEntry.idx)).all())


def to_roll(client: TestClient, wall: Wall, **seek) -> tuple[str, dict[int, Player],
                                                             dict[int, Device]]:
    """A live v2 match past its opening, both devices' chains registered, at a roll."""
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    devices = {0: Device(ann), 1: Device(bob)}
    match_id = live_match(ann, bob, length=3, **seek)
    for device in devices.values():
        assert device.register(match_id).status_code == 200
    players = {0: ann, 1: bob}
    past_opening(players, dict(devices), match_id)
    while (state := ann.state(match_id))["phase"] != "roll":
        seat = state["turn"]
        notation = players[seat].state(match_id)["legal_plays"][0]["notation"]
        assert players[seat].act(match_id, "play", play=notation).status_code == 200
    return match_id, players, devices


@pytest.fixture
def wall():
    return Wall()


@pytest.fixture
def client(database_url, wall):
    with TestClient(make_app(database_url, wall, dice="v2", link_wait_s=LINK_WAIT_S)) as c:
        yield c


def test_a_request_is_held_and_written_with_the_link_at_its_own_time(client, wall):
    match_id, players, devices = to_roll(client, wall)
    seat = players[0].state(match_id)["turn"]
    roller, opponent = players[seat], devices[1 - seat]
    before = leaves(client)
    r = roller.roll(match_id)
    requested = events(r, "roll_requested")[0]
    pending = roller.state(match_id)["pending_roll"]
    # Shown at once, to both seats, with the roller's entropy pinned; written nowhere yet.
    assert pending["state"] == "requested"
    assert opponent.player.state(match_id)["pending_roll"] == pending
    assert requested["roller_entropy_sha256"] == pending["roller_entropy_sha256"]
    assert stored(client, pending["roll_id"]) == ("committed", None)
    assert leaves(client) == before
    audit = client.get(f"/api/audit/{match_id}").json()
    assert audit["rolls"][-1]["state"] == "committed" and audit["verified"] is True
    # The link comes 1.5 s later: one write records the request, with its own time, then the
    # reveal.
    wall.advance(1.5)
    rolled = events(opponent.contribute(match_id, pending), "roll")[0]
    assert rolled["opponent_source"] == "client"
    check_dice(match_id, rolled)
    state, requested_at = stored(client, pending["roll_id"])
    assert state == "revealed"
    assert leaves(client) == before + 2  # the request's leaf and the reveal's
    document = client.get(f"/api/audit/{match_id}").json()
    entry = next(e for e in document["rolls"] if e["roll_id"] == pending["roll_id"])
    asked = datetime.fromisoformat(entry["requested_at"].replace("Z", "+00:00"))
    linked = datetime.fromisoformat(entry["opponent_at"].replace("Z", "+00:00"))
    assert (linked - asked).total_seconds() == pytest.approx(1.5, abs=0.01)
    assert hashlib.sha256(bytes.fromhex(entry["roller_entropy"])).hexdigest() == (
        pending["roller_entropy_sha256"])
    assert document["verified"] is True
    assert spec_verifier_v2.check(document) == [
        "ok" if e["state"] in ("revealed", "played") else "pending" for e in document["rolls"]]


def test_a_held_request_whose_link_never_comes_is_revealed_absent_after_the_wait(client, wall):
    match_id, players, devices = to_roll(client, wall)
    seat = players[0].state(match_id)["turn"]
    roller = players[seat]
    events(roller.roll(match_id), "roll_requested")
    pending = roller.state(match_id)["pending_roll"]
    wall.advance(LINK_WAIT_S - 0.5)
    client.portal.call(services(client.app).game.tick)
    assert roller.state(match_id)["pending_roll"]["state"] == "requested"
    assert stored(client, pending["roll_id"])[0] == "committed"
    wall.advance(1.0)
    client.portal.call(services(client.app).game.tick)
    state = roller.state(match_id)
    assert state["phase"] == "play" and state["rolls"][-1]["roll_id"] == pending["roll_id"]
    assert state["rolls"][-1]["opponent_source"] == "absent"
    document = client.get(f"/api/audit/{match_id}").json()
    entry = next(e for e in document["rolls"] if e["roll_id"] == pending["roll_id"])
    asked = datetime.fromisoformat(entry["requested_at"].replace("Z", "+00:00"))
    revealed = datetime.fromisoformat(entry["revealed_at"].replace("Z", "+00:00"))
    assert (revealed - asked).total_seconds() == pytest.approx(LINK_WAIT_S + 0.5, abs=0.01)
    assert document["verified"] is True
    # The link, late, is refused, as for a written request.
    late = devices[1 - seat].contribute(match_id, pending)
    assert (late.status_code, code(late)) == (400, "wrong_phase")
    assert late.json()["error"]["message"] == (
        f"roll {pending['roll_id']} was revealed without your link: it did not arrive within "
        f"the server's wait for it")


def test_refusals_during_the_wait_leave_the_request_held(client, wall):
    match_id, players, devices = to_roll(client, wall)
    seat = players[0].state(match_id)["turn"]
    roller, opponent = players[seat], devices[1 - seat]
    state = roller.state(match_id)
    first = roller.roll_action(state)
    assert events(roller.act(match_id, "roll", **first), "roll_requested")
    pending = roller.state(match_id)["pending_roll"]
    # Each refusal rolls back its write, the held request's with it: still held, unwritten.
    assert code(roller.act(match_id, "double")) == "wrong_phase"
    r = roller.act(match_id, "roll", **{**first, "entropy": os.urandom(16).hex()})
    assert (r.status_code, code(r)) == (409, "already_rolled"), r.text
    r = opponent.player.act(match_id, "contribute", roll_id=pending["roll_id"],
                            link=os.urandom(32).hex())
    assert code(r) == "link_mismatch"
    assert roller.state(match_id)["pending_roll"] == pending
    assert stored(client, pending["roll_id"]) == ("committed", None)
    # The same request again is no error; the link then reveals the first request's roll.
    again = roller.act(match_id, "roll", **first)
    assert again.status_code == 200 and events(again, "roll") == []
    rolled = events(opponent.contribute(match_id, pending), "roll")[0]
    assert rolled["roller_entropy"] == first["entropy"]
    check_dice(match_id, rolled)


def test_a_clean_stop_writes_the_held_request(database_url, wall):
    with TestClient(make_app(database_url, wall, dice="v2", link_wait_s=LINK_WAIT_S)) as client:
        match_id, players, devices = to_roll(client, wall)
        seat = players[0].state(match_id)["turn"]
        assert events(players[seat].roll(match_id), "roll_requested")
        pending = players[seat].state(match_id)["pending_roll"]
        assert stored(client, pending["roll_id"])[0] == "committed"
    with TestClient(make_app(database_url, wall, dice="v2", link_wait_s=LINK_WAIT_S)) as client:
        state, requested_at = stored(client, pending["roll_id"])
        assert state == "requested" and requested_at is not None
        for player in players.values():
            player.client = client
        assert players[seat].state(match_id)["pending_roll"] == pending
        rolled = events(devices[1 - seat].contribute(match_id, pending), "roll")[0]
        check_dice(match_id, rolled)
        assert client.get(f"/api/audit/{match_id}").json()["verified"] is True


def requested_then_crashed(database_url: str, wall: Wall) -> tuple:
    """A live v2 match at a roll whose request the process held when it crashed: (match_id,
    players, devices, the roller's seat, its roll action, the roller's state then)."""
    with TestClient(make_app(database_url, wall, dice="v2", link_wait_s=LINK_WAIT_S)) as client:
        match_id, players, devices = to_roll(client, wall)
        seat = players[0].state(match_id)["turn"]
        action = players[seat].roll_action(players[seat].state(match_id))
        assert events(players[seat].act(match_id, "roll", **action), "roll_requested")
        shown = players[seat].state(match_id)
        # A crash: the process ends with the request held (a clean stop would write it).
        services(client.app).game._service.matches._held.clear()
    wall.advance(2.0)  # the new process starts a moment later
    return match_id, players, devices, seat, action, shown


def test_a_request_lost_with_the_process_is_asked_again_with_the_same_entropy(
        database_url, wall):
    match_id, players, devices, seat, action, shown = requested_then_crashed(database_url,
                                                                            wall)
    pending = shown["pending_roll"]
    with TestClient(make_app(database_url, wall, dice="v2", link_wait_s=LINK_WAIT_S)) as client:
        for player in players.values():
            player.client = client
        roller, opponent = players[seat], devices[1 - seat]
        after = roller.state(match_id)
        assert after["pending_roll"]["state"] == "committed"
        # The version went back (requested → committed); the process's start orders them.
        assert after["version"] == shown["version"] - 1
        assert after["boot"] > shown["boot"] > 0
        r = opponent.contribute(match_id, pending)
        assert (r.status_code, code(r)) == (400, "wrong_phase"), r.text
        # The roller's device asks again with the entropy it kept; the same link follows.
        assert events(roller.act(match_id, "roll", **action), "roll_requested")
        assert roller.state(match_id)["pending_roll"] == pending
        rolled = events(opponent.contribute(match_id, pending), "roll")[0]
        assert rolled["roller_entropy"] == action["entropy"]
        check_dice(match_id, rolled)
        assert client.get(f"/api/audit/{match_id}").json()["verified"] is True


def test_with_redis_each_request_is_written_at_once(database_url, wall):
    redis_or_skip()
    with TestClient(make_app(database_url, wall, dice="v2", link_wait_s=LINK_WAIT_S,
                             redis_url=REDIS)) as client:
        match_id, players, _ = to_roll(client, wall)
        roller = players[players[0].state(match_id)["turn"]]
        assert events(roller.roll(match_id), "roll_requested")
        shown = roller.state(match_id)
        state, requested_at = stored(client, shown["pending_roll"]["roll_id"])
        assert state == "requested" and requested_at is not None
        assert shown["boot"] is None  # every answer durable: versions never go back


GRACE_S = 12.0  # the production default (LINK_GRACE_S), passed explicitly


def test_after_a_restart_a_request_waits_for_the_devices_to_reconnect(database_url, wall):
    """The request was lost with the process (a crash). Within the grace after the new
    process's start, the roller's device asks again and the opponent's device, reconnecting
    later than the link wait (its socket backs off), still gets its link in: the roll takes
    both devices' inputs. Once the grace is over, a link that never comes costs the usual wait
    and the roll goes without it."""
    match_id, players, devices, seat, action, shown = requested_then_crashed(database_url,
                                                                            wall)
    pending = shown["pending_roll"]
    wall.advance(20.0)
    with TestClient(make_app(database_url, wall, dice="v2", link_wait_s=LINK_WAIT_S,
                             link_grace_s=GRACE_S)) as client:
        for player in players.values():
            player.client = client
        roller, opponent = players[seat], devices[1 - seat]
        wall.advance(1.0)
        assert events(roller.act(match_id, "roll", **action), "roll_requested")
        wall.advance(LINK_WAIT_S + 4.0)  # past the link wait, within the grace
        client.portal.call(services(client.app).game.tick)
        assert roller.state(match_id)["pending_roll"]["state"] == "requested"
        rolled = events(opponent.contribute(match_id, pending), "roll")[0]
        assert rolled["opponent_source"] == "client"
        assert rolled["roller_entropy"] == action["entropy"]
        check_dice(match_id, rolled)
        # After the grace: the next roll's link never comes.
        wall.advance(GRACE_S)
        notation = roller.state(match_id)["legal_plays"][0]["notation"]
        assert roller.act(match_id, "play", play=notation).status_code == 200
        next_roller = players[players[0].state(match_id)["turn"]]
        assert next_roller.state(match_id)["phase"] == "roll"
        assert events(next_roller.roll(match_id), "roll_requested")
        wall.advance(LINK_WAIT_S + 0.5)
        client.portal.call(services(client.app).game.tick)
        last = next_roller.state(match_id)["rolls"][-1]
        assert last["opponent_source"] == "absent"
        assert client.get(f"/api/audit/{match_id}").json()["verified"] is True


@pytest.mark.parametrize("grace", [0.0, GRACE_S])
def test_a_request_written_before_a_stop_waits_out_the_grace(database_url, wall, grace):
    """A clean stop writes the held request; the server comes back 20 s later, far past the
    link wait. With the grace the roll waits for the opponent's device to reconnect and takes
    its link; without it (0), the start's settling reveals it at once without the link."""
    with TestClient(make_app(database_url, wall, dice="v2", link_wait_s=LINK_WAIT_S)) as client:
        match_id, players, devices = to_roll(client, wall)
        seat = players[0].state(match_id)["turn"]
        assert events(players[seat].roll(match_id), "roll_requested")
        pending = players[seat].state(match_id)["pending_roll"]
    wall.advance(20.0)
    with TestClient(make_app(database_url, wall, dice="v2", link_wait_s=LINK_WAIT_S,
                             link_grace_s=grace)) as client:
        for player in players.values():
            player.client = client
        wall.advance(grace / 2)
        client.portal.call(services(client.app).game.tick)
        state = players[seat].state(match_id)
        if grace:
            assert state["pending_roll"]["state"] == "requested"
            rolled = events(devices[1 - seat].contribute(match_id, pending), "roll")[0]
            assert rolled["opponent_source"] == "client"
            check_dice(match_id, rolled)
        else:
            assert state["rolls"][-1]["roll_id"] == pending["roll_id"]
            assert state["rolls"][-1]["opponent_source"] == "absent"
        assert client.get(f"/api/audit/{match_id}").json()["verified"] is True


@pytest.mark.parametrize("link", [True, False])
def test_a_restart_charges_the_waiting_opponent_at_most_the_link_wait(database_url, wall,
                                                                        link):
    """The grace is for the devices to reconnect, so it is nobody's time: a request written
    before a stop costs the opponent nothing when the link comes within the grace, and when
    it never comes, the usual link wait (measured to the tick that ends it), not the grace."""
    with TestClient(make_app(database_url, wall, dice="v2", link_wait_s=LINK_WAIT_S)) as client:
        match_id, players, devices = to_roll(client, wall, clock="blitz")  # 60 s a point
        seat = players[0].state(match_id)["turn"]
        assert events(players[seat].roll(match_id), "roll_requested")
        shown = players[seat].state(match_id)
        reserve = shown["clocks"]["reserve"]
    wall.advance(20.0)
    with TestClient(make_app(database_url, wall, dice="v2", link_wait_s=LINK_WAIT_S,
                             link_grace_s=GRACE_S)) as client:
        for player in players.values():
            player.client = client
        waiting = players[seat].state(match_id)["clocks"]
        assert waiting["running"] == 1 - seat
        assert waiting["delay_left"] == pytest.approx(GRACE_S - LINK_WAIT_S, abs=0.5)
        if link:
            wall.advance(GRACE_S / 2)
            rolled = events(devices[1 - seat].contribute(match_id, shown["pending_roll"]),
                            "roll")[0]
            assert rolled["opponent_source"] == "client"
            charged = 0.0
        else:
            wall.advance(GRACE_S + 0.5)
            client.portal.call(services(client.app).game.tick)
            assert players[seat].state(match_id)["rolls"][-1]["opponent_source"] == "absent"
            charged = LINK_WAIT_S + 0.5
        clocks = players[seat].state(match_id)["clocks"]
        assert clocks["running"] == seat
        assert clocks["reserve"][1 - seat] == pytest.approx(reserve[1 - seat] - charged,
                                                            abs=0.2)
        assert clocks["reserve"][seat] == pytest.approx(reserve[seat], abs=0.2)
        # The record keeps when the charge began, so that every replay charges the same.
        roll = [a for a in client.get(f"/api/matches/{match_id}/export.json").json()["actions"]
                if a["kind"] == "roll"][-1]
        assert roll["charged_from"] - roll["asked"] == pytest.approx(GRACE_S - LINK_WAIT_S,
                                                                     abs=0.5)
        assert client.get(f"/api/audit/{match_id}").json()["verified"] is True


def _requested_then_stopped(database_url: str, wall: Wall) -> tuple[str, dict[int, Player], int,
                                                                     list[float]]:
    """A blitz v2 match whose roller asked to roll, written at a clean stop; the reserves
    then."""
    with TestClient(make_app(database_url, wall, dice="v2", link_wait_s=LINK_WAIT_S)) as client:
        match_id, players, _ = to_roll(client, wall, clock="blitz")
        seat = players[0].state(match_id)["turn"]
        assert events(players[seat].roll(match_id), "roll_requested")
        reserve = players[seat].state(match_id)["clocks"]["reserve"]
    return match_id, players, seat, reserve


def _absent_and_charged(client: TestClient, players: dict[int, Player], match_id: str,
                        seat: int) -> float:
    """Past the grace, a tick reveals the roll without the link: the opponent's reserve."""
    client.portal.call(services(client.app).game.tick)
    state = players[seat].state(match_id)
    assert state["rolls"][-1]["opponent_source"] == "absent"
    assert state["clocks"]["running"] == seat
    return state["clocks"]["reserve"][1 - seat]


def test_a_match_read_again_after_the_grace_charges_the_same(database_url, wall):
    """The charge start depends on when the wait began, not on when the match was loaded: a
    match dropped from the cache during the grace (evicted, or a failed write) and read again
    after it still charges the waiting opponent the link wait only (a review's finding)."""
    match_id, players, seat, reserve = _requested_then_stopped(database_url, wall)
    wall.advance(20.0)
    with TestClient(make_app(database_url, wall, dice="v2", link_wait_s=LINK_WAIT_S,
                             link_grace_s=GRACE_S)) as client:
        for player in players.values():
            player.client = client
        wall.advance(2.0)
        services(client.app).game.service.matches.cache.pop(match_id)
        wall.advance(GRACE_S - 2.0 + 0.5)
        left = _absent_and_charged(client, players, match_id, seat)
        assert left == pytest.approx(reserve[1 - seat] - (LINK_WAIT_S + 0.5), abs=0.2)


def test_a_slow_start_does_not_charge_the_waiting_opponent(database_url, wall, monkeypatch):
    """The grace counts from the end of the start's settling; a wait put on the clock during
    a settling that took 6 s takes its charge start from the grace as it ends, so the slow
    start costs the opponent nothing (a review's finding: it cost them the 6 s)."""
    match_id, players, seat, reserve = _requested_then_stopped(database_url, wall)
    wall.advance(20.0)
    settle = MatchService.settle

    def slow_settle(self, match_id):
        wall.advance(6.0)
        return settle(self, match_id)

    monkeypatch.setattr(MatchService, "settle", slow_settle)
    with TestClient(make_app(database_url, wall, dice="v2", link_wait_s=LINK_WAIT_S,
                             link_grace_s=GRACE_S)) as client:
        monkeypatch.setattr(MatchService, "settle", settle)
        for player in players.values():
            player.client = client
        wall.advance(GRACE_S + 0.5)
        left = _absent_and_charged(client, players, match_id, seat)
        assert left == pytest.approx(reserve[1 - seat] - (LINK_WAIT_S + 0.5), abs=0.2)


def test_the_rollers_thinking_before_a_request_written_before_a_stop_stays_charged(
        database_url, wall):
    """The request is put back on the clock at the service time it was made (the downtime
    credited at the restart not subtracted from a time before it), so the 20 s the roller
    took before asking cost 12 s of a blitz reserve (8 s delay), as without the restart
    (a review's finding: it was clamped to the turn's start and cost nothing)."""
    with TestClient(make_app(database_url, wall, dice="v2", link_wait_s=LINK_WAIT_S)) as client:
        match_id, players, devices = to_roll(client, wall, clock="blitz")
        seat = players[0].state(match_id)["turn"]
        before = players[seat].state(match_id)["clocks"]["reserve"][seat]
        wall.advance(20.0)
        assert events(players[seat].roll(match_id), "roll_requested")
        pending = players[seat].state(match_id)["pending_roll"]
        services(client.app).game._beat()  # the heartbeat of every second, now
    wall.advance(30.0)
    with TestClient(make_app(database_url, wall, dice="v2", link_wait_s=LINK_WAIT_S,
                             link_grace_s=GRACE_S)) as client:
        for player in players.values():
            player.client = client
        wall.advance(4.0)  # the link comes 4 s after the restart: the roller's turn goes on
        assert events(devices[1 - seat].contribute(match_id, pending), "roll")
        state = players[seat].state(match_id)
        notation = state["legal_plays"][0]["notation"]
        assert players[seat].act(match_id, "play", play=notation).status_code == 200
        after = players[seat].state(match_id)["clocks"]["reserve"][seat]
        assert after == pytest.approx(before - 12.0, abs=0.3)
