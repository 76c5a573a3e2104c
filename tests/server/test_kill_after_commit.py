"""kill -9 between the commit and the answer (issue 21): the client posts an action and never
gets the answer, because the server is killed with SIGKILL the moment the action's row is
committed (the test polls the database for it); started again, the server has the action, and
the client's retry with the same ``action_id`` gets the same answer, not a second action."""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import time

import pytest
from gameplay import Http, free_port, serve

pytestmark = pytest.mark.slow


def _post_unread(port: int, path: str, token: str, body: dict) -> socket.socket:
    """Send an HTTP request and leave its answer unread."""
    data = json.dumps(body).encode()
    sock = socket.create_connection(("127.0.0.1", port))
    sock.sendall(
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n".encode()
        + data
    )
    return sock


def _logged(db: str, match_id: str, action_id: str) -> int:
    with sqlite3.connect(db, timeout=0.1) as conn:
        return conn.execute(
            "SELECT count(*) FROM match_log WHERE match_id = ? AND action_id = ?",
            (match_id, action_id),
        ).fetchone()[0]


def test_a_kill_between_commit_and_answer(tmp_path):
    db = f"{tmp_path}/db.sqlite3"
    env = {
        **os.environ,
        "BOARDGAMMON_DATABASE_URL": f"sqlite:///{db}",
        "BOARDGAMMON_BOT_DELAY": "0",
        "BOARDGAMMON_DICE": "v1",  # players with no device to reveal v2 links
    }
    env.pop("BOARDGAMMON_REDIS_URL", None)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = serve(port, env, tmp_path)
    try:
        players = {}
        for seat, name in enumerate(("ann", "bob")):
            token = Http(base)(
                "POST", "/api/auth/register", {"username": name, "password": "long enough"}
            )["token"]
            players[seat] = Http(base, token)
        seek = players[0]("POST", "/api/seeks", {"length": 1})
        match_id = players[1]("POST", f"/api/seeks/{seek['id']}/accept")["match_id"]
        seat = players[0]("GET", f"/api/matches/{match_id}")["turn"]
        pending = players[seat]("GET", f"/api/matches/{match_id}")["pending_roll"]
        action = {
            "type": "roll",
            "action_id": "k1",
            "roll_id": pending["roll_id"],
            "commitment": pending["commitment"],
            "entropy": "5a" * 16,
        }
        path = f"/api/matches/{match_id}/actions"
        sock = _post_unread(port, path, players[seat].token, action)
        deadline = time.monotonic() + 30
        while True:
            try:
                if _logged(db, match_id, "k1"):
                    break
            except sqlite3.OperationalError:  # the server holds the write lock
                pass
            assert time.monotonic() < deadline, "the action was never committed"
            time.sleep(0.001)
        server.send_signal(signal.SIGKILL)
        server.wait()
        sock.close()  # the answer, if any was written, is never read
    finally:
        server.kill()
        server.wait()

    server = serve(port, env, tmp_path)
    try:
        retry = players[seat]("POST", path, action)
        state = players[seat]("GET", f"/api/matches/{match_id}")
        same = ("rolls", "phase", "turn", "dice", "position_id")
        assert {k: retry["state"].get(k) for k in same} == {k: state.get(k) for k in same}
        assert [r["client_entropy"] for r in state["rolls"]] == ["5a" * 16]
        assert _logged(db, match_id, "k1") == 1
        again = players[seat]("POST", path, action)
        assert {k: again["state"].get(k) for k in same} == {k: state.get(k) for k in same}
        assert _logged(db, match_id, "k1") == 1
    finally:
        server.kill()
        server.wait()
