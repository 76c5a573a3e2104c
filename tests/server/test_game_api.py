"""API tests of the game server over HTTP: accounts, lobby, every refusal, idempotent actions,
the dice protocol in the state, cube and resignations, match end and the downloads."""

from __future__ import annotations

import hashlib
import os

import pytest
from fastapi.testclient import TestClient
from gameplay import PASSWORD, Player, computer_waits, live_match, make_app, play_out, step

from boardgammon.dice.verify import derive_dice
from boardgammon.engine.board import Board
from boardgammon.engine.match import Match
from boardgammon.server.match_state import last_play
from boardgammon.server.move_list import move_list


@pytest.fixture
def client(sqlite_url):
    with TestClient(make_app(sqlite_url)) as c:
        yield c


@pytest.fixture
def ann(client):
    return Player.register(client, "ann")


@pytest.fixture
def bob(client):
    return Player.register(client, "bob")


def code(response) -> str:
    return response.json()["error"]["code"]


def opened(ann: Player, bob: Player, **seek) -> tuple[str, dict[int, Player]]:
    """A match past its opening roll; the players by seat."""
    match_id = live_match(ann, bob, **seek)
    players = {0: ann, 1: bob}
    while ann.state(match_id)["phase"] == "opening":
        step(players, match_id)
    return match_id, players


def test_register_login_me_logout(client, ann):
    r = client.post("/api/auth/register", json={"username": "Cleo", "password": PASSWORD})
    assert r.status_code == 201
    assert "httponly" in r.headers["set-cookie"].lower()
    assert "samesite=lax" in r.headers["set-cookie"].lower()
    assert r.json()["user"] == {"id": r.json()["user"]["id"], "username": "Cleo",
                                "guest": False}
    assert client.get("/api/me").json()["user"]["username"] == "Cleo"  # by cookie
    assert ann.get("/api/me").json()["user"]["username"] == "ann"  # bearer wins
    r = client.post("/api/auth/register", json={"username": "CLEO", "password": PASSWORD})
    assert (r.status_code, code(r)) == (409, "username_taken")
    r = client.post("/api/auth/login", json={"username": "cleo", "password": "wrong password"})
    assert (r.status_code, code(r)) == (401, "bad_credentials")
    r = client.post("/api/auth/login", json={"username": "nobody", "password": PASSWORD})
    assert (r.status_code, code(r)) == (401, "bad_credentials")
    r = client.post("/api/auth/login", json={"username": "cleo", "password": PASSWORD})
    assert r.status_code == 200
    token = r.json()["token"]
    auth = {"Authorization": f"Bearer {token}"}
    assert client.post("/api/auth/logout", headers=auth).status_code == 204
    client.cookies.clear()
    r = client.get("/api/me", headers=auth)
    assert (r.status_code, code(r)) == (401, "not_authenticated")


@pytest.mark.parametrize("body", [{"username": "ab", "password": PASSWORD},
                                  {"username": "has space", "password": PASSWORD},
                                  {"username": "okname", "password": "short"},
                                  {"username": "okname"}])
def test_register_refuses_malformed(client, body):
    r = client.post("/api/auth/register", json=body)
    assert (r.status_code, code(r)) == (422, "invalid_request")


def test_guest_upgrade(client, ann):
    r = client.post("/api/auth/guest")
    assert r.status_code == 201
    user = r.json()["user"]
    assert user["guest"] is True and user["username"].startswith("guest-")
    guest = Player(client, user["username"], r.json()["token"], user)
    r = guest.post("/api/auth/upgrade", {"username": "ann", "password": PASSWORD})
    assert (r.status_code, code(r)) == (409, "username_taken")
    r = guest.post("/api/auth/upgrade", {"username": "dora", "password": PASSWORD})
    assert r.json()["user"] == {"id": user["id"], "username": "dora", "guest": False}
    r = guest.post("/api/auth/upgrade", {"username": "dora2", "password": PASSWORD})
    assert (r.status_code, code(r)) == (409, "not_a_guest")
    r = client.post("/api/auth/login", json={"username": "dora", "password": PASSWORD})
    assert r.json()["user"]["id"] == user["id"]


