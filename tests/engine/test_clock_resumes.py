"""A clock that resumes after the server could not serve starts a fresh delay window
(issue 21, 1): a period spanning resumptions is charged as separate turns cut there."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from boardgammon.engine.clock import PRESETS, Clock

BULLET = PRESETS["bullet"]  # 5 s delay, 30 s reserve per point

times = st.floats(min_value=0.0, max_value=200.0, allow_nan=False)


def _clock(resumes: list[float]) -> Clock:
    clock = Clock(BULLET, match_length=1)
    clock.resumes = sorted(resumes)
    clock.start_turn(0, now=100.0)
    return clock


def test_the_delay_used_before_an_outage_is_given_back():
    clock = _clock([120.0])  # 20 s used (5 s delay, 15 s reserve), then the outage
    assert clock.charged(0, 120.0) == 15.0
    assert clock.delay_left(120.0) == 5.0  # fresh
    assert clock.charged(0, 124.0) == 15.0  # inside the new window: nothing more
    assert clock.charged(0, 127.0) == 17.0
    assert clock.deadline() == 120.0 + 5.0 + 30.0 - 15.0
    assert clock.stop(0, 127.0) == 17.0
    assert clock.reserve[0] == 13.0


def test_a_resumption_outside_the_period_changes_nothing():
    clock = _clock([50.0, 300.0])
    assert clock.charged(0, 120.0) == 15.0
    assert clock.delay_left(101.0) == 4.0
    assert clock.deadline() == 135.0


@given(st.lists(times, max_size=4), times)
def test_charges_are_the_sum_of_the_turns_cut_at_each_resumption(resumes, after):
    clock = _clock(resumes)
    now = 100.0 + after
    cuts = [100.0, *sorted(r for r in resumes if 100.0 < r <= now), now]
    expected = sum(max(0.0, b - a - BULLET.delay) for a, b in zip(cuts, cuts[1:], strict=False))
    assert clock.charged(0, now) == pytest.approx(expected)
    assert clock.delay_left(now) == pytest.approx(max(0.0, cuts[-2] + BULLET.delay - now))


@given(st.lists(times, max_size=4))
def test_the_flag_falls_at_the_deadline(resumes):
    clock = _clock(resumes)
    deadline = clock.deadline()
    assert deadline is not None
    assert not clock.flagged(0, deadline - 1e-6)
    assert clock.flagged(0, deadline + 1e-6)
