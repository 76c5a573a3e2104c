"""Matches on the server: create, act, settle, view. Synchronous (run it in a worker thread).

The rules engine's :class:`~boardgammon.engine.match.Match` is the only source of game truth:
every accepted action is appended to ``match_log`` (the engine's record, one row per
:class:`~boardgammon.engine.match.Action`) and committed before anyone is told; a match is
rebuilt by replaying its log. Each process caches replayed matches (at most
:data:`CACHE_SIZE`, least recently used out first; finished matches leave it) and catches up
from the log when another process has written (``matches.version`` = log length, read at the
start of every write transaction and checked again by the conditional update that ends it).

One database transaction per write (an action, a settle, a computer step): the log entries, the
summary row and every change to the dice record commit together or not at all; on any error or
lost race the transaction is rolled back and this process's cached match dropped.

Dice follow the fair-dice protocol through :mod:`boardgammon.server.dice_record`: a roll is
committed at the start of each turn (and for each opening roll), revealed with the roller's
entropy by a ``roll`` action (server entropy for the computer), marked played once the turn is
over, and voided when the game ends before it is rolled. The dice record's calls run inside the
write's transaction (``commit=False``); :meth:`MatchService._settle_step` still brings the
record and the match log into agreement after every action and after a restart (a roll revealed
but not yet in the log is applied, a finished roll is marked played, a missing commitment is
made), which matters for records written before writes were single transactions; it is
idempotent.

Opening rolls are rolled by seat 0 and seat 1 in turn, seat 0 first (ties included): the
roll's two dice are seat 0's die and seat 1's die.

Correspondence matches run on the engine's clock with a delay of the chosen days per move and
a reserve of :data:`CORRESPONDENCE_GRACE_PER_POINT` seconds per point, so a missed deadline is
the engine's flag and is recorded as such.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from boardgammon.bots import Bot, create
from boardgammon.bots.turn import RollDice, decide
from boardgammon.dice.ids import new_match_id
from boardgammon.dice.verify import ENTROPY_BYTES, GENESIS
from boardgammon.engine.clock import PRESETS, TimeControl
from boardgammon.engine.errors import EngineError, MatchOver
from boardgammon.engine.game import Phase
from boardgammon.engine.match import Action, Match
from boardgammon.server import dice_record
from boardgammon.server.auth import token_user_id
from boardgammon.server.db import Database
from boardgammon.server.dice_record import DiceRecordError, Roll
from boardgammon.server.errors import ApiError
from boardgammon.server.game_models import MatchLogEntry, MatchRow, User
from boardgammon.server.match_state import (
    MatchInfo,
    Seat,
    build_states,
    clocks_json,
    games_json,
    pending_roll,
    roll_json,
)
from boardgammon.server.models import DiceRoll
from boardgammon.server.refusals import from_engine
from boardgammon.server.service_clock import ServiceClock

CORRESPONDENCE_GRACE_PER_POINT = 60.0
WRITE_ATTEMPTS = 5
CACHE_SIZE = 1024
"""Replayed matches a process keeps (least recently used dropped first); finished ones are
not kept at all. Each is a few kilobytes; a match not cached is replayed from its log."""

# The statements every action runs, built once (building one, coercing each clause and
# computing its cache key, cost more than executing it on SQLite), as Core statements on the
# tables: no ORM compilation, identity map or session synchronisation.
_MATCHES, _LOG, _ROLLS = MatchRow.__table__, MatchLogEntry.__table__, DiceRoll.__table__
# The version, and the seats' names as they are now (a guest who upgrades takes a new name).
_USERS = User.__table__
_NAME0, _NAME1 = _USERS.alias("seat0"), _USERS.alias("seat1")
_VERSION = (select(_MATCHES.c.version, _NAME0.c.username, _NAME1.c.username)
            .select_from(_MATCHES.outerjoin(_NAME0, _NAME0.c.id == _MATCHES.c.seat0_id)
                         .outerjoin(_NAME1, _NAME1.c.id == _MATCHES.c.seat1_id))
            .where(_MATCHES.c.id == bindparam("match_id")))
_ROLLS_HEAD = (select(_ROLLS.c.seq, _ROLLS.c.state)
               .where(_ROLLS.c.match_id == bindparam("match_id"))
               .order_by(_ROLLS.c.seq.desc()).limit(1))
_LOGGED = select(*_LOG.c).where(_LOG.c.match_id == bindparam("match_id"),
                                _LOG.c.action_id == bindparam("action_id"))
_APPEND_LOG = insert(_LOG)
# The summary moves on only from the version this write started from (else: Conflict).
_SUMMARY = (update(_MATCHES)
            .where(_MATCHES.c.id == bindparam("match_id"),
                   _MATCHES.c.version == bindparam("before"))
            .values(version=bindparam("version"), turn_seat=bindparam("turn_seat"),
                    score0=bindparam("score0"), score1=bindparam("score1"),
                    winner=bindparam("winner"), status=bindparam("status"),
                    deadline_t=bindparam("deadline_t"), updated_at=bindparam("updated_at")))

# No process-wide engine lock: a match's replayed Match and its bot are only touched under that
# match's lock (:meth:`MatchService.lock`), legal-play generation keeps its scratch buffers per
# thread (``boardgammon.engine.board._PER_THREAD``), the neural evaluator allocates its own per
# call and the bear-off table is loaded under a lock of its own; so matches (and the analysis
# worker) run in parallel threads without sharing mutable state.


class Conflict(Exception):
    """Another thread or process wrote the match first; reload and try again."""


Snapshot = tuple[int, tuple[int, str] | None]
"""What a process's cached match must match to be current: (log version, dice record head)."""