def test_login_rate_limit(sqlite_url):
    with TestClient(make_app(sqlite_url, login_rate=0.01, login_burst=3)) as client:
        Player.register(client, "eve")
        answers = [client.post("/api/auth/login", json={"username": "eve", "password": "x" * 9})
                   for _ in range(4)]
        assert [a.status_code for a in answers] == [401, 401, 401, 429]
        assert code(answers[3]) == "rate_limited"
        assert int(answers[3].headers["Retry-After"]) >= 1


def test_login_attempts_on_many_names_from_one_address_are_limited(sqlite_url):
    """One password tried on every account from one address: the per-name buckets never
    empty, the address's does."""
    with TestClient(make_app(sqlite_url, address_login_rate=0.01,
                             address_login_burst=5)) as client:
        answers = [client.post("/api/auth/login",
                               json={"username": f"user{n}", "password": "x" * 9})
                   for n in range(6)]
        assert [a.status_code for a in answers] == [401] * 5 + [429]
        assert answers[5].json()["error"]["message"].startswith(
            "too many sign-in attempts from this address; try again in")


def test_options(client):
    options = client.get("/api/options").json()
    assert options["lengths"] == [1, 3, 5, 7, 11] and options["default_length"] == 5
    assert options["variants"] == ["standard", "nackgammon", "hypergammon"]
    assert {"name": "rapid", "delay": 12.0, "reserve_per_point": 120.0} in \
        options["clock_presets"]
    assert len(options["clock_presets"]) == 5
    assert options["correspondence_days"] == [1, 3, 7]
    assert "easy" in options["bot_levels"]


def test_seeks_invitations_and_refusals(client, ann, bob):
    cleo = Player.register(client, "cleo")
    r = ann.post("/api/seeks", {"length": 3, "mode": "live", "clock": "blitz"})
    assert r.status_code == 201
    seek = r.json()
    assert seek["join_url"] == f"/join/{seek['id']}" and seek["owner"] == "ann"
    assert [s["id"] for s in bob.get("/api/lobby").json()["seeks"]] == [seek["id"]]
    invite = ann.post("/api/seeks", {"mode": "correspondence", "days": 7, "invite": "bob"}).json()
    assert invite["days"] == 7 and invite["invite"] == "bob" and invite["length"] == 5
    assert [s["id"] for s in bob.get("/api/lobby").json()["invitations"]] == [invite["id"]]
    assert cleo.get("/api/lobby").json()["invitations"] == []
    assert invite["id"] not in [s["id"] for s in cleo.get("/api/lobby").json()["seeks"]]
    for response, expected in [
        (cleo.post(f"/api/seeks/{invite['id']}/accept"), (403, "not_invited")),
        (ann.post(f"/api/seeks/{seek['id']}/accept"), (409, "own_seek")),
        (bob.client.delete(f"/api/seeks/{seek['id']}", headers=bob.headers),
         (403, "not_your_seek")),
        (ann.post("/api/seeks", {"invite": "nobody"}), (404, "not_found")),
        (ann.post("/api/seeks", {"mode": "live", "days": 3}), (422, "invalid_request")),
        (ann.post("/api/seeks", {"clock": "glacial"}), (422, "invalid_request")),
        (ann.post("/api/seeks", {"length": 4}), (422, "invalid_request")),
        (ann.post("/api/seeks", {"invite": "ann"}), (422, "invalid_request")),
        (client.post("/api/seeks", json={}, headers={"Authorization": "Bearer nope"}),
         (401, "not_authenticated")),
    ]:
        assert (response.status_code, code(response)) == expected, response.text
    assert ann.client.delete(f"/api/seeks/{seek['id']}", headers=ann.headers).status_code == 204
    r = bob.post(f"/api/seeks/{seek['id']}/accept")
    assert (r.status_code, code(r)) == (409, "seek_closed")  # withdrawn
    r = bob.post(f"/api/seeks/{invite['id']}/accept")
    assert r.status_code == 201
    match_id = r.json()["match_id"]
    state = bob.state(match_id)
    assert state["mode"] == "correspondence" and state["you"] == 1
    assert [p["username"] for p in state["players"]] == ["ann", "bob"]
    # The opening roll is on the clock from the start: the test wall clock's start
    # (2025-12-01 00:00 UTC) + 7 days' delay + 5 points x 60 s correspondence grace.
    assert state["deadline"] == "2025-12-08T00:05:00Z"
    summary = ann.get("/api/matches").json()
    assert summary[0]["match_id"] == match_id and summary[0]["opponent"] == "bob"
    assert summary[0]["your_turn"] is True  # seat 0 rolls the first opening roll
    assert bob.get("/api/matches").json()[0]["your_turn"] is False


