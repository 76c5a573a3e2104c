"""The service clock: the time scale of every match clock and deadline.

Service time is wall time minus ``downtime``, the seconds during which no server process was
running, summed over the service's life. Every process writes a heartbeat (wall seconds) to the
``service_clock`` row every :data:`HEARTBEAT_S`; a process that starts and finds the last
heartbeat older than :data:`DOWN_AFTER_S` knows the whole service was down since then and adds
the gap to ``downtime``. So a player's reserve and a correspondence deadline are not charged for
the time the server was down, in every process alike, except for an outage shorter than
:data:`DOWN_AFTER_S`: a restart within 3 s is charged to the clock that ran (a quicker rule
would take a process whose heartbeat is merely late, under load, for a dead service).

The same rule covers an outage of the database (or of anything that stops every process from
committing): no process can write its heartbeat, so after :data:`DOWN_AFTER_S` the heartbeat is
as stale as after a stop; a process that failed to beat and then beats again
(:meth:`ServiceClock.beat` with ``credit_gap``) credits the gap as downtime, so no clock runs
out while the server cannot serve; so does a heartbeat whose own statement hung for more than
:data:`DOWN_AFTER_S` (a database that neither answers nor fails: a network partition). The
clocks resume with the reserves where they stood and the delay window fresh: the service time
of each resumption is kept (table
``clock_resumptions``, :attr:`ServiceClock.resumes`) and a live clock that ran across one is
charged as two turns (:attr:`boardgammon.engine.clock.Clock.resumes`).

The wall clock is injected (``wall``) so that tests can move time by hand.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from sqlalchemy import select
from sqlalchemy.orm import Session

from boardgammon.server.tables import ClockResumption, ServiceClockRow

HEARTBEAT_S = 1.0
DOWN_AFTER_S = 3.0


class ServiceClock:
    """Service time in float seconds (:meth:`now`) and its conversion to wall time.

    Args:
        wall: returns wall-clock seconds since the Unix epoch (default :func:`time.time`).
    """

    def __init__(self, wall: Callable[[], float] = time.time) -> None:
        self.wall = wall
        self.downtime = 0.0
        self.resumes: list[float] = []
        """Service times at which the clocks resumed, ascending; updated in place (match
        clocks hold this very list)."""
        self._resumes_of: float | None = None  # the downtime they were read at
        # (the downtime, then (service time of each resumption, the downtime before it or
        # None), ascending): replaced as one, so that a reader never pairs a new downtime with
        # old resumptions.
        self._credits: tuple[float, list[tuple[float, float | None]]] = (0.0, [])

    def now(self) -> float:
        """Service seconds now (wall seconds minus the service's downtime)."""
        return self.wall() - self.downtime

    def to_service(self, wall: float) -> float:
        """The service time at wall time ``wall`` (Unix seconds), as it was then: a wall time
        before a resumption converts with the downtime in force before it, and one in the
        gap (the service down) to the resumption itself. Before a resumption whose downtime
        before it is not recorded (one recorded before 2026-12-05), with the downtime just
        after it, as every wall time was converted before."""
        after, credits = self._credits
        cap = float("inf")
        for at, before in reversed(credits):
            if wall >= at + after:
                return min(wall - after, cap)
            if before is None:
                return wall - after
            after, cap = before, at
        return min(wall - after, cap)

    def to_wall(self, service_t: float) -> float:
        """The wall time (Unix seconds) at which service time ``service_t`` is reached."""
        return service_t + self.downtime

    def start(self, session: Session) -> float:
        """Called once when a process starts: :meth:`beat` crediting the gap. Returns the
        seconds credited (0 when another process was alive or on the first start)."""
        return self.beat(session, credit_gap=True)

    def beat(self, session: Session, credit_gap: bool = False) -> float:
        """Write the heartbeat and pick up the shared downtime. ``credit_gap`` (at start, and
        after this process failed to beat): first credit the time since the last heartbeat as
        downtime if no process has beaten for :data:`DOWN_AFTER_S`. Returns the seconds
        credited."""
        started = self.wall()
        row = self._row(session)
        wall = self.wall()
        # A heartbeat whose own read of the row waited that long met a database that hangs
        # rather than fails (a network partition): the same outage as a failed heartbeat.
        credit_gap = credit_gap or wall - started > DOWN_AFTER_S
        credited = 0.0
        if credit_gap and row.heartbeat > 0 and wall - row.heartbeat > DOWN_AFTER_S:
            credited = wall - row.heartbeat
            before = row.downtime
            row.downtime += credited
            session.merge(ClockResumption(at=wall - row.downtime, downtime_before=before))
        row.heartbeat = max(row.heartbeat, wall)
        if self._resumes_of != row.downtime:  # a resumption is recorded with each credit
            session.flush()
            credits = [(at, before) for at, before in session.execute(
                select(ClockResumption.at, ClockResumption.downtime_before)
                .order_by(ClockResumption.at))]
            self._credits = (row.downtime, credits)
            self.resumes[:] = [at for at, _ in credits]
            self._resumes_of = row.downtime
        self.downtime = row.downtime
        session.commit()
        return credited

    @staticmethod
    def _row(session: Session) -> ServiceClockRow:
        return session.execute(
            select(ServiceClockRow).where(ServiceClockRow.id == 1).with_for_update()
            .execution_options(populate_existing=True)
        ).scalar_one()
