"""Sessions end on the server (issue 21, 3): a token past its absolute lifetime (a backdated
one) or idle for too long is refused whatever the cookie says; each sign-in gets a new token;
"sign out everywhere" revokes every session of the account, an open socket's included. On
SQLite and on PostgreSQL."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient
from gameplay import PASSWORD, Player, make_app
from sqlalchemy import select, update

from boardgammon.server.auth import SESSION_IDLE, SESSION_MAX, TOUCH_EVERY, token_user_id
from boardgammon.server.services import services
from boardgammon.server.tables import AuthToken


@pytest.fixture
def client(database_url):
    with TestClient(make_app(database_url)) as c:
        yield c


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _set(client: TestClient, token: str, **when: datetime) -> None:
    with services(client.app).db.sessions() as s:
        s.execute(update(AuthToken).where(AuthToken.token_hash == _hash(token)).values(**when))
        s.commit()


def _last_used(client: TestClient, token: str) -> datetime:
    with services(client.app).db.sessions() as s:
        return s.execute(select(AuthToken.last_used_at)
                         .where(AuthToken.token_hash == _hash(token))).scalar_one()


def _me(client: TestClient, token: str) -> int:
    return client.get("/api/me", headers={"Authorization": f"Bearer {token}"}).status_code


def _login(client: TestClient, name: str) -> str:
    r = client.post("/api/auth/login", json={"username": name, "password": PASSWORD})
    assert r.status_code == 200, r.text
    return r.json()["token"]


def test_a_backdated_session_is_refused(client):
    ann = Player.register(client, "ann")
    now = datetime.now(UTC)
    _set(client, ann.token, created_at=now - timedelta(days=3 * 365), last_used_at=now)
    assert _me(client, ann.token) == 401
    with services(client.app).db.sessions() as s:
        assert token_user_id(s, ann.token) is None
    _set(client, ann.token, created_at=now - SESSION_MAX + timedelta(minutes=5))
    assert _me(client, ann.token) == 200


def test_an_idle_session_ends_and_a_used_one_is_kept(client):
    ann = Player.register(client, "ann")
    now = datetime.now(UTC)
    _set(client, ann.token, last_used_at=now - SESSION_IDLE - timedelta(minutes=1))
    assert _me(client, ann.token) == 401
    _set(client, ann.token, last_used_at=now - SESSION_IDLE + timedelta(minutes=5))
    assert _me(client, ann.token) == 200
    assert _last_used(client, ann.token) >= now  # used again: the idle time starts over
    # Within TOUCH_EVERY a request writes nothing.
    recent = datetime.now(UTC) - TOUCH_EVERY / 2
    _set(client, ann.token, last_used_at=recent)
    assert _me(client, ann.token) == 200
    assert _last_used(client, ann.token) == recent


def test_each_sign_in_is_a_new_session_and_sign_out_everywhere_ends_them_all(client):
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    tokens = [ann.token, _login(client, "ann"), _login(client, "ann")]
    assert len(set(tokens)) == 3
    assert all(_me(client, t) == 200 for t in tokens)
    r = client.post("/api/auth/logout-all", headers={"Authorization": f"Bearer {tokens[1]}"})
    assert r.status_code == 204
    assert 'bg_session=""' in r.headers["set-cookie"]
    assert [_me(client, t) for t in tokens] == [401, 401, 401]
    assert _me(client, bob.token) == 200  # someone else's session is untouched
    assert client.post("/api/auth/logout-all").status_code == 401


def test_sign_out_everywhere_stops_an_open_socket(client):
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    r = ann.post("/api/seeks", {"length": 1})
    match_id = bob.post(f"/api/seeks/{r.json()['id']}/accept").json()["match_id"]
    with client.websocket_connect(f"/ws/matches/{match_id}", headers=ann.headers) as ws:
        assert ws.receive_json()["type"] == "state"
        assert ann.post("/api/auth/logout-all").status_code == 204
        state = bob.state(match_id)
        ws.send_json({"type": "action", "action": {
            "action_id": "x1", "type": "roll", "roll_id": state["pending_roll"]["roll_id"],
            "commitment": state["pending_roll"]["commitment"], "entropy": "00" * 16}})
        while (message := ws.receive_json())["type"] != "error":
            pass
        assert message["error"]["code"] == "not_authenticated"