@dataclass
class Outcome:
    """What an action or a background step did: the events to broadcast (already committed),
    the match version after it, and the refusal of a request that was answered with one
    (the events then are what the server did before refusing, e.g. a flag it claimed). For a
    resent action, ``replayed`` holds its first result's events, for its sender only: they
    happened before and are not broadcast again."""

    events: list[dict[str, Any]] = field(default_factory=list)
    version: int = 0
    error: ApiError | None = None
    resent: bool = False
    snapshot: Snapshot | None = None
    replayed: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class View:
    """A match's state for every viewer: ``states[0]``, ``states[1]``, ``states[None]``
    (spectators), at ``version``."""

    info: MatchInfo
    version: int
    states: dict[int | None, dict[str, Any]]


@dataclass
class _Live:
    info: MatchInfo
    match: Match
    version: int = 0
    rolls: list[Roll] = field(default_factory=list)
    rolls_head: tuple[int, str] | None = None
    writing: bool = False  # inside a write transaction whose dice record is tracked here
    # The state's rolls[] entry of each revealed roll, by roll ID: a revealed roll's entry
    # never changes, so each is built once instead of once per roll per view.
    entries: dict[str, dict[str, Any]] = field(default_factory=dict)

    def revealed(self) -> list[dict[str, Any]]:
        """``state.rolls``: the entry of every revealed roll, in record order."""
        entries = self.entries
        return [entries.get(r.roll_id) or entries.setdefault(r.roll_id, roll_json(r))
                for r in self.rolls if r.server_seed is not None]

    def track(self, roll: Roll) -> Roll:
        """Take a roll the write just changed or appended into the cached record."""
        if roll.seq < len(self.rolls):
            self.rolls[roll.seq] = roll
        else:
            self.rolls.append(roll)
        if roll.seq == len(self.rolls) - 1:
            self.rolls_head = (roll.seq, roll.state)
        return roll


class _MatchCache:
    """This process's replayed matches by ID: at most ``size``, the least recently used dropped
    first, and never a finished match (it changes no more and is rarely read again; one that
    is read is replayed from the log). Thread-safe; an entry dropped while a thread still uses
    its object only means the next reader replays the match."""

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError(f"the match cache holds at least 1 match, got {size}")
        self.size = size
        self._entries: OrderedDict[str, _Live] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, match_id: str) -> bool:
        return match_id in self._entries

    def get(self, match_id: str) -> _Live | None:
        with self._lock:
            live = self._entries.get(match_id)
            if live is not None:
                self._entries.move_to_end(match_id)
            return live

    def put(self, match_id: str, live: _Live) -> None:
        with self._lock:
            if live.match.is_over:
                self._entries.pop(match_id, None)
                return
            self._entries[match_id] = live
            self._entries.move_to_end(match_id)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)

    def pop(self, match_id: str) -> None:
        with self._lock:
            self._entries.pop(match_id, None)


def time_control(mode: str, clock: str | None, days: int | None) -> TimeControl | None:
    """The engine time control of a match: a live preset, the correspondence clock (see the
    module docstring), or ``None`` (no clock: live without a preset, games against the bot)."""
    if mode == "correspondence" and days:
        return TimeControl(f"correspondence-{days}d", delay=days * 86400.0,
                           reserve_per_point=CORRESPONDENCE_GRACE_PER_POINT)
    return PRESETS[clock] if clock else None


