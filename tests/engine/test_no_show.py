"""A seat that never makes its first action of a match whose clock runs from the start has the
match aborted, not lost: nobody wins (a player who posted a seek and left lost 0–5 on time)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from boardgammon.engine import (
    IllegalAction,
    InvalidRecord,
    Match,
    MatchOver,
    TimeControl,
    TimeExpired,
)
from boardgammon.engine.match import NO_SHOW_AFTER
from boardgammon.engine.record import Aborted, action_from_dict

TC = TimeControl("test", delay=10.0, reserve_per_point=40.0)  # 3 points: 120 s reserve each


def test_an_opening_roll_never_made_aborts_the_match_after_a_minute():
    m = Match(3, time_control=TC, start=100.0)
    assert NO_SHOW_AFTER == 60.0 and m.deadline() == 160.0
    assert m.no_show(159.9) is None
    with pytest.raises(IllegalAction, match="overdue"):
        m.claim_abort(159.9)  # not yet: refused, nothing changes
    assert m.record == () and not m.is_over and m.clock.running == 0
    assert m.no_show(160.0) == 0
    with pytest.raises(TimeExpired, match="aborted"):
        m.roll_opening(3, 1, now=160.5)  # too late: refused, nothing changes
    with pytest.raises(IllegalAction, match="aborted, not lost"):
        m.claim_flag(300.0)  # its reserve ran out too, but it never played: no loss
    assert m.record == () and m.phase == "opening"
    assert m.claim_abort(160.5) == 0
    assert m.is_over and m.aborted == 0 and m.winner is None and m.flagged is None
    assert m.phase == "match_over" and m.waiting_for is None and m.deadline() is None
    assert m.score == m.final_score == (0, 0)
    assert m.record == (Aborted(game=0, seat=0, t=160.5),)
    assert m.clock.running is None and m.clock.reserve == (120.0 - 50.5, 120.0)
    with pytest.raises(MatchOver, match="aborted: seat 0"):
        m.roll_opening(3, 1, now=161.0)
    with pytest.raises(MatchOver):
        m.claim_abort(161.0)
    again = Match.from_json(m.to_json())
    assert again.aborted == 0 and again.winner is None and again.record == m.record
    assert action_from_dict(m.record[0].to_dict()) == m.record[0]
    assert m.to_dict()["actions"] == [{"kind": "abort", "game": 0, "seat": 0, "t": 160.5}]


def test_the_second_seat_has_a_minute_from_its_own_first_turn():
    m = Match(3, time_control=TC, start=0.0)
    m.roll_opening(3, 1, now=5.0)  # seat 0 wins the opening roll and plays
    m.play(0, "8/5 6/5", now=20.0)  # seat 1 is to roll from 20 s: its first action
    assert m.deadline() == 80.0 and m.no_show(79.0) is None
    assert m.claim_abort(80.0) == 1
    assert m.aborted == 1 and m.winner is None and m.score == (0, 0)


def test_once_both_seats_have_acted_time_is_lost_as_always():
    m = Match(3, time_control=TC, start=0.0)
    m.roll_opening(3, 1, now=5.0)
    m.play(0, "8/5 6/5", now=6.0)
    m.roll(1, 6, 5, now=7.0)  # seat 1's first action: in time
    assert m.deadline() == 6.0 + 10.0 + 120.0  # its flag (its turn began at 6 s), no abort
    assert m.no_show(200.0) is None
    with pytest.raises(IllegalAction, match="overdue"):
        m.claim_abort(200.0)
    assert m.claim_flag(200.0) == 1 and m.winner == 0 and m.aborted is None


def test_a_reserve_shorter_than_a_minute_aborts_when_it_runs_out():
    bullet = TimeControl("short", delay=5.0, reserve_per_point=30.0)  # 1 point: flags at 35 s
    m = Match(1, time_control=bullet, start=0.0)
    assert m.deadline() == 35.0
    assert m.no_show(35.0) is None and m.no_show(35.5) == 0
    assert m.claim_abort(35.5) == 0 and m.winner is None


def test_a_wait_for_the_missing_seats_device_counts_from_the_wait():
    m = Match(3, time_control=TC, start=0.0)
    m.roll_opening(3, 1, now=5.0)
    m.play(0, "8/5 6/5", now=6.0)
    m.roll(1, 6, 5, now=7.0)
    m.play(1, "24/13", now=8.0)
    # Both have acted: a wait for seat 1's device is its reserve, not an abort.
    m.await_device(1, now=9.0)
    assert m.no_show(500.0) is None
    fresh = Match(3, time_control=TC, start=0.0)
    fresh.await_device(1, now=4.0)  # seat 0 asks the opening roll; seat 1's device is away
    assert fresh.deadline() == 64.0 and fresh.no_show(63.0) is None
    assert fresh.claim_abort(64.0) == 1
    assert fresh.record == (Aborted(game=0, seat=1, t=64.0, asked=4.0),)
    assert Match.from_json(fresh.to_json()).aborted == 1


def test_a_resumption_after_an_outage_gives_a_fresh_minute():
    m = Match(3, time_control=TC, start=0.0)
    m.clock.resumes = [50.0]  # the server could not serve until 50 s (service time)
    assert m.deadline() == 110.0 and m.no_show(100.0) is None
    assert m.no_show(110.0) == 0


def test_a_match_without_a_start_is_never_aborted():
    m = Match(3, time_control=TC)
    m.roll_opening(3, 1, now=1000.0)  # the first action starts the clock
    m.play(0, "8/5 6/5", now=1001.0)
    assert m.no_show(1500.0) is None and m.deadline() == 1001.0 + 10.0 + 120.0
    assert Match(3).no_show(5.0) is None


def test_a_replayed_abort_stands_whatever_its_time():
    m = Match(3, time_control=TC, start=0.0)
    m.claim_abort(61.0)
    data = m.to_dict()
    data["actions"][0]["t"] = 30.0  # a rule that aborted sooner: the record says what happened
    assert Match.from_dict(data).aborted == 0
    data["actions"][0]["seat"] = 1  # seat 1 was not the one waited for
    with pytest.raises(InvalidRecord, match=r"action 0 \(abort\): no seat's first action is"):
        Match.from_dict(data)


def test_a_roll_asked_for_after_the_minute_waits_for_no_device():
    # A late request must not put the wait on the other seat's device (and its reserve).
    m = Match(5, time_control="rapid", start=0.0)
    with pytest.raises(TimeExpired, match="did not make its first move in time"):
        m.await_device(1, now=61.0)
    assert m.clock.held is None and m.no_show(61.0) == 0 and m.record == ()


@given(st.floats(min_value=0.0, max_value=59.9), st.floats(min_value=60.0, max_value=10_000.0))
def test_no_action_in_time_is_refused_and_every_late_one_is(early: float, late: float):
    m = Match(5, time_control="rapid", start=0.0)
    probe = Match(5, time_control="rapid", start=0.0)
    probe.roll_opening(4, 2, now=early)  # within the minute: taken
    assert probe.record[0].t == early
    with pytest.raises(TimeExpired):
        m.roll_opening(4, 2, now=late)
    assert m.record == () and m.no_show(late) == 0
