"""WebSocket sign-in (issue 21, 3): by the cookie, an ``Authorization`` header or a first
``auth`` message; a token in the URL (which access logs print) is refused. On SQLite and on
PostgreSQL."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from gameplay import Player, live_match, make_app
from starlette.websockets import WebSocketDisconnect


@pytest.fixture
def world(database_url):
    with TestClient(make_app(database_url)) as client:
        ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
        yield client, ann, bob, live_match(ann, bob)


def _roll(player: Player, match_id: str, action_id: str) -> dict:
    return {
        "type": "action",
        "action": {
            **player.roll_action(player.state(match_id)),
            "action_id": action_id,
            "type": "roll",
        },
    }


def _next(ws) -> dict:
    """The next frame that is not a spectator count (a spectator's own socket hears it too)."""
    while (message := ws.receive_json())["type"] == "spectators":
        pass
    return message


def _until(ws, kind: str) -> dict:
    while (message := ws.receive_json())["type"] not in (kind, "error"):
        pass
    return message


def _on_roll(ann: Player, bob: Player, match_id: str) -> tuple[Player, int]:
    seat = ann.state(match_id)["turn"]
    return (ann, bob)[seat], seat


def test_a_token_in_the_url_is_refused_and_signs_nobody_in(world):
    client, ann, bob, match_id = world
    with client.websocket_connect(f"/ws/matches/{match_id}?token={ann.token}") as ws:
        error = ws.receive_json()
        assert (error["type"], error["error"]["code"]) == ("error", "invalid_request")
        assert "token in the URL is not accepted" in error["error"]["message"]
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
    assert closed.value.code == 1008
    assert ann.state(match_id)["phase"] == "opening"  # nothing happened to the match


def test_the_header_signs_in(world):
    client, ann, bob, match_id = world
    player, seat = _on_roll(ann, bob, match_id)
    with client.websocket_connect(f"/ws/matches/{match_id}", headers=player.headers) as ws:
        assert ws.receive_json()["state"]["you"] == seat
        ws.send_json(_roll(player, match_id, "h1"))
        assert _until(ws, "ack") == {"type": "ack", "action_id": "h1"}


def test_the_cookie_signs_in(world):
    client, ann, bob, match_id = world
    # The client's cookie is bob's, the last to register.
    with client.websocket_connect(f"/ws/matches/{match_id}") as ws:
        assert ws.receive_json()["state"]["you"] == 1


def test_the_first_message_signs_a_spectator_in(world):
    client, ann, bob, match_id = world
    client.cookies.clear()
    player, seat = _on_roll(ann, bob, match_id)
    with client.websocket_connect(f"/ws/matches/{match_id}") as ws:
        assert ws.receive_json()["state"]["you"] is None
        ws.send_json(_roll(player, match_id, "s1"))
        assert _until(ws, "ack")["error"]["code"] == "not_authenticated"
        ws.send_json({"type": "auth", "token": player.token})
        assert _next(ws) == {"type": "signed_in", "user_id": player.user["id"]}
        state = _next(ws)
        assert (state["type"], state["state"]["you"]) == ("state", seat)
        ws.send_json(_roll(player, match_id, "s2"))
        assert _until(ws, "ack") == {"type": "ack", "action_id": "s2"}


@pytest.mark.parametrize("token", ["not a token", "x" * 201, "a\x00b"])
def test_a_bad_token_leaves_the_socket_a_spectators(world, token):
    client, ann, bob, match_id = world
    client.cookies.clear()
    player, _ = _on_roll(ann, bob, match_id)
    with client.websocket_connect(f"/ws/matches/{match_id}") as ws:
        assert ws.receive_json()["type"] == "state"
        ws.send_json({"type": "auth", "token": token})
        error = _next(ws)
        assert error["type"] == "error"
        assert error["error"]["code"] in {"not_authenticated", "invalid_request"}
        ws.send_json(_roll(player, match_id, "b1"))
        assert _until(ws, "ack")["error"]["code"] == "not_authenticated"
    assert player.state(match_id)["phase"] == "opening"


def test_a_revoked_token_cannot_sign_a_socket_in(world):
    client, ann, bob, match_id = world
    client.cookies.clear()
    assert ann.post("/api/auth/logout").status_code == 204
    with client.websocket_connect(f"/ws/matches/{match_id}") as ws:
        ws.receive_json()
        ws.send_json({"type": "auth", "token": ann.token})
        assert _next(ws)["error"]["code"] == "not_authenticated"


def test_a_socket_signs_in_in_turn_with_the_match_writes(world):
    """The sign-in marks the session used, a write: on SQLite it waits for the process's turn
    (as the match writes do) instead of taking the file under a writing match, which then slept
    in SQLite's busy handler (up to 100 ms a try) with every other write queued behind it."""
    import threading

    from boardgammon.server.services import services

    client, ann, _bob, match_id = world
    db = services(client.app).db
    if not db.is_sqlite:
        pytest.skip("one writer at a time is SQLite's rule; PostgreSQL has no turn")
    first: list[dict] = []
    done = threading.Event()

    def connect() -> None:
        with client.websocket_connect(f"/ws/matches/{match_id}",
                                      headers={"Authorization": f"Bearer {ann.token}"}) as ws:
            first.append(_next(ws))
        done.set()

    with db.turn:  # another write of this process is under way
        socket = threading.Thread(target=connect, daemon=True)
        socket.start()
        assert not done.wait(0.5)
    assert done.wait(30)
    assert first[0]["type"] == "state"
    assert first[0]["state"]["you"] == ann.state(match_id)["you"]  # signed in as ann
