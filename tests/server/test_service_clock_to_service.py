"""Wall times to service times across restarts (:meth:`ServiceClock.to_service`): a wall time
from before a resumption converts with the downtime in force then, one in the gap to the
resumption itself; so a roll requested before a restart is put back on the clock at the
service time it was asked at, and the roller's thinking before it stays charged (a review,
2026-12-05: it converted with the downtime credited since, up to the gap too early)."""

from __future__ import annotations

import pytest
from gameplay import Wall
from sqlalchemy import update

from boardgammon.server.db import open_database
from boardgammon.server.service_clock import ServiceClock
from boardgammon.server.tables import ClockResumption

T0 = 1_764_547_200.0


def _restart(db, wall: Wall) -> ServiceClock:
    clock = ServiceClock(wall)
    with db.sessions() as s:
        clock.start(s)
    return clock


def test_wall_times_convert_with_the_downtime_of_their_time(database_url):
    db = open_database(database_url)
    wall = Wall(T0)
    first = _restart(db, wall)
    assert first.to_service(T0 - 5.0) == T0 - 5.0  # no downtime yet
    wall.advance(10.0)
    with db.sessions() as s:
        first.beat(s)  # the last heartbeat at T0 + 10
    wall.advance(20.0)  # down 20 s
    second = _restart(db, wall)
    assert second.downtime == 20.0 and second.resumes == [T0 + 10.0]
    assert second.to_service(T0 + 8.0) == T0 + 8.0  # before the stop: no downtime then
    assert second.to_service(T0 + 15.0) == T0 + 10.0  # in the gap: the resumption
    assert second.to_service(T0 + 35.0) == T0 + 15.0  # after it
    assert second.to_wall(second.to_service(T0 + 35.0)) == T0 + 35.0
    wall.advance(5.0)
    with db.sessions() as s:
        second.beat(s)  # the last heartbeat at T0 + 35
    wall.advance(100.0)  # down 100 s more
    third = _restart(db, wall)
    assert third.downtime == 120.0 and third.resumes == [T0 + 10.0, T0 + 15.0]
    assert third.to_service(T0 + 8.0) == T0 + 8.0
    assert third.to_service(T0 + 15.0) == T0 + 10.0
    assert third.to_service(T0 + 33.0) == T0 + 13.0
    assert third.to_service(T0 + 50.0) == T0 + 15.0  # in the second gap
    assert third.to_service(T0 + 140.0) == T0 + 20.0
    assert third.to_service(third.wall()) == third.now()


def test_resumptions_recorded_before_the_downtime_was_kept_convert_as_before(database_url):
    db = open_database(database_url)
    wall = Wall(T0)
    first = _restart(db, wall)
    with db.sessions() as s:
        first.beat(s)
    wall.advance(20.0)
    _restart(db, wall)
    with db.sessions() as s:  # a row written by an older server
        s.execute(update(ClockResumption).values(downtime_before=None))
        s.commit()
    wall.advance(1.0)
    later = _restart(db, wall)  # reads the rows afresh
    assert later.downtime == 20.0
    assert later.to_service(T0 - 5.0) == pytest.approx(T0 - 25.0)


def test_a_resumption_after_old_rows_converts_with_its_own_downtime(database_url):
    """A database with resumptions from before 0023 (no downtime kept) and one after: wall
    times after the old rows convert exactly; only those before an old row as before (a
    review's finding: one old row sent every conversion back to the downtime now)."""
    db = open_database(database_url)
    wall = Wall(T0)
    first = _restart(db, wall)
    wall.advance(10.0)
    with db.sessions() as s:
        first.beat(s)  # last heartbeat T0 + 10
    wall.advance(20.0)
    second = _restart(db, wall)  # down 20 s: resumed at service T0 + 10
    with db.sessions() as s:
        s.execute(update(ClockResumption).values(downtime_before=None))  # an older server's
        s.commit()
    wall.advance(20.0)
    with db.sessions() as s:
        second.beat(s)  # last heartbeat T0 + 50 (service T0 + 30)
    wall.advance(100.0)
    third = _restart(db, wall)  # down 100 s: resumed at service T0 + 30
    assert third.downtime == 120.0 and third.resumes == [T0 + 10.0, T0 + 30.0]
    assert third.to_service(T0 + 45.0) == T0 + 25.0  # between the two restarts
    assert third.to_service(T0 + 100.0) == T0 + 30.0  # in the second gap
    assert third.to_service(T0 + 160.0) == T0 + 40.0
    assert third.to_service(T0 + 5.0) == T0 - 15.0  # before the old row: as before 0023
