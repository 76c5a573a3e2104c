"""Matches in the database: loading (a replay of the match log), persisting, and this
process's cache of replayed matches. The only module with SQL for matches.

Every accepted action is appended to ``match_log`` (the engine's record, one row per
:mod:`~boardgammon.engine.record` entry) and committed before anyone is told; a match is
rebuilt by replaying its log. Each process caches replayed matches (at most
:data:`CACHE_SIZE`, least recently used out first; finished matches leave it) and catches up
from the log when another process has written (``matches.version`` = log length, read at the
start of every write transaction and checked again by the conditional update that ends it).

One database transaction per write (:meth:`MatchRepository.write`): the log entries, the
summary row and every change to the dice record commit together or not at all; on any error or
lost race the transaction is rolled back and this process's cached match dropped.

One change is written late: a live v2 roll's request, which a single server process may hold
(:meth:`MatchRepository.hold`) and write at the start of the match's next write, the link's
as a rule, in that write's transaction (docs/server.md §A request held until the link). Until
then the cached record shows the roll requested over the stored one.

Correspondence matches run on the engine's clock with a delay of the chosen days per move and
a reserve of :data:`CORRESPONDENCE_GRACE_PER_POINT` seconds per point, so a missed deadline is
the engine's flag and is recorded as such.
"""

from __future__ import annotations

import json
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar, cast

from sqlalchemy import (
    Select,
    Table,
    bindparam,
    case,
    exists,
    insert,
    null,
    or_,
    select,
    union,
    update,
)
from sqlalchemy.engine import Row
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from boardgammon.engine.clock import PRESETS, TimeControl
from boardgammon.engine.match import Match
from boardgammon.engine.record import action_from_dict
from boardgammon.server import dice_record, dice_record_v2
from boardgammon.server.db import Database, rowcount
from boardgammon.server.dice_record import Roll
from boardgammon.server.dice_record_v2 import RollV2
from boardgammon.server.locks import MatchLocks
from boardgammon.server.match_events import Event
from boardgammon.server.match_state import (
    AnyRoll,
    MatchInfo,
    RollEntry,
    Seat,
    roll_json,
    stated_link_due,
)
from boardgammon.server.refusals import NotFound, Unavailable
from boardgammon.server.tables import (
    DiceRoll,
    DiceRollV2,
    MatchActionLabel,
    MatchAnalysisRow,
    MatchLogEntry,
    MatchRow,
    User,
)

CORRESPONDENCE_GRACE_PER_POINT = 60.0
WRITE_ATTEMPTS = 5
CACHE_SIZE = 1024
"""Replayed matches a process keeps (least recently used dropped first); finished ones are
not kept at all. Each is a few kilobytes; a match not cached is replayed from its log."""

# The statements every action runs, built once (building one, coercing each clause and
# computing its cache key, cost more than executing it on SQLite), as Core statements on the
# tables: no ORM compilation, identity map or session synchronisation. They run on the
# session's connection (``s.connection().execute``): Session.execute finds the connection
# again for every statement, which cost a third of each statement's time in the live benchmark.
# Declarative's __table__ is typed as any FromClause; these classes map plain Tables.
_MATCHES = cast(Table, MatchRow.__table__)
_LOG = cast(Table, MatchLogEntry.__table__)
_LABELS = cast(Table, MatchActionLabel.__table__)
_ROLLS = cast(Table, DiceRoll.__table__)
# The version, and the seats' names as they are now (a guest who upgrades takes a new name).
_USERS = cast(Table, User.__table__)
_NAME0, _NAME1 = _USERS.alias("seat0"), _USERS.alias("seat1")
# The match's version, its seats' names and its stated link wait (which another process may
# have fixed since this one cached the match): what a cached match is checked against.
_VERSION = (select(_MATCHES.c.version, _NAME0.c.username, _NAME1.c.username,
                   _MATCHES.c.link_wait_ms)
            .select_from(_MATCHES.outerjoin(_NAME0, _NAME0.c.id == _MATCHES.c.seat0_id)
                         .outerjoin(_NAME1, _NAME1.c.id == _MATCHES.c.seat1_id))
            .where(_MATCHES.c.id == bindparam("match_id")))
_ROLLS_V2 = cast(Table, DiceRollV2.__table__)
# Each protocol's record head: a match's rolls are in the table of its protocol.
_ROLLS_HEAD = {
    dice: (select(table.c.seq, table.c.state).where(table.c.match_id == bindparam("match_id"))
           .order_by(table.c.seq.desc()).limit(1))
    for dice, table in (("v1", _ROLLS), ("v2", _ROLLS_V2))
}
_LOGGED = select(*_LOG.c).where(_LOG.c.match_id == bindparam("match_id"),
                                _LOG.c.action_id == bindparam("action_id"))
