"""No secret in any log line (issue 21, 3): everything a real server prints while two players
sign in, watch their match over WebSockets signed in by their first message and play it to the
end holds neither player's session token nor their password; a socket that puts its token in
the URL is refused, and the line logging its handshake shows ``token=[redacted]``."""

from __future__ import annotations

import json
import os

import httpx
import pytest
from gameplay import Http, free_port, http_live_match, http_players

from boardgammon.server.logs import REDACTED, RedactTokens, redact
from tests.helpers.actions import next_action
from tests.helpers.servers import serving

pytestmark = pytest.mark.slow


def _play(players: dict[int, Http], match_id: str) -> dict:
    """Both players act over HTTP (first legal play) until the match is over."""
    for n in range(2000):
        state = players[0]("GET", f"/api/matches/{match_id}")
        if state["phase"] == "match_over":
            return state
        seat = state["turn"]
        mine = players[seat]("GET", f"/api/matches/{match_id}")
        players[seat]("POST", f"/api/matches/{match_id}/actions", next_action(mine, f"a{n}"))
    raise AssertionError("the match did not end")


def test_a_played_match_prints_no_token(tmp_path):
    from websockets.sync.client import connect

    port = free_port()
    # v1 dice: these players have no devices to reveal v2 links (test_match_dice_v2.py).
    env = {**os.environ, "BOARDGAMMON_DATABASE_URL": f"sqlite:///{tmp_path}/db.sqlite3",
           "BOARDGAMMON_BOT_DELAY": "0", "BOARDGAMMON_DICE": "v1"}
    env.pop("BOARDGAMMON_REDIS_URL", None)
    with serving([port], env, tmp_path) as (server,):  # its log: stdout and stderr
        base = f"http://127.0.0.1:{port}"
        password = "a password never logged"
        players = http_players([base, base], password)
        match_id = http_live_match(players, length=1)
        with connect(f"ws://127.0.0.1:{port}/ws/matches/{match_id}?token={players[0].token}",
                     legacy=True) as refused:
            assert json.loads(refused.recv(timeout=30))["error"]["code"] == "invalid_request"
        sockets = [connect(f"ws://127.0.0.1:{port}/ws/matches/{match_id}", legacy=True)
                   for p in players.values()]
        try:
            for ws, p in zip(sockets, players.values(), strict=True):
                assert json.loads(ws.recv(timeout=30))["type"] == "state"
                ws.send(json.dumps({"type": "auth", "token": p.token}))
                # Everyone connected hears the spectator count (a socket is a spectator until
                # it signs in), so such frames may come first.
                kinds = [json.loads(ws.recv(timeout=30))["type"]]
                while kinds[-1] != "signed_in" and len(kinds) < 5:
                    assert kinds[-1] in ("spectators", "state"), kinds
                    kinds.append(json.loads(ws.recv(timeout=30))["type"])
                assert kinds[-1] == "signed_in", kinds
            assert _play(players, match_id)["phase"] == "match_over"
        finally:
            for ws in sockets:
                ws.close()
        assert httpx.get(f"{base}/api/matches/{match_id}/export.mat").status_code == 200
    printed = server.log.read_text()
    for secret in (players[0].token, players[1].token, password):
        assert secret not in printed
    assert f"/ws/matches/{match_id}?token={REDACTED}" in printed  # the lines are still there
    assert "POST /api/matches/" in printed


def test_the_filter_keeps_the_access_formatters_arguments():
    import logging

    record = logging.LogRecord("uvicorn.access", logging.INFO, __file__, 1,
                               '%s - "%s %s HTTP/%s" %d',
                               ("1.2.3.4:5", "GET", "/ws/x?a=1&token=SECRET&b=2", "1.1", 200),
                               None)
    assert RedactTokens().filter(record)
    assert record.args == ("1.2.3.4:5", "GET", f"/ws/x?a=1&token={REDACTED}&b=2", "1.1", 200)
    assert redact("/ws/x?TOKEN=abc") == f"/ws/x?TOKEN={REDACTED}"
