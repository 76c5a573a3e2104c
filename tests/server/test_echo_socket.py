"""The load benchmark's /ws/echo exists only on a server started for it."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from boardgammon.server.app import create_app
from boardgammon.server.settings import Settings


def test_echo_socket_only_when_asked_for(sqlite_url):
    with TestClient(create_app(Settings(database_url=sqlite_url))) as client:
        with pytest.raises(WebSocketDisconnect), client.websocket_connect("/ws/echo") as ws:
            ws.receive_text()
    with TestClient(create_app(Settings(database_url=sqlite_url, echo_socket=True))) as client:
        with client.websocket_connect("/ws/echo") as ws:
            ws.send_text("hello")
            assert ws.receive_text() == "hello"


def test_the_setting_comes_from_the_environment():
    assert Settings.from_env({"BOARDGAMMON_ECHO_SOCKET": "1"}).echo_socket
    assert not Settings.from_env({}).echo_socket
