"""Exact doubles odds against closed forms and brute-force enumeration.

Fair-dice facts (a double is 6 of 36 ordered outcomes, 1/6) are from
shared/reference/published-figures.md, "Two fair dice".
"""

from fractions import Fraction
from itertools import product

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardgammon.stats.doubles import (
    DOUBLE,
    binomial_pmf,
    doubles_odds,
    p_at_least_once_in,
    p_more_by,
    p_run,
)
from boardgammon.stats.errors import InvalidQuery
from boardgammon.stats.significance import p_longest_run_at_least


def _sequences(rolls: int) -> np.ndarray:
    """All 6**rolls equally likely sequences of "second die minus first die, mod 6" — a roll is
    a double exactly when that is 0, one class in six as for 36 ordered outcomes."""
    return np.array(list(product(range(6), repeat=rolls))) == 0


def _has_run(doubles: np.ndarray, run: int) -> np.ndarray:
    current = np.zeros(len(doubles), dtype=int)
    seen = np.zeros(len(doubles), dtype=bool)
    for column in doubles.T:
        current = np.where(column, current + 1, 0)
        seen |= current >= run
    return seen


def test_double_is_one_in_six_from_the_36_outcomes():
    doubles = sum(1 for a, b in product(range(1, 7), repeat=2) if a == b)
    assert Fraction(doubles, 36) == DOUBLE == Fraction(1, 6)


@pytest.mark.parametrize("rolls", range(1, 7))
@pytest.mark.parametrize("run", [1, 2, 3, 4])
def test_run_matches_enumeration_of_all_sequences(rolls, run):
    seen = _has_run(_sequences(rolls), run)
    assert p_run(rolls, run) == Fraction(int(seen.sum()), 6**rolls)


def test_run_closed_forms():
    assert p_run(2, 2) == Fraction(1, 36)
    assert p_run(3, 2) == Fraction(11, 216)  # DD? or nDD: 1/36 + 5/216
    assert p_run(7, 8) == 0
    for n in (1, 10, 25, 100):
        assert p_run(n, 1) == 1 - Fraction(5, 6) ** n
        assert p_run(n, n) == Fraction(1, 6) ** n


def test_default_figures():
    odds = doubles_odds()
    assert odds.rolls == odds.opponent_rolls == 25
    assert odds.expected_doubles == Fraction(25, 6)
    assert odds.p_at_least_one_double == 1 - Fraction(5, 6) ** 25
    assert odds.p_run_of_2 == p_run(25, 2)
    assert odds.p_run_of_3 == p_run(25, 3)
    assert odds.p_run_of_k is None
    assert odds.p_opponent_more_by_margin == odds.p_you_more_by_margin
    assert odds.p_opponent_run_of_3_within_games == 1 - (1 - p_run(25, 3)) ** 20
    assert round(float(odds.p_run_of_3) * 100, 2) == 8.67
    assert round(float(odds.p_at_least_one_double) * 100, 2) == 98.95


@pytest.mark.parametrize(("rolls_a", "rolls_b"), [(1, 1), (2, 3), (3, 3), (4, 2)])
@pytest.mark.parametrize("margin", [0, 1, 2, 3])
def test_margin_matches_enumeration_of_both_players(rolls_a, rolls_b, margin):
    doubles = _sequences(rolls_a + rolls_b)
    mine = doubles[:, :rolls_a].sum(axis=1)
    theirs = doubles[:, rolls_a:].sum(axis=1)
    hits = int((theirs - mine >= margin).sum())
    assert p_more_by(rolls_a, rolls_b, margin) == Fraction(hits, 6 ** (rolls_a + rolls_b))


def test_binomial_pmf_sums_to_one_and_has_mean_np():
    pmf = binomial_pmf(25)
    assert sum(pmf) == 1
    assert sum(k * p for k, p in enumerate(pmf)) == Fraction(25, 6)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 40), st.integers(1, 40), st.integers(0, 6))
def test_margin_complement_and_monotone(n, m, d):
    # Y − X ≥ 0 or X − Y ≥ 1: the two events split every outcome.
    assert p_more_by(n, m, 0) + p_more_by(m, n, 1) == 1
    assert p_more_by(n, m, d + 1) <= p_more_by(n, m, d)
    if n == m:
        assert p_more_by(n, m, d) == p_more_by(m, n, d)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 60), st.integers(1, 6))
def test_run_is_monotone_and_in_lowest_terms(n, k):
    p = p_run(n, k)
    assert 0 <= p <= 1
    assert (p * 6**n).denominator == 1  # a count of the 6**n sequences
    assert p_run(n + 1, k) >= p
    assert p_run(n, k + 1) <= p


@pytest.mark.parametrize(("rolls", "run"), [(25, 2), (25, 3), (60, 4), (1, 1)])
def test_float_markov_chain_of_the_report_agrees_with_the_exact_fraction(rolls, run):
    exact = float(p_run(rolls, run))
    assert p_longest_run_at_least(np.array([rolls]), run) == pytest.approx(exact, rel=1e-12)
    two = 1 - (1 - p_run(rolls, run)) * (1 - p_run(rolls + 7, run))
    assert p_longest_run_at_least(np.array([rolls, rolls + 7]), run) == pytest.approx(
        float(two), rel=1e-12
    )


def test_at_least_once_in_games():
    p = p_run(25, 3)
    assert p_at_least_once_in(1, p) == p
    assert p_at_least_once_in(3, p) == 1 - (1 - p) ** 3


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"rolls": 0}, "rolls must be an integer ≥ 1"),
        ({"rolls": 10_000}, "rolls must be at most"),
        ({"games": 0}, "games must be an integer ≥ 1"),
        ({"run": 0}, "run must be an integer ≥ 1"),
        ({"margin": -1}, "margin must be an integer ≥ 0"),
        ({"rolls": 5000, "games": 100}, "rolls × games must be at most"),
    ],
)
def test_bad_questions_are_refused(kwargs, message):
    with pytest.raises(InvalidQuery, match=message):
        doubles_odds(**kwargs)