def test_initial_state_and_dice_protocol(client, ann, bob):
    match_id = live_match(ann, bob)
    state = ann.state(match_id)
    assert state["phase"] == "opening" and state["turn"] == 0 and state["score"] == [0, 0]
    assert state["board"]["points"][0][6] == 5 and state["board"]["points"][1][24] == 2
    assert state["pip_counts"] == [167, 167] and state["position_id"] == "4HPwATDgc/ABMA"
    pending = state["pending_roll"]
    assert set(pending) == {"roll_id", "seat", "nonce", "commitment"} and pending["seat"] == 0
    assert state["rolls"] == [] and state["legal_plays"] == []
    r = ann.roll(match_id)
    assert r.status_code == 200, r.text
    roll = next(e for e in r.json()["events"] if e["type"] == "roll")
    assert roll["roll_id"] == pending["roll_id"] and roll["entropy_source"] == "client"
    seed = bytes.fromhex(roll["server_seed"])
    assert hashlib.sha256(seed).hexdigest() == pending["commitment"]
    assert list(derive_dice(seed, match_id, roll["roll_id"], roll["nonce"],
                            bytes.fromhex(roll["client_entropy"]))) == roll["dice"]
    assert r.json()["state"]["rolls"][0] == {k: roll[k] for k in roll if k != "type"}


def test_legal_plays_carry_the_position_after_each_play(client, ann, bob):
    """Each legal play's ``position_id`` is the position it leaves, from the opponent's view
    (the one who rolls next), as the engine encodes it play by play."""
    players = {0: ann, 1: bob}
    match_id = live_match(ann, bob)
    checked = 0
    for _ in range(40):
        state = step(players, match_id)
        mover = players[state["turn"]].state(match_id) if state["turn"] is not None else state
        if mover["phase"] != "play" or not mover["legal_plays"]:
            continue
        board = Board.from_position_id(mover["position_id"])
        expected = {str(p): p.after.swapped().position_id
                    for p in board.legal_plays(*mover["dice"])}
        assert {p["notation"]: p["position_id"] for p in mover["legal_plays"]} == expected
        checked += 1
    assert checked >= 10


