"""Live play: WebSocket events between two clients, reconnecting, the message parser (fuzzed),
clocks and flags and correspondence deadlines with an injected wall clock."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient
from gameplay import Player, SocketRolls, Wall, both_moved, live_match, make_app, step
from hypothesis import given, settings
from hypothesis import strategies as st

from boardgammon.server.actions import ActionMessage, PingMessage, parse_client_message
from boardgammon.server.errors import http_status
from boardgammon.server.refusals import Refusal
from boardgammon.server.services import services


def receive_until(ws, kind: str, limit: int = 50) -> list[dict]:
    """Messages up to and including the first of type ``kind``."""
    got = []
    for _ in range(limit):
        got.append(ws.receive_json())
        if got[-1]["type"] == kind:
            return got
    raise AssertionError(f"no {kind} in {[m['type'] for m in got]}")


def test_websocket_match_between_two_clients(sqlite_url):
    with TestClient(make_app(sqlite_url)) as client:
        ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
        match_id = live_match(ann, bob)
        with client.websocket_connect(f"/ws/matches/{match_id}", headers=ann.headers) as wa, \
                client.websocket_connect(f"/ws/matches/{match_id}", headers=bob.headers) as wb:
            first_a, first_b = wa.receive_json(), wb.receive_json()
            assert first_a["type"] == first_b["type"] == "state"
            kept = {0: SocketRolls(), 1: SocketRolls()}
            kept[0].take([first_a]), kept[1].take([first_b])
            assert (first_a["state"]["you"], first_b["state"]["you"]) == (0, 1)
            wa.send_json({"type": "ping"})
            assert wa.receive_json() == {"type": "pong"}
            wa.send_text("{not json")
            error = wa.receive_json()
            assert error["type"] == "error" and error["error"]["code"] == "invalid_request"
            sockets = {0: wa, 1: wb}
            players = {0: ann, 1: bob}
            seen: list[str] = []
            for n in range(12):
                state = ann.state(match_id)
                seat = state["turn"]
                me = players[seat]
                mine = me.state(match_id)
                if mine["phase"] in ("opening", "roll"):
                    action = {"type": "roll", **me.roll_action(mine)}
                else:
                    action = {"type": "play", "play": mine["legal_plays"][0]["notation"]}
                action["action_id"] = f"ws{n}"
                sockets[seat].send_json({"type": "action", "action": action})
                got = receive_until(sockets[seat], "ack")
                kept[seat].take(got)
                assert got[-1] == {"type": "ack", "action_id": f"ws{n}"}
                theirs = receive_until(sockets[1 - seat], "state")
                kinds = [m["type"] for m in theirs]
                seen += kinds
                assert kinds[0] == action["type"]
                assert theirs[-1]["state"]["you"] == 1 - seat
                # The state with the rolls this socket was sent before is the whole state.
                assert kept[1 - seat].take(theirs) == players[1 - seat].state(match_id)
            assert {"roll", "play", "commitment", "state"} <= set(seen)
            # Each revealed roll went once to each socket: only the first state started at 0.
            rolls = ann.state(match_id)["rolls"]
            assert len(rolls) >= 4 and kept[1].rolls == rolls[:len(kept[1].rolls)]
            assert kept[1].starts[0] == 0 and max(kept[1].starts) > 0
            assert all(start > 0 for start in kept[1].starts if start)
            bad = {"type": "action", "action": {"action_id": "x1", "type": "play", "play": "1/0"}}
            other = 1 - ann.state(match_id)["turn"]
            sockets[other].send_json(bad)
            error = receive_until(sockets[other], "error")[-1]
            assert error["action_id"] == "x1" and error["error"]["code"] in (
                "not_your_turn", "wrong_phase")
        # Reconnecting resumes exactly where the match is.
        with client.websocket_connect(f"/ws/matches/{match_id}", headers=bob.headers) as wb:
            assert wb.receive_json()["state"] == bob.state(match_id)
        # A spectator sees the state and cannot act.
        client.cookies.clear()
        with client.websocket_connect(f"/ws/matches/{match_id}") as ws:
            state = ws.receive_json()["state"]
            assert state["you"] is None and state["legal_plays"] == []
            ws.send_json({"type": "action", "action": {"action_id": "s", "type": "double"}})
            # Its own arrival's spectator count comes first (spectators see the count too).
            assert ws.receive_json() == {"type": "spectators", "count": 1}
            assert ws.receive_json()["error"]["code"] == "not_authenticated"


def test_a_resent_action_is_answered_to_its_sender_only(sqlite_url):
    """A resend applies nothing, so it tells the other clients nothing: only the sender gets
    its ack (and, over HTTP, the first result's events again)."""
    with TestClient(make_app(sqlite_url)) as client:
        ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
        match_id = live_match(ann, bob)
        with client.websocket_connect(f"/ws/matches/{match_id}", headers=ann.headers) as wa, \
                client.websocket_connect(f"/ws/matches/{match_id}", headers=bob.headers) as wb:
            wa.receive_json(), wb.receive_json()
            roll = {"type": "action", "action": {"action_id": "r1", "type": "roll",
                                                 **ann.roll_action(ann.state(match_id))}}
            wa.send_json(roll)
            assert receive_until(wa, "ack")[-1] == {"type": "ack", "action_id": "r1"}
            first = [m["type"] for m in receive_until(wb, "state")]
            assert first[0] == "roll"
            before = bob.state(match_id)
            resends = (lambda: wa.send_json(roll),
                       lambda: ann.post(f"/api/matches/{match_id}/actions", roll["action"]))
            for resend in resends:
                answer = resend()
                if answer is None:  # over the WebSocket: the sender's ack and state
                    assert receive_until(wa, "ack")[-1] == {"type": "ack", "action_id": "r1"}
                    assert wa.receive_json()["type"] == "state"
                else:  # over HTTP: the first result's events again
                    assert answer.status_code == 200
                    assert [e["type"] for e in answer.json()["events"]][0] == "roll"
                # Bob's next message answers his own ping: nothing was broadcast to him.
                wb.send_json({"type": "ping"})
                assert wb.receive_json() == {"type": "pong"}
            assert bob.state(match_id) == before


def test_websocket_unknown_match(sqlite_url):
    with TestClient(make_app(sqlite_url)) as client:
        with client.websocket_connect("/ws/matches/mat_nothing") as ws:
            assert ws.receive_json()["error"]["code"] == "not_found"


@given(st.one_of(st.text(max_size=300), st.binary(max_size=300),
                 st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                              lambda c: st.lists(c, max_size=4)
                              | st.dictionaries(st.sampled_from(
                                  ["type", "action", "action_id", "play", "points", "roll_id",
                                   "entropy", "commitment", "x"]), c, max_size=5),
                              max_leaves=20).map(json.dumps)))
