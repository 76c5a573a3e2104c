"""What the server's background round finds due (``MatchRepository.due_ids``; issue #25, live
play's latency): since migration 0020 the live v2 matches still waiting for their first roll
are read from ``matches.awaiting_first_roll_since`` (a partial index), not from an anti-join
of every active match against the v2 rolls. It answers exactly what the anti-join answered
(:func:`tests.helpers.due_reference.due_ids_anti_join`) on random histories of matches played
through :class:`MatchService` (v1 and v2, live and correspondence, against people and the
computer, with and without devices, forfeited, time passing); and the migration gives a
database of 0019 the column the anti-join implies."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import pytest
from alembic import command
from alembic.config import Config
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import insert, inspect, select, text

from boardgammon.dice import new_match_id
from boardgammon.server import dice_record_v2 as v2
from boardgammon.server.actions import (
    AnchorAction,
    ContributeAction,
    PlayAction,
    RollAction,
)
from boardgammon.server.db import MIGRATIONS, Database, create_db_engine, open_database
from boardgammon.server.match_service import MatchService
from boardgammon.server.match_state import Seat
from boardgammon.server.refusals import Refusal
from boardgammon.server.service_clock import ServiceClock
from boardgammon.server.tables import DiceRollV2, MatchRow, User
from tests.helpers.dice_v2 import Device
from tests.helpers.due_reference import due_ids_anti_join

LINK_WAIT_S = 3.0
START = datetime(2026, 12, 1, tzinfo=UTC)


class Wall:
    """The services' wall clock, moved by hand."""

    def __init__(self) -> None:
        self.t = START.timestamp()

    def __call__(self) -> float:
        return self.t


@dataclass
class Played:
    match_id: str
    service: MatchService
    users: tuple[int | None, int | None]
    devices: tuple[Device | None, Device | None]


@dataclass
class World:
    """Two services on one database (one creates v1 matches, the other v2), as two server
    processes of different configuration would; two players; the matches made so far."""

    db: Database
    wall: Wall
    services: dict[str, MatchService]
    users: tuple[int, int]
    matches: list[Played] = field(default_factory=list)

    def check(self, shifts: list[float]) -> None:
        """The indexed query answers what the anti-join answers, at the services' own
        times and at times shifted around them (each part's bound crossed both ways)."""
        service = self.services["v2"]
        now = service.clock.now()
        link_due = datetime.fromtimestamp(service.clock.to_wall(now), UTC) - service.link_wait
        for shift in [0.0, *shifts]:
            at, due = now + shift, link_due + timedelta(seconds=shift)
            for link in (due, None):
                expected = due_ids_anti_join(self.db, at, link)
                got = service.matches.due_ids(at, link, service.link_wait)
                assert len(got) == len(set(got)), got
                assert sorted(got) == sorted(expected), (shift, link)


def world_on(db: Database) -> World:
    wall = Wall()
    clock = ServiceClock(wall)
    with db.sessions() as s:
        ids = []
        for name in ("ann", "bob"):
            name = f"{name}{secrets.token_hex(3)}"
            user = User(username=name, username_key=name, password_hash=None, guest=True,
                        created_at=START)
            s.add(user)
            s.flush()
            ids.append(user.id)
        s.commit()
    services = {dice: MatchService(db, clock, dice=dice, link_wait_s=LINK_WAIT_S,
                                link_grace_s=0.0)
                for dice in ("v1", "v2")}
    return World(db, wall, services, (ids[0], ids[1]))


