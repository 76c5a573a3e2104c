"""Shot, entering and bear-off counts from the engine's legal plays, against the published
tables and against a plain enumeration of the dice written here independently of the engine."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardgammon.odds import (
    MAX_DISTANCE,
    InvalidOddsQuery,
    bear_off_count,
    enter_count,
    hit_count,
)

# The standard shot table: throws of 36 that hit a blot 1..24 pips away, nothing in between.
SHOTS = {1: 11, 2: 12, 3: 14, 4: 15, 5: 15, 6: 17, 7: 6, 8: 6, 9: 5, 10: 3, 11: 2, 12: 3,
         15: 1, 16: 1, 18: 1, 20: 1, 24: 1}


def enumerated_hits(distance: int, blocked: set[int]) -> int:
    """Throws of 36 that land one checker exactly ``distance`` pips on, stopping only on open
    points on the way: a die alone, either order of two dice, or 1–4 steps of a double."""
    count = 0
    for a in range(1, 7):
        for b in range(1, 7):
            steps = [[a] * k for k in range(1, 5)] if a == b else [[a], [b], [a, b], [b, a]]
            for path in steps:
                landings = [sum(path[:i]) for i in range(1, len(path) + 1)]
                if landings[-1] == distance and not blocked & set(landings[:-1]):
                    count += 1
                    break
    return count


def test_a_direct_six_is_hit_by_17_of_36_rolls():
    six = hit_count(6)
    assert six.count == 17 and str(six.probability) == "17/36"
    assert (6, 6) in six.rolls and (1, 5) in six.rolls and (2, 4) in six.rolls


def test_the_published_shot_table():
    assert {d: hit_count(d).count for d in range(1, MAX_DISTANCE + 1) if hit_count(d).count} \
        == SHOTS


@settings(max_examples=60, deadline=None)
@given(st.integers(2, MAX_DISTANCE).flatmap(
    lambda d: st.tuples(st.just(d), st.sets(st.integers(1, d - 1), max_size=7))))
def test_hits_with_blocked_points_equal_the_enumeration(case):
    distance, blocked = case
    assert hit_count(distance, blocked).count == enumerated_hits(distance, blocked)


def test_a_blocked_point_takes_the_combinations_through_it():
    # 6 away with the 3 held: 3-3 cannot hit (it stops on the 3), 2-2 and the rest still do.
    assert hit_count(6, {3}).count == 16
    assert (3, 3) not in hit_count(6, {3}).rolls and (2, 2) in hit_count(6, {3}).rolls


@pytest.mark.parametrize("closed", range(7))
def test_entering_against_closed_points(closed):
    assert enter_count(closed, 1).count == 36 - closed**2
    assert enter_count(closed, 2).count == (6 - closed) ** 2


@pytest.mark.parametrize(("position", "count"), [
    ({1: 1}, 36),
    ({1: 2}, 36),
    ({2: 2}, 26),  # every roll but those with a 1, except 1-1
    ({6: 2}, 4),  # 3-3, 4-4, 5-5, 6-6
    ({6: 1, 5: 1}, 6),  # 6-5 and the same four doubles
    ({1: 4}, 6),  # only doubles
])
def test_bearing_off_in_one_roll(position, count):
    assert bear_off_count(position).count == count


@pytest.mark.parametrize(("call", "message"), [
    (lambda: hit_count(0), "1 to 24 pips"),
    (lambda: hit_count(25), "1 to 24 pips"),
    (lambda: hit_count(6, {6}), "between the checker and the blot"),
    (lambda: hit_count(9, range(1, 9)), "at most 7 points"),
    (lambda: enter_count(7), "0 to 6 points"),
    (lambda: enter_count(2, 3), "1 or 2 checkers"),
    (lambda: bear_off_count({7: 1}), "points 1-6"),
    (lambda: bear_off_count({}), "1 to 15 checkers"),
    (lambda: bear_off_count({6: 16}), "1 to 15 checkers"),
])
def test_bad_questions_say_what_is_allowed(call, message):
    with pytest.raises(InvalidOddsQuery, match=message):
        call()


def test_direct_and_indirect_shots_apart():
    from boardgammon.odds import hit_count, split_shots

    split = [split_shots(d, hit_count(d)) for d in range(1, 9)]
    assert [direct.count for direct, _ in split] == [11] * 6 + [0, 0]
    assert [indirect.count for _, indirect in split] == [0, 1, 3, 4, 4, 6, 6, 6]
    direct, indirect = split_shots(6, hit_count(6))
    assert indirect.rolls == ((1, 5), (2, 2), (2, 4), (3, 3))
    # Blocking the 3-point leaves 3-3 no way through: the direct shots stay.
    direct, indirect = split_shots(6, hit_count(6, [3]))
    assert (direct.count, indirect.count) == (11, 5)
