"""Significance tests for dice counts under fair dice: chi-square, the maximum of a multinomial
(look-elsewhere aware), and the longest run of doubles.

The distribution of the largest cell of an equiprobable multinomial is computed exactly up to
double-precision rounding by Levin's representation (B. Levin, "A representation for multinomial
cumulative distribution functions", Annals of Statistics 9 (1981) 1123–1126): with ``Y_i``
independent Poisson(n/k),

    P(lo ≤ X_i ≤ hi for all i) = P(lo ≤ Y ≤ hi)^k · P(S* = n) / P(Y_1 + … + Y_k = n),

where ``S*`` is a sum of ``k`` independent copies of ``Y`` truncated to ``[lo, hi]``; the
k-fold convolution is done with an FFT. Nothing here is simulated.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy import fft, stats

from .errors import InvalidQuery


@dataclass(frozen=True)
class ChiSquare:
    """Pearson's chi-square against equal chances: statistic, degrees of freedom, p-value, and
    the expected count per cell (rolls / cells)."""

    statistic: float
    df: int
    p: float
    expected: float

    @property
    def approximation_ok(self) -> bool:
        """Whether the chi-square distribution is a fair approximation of the statistic's:
        at least 5 expected per cell (Cochran's rule, W. G. Cochran, "Some methods for
        strengthening the common χ² tests", Biometrics 10, 1954). Below it the p-value is
        rough."""
        return self.expected >= 5.0

    def as_json(self) -> dict[str, float | int | bool]:
        return {"statistic": self.statistic, "df": self.df, "p": self.p,
                "expected": self.expected, "approximation_ok": self.approximation_ok}


def chi_square_p(statistic: float, df: int) -> float:
    """Upper-tail p-value of a chi-square ``statistic`` with ``df`` degrees of freedom."""
    return float(stats.chi2.sf(statistic, df))


def chi_square_uniform(counts: np.ndarray) -> ChiSquare:
    """Pearson's chi-square of ``counts`` (any shape, flattened) against equal chances per cell:
    sum of (observed − expected)² / expected with ``cells − 1`` degrees of freedom.

    Raises:
        InvalidQuery: fewer than two cells or no counts at all.
    """
    observed = np.asarray(counts, dtype=np.float64).ravel()
    total = observed.sum()
    if observed.size < 2 or total <= 0:
        raise InvalidQuery("chi-square needs at least two cells and a positive total")
    expected = total / observed.size
    statistic = float(((observed - expected) ** 2).sum() / expected)
    df = observed.size - 1
    return ChiSquare(statistic, df, chi_square_p(statistic, df), float(expected))


def p_all_within(n: int, k: int, lo: int, hi: int) -> float:
    """P(lo ≤ X_i ≤ hi for every i) for X ~ Multinomial(n; k cells of chance 1/k each).

    Levin's representation (module docstring). The Poisson support is cut where its
    probabilities are below double precision anyway (beyond ~40 standard deviations).

    Raises:
        InvalidQuery: n < 0 or k < 1.
    """
    if n < 0 or k < 1:
        raise InvalidQuery(f"need n ≥ 0 and k ≥ 1 cells, got n={n}, k={k}")
    lo, hi = max(lo, 0), min(hi, n)
    if lo > hi or k * lo > n or k * hi < n:
        return 0.0
    if k == 1:
        return 1.0
    lam = n / k
    spread = 40 * math.sqrt(lam) + 40
    a, b = max(lo, math.floor(lam - spread)), min(hi, math.ceil(lam + spread))
    if a > b or k * a > n or k * b < n:
        return 0.0
    outside = stats.poisson.cdf(a - 1, lam) + stats.poisson.sf(b, lam)
    log_inside = math.log1p(-outside) if outside < 1 else -math.inf
    if log_inside == -math.inf:
        return 0.0
    truncated = stats.poisson.pmf(np.arange(a, b + 1), lam) / math.exp(log_inside)
    length = k * (b - a) + 1
    size = fft.next_fast_len(length, real=True)
    summed = fft.irfft(fft.rfft(truncated, size) ** k, size)[:length]
    density = max(float(summed[n - k * a]), 0.0)
    log_p = (
        k * log_inside + math.log(density) - stats.poisson.logpmf(n, n) if density else -math.inf
    )
    return min(1.0, math.exp(log_p))


FAR_TAIL = 1e-6
"""Below this union bound a look-elsewhere chance is taken from the bound itself: the FFT in
:func:`p_all_within` has absolute error ~1e-10, so ``1 − P`` there is noise (or exactly 0)."""


def _far_tail(k: int, one_cell: float) -> float | None:
    """P(some one of k cells is that extreme) as the union bound ``k · one_cell`` when that is
    below :data:`FAR_TAIL`, else None. The bound is always above the true chance; by Bonferroni
    it is high by at most the chance of two cells extreme together, which is of order q² (for
    the upper tail at most q², multinomial cells being negatively associated: Joag-Dev and
    Proschan, Annals of Statistics 11 (1983) 286–295), so a relative error of order k·q < 1e-6."""
    bound = k * one_cell
    return bound if bound < FAR_TAIL else None


def p_max_at_least(n: int, k: int, maximum: int) -> float:
    """P(max_i X_i ≥ maximum) for X ~ Multinomial(n; k equal cells): the chance that the most
    frequent of k outcomes reaches ``maximum`` when no cell is named in advance.

    Tiny chances come from the union bound (see :func:`_far_tail`), where ``1 − P(all within)``
    has lost every digit to the FFT's rounding."""
    one_cell = float(stats.binom.sf(maximum - 1, n, 1 / k))
    return _far_tail(k, one_cell) or max(0.0, 1.0 - p_all_within(n, k, 0, maximum - 1))


def p_deviation_at_least(n: int, k: int, deviation: Fraction) -> float:
    """P(max_i |X_i − n/k| ≥ deviation) for X ~ Multinomial(n; k equal cells): the chance that
    the cell furthest from its expectation is at least ``deviation`` away (either side)."""
    mean = Fraction(n, k)
    if deviation <= 0:
        return 1.0
    lo = math.floor(mean - deviation) + 1
    hi = math.ceil(mean + deviation) - 1
    one_cell = p_binomial_deviation_at_least(n, Fraction(1, k), deviation)
    return _far_tail(k, one_cell) or max(0.0, 1.0 - p_all_within(n, k, lo, hi))


def p_binomial_deviation_at_least(n: int, p: Fraction, deviation: Fraction) -> float:
    """P(|X − n·p| ≥ deviation) for X ~ Binomial(n, p): the naive two-sided p-value of one cell
    named in advance."""
    mean = n * p
    below = math.floor(mean - deviation)
    above = math.ceil(mean + deviation)
    return float(
        min(1.0, stats.binom.cdf(below, n, float(p)) + stats.binom.sf(above - 1, n, float(p)))
    )


MAX_EXACT_RUN = 60
"""Longest run for which :func:`longest_run_test` runs the exact chain (a (K+1)² matrix); a
longer run of chance p**K ≤ 6**-61 per start is shown by the union bound alone."""


def _run_chain(run: int, p: float) -> np.ndarray:
    """Transition matrix over the current run length 0…run−1 plus an absorbing "run seen"."""
    chain = np.zeros((run + 1, run + 1))
    chain[:run, 0] = 1 - p
    for j in range(run):
        chain[j, j + 1] = p
    chain[run, run] = 1.0
    return chain


def p_longest_run_at_least(lengths: np.ndarray, run: int, p: float = 1 / 6) -> float:
    """Chance that at least one of independent sequences of Bernoulli(p) trials, of the given
    ``lengths``, holds a run of ``run`` or more successes. Exact Markov-chain distribution (the
    chain of :func:`boardgammon.stats.doubles.p_run`), in double precision via matrix powers.

    Raises:
        InvalidQuery: ``run`` < 1 or above :data:`MAX_EXACT_RUN`.
    """
    if not 1 <= run <= MAX_EXACT_RUN:
        raise InvalidQuery(f"run must be from 1 to {MAX_EXACT_RUN}, got {run}")
    values, counts = np.unique(np.asarray(lengths, dtype=np.int64), return_counts=True)
    chain = _run_chain(run, p)
    log_none = 0.0
    state = np.zeros(run + 1)
    state[0] = 1.0
    done = 0
    for length, count in zip(values, counts, strict=True):
        state = state @ np.linalg.matrix_power(chain, int(length - done))
        done = int(length)
        hit = min(max(state[run], 0.0), 1.0)
        if hit >= 1.0:
            return 1.0
        log_none += int(count) * math.log1p(-hit)
    return float(-math.expm1(log_none))


def longest_run_test(lengths: np.ndarray, longest: int, p: float = 1 / 6) -> dict:
    """The observed longest run of successes against its distribution for independent trials.

    Args:
        lengths: length of each independent sequence (runs do not cross sequences).
        longest: the longest run observed.
        p: chance of a success (1/6: a double).

    Returns:
        ``{"length", "p_at_least", "p_at_most", "method"}``: the chances that fair dice give a
        longest run ≥ and ≤ the observed one. Exact (Markov chain, double precision) up to
        :data:`MAX_EXACT_RUN`; beyond it ``p_at_least`` is the union bound Σ n·p^L (every start
        of a run), which is then below 1e-40 per million rolls, and ``p_at_most`` is 1.
    """
    n = int(np.sum(lengths))
    if longest > MAX_EXACT_RUN:
        return {
            "length": longest,
            "p_at_least": min(1.0, n * p**longest),
            "p_at_most": 1.0,
            "method": f"upper bound n·p^L (a run longer than {MAX_EXACT_RUN})",
        }
    at_least = p_longest_run_at_least(lengths, longest, p) if longest else 1.0
    at_most = (
        1.0 - p_longest_run_at_least(lengths, longest + 1, p) if longest < MAX_EXACT_RUN else 1.0
    )
    return {
        "length": longest,
        "p_at_least": at_least,
        "p_at_most": at_most,
        "method": "exact Markov chain of the run length (double precision), not simulated",
    }