def _create(world: World, dice: str, mode: str, bot: bool, clock: str | None,
            devices: tuple[str, str]) -> None:
    """A new match; each human seat's device (``devices``): ``none``, one that registers
    its anchor at once (as the web client does when the match opens), or ``later`` (by an
    ``anchor`` step, if any)."""
    service = world.services[dice]
    users: tuple[int | None, int | None] = (world.users[0], None if bot else world.users[1])
    seats = (Seat(users[0], "ann"),
             Seat(None, "Computer (easy)", "easy") if bot else Seat(users[1], "bob"))
    with world.db.sessions() as s:
        match_id = service.create(s, seats, 1, "standard", mode,
                                  clock if mode == "live" else None,
                                  2 if mode == "correspondence" else None)
    chains = tuple(Device(length=40) if has != "none" and user is not None else None
                   for has, user in zip(devices, users, strict=True))
    world.matches.append(Played(match_id, service, users, (chains[0], chains[1])))
    for seat, has in enumerate(devices):
        if has == "now":
            _act(world, "anchor", 0, seat)


def _act(world: World, kind: str, back: int, seat: int) -> None:
    """One player's (or device's) action in the ``back``-th newest match, by whoever it is
    up to (``seat`` for an anchor or a forfeit), if it makes sense now; what the rules refuse
    is left refused (a refusal changes nothing)."""
    if not world.matches:
        return
    played = world.matches[-1 - back % len(world.matches)]
    service, match_id = played.service, played.match_id
    view = service.view(match_id)
    state = view.states[0]
    pending = state["pending_roll"]
    if kind in ("roll", "contribute") and pending is not None:
        seat = pending["seat"] if kind == "roll" else 1 - pending["seat"]
    elif kind == "play" and state["turn"] is not None:
        seat = state["turn"]
    user = played.users[seat]
    if user is None:
        return  # the computer's seat
    action_id = secrets.token_hex(8)
    try:
        if kind == "anchor":
            device = played.devices[seat]
            if device is not None:
                service.act(match_id, user, AnchorAction(type="anchor", action_id=action_id,
                                                         anchor=device.anchor.hex()))
        elif kind == "roll" and pending is not None:
            service.act(match_id, user, RollAction(
                type="roll", action_id=action_id, roll_id=pending["roll_id"],
                commitment=pending["commitment"], entropy=secrets.token_hex(16)))
        elif kind == "contribute" and pending is not None:
            device = played.devices[seat]
            if (device is not None and pending.get("state") == "requested"
                    and pending["opponent_prev_link"]):
                prev = device.links.index(bytes.fromhex(pending["opponent_prev_link"]))
                link = device.links[prev + pending["opponent_link_steps"]]
                service.act(match_id, user, ContributeAction(
                    type="contribute", action_id=action_id, roll_id=pending["roll_id"],
                    link=link.hex()))
        elif kind == "play":
            legal = view.states[seat]["legal_plays"]
            if state["phase"] == "play" and legal:
                service.act(match_id, user, PlayAction(
                    type="play", action_id=action_id, play=legal[0]["notation"]))
        elif kind == "forfeit":
            service.forfeit(match_id, user)
        elif kind == "settle":
            service.settle(match_id)
    except Refusal:
        pass


def _due_round(world: World) -> None:
    """The server's background round: settle every match found due (any service settles any
    match, those of earlier examples too)."""
    service = world.services["v2"]
    for match_id in service.due_ids():
        service.settle(match_id)


# Weighted towards what makes matches due: v2 live matches, devices that register (or not),
# rolls requested and their links, time passing, and the background round.
DEVICE = st.sampled_from(["now", "now", "later", "none"])
CREATE = st.tuples(st.just("create"), st.sampled_from(["v2", "v2", "v1"]),
                   st.sampled_from(["live", "live", "correspondence"]),
                   st.sampled_from([False, False, True]), st.sampled_from([None, "bullet"]),
                   st.tuples(DEVICE, DEVICE))
ACT = st.tuples(st.just("act"),
                st.sampled_from(["anchor", "anchor", "roll", "roll", "roll", "contribute",
                                 "contribute", "play", "play", "play", "forfeit", "settle"]),
                st.sampled_from([0, 0, 0, 1, 2]), st.integers(0, 1))
