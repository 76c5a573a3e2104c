"""An action's reads before its work are one statement (docs/server.md §One statement before
an action): the match's version, its dice record's head, the socket's session and whether the
action ID is in the log, asked together (:meth:`.MatchRepository.current`), and what each
part says still decides as it did: a session signed out is refused, a resent action ID gets
its first result. On SQLite and PostgreSQL."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from gameplay import make_app
from sqlalchemy import event
from test_dice_v2_held import stored, to_roll, wall  # noqa: F401  (wall: a fixture)
from test_match_dice_v2 import LINK_WAIT_S

from boardgammon.server.actions import ContributeAction, PlayAction, ResignAction, RollAction
from boardgammon.server.match_repository import MatchRepository, Probe
from boardgammon.server.refusals import ErrorCode, NotSignedIn, StateConflict
from boardgammon.server.services import services
from boardgammon.server.tables import MatchRow


@pytest.fixture
def client(database_url, wall):  # noqa: F811  (the imported fixture)
    with TestClient(make_app(database_url, wall, dice="v2", link_wait_s=LINK_WAIT_S)) as c:
        yield c


class Statements:
    """The SQL the database engine runs while inside (``with``): their texts, in order."""

    def __init__(self, client: TestClient) -> None:
        self.engine = services(client.app).db.engine
        self.texts: list[str] = []

    def _take(self, conn, cursor, statement, parameters, context, executemany) -> None:
        self.texts.append(" ".join(statement.split()).lower())

    def __enter__(self) -> Statements:
        event.listen(self.engine, "before_cursor_execute", self._take)
        return self

    def __exit__(self, *exc) -> None:
        event.remove(self.engine, "before_cursor_execute", self._take)

    def before_first_write(self) -> list[str]:
        """The SELECT statements before the first INSERT, UPDATE or DELETE."""
        reads = []
        for text in self.texts:
            if text.startswith(("insert", "update", "delete")):
                break
            if text.startswith("select"):
                reads.append(text)
        return reads


def roll_action(state: dict, action_id: str) -> RollAction:
    pending = state["pending_roll"]
    return RollAction(type="roll", action_id=action_id, roll_id=pending["roll_id"],
                      commitment=pending["commitment"], entropy="ab" * 16)


def test_a_held_request_is_one_statement_and_a_write_reads_once_before_it_writes(client, wall):  # noqa: E501, F811
    match_id, players, devices = to_roll(client, wall)
    service = services(client.app).game.service
    seat = players[0].state(match_id)["turn"]
    roller, opponent = players[seat], devices[1 - seat]
    request = roll_action(roller.state(match_id), "held-1")
    with Statements(client) as held:
        step = service.act(match_id, roller.user["id"], request, roller.token)
    assert [e["type"] for e in step.events][0] == "roll_requested"
    selects = [t for t in held.texts if t.startswith("select")]
    assert len(selects) == 1, held.texts
    # The one statement asks the session, the log and the record's head with the version.
    assert all(table in selects[0] for table in
               ("auth_tokens", "match_log", "dice_rolls_v2", "from matches"))

    pending = roller.state(match_id)["pending_roll"]
    r = opponent.contribute(match_id, pending)
    assert r.status_code == 200, r.text
    assert stored(client, pending["roll_id"])[0] == "revealed"

    play = PlayAction(type="play", action_id="play-1",
                      play=roller.state(match_id)["legal_plays"][0]["notation"])
    with Statements(client) as write:
        service.act(match_id, roller.user["id"], play, roller.token)
    reads = write.before_first_write()
    assert len(reads) == 1, reads
    assert all(table in reads[0] for table in ("auth_tokens", "match_log", "dice_rolls_v2"))
    assert [t for t in write.texts if "auth_tokens" in t] == reads, write.texts


def test_a_signed_out_session_is_refused_on_both_paths_and_changes_nothing(client, wall):  # noqa: F811
    match_id, players, devices = to_roll(client, wall)
    service = services(client.app).game.service
    seat = players[0].state(match_id)["turn"]
    roller = players[seat]
    token, before = roller.token, roller.state(match_id)
    assert roller.post("/api/auth/logout").status_code == 204
    # The held path (a v2 request) hands a refusal to the write, which names it.
    with pytest.raises(NotSignedIn, match="signed out"):
        service.act(match_id, roller.user["id"], roll_action(before, "out-1"), token)
    assert stored(client, before["pending_roll"]["roll_id"]) == ("committed", None)
    other = players[1 - seat]
    assert other.state(match_id)["pending_roll"] == before["pending_roll"]
    # The opponent's link (always written) is refused the same way once its session ends.
    token = other.token
    assert other.post("/api/auth/logout").status_code == 204
    with pytest.raises(NotSignedIn):
        service.act(match_id, other.user["id"],
                    ContributeAction(type="contribute", action_id="out-2",
                                     roll_id=before["pending_roll"]["roll_id"],
                                     link="00" * 32), token)


def test_a_resent_action_id_is_found_by_the_probe_and_gets_its_first_result(client, wall):  # noqa: E501, F811
    match_id, players, devices = to_roll(client, wall)
    service = services(client.app).game.service
    seat = players[0].state(match_id)["turn"]
    roller, opponent = players[seat], devices[1 - seat]
    service.act(match_id, roller.user["id"], roll_action(roller.state(match_id), "r-1"),
                roller.token)
    assert opponent.contribute(match_id, roller.state(match_id)["pending_roll"]
                               ).status_code == 200
    play = roller.state(match_id)["legal_plays"][0]["notation"]
    action = PlayAction(type="play", action_id="p-1", play=play)
    first = service.act(match_id, roller.user["id"], action, roller.token)
    assert not first.resent and any(e["type"] == "play" for e in first.events)
    version = first.version
    again = service.act(match_id, roller.user["id"], action, roller.token)
    assert again.resent and again.version == version
    # The play's own events as logged (the next roll's commitment, the settling's, is not
    # part of the action).
    assert again.replayed == first.events[:len(again.replayed)]
    assert [e["type"] for e in again.replayed][:1] == ["play"]
    # The same ID for another action is refused, the match as it was.
    with pytest.raises(StateConflict) as refused:
        service.act(match_id, roller.user["id"],
                    ResignAction(type="resign", action_id="p-1", points=1), roller.token)
    assert refused.value.code == ErrorCode.ACTION_ID_REUSED
    with services(client.app).db.read_sessions() as s:
        assert s.get(MatchRow, match_id).version == version


def test_a_probe_asks_a_session_only_of_a_repository_that_can_check_one(client):
    db = services(client.app).db
    repo = MatchRepository(db, services(client.app).game.service.locks)
    with db.read_sessions() as s, pytest.raises(ValueError, match="session check"):
        repo.current(s, "nope", Probe(token={"token_hash": "x"}))
