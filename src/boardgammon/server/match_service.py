"""Matches on the server: create, act, settle, view. Synchronous (run it in a worker thread).

The rules engine's :class:`~boardgammon.engine.match.Match` is the only source of game truth;
:mod:`boardgammon.server.match_repository` loads, persists and caches it, one database
transaction per write (an action, a settle, a computer step). This module applies actions
through the engine and says what happened as events (``docs/api.md`` §WebSocket).

Dice follow the fair-dice protocol through :mod:`boardgammon.server.dice_record`: a roll is
committed at the start of each turn (and for each opening roll), revealed with the roller's
entropy by a ``roll`` action (server entropy for the computer), marked played once the turn is
over, and voided when the game ends before it is rolled. The dice record's calls run inside the
write's transaction (``commit=False``); :meth:`MatchService._settle_step` still brings the
record and the match log into agreement after every action and after a restart (a roll revealed
but not yet in the log is applied, a finished roll is marked played, a missing commitment is
made; :mod:`.match_dice`), which matters for records written before writes were single
transactions; it is idempotent.

New matches roll with the v2 protocol (:mod:`.dice_record_v2`: the roller's request, the
opponent's device's chain link, the server's seed revealed last; :mod:`.match_dice` says how a
roll waits for the link and when it goes on without it); a match created with v1 keeps it.

Opening rolls are rolled by seat 0 and seat 1 in turn, seat 0 first (ties included): the
roll's two dice are seat 0's die and seat 1's die.

The computer's decisions come from :func:`boardgammon.bots.turn.decide`.

Why one module of some 500 lines: every write step here (a player's action, a settle, the
computer's step) runs in one repository transaction and ends with the same reconciliation of
the dice record and the log; storage is in :mod:`.match_repository`, the dice record's
bookkeeping in :mod:`.match_dice`, events in :mod:`.match_events`.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TypeVar

from sqlalchemy.orm import Session

from boardgammon.bots import Bot, create
from boardgammon.bots.turn import (
    AcceptResign,
    Decision,
    DeclineResign,
    Double,
    Drop,
    MakePlay,
    Resign,
    RollDice,
    Take,
    decide,
)
from boardgammon.dice.ids import new_match_id
from boardgammon.dice.verify import GENESIS
from boardgammon.engine.errors import EngineError, MatchOver
from boardgammon.engine.match import Match
from boardgammon.server import match_dice, ratings
from boardgammon.server.actions import (
    AcceptResignAction,
    AnchorAction,
    ClientAction,
    ContributeAction,
    DeclineResignAction,
    DoubleAction,
    DropAction,
    PlayAction,
    ResignAction,
    RollAction,
    TakeAction,
    check_roll_resend,
    request_key,
)
from boardgammon.server.auth import TOKEN_USER, token_params
from boardgammon.server.db import Database
from boardgammon.server.locks import MatchLocks
from boardgammon.server.match_events import (
    Event,
    MatchEndEvent,
    clock_event,
    cube_event,
    game_end_event,
    match_end_event,
    play_event,
    resign_event,
)
from boardgammon.server.match_repository import (
    CACHE_SIZE,
    CachedMatch,
    Label,
    MatchRepository,
    Probe,
    Snapshot,
    time_control,
)
from boardgammon.server.match_state import (
    Clocks,
    MatchInfo,
    MatchState,
    Seat,
    build_states,
    clocks_json,
    games_json,
    state_clocks,
)
from boardgammon.server.refusals import (
    ErrorCode,
    Illegal,
    Invalid,
    NotAllowed,
    NotSignedIn,
    Refusal,
    StateConflict,
    from_engine,
)
from boardgammon.server.service_clock import ServiceClock
from boardgammon.server.tables import MatchRow

# No process-wide engine lock: a match's replayed Match and its bot are only touched under that
# match's lock (:meth:`MatchLocks.thread`), legal-play generation keeps its scratch buffers per
# thread (``boardgammon.engine.board._PER_THREAD``), the neural evaluator allocates its own per
# call and the bear-off table is loaded under a lock of its own; so matches (and the analysis
# worker) run in parallel threads without sharing mutable state.


log = logging.getLogger("boardgammon.server.match_service")

R = TypeVar("R")

LINK_WAIT_S = 3.0
"""Seconds a live v2 roll waits for the opponent's link (its device answers at once when
connected: this only bounds what a device that went away costs the match)."""
LINK_WAIT_RANGE_S = (1.0, 60.0)
"""The link waits a server may have (``BOARDGAMMON_LINK_WAIT``), seconds: each live match's
log leaf states its wait for good (``docs/fair-dice.md`` §The public log, Match leaf), so a
mistake (milliseconds for seconds, a wait no device can meet) is refused at start: under a
second a connected device's answer may miss it; over a minute a device that went away stalls
the live match, at the waiting opponent's cost, that long on every roll."""