def test_refusals_leave_the_match_unchanged(client, ann, bob):
    cleo = Player.register(client, "cleo")
    match_id = live_match(ann, bob)
    before = ann.state(match_id)
    good = ann.roll_action(before)
    cases = [
        (cleo.act(match_id, "roll", **good), (403, "not_your_match")),
        (ann.act("mat_unknown", "roll", **good), (404, "not_found")),
        (bob.act(match_id, "roll", **bob.roll_action(before)), (409, "not_your_turn")),
        (ann.act(match_id, "roll", **{**good, "entropy": "abc"}), (422, "bad_entropy")),
        (ann.act(match_id, "roll", **{**good, "commitment": "0" * 64}),
         (400, "commitment_mismatch")),
        (ann.act(match_id, "roll", **{**good, "roll_id": "rol_other"}),
         (400, "roll_mismatch")),
        # Of another shape than a roll ID or a commitment: malformed, not someone else's.
        (ann.act(match_id, "roll", **{**good, "roll_id": "xyz"}), (422, "invalid_request")),
        (ann.act(match_id, "roll", **{**good, "commitment": "zz"}), (422, "invalid_request")),
        (ann.act(match_id, "play", play="8/5 6/5"), (400, "wrong_phase")),
        (ann.act(match_id, "double"), (400, "wrong_phase")),
        (ann.act(match_id, "fly"), (422, "invalid_request")),
        (ann.act(match_id, "resign", points=4), (422, "invalid_request")),
        (ann.act(match_id, "roll", auto=True, **good), (422, "invalid_request")),
    ]
    client.cookies.clear()
    cases.append((client.post(f"/api/matches/{match_id}/actions",
                              json={"action_id": "x", "type": "double"}),
                  (401, "not_authenticated")))
    for response, expected in cases:
        assert (response.status_code, code(response)) == expected, response.text
    assert ann.state(match_id) == before
    assert cases[6][0].json()["error"]["message"] == (
        'body.roll_id: a roll ID looks like rol_… (letters and digits), got "xyz"')
    assert cases[7][0].json()["error"]["message"] == (
        'body.commitment: expected exactly 64 hex characters (0-9, a-f), got "zz"')
    match_id, players = opened(ann, bob)
    mover = players[ann.state(match_id)["turn"]]
    state = mover.state(match_id)
    r = mover.act(match_id, "play", play="24/1")
    assert (r.status_code, code(r)) == (400, "illegal_play")
    assert r.json()["error"]["message"]
    assert mover.state(match_id) == state


def test_a_dance_with_a_legal_play_is_refused_saying_so(client, ann, bob):
    match_id, players = opened(ann, bob)
    mover = players[ann.state(match_id)["turn"]]
    state = mover.state(match_id)
    d1, d2 = state["dice"]
    r = mover.act(match_id, "play", play="")
    assert (r.status_code, r.json()["error"]) == (400, {
        "code": "illegal_play",
        "message": f"you can play {d1}-{d2}: a dance is only for a roll with no legal play"})
    after = mover.state(match_id)
    assert after["version"] == state["version"]
    assert after == state


def test_entropy_is_exactly_32_hex_characters(client, ann, bob):
    match_id = live_match(ann, bob)
    before = ann.state(match_id)
    hex32 = os.urandom(16).hex()
    # bytes.fromhex would take each of these for 16 bytes.
    for entropy in (" ".join(hex32[i:i + 2] for i in range(0, 32, 2)), f" {hex32}",
                    f"{hex32}\n", f"{hex32[:16]} {hex32[16:]}"):
        r = ann.act(match_id, "roll", **ann.roll_action(before, entropy=entropy))
        assert (r.status_code, code(r)) == (422, "bad_entropy"), entropy
        assert "32 hex characters" in r.json()["error"]["message"]
    assert ann.state(match_id) == before
    # Entropy and commitment in either case (a commitment is hex as any other).
    body = ann.roll_action(before, entropy=hex32.upper())
    r = ann.act(match_id, "roll", action_id="up",
                **{**body, "commitment": body["commitment"].upper()})
    assert r.status_code == 200, r.text
    roll = next(e for e in r.json()["events"] if e["type"] == "roll")
    assert roll["client_entropy"] == hex32
    assert roll["commitment"] == body["commitment"].lower()
    # ... and so is its resend: the same action, answered with the roll's own events (the
    # first answer also carried what followed, the next commitment after an opening double).
    again = ann.act(match_id, "roll", action_id="up", **body)
    assert again.status_code == 200, again.text
    replayed = again.json()["events"]
    assert replayed[0] == roll and replayed == r.json()["events"][:len(replayed)]


