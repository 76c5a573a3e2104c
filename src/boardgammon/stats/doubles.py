"""Exact odds of doubles for two fair dice: counts, runs and margins between two players.

Every figure is a :class:`fractions.Fraction` in lowest terms, computed by exact integer
arithmetic over the ``6**N`` equally weighted roll sequences; nothing is simulated. A roll is a
double with chance 1/6 (6 of the 36 ordered outcomes, ``shared/reference/published-figures.md``)
and rolls are independent, so the number of doubles in ``N`` rolls is Binomial(N, 1/6).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import comb

from .errors import InvalidQuery

DOUBLE = Fraction(1, 6)
"""The chance that one roll of two fair dice is a double."""

MAX_ROLLS = 5_000
"""Largest ``rolls`` accepted; beyond it the exact fractions have tens of thousands of digits."""

MAX_ROLLS_TIMES_GAMES = 200_000
"""Largest ``rolls × games`` accepted: the denominator of the over-G-games figure is 6**(N·G)."""


def _check_positive(name: str, value: int, low: int = 1) -> None:
    if not isinstance(value, int) or value < low:
        raise InvalidQuery(f"{name} must be an integer ≥ {low}, got {value!r}",
                           "at_least", name=name, low=low, got=value)


def _check_rolls(rolls: int) -> None:
    _check_positive("rolls", rolls)
    if rolls > MAX_ROLLS:
        raise InvalidQuery(f"rolls must be at most {MAX_ROLLS}, got {rolls}",
                           "rolls_at_most", high=MAX_ROLLS, got=rolls)


def p_at_least_one(rolls: int, p: Fraction = DOUBLE) -> Fraction:
    """Chance of at least one success in ``rolls`` independent trials of chance ``p``: 1 − (1−p)^N.

    Raises:
        InvalidQuery: ``rolls`` < 1 or above :data:`MAX_ROLLS`.
    """
    _check_rolls(rolls)
    return 1 - (1 - p) ** rolls


def p_run(rolls: int, run: int, p: Fraction = DOUBLE) -> Fraction:
    """Chance of at least one run of ``run`` successes in a row within ``rolls`` trials.

    Counted in integers over the ``den**N`` equally weighted sequences (a success has weight
    ``p``'s numerator ``h``, a failure the rest ``m`` of its denominator ``den``). ``free[n]``,
    the weight of length-n sequences with no run of K, obeys ``free[n] = den**n`` for n < K,
    ``free[K] = den**K − h**K`` and, for n > K, ``free[n] = den·free[n−1] − m·h**K·free[n−K−1]``
    (a free sequence of length n−1 extended by any trial, less those whose last K trials are the
    first run: a free prefix of length n−K−1, a failure, then K successes). The answer is
    ``1 − free[N] / den**N``; O(N) big-integer steps whatever K (Feller, An Introduction to
    Probability Theory, vol. 1, XIII.7, for the same recurrence in probabilities).

    Args:
        rolls: number of trials N ≥ 1.
        run: run length K ≥ 1 (K > N gives 0).
        p: chance of a success in one trial (default 1/6, a double).

    Raises:
        InvalidQuery: N or K below 1, or N above :data:`MAX_ROLLS`.
    """
    _check_rolls(rolls)
    _check_positive("run", run)
    hit, den = p.numerator, p.denominator
    miss = den - hit
    if run > rolls:
        return Fraction(0)
    free = [den**n for n in range(run)] + [den**run - hit**run]
    start = miss * hit**run
    for n in range(run + 1, rolls + 1):
        free.append(den * free[n - 1] - start * free[n - run - 1])
    return 1 - Fraction(free[rolls], den**rolls)


def binomial_pmf(n: int, p: Fraction = DOUBLE) -> list[Fraction]:
    """Exact Binomial(n, p) probabilities of 0…n successes, a list of ``n + 1`` fractions."""
    _check_positive("n", n, low=0)
    q = 1 - p
    return [comb(n, k) * p**k * q ** (n - k) for k in range(n + 1)]


def _binomial_weights(n: int, hit: int, miss: int) -> list[int]:
    """``[C(n, k)·hit^k·miss^(n−k) for k = 0…n]``, each from the one before (an exact division)."""
    if miss == 0:  # p = 1: every trial a success
        return [0] * n + [hit**n]
    weights = [miss**n]
    for k in range(n):
        weights.append(weights[-1] * (n - k) * hit // ((k + 1) * miss))
    return weights


def p_more_by(rolls_a: int, rolls_b: int, margin: int, p: Fraction = DOUBLE) -> Fraction:
    """Chance that B's successes exceed A's by at least ``margin``: P(Y − X ≥ margin).

    ``X ~ Binomial(rolls_a, p)`` and ``Y ~ Binomial(rolls_b, p)`` independent; the exact
    distribution of the difference is the convolution of the two binomials, summed over X.

    Raises:
        InvalidQuery: a roll count below 1 or above :data:`MAX_ROLLS`, or ``margin`` < 0.
    """
    _check_rolls(rolls_a)
    _check_rolls(rolls_b)
    _check_positive("margin", margin, low=0)
    # Integer weights over the common denominator den**(Na+Nb): summing thousands of Fractions
    # reduces a many-thousand-digit gcd at every step (minutes at N = 5000); integers take ms.
    hit, den = p.numerator, p.denominator
    miss = den - hit
    wa, wb = _binomial_weights(rolls_a, hit, miss), _binomial_weights(rolls_b, hit, miss)
    # tail[y] = weight of Y ≥ y, with tail[rolls_b + 1] = 0 for thresholds past the end.
    tail = [0] * (rolls_b + 2)
    for y in range(rolls_b, -1, -1):
        tail[y] = tail[y + 1] + wb[y]
    favourable = sum(w * tail[x + margin] for x, w in enumerate(wa) if x + margin <= rolls_b)
    return Fraction(favourable, den ** (rolls_a + rolls_b))


def p_at_least_once_in(games: int, p_game: Fraction) -> Fraction:
    """Chance that an event of chance ``p_game`` per game happens in at least one of ``games``
    independent games: 1 − (1 − p)^G."""
    _check_positive("games", games)
    return 1 - (1 - p_game) ** games


@dataclass(frozen=True)
class DoublesOdds:
    """Exact doubles figures for a player who rolls ``rolls`` times against an opponent who rolls
    ``opponent_rolls`` times (both fair dice). Every field after the inputs is exact."""

    rolls: int
    opponent_rolls: int
    margin: int
    games: int
    run: int | None
    expected_doubles: Fraction
    p_at_least_one_double: Fraction
    p_run_of_2: Fraction
    p_run_of_3: Fraction
    p_run_of_k: Fraction | None
    p_opponent_more_by_margin: Fraction
    p_you_more_by_margin: Fraction
    p_opponent_run_of_3_within_games: Fraction


def doubles_odds(
    rolls: int = 25,
    margin: int = 2,
    games: int = 20,
    run: int | None = None,
    opponent_rolls: int | None = None,
) -> DoublesOdds:
    """All the figures of ``boardgammon odds doubles``, exactly.

    Args:
        rolls: your rolls N (default 25, about one game's worth).
        margin: D, for "the opponent rolls at least D more doubles than you" (default 2).
        games: G, for "in at least one of G games the opponent rolls three doubles in a row";
            each game the opponent rolls ``opponent_rolls`` times.
        run: an extra run length K to report beside 2 and 3 (None: none).
        opponent_rolls: the opponent's rolls (default: as many as yours).

    Raises:
        InvalidQuery: any count out of range; ``rolls × games`` above
            :data:`MAX_ROLLS_TIMES_GAMES`.
    """
    opponent_rolls = rolls if opponent_rolls is None else opponent_rolls
    _check_rolls(rolls)
    _check_rolls(opponent_rolls)
    _check_positive("games", games)
    if opponent_rolls * games > MAX_ROLLS_TIMES_GAMES:
        raise InvalidQuery(
            f"rolls × games must be at most {MAX_ROLLS_TIMES_GAMES}, "
            f"got {opponent_rolls} × {games}",
            "rolls_times_games", high=MAX_ROLLS_TIMES_GAMES, rolls=opponent_rolls, games=games,
        )
    opponent_run_of_3 = p_run(opponent_rolls, 3)
    return DoublesOdds(
        rolls=rolls,
        opponent_rolls=opponent_rolls,
        margin=margin,
        games=games,
        run=run,
        expected_doubles=rolls * DOUBLE,
        p_at_least_one_double=p_at_least_one(rolls),
        p_run_of_2=p_run(rolls, 2),
        p_run_of_3=p_run(rolls, 3),
        p_run_of_k=None if run is None else p_run(rolls, run),
        p_opponent_more_by_margin=p_more_by(rolls, opponent_rolls, margin),
        p_you_more_by_margin=p_more_by(opponent_rolls, rolls, margin),
        p_opponent_run_of_3_within_games=p_at_least_once_in(games, opponent_run_of_3),
    )
