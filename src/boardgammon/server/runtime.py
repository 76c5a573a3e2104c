"""The game server's running parts in one process: the match service in worker threads, the
event bus, the WebSocket hub, the computer players and the background task (heartbeat, flags
and correspondence deadlines).

:func:`install` adds the routers to an app; :func:`running` is the async context the app's
lifespan enters once the database is open. Settings come from :class:`GameConfig`
(``BOARDGAMMON_REDIS_URL`` selects Redis fan-out); tests pass their own, with an injected wall
clock and without the background loop, and drive it by calling :meth:`Runtime.tick`.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import threading
import time
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import anyio.to_thread
from fastapi import FastAPI

from boardgammon.bots.warm import warm_up
from boardgammon.server import dice_log
from boardgammon.server.actions import ClientAction, RollAction
from boardgammon.server.bus import USER_CHANNEL_PREFIX, bus_for
from boardgammon.server.db import WORKER_THREADS
from boardgammon.server.dice_log import LogKey
from boardgammon.server.dice_record import CorruptRoll
from boardgammon.server.locks import MatchLocks
from boardgammon.server.match_events import MatchEndEvent
from boardgammon.server.match_service import (
    LINK_GRACE_S,
    LINK_WAIT_RANGE_S,
    LINK_WAIT_S,
    MatchService,
    StepResult,
)
from boardgammon.server.notifications import UserHub, notify
from boardgammon.server.outage import RETRY_AFTER_S, is_outage
from boardgammon.server.ratelimit import limiter_for
from boardgammon.server.service_clock import DOWN_AFTER_S, HEARTBEAT_S, ServiceClock
from boardgammon.server.services import services
from boardgammon.server.settings import seconds_setting
from boardgammon.server.watching import spectators_for

if TYPE_CHECKING:
    from boardgammon.server.db import Database
    from boardgammon.server.websocket import Hub

log = logging.getLogger("boardgammon.server")


@dataclass
class GameConfig:
    """Knobs of the game server.

    Attributes:
        redis_url: Redis for fan-out between processes (``None``: in-process).
        wall: wall-clock seconds (injected in tests).
        background: run the heartbeat/flag loop (tests turn it off and call ``tick``).
        tick_s: seconds between checks for flags and deadlines.
        bot_delay_s: pause before each computer action, so people can follow its moves.
        login_rate, login_burst: sign-in attempts per second and burst, per address and name
            (also new accounts and guests per address).
        address_login_rate, address_login_burst: sign-in attempts per second and burst per
            address, whatever the names (trying one password on many accounts).
        action_rate, action_burst: match actions per second and burst, per user.
        chat_rate, chat_burst: chat lines per second and burst, per user.
        witness_rate, witness_burst: witnesses' co-signatures (``POST /api/log/witness``) per
            second and burst, per address: a witness posts one per run, a flood of junk keys
            is slowed (the listing filters by key, so it cannot bury anyone's).
        dice, link_wait_s, link_grace_s: the dice protocol of new matches, and the waits for
            the opponent's device (:class:`.MatchService`; :meth:`from_env`).
        exit_after_commit: test-only (``BOARDGAMMON_TEST_EXIT_AFTER_COMMIT``): the process
            ends with ``os._exit(137)``, as a ``kill -9`` would, right after the Nth player
            action's transaction commits and before anything is answered or published; 0
            (default): never, and no code of the hook runs.
    """

    redis_url: str | None = None
    wall: Callable[[], float] = time.time
    background: bool = True
    tick_s: float = 0.25
    bot_delay_s: float = 0.0
    login_rate: float = 0.2
    login_burst: int = 10
    address_login_rate: float = 1.0
    address_login_burst: int = 30
    action_rate: float = 20.0
    action_burst: int = 40
    chat_rate: float = 0.5
    chat_burst: int = 5
    witness_rate: float = 0.05
    witness_burst: int = 10
    dice: str = "v2"
    link_wait_s: float = LINK_WAIT_S
    link_grace_s: float = LINK_GRACE_S
    exit_after_commit: int = 0

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> GameConfig:
        """``BOARDGAMMON_REDIS_URL``, ``BOARDGAMMON_BOT_DELAY`` (seconds, default 0.4) and
        ``BOARDGAMMON_LOGIN_BURST`` (sign-ins and new guests at once per address, default 10;
        the load benchmark raises it), ``BOARDGAMMON_DICE`` (the dice protocol of new
        matches, ``v2`` by default; ``v1`` for a comparison) and ``BOARDGAMMON_LINK_WAIT``
        (seconds a live v2 roll waits for the opponent's link, default 3),
        ``BOARDGAMMON_LINK_GRACE`` (seconds after the start during which no wait for a
        device ends, default 12: :data:`.LINK_GRACE_S`);
        ``BOARDGAMMON_TEST_EXIT_AFTER_COMMIT`` for tests only (:attr:`exit_after_commit`).

        Raises:
            ValueError: ``BOARDGAMMON_LINK_WAIT`` outside :data:`.LINK_WAIT_RANGE_S` or
                ``BOARDGAMMON_LINK_GRACE`` outside 0 to 3600 seconds, or either no number
                (the message names the setting and the range).
        """
        low, high = LINK_WAIT_RANGE_S
        return cls(redis_url=environ.get("BOARDGAMMON_REDIS_URL") or None,
                   bot_delay_s=float(environ.get("BOARDGAMMON_BOT_DELAY", "0.4")),
                   login_burst=int(environ.get("BOARDGAMMON_LOGIN_BURST", "10")),
                   dice=environ.get("BOARDGAMMON_DICE", "v2"),
                   link_wait_s=seconds_setting(environ, "BOARDGAMMON_LINK_WAIT",
                                               LINK_WAIT_S, low, high),
                   link_grace_s=seconds_setting(environ, "BOARDGAMMON_LINK_GRACE",
                                                LINK_GRACE_S, 0.0, 3600.0),
                   exit_after_commit=int(
                       environ.get("BOARDGAMMON_TEST_EXIT_AFTER_COMMIT") or "0"))


CHECKPOINT_S = 1.0
"""Seconds between the background checkpoints of an SQLite database."""
GC_YOUNG_THRESHOLD = 10_000
"""Allocations between the garbage collector's young collections in a server process."""


class Runtime:
    """One process's game server (``services(app).game``)."""

    def __init__(self, config: GameConfig) -> None:
        self.config = config
        self.clock = ServiceClock(config.wall)
        self.login_limit = limiter_for(config.redis_url, config.login_rate, config.login_burst,
                                       "sign-in attempts")
        self.address_login_limit = limiter_for(config.redis_url, config.address_login_rate,
                                               config.address_login_burst,
                                               "sign-in attempts from this address")
        self.action_limit = limiter_for(config.redis_url, config.action_rate,
                                        config.action_burst, "actions")
        self.chat_limit = limiter_for(config.redis_url, config.chat_rate, config.chat_burst,
                                      "chat messages")
        self.witness_limit = limiter_for(config.redis_url, config.witness_rate,
                                         config.witness_burst, "co-signatures from this address")
        self.bus = bus_for(config.redis_url)
        self.user_bus = bus_for(config.redis_url, USER_CHANNEL_PREFIX)
        self.users = UserHub()
        self.spectators = spectators_for(config.redis_url)
        self._service: MatchService | None = None
        self._hub: Hub | None = None
        self.log_key: LogKey | None = None  # the public log's key, given at start
        self.locks = MatchLocks()
        self._bots: dict[str, asyncio.Task] = {}
        self._last_beat = 0.0
        # A heartbeat failed (the database unreachable): the next one credits the gap, and
        # an action waits for it, so no clock is charged for the time nobody could act.
        self._unserved = False
        # When the background round now under way began (wall seconds), else None: one whose
        # statements hung past DOWN_AFTER_S met an outage as a failed one did (the database
        # hangs rather than fails: a network partition).
        self._tick_began: float | None = None

    @property
    def service(self) -> MatchService:
        """The match service (made when the runtime starts).

        Raises:
            RuntimeError: the runtime has not started.
        """
        if self._service is None:
            raise RuntimeError("the game server has not started")
        return self._service

    @property
    def hub(self) -> Hub:
        """The WebSocket hub (made when the runtime starts).

        Raises:
            RuntimeError: the runtime has not started.
        """
        if self._hub is None:
            raise RuntimeError("the game server has not started")
        return self._hub

    async def start(self, db: Database, log_key: LogKey | None = None) -> None:
        from boardgammon.server.websocket import Hub

        self.log_key = log_key
        # Before any connection: compiling the computer players on the first computer move
        # held the GIL for some 15 s after an install and froze every match meanwhile.
        took = await asyncio.to_thread(warm_up)
        if took > 1.0:
            log.info("computer players compiled in %.1f s (first start after an install)", took)
        # What each new live match's log leaf will state, for good (docs/fair-dice.md).
        log.info("dice %s; live rolls wait %g s for the opponent's link",
                 self.config.dice, self.config.link_wait_s)
        # A request held in this process is written with the link, which, with Redis, may
        # reach another process: there each request is written at once.
        self._service = MatchService(db, self.clock, self.locks, dice=self.config.dice,
                                     link_wait_s=self.config.link_wait_s,
                                     link_grace_s=self.config.link_grace_s,
                                     hold_requests=self.config.redis_url is None)
        if self.config.exit_after_commit:
            self._service.act = _exiting_after(  # type: ignore[method-assign]
                self._service.act, self.config.exit_after_commit)
        self._hub = Hub(self._service, self.locks)
        with db.sessions() as session:
            credited = self.clock.start(session)
        if credited:
            log.info("the service was down for %.1f s: not charged to any clock", credited)
        await self.bus.start(self.hub.deliver)
        await self.user_bus.start(self.users.deliver)
        for match_id in await asyncio.to_thread(self.service.active_ids):
            await self._settle(match_id)
        # The devices can reconnect only from now on: the grace counts from here, not from
        # before the start's settling, which may take a while with many matches.
        self.service.start_grace()
        # Everything loaded so far (modules, numba, SQLAlchemy's tables, the app) lives as long
        # as the process: move it out of the collector's reach. Otherwise every full (oldest
        # generation) collection walks it all and stops the whole process, event loop
        # included, for some 200 ms on a 2-core machine: the tail of every action's latency.
        gc.collect()
        gc.freeze()
        # Young collections every 10,000 allocations instead of 700: fewer of an action's
        # short-lived objects survive one by chance and get promoted, and promotions are what
        # set off full collections (40-60 ms each with 200 live matches here, several per
        # minute under load; none in a minute of the load benchmark with this setting).
        gc.set_threshold(GC_YOUNG_THRESHOLD, *gc.get_threshold()[1:])

    async def stop(self) -> None:
        for task in self._bots.values():
            task.cancel()
        if self._service is not None:
            # A request held until its link (MatchService._hold_request) is written now: a
            # clean stop loses none (a crash still may: docs/server.md).
            await asyncio.to_thread(self._service.write_held)
        await self.bus.stop()
        await self.user_bus.stop()
        await self.spectators.stop()

    async def run(self, match_id: str, fn: Callable[..., StepResult | None], *args: Any,
                  actor: int | None = None,
                  first: Callable[[], StepResult | None] | None = None) -> StepResult | None:
        """Run a service call for ``match_id`` in a worker thread and publish its events;
        calls for one match run one at a time here, so events leave in commit order. When
        the call passed the turn to a player other than ``actor`` (the user who acted;
        ``None`` for the server and the computer), that player's pages hear ``turn``
        (:mod:`.notifications`). A ``match_end`` event gets the public log's signed head that
        includes the match's last change (``result.log_head``). ``first``: a call tried on
        the event loop's thread before, in the same turn of the match; ``fn`` runs only
        where it gives ``None``."""
        async with self.locks.calls(match_id):
            step = first() if first is not None else None
            if step is None:
                step = await asyncio.to_thread(fn, *args)
            if step is not None and self.log_key is not None and any(
                    event["type"] == "match_end" for event in step.events):
                await asyncio.to_thread(self._sign_end, step)
            if step is not None and step.events:
                await self.bus.publish(match_id, {"version": step.version,
                                                  "snapshot": step.snapshot,
                                                  "events": step.events})
                if step.turn_passed_to is not None and step.turn_passed_to != actor:
                    await notify(self, step.turn_passed_to, {"type": "turn",
                                                             "match_id": match_id})
        return step

    async def spectators_changed(self, match_id: str, by: int) -> None:
        """A spectator came (``by`` = 1) or went (-1): every connection to the match, the
        players' and the spectators' (the newcomer's included), on every process, gets the new
        count as a ``spectators`` frame. A count that cannot be changed (Redis unreachable) is
        logged and watching goes on without it."""
        try:
            count = await self.spectators.change(match_id, by)
            await self.bus.publish(match_id, {"frame": {"type": "spectators", "count": count},
                                              "seats": None})
        except Exception:
            log.warning("the spectator count of %s was not changed", match_id, exc_info=True)

    async def act(self, match_id: str, user_id: int, action: ClientAction,
                  token: str | None = None) -> StepResult:
        """A player's action: applied, committed, broadcast; the computer answers after.
        ``token``: the session a WebSocket signed in with, checked again here (a socket
        outlives a sign-out); HTTP requests are checked as they arrive.

        Raises:
            NotSignedIn: ``token`` no longer valid; RateLimited; and every
                refusal of :meth:`MatchService.act`.
        """
        began = self._tick_began
        if began is not None and self.clock.wall() - began > DOWN_AFTER_S:
            self._unserved = True
        if self._unserved:
            await asyncio.to_thread(self._beat)
        if isinstance(action, RollAction) and self.service.holds_on_loop:
            # A live v2 roll's request is answered on the event loop where it can be: no hop
            # to a worker thread and back for one read (docs/server.md §A request answered
            # on the event loop). The limiter is this process's own where requests are held.
            def hold() -> StepResult | None:
                self.action_limit.hit(f"user:{user_id}")
                return self.service.hold_now(match_id, user_id, action, token)

            step = await self.run(match_id, self.service.act, match_id, user_id, action, token,
                                  actor=user_id, first=hold)
        else:
            step = await self.run(match_id, self._act, match_id, user_id, action, token,
                                  actor=user_id)
        assert step is not None
        self.kick_bot(match_id)
        return step

    def _sign_end(self, step: StepResult) -> None:
        # After the match's write committed, so the head covers its last change; signing
        # commits a head of its own, which the write's transaction must not.
        assert self.log_key is not None
        with self.service.db.writing() as session:
            head = dice_log.signed_head(session, self.log_key)
        for event in step.events:
            if event["type"] == "match_end":
                cast(MatchEndEvent, event)["result"]["log_head"] = head

    def _act(self, match_id: str, user_id: int, action: ClientAction,
             token: str | None) -> StepResult:
        # In the worker thread: a limiter in Redis waits for a round trip.
        self.action_limit.hit(f"user:{user_id}")
        return self.service.act(match_id, user_id, action, token)

    def kick_bot(self, match_id: str) -> None:
        """Let the computer play its turns in ``match_id`` (if it plays there) in a task."""
        task = self._bots.get(match_id)
        if (task is None or task.done()) and self.service.has_bot(match_id):
            self._bots[match_id] = asyncio.create_task(self._drive_bot(match_id))

    async def _drive_bot(self, match_id: str) -> None:
        while True:
            if self.config.bot_delay_s:
                await asyncio.sleep(self.config.bot_delay_s)
            try:
                step = await self.run(match_id, self.service.bot_step, match_id)
            except Exception as exc:
                if is_outage(exc):  # logged once by the outage watch; try again later
                    await asyncio.sleep(RETRY_AFTER_S)
                    continue
                log.exception("the computer could not act in %s", match_id)
                return
            if step is None:
                return

    async def _settle(self, match_id: str) -> None:
        """Settle the match (:meth:`MatchService.settle`) and let its computer move (a roll
        revealed without the human's link, say). A match whose dice record cannot be read
        (:class:`CorruptRoll`, logged once by the record) stays held until the operator
        repairs it: it must not stop the server from starting, nor the matches after it
        from settling."""
        try:
            await self.run(match_id, self.service.settle, match_id)
        except CorruptRoll:
            return
        self.kick_bot(match_id)

    async def tick(self) -> None:
        """One round of the background task: heartbeat, then claim every flag that is due
        (live reserves and correspondence deadlines) and reveal every v2 roll whose
        opponent's link is overdue."""
        wall = self._tick_began = self.clock.wall()
        try:
            if wall - self._last_beat >= HEARTBEAT_S:
                self._last_beat = wall
                await asyncio.to_thread(self._beat)
            for match_id in await asyncio.to_thread(self.service.due_ids):
                await self._settle(match_id)
        finally:
            self._tick_began = None
            if self.clock.wall() - wall > DOWN_AFTER_S:  # hung: the next heartbeat credits it
                self._unserved = True

    def _beat(self) -> None:
        try:
            with self.service.db.writing() as session:
                credited = self.clock.beat(session, credit_gap=self._unserved)
        except Exception as exc:
            if is_outage(exc):
                self._unserved = True
            raise
        if credited:
            log.warning("the clocks were stopped for %.1f s (the server could not serve)",
                        credited)
        self._unserved = False

    async def loop(self) -> None:
        """The background task: :meth:`tick` every ``tick_s`` and, on SQLite, a checkpoint of
        the database's WAL every :data:`CHECKPOINT_S` (see :mod:`.db`)."""
        last_checkpoint = time.monotonic()
        while True:
            try:
                await self.tick()
                if time.monotonic() - last_checkpoint >= CHECKPOINT_S:
                    last_checkpoint = time.monotonic()
                    await asyncio.to_thread(self.service.db.checkpoint)
            except Exception as exc:
                if not is_outage(exc):  # an outage is logged once, by the outage watch
                    log.exception("background tick failed")
            await asyncio.sleep(self.config.tick_s)


def install(app: FastAPI, config: GameConfig | None = None) -> Runtime:
    """Add the game server's routers to ``app``; returns its runtime."""
    from boardgammon.server import (
        accounts,
        auth,
        blocks,
        chat,
        lobby,
        match_routes,
        notifications,
        rematch,
        watching,
        websocket,
    )

    for module in (auth, accounts, lobby, match_routes, rematch, websocket, chat, blocks,
                   watching, notifications):
        app.include_router(module.router)
    return Runtime(config or GameConfig.from_env())


@contextlib.asynccontextmanager
async def running(app: FastAPI) -> AsyncIterator[None]:
    """Start the app's runtime on its database and stop it afterwards."""
    parts = services(app)
    runtime = parts.game
    # The number of sync routes that run at once, and so hold a session: the one the SQLite
    # pool is sized for (db.WORKER_THREADS), whatever AnyIO's default becomes.
    anyio.to_thread.current_default_thread_limiter().total_tokens = WORKER_THREADS
    await runtime.start(parts.db, parts.log_key)
    loop = asyncio.create_task(runtime.loop()) if runtime.config.background else None
    try:
        yield
    finally:
        if loop is not None:
            loop.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await loop
        await runtime.stop()


def _exiting_after(act: Callable[..., StepResult], n: int) -> Callable[..., StepResult]:
    """``act`` (:meth:`MatchService.act`, which returns once the action's transaction has
    committed) that ends the process on its ``n``-th return, before the caller can answer or
    publish anything: the window between the commit and the answer, hit on purpose by the
    kill -9 tests (:attr:`GameConfig.exit_after_commit`)."""
    done = 0
    lock = threading.Lock()

    def exiting(*args: Any, **kwargs: Any) -> StepResult:
        nonlocal done
        result = act(*args, **kwargs)
        with lock:
            done += 1
            if done == n:
                log.warning("BOARDGAMMON_TEST_EXIT_AFTER_COMMIT: exiting after action %d", n)
                logging.shutdown()
                os._exit(137)
        return result

    return exiting
