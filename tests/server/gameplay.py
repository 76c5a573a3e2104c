"""Helpers for the game server tests: an app with an injected wall clock, players that sign in
and act over HTTP, and a driver that plays a match to its end with legal plays."""

from __future__ import annotations

import contextlib
import itertools
import os
import socket
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import httpx
from fastapi.testclient import TestClient

from boardgammon.server.app import create_app
from boardgammon.server.runtime import GameConfig
from boardgammon.server.settings import DEFAULT_LOG_HEAD_INTERVAL, Settings

PASSWORD = "correct horse battery"
COMPUTER_DEADLINE_S = 45.0
"""How long :func:`computer_waits` waits for the next message before it fails the test."""
_ids = itertools.count()


class Wall:
    """A wall clock the test moves by hand (Unix seconds)."""

    def __init__(self, start: float = 1_764_547_200.0) -> None:
        self.t = start

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds


def make_app(database_url: str, wall: Wall | None = None, *,
             log_head_interval_s: float = DEFAULT_LOG_HEAD_INTERVAL, **config):
    # Rate limits out of the way (tests drive matches faster than people; the limits have
    # tests of their own that pass their own values). New matches roll with v1 dice here:
    # these tests pin the v1 match flow, which matches made before v2 keep; the v2 flow has
    # its own tests (test_match_dice_v2.py), which pass dice="v2". No grace after the start
    # for the devices' waits: the tests of the waits count them from the app's start on a
    # fake wall; the grace has tests of its own (test_dice_v2_held.py), which pass one.
    config = {"dice": "v1", "background": False, "link_grace_s": 0.0,
              "login_rate": 1000.0, "login_burst": 1000,
              "address_login_rate": 1000.0, "address_login_burst": 1000,
              "action_rate": 1000.0, "action_burst": 1000, "witness_rate": 1000.0,
              "witness_burst": 1000, "bot_delay_s": 0.0, **config}
    return create_app(Settings(database_url=database_url, log_head_interval_s=log_head_interval_s),
                      GameConfig(wall=wall or Wall(), **config))


@dataclass
class Player:
    """A signed-in player acting through ``client`` with a bearer token."""

    client: TestClient
    name: str
    token: str = ""
    user: dict = field(default_factory=dict)

    @classmethod
    def register(cls, client: TestClient, name: str) -> Player:
        r = client.post("/api/auth/register", json={"username": name, "password": PASSWORD})
        assert r.status_code == 201, r.text
        return cls(client, name, r.json()["token"], r.json()["user"])

    @classmethod
    def guest(cls, client: TestClient) -> Player:
        """A guest account (``POST /api/auth/guest``), named as the server names it."""
        r = client.post("/api/auth/guest")
        assert r.status_code == 201, r.text
        user = r.json()["user"]
        return cls(client, user["username"], r.json()["token"], user)

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    def get(self, path: str):
        return self.client.get(path, headers=self.headers)

    def post(self, path: str, json=None):
        return self.client.post(path, json=json, headers=self.headers)

    def state(self, match_id: str) -> dict:
        r = self.get(f"/api/matches/{match_id}")
        assert r.status_code == 200, r.text
        return r.json()

    def act(self, match_id: str, kind: str, action_id: str | None = None, **fields):
        body = {"action_id": action_id or f"a{next(_ids)}", "type": kind, **fields}
        return self.post(f"/api/matches/{match_id}/actions", body)

    def roll_action(self, state: dict, **override) -> dict:
        pending = state["pending_roll"]
        return {"roll_id": pending["roll_id"], "commitment": pending["commitment"],
                "entropy": os.urandom(16).hex(), **override}

    def roll(self, match_id: str):
        return self.act(match_id, "roll", **self.roll_action(self.state(match_id)))


class SocketRolls:
    """What a client keeps of one socket's states: each revealed roll comes once, ``rolls``
    holding the record from ``rolls_from`` on (``docs/api.md`` §WebSocket)."""

    def __init__(self) -> None:
        self.rolls: list[dict] = []
        self.starts: list[int] = []

    def take(self, messages: list[dict]) -> dict | None:
        """Fold in ``messages``; the last state among them with its whole record."""
        last = None
        for message in messages:
            if message["type"] == "state":
                state = message["state"]
                # Never a gap and never more than a socket's first state resends.
                assert state["rolls_from"] in (0, len(self.rolls))
                self.starts.append(state["rolls_from"])
                self.rolls = self.rolls[:state["rolls_from"]] + state["rolls"]
                last = {**state, "rolls": self.rolls, "rolls_from": 0}
        return last


