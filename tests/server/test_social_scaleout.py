"""Chat, notifications and spectator counts across two ``boardgammon serve`` processes on the
same PostgreSQL and Redis: a line written on one process reaches the opponent's match socket
on the other, an invitation made on one reaches the invitee's ``/ws/me`` on the other, and a
spectator on one is counted by the other."""

from __future__ import annotations

import json
import os

import pytest
from gameplay import REDIS, Http, free_port, http_players, redis_or_skip

from tests.helpers.actions import next_action
from tests.helpers.servers import serving

pytestmark = pytest.mark.slow

XSS = "<script>alert(1)</script> ✓"


def frame_of(ws, kind: str, limit: int = 30, **fields) -> dict:
    """The first frame of type ``kind`` (with ``fields``) the socket receives; others, and
    frames another test's processes may put on the same Redis, are passed over."""
    for _ in range(limit):
        frame = json.loads(ws.recv(timeout=30))
        if frame["type"] == kind and all(frame.get(k) == v for k, v in fields.items()):
            return frame
    raise AssertionError(f"no {kind} frame with {fields}")


def test_chat_and_notifications_cross_processes(postgres_url, tmp_path):
    redis_or_skip()
    from websockets.sync.client import connect

    env = {**os.environ, "BOARDGAMMON_DATABASE_URL": postgres_url,
           "BOARDGAMMON_REDIS_URL": REDIS, "BOARDGAMMON_BOT_DELAY": "0",
           "BOARDGAMMON_DICE": "v1"}  # players with no device to reveal v2 links
    ports = [free_port(), free_port()]
    with serving(ports, env, tmp_path):  # each process's group ends with the block
        bases = [f"http://127.0.0.1:{p}" for p in ports]
        players = http_players(bases)
        ann, bob = players[0], players[1]
        ws = f"ws://127.0.0.1:{ports[1]}"
        bearer = {"Authorization": f"Bearer {bob.token}"}
        with connect(f"{ws}/ws/me", additional_headers=bearer) as me:
            assert frame_of(me, "hello")["user"]["username"] == "bob"
            invite = ann("POST", "/api/seeks", {"invite": "bob", "length": 1})
            assert frame_of(me, "invitation", seek_id=invite["id"])["from"] == "ann"
            match_id = bob("POST", f"/api/seeks/{invite['id']}/accept")["match_id"]
            with connect(f"{ws}/ws/matches/{match_id}", additional_headers=bearer) as match:
                frame_of(match, "state")
                line = ann("POST", f"/api/matches/{match_id}/chat", {"text": XSS})
                got = frame_of(match, "chat")["message"]
                assert got == line and got["text"] == XSS and got["name"] == "ann"
                # A spectator on ann's process: counted on bob's.
                with connect(f"ws://127.0.0.1:{ports[0]}/ws/matches/{match_id}"):
                    assert frame_of(match, "spectators")["count"] == 1
                    listed = Http(bases[1])("GET", "/api/watch")
                    assert next(m for m in listed if m["match_id"] == match_id
                                )["spectators"] == 1
                assert frame_of(match, "spectators")["count"] == 0
            # Play on until the turn passes from ann (on process 0) to bob: he hears it.
            for n in range(20):
                state = ann("GET", f"/api/matches/{match_id}")
                seat = state["turn"]
                mine = players[seat]("GET", f"/api/matches/{match_id}")
                players[seat]("POST", f"/api/matches/{match_id}/actions",
                              next_action(mine, f"a{n}"))
                if seat == 0 and ann("GET", f"/api/matches/{match_id}")["turn"] == 1:
                    frame_of(me, "turn", match_id=match_id)
                    break
            else:
                raise AssertionError("the turn never passed from ann to bob")
