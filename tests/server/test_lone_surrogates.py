"""A lone UTF-16 surrogate in a JSON body (``"\\ud800"`` without its pair: JSON allows the
escape, Python's parser keeps it, but it is no character and neither database can store it) is
refused with the same clear 422 on SQLite and PostgreSQL, over HTTP and WebSocket (issue 21
review: a chat line, an ``action_id``, a seek's ``invite`` and a sign-in answered 500 or reset
the connection, differently on the two databases). A surrogate pair (an emoji written as two
escapes) is a character and stays welcome."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient
from gameplay import make_app
from test_control_characters import World


@pytest.fixture
def worlds(sqlite_url, postgres_url):
    with TestClient(make_app(sqlite_url), raise_server_exceptions=False) as lite, \
            TestClient(make_app(postgres_url), raise_server_exceptions=False) as pg:
        yield World(lite), World(pg)


def _bodies(world: World) -> list[tuple[str, str]]:
    """(path, raw JSON) pairs, each holding one lone surrogate escape."""
    m = world.match_id
    return [(f"/api/matches/{m}/chat", '{"text": "hi \\ud800 there"}'),
            (f"/api/matches/{m}/chat", '{"text": "\\udfff"}'),
            (f"/api/matches/{m}/actions",
             '{"type": "play", "action_id": "\\ud800", "play": "8/5 6/5"}'),
            (f"/api/matches/{m}/actions",
             '{"type": "play", "action_id": "p1", "play": "8/5 \\udbff"}'),
            ("/api/seeks", '{"length": 1, "invite": "\\ud800abc"}'),
            ("/api/auth/login", '{"username": "ann", "password": "\\ud800aaaaaaaa"}'),
            ("/api/auth/register", '{"username": "cy\\ud800", "password": "long enough pw"}')]


@pytest.mark.parametrize("which", range(7))
def test_a_lone_surrogate_is_the_same_422_on_both_databases(worlds, which):
    answers = []
    for world in worlds:
        path, raw = _bodies(world)[which]
        r = world.client.post(path, content=raw, headers={**world.ann.headers,
                                                          "Content-Type": "application/json"})
        answers.append((r.status_code, r.json()))
    assert answers[0] == answers[1]
    status, body = answers[0]
    assert status == 422, body
    assert body["error"]["code"] == "invalid_request"
    assert "U+D" in body["error"]["message"], body


def test_a_surrogate_pair_is_a_character(worlds):
    for world in worlds:
        r = world.client.post(f"/api/matches/{world.match_id}/chat",
                              content='{"text": "gg \\ud83c\\udfb2"}',
                              headers={**world.ann.headers, "Content-Type": "application/json"})
        assert r.status_code == 201, r.text
        assert r.json()["text"] == "gg \U0001F3B2"


def test_a_socket_gets_an_error_and_stays_open(worlds):
    for world in worlds:
        with world.client.websocket_connect(f"/ws/matches/{world.match_id}",
                                            headers=world.ann.headers) as ws:
            assert ws.receive_json()["type"] == "state"
            frame = json.dumps({"type": "action", "action": world.roll(action_id="a1")})
            ws.send_text(frame.replace('"a1"', '"a\\ud800"'))
            error = ws.receive_json()
            assert error["type"] == "error", error
            assert error["error"]["code"] == "invalid_request"
            assert "U+D800" in error["error"]["message"]
            ws.send_json({"type": "ping"})
            assert ws.receive_json()["type"] == "pong"
