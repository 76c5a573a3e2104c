"""The lobby as each player sees it: their own open seeks and invitations (``mine``), and the
clocks of their live matches in "my matches"."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from fastapi.testclient import TestClient
from gameplay import Player, Wall, live_match, make_app, step


@pytest.fixture
def wall():
    return Wall()


@pytest.fixture
def client(sqlite_url, wall):
    with TestClient(make_app(sqlite_url, wall)) as c:
        yield c


def test_the_sender_sees_and_withdraws_their_own_invitation(client):
    ann, bob, cy = (Player.register(client, n) for n in ("ann", "bob", "cyd"))
    invite = ann.post("/api/seeks", {"mode": "correspondence", "days": 7, "invite": "bob"})
    open_seek = ann.post("/api/seeks", {"length": 3})
    assert invite.status_code == open_seek.status_code == 201
    invite, open_seek = invite.json(), open_seek.json()
    lobby = ann.get("/api/lobby").json()
    assert [s["id"] for s in lobby["mine"]] == [invite["id"], open_seek["id"]]
    assert lobby["mine"][0] == invite and lobby["mine"][0]["invite"] == "bob"
    assert lobby["mine"][0]["join_url"] == f"/join/{invite['id']}"
    assert [s["id"] for s in lobby["invitations"]] == []
    assert [s["id"] for s in lobby["seeks"]] == [open_seek["id"]]
    # Only the sender and the invitee see the invitation; no one else lists it as theirs.
    assert [s["id"] for s in bob.get("/api/lobby").json()["invitations"]] == [invite["id"]]
    assert bob.get("/api/lobby").json()["mine"] == []
    assert cy.get("/api/lobby").json()["mine"] == []
    assert invite["id"] not in [s["id"] for s in cy.get("/api/lobby").json()["seeks"]]

    r = client.delete(f"/api/seeks/{invite['id']}", headers=ann.headers)
    assert r.status_code == 204
    assert [s["id"] for s in ann.get("/api/lobby").json()["mine"]] == [open_seek["id"]]
    assert bob.get("/api/lobby").json()["invitations"] == []
    # An accepted seek is no longer open, so it leaves "mine".
    assert cy.post(f"/api/seeks/{open_seek['id']}/accept").status_code == 201
    assert ann.get("/api/lobby").json()["mine"] == []


def test_my_matches_carry_each_seats_reserve(client, wall):
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    match_id = live_match(ann, bob, clock="bullet")  # 5 s delay, 30 s per point, 1 point
    players = {0: ann, 1: bob}
    summary = ann.get("/api/lobby").json()["matches"][0]
    assert summary["clock"] == "bullet" and summary["you"] == 0
    assert summary["clocks"]["reserve"] == [30.0, 30.0]
    assert bob.get("/api/matches").json()[0]["you"] == 1
    while ann.state(match_id)["phase"] == "opening":
        step(players, match_id)
    mover = ann.state(match_id)["turn"]
    wall.advance(12.0)  # 5 s free, 7 s charged to the running seat
    summary = ann.get("/api/matches").json()[0]
    expected = [30.0, 30.0]
    expected[mover] = 23.0
    assert summary["clocks"]["reserve"] == pytest.approx(expected)
    assert summary["clocks"]["running"] == mover
    assert summary["clocks"]["as_of"] == pytest.approx(wall.t)
    assert summary["clocks"] == {**ann.state(match_id)["clocks"],
                                 "reserve": pytest.approx(expected)}


def test_clocks_only_for_active_live_matches_with_a_clock(client):
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    live_match(ann, bob)
    live_match(ann, bob, mode="correspondence", days=1)
    for summary in ann.get("/api/matches").json():
        assert summary["clocks"] is None, summary


@pytest.mark.parametrize(("path", "body", "field"), [
    ("/api/seeks", {"length": True}, "length"),  # was a 1-point match
    ("/api/seeks", {"length": 5.0}, "length"),
    ("/api/seeks", {"mode": "correspondence", "days": True}, "days"),
    ("/api/seeks", {"length": 5, "extra": 1}, "extra"),  # was ignored
    ("/api/matches/computer", {"level": "easy", "mode": "live"}, "mode"),
    ("/api/matches/computer", {"level": "easy", "length": True}, "length"),
])
def test_request_bodies_are_taken_exactly(client, path, body, field):
    ann = Player.register(client, "ann")
    r = ann.post(path, body)
    assert (r.status_code, r.json()["error"]["code"]) == (422, "invalid_request"), r.text
    assert field in r.json()["error"]["message"]
    assert ann.get("/api/matches").json() == [] and ann.get("/api/lobby").json()["mine"] == []


def test_a_resignation_of_true_points_is_refused(client):
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    match_id = live_match(ann, bob)
    r = ann.post(f"/api/matches/{match_id}/actions",
                 {"action_id": "r", "type": "resign", "points": True})
    assert (r.status_code, r.json()["error"]["code"]) == (422, "invalid_request")
    assert ann.state(match_id)["resignation"] is None


def test_a_guest_who_upgrades_plays_on_under_the_new_name(client):
    ann = Player.register(client, "ann")
    r = client.post("/api/auth/guest")
    guest = Player(client, r.json()["user"]["username"], r.json()["token"], r.json()["user"])
    match_id = live_match(ann, guest)
    assert ann.state(match_id)["players"][1]["username"] == guest.name  # cached from now on
    step({0: ann, 1: guest}, match_id)
    r = guest.post("/api/auth/upgrade", {"username": "gina", "password": "long enough"})
    assert r.status_code == 200, r.text
    for player in (ann, guest):
        assert [p["username"] for p in player.state(match_id)["players"]] == ["ann", "gina"]
    assert [m["opponent"] for m in ann.get("/api/matches").json()] == ["gina"]
    state = step({0: ann, 1: guest}, match_id)  # a write goes on with the new name
    assert state["players"][1]["username"] == "gina"


@pytest.mark.parametrize(("body", "message"), [
    ({"level": "easy", "length": 10**30},
     "body.length: expected one of 1, 3, 5, 7, 11, got 10000000000000000000…"),
    ({"level": "easy", "length": 4}, "body.length: expected one of 1, 3, 5, 7, 11, got 4"),
    ({"level": "easy", "length": "5"}, 'body.length: expected a whole number, got "5"'),
    # Refused values are quoted as the client wrote them (JSON), not as Python prints them.
    ({"level": "easy", "length": True}, "body.length: expected a whole number, got true"),
    ({"level": "easy", "length": [5]}, "body.length: expected a whole number, got [5]"),
])
def test_a_match_length_outside_the_choices_names_them(client, body, message):
    ann = Player.register(client, "ann")
    r = ann.post("/api/matches/computer", body)
    assert r.status_code == 422 and r.json()["error"]["message"] == message
    assert ann.get("/api/matches").json() == []


@pytest.mark.parametrize(("raw", "message"), [
    ('{"level": "easy",,}', "the request body is not valid JSON: Expecting property name "
                            "enclosed in double quotes (at character 17)"),
    ('{"level": "easy"', "the request body is not valid JSON: Expecting ',' delimiter "
                         "(at character 16)"),
])
def test_a_body_that_is_not_json_says_where_it_breaks(client, raw, message):
    ann = Player.register(client, "ann")
    r = client.post("/api/matches/computer", content=raw,
                    headers={**ann.headers, "content-type": "application/json"})
    assert (r.status_code, r.json()["error"]) == (
        422, {"code": "invalid_request", "message": message})
    assert ann.get("/api/matches").json() == []


def test_action_type_and_empty_body_are_said_in_words(client):
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    match_id = live_match(ann, bob)
    before = ann.state(match_id)
    got = [ann.post(f"/api/matches/{match_id}/actions", body).json()["error"]["message"]
           for body in ({}, {"action_id": "a1", "type": "bogus"})]
    assert got[0] == "body: 'type' is required"
    assert got[1].startswith("body: 'type' 'bogus' is not one of 'roll', 'play'")
    r = client.post("/api/matches/computer", content="",
                    headers={**ann.headers, "content-type": "application/json"})
    assert (r.status_code, r.json()["error"]["message"]) == (
        422, "the request needs a JSON object as its body")
    assert ann.state(match_id) == before


@pytest.mark.parametrize(("path", "body", "field"), [
    ("/api/seeks", {"invite": "a b"}, "invite"),
    ("/api/auth/register", {"username": "x", "password": "long enough"}, "username"),
])
def test_a_bad_username_is_refused_in_words(client, path, body, field):
    ann = Player.register(client, "ann")
    r = ann.post(path, body)
    bad = body[field]
    assert (r.status_code, r.json()["error"]["message"]) == (
        422, f"body.{field}: a username is 3 to 20 characters, each a letter A-Z or a-z, "
             f'a digit, _ or -; got "{bad}"')
    assert ann.get("/api/lobby").json()["mine"] == []


def test_a_seek_is_read_by_its_link_open_taken_or_withdrawn(client):
    # What the join page shows (issue 23): before accepting, the terms; once taken, the match
    # it started; once withdrawn, that it was. Only an ID no seek ever had is 404.
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    seek = ann.post("/api/seeks", {"length": 7, "variant": "nackgammon", "clock": "blitz",
                                   "invite": "bob", "rated": True, "min_rating": 1400}).json()
    r = bob.get(f"/api/seeks/{seek['id']}")
    assert r.status_code == 200, r.text
    assert r.json() == seek
    assert (seek["state"], seek["match_id"]) == ("open", None)
    assert {k: seek[k] for k in ("owner", "invite", "length", "variant", "clock", "rated",
                                 "min_rating", "max_rating", "owner_rating")} == {
        "owner": "ann", "invite": "bob", "length": 7, "variant": "nackgammon",
        "clock": "blitz", "rated": True, "min_rating": 1400, "max_rating": None,
        "owner_rating": 1500}
    accepted = bob.post(f"/api/seeks/{seek['id']}/accept")
    assert accepted.status_code == 201
    match_id = accepted.json()["match_id"]
    carol = Player.register(client, "carol")  # neither player: may watch the match
    for reader in (ann, bob, carol):
        r = reader.get(f"/api/seeks/{seek['id']}")
        assert r.status_code == 200, r.text
        # Closed: no invitee named, nor the owner's rating of today.
        assert r.json() == seek | {"state": "accepted", "match_id": match_id, "invite": None,
                                   "owner_rating": None}
    other = ann.post("/api/seeks", {"length": 1, "invite": "carol"}).json()
    assert carol.get(f"/api/seeks/{other['id']}").json()["invite"] == "carol"
    assert client.delete(f"/api/seeks/{other['id']}", headers=ann.headers).status_code == 204
    r = bob.get(f"/api/seeks/{other['id']}")
    assert r.status_code == 200, r.text
    assert {k: r.json()[k] for k in ("owner", "length", "state", "match_id", "invite",
                                     "owner_rating")} == {
        "owner": "ann", "length": 1, "state": "cancelled", "match_id": None, "invite": None,
        "owner_rating": None}
    for refused in (carol.post(f"/api/seeks/{other['id']}/accept"),
                    client.delete(f"/api/seeks/{other['id']}", headers=ann.headers)):
        assert (refused.status_code, refused.json()["error"]) == (409, {
            "code": "seek_closed", "message": f"seek {other['id']!r} was withdrawn"})
    r = carol.post(f"/api/seeks/{seek['id']}/accept")
    assert (r.status_code, r.json()["error"]["message"]) == (409, f"seek {seek['id']!r} was taken")
    assert carol.post("/api/seeks/sek_nothing/accept").status_code == 404
    r = bob.get("/api/seeks/sek_nothing")
    assert (r.status_code, r.json()["error"]) == (
        404, {"code": "not_found", "message": "no seek 'sek_nothing'"})
    client.cookies.clear()  # signed out: the link's reader sees the terms before signing in
    r = client.get(f"/api/seeks/{seek['id']}")
    assert r.status_code == 200 and r.json()["state"] == "accepted"


def test_the_same_live_seek_or_invitation_twice_is_refused(client):
    """A new user's second click on "Post seek" posted the same invitation twice. The same live
    seek or invitation as one still open is 409 duplicate_seek naming it, and nothing is
    posted; other terms, a closed one, or open correspondence seeks may be posted again."""
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    Player.register(client, "carol")
    first = ann.post("/api/seeks", {"length": 3, "invite": "carol"}).json()
    r = ann.post("/api/seeks", {"length": 3, "invite": "Carol"})
    assert (r.status_code, r.json()["error"]) == (409, {
        "code": "duplicate_seek",
        "message": f"you already have this seek open: /join/{first['id']}"})
    assert [s["id"] for s in ann.get("/api/lobby").json()["mine"]] == [first["id"]]
    live = ann.post("/api/seeks", {"length": 3}).json()  # not an invitation: other terms
    assert ann.post("/api/seeks", {"length": 3}).status_code == 409
    for other in ({"length": 3, "clock": "blitz"}, {"length": 5}, {"length": 3, "rated": True},
                  {"length": 3, "variant": "nackgammon"}):
        assert ann.post("/api/seeks", other).status_code == 201, other
    assert bob.post("/api/seeks", {"length": 3}).status_code == 201  # someone else's
    ranged = {"length": 3, "rated": True, "min_rating": 1400, "max_rating": 1600}
    assert ann.post("/api/seeks", ranged).status_code == 201
    assert ann.post("/api/seeks", ranged).status_code == 409  # the same range
    assert ann.post("/api/seeks", ranged | {"max_rating": 1650}).status_code == 201
    correspondence_invite = {"mode": "correspondence", "days": 3, "invite": "bob"}
    assert ann.post("/api/seeks", correspondence_invite).status_code == 201
    assert ann.post("/api/seeks", correspondence_invite).status_code == 409  # an invitation
    assert ann.post("/api/seeks", {"length": 3, "invite": "bob"}).status_code == 201  # another
    for _ in range(2):  # correspondence seeks: several games at once
        assert ann.post("/api/seeks", {"mode": "correspondence", "days": 3}).status_code == 201
    # Once the first live seek is taken, the same terms may be posted again.
    assert bob.post(f"/api/seeks/{live['id']}/accept").status_code == 201
    assert ann.post("/api/seeks", {"length": 3}).status_code == 201


def test_the_same_seek_posted_four_times_at_once_opens_once(database_url, wall):
    # The duplicate check read, then wrote: two posts at once could both find no open seek.
    with TestClient(make_app(database_url, wall)) as client:
        ann = Player.register(client, "ann")
        start = threading.Barrier(4)

        def post(_: int) -> int:
            start.wait()
            return ann.post("/api/seeks", {"length": 3, "clock": "blitz"}).status_code

        with ThreadPoolExecutor(max_workers=4) as pool:
            assert sorted(pool.map(post, range(4))) == [201, 409, 409, 409]
        assert len(ann.get("/api/lobby").json()["mine"]) == 1