def test_a_rolled_roll_is_only_resent_as_is(client, ann, bob):
    match_id = live_match(ann, bob)
    body = ann.roll_action(ann.state(match_id))
    first = ann.act(match_id, "roll", action_id="r1", **body)
    assert first.status_code == 200, first.text
    after = ann.state(match_id)
    other = os.urandom(16).hex()
    refused = [
        ann.act(match_id, "roll", action_id="r1", **{**body, "commitment": "0" * 64}),
        ann.act(match_id, "roll", action_id="r1", **{**body, "entropy": other}),
        ann.act(match_id, "roll", action_id="r2", **{**body, "commitment": "0" * 64}),
        ann.act(match_id, "roll", action_id="r3", **{**body, "entropy": other}),
    ]
    for r in refused:
        assert (r.status_code, code(r)) == (409, "already_rolled"), r.text
    assert ann.state(match_id) == after
    # The exact resend, under its own action_id or a new one, is answered as before.
    for action_id in ("r1", "r4"):
        r = ann.act(match_id, "roll", action_id=action_id, **body)
        assert r.status_code == 200, r.text
        assert r.json()["state"]["rolls"] == after["rolls"]
    assert ann.state(match_id) == after


def test_actions_are_idempotent(client, ann, bob):
    match_id = live_match(ann, bob)
    body = ann.roll_action(ann.state(match_id))
    first = ann.act(match_id, "roll", action_id="same", **body)
    again = ann.act(match_id, "roll", action_id="same", **body)
    assert first.status_code == again.status_code == 200
    # The resend answers the action's own events (the roll and any game end); the first
    # answer also carries what followed (e.g. the next commitment after a tie).
    events = first.json()["events"]
    assert again.json()["events"] == events[:len(again.json()["events"])]
    assert again.json()["events"][0]["type"] == "roll"
    assert again.json()["state"]["rolls"] == first.json()["state"]["rolls"]
    r = bob.act(match_id, "double", action_id="same")
    assert (r.status_code, code(r)) == (409, "duplicate_action_id")
    record = Match.from_dict(ann.get(f"/api/matches/{match_id}/export.json").json()).record
    assert sum(a.kind == "opening" for a in record) == 1


def test_cube_drop_and_resignation(client, ann, bob):
    match_id, players = opened(ann, bob, length=3)
    state = step(players, match_id)  # the opening play; the other seat is on roll
    doubler = players[state["turn"]]
    taker = players[1 - state["turn"]]
    assert doubler.state(match_id)["cube"] == {"value": 1, "owner": None, "available": True}
    r = taker.act(match_id, "double")
    assert (r.status_code, code(r)) == (409, "not_your_turn")
    r = doubler.act(match_id, "double")
    assert [e for e in r.json()["events"] if e["type"] == "cube"] == \
        [{"type": "cube", "seat": doubler.user["id"] and state["turn"], "action": "double",
          "value": 2}]
    r = taker.act(match_id, "take")
    assert r.json()["state"]["cube"]["value"] == 2
    assert r.json()["state"]["cube"]["owner"] == 1 - state["turn"]
    assert r.json()["state"]["pending_roll"]["seat"] == state["turn"]  # the same roll waits
    r = doubler.act(match_id, "resign", points=1)
    assert r.json()["state"]["phase"] == "resign_offered"
    assert r.json()["state"]["resignation"] == {"seat": state["turn"], "points": 1}
    r = taker.act(match_id, "decline_resign")
    assert r.json()["state"]["phase"] == "roll"
    assert r.json()["state"]["resignation"] is None
    doubler.act(match_id, "resign", points=1)
    r = taker.act(match_id, "accept_resign")
    state = r.json()["state"]
    winner = 1 - players_seat(players, doubler)
    assert state["games"] == [{"game_number": 1, "winner": winner, "points": 2,
                               "how": "resign"}]
    assert state["score"][winner] == 2 and state["game_number"] == 2
    assert state["crawford"] is True and state["phase"] == "opening"
    assert [e["type"] for e in r.json()["events"]][:2] == ["resign", "game_end"]


