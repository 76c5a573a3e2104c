"""Delay + reserve clocks (time passed in, never read)."""

from __future__ import annotations

import copy

import pytest

from boardgammon.engine import PRESETS, Clock, ClockError, TimeControl


def test_five_presets_one_at_120_seconds_per_point():
    assert len(PRESETS) == 5
    assert [tc.reserve_per_point for tc in PRESETS.values()].count(120.0) == 1
    # published example: 5-point match at 120 s per point -> 600 s each
    assert Clock(PRESETS["rapid"], 5).reserve == (600.0, 600.0)


def test_delay_is_free_and_unused_delay_is_not_banked():
    clock = Clock(TimeControl("t", delay=10.0, reserve_per_point=60.0), 1)
    clock.start_turn(0, 0.0)
    assert clock.stop(0, 4.0) == 0.0  # inside the window
    clock.start_turn(1, 4.0)
    assert clock.stop(1, 20.0) == 6.0  # 16 s used, 10 free
    clock.start_turn(0, 20.0)
    assert clock.delay_left(23.0) == 7.0
    assert clock.stop(0, 35.0) == 5.0  # the 6 s left over last time bought nothing
    assert clock.reserve == (55.0, 54.0)


def test_flag_falls_only_after_the_deadline():
    clock = Clock(TimeControl("t", delay=5.0, reserve_per_point=10.0), 2)
    clock.start_turn(1, 100.0)
    assert clock.deadline() == 125.0
    assert not clock.flagged(1, 125.0) and clock.remaining(1, 125.0) == 0.0
    assert clock.flagged(1, 125.5) and not clock.flagged(0, 125.5)


@pytest.mark.parametrize(("action", "message"), [
    (lambda c: c.start_turn(1, 12.0), "running"),
    (lambda c: c.stop(1, 12.0), "not running"),
    (lambda c: c.stop(0, 9.0), "backwards"),
    (lambda c: c.stop(0, float("nan")), "number"),
    (lambda c: c.start_turn(2, 12.0), "seat"),
])
def test_bad_calls_raise_and_change_nothing(action, message):
    clock = Clock(PRESETS["blitz"], 3)
    clock.start_turn(0, 10.0)
    before = copy.deepcopy(vars(clock))
    with pytest.raises(ClockError, match=message):
        action(clock)
    assert vars(clock) == before


def test_bad_settings_are_refused():
    with pytest.raises(ValueError):
        TimeControl("t", delay=-1.0, reserve_per_point=60.0)
    with pytest.raises(ValueError):
        Clock(PRESETS["blitz"], 0)