@contextlib.contextmanager
def computer_waits(player: Player, match_id: str) -> Iterator[Callable[[], dict]]:
    """For ``player`` at seat 0 against the computer: yields ``wait()``, which returns the
    player's state (over HTTP, complete) once the match waits for the player or is over. It
    wakes on the states the match's WebSocket sends after each change, not on a clock; a state
    read off the socket may be older than the match, so the HTTP state decides."""

    def done(state: dict) -> bool:
        return state["turn"] == 0 or state["phase"] == "match_over"

    # The receive runs in a thread so that a computer which never moves fails the test after
    # a deadline instead of blocking it; the pool is left after the socket has closed, which
    # ends a receive still waiting.
    with ThreadPoolExecutor(max_workers=1) as pool, \
            player.client.websocket_connect(f"/ws/matches/{match_id}",
                                            headers=player.headers) as socket:
        def wait() -> dict:
            state = player.state(match_id)
            while not done(state):
                try:
                    message = pool.submit(socket.receive_json).result(COMPUTER_DEADLINE_S)
                except TimeoutError:
                    raise AssertionError(
                        f"the computer did not move in {COMPUTER_DEADLINE_S:.0f} s: match "
                        f"{match_id} still waits in phase {state['phase']!r}, turn {state['turn']}"
                    ) from None
                if message["type"] == "state" and done(message["state"]):
                    state = player.state(match_id)
            return state

        yield wait


def live_match(owner: Player, guest: Player, **seek) -> str:
    """``owner`` posts a seek, ``guest`` accepts it; the new match's ID."""
    r = owner.post("/api/seeks", {"length": 1, **seek})
    assert r.status_code == 201, r.text
    r = guest.post(f"/api/seeks/{r.json()['id']}/accept")
    assert r.status_code == 201, r.text
    return r.json()["match_id"]


def step(players: dict[int, Player], match_id: str) -> dict:
    """Take the one action the match waits for (roll, or the first legal play); the state
    after it from the acting seat."""
    anyone = next(iter(players.values()))
    state = anyone.state(match_id)
    seat = state["turn"]
    player = players[seat]
    state = player.state(match_id)
    if state["phase"] in ("opening", "roll"):
        r = player.act(match_id, "roll", **player.roll_action(state))
    elif state["phase"] == "play":
        r = player.act(match_id, "play", play=state["legal_plays"][0]["notation"])
    else:
        raise AssertionError(f"unexpected phase {state['phase']}")
    assert r.status_code == 200, r.text
    return r.json()["state"]


def both_moved(players: dict[int, Player], match_id: str) -> dict:
    """Take the actions the match waits for until each seat has made one and a play is waited
    for: from then on a clock that runs out loses the match (before a seat's first action it
    aborts the match, ``docs/api.md`` §A match). The state then."""
    acted: set[int] = set()
    while True:
        state = next(iter(players.values())).state(match_id)
        if len(acted) == 2 and state["phase"] == "play":
            return state
        acted.add(state["turn"])
        step(players, match_id)


def play_out(players: dict[int, Player], match_id: str, limit: int = 2000) -> dict:
    """Play until the match is over (first legal play each turn); the final state."""
    for _ in range(limit):
        state = step(players, match_id)
        if state["phase"] == "match_over":
            return state
    raise AssertionError("the match did not end")


REDIS = "redis://127.0.0.1:6379/0"
"""The Redis server on these machines (tests skip, saying why, where it is absent)."""


def redis_or_skip() -> None:
    """Skip the calling test (fail it in CI) unless Redis answers at :data:`REDIS`."""
    import redis

    from tests.helpers.services import service_missing

    try:
        redis.Redis.from_url(REDIS, socket_connect_timeout=3).ping()
    except redis.RedisError as exc:
        service_missing(f"Redis is not reachable at 127.0.0.1:6379: {exc}")


# A real server in a subprocess (started by tests.helpers.servers.serving) ---------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Http:
    """A client of the server at ``base`` acting with ``token``: ``http(method, path, json)``
    is the answer's JSON, any status from 300 up failing the test."""

    def __init__(self, base: str, token: str | None = None) -> None:
        self.base, self.token = base, token

    def __call__(self, method: str, path: str, json=None) -> dict:
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        r = httpx.request(method, self.base + path, json=json, headers=headers, timeout=30)
        assert r.status_code < 300, r.text
        return r.json()


def http_players(bases: list[str], password: str = "long enough") -> dict[int, Http]:
    """ann (seat 0) and bob (seat 1), each registered with ``password`` through
    ``bases[seat]`` and acting there (the same base twice: both on one server)."""
    players = {}
    for seat, name in enumerate(("ann", "bob")):
        token = Http(bases[seat])("POST", "/api/auth/register",
                                  {"username": name, "password": password})["token"]
        players[seat] = Http(bases[seat], token)
    return players


def http_live_match(players: dict[int, Http], **seek) -> str:
    """Seat 0 posts a seek (``seek``: its fields), seat 1 accepts it; the new match's ID."""
    posted = players[0]("POST", "/api/seeks", seek)
    return players[1]("POST", f"/api/seeks/{posted['id']}/accept")["match_id"]
