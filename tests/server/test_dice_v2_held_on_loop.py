"""A live v2 roll's request answered on the event loop (docs/server.md §A request answered on
the event loop): on SQLite, with the match in the process's cache and no other thread using it,
the request is held without the hop to a worker thread; otherwise it goes to a worker thread
as any action does, with the same answer. The action limiter counts it once either way. On
PostgreSQL, whose reads go over the network, always a worker thread."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from dataclasses import replace

import pytest
from fastapi.testclient import TestClient
from gameplay import make_app
from test_dice_v2_held import stored, to_roll, wall  # noqa: F401  (wall: a fixture)
from test_match_dice_v2 import LINK_WAIT_S, events

from boardgammon.server import match_dice
from boardgammon.server.actions import RollAction
from boardgammon.server.services import services


@pytest.fixture
def client(database_url, wall):  # noqa: F811  (the imported fixture)
    with TestClient(make_app(database_url, wall, dice="v2", link_wait_s=LINK_WAIT_S)) as c:
        yield c


def _on_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


@pytest.fixture
def where(client) -> Iterator[list[bool]]:
    """Whether each held request of the test was checked on the event loop's thread."""
    service = services(client.app).game.service
    seen: list[bool] = []
    hold = service._hold_request

    def spy(*args, **kwargs):
        seen.append(_on_loop())
        return hold(*args, **kwargs)

    service._hold_request = spy
    yield seen


@pytest.fixture
def hits(client) -> list[str]:
    """The action limiter's hits, by key."""
    limiter = services(client.app).game.action_limit
    keys: list[str] = []
    hit = limiter.hit

    def counting(key: str, *args, **kwargs):
        keys.append(key)
        return hit(key, *args, **kwargs)

    limiter.hit = counting
    return keys


def _request(client, wall, where, hits):  # noqa: F811
    match_id, players, devices = to_roll(client, wall)
    seat = players[0].state(match_id)["turn"]
    roller = players[seat]
    where.clear()
    hits.clear()
    return match_id, roller, devices[1 - seat]


def test_a_request_is_held_on_the_event_loop_on_sqlite(client, wall, where, hits, database_url):  # noqa: E501, F811
    match_id, roller, opponent = _request(client, wall, where, hits)
    service = services(client.app).game.service
    sqlite = database_url.startswith("sqlite")
    assert service.holds_on_loop is sqlite
    r = roller.roll(match_id)
    assert r.status_code == 200, r.text
    assert [e["type"] for e in r.json()["events"]][0] == "roll_requested"
    pending = roller.state(match_id)["pending_roll"]
    assert pending["state"] == "requested"
    assert stored(client, pending["roll_id"])[0] == "committed"  # held, not written
    assert where == [sqlite]  # PostgreSQL: in a worker thread, as every action
    assert hits == [f"user:{roller.user['id']}"]
    # The link writes it and reveals the roll, as for a request held in a worker thread.
    assert opponent.contribute(match_id, pending).status_code == 200
    assert stored(client, pending["roll_id"])[0] == "revealed"


def test_a_request_for_a_match_another_thread_uses_goes_to_a_worker_thread(client, wall, where, hits):  # noqa: E501, F811
    match_id, roller, _ = _request(client, wall, where, hits)
    action = roller.roll_action(roller.state(match_id))  # the state read waits for the lock
    lock = services(client.app).game.service.locks.thread(match_id)
    taken, answered = threading.Event(), []

    def busy() -> None:
        with lock:
            taken.set()
            time.sleep(0.5)

    holder = threading.Thread(target=busy)
    holder.start()
    assert taken.wait(5)
    asker = threading.Thread(target=lambda: answered.append(
        roller.act(match_id, "roll", **action)))
    asker.start()
    asker.join(10)
    holder.join(10)
    assert len(answered) == 1 and answered[0].status_code == 200, answered
    assert events(answered[0], "roll_requested")
    # Checked once, in a worker thread that waited for the lock; the limiter counted it once.
    assert where == [False]
    assert hits == [f"user:{roller.user['id']}"]


def test_a_request_for_a_match_not_cached_goes_to_a_worker_thread(client, wall, where, hits):  # noqa: E501, F811
    match_id, roller, opponent = _request(client, wall, where, hits)
    action = roller.roll_action(roller.state(match_id))  # a state read caches the match
    services(client.app).game.service.matches.cache.pop(match_id)
    r = roller.act(match_id, "roll", **action)
    assert r.status_code == 200, r.text
    assert events(r, "roll_requested")
    assert where == [False]
    assert hits == [f"user:{roller.user['id']}"]
    pending = roller.state(match_id)["pending_roll"]
    assert opponent.contribute(match_id, pending).status_code == 200
    assert stored(client, pending["roll_id"])[0] == "revealed"


def test_a_refused_request_on_the_loop_changes_nothing(client, wall, where, hits):  # noqa: F811
    match_id, roller, _ = _request(client, wall, where, hits)
    before = roller.state(match_id)
    action = roller.roll_action(before, commitment="00" * 32)
    r = roller.act(match_id, "roll", **action)
    assert r.status_code == 400, r.text
    assert r.json()["error"]["code"] == "commitment_mismatch"
    after = roller.state(match_id)
    assert after["pending_roll"] == before["pending_roll"]
    assert after["version"] == before["version"]
    # Not held on the loop; the worker thread's write path refused it, as before.
    assert where[-1] is False
    assert hits == [f"user:{roller.user['id']}"]


def test_only_a_request_that_may_be_held_is_read_on_the_loop(client, wall, where, hits):  # noqa: F811
    """``match_dice.may_hold`` judges from the cached match, before any read: a request the
    server will write (another roll, another mode, a v1 record) reads nothing on the loop."""
    match_id, roller, _ = _request(client, wall, where, hits)
    service = services(client.app).game.service
    cached = service.matches.cache.get(match_id)
    action = RollAction(type="roll", action_id="x", entropy="ab" * 16,
                        **{k: v for k, v in roller.roll_action(roller.state(match_id)).items()
                           if k in ("roll_id", "commitment")})
    assert match_dice.may_hold(cached, action)
    assert not match_dice.may_hold(cached, action.model_copy(update={"roll_id": "rol_other"}))
    for mode in ("correspondence", "computer"):
        other = replace(cached, info=replace(cached.info, mode=mode))
        assert not match_dice.may_hold(other, action)
    v1 = replace(cached, rolls=[])  # no v2 roll pending: as a v1 record reads
    assert not match_dice.may_hold(v1, action)
    # A request for another roll is refused by the worker thread's write, never read here.
    r = roller.act(match_id, "roll", **{**roller.roll_action(roller.state(match_id)),
                                        "roll_id": "rol_other"})
    assert r.status_code >= 400 and where == [False]