_LABELLED = select(*_LABELS.c).where(_LABELS.c.match_id == bindparam("match_id"),
                                     _LABELS.c.action_id == bindparam("action_id"))
# Whether a client's action ID is used in the match: by a log entry, or by an action that
# added none (a label).
_USED = or_(
    exists().where(_LOG.c.match_id == bindparam("match_id"),
                   _LOG.c.action_id == bindparam("action_id")),
    exists().where(_LABELS.c.match_id == bindparam("match_id"),
                   _LABELS.c.action_id == bindparam("action_id")))
_HOLD_MATCH = select(_MATCHES.c.id).where(_MATCHES.c.id == bindparam("match_id")).with_for_update()
_APPEND_LOG = insert(_LOG)
_APPEND_LABEL = insert(_LABELS)
# The summary moves on only from the version this write started from (else: Conflict).
_SUMMARY = (update(_MATCHES)
            .where(_MATCHES.c.id == bindparam("match_id"),
                   _MATCHES.c.version == bindparam("before"))
            .values(version=bindparam("version"), turn_seat=bindparam("turn_seat"),
                    score0=bindparam("score0"), score1=bindparam("score1"),
                    winner=bindparam("winner"), status=bindparam("status"),
                    deadline_t=bindparam("deadline_t"), updated_at=bindparam("updated_at"),
                    # A finished match waits for no roll (one forfeited before its first).
                    awaiting_first_roll_since=case(
                        (bindparam("status") == "active",
                         _MATCHES.c.awaiting_first_roll_since), else_=null())))
# What makes a match due (due_ids), each part read through an index that holds little more
# than what is due: the active matches (whose clocks may have run out), the requested v2 rolls
# (whose opponent's link may be overdue), the live v2 matches still waiting for their first
# roll (matches.awaiting_first_roll_since's partial index; an anti-join of every active match
# against the v2 rolls before migration 0020). A requested roll comes with its request's time
# and its match's stated link wait (migration 0024), which may make it due later than
# ``link_due`` says (stated_link_due); the other parts with neither. The requested rolls come
# first: a union's columns take their types from its first select.
_DUE_CLOCK = select(_MATCHES.c.id).where(_MATCHES.c.status == "active",
                                         _MATCHES.c.deadline_t < bindparam("now"))
_DUE = union(
    select(_ROLLS_V2.c.match_id, _ROLLS_V2.c.requested_at, _MATCHES.c.link_wait_ms)
    .select_from(_ROLLS_V2.join(_MATCHES, _MATCHES.c.id == _ROLLS_V2.c.match_id))
    .where(_ROLLS_V2.c.state == "requested", _ROLLS_V2.c.requested_at < bindparam("link_due")),
    _DUE_CLOCK.add_columns(null(), null()),
    select(_MATCHES.c.id, null(), null())
    .where(_MATCHES.c.awaiting_first_roll_since < bindparam("link_due")),
)

# No process-wide engine lock: a match's replayed Match and its bot are only touched under that
# match's lock (:meth:`MatchService.lock`), legal-play generation keeps its scratch buffers per
# thread (``boardgammon.engine.board._PER_THREAD``), the neural evaluator allocates its own per
# call and the bear-off table is loaded under a lock of its own; so matches (and the analysis
# worker) run in parallel threads without sharing mutable state.


log = logging.getLogger("boardgammon.server.match_repository")

T = TypeVar("T")
RollT = TypeVar("RollT", Roll, RollV2)


class Conflict(Exception):
    """Another thread or process wrote the match first; reload and try again."""


Snapshot = tuple[int, tuple[int, str] | None]
"""What a process's cached match must match to be current: (log version, dice record head)."""


@dataclass
class Probe:
    """What an action reads besides its match, asked in the same statement as the match's
    version and dice record head (:meth:`MatchRepository.current`): three statements fewer
    an action (docs/server.md §One statement before an action).

    Args:
        token: the bind parameters of the session check the repository was made with
            (:func:`.auth.token_params`), or ``None`` for no check.
        action_id: a client's action ID to look up in the match's log, or ``None``.
    """

    token: dict[str, object] | None = None
    action_id: str | None = None
    user_id: int | None = None
    """Out: the ID of the user whose session the token is (``None``: ended, or no check)."""
    logged: bool = False
    """Out: ``action_id`` labels an entry of the match's log or an action that added none
    already (read it with :meth:`MatchRepository.logged`)."""


@dataclass(frozen=True)
class Label:
    """A client's action that added no entry to the match's record, by its ID
    (:meth:`MatchRepository.persist`): who sent it, its events, the action as sent
    (canonical JSON)."""

    action_id: str
    user_id: int
    events: list[Event]
    request: str


