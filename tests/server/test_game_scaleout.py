"""Scale-out: two ``boardgammon serve`` processes on the same PostgreSQL and Redis, one player
connected to each by WebSocket, play a match; every event reaches both players."""

from __future__ import annotations

import json
import os

import pytest
from gameplay import REDIS, Http, SocketRolls, free_port, redis_or_skip

from tests.helpers.servers import serving

pytestmark = pytest.mark.slow

def receive_until(ws, kind: str, limit: int = 60) -> list[dict]:
    """Messages up to and including the first of type ``kind``."""
    got = []
    for _ in range(limit):
        got.append(json.loads(ws.recv(timeout=30)))
        if got[-1]["type"] == kind:
            return got
    raise AssertionError(f"no {kind} in {[m['type'] for m in got]}")


def test_two_processes_share_a_match(postgres_url, tmp_path):
    redis_or_skip()
    from websockets.sync.client import connect

    # v1 dice: the players have no devices to reveal v2 links (test_match_dice_v2.py).
    env = {**os.environ, "BOARDGAMMON_DATABASE_URL": postgres_url, "BOARDGAMMON_DICE": "v1",
           "BOARDGAMMON_REDIS_URL": REDIS, "BOARDGAMMON_BOT_DELAY": "0"}
    ports = [free_port(), free_port()]
    with serving(ports, env, tmp_path):  # each process's group ends with the block
        bases = [f"http://127.0.0.1:{p}" for p in ports]
        players = {}
        for seat, name in enumerate(("ann", "bob")):
            token = Http(bases[seat])("POST", "/api/auth/register",
                                      {"username": name, "password": "long enough"})["token"]
            players[seat] = Http(bases[seat], token)
        seek = players[0]("POST", "/api/seeks", {"length": 1})
        match_id = players[1]("POST", f"/api/seeks/{seek['id']}/accept")["match_id"]
        sockets = {seat: connect(f"ws://127.0.0.1:{ports[seat]}/ws/matches/{match_id}",
                                 additional_headers={"Authorization":
                                                     f"Bearer {players[seat].token}"},
                                 legacy=True)
                   for seat in (0, 1)}
        try:
            kept = {0: SocketRolls(), 1: SocketRolls()}
            for seat in (0, 1):
                first = json.loads(sockets[seat].recv(timeout=30))
                assert kept[seat].take([first])["you"] == seat
            for n in range(10):
                state = players[0]("GET", f"/api/matches/{match_id}")
                seat = state["turn"]
                mine = players[seat]("GET", f"/api/matches/{match_id}")
                if mine["phase"] in ("opening", "roll"):
                    pending = mine["pending_roll"]
                    action = {"type": "roll", "roll_id": pending["roll_id"],
                              "commitment": pending["commitment"],
                              "entropy": os.urandom(16).hex()}
                else:
                    action = {"type": "play", "play": mine["legal_plays"][0]["notation"]}
                action["action_id"] = f"p{n}"
                sockets[seat].send(json.dumps({"type": "action", "action": action}))
                # Through Redis the ack may overtake the sender's own copy of the events.
                mine = receive_until(sockets[seat], "ack")
                if "state" not in [m["type"] for m in mine]:
                    mine += receive_until(sockets[seat], "state")
                kept[seat].take(mine)
                assert {"type": "ack", "action_id": f"p{n}"} in mine
                theirs = receive_until(sockets[1 - seat], "state")
                assert theirs[0]["type"] == action["type"]
                # The other process's state equals what this process serves.
                assert kept[1 - seat].take(theirs) == players[1 - seat](
                    "GET", f"/api/matches/{match_id}")
        finally:
            for ws in sockets.values():
                ws.close()