def test_a_match_ended_by_resignation_shows_no_offer(client, ann, bob):
    """The last game's accepted resignation stayed in the state as if still offered (found by
    a fresh user)."""
    match_id, players = opened(ann, bob, length=1)
    state = step(players, match_id)
    resigner, winner = players[state["turn"]], players[1 - state["turn"]]
    resigner.act(match_id, "resign", points=1)
    r = winner.act(match_id, "accept_resign")
    assert r.json()["state"]["phase"] == "match_over"
    assert r.json()["state"]["resignation"] is None
    assert r.json()["state"]["games"][0]["how"] == "resign"


def players_seat(players: dict[int, Player], player: Player) -> int:
    return next(s for s, p in players.items() if p is player)


def test_match_end_result_and_downloads(client, ann, bob):
    match_id = live_match(ann, bob)
    final = play_out({0: ann, 1: bob}, match_id)
    result = final["result"]
    audit = client.get(f"/api/audit/{match_id}").json()
    assert result["chain_head"] == audit["chain_head"] and audit["verified"] is True
    assert result["audit_url"] == f"/audit/{match_id}"
    assert result["analysis_url"] == f"/match/{match_id}/analysis"
    # No cube in a 1-point match: the one game scores 1, 2 or 3 by how it ended (the dice
    # are fresh and random, so any of the three can happen); the final score is 1-0 (capped
    # at the length, as gnubg shows a match won).
    game = final["games"][0]
    assert game["points"] == {"single": 1, "gammon": 2, "backgammon": 3}[game["how"]]
    assert result["score"][result["winner"]] == 1
    assert result["score"][1 - result["winner"]] == 0
    assert final["pending_roll"] is None
    assert all(r["state"] in ("played", "void") for r in audit["rolls"])
    mat = client.get(f"/api/matches/{match_id}/export.mat")
    assert mat.status_code == 200 and " 1 point match" in mat.text
    assert "ann" in mat.text and "bob" in mat.text
    record = Match.from_dict(client.get(f"/api/matches/{match_id}/export.json").json())
    assert list(record.final_score) == result["score"] and record.winner == result["winner"]
    moves = client.get(f"/api/matches/{match_id}/moves").json()
    assert moves == {"games": move_list(record)}
    assert final["last_play"] == last_play(record)
    r = ann.act(match_id, "double")
    assert (r.status_code, code(r)) == (409, "match_over")
    assert [m["status"] for m in ann.get("/api/matches").json()] == ["finished"]


def test_against_the_computer(client, ann):
    r = ann.post("/api/matches/computer", {"level": "nobody", "length": 1})
    assert (r.status_code, code(r)) == (422, "invalid_request")
    r = ann.post("/api/matches/computer", {"level": "easy", "length": 1})
    assert r.status_code == 201
    match_id = r.json()["match_id"]
    state = ann.state(match_id)
    assert state["players"][1] == {"seat": 1, "username": "Computer (easy)", "bot": "easy"}
    with computer_waits(ann, match_id) as wait:
        for _ in range(400):
            if state["phase"] == "match_over":
                break
            state = wait()  # the computer's move
            if state["phase"] == "match_over":
                break
            assert state["turn"] == 0, state
            if state["phase"] in ("opening", "roll"):
                r = ann.act(match_id, "roll", **ann.roll_action(state))
            elif state["phase"] == "double_offered":
                r = ann.act(match_id, "take")
            elif state["phase"] == "resign_offered":  # the easy bot resigns lost gammons
                r = ann.act(match_id, "accept_resign")
            else:
                assert state["phase"] == "play", state
                r = ann.act(match_id, "play", play=state["legal_plays"][0]["notation"])
            assert r.status_code == 200, r.text
            state = ann.state(match_id)
    assert state["phase"] == "match_over"
    sources = {(r["seat"], r["entropy_source"]) for r in state["rolls"]}
    assert (0, "client") in sources and (1, "server") in sources
    assert (0, "server") not in sources and (1, "client") not in sources