@dataclass
class CachedMatch:
    """A replayed match as this process holds it: its facts, the engine's match at log
    ``version``, and its dice record (``rolls``, whose newest entry is ``rolls_head``)."""

    info: MatchInfo
    match: Match
    version: int = 0
    rolls: list[AnyRoll] = field(default_factory=list)
    rolls_head: tuple[int, str] | None = None
    writing: bool = False  # inside a write transaction whose dice record is tracked here
    # The state's rolls[] entry of each revealed roll, by roll ID: a revealed roll's entry
    # never changes, so each is built once instead of once per roll per view.
    entries: dict[str, RollEntry] = field(default_factory=dict)

    @property
    def snapshot(self) -> Snapshot:
        """What this cached match is current with (see :data:`Snapshot`)."""
        return self.version, self.rolls_head

    def revealed(self) -> list[RollEntry]:
        """``state.rolls``: the entry of every revealed roll, in record order."""
        entries = self.entries
        return [entries.get(r.roll_id) or entries.setdefault(r.roll_id, roll_json(r))
                for r in self.rolls if r.server_seed is not None]

    def track(self, roll: RollT) -> RollT:
        """Take a roll the write just changed or appended into the cached record."""
        if roll.seq < len(self.rolls):
            self.rolls[roll.seq] = roll
        else:
            self.rolls.append(roll)
        if roll.seq == len(self.rolls) - 1:
            self.rolls_head = (roll.seq, roll.state)
        return roll


class MatchCache:
    """This process's replayed matches by ID: at most ``size``, the least recently used dropped
    first, and never a finished match (it changes no more and is rarely read again; one that
    is read is replayed from the log). Thread-safe; an entry dropped while a thread still uses
    its object only means the next reader replays the match."""

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError(f"the match cache holds at least 1 match, got {size}")
        self.size = size
        self._entries: OrderedDict[str, CachedMatch] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, match_id: str) -> bool:
        return match_id in self._entries

    def get(self, match_id: str) -> CachedMatch | None:
        with self._lock:
            cached = self._entries.get(match_id)
            if cached is not None:
                self._entries.move_to_end(match_id)
            return cached

    def put(self, match_id: str, cached: CachedMatch) -> None:
        with self._lock:
            if cached.match.is_over:
                self._entries.pop(match_id, None)
                return
            self._entries[match_id] = cached
            self._entries.move_to_end(match_id)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)

    def pop(self, match_id: str) -> None:
        with self._lock:
            self._entries.pop(match_id, None)

    def values(self) -> list[CachedMatch]:
        """The cached matches now (a copy: the cache may change as the caller goes)."""
        with self._lock:
            return list(self._entries.values())


def time_control(mode: str, clock: str | None, days: int | None) -> TimeControl | None:
    """The engine time control of a match: a live preset, the correspondence clock (see the
    module docstring), or ``None`` (no clock: live without a preset, games against the bot)."""
    if mode == "correspondence" and days:
        return TimeControl(f"correspondence-{days}d", delay=days * 86400.0,
                           reserve_per_point=CORRESPONDENCE_GRACE_PER_POINT)
    return PRESETS[clock] if clock else None