WAIT = st.tuples(st.just("wait"), st.sampled_from([0.5, 2.0, LINK_WAIT_S, 10.0, 120.0]))
STEPS = {"create": CREATE, "act": ACT, "wait": WAIT, "due": st.tuples(st.just("due"))}
STEP = st.sampled_from(["create", "act", "act", "act", "act", "act", "wait", "wait",
                        "due"]).flatmap(STEPS.__getitem__)


@pytest.fixture
def world(database) -> World:
    return world_on(database)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(steps=st.lists(STEP, min_size=5, max_size=40),
       shifts=st.lists(st.sampled_from([-600.0, -3.0, -1.0, 1.0, 3.0, 600.0]), max_size=3))
def test_due_ids_answer_what_the_anti_join_answered(world, steps, shifts):
    """The examples play on in one world (the fixture is shared by design): matches, history
    and time pile up across them as on a server, and an example acts on the newest matches,
    whichever example made them. After every step both queries give the same matches."""
    for step in steps:
        if step[0] == "create":
            _create(world, *step[1:])
        elif step[0] == "act":
            _act(world, *step[1:])
        elif step[0] == "wait":
            world.wall.t += step[1]
        else:
            _due_round(world)
        world.check(shifts)


def test_a_match_waits_from_its_creation_to_its_first_roll(database):
    world = world_on(database)
    _create(world, "v2", "live", False, "bullet", ("later", "none"))
    played = world.matches[0]

    def waiting() -> datetime | None:
        with database.read_sessions() as s:
            return s.get(MatchRow, played.match_id).awaiting_first_roll_since

    assert waiting() == START  # seat 1 has no device: the roll waits for the wait to end
    assert played.match_id not in played.service.due_ids()
    _act(world, "anchor", 0, 0)
    world.wall.t += LINK_WAIT_S + 1
    assert played.match_id in played.service.due_ids()
    _due_round(world)
    assert waiting() is None and played.match_id not in played.service.due_ids()
    with database.read_sessions() as s:
        assert s.execute(select(DiceRollV2.seq).where(
            DiceRollV2.match_id == played.match_id)).scalars().all() == [0]


@pytest.mark.parametrize(("dice", "mode", "bot"), [
    ("v1", "live", False), ("v2", "correspondence", False), ("v2", "live", True)])
def test_no_other_match_waits(database, dice, mode, bot):
    """v1 and correspondence matches never wait for anchors; a live match against the
    computer has its first roll at once (its one device registers before it is needed)."""
    world = world_on(database)
    _create(world, dice, mode, bot, None, ("later", "later"))
    with database.read_sessions() as s:
        assert s.get(MatchRow, world.matches[0].match_id).awaiting_first_roll_since is None


def test_a_match_forfeited_before_its_first_roll_waits_no_more(database):
    world = world_on(database)
    _create(world, "v2", "live", False, "bullet", ("later", "later"))
    match_id = world.matches[0].match_id
    _act(world, "forfeit", 0, 1)
    world.wall.t += LINK_WAIT_S + 1
    with database.read_sessions() as s:
        row = s.get(MatchRow, match_id)
        assert (row.status, row.awaiting_first_roll_since) == ("finished", None)
    assert world.services["v2"].due_ids() == []


# The migration ---------------------------------------------------------------------------


def _config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


def _migrate(url: str, revision: str, step=command.upgrade) -> None:
    """Migrate the database at ``url`` to ``revision`` by ``step`` (Alembic's ``upgrade`` or
    ``downgrade``)."""
    engine = create_db_engine(url)
    try:
        with engine.begin() as connection:
            config = _config()
            config.attributes["connection"] = connection
            step(config, revision)
    finally:
        engine.dispose()


def _match(match_id: str, dice: str, mode: str, status: str, created: datetime) -> dict:
    return {"id": match_id, "length": 1, "variant": "standard", "mode": mode,
            "status": status, "version": 0, "turn_seat": 0, "score0": 0, "score1": 0,
            "created_at": created, "updated_at": created, "dice": dice}