class MatchService:
    """Every match operation of one server process.

    Args:
        db: the migrated database.
        clock: the service clock (injected wall clock in tests).
        cache_size: how many replayed matches to keep (see :data:`CACHE_SIZE`).
    """

    def __init__(self, db: Database, clock: ServiceClock, cache_size: int = CACHE_SIZE
                 ) -> None:
        self.db = db
        self.clock = clock
        self._cache = _MatchCache(cache_size)
        self._bots: dict[str, Bot] = {}
        # Weak: a match's lock lives while someone holds or waits for it, then goes (the
        # table grew by one lock per match ever touched for the life of the process).
        self._locks: weakref.WeakValueDictionary[str, threading.RLock] = (
            weakref.WeakValueDictionary())
        self._guard = threading.Lock()
        # SQLite lets one transaction write at a time (every write session takes the lock up
        # front). Threads of this process queue here and are woken the moment the writer
        # before them is done; left to SQLite they would poll in its busy handler, which sleeps
        # up to 100 ms between tries. Other processes still wait in the busy handler.
        self._writer: Any = threading.Lock() if db.is_sqlite else contextlib.nullcontext()

    # Creating -------------------------------------------------------------------------------

    def create(self, session: Session, seats: tuple[Seat, Seat], length: int, variant: str,
               mode: str, clock: str | None, days: int | None, bot_seed: int | None = None
               ) -> str:
        """Create a match, commit it and its first opening-roll commitment; returns its ID.

        Raises:
            ApiError: 422 ``invalid_request`` for settings the engine refuses.
        """
        tc = time_control(mode, clock, days)
        # With a clock the opening roll is on it from the start (a player who never rolls it
        # loses on time); the start is stored so every replay of the match runs the same clock.
        start = self.clock.now() if tc is not None else None
        try:
            m = Match(length, variant, (seats[0].username, seats[1].username), tc, start=start)
        except (ValueError, KeyError) as exc:
            raise ApiError(422, "invalid_request", str(exc)) from exc
        match_id = new_match_id()
        now = datetime.now(UTC)
        bot_seat = next((s for s, who in enumerate(seats) if who.bot), None)
        session.add(MatchRow(
            id=match_id, seat0_id=seats[0].user_id, seat1_id=seats[1].user_id,
            bot_seat=bot_seat, bot_level=seats[bot_seat].bot if bot_seat is not None else None,
            bot_seed=bot_seed, length=length, variant=variant, mode=mode, clock=clock,
            days=days, status="active", version=0, turn_seat=0, score0=0, score1=0,
            winner=None, start_t=start, deadline_t=m.deadline(), created_at=now,
            updated_at=now))
        session.commit()
        self.settle(match_id)
        return match_id

    # Reading --------------------------------------------------------------------------------

    def writing(self) -> contextlib.AbstractContextManager:
        """This process's turn to write: one writer at a time on SQLite (its file takes one
        anyway, and a writer that finds it taken sleeps in SQLite's busy handler rather than
        waiting for it), no limit elsewhere. Held by every match write; take it around any
        other write on the server's hot path."""
        return self._writer

    def lock(self, match_id: str) -> threading.RLock:
        """The in-process lock of a match (actions on one match run one at a time here)."""
        with self._guard:
            return self._locks.setdefault(match_id, threading.RLock())

    def view(self, match_id: str, viewers: Iterable[int | None] = (0, 1, None),
             snapshot: Snapshot | None = None) -> View:
        """The state now for each of ``viewers`` (seats, ``None`` for spectators). With the
        ``snapshot`` of an :class:`Outcome` that this process's cache still matches, the
        database is not read.

        Raises:
            ApiError: 404 ``not_found``.
        """
        with self.lock(match_id):
            live = self._cache.get(match_id)
            if live is None or snapshot is None or (live.version, live.rolls_head) != snapshot:
                with self.db.read_sessions() as s:
                    live = self._load(s, match_id)
                    self._rolls(s, live)
            return self._view(live, viewers)

    def cached_view(self, match_id: str, viewers: Iterable[int | None],
                    snapshot: Snapshot | None) -> View | None:
        """:meth:`view` without blocking and without the database: ``None`` unless this
        process's cache matches ``snapshot`` and no other thread is using the match. Cheap
        enough (states built from memory) for the event loop's thread, which saves the hop to
        a worker thread for each broadcast."""
        lock = self.lock(match_id)
        if snapshot is None or not lock.acquire(blocking=False):
            return None
        try:
            live = self._cache.get(match_id)
            if live is None or live.writing or (live.version, live.rolls_head) != snapshot:
                return None
            return self._view(live, viewers)
        finally:
            lock.release()

    def _view(self, live: _Live, viewers: Iterable[int | None]) -> View:
        rolls = live.rolls
        extra = ({"chain_head": rolls[-1].entry_hash if rolls else GENESIS}
                 if live.match.is_over else None)
        now = self._now(live)
        states = build_states(live.info, live.match, rolls, viewers, now, self.clock.to_wall,
                              extra, live.revealed())
        return View(live.info, live.version, states)

    def view_for(self, match_id: str, user_id: int | None,
                 snapshot: Snapshot | None = None) -> dict[str, Any]:
        """The state from ``user_id``'s seat (a spectator's if not a player)."""
        with self.lock(match_id):
            info = self._cached_info(match_id)
            seats = (info.seat_of(user_id),) if info is not None else (0, 1, None)
            view = self.view(match_id, seats, snapshot)
            return view.states[view.info.seat_of(user_id)]

    def clocks(self, match_id: str) -> dict[str, Any] | None:
        """The match's clock now, as ``state.clocks`` shows it (each seat's remaining reserve
        in seconds, the running seat, the delay left, ``as_of`` in wall seconds); ``None``
        without a clock.

        Raises:
            ApiError: 404 ``not_found``.
        """
        with self.lock(match_id), self.db.read_sessions() as s:
            live = self._load(s, match_id)
            return clocks_json(live.match, self._now(live), self.clock.to_wall)

    def match_copy(self, match_id: str) -> tuple[MatchInfo, Match]:
        """The match's facts and a fresh replay of its record (for exports).

        Raises:
            ApiError: 404 ``not_found``.
        """
        with self.lock(match_id), self.db.sessions() as s:
            live = self._load(s, match_id)
            return live.info, Match.from_dict(live.match.to_dict())

    def has_bot(self, match_id: str) -> bool:
        """Whether the computer may have to act in ``match_id`` (True when not cached here:
        the bot step finds out in a worker without touching the database from the caller)."""
        live = self._cache.get(match_id)
        return live is None or (live.info.bot_seat is not None and not live.match.is_over)

    def active_ids(self) -> list[str]:
        """IDs of every match not finished."""
        with self.db.read_sessions() as s:
            return list(s.execute(select(MatchRow.id).where(MatchRow.status == "active"))
                        .scalars())

    def due_ids(self) -> list[str]:
        """IDs of active matches whose running clock has run out (service time now)."""
        with self.db.read_sessions() as s:
            return list(s.execute(
                select(MatchRow.id).where(MatchRow.status == "active",
                                          MatchRow.deadline_t < self.clock.now())
            ).scalars())

    # Acting ---------------------------------------------------------------------------------

    def act(self, match_id: str, user_id: int, action: dict[str, Any],
            token: str | None = None) -> Outcome:
        """Apply a player's ``action`` (a validated API action dict with ``action_id`` and
        ``type``) and commit it; a resent ``action_id`` returns its first outcome again.
        ``token``: a session to check again, in the action's own transaction (a WebSocket
        outlives a sign-out).

        Raises:
            ApiError: 401 ``token`` signed out, 403 not your match, 404 unknown match, and
                every refusal of the rules.
        """
        return self._write(match_id, lambda s, live: self._act(s, live, user_id, action, token))

    def settle(self, match_id: str) -> Outcome:
        """Claim a flag that is due, reconcile the dice record and the log (see the module
        docstring); returns what it did."""
        return self._write(match_id, self._settle_step)

    def bot_step(self, match_id: str) -> Outcome | None:
        """Let the computer take the one action the match waits for from it, if any; the
        decision runs here, in the caller's (worker) thread. ``None``: nothing to do.

        The computer thinks before the write, holding only this match's lock: deciding inside
        the write held the database's write lock (on SQLite, every match's) for as long as a
        hard decision takes, and every other match's actions waited behind it."""
        planned = self._plan_bot(match_id)
        return self._write(match_id, lambda s, live: self._bot_step(s, live, planned))

    def _plan_bot(self, match_id: str) -> tuple[int, dict[str, Any]] | None:
        """(version, action): the computer's decision on the cached match, if it is the
        computer's turn there; ``None`` if not cached or not its turn (the write decides)."""
        with self.lock(match_id):
            live = self._cache.get(match_id)
            if live is None:
                return None
            seat = live.info.bot_seat
            if seat is None or live.match.is_over or live.match.waiting_for != seat:
                return None
            return live.version, self._decide(live, seat)

    # Machinery ------------------------------------------------------------------------------

    def _write(self, match_id: str, step: Callable[[Session, _Live], Any]) -> Any:
        """Run ``step`` in one transaction and commit it; a lost race is retried from a fresh
        load, any other error rolls everything back (and drops the cached match, which the
        step may have changed) before it propagates."""
        with self.lock(match_id), self._writer:
            for _ in range(WRITE_ATTEMPTS):
                with self.db.sessions() as s:
                    live = None
                    try:
                        live = self._load(s, match_id)
                        self._rolls(s, live)  # the record's head, read in this transaction
                        live.writing = True
                        result = step(s, live)
                        s.commit()
                    except (Conflict, IntegrityError):
                        s.rollback()
                        self._cache.pop(match_id)
                        continue
                    except BaseException:
                        s.rollback()
                        self._cache.pop(match_id)
                        raise
                    finally:
                        if live is not None:
                            live.writing = False
                    if live.match.is_over:
                        # A finished match leaves the cache (and its computer player goes).
                        self._cache.pop(match_id)
                        self._bots.pop(match_id, None)
                    if isinstance(result, Outcome):
                        result.version = live.version
                        result.snapshot = (live.version, live.rolls_head)
                    return result
            raise ApiError(503, "busy", f"match {match_id} is being changed elsewhere; retry")

    def _load(self, s: Session, match_id: str) -> _Live:
        live = self._cache.get(match_id)
        if live is not None:
            found = s.execute(_VERSION, {"match_id": match_id}).first()
            if found is None:
                raise ApiError(404, "not_found", f"no match {match_id!r}")
            version, *names = found
            _rename(live, names)
            if version == live.version:
                return live
        row = s.get(MatchRow, match_id, populate_existing=True)
        if row is None:
            raise ApiError(404, "not_found", f"no match {match_id!r}")
        if live is None or live.version > row.version:
            info = self._info(s, row)
            live = _Live(info, Match(row.length, row.variant,
                                     (info.seats[0].username, info.seats[1].username),
                                     time_control(row.mode, row.clock, row.days),
                                     start=row.start_t))
        if live.version < row.version:
            entries = s.execute(
                select(MatchLogEntry.seq, MatchLogEntry.action)
                .where(MatchLogEntry.match_id == match_id, MatchLogEntry.seq >= live.version)
                .order_by(MatchLogEntry.seq)
            ).all()
            for seq, text in entries:
                live.match.apply(Action.from_dict(json.loads(text)))
                live.version = seq + 1
        self._cache.put(match_id, live)
        return live

    def _cached_info(self, match_id: str) -> MatchInfo | None:
        live = self._cache.get(match_id)
        return live.info if live is not None else None

    def _rolls(self, s: Session, live: _Live) -> list[Roll]:
        """The match's dice record, from the cache unless its newest entry changed (rolls
        only ever change at the head: appended, then revealed, played or voided). Inside a
        write the cache is current: the head was read at its start and every change since
        went through :meth:`_Live.track`."""
        if live.writing:
            return live.rolls
        head = s.execute(_ROLLS_HEAD, {"match_id": live.info.match_id}).first()
        key = (head[0], head[1]) if head is not None else None
        if key != live.rolls_head or key is None:
            live.rolls = dice_record.match_rolls(s, live.info.match_id)
            live.rolls_head = key
        return live.rolls

    @staticmethod
    def _info(s: Session, row: MatchRow) -> MatchInfo:
        seats = []
        for seat, user_id in enumerate((row.seat0_id, row.seat1_id)):
            if row.bot_seat == seat:
                seats.append(Seat(None, f"Computer ({row.bot_level})", row.bot_level))
            else:
                user = s.get(User, user_id)
                seats.append(Seat(user_id, user.username if user else "?"))
        return MatchInfo(row.id, (seats[0], seats[1]), row.length, row.variant, row.mode,
                         row.clock, row.days, row.bot_seed)

    def _now(self, live: _Live) -> float:
        # After a restart the service clock resumes at the last heartbeat, which may be a
        # moment before the last recorded action: never let the match see time go backwards.
        last = max((a.t for a in live.match.record if a.t is not None), default=0.0)
        return max(self.clock.now(), last)

    def _persist(self, s: Session, live: _Live, before: int, action_id: str | None,
                 user_id: int | None, events: list[dict], request: str | None = None) -> None:
        """Append the match's new record actions to the log and update the summary, checking
        that no one else wrote since ``before`` (:class:`Conflict` if someone did); the
        caller's :meth:`_write` commits. ``action_id``, ``user_id`` and ``request`` (the
        client's action, :func:`_request_key`) label the first new entry; the server's own
        entries have none (client action IDs are any string, so no name the server chose for
        itself could be kept out of their way)."""
        m = live.match
        new = m.record[before:]
        now = datetime.now(UTC)
        if new:
            s.execute(_APPEND_LOG, [
                {"match_id": live.info.match_id, "seq": before + i,
                 "action_id": action_id if i == 0 else None,
                 "user_id": user_id if i == 0 else None,
                 "action": json.dumps(action.to_dict()),
                 "events": json.dumps(events if i == 0 else []),
                 "request": request if i == 0 else None, "created_at": now}
                for i, action in enumerate(new)])
        changed = s.execute(_SUMMARY, {
            "match_id": live.info.match_id, "before": before, "version": before + len(new),
            "turn_seat": m.waiting_for, "score0": m.score[0], "score1": m.score[1],
            "winner": m.winner, "status": "finished" if m.is_over else "active",
            "deadline_t": m.deadline(), "updated_at": now}).rowcount
        if changed != 1:
            raise Conflict
        live.version = before + len(new)

    def _act(self, s: Session, live: _Live, user_id: int, action: dict[str, Any],
             token: str | None = None) -> Outcome:
        match_id = live.info.match_id
        if token is not None and token_user_id(s, token) != user_id:
            raise ApiError(401, "not_authenticated", "this connection's session has ended "
                           "(signed out): sign in again to act")
        # Before the log is consulted: someone else learns nothing of this match's action IDs.
        seat = live.info.seat_of(user_id)
        if seat is None:
            raise ApiError(403, "not_your_match", f"you do not play in match {match_id}")
        done = s.execute(_LOGGED, {"match_id": match_id, "action_id": action["action_id"]}
                         ).first()
        if done is not None:
            if done.user_id != user_id:
                raise ApiError(409, "duplicate_action_id", "that action_id was used by the "
                               "other player; choose a unique one")
            events = json.loads(done.events)
            reused = ApiError(409, "action_id_reused", f"action_id {action['action_id']!r} "
                              "was already used for another action in this match; a resend "
                              "must be the same action, a new action needs a new ID")
            first = json.loads(done.request) if done.request is not None else None
            if first is not None and first.get("type") != action["type"]:
                raise reused
            if action["type"] == "roll":
                rolled = next((e for e in events if e.get("type") == "roll"), None)
                _check_roll_resend(action, rolled)
            elif done.request is not None and done.request != _request_key(action):
                raise reused
            return Outcome([], live.version, resent=True, replayed=events)
        outcome = self._settle_step(s, live)
        if live.match.is_over:
            outcome.error = (ApiError(409, "time_expired", "your reserve ran out: the match "
                                      "is lost on time") if live.match.flagged == seat else
                             from_engine(_match_over(live.match)))
            return outcome
        if action["type"] == "roll" and self._rolled_already(s, live, seat, action):
            outcome.resent = True
            return outcome
        outcome.events += self._perform(s, live, seat, action, action["action_id"], user_id)
        return outcome

    def _rolled_already(self, s: Session, live: _Live, seat: int, action: dict) -> bool:
        """A roll action for a roll this seat already revealed (e.g. the answer was lost and
        the device sent it again under a new ``action_id``): true for the exact resend (same
        commitment and entropy), which is answered as such.

        Raises:
            ApiError: 409 ``already_rolled``: the same roll with another commitment or
                entropy (a second roll of dice already rolled).
        """
        roll = next((r for r in self._rolls(s, live)
                     if r.roll_id == action.get("roll_id")), None)
        if roll is None or roll.seat != seat or roll.server_seed is None:
            return False
        _check_roll_resend(action, roll_json(roll))
        return True

    def _perform(self, s: Session, live: _Live, seat: int, action: dict[str, Any],
                 action_id: str | None, user_id: int | None) -> list[dict]:
        """Apply one action of ``seat``, persist it, settle; the events, in order."""
        m = live.match
        before, results, was_over = live.version, len(m.results), m.is_over
        events = self._apply(s, live, seat, action)
        for result in games_json(m)[results:]:
            events.append({"type": "game_end", "game": result})
        self._persist(s, live, before, action_id, user_id, events,
                      _request_key(action) if action_id is not None else None)
        after = self._settle_step(s, live, void_pending=len(m.results) > results)
        events += after.events
        if m.is_over and not was_over and not any(e["type"] == "match_end" for e in events):
            events.append(self._match_end(s, live))
        return events

    def _apply(self, s: Session, live: _Live, seat: int, action: dict[str, Any]) -> list[dict]:
        m, kind = live.match, action["type"]
        game = m.game
        now = self._now(live)
        try:
            if kind == "roll":
                events = [self._roll(s, live, seat, action, now)]
            elif kind == "play":
                legal = m.play(seat, action["play"], now=now)
                after = legal.after.swapped().position_id if legal.after else None
                events = [{"type": "play", "seat": seat, "play": str(legal),
                           "position_id": after}]
            elif kind in ("double", "take", "drop"):
                value = game.cube * 2 if kind != "drop" else game.cube
                getattr(m, kind)(seat, now=now)
                events = [{"type": "cube", "seat": seat, "action": kind, "value": value}]
            elif kind == "resign":
                m.resign(seat, action["points"], now=now)
                events = [{"type": "resign", "seat": seat, "action": "offer",
                           "points": action["points"]}]
            else:
                offer = game.resignation
                getattr(m, "accept" if kind == "accept_resign" else "decline")(seat, now=now)
                events = [{"type": "resign", "seat": seat, "action": kind.split("_")[0],
                           "points": int(offer.outcome) if offer else None}]
        except EngineError as exc:
            raise from_engine(exc) from exc
        if m.clock is not None and live.info.mode == "live":
            events.append({"type": "clock", "clocks": clocks_json(m, now, self.clock.to_wall)})
        return events

    def _roll(self, s: Session, live: _Live, seat: int, action: dict, now: float) -> dict:
        """Reveal the pending roll (the roller's entropy, or the server's for ``auto``) and
        apply it to the match; returns the ``roll`` event."""
        game = live.match.game
        pending = pending_roll(self._rolls(s, live))
        if pending is None:
            raise ApiError(400, "wrong_phase", "no roll is pending: the dice are rolled "
                           "(play them) or the turn has not started")
        if pending.seat != seat:
            raise ApiError(409, "not_your_turn", f"the pending roll is seat {pending.seat}'s")
        if game.phase not in (Phase.OPENING, Phase.ROLL):
            raise ApiError(400, "wrong_phase", f"cannot roll now: the game is in phase "
                           f"{game.phase.value}")
        try:
            if action.get("auto"):
                roll = live.track(dice_record.auto_reveal_roll(s, pending.roll_id, commit=False))
            else:
                if action["roll_id"] != pending.roll_id:
                    raise ApiError(400, "roll_mismatch", f"roll {action['roll_id']!r} "
                                   f"is not the pending roll {pending.roll_id}")
                entropy = _entropy(action["entropy"])
                roll = live.track(dice_record.reveal_roll(
                    s, pending.roll_id, action["commitment"], entropy, commit=False))
        except DiceRecordError as exc:
            raise ApiError(exc.status, exc.code, str(exc)) from exc
        return self._apply_roll(live, roll, now)

    def _apply_roll(self, live: _Live, roll: Roll, now: float) -> dict:
        m = live.match
        assert roll.dice is not None
        if m.game.phase is Phase.OPENING:
            m.roll_opening(*roll.dice, now=now)
        else:
            m.roll(roll.seat, *roll.dice, now=now)
        return {"type": "roll", **roll_json(roll)}

    def _settle_step(self, s: Session, live: _Live, void_pending: bool = False) -> Outcome:
        m, match_id = live.match, live.info.match_id
        events: list[dict] = []
        was_over = m.is_over
        now = self._now(live)
        clock = m.clock
        if not m.is_over and clock is not None and clock.running is not None \
                and clock.flagged(clock.running, now):
            before = live.version
            m.claim_flag(now)
            events = [{"type": "game_end", "game": games_json(m)[-1]}]
            if live.info.mode == "live":
                events.insert(0, {"type": "clock",
                                  "clocks": clocks_json(m, now, self.clock.to_wall)})
            self._persist(s, live, before, None, None, events)
        rolls = self._rolls(s, live)
        revealed = [r for r in rolls if r.server_seed is not None]
        applied = sum(1 for a in m.record if a.kind in ("opening", "roll"))
        if len(revealed) > applied and not m.is_over:
            # The server stopped between revealing a roll and logging it: log it now.
            before = live.version
            event = self._apply_roll(live, revealed[applied], now)
            self._persist(s, live, before, None, None, [event])
            events.append(event)
        last = rolls[-1] if rolls else None
        try:
            if last is not None and last.state == "revealed" and (
                    m.is_over or m.game.phase is not Phase.PLAY):
                last = live.track(dice_record.mark_played(s, last.roll_id, commit=False))
            need = m.waiting_for if m.game.phase in (Phase.OPENING, Phase.ROLL) else None
            if last is not None and last.state == "committed" and (
                    void_pending or m.is_over or (need is not None and last.seat != need)):
                last = live.track(dice_record.void_roll(s, last.roll_id, commit=False))
            if need is not None and (last is None or last.state in ("played", "void")):
                roll = live.track(dice_record.commit_roll(s, match_id, need, commit=False))
                events.append({"type": "commitment", "seat": roll.seat, "roll_id": roll.roll_id,
                               "nonce": roll.nonce, "commitment": roll.commitment})
        except (dice_record.RollPending, dice_record.WrongRollState):
            pass  # another process settled this match at the same moment
        if m.is_over and not was_over:
            events.append(self._match_end(s, live))
        return Outcome(events, live.version)

    def _match_end(self, s: Session, live: _Live) -> dict:
        m = live.match
        return {"type": "match_end", "result": {
            "winner": m.winner, "score": list(m.score),
            "chain_head": dice_record.chain_head(s, live.info.match_id),
            "audit_url": f"/audit/{live.info.match_id}",
            "analysis_url": f"/match/{live.info.match_id}/analysis"}}

    def _bot_step(self, s: Session, live: _Live,
                  planned: tuple[int, dict[str, Any]] | None = None) -> Outcome | None:
        seat = live.info.bot_seat
        version = live.version
        outcome = self._settle_step(s, live)
        m = live.match
        if seat is None or m.is_over or m.waiting_for != seat:
            return outcome if outcome.events else None
        # The plan holds if nothing changed since it was made (else: decide now, rarely).
        unchanged = planned is not None and planned[0] == version == live.version
        action = planned[1] if unchanged else self._decide(live, seat)
        outcome.events += self._perform(s, live, seat, action, None, None)
        return outcome

    def _decide(self, live: _Live, seat: int) -> dict[str, Any]:
        """The computer's next action (:func:`boardgammon.bots.turn.decide`) as an API action
        dict; its roll is an ``auto`` roll (server entropy)."""
        info = live.info
        bot = self._bots.get(info.match_id)
        if bot is None:
            bot = self._bots[info.match_id] = create(info.seats[seat].bot, info.bot_seed)
        decision = decide(live.match, seat, bot)
        if isinstance(decision, RollDice):
            return {"type": "roll", "auto": True}
        return {"type": decision.kind, **asdict(decision)}