@settings(max_examples=400, deadline=None)
def test_parser_never_fails_unexpectedly(frame):
    """Any frame parses to a message or is refused with 422 invalid_request."""
    try:
        message = parse_client_message(frame)
    except Refusal as exc:
        assert (http_status(exc), exc.code) == (422, "invalid_request") and exc.message
    else:
        assert isinstance(message, ActionMessage | PingMessage)


# Any action_id without a control character or a lone surrogate (those are refused: see
# test_control_characters.py and test_lone_surrogates.py).
@given(st.sampled_from(["double", "take", "drop", "accept_resign", "decline_resign"]),
       st.text(st.characters(exclude_categories=("Cc", "Cs")), min_size=1, max_size=100))
def test_parser_accepts_every_simple_action(kind, action_id):
    message = parse_client_message(json.dumps(
        {"type": "action", "action": {"action_id": action_id, "type": kind}}))
    assert message.action.model_dump() == {"action_id": action_id, "type": kind}


@pytest.mark.parametrize(("frame", "message"), [
    ({}, "message: 'type' is required"),
    ([], "message: expected a JSON object, got []"),
    ({"type": "bogus"}, "message: 'type' 'bogus' is not one of 'action', 'ping', 'auth'"),
    ({"type": "ping", "x": 1}, "x: unknown field"),
    ({"type": "auth"}, "token: field required"),
    ({"type": "action"}, "action: field required"),
    ({"type": "action", "action": "double"}, 'action: expected a JSON object, got "double"'),
    ({"type": "action", "action": {"action_id": "a"}}, "action: 'type' is required"),
    ({"type": "action", "action": {"type": "play"}},
     "action.action_id: field required; action.play: field required"),
    ({"type": "action", "action": {"type": "play", "action_id": "a", "play": 5}},
     "action.play: expected a string, got 5"),
    ({"type": "action", "action": {"type": "resign", "action_id": "a", "points": 4}},
     "action.points: expected one of 1, 2, 3, got 4"),
    ({"type": "action", "action": {"type": "double", "action_id": "a", "auto": True}},
     "action.auto: unknown field"),
    ({"type": 5}, "message: 'type' 5 is not one of 'action', 'ping', 'auth'"),
    ({"type": "action", "action": {"type": "double", "action_id": ""}},
     'action.action_id: expected at least 1 character, got ""'),
])
def test_a_message_that_does_not_fit_names_the_field_and_the_problem(frame, message):
    with pytest.raises(Refusal) as refused:
        parse_client_message(json.dumps(frame))
    assert (refused.value.code, refused.value.message) == ("invalid_request", message)


