"""Database outages: a clear answer to every client and two log lines per outage.

While the database cannot be reached, a request that needs it is answered 503
``database_unavailable`` in the API's shape with ``Retry-After`` (a WebSocket: an ``error``
frame, then a close with a reason) instead of a plain 500 and a traceback per request; the log
gets one line when the outage starts and one when it ends (:class:`Outage`, which watches every
statement of the engine).

A PostgreSQL that hangs instead of failing (a network partition: statements neither answer nor
fail) is an outage too: once a statement, a pool's ping or a connection attempt has waited
longer than :data:`HUNG_AFTER_S` with no other answered meanwhile, a new session of the
server's factories is refused at once with the same 503, instead of queueing behind the hang;
requests already waiting on the hung database keep waiting. SQLite is not watched that way: a
statement there can wait up to its 30 s busy timeout for the file's write lock, which is no
outage.
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError, DisconnectionError, InterfaceError, OperationalError
from sqlalchemy.orm import Session, SessionTransaction, sessionmaker

from boardgammon.server.refusals import ErrorCode, Unavailable
from boardgammon.server.service_clock import DOWN_AFTER_S

log = logging.getLogger("boardgammon.server.outage")

RETRY_AFTER_S = 5
"""Seconds a client is asked to wait before it tries again during an outage."""

OUTAGE_ERRORS = (OperationalError, InterfaceError, DisconnectionError)
"""What SQLAlchemy raises when the database cannot be reached (or broke the connection)."""

HUNG_AFTER_S = DOWN_AFTER_S
"""Seconds a call to PostgreSQL (a statement, a pool's ping, a connection attempt) may wait,
with no other call answered meanwhile, before the database counts as down (it hangs). The
server's heartbeat answers every second while the database is up."""

_DIALECT_CALLS = ("connect", "do_ping", "do_execute", "do_executemany", "do_execute_no_params")
"""The dialect's methods that wait for the database, timed by :meth:`Outage.watch`."""


class DatabaseHung(Exception):
    """The driver-level reason of the refusal made while the database hangs."""


def is_outage(exc: BaseException) -> bool:
    """Whether ``exc`` means the database cannot be reached (not a bad query or a conflict)."""
    return isinstance(exc, OUTAGE_ERRORS) or (
        isinstance(exc, DBAPIError) and exc.connection_invalidated)


def refusal() -> Unavailable:
    """The refusal that answers a request during an outage (503 ``database_unavailable``)."""
    return Unavailable(f"server problem: the database is unreachable; try again in "
                       f"{RETRY_AFTER_S} s", ErrorCode.DATABASE_UNAVAILABLE)


class Outage:
    """Whether the database is down now, from what its statements did: the first failure of
    an outage logs one line, the first success after it another (with the outage's length).

    ``clock``: monotonic seconds (injected in tests).
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.since: float | None = None
        self._lock = threading.Lock()
        self._waiting: dict[int, float] = {}  # calls to the database now waiting: their start
        self._answered = clock()  # when a call last got its answer
        self._tokens = itertools.count()

    @property
    def down(self) -> bool:
        """Whether the last thing the database did was fail to answer."""
        return self.since is not None

    def failed(self, exc: BaseException) -> None:
        """Note a failure to reach the database (logged if it starts an outage)."""
        with self._lock:
            if self.since is None:
                self.since = self.clock()
                reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()
                log.error("database outage: the database is unreachable (%s: %s); answering "
                          "503 until it is back", type(exc).__name__,
                          reason[0][:200] if reason else "no reason given")

    def succeeded(self) -> None:
        """Note a statement the database answered (logged if it ends an outage)."""
        if self.since is None:  # the common case, without the lock
            return
        with self._lock:
            if self.since is not None:
                log.warning("database outage over after %.1f s", self.clock() - self.since)
                self.since = None

    def hung_for(self) -> float:
        """Seconds the oldest waiting call to the database has waited, if the database hangs
        (that call and the time since the last answer both longer than :data:`HUNG_AFTER_S`),
        else 0.0."""
        now = self.clock()
        with self._lock:
            if not self._waiting:
                return 0.0
            waited, quiet = now - min(self._waiting.values()), now - self._answered
        return waited if min(waited, quiet) > HUNG_AFTER_S else 0.0

    def refuse_if_hung(self) -> None:
        """Raise the outage's error at once if the database hangs (logging the outage's start
        line if this is its first sign).

        Raises:
            OperationalError: the database hangs (answered 503 ``database_unavailable`` as
                every other outage error).
        """
        waited = self.hung_for()
        if not waited:
            return
        with self._lock:
            if self.since is None:
                self.since = self.clock() - waited
                log.error("database outage: the database has not answered for %.1f s (it "
                          "hangs); answering 503 until it is back", waited)
        raise OperationalError(None, None, DatabaseHung(
            f"the database has not answered for {waited:.1f} s"))

    def _timed(self, call: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            token = next(self._tokens)
            with self._lock:
                self._waiting[token] = self.clock()
            try:
                answer = call(*args, **kwargs)
            except BaseException:
                with self._lock:  # a failure is no answer (the handle_error watch sees it)
                    del self._waiting[token]
                raise
            with self._lock:
                del self._waiting[token]
                self._answered = self.clock()
            return answer

        return timed

    def _guard(self, _session: Session, transaction: SessionTransaction) -> None:
        if transaction.parent is None:  # a session beginning, before it takes a connection
            self.refuse_if_hung()

    def watch(self, engine: Engine, *factories: sessionmaker[Session]) -> None:
        """Follow every statement and connection attempt of ``engine``; on PostgreSQL also
        time every call that waits for the database and refuse a new session of
        ``factories`` while it hangs (:meth:`refuse_if_hung`)."""
        if engine.dialect.name != "sqlite":
            for name in _DIALECT_CALLS:
                setattr(engine.dialect, name, self._timed(getattr(engine.dialect, name)))
            for factory in factories:
                event.listen(factory, "after_transaction_create", self._guard)

        @event.listens_for(engine, "handle_error")
        def _error(context) -> None:
            exc = context.sqlalchemy_exception or context.original_exception
            if context.is_disconnect or is_outage(exc):
                self.failed(exc)

        @event.listens_for(engine, "after_cursor_execute")
        def _answered(*_args) -> None:
            self.succeeded()
