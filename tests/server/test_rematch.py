"""A rematch (POST/GET /api/matches/{id}/rematch): both players agree, the new match has the
same settings with the colours swapped; the computer agrees at once; refusals change nothing."""

from __future__ import annotations

import time

import pytest
from fastapi.testclient import TestClient
from gameplay import Player, computer_waits, live_match, make_app, step


@pytest.fixture
def client(database_url):
    with TestClient(make_app(database_url)) as c:
        yield c


def resigned(players: dict[int, Player], match_id: str) -> dict:
    """Seat 0 resigns a single game after the opening; seat 1 accepts (a 1-point match)."""
    while players[0].state(match_id)["phase"] == "opening":
        step(players, match_id)
    state = players[0].state(match_id)
    seat = state["turn"]
    assert players[seat].act(match_id, "resign", points=1).status_code == 200
    r = players[1 - seat].act(match_id, "accept_resign")
    assert r.json()["state"]["phase"] == "match_over"
    return r.json()["state"]


def test_both_agree_and_the_rematch_swaps_the_colours(client):
    ann, bob, eve = (Player.register(client, n) for n in ("ann", "bob", "eve"))
    match_id = live_match(ann, bob, length=1, variant="nackgammon", clock="blitz")
    old = ann.state(match_id)

    r = ann.post(f"/api/matches/{match_id}/rematch")  # not over yet: refused, nothing changes
    assert r.status_code == 409 and r.json()["error"]["code"] == "match_not_finished"
    assert ann.get(f"/api/matches/{match_id}/rematch").status_code == 409
    assert ann.state(match_id) == {**old, "clocks": ann.state(match_id)["clocks"]}

    resigned({0: ann, 1: bob}, match_id)
    r = eve.post(f"/api/matches/{match_id}/rematch")
    assert r.status_code == 403 and r.json()["error"]["code"] == "not_your_match"
    assert ann.post("/api/matches/mat_nothing/rematch").status_code == 404

    assert bob.get(f"/api/matches/{match_id}/rematch").json() == {
        "offered_by": None,
        "match_id": None,
    }
    assert bob.post(f"/api/matches/{match_id}/rematch").json() == {
        "offered_by": 1,
        "match_id": None,
    }
    assert bob.post(f"/api/matches/{match_id}/rematch").json()["offered_by"] == 1  # once
    assert ann.get(f"/api/matches/{match_id}/rematch").json() == {"offered_by": 1, "match_id": None}
    # the offer is an invitation in ann's lobby
    (invitation,) = ann.get("/api/lobby").json()["invitations"]
    assert (invitation["owner"], invitation["variant"], invitation["clock"]) == (
        "bob",
        "nackgammon",
        "blitz",
    )

    new_id = ann.post(f"/api/matches/{match_id}/rematch").json()["match_id"]
    assert new_id and new_id != match_id
    assert bob.get(f"/api/matches/{match_id}/rematch").json() == {
        "offered_by": None,
        "match_id": new_id,
    }
    new = ann.state(new_id)
    assert [p["username"] for p in new["players"]] == ["bob", "ann"]  # colours swapped
    assert (new["length"], new["variant"], new["mode"], new["phase"]) == (
        1,
        "nackgammon",
        "live",
        "opening",
    )
    assert new["clocks"]["reserve"] == [60.0, 60.0]  # blitz: 60 s a point
    assert ann.get("/api/lobby").json()["invitations"] == []


def finished_against_the_computer(ann: Player) -> str:
    """A 1-point match of ``ann`` (seat 0) against the computer, played to its end: she
    resigns a backgammon at her first play (the computer accepts)."""
    match_id = ann.post("/api/matches/computer", {"level": "easy", "length": 1}).json()["match_id"]
    with computer_waits(ann, match_id) as wait:
        state = wait()
        while state["phase"] != "match_over":
            if state["phase"] in ("opening", "roll"):
                ann.act(match_id, "roll", **ann.roll_action(state))
            elif state["phase"] == "play":
                ann.act(match_id, "resign", points=3)  # the computer accepts a backgammon
            else:
                ann.act(
                    match_id, "decline_resign" if state["phase"] == "resign_offered" else "take"
                )
            state = wait()
    return match_id