LINK_GRACE_S = 12.0
"""Seconds after a server process starts during which it reveals no roll without its link
(and starts no live match's first roll without its devices' anchors): the devices reconnect
to a restarted server over some seconds (the web client's socket backs off up to 8 s after
repeated failures), and a link whose posts failed while the server was down is sent again on
the new connection, then answered within :data:`LINK_WAIT_S`."""

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

AnyAction = ClientAction | Decision
"""An action the service applies: a player's, or the computer's (which has no ``action_id``
and rolls with the server's entropy)."""


@dataclass
class StepResult:
    """What an action or a background step did: the events to broadcast (already committed),
    the match version after it, and the refusal of a request that was answered with one
    (the events then are what the server did before refusing, e.g. a flag it claimed). For a
    resent action, ``replayed`` holds its first result's events, for its sender only: they
    happened before and are not broadcast again. ``turn_passed_to``: the player (user ID)
    the match waits for after it if it waited for the other seat before it (``None`` when the
    turn stayed, as through a v2 roll's request and link, went to the computer, or the match
    is over)."""

    events: list[Event] = field(default_factory=list)
    version: int = 0
    error: Refusal | None = None
    resent: bool = False
    snapshot: Snapshot | None = None
    replayed: list[Event] = field(default_factory=list)
    turn_passed_to: int | None = None


@dataclass
class View:
    """A match's state for every viewer: ``states[0]``, ``states[1]``, ``states[None]``
    (spectators), at ``version``."""

    info: MatchInfo
    version: int
    states: dict[int | None, MatchState]



