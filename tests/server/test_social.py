"""Chat, block lists, games to watch and notifications over the API (``docs/api.md`` §Chat,
§Blocks, §Games to watch, §Notifications), on SQLite and PostgreSQL: each refusal names its
code and leaves everything as it was."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient
from gameplay import Player, Wall, live_match, make_app, step

from boardgammon.server.match_repository import CORRESPONDENCE_GRACE_PER_POINT

XSS = '<img src=x onerror="alert(1)"><script>alert(2)</script>&amp;'


@pytest.fixture
def wall():
    return Wall()


@pytest.fixture
def client(database_url, wall):
    with TestClient(make_app(database_url, wall, chat_rate=1000.0, chat_burst=1000)) as c:
        yield c


def players(client, *names):
    return [Player.register(client, n) for n in names]


def chat(player: Player, match_id: str) -> dict:
    r = player.get(f"/api/matches/{match_id}/chat")
    assert r.status_code == 200, r.text
    return r.json()


def say(player: Player, match_id: str, text):
    return player.post(f"/api/matches/{match_id}/chat", {"text": text})


def refused(r, status: int, code: str) -> str:
    assert r.status_code == status, r.text
    assert r.json()["error"]["code"] == code, r.text
    return r.json()["error"]["message"]


def test_chat_is_kept_as_written_and_read_by_both_players(client):
    ann, bob = players(client, "ann", "bob")
    match_id = live_match(ann, bob)
    r = say(ann, match_id, XSS)
    assert r.status_code == 201, r.text
    assert r.json()["text"] == XSS and r.json()["seat"] == 0 and r.json()["name"] == "ann"
    assert say(bob, match_id, "gg ✓ ようこそ").status_code == 201
    for who in (ann, bob):
        lines = chat(who, match_id)["messages"]
        assert [(m["name"], m["seat"], m["text"]) for m in lines] == [
            ("ann", 0, XSS), ("bob", 1, "gg ✓ ようこそ")]


@pytest.mark.parametrize(("text", "why"), [
    ("x" * 10_240, "at most 300 characters; this one has 10240"),
    ("x" * 301, "this one has 301"),
    ("line one\nline two", "U+000A"),
    ("bell\x07", "U+0007"),
    ("nul\x00", "U+0000"),
    ("   ", "needs some text"),
    ("", "needs some text"),
    (5, "string"),
])
def test_a_bad_chat_line_is_refused_and_nothing_is_kept(client, text, why):
    ann, bob = players(client, "ann", "bob")
    match_id = live_match(ann, bob)
    message = refused(say(ann, match_id, text), 422, "invalid_request")
    assert why in message
    assert chat(ann, match_id)["messages"] == chat(bob, match_id)["messages"] == []


def test_exactly_300_characters_pass(client):
    ann, bob = players(client, "ann", "bob")
    match_id = live_match(ann, bob)
    assert say(ann, match_id, "é" * 300).status_code == 201


def test_spectators_and_strangers_neither_write_nor_read(client):
    ann, bob, cyd = players(client, "ann", "bob", "cyd")
    match_id = live_match(ann, bob)
    assert say(ann, match_id, "hi").status_code == 201
    refused(say(cyd, match_id, "let me in"), 403, "not_your_match")
    refused(cyd.get(f"/api/matches/{match_id}/chat"), 403, "not_your_match")
    client.cookies.clear()  # the last registration's cookie: no session at all now
    refused(client.post(f"/api/matches/{match_id}/chat", json={"text": "anon"}), 401,
            "not_authenticated")
    refused(say(ann, "mat_nope", "hi"), 404, "not_found")
    assert [m["text"] for m in chat(bob, match_id)["messages"]] == ["hi"]


def test_chat_is_rate_limited_per_player(database_url, wall):
    with TestClient(make_app(database_url, wall, chat_rate=0.01, chat_burst=2)) as client:
        ann, bob = players(client, "ann", "bob")
        match_id = live_match(ann, bob)
        assert say(ann, match_id, "one").status_code == 201
        assert say(ann, match_id, "two").status_code == 201
        r = say(ann, match_id, "three")
        assert "chat messages" in refused(r, 429, "rate_limited")
        assert int(r.headers["Retry-After"]) >= 1
        assert say(bob, match_id, "mine").status_code == 201  # a bucket per player
        assert [m["text"] for m in chat(bob, match_id)["messages"]] == ["one", "two", "mine"]


def test_a_refused_chat_line_costs_no_allowance(database_url, wall):
    # Lines refused as not yours (a mistyped match, a match you only watch) change nothing,
    # the rate limit's allowance included.
    with TestClient(make_app(database_url, wall, chat_rate=0.01, chat_burst=2)) as client:
        ann, bob, cyd = players(client, "ann", "bob", "cyd")
        match_id = live_match(ann, bob)
        for _ in range(3):
            refused(say(ann, "mat_nothing", "hello"), 404, "not_found")
            refused(say(cyd, match_id, "hello"), 403, "not_your_match")
        assert say(ann, match_id, "one").status_code == 201
        assert say(ann, match_id, "two").status_code == 201
        refused(say(ann, match_id, "three"), 429, "rate_limited")


def test_mute_hides_the_opponent_in_that_match_only(client):
    ann, bob = players(client, "ann", "bob")
    first, second = live_match(ann, bob), live_match(ann, bob)
    for match_id in (first, second):
        say(bob, match_id, "from bob")
        say(ann, match_id, "from ann")
    r = client.put(f"/api/matches/{first}/chat/mute", json={"muted": True}, headers=ann.headers)
    assert r.status_code == 200 and r.json()["muted"] is True
    assert [m["text"] for m in r.json()["messages"]] == ["from ann"]
    assert [m["text"] for m in chat(ann, second)["messages"]] == ["from bob", "from ann"]
    assert [m["text"] for m in chat(bob, first)["messages"]] == ["from bob", "from ann"]
    # Kept while muted, shown again once heard.
    say(bob, first, "while muted")
    r = client.put(f"/api/matches/{first}/chat/mute", json={"muted": False}, headers=ann.headers)
    assert [m["text"] for m in r.json()["messages"]] == ["from bob", "from ann", "while muted"]


def test_chat_frames_reach_the_players_sockets_not_spectators_nor_a_muter(client):
    ann, bob, cyd = players(client, "ann", "bob", "cyd")
    match_id = live_match(ann, bob)
    client.put(f"/api/matches/{match_id}/chat/mute", json={"muted": True}, headers=bob.headers)
    path = f"/ws/matches/{match_id}"
    with client.websocket_connect(path, headers=ann.headers) as a, \
            client.websocket_connect(path, headers=bob.headers) as b, \
            client.websocket_connect(path, headers=cyd.headers) as c:
        for ws in (a, b, c):
            until(ws, "state")
        # The players and the spectator hear the spectator come.
        assert [until(ws, "spectators")["count"] for ws in (a, b, c)] == [1, 1, 1]
        assert say(ann, match_id, XSS).status_code == 201
        assert say(bob, match_id, "bob here").status_code == 201
        assert [m["message"]["text"] for m in (until(a, "chat"), until(a, "chat"))] == [
            XSS, "bob here"]
        assert until(b, "chat")["message"]["text"] == "bob here"  # ann's line muted
        # The spectator heard no line: its next frame answers its ping.
        c.send_text(json.dumps({"type": "ping"}))
        assert c.receive_json() == {"type": "pong"}
        b.send_text(json.dumps({"type": "ping"}))
        assert until(b, "pong", skip=("spectators", "state")) == {"type": "pong"}


def until(ws, kind: str, skip=("state", "spectators", "commitment")) -> dict:
    """The next frame of type ``kind``, passing over those in ``skip`` (anything else fails)."""
    for _ in range(20):
        frame = ws.receive_json()
        if frame["type"] == kind:
            return frame
        assert frame["type"] in skip, frame
    raise AssertionError(f"no {kind}")


def test_a_block_list_keeps_players_apart(client):
    ann, bob, cyd = players(client, "ann", "bob", "cyd")
    open_seek = bob.post("/api/seeks", {"length": 1}).json()
    r = client.put("/api/blocks/BOB", headers=ann.headers)
    assert r.status_code == 200 and r.json() == {"blocked": ["bob"]}
    assert client.put("/api/blocks/bob", headers=ann.headers).json() == {"blocked": ["bob"]}
    # Neither sees the other's seeks, neither invites nor joins the other.
    assert open_seek["id"] not in [s["id"] for s in ann.get("/api/lobby").json()["seeks"]]
    assert open_seek["id"] in [s["id"] for s in cyd.get("/api/lobby").json()["seeks"]]
    refused(ann.post(f"/api/seeks/{open_seek['id']}/accept"), 403, "blocked")
    refused(bob.post("/api/seeks", {"invite": "ann"}), 403, "blocked")
    refused(ann.post("/api/seeks", {"invite": "bob"}), 403, "blocked")
    mine = ann.post("/api/seeks", {"length": 1}).json()
    refused(bob.post(f"/api/seeks/{mine['id']}/accept"), 403, "blocked")
    # Nothing changed: both seeks still open, no match made, no invitation.
    assert [s["id"] for s in bob.get("/api/lobby").json()["mine"]] == [open_seek["id"]]
    assert ann.get("/api/lobby").json()["matches"] == []
    assert bob.get("/api/notifications").json()["count"] == 0
    assert cyd.post(f"/api/seeks/{open_seek['id']}/accept").status_code == 201
    # Lifted by the one who blocked.
    refused(client.delete("/api/blocks/ann", headers=bob.headers), 404, "not_found")
    assert client.delete("/api/blocks/bob", headers=ann.headers).status_code == 204
    assert ann.get("/api/blocks").json() == {"blocked": []}
    assert bob.post("/api/seeks", {"invite": "ann"}).status_code == 201


def test_blocking_yourself_or_nobody_is_refused_and_the_list_unchanged(client):
    ann, bob = players(client, "ann", "bob")
    client.put("/api/blocks/bob", headers=ann.headers)
    assert "yourself" in refused(client.put("/api/blocks/Ann", headers=ann.headers), 422,
                                 "block_self")
    refused(client.put("/api/blocks/nobody", headers=ann.headers), 404, "not_found")
    client.cookies.clear()
    refused(client.put("/api/blocks/bob"), 401, "not_authenticated")
    assert ann.get("/api/blocks").json() == {"blocked": ["bob"]}


def test_a_block_made_during_a_match_silences_its_chat_both_ways(client):
    ann, bob = players(client, "ann", "bob")
    match_id = live_match(ann, bob)
    say(ann, match_id, "before")
    client.put("/api/blocks/ann", headers=bob.headers)
    say(ann, match_id, "after")
    assert [m["text"] for m in chat(bob, match_id)["messages"]] == []
    assert [m["text"] for m in chat(ann, match_id)["messages"]] == ["before", "after"]


def test_two_accounts_in_one_browser_are_told_apart(client):
    ann, bob = players(client, "ann", "bob")
    match_id = live_match(ann, bob)
    # The browser's cookie is now bob's while a tab still believes it is ann.
    as_ann = {**bob.headers, "X-Boardgammon-As": "ann"}
    message = refused(client.post(f"/api/matches/{match_id}/chat", json={"text": "hi"},
                                  headers=as_ann), 409, "session_changed")
    assert "bob" in message and "ann" in message
    refused(client.put("/api/blocks/ann", headers=as_ann), 409, "session_changed")
    refused(client.get("/api/notifications", headers=as_ann), 409, "session_changed")
    assert chat(ann, match_id)["messages"] == [] and bob.get("/api/blocks").json()["blocked"] == []
    ok = client.post(f"/api/matches/{match_id}/chat", json={"text": "hi"},
                     headers={**bob.headers, "X-Boardgammon-As": "BOB"})
    assert ok.status_code == 201


def test_the_watch_list_shows_matches_being_played_with_spectators(client):
    ann, bob, cyd = players(client, "ann", "bob", "cyd")
    match_id = live_match(ann, bob, length=3)
    client.post("/api/matches/computer", json={"level": "easy", "length": 1},
                headers=cyd.headers)
    listed = client.get("/api/watch").json()  # anyone may watch, signed in or not
    ours = next(m for m in listed if m["match_id"] == match_id)
    # Full accounts start at 1500 (docs/ratings.md); the computer has no rating.
    assert ours["players"] == [{"name": "ann", "rating": 1500.0},
                               {"name": "bob", "rating": 1500.0}]
    assert ours["score"] == [0, 0] and ours["length"] == 3 and ours["spectators"] == 0
    assert ours["watch_url"] == f"/match/{match_id}"
    computer = next(m for m in listed if m["match_id"] != match_id)
    assert computer["players"][1]["name"] == "Computer (easy)"
    with client.websocket_connect(f"/ws/matches/{match_id}", headers=bob.headers) as seated:
        until(seated, "state")
        with client.websocket_connect(f"/ws/matches/{match_id}") as watcher:
            until(watcher, "state")
            assert until(seated, "spectators")["count"] == 1
            # A player who connects now is told the count at once.
            with client.websocket_connect(f"/ws/matches/{match_id}", headers=ann.headers) as late:
                assert until(late, "spectators")["count"] == 1
            counts = {m["match_id"]: m["spectators"] for m in client.get("/api/watch").json()}
            assert counts[match_id] == 1
        assert until(seated, "spectators")["count"] == 0
    assert next(m for m in client.get("/api/watch").json()
                if m["match_id"] == match_id)["spectators"] == 0


def test_finished_matches_leave_the_watch_list(client):
    ann, bob = players(client, "ann", "bob")
    match_id = live_match(ann, bob)
    state = ann.state(match_id)
    r = ann.act(match_id, "resign", points=3) if state["phase"] != "opening" else None
    while r is None:
        step({0: ann, 1: bob}, match_id)
        state = ann.state(match_id)
        if state["phase"] in ("roll", "play") and state["turn"] == 0:
            r = ann.act(match_id, "resign", points=3)
    assert r.status_code == 200, r.text
    assert bob.act(match_id, "accept_resign").status_code == 200
    assert match_id not in [m["match_id"] for m in client.get("/api/watch").json()]


def test_notifications_list_turns_with_time_left_and_invitations(client, wall):
    ann, bob, cyd = players(client, "ann", "bob", "cyd")
    match_id = live_match(ann, bob, mode="correspondence", days=1)
    invite = cyd.post("/api/seeks", {"invite": "ann", "length": 5}).json()
    waiting = ann.state(match_id)["turn"]
    me, other = (ann, bob) if waiting == 0 else (bob, ann)
    items = me.get("/api/notifications").json()["items"]
    turn = next(i for i in items if i["kind"] == "turn")
    assert turn["match_id"] == match_id and turn["opponent"] == other.name
    grace = CORRESPONDENCE_GRACE_PER_POINT  # the reserve of a 1-point match, after the day
    assert turn["seconds_left"] == pytest.approx(86400.0 + grace) and turn["urgent"] is False
    assert not [i for i in other.get("/api/notifications").json()["items"] if i["kind"] == "turn"]
    wall.advance(86400 * 0.75)  # 6 h of the day left: not yet a fifth
    turn = next(i for i in me.get("/api/notifications").json()["items"] if i["kind"] == "turn")
    assert turn["urgent"] is False
    wall.advance(86400 * 0.1)  # 3.6 h left: flagged
    turn = next(i for i in me.get("/api/notifications").json()["items"] if i["kind"] == "turn")
    assert turn["seconds_left"] == pytest.approx(86400 * 0.15 + grace) and turn["urgent"] is True
    invitation = next(i for i in ann.get("/api/notifications").json()["items"]
                      if i["kind"] == "invitation")
    assert invitation == {"kind": "invitation", "match_id": None, "seek_id": invite["id"],
                          "opponent": "cyd", "length": 5, "variant": "standard",
                          "deadline": None, "seconds_left": None, "urgent": False,
                          "url": f"/join/{invite['id']}"}
    client.cookies.clear()
    refused(client.get("/api/notifications"), 401, "not_authenticated")


def test_my_socket_hears_invitations_and_turns(client):
    ann, bob = players(client, "ann", "bob")
    with client.websocket_connect("/ws/me", headers=bob.headers) as me:
        assert me.receive_json() == {"type": "hello",
                                     "user": {"id": bob.user["id"], "username": "bob"}}
        invite = ann.post("/api/seeks", {"invite": "bob"}).json()
        assert me.receive_json() == {"type": "invitation", "seek_id": invite["id"],
                                     "from": "ann"}
        match_id = bob.post(f"/api/seeks/{invite['id']}/accept").json()["match_id"]
        # Play until the turn passes to bob from ann: bob's page hears it once.
        for _ in range(10):
            before = ann.state(match_id)["turn"]
            step({0: ann, 1: bob}, match_id)
            if before == 0 and ann.state(match_id)["turn"] == 1:
                break
        assert me.receive_json() == {"type": "turn", "match_id": match_id}
        me.send_text("ping")
        assert me.receive_json() == {"type": "pong"}


def test_my_socket_refuses_without_a_session(client):
    with client.websocket_connect("/ws/me", headers={"Authorization": "Bearer nonsense"}) as me:
        frame = me.receive_json()
        assert frame["type"] == "error" and frame["error"]["code"] == "not_authenticated"
