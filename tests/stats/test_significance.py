"""Chi-square and look-elsewhere-aware tests, checked against the published dice-record count
(shared/reference/published-figures.md, "The dice record count" and "An older count"),
brute-force enumeration and Monte Carlo."""

from fractions import Fraction
from itertools import product
from math import factorial, prod

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from boardgammon.stats.doubles import p_run
from boardgammon.stats.significance import (
    MAX_EXACT_RUN,
    chi_square_p,
    chi_square_uniform,
    longest_run_test,
    p_all_within,
    p_binomial_deviation_at_least,
    p_deviation_at_least,
    p_max_at_least,
)

# The published count (shared/reference/published-figures.md).
ROLLS = 438_679
DICE = 877_358
DOUBLES = {1: 12_053, 2: 12_244, 3: 12_209, 4: 12_163, 5: 12_063, 6: 12_447}
RAREST_3_4 = 11_973
FACE_SHARES_PERCENT = [16.62, 16.71, 16.67, 16.60, 16.64, 16.76]


def published_table() -> np.ndarray:
    """A 6 × 6 table consistent with every published cell figure: the six doubles, 3-4 at
    11,973, and the other 29 cells (unpublished) as equal as integers allow."""
    table = np.zeros((6, 6), dtype=np.int64)
    for face, count in DOUBLES.items():
        table[face - 1, face - 1] = count
    table[2, 3] = RAREST_3_4
    rest = ROLLS - sum(DOUBLES.values()) - RAREST_3_4
    free = [(r, c) for r in range(6) for c in range(6) if r != c and (r, c) != (2, 3)]
    base, extra = divmod(rest, len(free))
    for i, (r, c) in enumerate(free):
        table[r, c] = base + (i < extra)
    return table


def test_published_p_values_follow_from_the_statistics_and_df():
    assert round(chi_square_p(42.25, 35), 2) == 0.19
    assert round(chi_square_p(9.62, 5), 2) == 0.09


def test_published_doubles_and_extremes():
    table = published_table()
    assert table.sum() == ROLLS and 2 * table.sum() == DICE
    assert np.trace(table) == 73_179
    assert round(100 * np.trace(table) / ROLLS, 2) == 16.68
    assert round(ROLLS / 36, 1) == 12_185.5  # published rounded
    assert round(100 * (DOUBLES[6] / (ROLLS / 36) - 1), 2) == 2.15
    assert round(100 * (1 - DOUBLES[1] / (ROLLS / 36)), 2) == 1.09


def test_published_cell_chi_square_is_at_least_what_the_published_cells_force():
    # The 29 unpublished cells spread evenly give the smallest statistic the summary allows;
    # the published 42.25 must not be below it (the full table is not published).
    smallest = chi_square_uniform(published_table())
    assert smallest.df == 35
    assert 12.0 < smallest.statistic <= 42.25


def test_published_face_chi_square_is_reproduced_within_the_rounding_of_the_shares():
    expected = DICE / 6
    shares = np.array(FACE_SHARES_PERCENT) / 100
    assert round(shares.sum(), 6) == 1
    low = np.ceil(DICE * (shares - 0.00005))
    high = np.floor(DICE * (shares + 0.00005))
    # Each face's term (count − E)²/E is smallest/largest at an end of its rounding interval.
    terms_low = np.minimum((low - expected) ** 2, (high - expected) ** 2) / expected
    terms_high = np.maximum((low - expected) ** 2, (high - expected) ** 2) / expected
    assert terms_low.sum() <= 9.62 <= terms_high.sum()
    central = chi_square_uniform(np.round(DICE * shares))
    assert central.df == 5
    assert central.statistic == pytest.approx(9.62, abs=0.5)
    assert round(central.p, 2) in (0.09, 0.10)


def test_older_fibs_count_shows_no_evidence_of_bias():
    rolls = 10_593_121
    doubles = round(0.16651 * rolls)
    assert stats.binomtest(doubles, rolls, 1 / 6).pvalue > 0.05


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 500), min_size=2, max_size=40).filter(lambda c: sum(c) > 0))
def test_chi_square_matches_scipy(counts):
    ours = chi_square_uniform(np.array(counts))
    theirs = stats.chisquare(counts)
    assert ours.statistic == pytest.approx(theirs.statistic, rel=1e-9, abs=1e-12)
    assert ours.p == pytest.approx(theirs.pvalue, rel=1e-9, abs=1e-15)