class MatchService:
    """Every match operation of one server process.

    Args:
        db: the migrated database.
        clock: the service clock (injected wall clock in tests).
        locks: the process's per-match locks (shared with the runtime and the hub).
        cache_size: how many replayed matches to keep (see :data:`CACHE_SIZE`).
        dice: the dice protocol of the matches it creates, ``"v2"`` or ``"v1"`` (a match
            keeps the one it was created with).
        link_wait_s: seconds a requested v2 roll waits for the opponent's link before it is
            revealed without it (``absent``). A live match's first roll states it, in whole
            ms, in the match's log leaf and stores it with the match
            (:func:`.match_dice.stated_wait`); that match's rolls then wait at least so long,
            whatever a later process's setting (:func:`.stated_link_due`).
        link_grace_s: seconds after this service is made (the process's start) during which
            no wait for a device is over, whatever :attr:`link_wait` says
            (:data:`LINK_GRACE_S`; 0: none).
        hold_requests: whether a live v2 roll's request may wait in this process for the
            link and be written with it (:meth:`MatchRepository.hold`): only where this is
            the only process that writes matches (no Redis), since the link may reach
            another.

    Raises:
        ValueError: ``dice`` is neither protocol; ``link_wait_s`` is outside
            :data:`LINK_WAIT_RANGE_S` (or not a number).
    """

    def __init__(self, db: Database, clock: ServiceClock, locks: MatchLocks | None = None,
                 cache_size: int = CACHE_SIZE, dice: str = "v2",
                 link_wait_s: float = LINK_WAIT_S, hold_requests: bool = True,
                 link_grace_s: float = LINK_GRACE_S) -> None:
        if dice not in ("v1", "v2"):
            raise ValueError(f"dice must be v1 or v2, got {dice!r}")
        low, high = LINK_WAIT_RANGE_S
        if not low <= link_wait_s <= high:
            # Each live match's log leaf states it in whole ms, for good (LINK_WAIT_RANGE_S).
            raise ValueError(f"the link wait (BOARDGAMMON_LINK_WAIT) must be {low:g} to "
                             f"{high:g} seconds, got {link_wait_s!r}")
        self.db = db
        self.dice = dice
        self.hold_requests = hold_requests
        self.link_wait = timedelta(seconds=link_wait_s)
        self.link_grace_s = link_grace_s
        self._started = clock.wall()
        self.boot: int | None = round(self._started * 1000) if hold_requests else None
        """``state.boot``: when this process started (Unix milliseconds), where it may answer
        a request before it is written (:meth:`_hold_request`), so that a restart can take a
        state's ``version`` back; ``None`` where every answer is durable (several processes:
        versions never go back). Clients order states by (``boot``, ``version``) where both
        have a boot (``docs/api.md``, ``version``)."""
        self.clock = clock
        self.locks = locks if locks is not None else MatchLocks()
        self.matches = MatchRepository(db, self.locks, cache_size, clock.resumes,
                                       clock.to_service, self.charged_from, TOKEN_USER)
        self._bots: dict[str, Bot] = {}

    # Creating -------------------------------------------------------------------------------

    def create(self, session: Session, seats: tuple[Seat, Seat], length: int, variant: str,
               mode: str, clock: str | None, days: int | None, bot_seed: int | None = None,
               rematch_of: str | None = None) -> str:
        """Create a match, commit it and its first opening-roll commitment; returns its ID.
        ``rematch_of``: the finished match it is the rematch of (each has at most one).

        Raises:
            Invalid: ``invalid_request`` for settings the engine refuses;
            sqlalchemy.exc.IntegrityError: ``rematch_of`` has a rematch already.
        """
        tc = time_control(mode, clock, days)
        # With a clock the opening roll is on it from the start (a player who never rolls it
        # has the match aborted, Match.no_show); the start is stored so every replay of the
        # match runs the same clock.
        start = self.clock.now() if tc is not None else None
        try:
            m = Match(length, variant, (seats[0].username, seats[1].username), tc, start=start)
        except (ValueError, KeyError) as exc:
            raise Invalid(str(exc)) from exc
        match_id = new_match_id()
        now = datetime.now(UTC)
        # The service's wall time: a v2 match's first roll waits for the anchors from it.
        created = self._wall(self.clock.now())
        bot_seat = next((s for s, who in enumerate(seats) if who.bot), None)
        self.matches.add(session, MatchRow(
            id=match_id, seat0_id=seats[0].user_id, seat1_id=seats[1].user_id,
            bot_seat=bot_seat, bot_level=seats[bot_seat].bot if bot_seat is not None else None,
            bot_seed=bot_seed, length=length, variant=variant, mode=mode, clock=clock,
            days=days, status="active", version=0, turn_seat=0, score0=0, score1=0,
            winner=None, start_t=start, deadline_t=m.deadline(), created_at=created,
            updated_at=now, dice=self.dice, rematch_of=rematch_of))
        self.settle(match_id)
        return match_id

    # Reading --------------------------------------------------------------------------------

    def view(self, match_id: str, viewers: Iterable[int | None] = (0, 1, None),
             snapshot: Snapshot | None = None) -> View:
        """The state now for each of ``viewers`` (seats, ``None`` for spectators). With the
        ``snapshot`` of a :class:`StepResult` that this process's cache still matches, the
        database is not read.

        Raises:
            NotFound: ``not_found``.
        """
        with self.locks.thread(match_id):
            return self._view(self.matches.read(match_id, snapshot), viewers)

    def cached_view(self, match_id: str, viewers: Iterable[int | None],
                    snapshot: Snapshot | None) -> View | None:
        """:meth:`view` without blocking and without the database: ``None`` unless this
        process's cache matches ``snapshot`` and no other thread is using the match. Cheap
        enough (states built from memory) for the event loop's thread, which saves the hop to
        a worker thread for each broadcast."""
        lock = self.locks.thread(match_id)
        if snapshot is None or not lock.acquire(blocking=False):
            return None
        try:
            cached = self.matches.cached(match_id, snapshot)
            return self._view(cached, viewers) if cached is not None else None
        finally:
            lock.release()

    def _view(self, cached: CachedMatch, viewers: Iterable[int | None]) -> View:
        rolls = cached.rolls
        extra = ({"chain_head": rolls[-1].entry_hash if rolls else GENESIS}
                 if cached.match.is_over else None)
        now = self._now(cached)
        states = build_states(cached.info, cached.match, rolls, viewers, now, self.clock.to_wall,
                              extra, cached.revealed(), log_version=cached.version,
                              boot=self.boot)
        return View(cached.info, cached.version, states)

    def view_for(self, match_id: str, user_id: int | None,
                 snapshot: Snapshot | None = None) -> MatchState:
        """The state from ``user_id``'s seat (a spectator's if not a player)."""
        with self.locks.thread(match_id):
            cached = self.matches.cache.get(match_id)
            seats = (cached.info.seat_of(user_id),) if cached is not None else (0, 1, None)
            view = self.view(match_id, seats, snapshot)
            return view.states[view.info.seat_of(user_id)]

    def clocks(self, match_id: str) -> Clocks | None:
        """The match's clock now, as ``state.clocks`` shows it (each seat's remaining reserve
        in seconds, the running seat, the delay left, ``as_of`` in wall seconds); ``None``
        without a clock.

        Raises:
            NotFound: ``not_found``.
        """
        with self.locks.thread(match_id), self.db.read_sessions() as s:
            cached = self.matches.load(s, match_id)
            # As state.clocks: none runs while a v2 match's first roll waits for the anchors.
            return state_clocks(cached.info, cached.match, self.matches.rolls(s, cached),
                                self._now(cached), self.clock.to_wall)

    def match_copy(self, match_id: str) -> tuple[MatchInfo, Match]:
        """The match's facts and a fresh replay of its record (for exports).

        Raises:
            NotFound: ``not_found``.
        """
        with self.locks.thread(match_id), self.db.sessions() as s:
            cached = self.matches.load(s, match_id)
            return cached.info, Match.from_dict(cached.match.to_dict())

    def has_bot(self, match_id: str) -> bool:
        """Whether the computer may have to act in ``match_id`` (True when not cached here:
        the bot step finds out in a worker without touching the database from the caller)."""
        cached = self.matches.cache.get(match_id)
        return cached is None or (cached.info.bot_seat is not None and not cached.match.is_over)

    def active_ids(self) -> list[str]:
        """IDs of every match not finished."""
        return self.matches.active_ids()

    def due_ids(self) -> list[str]:
        """IDs of active matches whose running clock has run out (service time now), or whose
        requested v2 roll waited :attr:`link_wait` for the opponent's link (:meth:`_link_due`),
        and at least as long as its match's leaf states (:func:`.stated_link_due`)."""
        now = self.clock.now()
        link_due = self._link_due(now)
        due = self.matches.due_ids(now, link_due, self.link_wait)
        return due + [i for i in self.matches.held_due(now, link_due, self.link_wait)
                      if i not in due]

    # Acting ---------------------------------------------------------------------------------

    def act(self, match_id: str, user_id: int, action: ClientAction,
            token: str | None = None) -> StepResult:
        """Apply a player's ``action`` and commit it (a live v2 roll's first request may be
        held instead, :meth:`_hold_request`, and committed with the match's next write); a
        resent ``action_id`` returns its first result again. ``token``: a session to check
        again, in the action's own transaction (a WebSocket outlives a sign-out).

        Raises:
            NotSignedIn: ``token`` signed out; NotAllowed: not your match; NotFound: unknown
                match; and
                every refusal of the rules.
        """
        if self.hold_requests and isinstance(action, RollAction):
            held = self._hold_request(match_id, user_id, action, token)
            if held is not None:
                return held
        probe = Probe(token_params(token) if token is not None else None, action.action_id)
        return self._write(match_id, lambda s, cached: self._act(s, cached, user_id, action,
                                                                 probe), probe)

    def write_held(self) -> int:
        """Write every request this process holds (:meth:`_hold_request`) now, each in a write
        of its match that changes nothing else: at a clean stop, so that a restart loses none.
        Returns how many matches it wrote."""
        written = 0
        for match_id in self.matches.held_ids():
            try:
                self.matches.write(match_id, lambda s, cached: None)
                written += 1
            except Exception:  # one match's failure must not keep the others' unwritten
                log.exception("the held request of match %s could not be written", match_id)
        return written

    @property
    def holds_on_loop(self) -> bool:
        """Whether :meth:`hold_now` may answer a request on the event loop's thread: where
        requests are held (a single process) and the database is SQLite, whose reads wait for
        no writer (WAL) and no network."""
        return self.hold_requests and self.db.is_sqlite

    def hold_now(self, match_id: str, user_id: int, action: RollAction,
                 token: str | None) -> StepResult | None:
        """:meth:`_hold_request` without waiting, for the event loop's thread (one read: its
        hop to a worker thread and back cost more than the read, docs/server.md §A request
        answered on the event loop). ``None`` where it cannot answer at once and the caller
        must :meth:`act` in a worker thread: not :attr:`holds_on_loop`, the match not in this
        process's cache (loading it is no work for the loop), another thread using the match,
        a request the cached match says will not be held (:func:`.match_dice.may_hold`: a v1
        roll, a computer's or correspondence match, whose requests are written, read nothing
        here), or one that :meth:`_hold_request` does not hold.

        Raises:
            as :meth:`_hold_request`.
        """
        if not self.holds_on_loop:
            return None
        lock = self.locks.thread(match_id)
        if not lock.acquire(blocking=False):
            return None
        try:
            cached = self.matches.cache.get(match_id)
            if cached is None or not match_dice.may_hold(cached, action):
                return None  # no read on the loop for a request that will be written
            return self._hold_request(match_id, user_id, action, token)
        finally:
            lock.release()

    def _hold_request(self, match_id: str, user_id: int, action: RollAction,
                      token: str | None) -> StepResult | None:
        """A live v2 roll's first request, checked and answered without a write: held in this
        process (:meth:`MatchRepository.hold`) and written with the match's next write, the
        link's as a rule, so that a turn costs one write fewer (docs/server.md §A request held
        until the link). Read in a read transaction, as a write would check it: the session,
        the seat, the action ID, the roll. ``None`` where the request must be written as any
        action (:func:`match_dice.request_to_hold` says when), and for every refusal, which
        the write path gives as before.

        Raises:
            Invalid: ``bad_entropy``.
        """
        probe = Probe(token_params(token) if token is not None else None, action.action_id)
        with self.locks.thread(match_id), self.db.read_sessions() as s:
            cached = self.matches.current(s, match_id, probe)
            if token is not None and probe.user_id != user_id:
                return None
            seat = cached.info.seat_of(user_id)
            if seat is None or self.matches.held(match_id) is not None or probe.logged:
                return None
            rolls = cached.rolls
            now = self._now(cached)
            waiting = cached.match.waiting_for
            roll = match_dice.request_to_hold(cached, rolls, seat, action, now, self._wall(now),
                                              self.charged_from(now))
            if roll is None:
                return None
            events: list[Event] = [match_dice.requested_event(cached, roll)]
            if cached.match.clock is not None:
                events.append(clock_event(clocks_json(cached.match, now, self.clock.to_wall)))
            self.matches.hold(cached, roll, Label(action.action_id, user_id, events,
                                                  request_key(action)))
            seat_now = cached.match.waiting_for
            passed = (None if seat_now is None or seat_now == waiting
                      else cached.info.seats[seat_now].user_id)
            return StepResult(events, cached.version, snapshot=cached.snapshot,
                              turn_passed_to=passed)

    def settle(self, match_id: str) -> StepResult:
        """Claim a flag that is due, reconcile the dice record and the log (see the module
        docstring); returns what it did."""
        return self._write(match_id, self._settle_step)

    def forfeit(self, match_id: str, user_id: int) -> StepResult:
        """``user_id`` forfeits ``match_id`` (their account is being deleted): the opponent
        wins the match (record entry ``forfeit``, ``games[].how`` ``forfeit``), a pending roll
        is voided, and a rated match is rated as any other ending. A match already over
        (a flag fell first) is left as it is.

        Raises:
            NotAllowed: ``user_id`` does not play in the match; NotFound: unknown match.
        """
        return self._write(match_id, lambda s, cached: self._forfeit(s, cached, user_id))

    def _forfeit(self, s: Session, cached: CachedMatch, user_id: int) -> StepResult:
        seat = cached.info.seat_of(user_id)
        if seat is None:
            raise NotAllowed(f"you do not play in match {cached.info.match_id}")
        step = self._settle_step(s, cached)
        m = cached.match
        if m.is_over:
            return step
        before = cached.version
        m.forfeit(seat, now=self._now(cached) if m.clock is not None else None)
        events: list[Event] = [game_end_event(games_json(m)[-1])]
        self.matches.persist(s, cached, before, None, None, events)
        events += self._settle_step(s, cached, void_pending=True).events
        if not any(e["type"] == "match_end" for e in events):
            events.append(self._match_end(s, cached))
        step.events += events
        return step

    def bot_step(self, match_id: str) -> StepResult | None:
        """Let the computer take the one action the match waits for from it, if any; the
        decision runs here, in the caller's (worker) thread. ``None``: nothing to do.

        The computer thinks before the write, holding only this match's lock: deciding inside
        the write held the database's write lock (on SQLite, every match's) for as long as a
        hard decision takes, and every other match's actions waited behind it."""
        planned = self._plan_bot(match_id)
        return self._write(match_id, lambda s, cached: self._bot_step(s, cached, planned))

    def _plan_bot(self, match_id: str) -> tuple[int, Decision] | None:
        """(version, action): the computer's decision on the cached match, if it is the
        computer's turn there; ``None`` if not cached or not its turn (the write decides)."""
        with self.locks.thread(match_id):
            cached = self.matches.cache.get(match_id)
            if cached is None:
                return None
            seat = cached.info.bot_seat
            if (seat is None or cached.match.is_over or cached.match.waiting_for != seat
                    or match_dice.awaiting_link(cached.rolls)
                    or match_dice.first_roll_waits(cached.match, cached.rolls)):
                return None
            return cached.version, self._decide(cached, seat)

    # Machinery ------------------------------------------------------------------------------

    def _write(self, match_id: str, step: Callable[[Session, CachedMatch], R],
               probe: Probe | None = None) -> R:
        """:meth:`MatchRepository.write`; a finished match's computer player goes, and a
        :class:`StepResult` gets the match's version, snapshot and the player the turn passed
        to, if it did."""
        waited: list[int | None] = []

        def stepping(s: Session, cached: CachedMatch) -> R:
            waited[:] = [cached.match.waiting_for]  # of this attempt (a lost race retries)
            return step(s, cached)

        result, cached = self.matches.write(match_id, stepping, probe)
        if cached.match.is_over:
            self._bots.pop(match_id, None)
        if isinstance(result, StepResult):
            result.version = cached.version
            result.snapshot = cached.snapshot
            seat = cached.match.waiting_for
            result.turn_passed_to = (None if seat is None or [seat] == waited
                                     else cached.info.seats[seat].user_id)
        return result

    def _wall(self, now: float) -> datetime:
        """Service time ``now`` as the dice record's times (aware UTC)."""
        return datetime.fromtimestamp(self.clock.to_wall(now), UTC)

    def start_grace(self) -> None:
        """Count ``link_grace_s`` from now (the process is ready for connections), rather than
        from when the service was made; a wait for a link put on a cached match's clock
        meanwhile (the start's settling) takes the charge start of the grace as it now ends
        (:meth:`charged_from`), however long the settling took."""
        self._started = self.clock.wall()
        if not self.hold_requests:
            return
        for cached in self.matches.cache.values():
            with self.locks.thread(cached.info.match_id):
                clock = cached.match.clock
                if clock is not None and clock.held is not None and not cached.match.is_over:
                    charged_from = self.charged_from(clock.held[1])
                    if charged_from is not None and charged_from > clock.held[1]:
                        clock.charged_from = max(clock.charged_from or charged_from,
                                                 charged_from)

    def charged_from(self, since: float) -> float | None:
        """Service time from which a wait for a link that began at service time ``since`` is
        charged to the opponent, or ``None`` (from its start): for a wait that began before
        the end of this process's grace (``link_grace_s``), the grace's end less
        :attr:`link_wait`, so that a restart charges a waiting opponent at most the link wait,
        as a wait without one does (the devices reconnect meanwhile: that time is nobody's,
        :meth:`.Clock.hold`). It depends on the wait's start only, never on when the match
        was loaded (a match read again after the grace, evicted or after a failed write,
        charges the same). ``None`` with several processes (Redis, no held requests): the
        others keep their devices' sockets through one's restart, and the one that reveals
        the roll must charge as any other would."""
        if not self.hold_requests:
            return None
        end = self._started + self.link_grace_s - self.clock.downtime
        if since >= end:
            return None
        return end - self.link_wait.total_seconds()

    def _link_due(self, now: float) -> datetime:
        """The record's time (aware UTC) at or before which a v2 roll's request, or a live
        match's creation (its first roll waiting for the devices' anchors), has waited
        :attr:`link_wait` at service time ``now``; within ``link_grace_s`` of this process's
        start, the Unix epoch: nothing has waited long enough yet (:data:`LINK_GRACE_S`)."""
        if self.clock.wall() < self._started + self.link_grace_s:
            return EPOCH
        return self._wall(now) - self.link_wait

    def _now(self, cached: CachedMatch) -> float:
        # After a restart the service clock resumes at the last heartbeat, which may be a
        # moment before the last recorded action: never let the match see time go backwards.
        last = max((a.t for a in cached.match.record if a.t is not None), default=0.0)
        clock = cached.match.clock
        if clock is not None and clock.held is not None:  # a wait for a link began then
            last = max(last, clock.held[1])
        return max(self.clock.now(), last)

    def _act(self, s: Session, cached: CachedMatch, user_id: int, action: ClientAction,
             probe: Probe) -> StepResult:
        """The step of :meth:`act` in its write; ``probe`` was read by the write's first
        statement (the session, whether the action ID is in the log)."""
        match_id = cached.info.match_id
        if probe.token is not None and probe.user_id != user_id:
            raise NotSignedIn("this connection's session has ended (signed out): sign in "
                              "again to act")
        # Before the log is consulted: someone else learns nothing of this match's action IDs.
        seat = cached.info.seat_of(user_id)
        if seat is None:
            raise NotAllowed(f"you do not play in match {match_id}")
        done = self.matches.logged(s, match_id, action.action_id) if probe.logged else None
        if done is not None:
            if done.user_id != user_id:
                raise StateConflict("that action_id was used by the other player; choose a "
                                    "unique one", ErrorCode.DUPLICATE_ACTION_ID)
            events = json.loads(done.events)
            reused = StateConflict(f"action_id {action.action_id!r} was already used for "
                                   "another action in this match; a resend must be the same "
                                   "action, a new action needs a new ID",
                                   ErrorCode.ACTION_ID_REUSED)
            first = json.loads(done.request) if done.request is not None else None
            if first is not None and first.get("type") != action.type:
                raise reused
            if isinstance(action, RollAction):
                rolled = next((e for e in events if e.get("type") == "roll"), None)
                if rolled is None and first is not None:
                    # A label (a v2 request, or a roll sent again under a new ID): the roll
                    # as the action first sent under this ID asked for it.
                    rolled = {"roll_id": first["roll_id"], "commitment": first["commitment"],
                              "roller_entropy": str(first["entropy"]).lower()}
                check_roll_resend(action, rolled)
            elif done.request is not None and done.request != request_key(action):
                raise reused
            return StepResult([], cached.version, resent=True, replayed=events)
        step = self._settle_step(s, cached)
        if cached.match.is_over:
            step.error = (StateConflict("your reserve ran out: the match is lost on time",
                                           ErrorCode.TIME_EXPIRED)
                             if cached.match.flagged == seat else
                             from_engine(_match_over(cached.match)))
            return step
        rolls = self.matches.rolls(s, cached)
        if isinstance(action, RollAction) and match_dice.rolled_already(rolls, seat, action):
            # The same roll under a new ID (its answer lost): answered, so its ID is kept too.
            self.matches.label(s, match_id, Label(action.action_id, user_id, [],
                                                  request_key(action)), datetime.now(UTC))
            step.resent = True
            return step
        if isinstance(action, DoubleAction) and match_dice.awaiting_link(rolls):
            raise Illegal("the roll is asked for already: the cube decision comes before it",
                          ErrorCode.WRONG_PHASE)
        if isinstance(action, ResignAction) and match_dice.awaiting_link(rolls):
            # The engine rolls only in the roll phase: an offer pending when the link (or the
            # end of its wait) reveals the roll would leave the dice nowhere to go.
            raise Illegal("the roll is asked for already: offer to resign once the dice are "
                          "shown", ErrorCode.WRONG_PHASE)
        step.events += self._perform(s, cached, seat, action, action.action_id, user_id)
        return step

    def _perform(self, s: Session, cached: CachedMatch, seat: int, action: AnyAction,
                 action_id: str | None, user_id: int | None) -> list[Event]:
        """Apply one action of ``seat``, persist it, settle; the events, in order. The
        client's actions come with their ``action_id`` and ``user_id``; the computer's with
        neither."""
        m = cached.match
        before, results, was_over = cached.version, len(m.results), m.is_over
        events = self._apply(s, cached, seat, action)
        for result in games_json(m)[results:]:
            events.append(game_end_event(result))
        request = None if isinstance(action, Decision) else request_key(action)
        self.matches.persist(s, cached, before, action_id, user_id, events, request)
        after = self._settle_step(s, cached, void_pending=len(m.results) > results)
        events += after.events
        if m.is_over and not was_over and not any(e["type"] == "match_end" for e in events):
            events.append(self._match_end(s, cached))
        return events

    def _apply(self, s: Session, cached: CachedMatch, seat: int, action: AnyAction
               ) -> list[Event]:
        m = cached.match
        game = m.game
        now = self._now(cached)
        offer = game.resignation
        offered = int(offer.outcome) if offer else None
        events: list[Event]
        wall = self._wall(now)
        try:
            match action:
                case AnchorAction():
                    return match_dice.register_anchor(s, cached, seat, action, wall)
                case ContributeAction():
                    events = match_dice.contribute(s, cached, self.matches.rolls(s, cached),
                                                   seat, action, now, wall)
                case RollAction() | RollDice():
                    events = match_dice.reveal(s, cached, self.matches.rolls(s, cached), seat,
                                               action, now, wall, self.charged_from(now))
                case PlayAction(play=play) | MakePlay(play=play):
                    legal = m.play(seat, play, now=now)
                    after = legal.after.swapped().position_id if legal.after else None
                    events = [play_event(seat, str(legal), after)]
                case DoubleAction() | Double():
                    events = [cube_event(seat, "double", game.cube * 2)]
                    m.double(seat, now=now)
                case TakeAction() | Take():
                    events = [cube_event(seat, "take", game.cube * 2)]
                    m.take(seat, now=now)
                case DropAction() | Drop():
                    events = [cube_event(seat, "drop", game.cube)]
                    m.drop(seat, now=now)
                case ResignAction(points=points) | Resign(points=points):
                    m.resign(seat, points, now=now)
                    events = [resign_event(seat, "offer", points)]
                case AcceptResignAction() | AcceptResign():
                    m.accept(seat, now=now)
                    events = [resign_event(seat, "accept", offered)]
                case DeclineResignAction() | DeclineResign():
                    m.decline(seat, now=now)
                    events = [resign_event(seat, "decline", offered)]
        except EngineError as exc:
            raise from_engine(exc) from exc
        if m.clock is not None and cached.info.mode == "live":
            events.append(clock_event(clocks_json(m, now, self.clock.to_wall)))
        return events

    def _settle_step(self, s: Session, cached: CachedMatch, void_pending: bool = False
                     ) -> StepResult:
        m = cached.match
        events: list[Event] = []
        was_over = m.is_over
        now = self._now(cached)
        clock = m.clock
        # A live v2 match's clock starts again at its first roll's commitment (another process
        # may have committed it and restarted its own copy); before any wait is put back on.
        self.matches.start_at_first_roll(s, cached)
        self.matches.hold_for_link(s, cached)  # another process may have asked to roll
        # A live v2 match's first roll may still wait for the players' anchors: nobody can act
        # then, and its clock starts again once the roll is committed (start_at_first_roll).
        first_roll_awaited = (cached.info.mode == "live" and cached.info.dice == "v2"
                              and not m.record and not self.matches.rolls(s, cached))
        absent = None if first_roll_awaited else m.no_show(now)
        if not m.is_over and clock is not None and not first_roll_awaited and (
                absent is not None or clock.out_of_time(now) is not None):
            before = cached.version
            # A first action never made aborts the match (nobody wins); any other flag loses it.
            if absent is not None:
                m.claim_abort(now)
            else:
                m.claim_flag(now)
            events = [game_end_event(games_json(m)[-1])]
            if cached.info.mode == "live":
                events.insert(0, clock_event(clocks_json(m, now, self.clock.to_wall)))
            self.matches.persist(s, cached, before, None, None, events)
        elif clock is not None and clock.started_at is not None and clock.resumes \
                and clock.started_at < clock.resumes[-1]:
            self.matches.move_deadline(s, cached)
        rolls = self.matches.rolls(s, cached)
        wall = self._wall(now)
        if not m.is_over:
            match_dice.reveal_overdue(s, cached, rolls, self._link_due(now), self.link_wait,
                                      wall)
        unlogged = match_dice.unlogged_roll(m, rolls)
        if unlogged is not None and not m.is_over:
            # The server stopped between revealing a roll and logging it: log it now.
            before = cached.version
            event = match_dice.apply_roll(cached, unlogged, now)
            self.matches.persist(s, cached, before, None, None, [event])
            events.append(event)
        events += match_dice.advance(s, cached, rolls, void_pending, wall,
                                     self._link_due(now), self.link_wait)
        self.matches.start_at_first_roll(s, cached)
        if m.is_over and not was_over:
            events.append(self._match_end(s, cached))
        return StepResult(events, cached.version)

    def _match_end(self, s: Session, cached: CachedMatch) -> MatchEndEvent:
        """The match just ended (in this transaction, once): rate it, if rated, and say so."""
        match_id = cached.info.match_id
        info, winner = cached.info, cached.match.winner
        if winner is not None:
            ratings.record_result(s, match_id, (info.seats[0].user_id, info.seats[1].user_id),
                                  winner, info.length, info.variant)
        rolls = self.matches.rolls(s, cached)
        return match_end_event(cached.match.winner, cached.match.final_score,
                               rolls[-1].entry_hash if rolls else GENESIS, match_id,
                               cached.match.aborted)

    def _bot_step(self, s: Session, cached: CachedMatch,
                  planned: tuple[int, Decision] | None = None) -> StepResult | None:
        seat = cached.info.bot_seat
        version = cached.version
        step = self._settle_step(s, cached)
        m = cached.match
        rolls = self.matches.rolls(s, cached)
        if (seat is None or m.is_over or m.waiting_for != seat
                or match_dice.awaiting_link(rolls)
                or match_dice.first_roll_waits(m, rolls)):
            return step if step.events else None
        # The plan holds if nothing changed since it was made (else: decide now, rarely).
        if planned is not None and planned[0] == version == cached.version:
            decision = planned[1]
        else:
            decision = self._decide(cached, seat)
        step.events += self._perform(s, cached, seat, decision, None, None)
        return step

    def _decide(self, cached: CachedMatch, seat: int) -> Decision:
        """The computer's next action (:func:`boardgammon.bots.turn.decide`); it rolls with
        the server's entropy."""
        info = cached.info
        bot = self._bots.get(info.match_id)
        if bot is None:
            level = info.seats[seat].bot
            assert level is not None  # only the computer's seat is decided here
            bot = self._bots[info.match_id] = create(level, info.bot_seed)
        return decide(cached.match, seat, bot)


def _match_over(match: Match) -> EngineError:
    if match.aborted is not None:
        return MatchOver(f"the match was aborted: seat {match.aborted} did not make a first move "
                         f"in time")
    return MatchOver(f"the match is over: seat {match.winner} won")
