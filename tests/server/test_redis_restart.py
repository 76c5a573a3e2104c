"""A Redis restart mid-match (issue 21): two ``boardgammon serve`` processes on PostgreSQL and a
Redis of the test's own (so that restarting it disturbs nobody else), one player connected to
each by WebSocket. While Redis is down an action is still acknowledged and its sender sees its
events; once Redis is back the match goes on and every event reaches both processes again."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time

import pytest
from gameplay import Http, free_port, http_live_match, http_players
from test_game_scaleout import receive_until

from tests.helpers.actions import next_action
from tests.helpers.servers import serving

pytestmark = pytest.mark.slow


def _redis(port: int) -> subprocess.Popen:
    process = subprocess.Popen(
        [
            "redis-server",
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    import redis

    deadline = time.monotonic() + 30
    while True:
        try:
            redis.Redis(port=port, socket_connect_timeout=1).ping()
            return process
        except redis.RedisError:
            assert process.poll() is None and time.monotonic() < deadline, "redis did not start"
            time.sleep(0.1)


def _action(player: Http, match_id: str, n: int) -> dict:
    mine = player("GET", f"/api/matches/{match_id}")
    return {"type": "action", "action": next_action(mine, f"p{n}")}


def test_a_redis_restart_mid_match(postgres_url, tmp_path):
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed (make system-deps installs it)")
    from websockets.sync.client import connect

    redis_port = free_port()
    redis_server = _redis(redis_port)
    env = {
        **os.environ,
        "BOARDGAMMON_DATABASE_URL": postgres_url,
        "BOARDGAMMON_REDIS_URL": f"redis://127.0.0.1:{redis_port}/0",
        "BOARDGAMMON_BOT_DELAY": "0",
        "BOARDGAMMON_DICE": "v1",  # players with no device to reveal v2 links
    }
    ports = [free_port(), free_port()]
    try:
        with serving(ports, env, tmp_path):  # each process's group ends with the block
            players = http_players([f"http://127.0.0.1:{port}" for port in ports])
            match_id = http_live_match(players, length=3)
            sockets = {
                seat: connect(
                    f"ws://127.0.0.1:{ports[seat]}/ws/matches/{match_id}",
                    additional_headers={"Authorization": f"Bearer {players[seat].token}"},
                    legacy=True,
                )
                for seat in (0, 1)
            }
            try:
                for seat in (0, 1):
                    assert json.loads(sockets[seat].recv(timeout=30))["type"] == "state"

                def both_see(n: int) -> None:
                    seat = players[0]("GET", f"/api/matches/{match_id}")["turn"]
                    sockets[seat].send(json.dumps(_action(players[seat], match_id, n)))
                    mine = receive_until(sockets[seat], "ack")
                    assert {"type": "ack", "action_id": f"p{n}"} in mine
                    receive_until(sockets[1 - seat], "state")

                for n in range(3):
                    both_see(n)
                redis_server.kill()
                redis_server.wait()
                time.sleep(1.0)
                # Redis down: the action is committed and acknowledged, its sender sees it.
                seat = players[0]("GET", f"/api/matches/{match_id}")["turn"]
                sockets[seat].send(json.dumps(_action(players[seat], match_id, 3)))
                mine = receive_until(sockets[seat], "ack")
                assert {"type": "ack", "action_id": "p3"} in mine
                if "state" not in [m["type"] for m in mine]:
                    receive_until(sockets[seat], "state")
                redis_server = _redis(redis_port)
                time.sleep(3.0)  # both processes subscribe again (back-off up to 2 s)
                for n in range(4, 10):
                    both_see(n)
                assert players[1]("GET", f"/api/matches/{match_id}")["phase"] != "opening"
            finally:
                for ws in sockets.values():
                    ws.close()
    finally:
        redis_server.kill()
        redis_server.wait()