def _brute_force_within(n: int, k: int, lo: int, hi: int) -> Fraction:
    hits = sum(
        Fraction(factorial(n), prod(factorial(c) for c in counts))
        for counts in product(range(n + 1), repeat=k)
        if sum(counts) == n and all(lo <= c <= hi for c in counts)
    )
    return hits / k**n


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 12), st.integers(1, 4), st.integers(0, 12), st.integers(0, 12))
def test_levin_representation_matches_enumeration(n, k, lo, hi):
    exact = float(_brute_force_within(n, k, lo, hi))
    assert p_all_within(n, k, lo, hi) == pytest.approx(exact, abs=1e-12)


def test_max_cell_of_the_published_count_against_monte_carlo():
    p = p_max_at_least(ROLLS, 36, DOUBLES[6])
    samples = 20_000
    counts = np.random.default_rng(7).multinomial(ROLLS, [1 / 36] * 36, size=samples)
    simulated = (counts.max(axis=1) >= DOUBLES[6]).mean()
    error = (p * (1 - p) / samples) ** 0.5
    assert abs(simulated - p) < 4 * error
    naive = stats.binom.sf(DOUBLES[6] - 1, ROLLS, 1 / 36)
    assert naive < p < 36 * naive  # look-elsewhere: above one named cell, below Bonferroni


def test_max_face_against_monte_carlo():
    counts_6 = round(DICE * FACE_SHARES_PERCENT[5] / 100)
    deviation = abs(Fraction(counts_6) - Fraction(DICE, 6))
    p = p_deviation_at_least(DICE, 6, deviation)
    samples = 20_000
    faces = np.random.default_rng(8).multinomial(DICE, [1 / 6] * 6, size=samples)
    simulated = (np.abs(faces - DICE / 6).max(axis=1) >= float(deviation)).mean()
    error = (p * (1 - p) / samples) ** 0.5
    assert abs(simulated - p) < 4 * error
    naive = p_binomial_deviation_at_least(DICE, Fraction(1, 6), deviation)
    assert naive < p < 6 * naive


def test_naive_deviation_is_the_two_sided_binomial_tail():
    n, p = 60, Fraction(1, 6)
    for deviation in (Fraction(1), Fraction(5, 2), Fraction(9)):
        exact = sum(
            stats.binom.pmf(x, n, 1 / 6) for x in range(n + 1) if abs(x - n * p) >= deviation
        )
        assert p_binomial_deviation_at_least(n, p, deviation) == pytest.approx(exact, rel=1e-9)


def test_edges():
    assert p_all_within(10, 3, 4, 10) == 0.0  # three cells of at least 4 need 12
    assert p_all_within(10, 1, 10, 10) == 1.0
    assert p_max_at_least(100, 6, 0) == 1.0
    assert p_deviation_at_least(100, 6, Fraction(0)) == 1.0


def test_longest_run_test_exact_and_bounded():
    exact = longest_run_test(np.array([25, 25]), 3)
    assert exact["p_at_least"] == pytest.approx(float(1 - (1 - p_run(25, 3)) ** 2))
    assert exact["p_at_most"] == pytest.approx(float((1 - p_run(25, 4)) ** 2))
    assert exact["method"].startswith("exact")
    none = longest_run_test(np.array([10]), 0)
    assert none["p_at_least"] == 1.0
    assert none["p_at_most"] == pytest.approx(float(1 - p_run(10, 1)))
    # A record sorted by outcome holds thousands of doubles in a row: bound, not a huge chain.
    sorted_record = longest_run_test(np.array([438_679]), 12_447)
    assert sorted_record["p_at_least"] == 438_679 * (1 / 6) ** 12_447 == 0.0
    assert sorted_record["method"].startswith("upper bound")
    edge = longest_run_test(np.array([1000]), MAX_EXACT_RUN)
    assert edge["p_at_most"] == 1.0 and edge["p_at_least"] < 1e-40