@pytest.mark.parametrize(("action", "field", "problem"), [
    ({"type": "play"}, ".play", "field required"),
    ({"type": "play", "play": ["8/5"]}, ".play", 'expected a string, got ["8/5"]'),
    ({"type": "double", "x": 1}, ".x", "unknown field"),
    ({"type": "fly"}, "", "'type' 'fly' is not one of 'roll', 'play', 'resign', 'double', "
                          "'take', 'drop', 'accept_resign', 'decline_resign', 'anchor', "
                          "'contribute'"),
])
def test_a_bad_action_is_worded_alike_over_http_and_the_socket(sqlite_url, action, field,
                                                                problem):
    with TestClient(make_app(sqlite_url)) as client:
        ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
        match_id = live_match(ann, bob)
        before = ann.state(match_id)
        action = {"action_id": "a1", **action}
        r = ann.post(f"/api/matches/{match_id}/actions", action)
        assert (r.status_code, r.json()["error"]) == (422, {
            "code": "invalid_request", "message": f"body{field}: {problem}"})
        with client.websocket_connect(f"/ws/matches/{match_id}", headers=ann.headers) as ws:
            assert ws.receive_json()["type"] == "state"
            ws.send_json({"type": "action", "action": action})
            assert ws.receive_json() == {
                "type": "error", "action_id": "a1",
                "error": {"code": "invalid_request", "message": f"action{field}: {problem}"}}
        assert ann.state(match_id)["version"] == before["version"]
        assert ann.state(match_id) == before


def test_a_json_body_sent_as_text_is_refused_saying_so(sqlite_url):
    """A well-formed action sent with ``Content-Type: text/plain`` is not read as JSON: the
    refusal names the header rather than showing Python's bytes; a number too long for
    Python's reader is named as a cause; nothing changes."""
    with TestClient(make_app(sqlite_url)) as client:
        ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
        match_id = live_match(ann, bob)
        before = ann.state(match_id)
        r = client.post(f"/api/matches/{match_id}/actions",
                        content=json.dumps({"action_id": "a1", "type": "double"}),
                        headers={**ann.headers, "Content-Type": "text/plain"})
        assert (r.status_code, r.json()["error"]) == (422, {
            "code": "invalid_request",
            "message": "body: expected a JSON object sent with Content-Type: application/json; "
                       "this body was not read as JSON (its Content-Type is not JSON)"})
        # Valid JSON that Python will not read: a number of 5,000 digits.
        r = client.post(f"/api/matches/{match_id}/actions",
                        content='{"action_id": "a2", "type": "resign", "points": '
                                + "1" * 5000 + "}",
                        headers={**ann.headers, "Content-Type": "application/json"})
        assert (r.status_code, r.json()["error"]) == (422, {
            "code": "invalid_request",
            "message": "the request body could not be read as JSON (nested too deeply, or a "
                       "number too long to read)"})
        assert ann.state(match_id) == before


def tick(client) -> None:
    client.portal.call(services(client.app).game.tick)


def test_live_clock_delay_reserve_and_flag(sqlite_url):
    wall = Wall()
    with TestClient(make_app(sqlite_url, wall)) as client:
        ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
        match_id = live_match(ann, bob, clock="bullet")  # 5 s delay, 30 s per point
        players = {0: ann, 1: bob}
        while ann.state(match_id)["phase"] == "opening":
            step(players, match_id)
        state = ann.state(match_id)
        mover = state["turn"]
        assert state["clocks"]["running"] == mover and state["clocks"]["reserve"] == [30.0, 30.0]
        wall.advance(12.0)  # 5 s free, 7 s charged
        state = players[mover].state(match_id)
        assert state["clocks"]["reserve"][mover] == pytest.approx(23.0)
        assert state["clocks"]["delay_left"] == 0.0
        state = step(players, match_id)
        assert state["clocks"]["reserve"][mover] == pytest.approx(23.0)
        assert state["clocks"]["running"] == 1 - mover
        wall.advance(4.0)  # inside the delay: nothing charged
        step(players, match_id)
        assert ann.state(match_id)["clocks"]["reserve"][1 - mover] == pytest.approx(30.0)
        flagged = ann.state(match_id)["turn"]
        wall.advance(36.0)
        tick(client)
        state = ann.state(match_id)
        assert state["phase"] == "match_over"
        assert state["result"]["winner"] == 1 - flagged
        # the final score gives the winner the match (1 point), not 0-0
        assert state["result"]["score"][1 - flagged] == 1
        assert state["result"]["score"][flagged] == 0
        assert state["games"][-1] == {"game_number": 1, "winner": 1 - flagged, "points": 0,
                                      "how": "flag"}
        summary = ann.get("/api/matches").json()[0]
        assert summary["status"] == "finished" and sorted(summary["score"]) == [0, 1]
        r = players[flagged].act(match_id, "double")
        assert r.status_code == 409


