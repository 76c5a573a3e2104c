"""kill -9 between the commit and the answer (issue 21): the client posts an action and never
gets the answer, because the server is killed with SIGKILL the moment the action's row is
committed (the test polls the database for it); started again, the server has the action, and
the client's retry with the same ``action_id`` gets the same answer, not a second action.

The poll races the server's answer; ``BOARDGAMMON_TEST_EXIT_AFTER_COMMIT`` (a test-only setting)
hits the window every time: the server ends itself right after the Nth action commits."""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import time

import pytest
from gameplay import Http, free_port, http_live_match, http_players

from tests.helpers.actions import next_action
from tests.helpers.servers import serving

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


def _next_action(player: Http, match_id: str, action_id: str) -> dict:
    return next_action(player("GET", f"/api/matches/{match_id}"), action_id)


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
    with serving([port], env, tmp_path) as (server,):
        players = http_players([base, base])
        match_id = http_live_match(players, length=1)
        seat = players[0]("GET", f"/api/matches/{match_id}")["turn"]
        action = {**_next_action(players[seat], match_id, "k1"), "entropy": "5a" * 16}
        assert action["type"] == "roll"
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
        server.process.send_signal(signal.SIGKILL)
        server.process.wait()
        sock.close()  # the answer, if any was written, is never read

    with serving([port], env, tmp_path):
        retry = players[seat]("POST", path, action)
        state = players[seat]("GET", f"/api/matches/{match_id}")
        same = ("rolls", "phase", "turn", "dice", "position_id")
        assert {k: retry["state"].get(k) for k in same} == {k: state.get(k) for k in same}
        assert [r["client_entropy"] for r in state["rolls"]] == ["5a" * 16]
        assert _logged(db, match_id, "k1") == 1
        again = players[seat]("POST", path, action)
        assert {k: again["state"].get(k) for k in same} == {k: state.get(k) for k in same}
        assert _logged(db, match_id, "k1") == 1


def _unanswered(port: int, path: str, token: str, body: dict) -> None:
    """Post ``body`` to a server that ends right after committing it: no byte comes back."""
    sock = _post_unread(port, path, token, body)
    sock.settimeout(60)
    try:
        assert sock.recv(1) == b"", "the server answered"
    except ConnectionResetError:
        pass
    finally:
        sock.close()


def test_the_exit_after_commit_hook_hits_the_window_each_time(tmp_path):
    """A play, then a roll, each committed by a server that ends before answering; each retry
    against the restarted server gets the committed result: one log row, the same dice."""
    db = f"{tmp_path}/db.sqlite3"
    env = {**os.environ, "BOARDGAMMON_DATABASE_URL": f"sqlite:///{db}",
           "BOARDGAMMON_BOT_DELAY": "0", "BOARDGAMMON_DICE": "v1"}
    env.pop("BOARDGAMMON_REDIS_URL", None)
    env.pop("BOARDGAMMON_TEST_EXIT_AFTER_COMMIT", None)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with serving([port], env, tmp_path):
        players = http_players([base, base])
        match_id = http_live_match(players, length=1)
        path = f"/api/matches/{match_id}"
        for n in range(20):  # the opening rolls (ties roll again), up to the first play
            state = players[0]("GET", path)
            if state["phase"] == "play":
                break
            seat = state["turn"]
            players[seat]("POST", f"{path}/actions", _next_action(players[seat], match_id, f"o{n}"))
        assert state["phase"] == "play"

    def seat_on_turn() -> int:
        return players[0]("GET", path)["turn"]

    # Server 1 ends after its first action: the opening play.
    with serving([port], {**env, "BOARDGAMMON_TEST_EXIT_AFTER_COMMIT": "1"}, tmp_path) as (s1,):
        mover = seat_on_turn()
        play = _next_action(players[mover], match_id, "play-1")
        assert play["type"] == "play"
        _unanswered(port, f"{path}/actions", players[mover].token, play)
        assert s1.process.wait(timeout=30) == 137
    # Server 2 answers the play's retry (its first action), and ends after the second: the
    # opponent's roll.
    with serving([port], {**env, "BOARDGAMMON_TEST_EXIT_AFTER_COMMIT": "2"}, tmp_path) as (s2,):
        retry = players[mover]("POST", f"{path}/actions", play)
        state = players[mover]("GET", path)
        assert retry["state"]["position_id"] == state["position_id"]
        assert state["turn"] == 1 - mover and state["phase"] == "roll"
        assert _logged(db, match_id, "play-1") == 1
        rolls_before = len(state["rolls"])
        roll = _next_action(players[1 - mover], match_id, "roll-1")
        _unanswered(port, f"{path}/actions", players[1 - mover].token, roll)
        assert s2.process.wait(timeout=30) == 137
    # Server 3, without the hook: the roll's retry gets the dice rolled before the exit.
    with serving([port], env, tmp_path):
        retry = players[1 - mover]("POST", f"{path}/actions", roll)
        state = players[1 - mover]("GET", path)
        assert state["phase"] == "play" and state["turn"] == 1 - mover
        assert retry["state"]["dice"] == state["dice"]
        assert len(state["rolls"]) == rolls_before + 1
        assert state["rolls"][-1]["client_entropy"] == roll["entropy"]
        again = players[1 - mover]("POST", f"{path}/actions", roll)
        assert again["state"]["dice"] == state["dice"]
        assert _logged(db, match_id, "roll-1") == 1
        assert _logged(db, match_id, "play-1") == 1
    assert "exiting after action" in (tmp_path / f"server-{port}.log").read_text()