def test_openapi_documents_routes_and_errors(client):
    spec = client.get("/openapi.json").json()
    assert client.get("/docs").status_code == 200
    paths = spec["paths"]
    for path, method in [("/api/auth/register", "post"), ("/api/auth/login", "post"),
                         ("/api/auth/guest", "post"), ("/api/auth/upgrade", "post"),
                         ("/api/auth/logout", "post"), ("/api/me", "get"),
                         ("/api/lobby", "get"), ("/api/seeks", "post"),
                         ("/api/seeks/{seek_id}/accept", "post"),
                         ("/api/seeks/{seek_id}", "delete"), ("/api/matches/computer", "post"),
                         ("/api/matches", "get"), ("/api/matches/{match_id}", "get"),
                         ("/api/matches/{match_id}/actions", "post"),
                         ("/api/matches/{match_id}/export.mat", "get"),
                         ("/api/matches/{match_id}/export.json", "get")]:
        assert "422" in paths[path][method]["responses"], path
    action = paths["/api/matches/{match_id}/actions"]["post"]["responses"]
    assert {"400", "401", "403", "404", "409", "429"} <= set(action)
    assert action["409"]["content"]["application/json"]["schema"]["$ref"].endswith("ErrorBody")


def test_web_client_is_served(client):
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    seek = ann.post("/api/seeks", {"length": 1}).json()
    for path in ("/", seek["join_url"]):
        r = client.get(path)
        assert r.status_code == 200 and '<main id="app">' in r.text
    bob.post(f"/api/seeks/{seek['id']}/accept")
    assert client.get(seek["join_url"]).status_code == 200  # it says the seek was taken
    for path in ("/join/sek_x", "/match/mat_x"):  # the client says there is none; so does 404
        r = client.get(path)
        assert r.status_code == 404 and '<main id="app">' in r.text
    assert client.get("/static/app.js").status_code == 200


def test_action_rate_limit(sqlite_url):
    with TestClient(make_app(sqlite_url, action_rate=0.01, action_burst=2)) as client:
        ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
        match_id = live_match(ann, bob)
        answers = [bob.act(match_id, "double") for _ in range(3)]
        assert [a.status_code for a in answers] == [400, 400, 429]
        assert code(answers[2]) == "rate_limited" and "Retry-After" in answers[2].headers
        assert ann.roll(match_id).status_code == 200  # the limit is per player


def test_oversized_and_unreadable_bodies_are_refused_in_the_api_shape(sqlite_url):
    """A body over MAX_BODY_BYTES is refused (413) whether its length is declared or it is
    streamed; JSON nested too deeply to parse is malformed input (422), not a bare 400."""
    from boardgammon.server.errors import MAX_BODY_BYTES

    json_type = {"content-type": "application/json"}
    with TestClient(make_app(sqlite_url)) as client:
        big = b'{"username": "' + b"a" * MAX_BODY_BYTES + b'"}'

        def streamed():
            for start in range(0, len(big), 8192):
                yield big[start:start + 8192]

        for r in (client.post("/api/auth/register", content=big, headers=json_type),
                  client.post("/api/auth/register", content=streamed(), headers=json_type),
                  client.post("/api/auth/guest", content=big)):
            assert r.status_code == 413
            assert r.json()["error"] == {"code": "payload_too_large", "message":
                                         f"the request body is larger than the "
                                         f"{MAX_BODY_BYTES} bytes allowed"}
        r = client.post("/api/auth/register", content=b"[" * (MAX_BODY_BYTES - 1),
                        headers=json_type)
        assert (r.status_code, r.json()["error"]["code"]) == (422, "invalid_request")
        assert client.get("/api/me").status_code == 401  # nobody was registered
        assert client.post("/api/auth/guest").status_code == 201