def test_late_action_claims_the_flag(sqlite_url):
    wall = Wall()
    with TestClient(make_app(sqlite_url, wall)) as client:
        ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
        match_id = live_match(ann, bob, clock="bullet")
        players = {0: ann, 1: bob}
        seat = both_moved(players, match_id)["turn"]  # before a first move, a flag aborts
        wall.advance(40.0)
        state = players[seat].state(match_id)
        r = players[seat].act(match_id, "play", play=state["legal_plays"][0]["notation"])
        assert (r.status_code, r.json()["error"]["code"]) == (409, "time_expired")
        assert ann.state(match_id)["result"]["winner"] == 1 - seat


def test_correspondence_deadline(sqlite_url):
    wall = Wall()
    with TestClient(make_app(sqlite_url, wall)) as client:
        ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
        match_id = live_match(ann, bob, mode="correspondence", days=1)
        players = {0: ann, 1: bob}
        state = both_moved(players, match_id)  # before a first move, a flag aborts
        seat = state["turn"]
        assert state["clocks"] is None and state["deadline"] is not None
        summary = players[seat].get("/api/matches").json()[0]
        assert summary["your_turn"] is True and summary["deadline"] == state["deadline"]
        wall.advance(86400 - 10)
        tick(client)
        assert ann.state(match_id)["phase"] == "play"
        wall.advance(86400)  # well past the day and the grace
        tick(client)
        state = ann.state(match_id)
        assert state["phase"] == "match_over" and state["result"]["winner"] == 1 - seat
        assert state["games"][-1]["how"] == "flag"


@pytest.mark.parametrize(("settings", "late"), [
    ({"clock": "bullet"}, 5.0 + 30.0 + 1.0),  # 1-point bullet: 5 s delay + 30 s reserve
    ({"mode": "correspondence", "days": 1}, 86400.0 + 60.0 + 1.0),  # a day + 60 s grace
])
def test_an_opening_roll_never_rolled_aborts_the_match(sqlite_url, settings, late):
    wall = Wall()
    with TestClient(make_app(sqlite_url, wall)) as client:
        ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
        match_id = live_match(ann, bob, **settings)
        state = ann.state(match_id)
        assert state["phase"] == "opening" and state["turn"] == 0
        if state["clocks"] is not None:  # live: seat 0's clock runs for the opening roll
            assert state["clocks"]["running"] == 0
        else:  # correspondence: the deadline is shown from the start
            assert state["deadline"] is not None
        wall.advance(late - 2.0)
        tick(client)
        assert ann.state(match_id)["phase"] == "opening"  # not yet
        wall.advance(2.0)
        tick(client)
        state = bob.state(match_id)
        assert state["phase"] == "match_over"  # ann never came: nobody wins (test_match_abort.py)
        assert (state["result"]["winner"], state["result"]["aborted"]) == (None, 0)
        assert state["games"][-1]["how"] == "abort"


def test_a_huge_unknown_match_id_is_not_echoed_whole(sqlite_url):
    """Refusals quote what the client sent; a message is cut at MESSAGE_LIMIT characters."""
    from boardgammon.server.errors import MESSAGE_LIMIT

    huge = "mat_" + "x" * 20_000
    with TestClient(make_app(sqlite_url)) as client:
        ann = Player.register(client, "ann")
        r = ann.get(f"/api/matches/{huge}")  # not a match ID's shape: refused as such
        assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_request"
        message = r.json()["error"]["message"]
        assert len(message) <= MESSAGE_LIMIT and message.startswith(
            'path.match_id: a match ID looks like mat_… (letters and digits), got "mat_xxx')
        assert message.endswith("…") and "x" * 200 not in message
        with client.websocket_connect(f"/ws/matches/{huge}") as ws:
            error = ws.receive_json()["error"]
            assert error["code"] == "not_found" and len(error["message"]) == MESSAGE_LIMIT
        # A short one is quoted whole.
        r = ann.get("/api/matches/mat_nothing")
        assert r.json()["error"]["message"] == "no match 'mat_nothing'"


def test_a_socket_cannot_act_after_its_session_signed_out(sqlite_url):
    with TestClient(make_app(sqlite_url)) as client:
        ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
        match_id = live_match(ann, bob)
        with client.websocket_connect(f"/ws/matches/{match_id}", headers=ann.headers) as wa:
            wa.receive_json()
            before = ann.state(match_id)
            roll = {"type": "action", "action": {"action_id": "r1", "type": "roll",
                                                 **ann.roll_action(before)}}
            assert ann.post("/api/auth/logout").status_code == 204
            wa.send_json(roll)
            error = receive_until(wa, "error")[-1]
            assert error["action_id"] == "r1"
            assert error["error"]["code"] == "not_authenticated"
            assert "signed out" in error["error"]["message"]
            # Nothing happened: bob (still signed in) sees the match as it was.
            assert bob.state(match_id)["pending_roll"] == before["pending_roll"]
            assert bob.state(match_id)["rolls"] == []
