"""Database outages: a clear answer to every client and two log lines per outage.

While the database cannot be reached, a request that needs it is answered 503
``database_unavailable`` in the API's shape with ``Retry-After`` (a WebSocket: an ``error``
frame, then a close with a reason) instead of a plain 500 and a traceback per request; the log
gets one line when the outage starts and one when it ends (:class:`Outage`, which watches every
statement of the engine).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError, DisconnectionError, InterfaceError, OperationalError

from boardgammon.server.refusals import ErrorCode, Unavailable

log = logging.getLogger("boardgammon.server.outage")

RETRY_AFTER_S = 5
"""Seconds a client is asked to wait before it tries again during an outage."""

OUTAGE_ERRORS = (OperationalError, InterfaceError, DisconnectionError)
"""What SQLAlchemy raises when the database cannot be reached (or broke the connection)."""


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

    def watch(self, engine: Engine) -> None:
        """Follow every statement and connection attempt of ``engine``."""

        @event.listens_for(engine, "handle_error")
        def _error(context) -> None:
            exc = context.sqlalchemy_exception or context.original_exception
            if context.is_disconnect or is_outage(exc):
                self.failed(exc)

        @event.listens_for(engine, "after_cursor_execute")
        def _answered(*_args) -> None:
            self.succeeded()