def test_the_migration_marks_the_matches_the_anti_join_found(database_url):
    """A database at 0019 with every kind of match, with and without rolls: after 0020,
    the live v2 active ones without a roll wait from their creation, no other does, and the
    two queries agree at every time around them."""
    _migrate(database_url, "0019_anchor_leaves")
    engine = create_db_engine(database_url)
    kinds = [(dice, mode, status, rolled)
             for dice in ("v1", "v2") for mode in ("live", "correspondence")
             for status in ("active", "finished") for rolled in (False, True)]
    rows = {new_match_id(): kind for kind in kinds}
    try:
        with engine.begin() as connection:
            for k, (match_id, (dice, mode, status, rolled)) in enumerate(rows.items()):
                connection.execute(insert(MatchRow.__table__).values(
                    _match(match_id, dice, mode, status, START + timedelta(seconds=k))))
                if rolled and dice == "v2":
                    connection.execute(insert(DiceRollV2.__table__).values(
                        roll_id=f"rol_{k}", match_id=match_id, seq=0, nonce=k, seat=0,
                        kind="opening", state="played", commitment=f"{k:064x}",
                        server_seed=f"{k:064x}", prev_hash="0" * 64, entry_hash="0" * 64,
                        committed_at=START))
            assert connection.execute(
                text("SELECT version_num FROM alembic_version")).scalar() == "0019_anchor_leaves"
    finally:
        engine.dispose()
    db = open_database(database_url)  # upgrades to the head: 0020 and any later revision
    try:
        with db.read_sessions() as s:
            waiting = {row.id: row.awaiting_first_roll_since for row in s.execute(
                select(MatchRow.id, MatchRow.awaiting_first_roll_since))}
            head = s.execute(text("SELECT version_num FROM alembic_version")).scalar()
        from alembic.script import ScriptDirectory
        assert head == ScriptDirectory.from_config(_config()).get_current_head()
        assert head >= "0020_first_roll_wait"
        expected = {match_id: START + timedelta(seconds=k)
                    for k, (match_id, kind) in enumerate(rows.items())
                    if kind == ("v2", "live", "active", False)}
        assert {m: t for m, t in waiting.items() if t is not None} == expected
        clock = ServiceClock()
        service = MatchService(db, clock, link_wait_s=LINK_WAIT_S, link_grace_s=0.0)
        for shift in (-1, 0, 1, 3, 20):
            link_due = START + timedelta(seconds=shift)
            assert sorted(service.matches.due_ids(0.0, link_due)) == sorted(
                due_ids_anti_join(db, 0.0, link_due))
        assert service.matches.due_ids(0.0, START + timedelta(seconds=20)) == list(expected)
    finally:
        db.dispose()


def test_the_migration_goes_down_and_up_again(database_url):
    db = open_database(database_url)
    db.dispose()
    assert "awaiting_first_roll_since" not in match_columns(database_url, "0019_anchor_leaves")
    assert "awaiting_first_roll_since" in match_columns(database_url, "head")


def match_columns(database_url: str, revision: str) -> set[str]:
    """The names of the ``matches`` table's columns once the database is migrated down
    (or up: ``head``) to ``revision``."""
    _migrate(database_url, revision,
             command.upgrade if revision == "head" else command.downgrade)
    engine = create_db_engine(database_url)
    try:
        with engine.connect() as connection:
            return {c["name"] for c in inspect(connection).get_columns("matches")}
    finally:
        engine.dispose()


def test_a_first_roll_outside_a_match_row_changes_no_match(database):
    """A dice record can predate its match row (test vectors, imported records): its first
    roll finds no match to stop waiting, and fails nothing."""
    match_id = new_match_id()
    with database.sessions() as s:
        roll = v2.commit_roll(s, match_id, 0, "opening")
    with database.read_sessions() as s:
        assert [r.roll_id for r in v2.match_rolls(s, match_id)] == [roll.roll_id]
        assert s.get(MatchRow, match_id) is None
