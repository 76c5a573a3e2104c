"""The opening roll is on the clock: the opening roller's clock runs from the match start (when
given) and from the end of the previous game, so a player who never rolls loses on time (or, for
the first action of the match, has the match aborted: ``test_no_show.py``)."""

from __future__ import annotations

import pytest

from boardgammon.engine import ClockError, IllegalAction, Match, TimeControl, TimeExpired
from boardgammon.engine.match import NO_SHOW_AFTER

TC = TimeControl("test", delay=10.0, reserve_per_point=20.0)  # 3 points: 60 s reserve each


def test_the_first_opening_roller_is_on_the_clock_from_the_start():
    m = Match(3, time_control=TC, start=100.0)
    assert m.opening_roller == 0 and m.clock.running == 0
    # Its reserve would run out at 170 s, but a first action not made in 60 s aborts first.
    assert m.deadline() == 100.0 + NO_SHOW_AFTER
    m.roll_opening(3, 1, now=125.0)  # seat 0 wins it and plays on: 15 s past the 10 s delay
    assert m.clock.remaining(0, 125.0) == 45.0


def test_a_later_opening_roll_not_made_loses_on_time():
    m = Match(3, time_control=TC, start=0.0)
    m.roll_opening(1, 3, now=2.0)  # seat 1 wins the opening roll
    m.play(1, "8/5 6/5", now=3.0)
    m.roll(0, 6, 5, now=4.0)  # both seats have acted: no abort from here on
    m.play(0, "24/13", now=5.0)
    m.double(1, now=6.0)
    m.drop(0, now=7.0)  # game 2: seat 1 rolls its opening roll, and never does
    assert m.deadline() == 7.0 + 10.0 + 60.0
    with pytest.raises(IllegalAction, match="no flag"):
        m.claim_flag(77.0)
    with pytest.raises(TimeExpired):
        m.roll_opening(3, 1, now=77.5)  # too late: refused, nothing changes
    assert len(m.record) == 6 and m.phase == "opening"
    assert m.claim_flag(77.5) == 1
    assert m.winner == 0 and m.is_over and m.flagged == 1 and m.aborted is None
    again = Match.from_json(m.to_json())
    assert again.winner == 0 and again.start == 0.0 and again.record == m.record


def test_a_tie_passes_the_opening_roll_and_its_clock_to_the_other_seat():
    m = Match(3, time_control=TC, start=0.0)
    m.roll_opening(4, 4, now=15.0)  # 5 s of seat 0's reserve used (10 s delay free)
    assert m.opening_roller == 1 and m.clock.running == 1
    assert m.clock.reserve == (55.0, 60.0)
    assert m.deadline() == 15.0 + NO_SHOW_AFTER  # seat 1's first action, due before its flag


def test_the_next_game_opening_runs_from_the_end_of_the_last_game():
    m = Match(3, time_control=TC, start=0.0)
    m.roll_opening(3, 1, now=2.0)  # seat 0 wins the opening roll
    m.play(0, "8/5 6/5", now=3.0)
    m.double(1, now=4.0)
    m.drop(0, now=5.0)  # game 2 starts at 5 s
    assert m.score == (0, 1) and m.phase == "opening"
    assert m.opening_roller == 1 and m.clock.running == 1
    assert m.deadline() == 5.0 + 10.0 + m.clock.reserve[1]
    assert m.claim_flag(5.0 + 10.0 + m.clock.reserve[1] + 1.0) == 1
    assert m.winner == 0


def test_without_a_start_no_clock_runs_before_the_first_action():
    m = Match(3, time_control=TC)
    assert m.start is None and m.clock.running is None and m.deadline() is None
    assert Match.from_dict(m.to_dict()).clock.running is None


def test_a_start_needs_a_clock_and_a_time():
    with pytest.raises(ValueError, match="clock"):
        Match(3, start=0.0)
    with pytest.raises(ClockError):
        Match(3, time_control=TC, start=float("nan"))


def test_a_game_end_gives_the_next_opening_roller_a_fresh_move_even_if_already_running():
    m = Match(3, time_control=TC, start=0.0)
    m.roll_opening(1, 3, now=2.0)  # seat 1 wins the opening roll
    m.play(1, "8/5 6/5", now=3.0)
    m.double(0, now=4.0)
    m.drop(1, now=30.0)  # 26 s on seat 1's clock: 16 charged; seat 1 rolls the next opening
    assert m.opening_roller == 1 and m.clock.running == 1
    assert m.clock.reserve == (60.0, 44.0)
    assert m.deadline() == 30.0 + 10.0 + 44.0  # a fresh delay from the game's end


def test_a_restart_before_the_first_action_moves_the_start():
    """The server restarts the clock when the first opening roll can first be made (v2 dice:
    after the wait for the players' devices): the opening roller gets a fresh delay from then."""
    m = Match(3, time_control=TC, start=100.0)
    m.restart(103.0)
    assert m.start == 103.0 and m.clock.running == 0 and m.clock.started_at == 103.0
    assert m.deadline() == 103.0 + NO_SHOW_AFTER
    assert Match.from_json(m.to_json()).start == 103.0
    with pytest.raises(ClockError, match="before the start"):
        m.restart(102.0)
    assert m.start == 103.0
    m.roll_opening(3, 1, now=110.0)  # 7 s of the 10 s delay: nothing charged
    assert m.clock.reserve == (60.0, 60.0)
    with pytest.raises(IllegalAction, match="has begun"):
        m.restart(111.0)
    assert m.start == 103.0 and m.clock.running == 0
    with pytest.raises(IllegalAction, match="no clock"):
        Match(3).restart(5.0)
