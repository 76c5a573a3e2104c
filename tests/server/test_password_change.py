"""A password change revokes every session of the account (issue 21, 3): tokens opened before
it, a stolen one included, are refused after it, an open WebSocket can no longer act, and the
client that changed it gets a new token; a wrong current password changes nothing. On SQLite
and on PostgreSQL."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from gameplay import PASSWORD, Player, live_match, make_app

NEW = "a new long password"


@pytest.fixture
def client(database_url):
    with TestClient(make_app(database_url)) as c:
        yield c


def _me(client: TestClient, token: str) -> int:
    return client.get("/api/me", headers={"Authorization": f"Bearer {token}"}).status_code


def _login(client: TestClient, name: str, password: str) -> int:
    r = client.post("/api/auth/login", json={"username": name, "password": password})
    return r.status_code


def test_a_password_change_revokes_every_session_and_opens_a_new_one(client):
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    stolen = client.post("/api/auth/login", json={"username": "ann", "password": PASSWORD})
    old = [ann.token, stolen.json()["token"]]
    r = ann.post("/api/auth/password", {"password": PASSWORD, "new_password": NEW})
    assert r.status_code == 200, r.text
    token = r.json()["token"]
    assert r.json()["user"] == ann.user
    assert token not in old
    assert f"bg_session={token}" in r.headers["set-cookie"]
    assert [_me(client, t) for t in old] == [401, 401]
    assert _me(client, token) == 200
    assert _me(client, bob.token) == 200  # someone else's session is untouched
    assert (_login(client, "ann", PASSWORD), _login(client, "ann", NEW)) == (401, 200)


@pytest.mark.parametrize("current", ["not the password", "x"])
def test_a_wrong_current_password_changes_nothing(client, current):
    ann = Player.register(client, "ann")
    r = ann.post("/api/auth/password", {"password": current, "new_password": NEW})
    assert r.status_code == 401, r.text
    assert r.json()["error"]["code"] == "bad_credentials"
    assert _me(client, ann.token) == 200
    assert (_login(client, "ann", PASSWORD), _login(client, "ann", NEW)) == (200, 401)


def test_a_short_new_password_is_refused_and_changes_nothing(client):
    ann = Player.register(client, "ann")
    r = ann.post("/api/auth/password", {"password": PASSWORD, "new_password": "short"})
    assert r.status_code == 422, r.text
    assert r.json()["error"]["code"] == "invalid_request"
    assert _me(client, ann.token) == 200
    assert _login(client, "ann", PASSWORD) == 200


def test_a_guest_has_no_password_to_change(client):
    r = client.post("/api/auth/guest")
    guest = Player(client, r.json()["user"]["username"], r.json()["token"], r.json()["user"])
    r = guest.post("/api/auth/password", {"password": PASSWORD, "new_password": NEW})
    assert r.status_code == 401, r.text
    assert r.json()["error"]["code"] == "bad_credentials"
    assert _me(client, guest.token) == 200


def test_signed_out_cannot_change_a_password(client):
    Player.register(client, "ann")
    client.cookies.clear()
    r = client.post("/api/auth/password", json={"password": PASSWORD, "new_password": NEW})
    assert r.status_code == 401
    assert r.json()["error"]["code"] == "not_authenticated"


def test_a_password_change_stops_an_open_socket(client):
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    match_id = live_match(ann, bob)
    state = ann.state(match_id)
    player = (ann, bob)[state["turn"]]
    with client.websocket_connect(f"/ws/matches/{match_id}", headers=player.headers) as ws:
        assert ws.receive_json()["type"] == "state"
        r = player.post("/api/auth/password", {"password": PASSWORD, "new_password": NEW})
        assert r.status_code == 200, r.text
        ws.send_json(
            {
                "type": "action",
                "action": {**player.roll_action(state), "type": "roll", "action_id": "p1"},
            }
        )
        while (message := ws.receive_json())["type"] != "error":
            pass
        assert message["error"]["code"] == "not_authenticated"
    # the match did not move
    r = client.get(f"/api/matches/{match_id}", headers=(bob if player is ann else ann).headers)
    assert r.json()["phase"] == "opening"