class MatchRepository:
    """Matches of one server process: the database, the cache, the write transactions.

    Args:
        db: the migrated database.
        locks: the process's per-match locks; every use of a cached match holds its
            :meth:`~.MatchLocks.thread` lock.
        cache_size: how many replayed matches to keep (see :data:`CACHE_SIZE`).
        resumes: the service's clock resumptions (:attr:`.ServiceClock.resumes`), given to
            every live match's clock.
        to_service: wall seconds (the dice record's times) to service seconds (the clocks').
        charge_start: the service time from which a wait for a link that began at the given
            service time is charged, where later than its start (a restart's grace,
            :meth:`.MatchService.charged_from`), or ``None``.
        session_check: a statement of one column and one row at most, the ID of the user
            whose session a :class:`Probe`'s ``token`` parameters name
            (:data:`.auth.TOKEN_USER`); ``None``: probes check no session.
    """

    def __init__(self, db: Database, locks: MatchLocks, cache_size: int = CACHE_SIZE,
                 resumes: Sequence[float] = (),
                 to_service: Callable[[float], float] = lambda wall: wall,
                 charge_start: Callable[[float], float | None] = lambda since: None,
                 session_check: Select[int] | None = None) -> None:
        self.db = db
        self.session_check = session_check.scalar_subquery() if session_check is not None else None
        # (dice or None, session checked, action ID looked up) → the statement of current()
        self._probes: dict[tuple[str | None, bool, bool], Select[tuple[Any, ...]]] = {}
        self.locks = locks
        self.resumes = resumes
        self.to_service = to_service
        self.charge_start = charge_start
        self.cache = MatchCache(cache_size)
        # match ID → its pending v2 roll as requested, not yet written (:meth:`hold`), the
        # match's deadline then (service time; None without a clock), its stated link wait
        # (ms, :attr:`MatchInfo.link_wait_ms`) and the request's action label.
        self._held: dict[str, tuple[RollV2, float | None, int | None, Label]] = {}
        self._held_lock = threading.Lock()

    def hold(self, cached: CachedMatch, roll: RollV2, label: Label) -> None:
        """Keep ``roll``, the match's pending v2 roll as its request made it (state
        ``requested``, the roller's entropy and ``requested_at``), in this process instead of
        writing it: the cached record shows it over the stored roll (still ``committed``), and
        the match's next :meth:`write` writes it first, in its own transaction, with the time
        it was requested, and ``label``, the request's action ID (:meth:`persist`). A process
        that stops before loses it: the roll is then committed again, and its roller's device
        asks for it again with the same entropy. The caller holds the match's thread lock."""
        match_id = cached.info.match_id
        assert cached.rolls and cached.rolls[-1].roll_id == roll.roll_id
        with self._held_lock:
            self._held[match_id] = (roll, cached.match.deadline(), cached.info.link_wait_ms,
                                    label)
        cached.rolls[-1] = roll  # the head stays the stored one's: the cache is still current

    def held_ids(self) -> list[str]:
        """IDs of the matches whose request :meth:`hold` keeps."""
        with self._held_lock:
            return list(self._held)

    def held(self, match_id: str) -> RollV2 | None:
        """The request :meth:`hold` keeps for ``match_id``, if any."""
        with self._held_lock:
            held = self._held.get(match_id)
        return held[0] if held is not None else None

    def held_due(self, now: float, link_due: datetime, link_wait: timedelta) -> list[str]:
        """IDs of the matches whose held request was made before ``link_due`` (wall time,
        this process's wait ``link_wait`` ago, or earlier by as much as its match's stated
        wait is longer: :func:`.stated_link_due`), whose wait for the opponent's link is over,
        or whose clock has run out by ``now`` (service time: the waiting opponent's reserve),
        as :meth:`due_ids` finds them for the stored ones. Nothing changes a match's deadline
        while its request is held: any change is a write, which writes the request first."""
        with self._held_lock:
            return [match_id for match_id, (roll, deadline, stated, _) in self._held.items()
                    if (roll.requested_at is not None and roll.requested_at
                        <= stated_link_due(link_due, link_wait, stated))
                    or (deadline is not None and deadline < now)]

    def _release(self, match_id: str, roll: RollV2) -> None:
        with self._held_lock:
            held = self._held.get(match_id)
            if held is not None and held[0] is roll:
                del self._held[match_id]

    def _show_held(self, cached: CachedMatch) -> None:
        """Put the held request over the stored roll it requests in a record just read; a hold
        that the stored record has moved past (it cannot, as every write writes it first) is
        dropped."""
        held = self.held(cached.info.match_id)
        if held is None:
            return
        head = cached.rolls[-1] if cached.rolls else None
        if head is not None and head.roll_id == held.roll_id and head.state == "committed":
            cached.rolls[-1] = held
        else:
            log.warning("match %s: the held request of roll %s is dropped: the stored record "
                        "moved past it (another process writing matches without Redis?)",
                        cached.info.match_id, held.roll_id)
            self._release(cached.info.match_id, held)

    def _write_held(self, s: Session, cached: CachedMatch, probe: Probe | None
                    ) -> RollV2 | None:
        """Write the match's held request (:meth:`hold`) in the write transaction ``s``, as
        the request's own write would have (the roll's new state with its time, its leaf in
        the public log, its action's label, the deadline of the clock the wait runs on); the
        roll written, to release once committed, or ``None`` with none held. ``probe``, read
        before, learns that its action ID is used where it is the request's."""
        with self._held_lock:
            entry = self._held.get(cached.info.match_id)
        if entry is None:
            return None
        held, label = entry[0], entry[3]
        assert held.roller_entropy is not None and held.requested_at is not None
        entropy = held.roller_entropy if held.roller_source == "client" else None
        cached.track(dice_record_v2.request_roll(
            s, held.roll_id, held.commitment, entropy, now=held.requested_at, commit=False))
        if cached.match.clock is not None:
            self.move_deadline(s, cached)
        self.label(s, cached.info.match_id, label, held.requested_at)
        if probe is not None and probe.action_id == label.action_id:
            probe.logged = True
        return held

    def add(self, session: Session, row: MatchRow) -> None:
        """Insert a new match's summary row and commit it; an active live v2 match waits for
        its first roll from its ``created_at`` (:attr:`MatchRow.awaiting_first_roll_since`,
        cleared when the roll is committed: :func:`.dice_record_v2.commit_roll`), except
        against the computer when the human rolls first (seat 0 opens)."""
        if (row.dice == "v2" and row.mode == "live" and row.status == "active"
                and row.bot_seat in (None, 0)):
            row.awaiting_first_roll_since = row.created_at
        session.add(row)
        session.commit()

    def read(self, match_id: str, snapshot: Snapshot | None = None) -> CachedMatch:
        """The match as the database has it now, with its dice record; from the cache alone
        when it matches ``snapshot``. The caller holds the match's thread lock.

        Raises:
            NotFound: ``not_found``.
        """
        cached = self.cache.get(match_id)
        if cached is None or snapshot is None or cached.snapshot != snapshot:
            with self.db.read_sessions() as s:
                cached = self.current(s, match_id)
        return cached

    def cached(self, match_id: str, snapshot: Snapshot | None) -> CachedMatch | None:
        """The cached match if it matches ``snapshot`` and no write is changing it, else
        ``None``; never reads the database."""
        cached = self.cache.get(match_id)
        if cached is None or snapshot is None or cached.writing or cached.snapshot != snapshot:
            return None
        return cached

    def write(self, match_id: str, step: Callable[[Session, CachedMatch], T],
              probe: Probe | None = None) -> tuple[T, CachedMatch]:
        """Run ``step`` on the current match in one transaction and commit it; a lost race is
        retried from a fresh load, any other error rolls everything back (and drops the cached
        match, which the step may have changed) before it propagates. Returns the step's
        result and the match after it. ``probe``: read in the transaction's first statement
        (:meth:`current`), again at every attempt, before ``step``.

        Raises:
            NotFound: ``not_found``; Unavailable: ``busy`` when every attempt lost a race.
        """
        with self.locks.thread(match_id):
            for _ in range(WRITE_ATTEMPTS):
                with self.db.writing() as s:
                    cached = held = None
                    try:
                        cached = self.current(s, match_id, probe)  # head read here too
                        cached.writing = True
                        held = self._write_held(s, cached, probe)  # held: written first
                        result = step(s, cached)
                        s.commit()
                    except (Conflict, IntegrityError):
                        s.rollback()
                        self.cache.pop(match_id)
                        continue
                    except BaseException:
                        s.rollback()
                        self.cache.pop(match_id)
                        raise
                    finally:
                        if cached is not None:
                            cached.writing = False
                    if held is not None:
                        self._release(match_id, held)
                    if cached.match.is_over:
                        self.cache.pop(match_id)  # a finished match leaves the cache
                    return result, cached
            raise Unavailable(f"match {match_id} is being changed elsewhere; retry")

    def load(self, s: Session, match_id: str) -> CachedMatch:
        """The match replayed up to the log's end, from the cache where it is current.

        Raises:
            NotFound: ``not_found``.
        """
        cached = self.cache.get(match_id)
        if cached is not None:
            found = s.connection().execute(_VERSION, {"match_id": match_id}).first()
            if found is None:
                raise NotFound(f"no match {match_id!r}")
            version, name0, name1, stated = found
            _rename(cached, [name0, name1])
            _restate(cached, stated)
            if version == cached.version:
                return cached
        return self._replay(s, match_id, cached)

    def current(self, s: Session, match_id: str, probe: Probe | None = None) -> CachedMatch:
        """:meth:`load`, then :meth:`rolls`, with ``probe``'s reads filled in; for a cached
        match all in one statement (its version, its seats' names, its dice record's head and
        the probe's reads: on SQLite each statement is some 30–90 µs of Python, and an action
        asked four).

        Raises:
            NotFound: ``not_found``.
        """
        cached = self.cache.get(match_id)
        dice = cached.info.dice if cached is not None else None
        params: dict[str, object] = {"match_id": match_id}
        if probe is not None:
            if probe.token is not None:
                params.update(probe.token)
            if probe.action_id is not None:
                params["action_id"] = probe.action_id
        found = s.connection().execute(self._probe(dice, probe), params).first()
        if found is None:
            raise NotFound(f"no match {match_id!r}")
        version, name0, name1, stated, *more = found
        head: tuple[int, str] | None = None
        if dice is not None:
            seq, state, *more = more
            head = (seq, state) if seq is not None else None
        if probe is not None:
            if probe.token is not None:
                probe.user_id, *more = more
            if probe.action_id is not None:
                probe.logged = bool(more[0])
        if cached is not None:
            _rename(cached, [name0, name1])
            _restate(cached, stated)
        if cached is None or version != cached.version:
            cached = self._replay(s, match_id, cached)
        if dice is None:
            self.rolls(s, cached)
        else:
            self._rolls_at(s, cached, head)
        return cached

    def _probe(self, dice: str | None, probe: Probe | None) -> Select[tuple[Any, ...]]:
        """The statement of :meth:`current`: ``_VERSION``'s columns, then the record head's
        sequence number and state (for a known protocol), the session's user ID, whether the
        action ID is used (``_USED``), each where asked; built once a kind."""
        token = probe is not None and probe.token is not None
        action = probe is not None and probe.action_id is not None
        if token and self.session_check is None:
            raise ValueError("a probe with a session check, on a repository made without one")
        key = (dice, token, action)
        statement = self._probes.get(key)
        if statement is None:
            columns: list[Any] = []
            if dice is not None:
                head = _ROLLS_HEAD[dice]
                columns += [head.with_only_columns(c).scalar_subquery()
                            for c in head.selected_columns]
            if token:
                columns.append(self.session_check)
            if action:
                columns.append(_USED)
            statement = self._probes[key] = _VERSION.add_columns(*columns)
        return statement

    def _replay(self, s: Session, match_id: str, cached: CachedMatch | None) -> CachedMatch:
        """The match replayed to the log's end: ``cached`` caught up, or replayed afresh.

        Raises:
            NotFound: ``not_found``.
        """
        row = s.get(MatchRow, match_id, populate_existing=True)
        if row is None:
            raise NotFound(f"no match {match_id!r}")
        if cached is None or cached.version > row.version:
            info = _info(s, row)
            cached = CachedMatch(info, Match(row.length, row.variant,
                                             (info.seats[0].username, info.seats[1].username),
                                             time_control(row.mode, row.clock, row.days),
                                             start=row.start_t))
            if row.mode == "live" and cached.match.clock is not None:
                cached.match.clock.resumes = self.resumes
        if cached.version < row.version:
            entries = s.execute(
                select(MatchLogEntry.seq, MatchLogEntry.action)
                .where(MatchLogEntry.match_id == match_id, MatchLogEntry.seq >= cached.version)
                .order_by(MatchLogEntry.seq)
            ).all()
            for seq, text in entries:
                cached.match.apply(action_from_dict(json.loads(text)))
                cached.version = seq + 1
        if self.cache.get(match_id) is not cached:
            self.hold_for_link(s, cached)  # replayed afresh
        self.cache.put(match_id, cached)
        return cached

    def hold_for_link(self, s: Session, cached: CachedMatch) -> None:
        """Put the wait for an opponent's link on the match clock where the dice record has
        one and the match does not (replayed from its log, which has the wait only once the
        roll is made, or changed by another process): the opponent's reserve runs since the
        roll was requested (or from :attr:`charge_start`, after a restart), the roller's
        stands still (:meth:`Match.await_device`)."""
        m = cached.match
        clock = m.clock
        if clock is None or clock.held is not None or m.is_over or cached.info.mode != "live":
            return
        rolls = self.rolls(s, cached)
        pending = rolls[-1] if rolls else None
        if (not isinstance(pending, RollV2) or pending.state != "requested"
                or pending.opponent_prev_link is None or pending.requested_at is None
                or clock.running != pending.seat):
            return
        since = self.to_service(pending.requested_at.timestamp())
        since = max(since, clock.started_at or since)
        m.await_device(1 - pending.seat, since, self.charge_start(since))

    def start_at_first_roll(self, s: Session, cached: CachedMatch) -> None:
        """Start the clock of a live v2 match again when its first roll was committed, if that
        was after the match's start (the roll waited for the players' anchors, up to the link
        wait): the opening roller cannot roll before, so that time is nobody's
        (:meth:`Match.restart`). Stored (``start_t``, ``deadline_t``) so that every replay
        starts there; a process whose cached match still has the old start moves it here."""
        m, info = cached.match, cached.info
        if (m.clock is None or m.start is None or m.record or m.is_over
                or info.mode != "live" or info.dice != "v2"):
            return
        rolls = self.rolls(s, cached)
        if not rolls:
            return
        committed = self.to_service(rolls[0].committed_at.timestamp())
        if committed <= m.start:
            return
        m.restart(committed)
        s.execute(update(MatchRow).where(MatchRow.id == info.match_id)
                  .values(start_t=m.start, deadline_t=m.deadline()))

    def rolls(self, s: Session, cached: CachedMatch) -> list[AnyRoll]:
        """The match's dice record, from the cache unless its newest entry changed (rolls
        only ever change at the head: appended, then revealed, played or voided). Inside a
        write the cache is current: the head was read at its start and every change since
        went through :meth:`CachedMatch.track`."""
        if cached.writing:
            return cached.rolls
        match_id, dice = cached.info.match_id, cached.info.dice
        head = s.connection().execute(_ROLLS_HEAD[dice], {"match_id": match_id}).first()
        return self._rolls_at(s, cached, (head[0], head[1]) if head is not None else None)

    def _rolls_at(self, s: Session, cached: CachedMatch, key: tuple[int, str] | None
                  ) -> list[AnyRoll]:
        """:meth:`rolls`, the record's head (sequence number, state) read already."""
        if cached.writing:
            return cached.rolls
        match_id, dice = cached.info.match_id, cached.info.dice
        if key != cached.rolls_head or key is None:
            cached.rolls = list(dice_record_v2.match_rolls(s, match_id) if dice == "v2"
                                else dice_record.match_rolls(s, match_id))
            cached.rolls_head = key
            self._show_held(cached)
        return cached.rolls

    def logged(self, s: Session, match_id: str, action_id: str) -> Row | None:
        """The log entry a client's ``action_id`` labels in the match, or the label of an
        action that added none (:meth:`persist`; its ``user_id``, ``events`` and ``request``
        as an entry's); ``None``: not used."""
        params = {"match_id": match_id, "action_id": action_id}
        connection = s.connection()
        return (connection.execute(_LOGGED, params).first()
                or connection.execute(_LABELLED, params).first())

    def persist(self, s: Session, cached: CachedMatch, before: int, action_id: str | None,
                user_id: int | None, events: Sequence[Event], request: str | None = None
                ) -> None:
        """Append the match's new record actions to the log and update the summary, checking
        that no one else wrote since ``before`` (:class:`Conflict` if someone did); the
        caller's :meth:`write` commits. ``action_id``, ``user_id`` and ``request`` (the
        client's action as canonical JSON) label the first new entry, or, for a client's
        action that added none (a v2 roll's request, an anchor), a row of their own
        (``match_action_labels``): its ID is used all the same. The server's own entries have
        none (client action IDs are any string, so no name the server chose for itself could
        be kept out of their way)."""
        m = cached.match
        new = m.record[before:]
        now = datetime.now(UTC)
        connection = s.connection()
        if not new and action_id is not None and user_id is not None and request is not None:
            self.label(s, cached.info.match_id, Label(action_id, user_id, list(events),
                                                        request), now)
        if new:
            connection.execute(_APPEND_LOG, [
                {"match_id": cached.info.match_id, "seq": before + i,
                 "action_id": action_id if i == 0 else None,
                 "user_id": user_id if i == 0 else None,
                 "action": json.dumps(action.to_dict()),
                 "events": json.dumps(events if i == 0 else []),
                 "request": request if i == 0 else None, "created_at": now}
                for i, action in enumerate(new)])
        changed = rowcount(connection.execute(_SUMMARY, {
            "match_id": cached.info.match_id, "before": before, "version": before + len(new),
            "turn_seat": m.waiting_for, "score0": m.final_score[0], "score1": m.final_score[1],
            "winner": m.winner, "status": "finished" if m.is_over else "active",
            "deadline_t": m.deadline(), "updated_at": now}))
        if changed != 1:
            raise Conflict
        if new and action_id is not None and connection.dialect.name != "sqlite":
            # Several processes (PostgreSQL): the probe read the ID free before this write,
            # and another process's label may have taken it since, which moves no version for
            # the summary's check to see. The summary's update holds the match's row, as a
            # label's write does (:meth:`label`), so what it committed is visible now: lose
            # the race and retry, and the probe then answers for the ID. (SQLite holds the
            # whole database from a write's start: no such race.)
            if connection.execute(_LABELLED, {"match_id": cached.info.match_id,
                                                 "action_id": action_id}).first() is not None:
                raise Conflict
        cached.version = before + len(new)

    @staticmethod
    def label(s: Session, match_id: str, label: Label, at: datetime) -> None:
        """Keep ``label``, a client's action that added no record entry, at wall time ``at``
        (aware UTC), in the transaction ``s`` (:meth:`persist`).

        Raises:
            Conflict: (PostgreSQL) another process's entry took the action ID after this
                write's probe read it free; seen once the match's row is held, as an entry's
                write holds it (:meth:`persist`), so the write retries and the probe answers.
        """
        connection = s.connection()
        if connection.dialect.name != "sqlite":
            connection.execute(_HOLD_MATCH, {"match_id": match_id})
            if connection.execute(_LOGGED, {"match_id": match_id,
                                               "action_id": label.action_id}).first():
                raise Conflict
        connection.execute(_APPEND_LABEL, {
            "match_id": match_id, "action_id": label.action_id, "user_id": label.user_id,
            "events": json.dumps(label.events), "request": label.request, "created_at": at})

    def active_ids(self) -> list[str]:
        """IDs of every match not finished."""
        with self.db.read_sessions() as s:
            return list(s.execute(select(MatchRow.id).where(MatchRow.status == "active"))
                        .scalars())

    def move_deadline(self, s: Session, cached: CachedMatch) -> None:
        """Store the match's deadline again (a resumption gave its running clock a fresh delay
        window, so the stored one is too early)."""
        s.execute(update(MatchRow).where(MatchRow.id == cached.info.match_id)
                  .values(deadline_t=cached.match.deadline()))

    def due_ids(self, now: float, link_due: datetime | None = None,
                link_wait: timedelta = timedelta(0)) -> list[str]:
        """IDs of active matches whose running clock has run out by ``now`` (service time),
        and (``link_due``, wall time: this process's wait, ``link_wait``, before the time
        now) those whose wait for a device is over: a v2 roll requested before it whose
        opponent's link has not come (before a time earlier by as much as its match's stated
        wait is longer than ``link_wait``: :func:`.stated_link_due`), a live v2 match created
        before it whose first roll still waits for its players' anchors. Each ID once, in no
        particular order; one statement, whose cost follows the active matches and what is
        due, not the matches and rolls of the past."""
        with self.db.read_sessions() as s:
            connection = s.connection()
            if link_due is None:
                return list(connection.execute(_DUE_CLOCK, {"now": now}).scalars())
            due: dict[str, None] = {}
            for match_id, requested_at, stated in connection.execute(
                    _DUE, {"now": now, "link_due": link_due}):
                if requested_at is None or requested_at < stated_link_due(link_due, link_wait,
                                                                          stated):
                    due[match_id] = None
            return list(due)


