"""Control characters (NUL first of all) in any path parameter or text input get the same
clear 4xx on SQLite and on PostgreSQL (issue 21, 4: PostgreSQL answered 500 and dropped the
socket, SQLite a 4xx). Each example sends one request, with one control character put into a
real match or seek ID or into a text field, to a server on each database; the answers must be
equal (IDs aside), a 4xx, and in the API's error shape."""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient
from gameplay import Player, live_match, make_app
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.websockets import WebSocketDisconnect

CONTROLS = st.sampled_from([*map(chr, range(0x20)), *map(chr, range(0x7F, 0xA0))])


class World:
    """A server on one database with two players, a match between them and an open seek."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.ann, self.bob = Player.register(client, "ann"), Player.register(client, "bob")
        self.match_id = live_match(self.ann, self.bob)
        self.seek_id = self.ann.post("/api/seeks", {"length": 3}).json()["id"]

    def roll(self, **override) -> dict:
        state = self.ann.state(self.match_id)
        return {"type": "roll", "action_id": "r1", **self.ann.roll_action(state),
                "entropy": ENTROPY, **override}

    def scrub(self, text: str) -> str:
        """``text`` with this world's own random IDs named as placeholders."""
        pending = self.ann.state(self.match_id)["pending_roll"]
        for value, name in ((self.match_id, "{m}"), (self.seek_id, "{s}"),
                            (pending["roll_id"], "{roll}"), (pending["commitment"], "{c}")):
            text = text.replace(value, name)
        return text


ENTROPY = "00112233445566778899aabbccddeeff"


def _spoil(text: str, at: int, char: str) -> str:
    at %= len(text) + 1
    return text[:at] + char + text[at:]


PATHS = ["GET /api/matches/{m}", "GET /api/matches/{m}/export.mat",
         "GET /api/matches/{m}/export.json", "GET /api/matches/{m}/analysis",
         "POST /api/matches/{m}/actions", "GET /api/audit/{m}", "GET /audit/{m}",
         "GET /match/{m}", "POST /api/seeks/{s}/accept", "DELETE /api/seeks/{s}",
         "GET /join/{s}"]
FIELDS = ["action_id", "roll_id", "commitment", "entropy", "play", "clock", "level",
          "username", "password"]


def _request(world: World, kind: str, what: str, at: int, char: str) -> tuple[int, object]:
    """Send one spoilt request; its status and body with this world's IDs taken out."""
    player = world.bob
    if kind == "path":
        method, template = what.split(" ")
        spoilt = {"m": quote(_spoil(world.match_id, at, char)),
                  "s": quote(_spoil(world.seek_id, at, char))}
        body = world.roll() if what.endswith("/actions") else None
        r = world.client.request(method, template.format(**spoilt), json=body,
                                 headers=player.headers)
    elif what in ("action_id", "roll_id", "commitment", "entropy"):
        action = world.roll()
        action[what] = _spoil(action[what], at, char)
        r = world.ann.post(f"/api/matches/{world.match_id}/actions", action)
    elif what == "play":
        r = world.ann.post(f"/api/matches/{world.match_id}/actions",
                           {"type": "play", "action_id": "p1", "play": _spoil("8/5 6/5", at, char)})
    elif what == "clock":
        r = player.post("/api/seeks", {"length": 1, "clock": _spoil("blitz", at, char)})
    elif what == "level":
        r = player.post("/api/matches/computer", {"level": _spoil("easy", at, char)})
    else:
        credentials = {"username": "ann", "password": "correct horse battery"}
        credentials[what] = _spoil(credentials[what], at, char)
        r = world.client.post("/api/auth/login", json=credentials)
    if r.headers.get("content-type", "").startswith("text/html"):
        # The site's page: its title says which refusal (its language links repeat the
        # address, with the control character inside this world's ID where scrub misses it).
        title = re.search(r"<title>(.*?)</title>", r.text)
        return r.status_code, title.group(1) if title else r.text
    try:
        body: object = r.json()
    except ValueError:
        body = r.text
    return r.status_code, world.scrub(str(body))


@pytest.fixture
def worlds(sqlite_url, postgres_url):
    with TestClient(make_app(sqlite_url), raise_server_exceptions=False) as lite, \
            TestClient(make_app(postgres_url), raise_server_exceptions=False) as pg:
        yield World(lite), World(pg)


@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(request=st.one_of(st.tuples(st.just("path"), st.sampled_from(PATHS)),
                         st.tuples(st.just("field"), st.sampled_from(FIELDS))),
       at=st.integers(0, 40), char=CONTROLS)
def test_the_same_clear_refusal_on_both_databases(worlds, request, at, char):
    answers = [_request(w, *request, at, char) for w in worlds]
    assert answers[0] == answers[1]
    status, text = answers[0]
    assert 400 <= status < 500, answers[0]
    if request[1].split(" ")[-1].startswith("/api/") or request[0] == "field":
        assert "'error': {'code':" in text, text


@pytest.mark.parametrize("char", ["\x00", "\x1b", "\x85"])
def test_a_socket_gets_an_error_and_stays_open(worlds, char):
    for world in worlds:
        with world.client.websocket_connect(f"/ws/matches/{world.match_id}",
                                            headers=world.ann.headers) as ws:
            assert ws.receive_json()["type"] == "state"
            ws.send_json({"type": "action", "action": world.roll(action_id=f"a{char}b")})
            error = ws.receive_json()
            assert (error["type"], error["error"]["code"]) == ("error", "invalid_request")
            assert "control characters are not allowed" in error["error"]["message"]
            ws.send_json({"type": "ping"})
            assert ws.receive_json()["type"] == "pong"
        with pytest.raises(WebSocketDisconnect) as refused, \
                world.client.websocket_connect(f"/ws/matches/{quote(world.match_id + char)}"):
            pass
        assert refused.value.code == 1008


@pytest.mark.parametrize("char", ["\x00", "\t", "\x7f", "\x9f"])
def test_the_socket_parser_refuses_an_action_id_with_a_control_character(char):
    from boardgammon.server.actions import parse_client_message
    from boardgammon.server.refusals import Invalid

    with pytest.raises(Invalid, match=r"control characters are not allowed \(found U\+00"):
        parse_client_message(f'{{"type": "action", "action": {{"type": "double", '
                             f'"action_id": "a{char.encode("unicode_escape").decode()}"}}}}'
                             .replace("\\x", "\\u00"))
