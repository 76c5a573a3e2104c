"""Deleting an account (issue 23; docs/api.md §Deleting an account), on SQLite and
PostgreSQL: sessions revoked and no sign-in; finished matches, their dice record, chat and
audit page kept under the placeholder name; a match still played forfeited to the opponent
(rated like any ending); ratings, seeks, invitations, blocks and mutes gone; the name stays
taken. A wrong password changes nothing."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from gameplay import PASSWORD, Player, Wall, live_match, make_app, step
from sqlalchemy import func, select

from boardgammon.ratings import GlickoRating, glicko
from boardgammon.server.tables import (
    DELETED_NAME,
    Block,
    ChatMute,
    DiceRoll,
    PlayerRating,
    RatingChange,
    Seek,
)


@pytest.fixture
def client(database_url):
    with TestClient(make_app(database_url, Wall())) as c:
        yield c


def _open_game(players: dict[int, Player], match_id: str) -> None:
    while players[0].state(match_id)["phase"] == "opening":
        step(players, match_id)


def _resign(players: dict[int, Player], match_id: str, seat: int) -> None:
    assert players[seat].act(match_id, "resign", points=3).status_code == 200
    assert players[1 - seat].act(match_id, "accept_resign").status_code == 200


def _delete(player: Player, password: str | None = PASSWORD):
    return player.post("/api/auth/delete", {} if password is None else {"password": password})


def _world(client: TestClient):
    """ann (to be deleted) has: a finished rated match against bob (ann won, with chat), a
    rated 3-point match against bob still played, an open seek, an invitation to cyd, one
    from cyd, a block of cyd, bob's block of her, a chat mute."""
    ann, bob, cyd = (Player.register(client, n) for n in ("ann", "bob", "cyd"))
    done = live_match(ann, bob, rated=True)
    _open_game({0: ann, 1: bob}, done)
    assert ann.post(f"/api/matches/{done}/chat", {"text": "gg <b>bob</b>"}).status_code == 201
    _resign({0: ann, 1: bob}, done, 1)
    playing = live_match(ann, bob, rated=True, length=3)
    _open_game({0: ann, 1: bob}, playing)
    client.put(f"/api/matches/{playing}/chat/mute", json={"muted": True}, headers=ann.headers)
    assert ann.post("/api/seeks", {"length": 5}).status_code == 201
    assert ann.post("/api/seeks", {"length": 3, "invite": "cyd"}).status_code == 201
    assert cyd.post("/api/seeks", {"length": 3, "invite": "ann"}).status_code == 201
    assert client.put("/api/blocks/cyd", headers=ann.headers).status_code == 200
    assert client.put("/api/blocks/ann", headers=bob.headers).status_code == 200
    return ann, bob, cyd, done, playing


def _counts(database) -> dict[str, int]:
    with database.sessions() as s:
        return {
            "ratings": s.scalar(select(func.count()).select_from(PlayerRating)),
            "changes": s.scalar(select(func.count()).select_from(RatingChange)),
            "open seeks": s.scalar(select(func.count()).select_from(Seek)
                                   .where(Seek.state == "open")),
            "blocks": s.scalar(select(func.count()).select_from(Block)),
            "mutes": s.scalar(select(func.count()).select_from(ChatMute)),
            "rolls": s.scalar(select(func.count()).select_from(DiceRoll)),
        }


@pytest.mark.parametrize("password", ["not the password", None])
def test_a_refused_deletion_changes_nothing(client, database, password):
    ann, bob, cyd, done, playing = _world(client)
    before = (_counts(database), ann.state(playing), client.get("/api/players/ann").json(),
              client.get("/player/bob").text)
    r = _delete(ann, password)
    assert r.status_code == 401, r.text
    assert r.json()["error"]["code"] == "bad_credentials"
    after = (_counts(database), ann.state(playing), client.get("/api/players/ann").json(),
             client.get("/player/bob").text)
    assert after == before
    assert before[0] == {"ratings": 2, "changes": 2, "open seeks": 3, "blocks": 2, "mutes": 1,
                         "rolls": before[0]["rolls"]}
    assert ann.get("/api/me").status_code == 200
    # Another account's name in X-Boardgammon-As (a second tab signed in as someone else).
    r = client.post("/api/auth/delete", json={"password": PASSWORD},
                    headers={**ann.headers, "X-Boardgammon-As": "bob"})
    assert (r.status_code, r.json()["error"]["code"]) == (409, "session_changed")
    assert _counts(database) == before[0]


