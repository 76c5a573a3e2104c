"""Scale-out: two ``boardgammon serve`` processes on the same PostgreSQL and Redis, one player
connected to each by WebSocket, play a match; every event reaches both players."""

from __future__ import annotations

import json
import os

import pytest
from gameplay import REDIS, SocketRolls, free_port, http_live_match, http_players, redis_or_skip

from tests.helpers.actions import next_action
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
        players = http_players(bases)
        match_id = http_live_match(players, length=1)
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
                action = next_action(players[seat]("GET", f"/api/matches/{match_id}"), f"p{n}")
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
