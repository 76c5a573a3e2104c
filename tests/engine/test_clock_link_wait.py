"""The wait for the other player's device (v2 dice, issue #25: "a device that does not reveal in
time costs its own player's clock, never stalls the match for free"): the roller's clock stands
still while the roll waits for the opponent's link, the opponent's reserve runs without a delay
window, a flag during the wait falls for the opponent, and the record replays it exactly."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from boardgammon.engine.clock import PRESETS, Clock
from boardgammon.engine.errors import ClockError, InvalidRecord, WrongPhase
from boardgammon.engine.match import Match
from boardgammon.engine.record import Flagged, Rolled, action_from_dict

RAPID = PRESETS["rapid"]  # 12 s delay, 120 s per point


def test_the_wait_is_the_opponents_and_the_roller_keeps_its_delay():
    clock = Clock(RAPID, match_length=1)
    clock.start_turn(0, now=0.0)
    clock.hold(1, now=5.0)  # seat 0 asked to roll after 5 s: 7 s of delay left
    assert clock.ticking == 1 and clock.deadline() == 5.0 + 120.0
    assert clock.charged(0, now=9.0) == 0.0 and clock.charged(1, now=9.0) == 4.0
    assert clock.delay_left(9.0) == 0.0
    assert clock.release(now=9.0) == 4.0
    assert clock.reserve == (120.0, 116.0)
    # Seat 0's period goes on where it stood: 7 s of delay, then its reserve.
    assert clock.delay_left(9.0) == 7.0
    assert clock.stop(0, now=26.0) == 10.0  # 5 + 17 s of its own, 12 free
    assert clock.reserve == (110.0, 116.0)


def test_a_hold_is_for_the_other_seat_and_only_one_at_a_time():
    clock = Clock(RAPID, match_length=1)
    with pytest.raises(ClockError, match="no clock runs"):
        clock.hold(1, now=0.0)
    clock.start_turn(0, now=0.0)
    with pytest.raises(ClockError, match="other seat"):
        clock.hold(0, now=1.0)
    clock.hold(1, now=1.0)
    with pytest.raises(ClockError, match="already"):
        clock.hold(1, now=2.0)
    with pytest.raises(ClockError, match="release it first"):
        clock.stop(0, now=2.0)
    with pytest.raises(ClockError, match="backwards"):
        clock.release(now=0.5)
    assert clock.held == (1, 1.0) and clock.reserve == (120.0, 120.0)


@given(before=st.floats(0, 100), wait=st.floats(0, 50), after=st.floats(0, 100))
def test_the_roller_is_charged_as_if_the_wait_had_not_been(before, wait, after):
    waited = Clock(RAPID, match_length=3)
    waited.start_turn(0, now=0.0)
    waited.hold(1, now=before)
    waited.release(now=before + wait)
    charged = waited.stop(0, now=before + wait + after)
    plain = Clock(RAPID, match_length=3)
    plain.start_turn(0, now=0.0)
    assert charged == pytest.approx(plain.stop(0, now=before + after), abs=1e-9)
    assert waited.reserve[1] == pytest.approx(360.0 - wait, abs=1e-9)


def _on_roll(now: float = 0.0) -> Match:
    """A rapid 1-point match between ann and bob, seat 0 on roll for its second turn at
    ``now`` + 10 (the opening 3-1 at ``now``, bob's 6-5 turn from 2 to 8 s)."""
    m = Match(1, players=("ann", "bob"), time_control="rapid", start=now)
    m.roll_opening(3, 1, now=now + 1.0)
    m.play(0, "8/5 6/5", now=now + 2.0)
    m.roll(1, 6, 5, now=now + 3.0)
    m.play(1, "24/13", now=now + 8.0)
    return m


def test_a_roll_that_waited_charges_the_opponent_and_replays():
    m = _on_roll()
    assert m.clock is not None and m.clock.running == 0
    m.await_device(1, now=11.0)  # ann asked 3 s into her turn
    m.roll(0, 6, 4, now=14.0)  # bob's link came 3 s later
    assert m.record[-1] == Rolled(game=0, seat=0, dice=(6, 4), t=14.0, asked=11.0)
    assert m.clock.reserve == (120.0, 117.0) and m.clock.delay_left(14.0) == 9.0
    again = Match.from_json(m.to_json())
    assert again.clock is not None
    assert again.clock.reserve == (120.0, 117.0) and again.clock.delay_left(14.0) == 9.0
    assert action_from_dict(m.record[-1].to_dict()) == m.record[-1]


def test_the_opening_roll_waits_for_the_other_seat():
    m = Match(1, players=("ann", "bob"), time_control="rapid", start=0.0)
    m.await_device(1, now=2.0)
    m.roll_opening(5, 2, now=4.5)
    assert m.clock is not None and m.clock.reserve == (120.0, 117.5)
    # Ann won it and goes on with her move: 2 s of it used before she asked.
    assert m.clock.running == 0 and m.clock.delay_left(4.5) == 10.0
    assert Match.from_json(m.to_json()).clock.reserve == (120.0, 117.5)  # type: ignore[union-attr]
    other = Match(1, players=("ann", "bob"), time_control="rapid", start=0.0)
    other.await_device(1, now=2.0)
    other.roll_opening(2, 5, now=4.5)  # bob won it: his move starts with a whole delay
    assert other.clock is not None and other.clock.reserve == (120.0, 117.5)
    assert other.clock.running == 1 and other.clock.delay_left(4.5) == 12.0


def test_a_flag_during_the_wait_loses_for_the_late_player():
    m = Match(1, players=("ann", "bob"), time_control="rapid", start=0.0)
    m.roll_opening(3, 1, now=1.0)
    m.play(0, "8/5 6/5", now=2.0)
    m.roll(1, 6, 5, now=3.0)
    m.play(1, "24/13", now=132.5)  # bob's move from 2 s: 12 free, 118.5 off his 120
    clock = m.clock
    assert clock is not None and clock.reserve == (120.0, 1.5)
    m.await_device(1, now=133.5)
    assert clock.out_of_time(134.5) is None and clock.deadline() == 135.0
    assert clock.out_of_time(135.1) == 1
    with pytest.raises(Exception, match="seat 1's reserve ran out"):
        m.roll(0, 6, 4, now=135.1)
    assert m.claim_flag(135.1) == 1
    assert m.winner == 0 and m.flagged == 1
    assert m.record[-1] == Flagged(game=0, seat=1, t=135.1, asked=133.5)
    assert clock.reserve[0] == 120.0  # ann's 1 s before she asked was in her delay
    again = Match.from_json(m.to_json())
    assert again.winner == 0 and again.flagged == 1 and again.clock is not None
    assert again.clock.reserve == pytest.approx(clock.reserve)


def test_nothing_but_the_roll_happens_during_the_wait():
    m = _on_roll()
    m.await_device(1, now=11.0)
    before = m.to_json()
    with pytest.raises(WrongPhase, match="waiting for seat 1's device"):
        m.resign(1, 1, now=12.0)
    with pytest.raises(WrongPhase, match="waiting for seat 1's device"):
        m.double(0, now=12.0)
    assert m.to_json() == before and m.clock is not None and m.clock.held == (1, 11.0)


def test_no_wait_outside_the_roll():
    m = _on_roll()
    m.roll(0, 6, 4, now=12.0)
    with pytest.raises(WrongPhase, match="no roll to wait for"):
        m.await_device(1, now=13.0)
    with pytest.raises(Exception, match="no clock"):
        Match(1).await_device(1, now=0.0)


def test_a_replay_without_the_clock_ignores_the_wait():
    from dataclasses import replace

    from boardgammon.formats import write_mat

    m = _on_roll()
    m.await_device(1, now=11.0)
    m.roll(0, 6, 4, now=14.0)
    m.play(0, "24/18 13/9", now=15.0)
    plain = Match(1, players=("ann", "bob"))
    for action in m.record:
        plain.apply(replace(action, t=None))
    assert plain.game.board == m.game.board and plain.clock is None
    assert "64: 24/18 13/9" in write_mat(m)


def test_a_wait_charged_from_later_is_nobodys_until_then():
    """After a server's restart the devices get time to reconnect: the wait is charged to
    the waited-for seat only from ``charged_from``, and neither reserve runs before it."""
    clock = Clock(RAPID, match_length=1)
    clock.start_turn(0, now=0.0)
    clock.hold(1, now=5.0, charged_from=14.0)
    assert clock.charged(1, now=9.0) == 0.0 and clock.charged(0, now=9.0) == 0.0
    assert clock.delay_left(9.0) == 5.0  # the client counts it down before the reserve
    assert clock.deadline() == 14.0 + 120.0
    assert clock.out_of_time(134.0) is None and clock.out_of_time(134.1) == 1
    assert clock.charged(1, now=16.0) == 2.0
    assert clock.release(now=16.0) == 2.0
    assert clock.reserve == (120.0, 118.0) and clock.charged_from is None
    assert clock.delay_left(16.0) == 7.0  # the roller's period stood still all along


def test_a_charge_start_not_after_the_request_changes_nothing():
    clock = Clock(RAPID, match_length=1)
    clock.start_turn(0, now=0.0)
    clock.hold(1, now=5.0, charged_from=5.0)
    assert clock.charged_from is None and clock.deadline() == 125.0
    assert clock.release(now=8.0) == 3.0


def test_a_roll_that_waited_out_a_restart_records_and_replays_the_charge():
    m = _on_roll()
    m.await_device(1, now=11.0, charged_from=20.0)
    m.roll(0, 6, 4, now=23.0)  # bob's device reconnected: 3 s of it charged, not 12
    entry = m.record[-1]
    assert entry == Rolled(game=0, seat=0, dice=(6, 4), t=23.0, asked=11.0, charged_from=20.0)
    assert entry.to_dict()["charged_from"] == 20.0
    assert action_from_dict(entry.to_dict()) == entry
    assert m.clock is not None and m.clock.reserve == (120.0, 117.0)
    again = Match.from_json(m.to_json())
    assert again.clock is not None and again.clock.reserve == (120.0, 117.0)
    assert again.clock.delay_left(23.0) == 9.0 and again.record[-1] == entry


def test_a_flag_after_a_restarts_wait_counts_from_the_charge_start():
    m = _on_roll()
    clock = m.clock
    assert clock is not None
    m.await_device(1, now=11.0, charged_from=20.0)
    assert clock.deadline() == 140.0
    assert clock.out_of_time(140.0) is None and clock.out_of_time(140.1) == 1
    assert m.claim_flag(140.5) == 1
    assert m.record[-1] == Flagged(game=0, seat=1, t=140.5, asked=11.0, charged_from=20.0)
    again = Match.from_json(m.to_json())
    assert again.flagged == 1 and again.clock is not None
    assert again.clock.reserve == pytest.approx(clock.reserve)


@pytest.mark.parametrize("entry", [
    {"kind": "roll", "game": 0, "seat": 0, "dice": [6, 4], "t": 23.0, "charged_from": 20.0},
    {"kind": "roll", "game": 0, "seat": 0, "dice": [6, 4], "t": 23.0, "asked": 11.0,
     "charged_from": 11.0},
    {"kind": "flag", "game": 0, "seat": 1, "t": 23.0, "asked": 11.0, "charged_from": "20"},
])
def test_a_charge_start_needs_a_number_after_the_request(entry):
    with pytest.raises(InvalidRecord, match="charged_from"):
        action_from_dict(entry)


def test_a_resumption_during_the_wait_cuts_the_rollers_turn_where_it_stood():
    """The roller thought 20 s (12 free), asked, the server went down and resumed at 25 s
    while the roll waited, and the link came at 26 s: the roller pays 8 s, and goes on from
    26 s with a whole delay, as after any resumption (the wait's part after the resumption
    used to move the cut and charge 7 s)."""
    clock = Clock(RAPID, match_length=1)
    clock.resumes = [25.0]
    clock.start_turn(0, now=0.0)
    clock.hold(1, now=20.0)
    assert clock.release(now=26.0) == 6.0
    assert clock.reserve == (112.0, 114.0)
    assert clock.delay_left(26.0) == 12.0 and clock.charged(0, now=40.0) == 2.0
    assert clock.stop(0, now=40.0) == 2.0 and clock.reserve == (110.0, 114.0)


def test_a_resumption_before_the_wait_stays_behind_it():
    """The server resumed at 5 s into the roller's turn, the roller asked at 15 s and the link
    came at 18 s: the roller's second turn (from 5 s) has used 10 s of its 12 s delay, whatever
    the wait (a review's finding: the wait moved the turn's start past the resumption, and the
    roller paid for the opponent's wait)."""
    clock = Clock(RAPID, match_length=1)
    clock.resumes = [5.0]
    clock.start_turn(0, now=0.0)
    clock.hold(1, now=15.0)
    assert clock.release(now=18.0) == 3.0
    assert clock.delay_left(18.0) == 2.0
    assert clock.stop(0, now=30.0) == 10.0 and clock.reserve == (110.0, 117.0)
    cut = Clock(RAPID, match_length=1)
    cut.resumes = [10.0]
    cut.start_turn(0, now=0.0)
    cut.hold(1, now=15.0)
    cut.release(now=40.0)
    assert cut.delay_left(40.0) == 7.0
    assert cut.stop(0, now=50.0) == 3.0 and cut.reserve == (117.0, 95.0)


@given(think=st.floats(0, 60), wait=st.floats(0, 20), at=st.floats(0, 1), after=st.floats(0, 60))
def test_a_resumption_before_or_during_the_wait_charges_the_roller_as_two_turns(think, wait, at,
                                                                                 after):
    """Wherever the resumption falls in the roller's turn up to the link, the roller pays for
    its own time only, as two turns cut at the resumption (during the wait: at the request),
    each with its delay."""
    resumed = at * (think + wait)
    clock = Clock(RAPID, match_length=3)
    clock.resumes = [resumed]
    clock.start_turn(0, now=0.0)
    clock.hold(1, now=think)
    clock.release(now=think + wait)
    charged = 360.0 - clock.reserve[0] + clock.stop(0, now=think + wait + after)
    cut_at = min(resumed, think)  # the roller's own time, the wait taken out
    expected = max(0.0, cut_at - 12.0) + max(0.0, think - cut_at + after - 12.0)
    assert charged == pytest.approx(expected, abs=1e-9)
    assert clock.reserve[1] == pytest.approx(360.0 - wait, abs=1e-9)


def test_a_stored_record_loads_under_a_clock_rule_that_charges_more():
    """A record's actions were made in time when they were played: a replay under a clock
    rule that has changed since (a fix) neither refuses a later action for a reserve run out
    nor a flag for time left; a flag for a seat whose clock was not running is still refused."""
    m = Match(1, players=("ann", "bob"), time_control="rapid", start=0.0)
    m.roll_opening(3, 1, now=1.0)
    m.play(0, "8/5 6/5", now=2.0)
    m.roll(1, 6, 5, now=3.0)
    m.play(1, "24/13", now=130.0)  # bob's turn from 2 s, 12 free: 116 s off his 120
    data = m.to_dict()
    late = json_copy(data)
    late["actions"][-1]["t"] = 140.0  # as a stricter clock would have it: 6 s too late
    again = Match.from_dict(late)
    assert again.record[-1].t == 140.0 and again.clock is not None
    assert again.clock.reserve[1] == -6.0 and again.winner is None
    early = json_copy(data)
    early["actions"].append({"kind": "flag", "game": 0, "seat": 0, "t": 131.0})
    early["winner"] = 1
    flagged = Match.from_dict(early)
    assert flagged.flagged == 0 and flagged.winner == 1
    early["actions"][-1]["seat"], early["winner"] = 1, 0  # bob's clock was not running
    with pytest.raises(InvalidRecord, match="no flag"):
        Match.from_dict(early)
    with pytest.raises(Exception, match="no flag"):
        Match.from_dict(data).claim_flag(131.0)  # live, a flag needs the time run out


def json_copy(data: dict) -> dict:
    import json

    return json.loads(json.dumps(data))
