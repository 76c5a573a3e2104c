"""A PostgreSQL that hangs (a partition: a proxy holds the bytes) gets the outage's clear
answers while it hangs (issue 21, review): before, every request waited for the whole hang
with no 503 and no log line. Now, once the database has left a call waiting for longer than
``HUNG_AFTER_S``, a new request that needs it is answered 503 ``database_unavailable`` with
``Retry-After`` at once (a new WebSocket: an ``error`` frame and a close), the log gets one
start line, and after the hang heals requests work again and the end line is logged."""

from __future__ import annotations

import logging
import time

import pytest
from fastapi.testclient import TestClient
from gameplay import Player, live_match, make_app
from starlette.websockets import WebSocketDisconnect

from boardgammon.server.outage import HUNG_AFTER_S, RETRY_AFTER_S
from tests.helpers.tcp_proxy import CuttableProxy


@pytest.fixture
def proxy():
    with CuttableProxy(("127.0.0.1", 5432)) as p:
        yield p


def _lines(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "boardgammon.server.outage"]


def test_a_hung_database_is_a_503_while_it_hangs(postgres_url, proxy, caplog):
    url = postgres_url.replace("@127.0.0.1:5432/", f"@127.0.0.1:{proxy.port}/")
    assert url != postgres_url
    # The background loop on, as in a server: its rounds' statements are what the hang
    # leaves waiting (a request sent before the hang is noticed waits for it to heal).
    with TestClient(make_app(url, background=True), raise_server_exceptions=False) as client:
        ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
        match_id = live_match(ann, bob)
        state = ann.state(match_id)
        caplog.set_level(logging.INFO, logger="boardgammon.server.outage")
        proxy.hold()  # the heartbeat (every second) is left waiting
        held = time.monotonic()
        time.sleep(HUNG_AFTER_S + 2.0)
        try:
            for answer in (ann.get(f"/api/matches/{match_id}"),
                           ann.post(f"/api/matches/{match_id}/actions",
                                    {"type": "roll", "action_id": "r1",
                                     **ann.roll_action(state)}),
                           ann.get("/api/me")):
                assert answer.status_code == 503, answer.text
                assert answer.json()["error"]["code"] == "database_unavailable"
                assert answer.headers["retry-after"] == str(RETRY_AFTER_S)
            with client.websocket_connect(f"/ws/matches/{match_id}") as new_ws:
                error = new_ws.receive_json()
                assert (error["type"], error["error"]["code"]) == (
                    "error", "database_unavailable")
                with pytest.raises(WebSocketDisconnect) as closed:
                    new_ws.receive_json()
                assert closed.value.code == 1013 and "database" in closed.value.reason
            refused_after = time.monotonic() - held
            assert client.get("/api/options").status_code == 200  # no database needed
            lines = _lines(caplog)
            assert len(lines) == 1, lines
            assert lines[0].startswith("database outage: the database has not answered")
        finally:
            time.sleep(max(0.0, 15.0 - (time.monotonic() - held)))
            proxy.release()
        assert refused_after < HUNG_AFTER_S + 5.0  # well before the hang ended (15 s)
        deadline = time.monotonic() + 20.0
        while time.monotonic() < deadline:
            answer = ann.get(f"/api/matches/{match_id}")
            if answer.status_code == 200:
                break
            time.sleep(0.5)
        assert answer.status_code == 200, answer.text
        after = answer.json()
        assert after["pending_roll"] == state["pending_roll"]  # refused: nothing changed
        assert after["phase"] == state["phase"] and after["board"] == state["board"]
        r = ann.post(f"/api/matches/{match_id}/actions",
                     {"type": "roll", "action_id": "r2", **ann.roll_action(state)})
        assert r.status_code == 200, r.text
        lines = _lines(caplog)
        assert len(lines) == 2 and lines[1].startswith("database outage over after"), lines
        assert not [r for r in caplog.records if r.exc_info], "no traceback logged"