_ENTROPY = re.compile(rf"[0-9a-fA-F]{{{2 * ENTROPY_BYTES}}}")


def _entropy(text: object) -> bytes:
    """The 16 bytes of a roll's ``entropy``: exactly 32 hex characters, nothing else (no
    spaces, no ``0x``; ``bytes.fromhex`` alone would accept whitespace between digits).

    Raises:
        ApiError: 422 ``bad_entropy``.
    """
    if not isinstance(text, str) or not _ENTROPY.fullmatch(text):
        shown = repr(text)[:60]
        raise ApiError(422, "bad_entropy", f"entropy must be exactly 32 hex characters "
                       f"(16 bytes from the device), nothing else; got {shown}")
    return bytes.fromhex(text)


def _rename(live: _Live, names: list[str | None]) -> None:
    """Give the cached match its players' names as the users table has them now (a guest
    who upgrades to a full account renames themself); the computer keeps its own."""
    seats = live.info.seats
    if all(name is None or who.bot or who.username == name
           for who, name in zip(seats, names, strict=True)):
        return
    new = tuple(who if who.bot or name is None else replace(who, username=name)
                for who, name in zip(seats, names, strict=True))
    live.info = replace(live.info, seats=new)
    live.match.players = (new[0].username, new[1].username)


def _request_key(action: dict[str, Any]) -> str:
    """A client's action as canonical JSON (sorted keys), to tell a resend from another action
    sent under the same ``action_id``."""
    return json.dumps(action, sort_keys=True, separators=(",", ":"))


def _check_roll_resend(action: dict[str, Any], rolled: dict[str, Any] | None) -> None:
    """Refuse a roll action sent again for dice already rolled unless it is the same action:
    same roll, the commitment as issued and the same entropy (``rolled``: the roll as
    :func:`roll_json` gives it, ``None`` if the earlier action was no roll).

    Raises:
        ApiError: 409 ``already_rolled``.
    """
    entropy = action.get("entropy")
    same = (rolled is not None and not action.get("auto")
            and action.get("roll_id") == rolled["roll_id"]
            and action.get("commitment") == rolled["commitment"]
            and isinstance(entropy, str) and rolled["client_entropy"] is not None
            and entropy.lower() == rolled["client_entropy"])
    if not same:
        raise ApiError(409, "already_rolled", "these dice are already rolled; only the same "
                       "roll action (same roll_id, commitment and entropy) may be sent again")


def _match_over(match: Match) -> EngineError:
    return MatchOver(f"the match is over: seat {match.winner} won")
