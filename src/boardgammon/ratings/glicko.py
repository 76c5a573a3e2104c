"""Glicko-2 (Mark E. Glickman, "Example of the Glicko-2 system", 2013,
http://www.glicko.net/glicko/glicko2.pdf), adapted to backgammon match length.

A player has a rating ``r``, a rating deviation ``RD`` (how unsure the rating is, in rating
points) and a volatility ``σ`` (how much the true strength moves). On Glickman's internal
scale ``μ = (r − 1500)/173.7178`` and ``φ = RD/173.7178``; the paper's steps 1–8 update a
player from the games of one rating period.

**Match length.** Glicko-2 predicts a game with ``E = 1/(1 + exp(−g(φ_j)·(μ − μ_j)))``. The
FIBS formula (:mod:`.fibs`) predicts an ``n``-point match with
``1/(1 + 10^(−D·√n/2000))``, which on the internal scale is ``1/(1 + exp(−(√n/5)·(μ − μ_j)))``
(because ``173.7178 = 400/ln 10``). So each match gets a slope ``s = √n/5`` beside ``g``:
``E = 1/(1 + exp(−s·g(φ_j)·(μ − μ_j)))``, and steps 3, 4 and 7 use ``s·g`` wherever the paper
has ``g`` (the likelihood is the paper's with that slope). Ratings keep the FIBS scale: a
rating difference predicts the same match-win probability as on FIBS. ``s = 1`` (a 25-point
match) is the paper's system unchanged, which the tests check against the paper's example.

Every rated match is its own rating period here (a player's rating moves after each match, as
players expect on a server).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from .errors import RatingError

SCALE = 173.7178
"""Rating points per unit of Glickman's internal scale (400/ln 10)."""
START = 1500.0
START_DEVIATION = 350.0
START_VOLATILITY = 0.06
TAU = 0.5
"""The system constant τ (Glickman suggests 0.3–1.2; it bounds how fast volatility moves)."""
EPSILON = 1e-6
"""The convergence tolerance of the volatility iteration (step 5)."""


@dataclass(frozen=True)
class GlickoRating:
    """A Glicko-2 rating: ``rating`` and ``deviation`` in rating points, ``volatility`` on
    the internal scale."""

    rating: float = START
    deviation: float = START_DEVIATION
    volatility: float = START_VOLATILITY


@dataclass(frozen=True)
class Result:
    """One match of a rating period, from the rated player's side: the opponent before it,
    ``score`` 1 (won) or 0 (lost), and the slope ``scale`` (:func:`length_scale`)."""

    opponent: GlickoRating
    score: float
    scale: float = 1.0


def length_scale(length: int) -> float:
    """The slope ``√n/5`` of an ``n``-point match (1 for 25 points).

    Raises:
        RatingError: ``length`` < 1.
    """
    if length < 1:
        raise RatingError(f"a match is at least 1 point long, not {length}")
    return math.sqrt(length) / 5.0


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, slope: float) -> float:
    return 1.0 / (1.0 + math.exp(-slope * (mu - mu_j)))


def win_probability(player: GlickoRating, opponent: GlickoRating, length: int) -> float:
    """The probability (0…1) that ``player`` wins a ``length``-point match against
    ``opponent``, both deviations counted (``g(√(φ² + φ_j²))``, Glickman's prediction of a
    game between two rated players).

    Raises:
        RatingError: ``length`` < 1.
    """
    phi = math.hypot(player.deviation, opponent.deviation) / SCALE
    slope = length_scale(length) * _g(phi)
    return _expected((player.rating - START) / SCALE, (opponent.rating - START) / SCALE, slope)


def _volatility(delta: float, phi: float, v: float, sigma: float, tau: float) -> float:
    """Step 5: the new volatility, by the Illinois variant of regula falsi."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex) ** 2) - (
            x - a
        ) / (tau * tau)

    lo = a
    if delta * delta > phi * phi + v:
        hi = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        hi = a - k * tau
    f_lo, f_hi = f(lo), f(hi)
    while abs(hi - lo) > EPSILON:
        c = lo + (lo - hi) * f_lo / (f_hi - f_lo)
        f_c = f(c)
        if f_c * f_hi <= 0:
            lo, f_lo = hi, f_hi
        else:
            f_lo /= 2.0
        hi, f_hi = c, f_c
    return math.exp(lo / 2.0)


def rate(player: GlickoRating, results: Sequence[Result], tau: float = TAU) -> GlickoRating:
    """``player`` after one rating period with ``results`` (Glickman's steps 1–8, with each
    result's slope, see the module docstring). A period without results only widens the
    deviation (step 6).

    Raises:
        RatingError: a deviation or volatility not above 0.
    """
    for who in (player, *(r.opponent for r in results)):
        if who.deviation <= 0 or who.volatility <= 0:
            raise RatingError(f"deviation and volatility must be above 0: {who}")
    mu, phi, sigma = (player.rating - START) / SCALE, player.deviation / SCALE, player.volatility
    if not results:
        return GlickoRating(player.rating, SCALE * math.hypot(phi, sigma), sigma)
    slopes = [r.scale * _g(r.opponent.deviation / SCALE) for r in results]
    mus = [(r.opponent.rating - START) / SCALE for r in results]
    expected = [_expected(mu, mu_j, s) for mu_j, s in zip(mus, slopes, strict=True)]
    v = 1.0 / sum(s * s * e * (1.0 - e) for s, e in zip(slopes, expected, strict=True))
    gain = sum(s * (r.score - e) for s, r, e in zip(slopes, results, expected, strict=True))
    sigma = _volatility(v * gain, phi, v, sigma, tau)
    phi_star = math.hypot(phi, sigma)
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * gain
    return GlickoRating(SCALE * mu_new + START, SCALE * phi_new, sigma)


def update(
    winner: GlickoRating, loser: GlickoRating, length: int, tau: float = TAU
) -> tuple[GlickoRating, GlickoRating]:
    """Both players after ``winner`` beat ``loser`` in a ``length``-point match (one rating
    period each, both rated from the ratings before the match).

    Raises:
        RatingError: ``length`` < 1, or a deviation or volatility not above 0.
    """
    s = length_scale(length)
    return (rate(winner, [Result(loser, 1.0, s)], tau), rate(loser, [Result(winner, 0.0, s)], tau))