def test_the_computer_always_agrees(client):
    ann = Player.register(client, "ann")
    match_id = finished_against_the_computer(ann)
    r = ann.post(f"/api/matches/{match_id}/rematch").json()
    assert r["offered_by"] is None and r["match_id"]
    new = ann.state(r["match_id"])
    assert new["you"] == 1 and new["players"][0]["bot"] == "easy"
    assert new["length"] == 1
    deadline = time.monotonic() + 30
    while not ann.state(r["match_id"])["rolls"]:  # the computer, now seat 0, rolls first
        assert time.monotonic() < deadline, "the computer did not start the rematch"
        time.sleep(0.1)


def test_the_rematch_of_a_rated_match_is_rated_and_of_an_unrated_one_unrated(client):
    ann, bob = (Player.register(client, n) for n in ("ann", "bob"))
    for rated in (True, False):
        match_id = live_match(ann, bob, length=1, rated=rated)
        resigned({0: ann, 1: bob}, match_id)
        bob.post(f"/api/matches/{match_id}/rematch")
        new_id = ann.post(f"/api/matches/{match_id}/rematch").json()["match_id"]
        listed = {m["match_id"]: m for m in ann.get("/api/players/ann/matches").json()["matches"]}
        assert listed[match_id]["rated"] is rated
        resigned({0: bob, 1: ann}, new_id)  # finished, so it is listed with its rating flag
        listed = {m["match_id"]: m for m in ann.get("/api/players/ann/matches").json()["matches"]}
        assert listed[new_id]["rated"] is rated


def test_a_rematch_offer_is_a_rematch_in_the_notifications_and_on_my_socket(client):
    ann, bob = (Player.register(client, n) for n in ("ann", "bob"))
    match_id = live_match(ann, bob, length=1)
    resigned({0: ann, 1: bob}, match_id)
    with client.websocket_connect("/ws/me", headers=ann.headers) as ws:
        assert ws.receive_json()["type"] == "hello"
        bob.post(f"/api/matches/{match_id}/rematch")
        assert ws.receive_json() == {"type": "rematch", "match_id": match_id, "from": "bob"}
    (item,) = ann.get("/api/notifications").json()["items"]
    assert (item["kind"], item["match_id"], item["opponent"], item["url"]) == (
        "rematch", match_id, "bob", f"/match/{match_id}")
    # a plain invitation stays one
    cyd = Player.register(client, "cyd")
    cyd.post("/api/seeks", json={"length": 3, "variant": "standard", "mode": "live",
                                 "invite": "ann"})
    kinds = [i["kind"] for i in ann.get("/api/notifications").json()["items"]]
    assert kinds == ["invitation", "rematch"]


def test_a_block_refuses_a_rematch_offer_and_nothing_changes(client):
    ann, bob = (Player.register(client, n) for n in ("ann", "bob"))
    match_id = live_match(ann, bob, length=1)
    resigned({0: ann, 1: bob}, match_id)
    assert client.put("/api/blocks/bob", headers=ann.headers).status_code == 200
    r = bob.post(f"/api/matches/{match_id}/rematch")
    assert r.status_code == 403 and r.json()["error"]["code"] == "blocked"
    assert bob.get(f"/api/matches/{match_id}/rematch").json() == {
        "offered_by": None, "match_id": None}
    assert ann.post(f"/api/matches/{match_id}/rematch").status_code == 403
    assert ann.get("/api/lobby").json()["mine"] == []


def test_asking_the_computer_twice_gives_the_one_rematch(client):
    """Found by an outside review: against the computer, which agrees at once, a second POST
    (a second click, another tab) started a second match, and GET answered no rematch at all.
    The rematch is recorded (``matches.rematch_of``, unique): asked again, the same one."""
    ann = Player.register(client, "ann")
    match_id = finished_against_the_computer(ann)
    assert ann.get(f"/api/matches/{match_id}/rematch").json() == {
        "offered_by": None, "match_id": None}
    first = ann.post(f"/api/matches/{match_id}/rematch").json()
    again = ann.post(f"/api/matches/{match_id}/rematch").json()
    assert first["match_id"] and again == first
    assert ann.get(f"/api/matches/{match_id}/rematch").json() == first
    mine = [m for m in ann.get("/api/matches").json() if m["status"] == "active"]
    assert [m["match_id"] for m in mine] == [first["match_id"]]
