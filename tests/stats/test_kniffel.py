"""Exact Kniffel (Yahtzee) odds against brute force, closed forms, Monte Carlo and a published
figure.

p1 = 6/7776 = 1/1296 is from shared/reference/published-figures.md ("Kniffel (Yahtzee), five
fair dice"). The optimal 3-roll chance of about 4.60 % is the widely published figure for
"Yahtzee in one turn, playing only for it"; here it is checked with a tolerance and by Monte
Carlo, never used by the implementation.
"""

from fractions import Fraction
from functools import cache
from itertools import combinations, product
from math import factorial

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardgammon.stats.errors import InvalidQuery
from boardgammon.stats.kniffel import kniffel_odds


def brute_force_optimal(dice: int, sides: int, rolls: int) -> Fraction:
    """Independent reference: states are multisets of actual faces (sorted tuples), every
    subset of dice positions may be kept, every ordered outcome of the re-roll enumerated."""

    @cache
    def hand_value(hand: tuple[int, ...], left: int) -> Fraction:
        if len(set(hand)) == 1:
            return Fraction(1)
        if left == 0:
            return Fraction(0)
        kept_options = {
            tuple(sorted(kept)) for size in range(dice + 1) for kept in combinations(hand, size)
        }
        return max(roll_value(kept, left) for kept in kept_options)

    @cache
    def roll_value(kept: tuple[int, ...], left: int) -> Fraction:
        outcomes = list(product(range(sides), repeat=dice - len(kept)))
        total = sum(hand_value(tuple(sorted(kept + o)), left - 1) for o in outcomes)
        return total / len(outcomes)

    return roll_value((), rolls)


@pytest.mark.parametrize(
    ("dice", "sides", "rolls"), [(2, 3, 2), (3, 3, 3), (3, 4, 2), (4, 3, 2), (4, 4, 3), (5, 3, 2)]
)
def test_optimal_matches_brute_force_over_face_multisets(dice, sides, rolls):
    odds = kniffel_odds(dice, sides, rolls)
    assert list(odds.optimal) == [brute_force_optimal(dice, sides, r) for r in range(1, rolls + 1)]


def test_one_roll_is_the_published_p1():
    odds = kniffel_odds()
    assert odds.optimal[0] == odds.always_reroll[0] == odds.fixed_target[0] == Fraction(1, 1296)
    assert Fraction(6, 7776) == Fraction(1, 1296)


def test_first_roll_table_counts():
    rows = kniffel_odds().first_roll_groups
    assert [r.largest_group for r in rows] == [1, 2, 3, 4, 5]
    pair = 6 * 10 * 5 * 4 * 3  # face, its 2 places of 5, three other distinct faces in order
    two_pairs = 15 * 4 * (factorial(5) // (2 * 2))
    three = 6 * 10 * 5 * 4
    full_house = 6 * 5 * 10
    assert [r.outcomes for r in rows] == [720, pair + two_pairs, three + full_house, 6 * 5 * 5, 6]
    assert sum(r.outcomes for r in rows) == 6**5 == 7776
    assert rows[-1].p_finish == 1


def test_first_roll_table_is_the_optimum_split_by_group():
    odds = kniffel_odds()
    total = sum(Fraction(r.outcomes, 7776) * r.p_finish for r in odds.first_roll_groups)
    assert total == odds.optimal[-1]
    # Four of a kind with two rolls left: the fifth die hits within two rolls.
    assert odds.first_roll_groups[3].p_finish == 1 - Fraction(5, 6) ** 2


def test_optimal_three_rolls_is_the_published_four_point_six_percent():
    percent = float(kniffel_odds().optimal[2] * 100)
    assert percent == pytest.approx(4.60, abs=0.01)


def _simulate(turns: int, rolls: int, switch: bool, seed: int) -> float:
    """Monte Carlo of "keep the commonest face" (re-choosing it every roll when ``switch``)."""
    rng = np.random.default_rng(seed)
    dice = rng.integers(0, 6, size=(turns, 5))
    target = None
    for _ in range(rolls - 1):
        counts = np.stack([(dice == f).sum(axis=1) for f in range(6)], axis=1)
        if switch or target is None:
            target = counts.argmax(axis=1)
        keep = dice == target[:, None]
        dice = np.where(keep, dice, rng.integers(0, 6, size=dice.shape))
    return float((dice == dice[:, :1]).all(axis=1).mean())


@pytest.mark.parametrize(("strategy", "switch"), [("optimal", True), ("fixed_target", False)])
def test_monte_carlo_agrees_within_four_standard_errors(strategy, switch):
    turns = 200_000
    exact = float(getattr(kniffel_odds(), strategy)[2])
    simulated = _simulate(turns, 3, switch, seed=4)
    error = (exact * (1 - exact) / turns) ** 0.5
    assert abs(simulated - exact) < 4 * error


@pytest.mark.parametrize("sides", [2, 6, 9])
@pytest.mark.parametrize("rolls", [1, 2, 3, 5])
def test_two_dice_closed_form(sides, rolls):
    # Pair on the first roll, else keep one die and hit it within the remaining rolls.
    miss = Fraction(sides - 1, sides)
    expected = 1 / Fraction(sides) + miss * (1 - miss ** (rolls - 1))
    odds = kniffel_odds(2, sides, rolls)
    assert odds.optimal[-1] == odds.fixed_target[-1] == expected


def test_always_reroll_closed_form():
    p1 = Fraction(1, 1296)
    assert list(kniffel_odds().always_reroll) == [1 - (1 - p1) ** r for r in (1, 2, 3)]


def test_trivial_games():
    assert kniffel_odds(1, 6, 3).optimal == (1, 1, 1)
    assert kniffel_odds(5, 1, 2).optimal == (1, 1)


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 6), st.integers(2, 8), st.integers(1, 4))
def test_optimal_is_best_and_monotone(dice, sides, rolls):
    odds = kniffel_odds(dice, sides, rolls)
    for r in range(rolls):
        assert odds.optimal[r] >= odds.fixed_target[r] >= odds.always_reroll[r]
        assert 0 < odds.optimal[r] <= 1
    assert list(odds.optimal) == sorted(odds.optimal)
    assert sum(g.outcomes for g in odds.first_roll_groups) == sides**dice


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((0, 6, 3), "dice must be an integer from 1"),
        ((5, 0, 3), "sides must be"),
        ((5, 6, 0), "rolls must be"),
        ((13, 6, 3), "dice must be"),
        ((5, 6, 101), "rolls must be"),
    ],
)
def test_out_of_range_is_refused(args, message):
    with pytest.raises(InvalidQuery, match=message):
        kniffel_odds(*args)