def matches_of(s: Session, user_id: int) -> Sequence[MatchRow]:
    """The summary rows of every match ``user_id`` sits in (either seat), most recently
    changed first."""
    return s.execute(
        select(MatchRow).where(or_(MatchRow.seat0_id == user_id, MatchRow.seat1_id == user_id))
        .order_by(MatchRow.updated_at.desc())
    ).scalars().all()


def status_of(s: Session, match_id: str) -> str | None:
    """The match's status (``active`` or ``finished``), None when there is no such match."""
    return s.scalar(select(MatchRow.status).where(MatchRow.id == match_id))


def unanalysed_ids(s: Session, limit: int) -> Sequence[str]:
    """IDs of at most ``limit`` finished matches that have no analysis row yet (an aborted
    match, finished without a winner, has nothing to analyse)."""
    return s.scalars(select(MatchRow.id).where(
        MatchRow.status == "finished", MatchRow.winner.is_not(None),
        MatchRow.id.not_in(select(MatchAnalysisRow.match_id))).limit(limit)).all()


def match_info(s: Session, match_id: str) -> MatchInfo | None:
    """Who plays the match and its settings, ``None`` when there is no such match (a dice
    record can outlive or predate its match row: test vectors, imported records)."""
    row = s.get(MatchRow, match_id)
    return _info(s, row) if row is not None else None