def test_deleting_an_account_keeps_its_matches_under_the_placeholder(client, database):
    ann, bob, cyd, done, playing = _world(client)
    rolls = _counts(database)["rolls"]
    audit_before = client.get(f"/api/audit/{done}").json()
    other = Player.register(client, "dan")
    stolen = client.post("/api/auth/login", json={"username": "ann", "password": PASSWORD})
    r = _delete(ann)
    assert r.status_code == 204, r.text
    assert 'bg_session=""' in r.headers["set-cookie"]
    # Signed out everywhere; no sign-in; the name stays taken, in any case.
    assert ann.get("/api/me").status_code == 401
    assert client.get("/api/me", headers={
        "Authorization": f"Bearer {stolen.json()['token']}"}).status_code == 401
    r = client.post("/api/auth/login", json={"username": "ann", "password": PASSWORD})
    assert (r.status_code, r.json()["error"]["code"]) == (401, "bad_credentials")
    r = client.post("/api/auth/register", json={"username": "ANN", "password": PASSWORD})
    assert (r.status_code, r.json()["error"]["code"]) == (409, "username_taken")
    # No profile, no rating, no leaderboard entry; nobody can invite or block the name.
    assert client.get("/api/players/ann").status_code == 404
    assert client.get("/player/ann").status_code == 404
    r = other.post("/api/seeks", {"length": 3, "invite": "ann"})
    assert (r.status_code, r.json()["error"]["code"]) == (404, "not_found")
    assert client.put("/api/blocks/ann", headers=other.headers).status_code == 404
    # The running match: forfeited to bob, rated as a win for him (ann's rating then goes).
    state = bob.state(playing)
    assert state["phase"] == "match_over" and state["result"]["winner"] == 1
    assert state["games"][-1] == {"game_number": 1, "winner": 1, "points": 0,
                                  "how": "forfeit"}
    assert state["result"]["score"] == [0, 3]
    assert [p["username"] for p in state["players"]] == [DELETED_NAME, "bob"]
    assert state["pending_roll"] is None
    won_first, lost_first = glicko.update(GlickoRating(), GlickoRating(), 1)
    won, _ = glicko.update(lost_first, won_first, 3)
    bob_rating = client.get("/api/players/bob").json()["ratings"][0]
    assert bob_rating["rating"] == round(won.rating, 1) and bob_rating["matches"] == 2
    counts = _counts(database)
    assert counts == {"ratings": 1, "changes": 2, "open seeks": 0, "blocks": 0, "mutes": 0,
                      "rolls": counts["rolls"]}
    assert counts["rolls"] >= rolls  # the dice record is kept (the forfeit voids nothing past)
    assert client.get("/api/leaderboard/standard").json()["players"] == []
    # The finished match: its record, chat and audit kept, under the placeholder.
    history = client.get("/api/players/bob/matches").json()["matches"]
    assert sorted((m["opponent"], m["result"]) for m in history) == [(DELETED_NAME, "lost"),
                                                                     (DELETED_NAME, "won")]
    chat = bob.get(f"/api/matches/{done}/chat").json()["messages"]
    assert [(line["name"], line["text"]) for line in chat] == [(DELETED_NAME,
                                                               "gg <b>bob</b>")]
    audit = client.get(f"/api/audit/{done}").json()
    fixed = ("roll_id", "seat", "state", "dice", "server_seed", "entry_hash")
    assert ([{k: r[k] for k in fixed} for r in audit["rolls"]]
            == [{k: r[k] for k in fixed} for r in audit_before["rolls"]])
    assert "ann" not in client.get(f"/api/matches/{done}/export.mat").text
    assert cyd.get("/api/lobby").json()["invitations"] == []
    assert bob.get("/api/blocks").json() == {"blocked": []}
    # Pages show the placeholder in the reader's language, never the old name.
    page = client.get(f"/audit/{done}?lang=de").text
    assert "gelöschter Spieler" in page and ">ann<" not in page
    page = client.get("/player/bob?lang=ja").text
    assert "削除されたプレイヤー" in page
    assert client.get("/player/bob?lang=en").text.count("deleted player") == 2


def test_a_guest_deletes_with_its_session_alone(client):
    r = client.post("/api/auth/guest")
    guest = Player(client, r.json()["user"]["username"], r.json()["token"], r.json()["user"])
    match_id = client.post("/api/matches/computer", json={"level": "easy", "length": 1},
                           headers=guest.headers).json()["match_id"]
    assert _delete(guest, None).status_code == 204
    assert guest.get("/api/me").status_code == 401
    state = client.get(f"/api/matches/{match_id}").json()
    assert state["phase"] == "match_over" and state["games"][-1]["how"] == "forfeit"
    assert state["players"][[p["bot"] is None for p in state["players"]].index(True)][
        "username"] == DELETED_NAME