def _info(s: Session, row: MatchRow) -> MatchInfo:
    seats = []
    for seat, user_id in enumerate((row.seat0_id, row.seat1_id)):
        if row.bot_seat == seat:
            seats.append(Seat(None, f"Computer ({row.bot_level})", row.bot_level))
        else:
            user = s.get(User, user_id)
            seats.append(Seat(user_id, user.username if user else "?"))
    return MatchInfo(row.id, (seats[0], seats[1]), row.length, row.variant, row.mode,
                     row.clock, row.days, row.bot_seed, row.dice, row.created_at,
                     row.link_wait_ms)


def _restate(cached: CachedMatch, link_wait_ms: int | None) -> None:
    """Give the cached match the link wait its row states now: another process may have
    committed its first roll, and with it the wait, since this one cached it."""
    if cached.info.link_wait_ms != link_wait_ms:
        cached.info = replace(cached.info, link_wait_ms=link_wait_ms)


def _rename(cached: CachedMatch, names: list[str | None]) -> None:
    """Give the cached match its players' names as the users table has them now (a guest
    who upgrades to a full account renames themself); the computer keeps its own."""
    seats = cached.info.seats
    if all(name is None or who.bot or who.username == name
           for who, name in zip(seats, names, strict=True)):
        return
    first, second = (who if who.bot or name is None else replace(who, username=name)
                     for who, name in zip(seats, names, strict=True))
    new = (first, second)
    cached.info = replace(cached.info, seats=new)
    cached.match.players = (new[0].username, new[1].username)
