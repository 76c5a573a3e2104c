"""Heuristic cube handling shared by the bots: a race formula, take points from match
equities, and the double / take / resignation rules built on them.

Every decision here takes a game-winning chance (0-1, cubeless, for the side deciding) from
the caller's own model and a :class:`~boardgammon.cube.Context` from the deciding side's
view, so any level can reuse it with a better estimate.

Sources:

* Race formula: **Keith count** wastage adjustments (Tom Keith; summarised at
  bgonline.org/keith.html and in the bkgm.com glossary): +2 per checker beyond one on the
  1-point, +1 per checker beyond one on the 2-point, +1 per checker beyond three on the
  3-point, +1 per empty 4-, 5- or 6-point. The adjusted counts go into **Kleinman's normal
  approximation** of the race (Danny Kleinman; as written up by Øystein Johansen on
  rec.games.backgammon, 2001): with ``D`` = opponent's count - roller's count + 4 and
  ``S`` = sum of counts - 4, the roller wins with probability ``Φ(D / sqrt(2 S))`` (the same
  as Kleinman's ``K = D² / S`` tables: ``K = 1`` gives 76 %, ``K = 2`` 84 %). Keith's own rule
  adds one seventh to the roller's count instead of the 4 pips; Kleinman's form gives a
  probability, which match play needs.
* Match equity: :func:`boardgammon.cube.met.match_equity` (the published Kazaross-XG2
  table, extended beyond 25 points by the project's cube model).
* Take point: the classic take point from three match equities (drop, take and
  win, take and lose): ``(drop - lose) / (win - lose)``. In money play 25 % (a dropped double
  costs 1, a take risks losing 2 to win 2), 22 % in races, where Kleinman's table puts the
  last take near ``K = 1.2`` (78 % for the doubler).
"""

from __future__ import annotations

import numpy as np
from scipy.special import ndtr

from boardgammon.engine.rules import pip_counts

from .context import Context, CubeOwner
from .met import match_equity

MONEY_TAKE_POINT = 0.25
RACE_MONEY_TAKE_POINT = 0.22
# How far below the opponent's drop point the bot starts doubling (winning chances): wide
# enough to double before losing the market, as in Kleinman's race table (double at 69 %,
# last take at 78 %); a little narrower with the cube owned (redouble at 72 %), because
# giving up ownership of the cube costs more.
DOUBLE_WINDOW = {(False, CubeOwner.CENTRE): 0.10, (False, CubeOwner.ME): 0.07,
                 (True, CubeOwner.CENTRE): 0.09, (True, CubeOwner.ME): 0.06}

def keith_counts(arrays: np.ndarray) -> np.ndarray:
    """Keith-adjusted pip counts, without the roller's one-seventh (see the module docstring).

    Args:
        arrays: ``int8[N, 2, 25]`` (or one ``[2, 25]``) positions; each row is adjusted in its
            own numbering.

    Returns:
        ``int[N, 2]`` adjusted counts of row 0 and row 1.

    >>> from boardgammon.engine import Board
    >>> keith_counts(Board.from_points({1: 3, 2: 2, 3: 4}, {6: 1}).array).tolist()
    [[28, 8]]
    """
    a = np.asarray(arrays, dtype=np.int64)
    if a.ndim == 2:
        a = a[None]
    pips = pip_counts(a)
    waste = (2 * np.maximum(a[..., 0] - 1, 0) + np.maximum(a[..., 1] - 1, 0)
             + np.maximum(a[..., 2] - 3, 0) + (a[..., 3:6] == 0).sum(axis=-1))
    return pips + waste


def race_win_probability(roller: np.ndarray | float, other: np.ndarray | float) -> np.ndarray:
    """Kleinman's race winning chance of the side on roll, from the two (adjusted) counts.

    ``Φ(D / sqrt(2 S))`` with ``D = other - roller + 4``, ``S = roller + other - 4`` (floored at 1).

    >>> round(float(race_win_probability(100, 113)), 3)   # Johansen's example: K = 1.38
    0.797
    """
    roller = np.asarray(roller, dtype=np.float64)
    other = np.asarray(other, dtype=np.float64)
    d = other - roller + 4.0
    s = np.maximum(roller + other - 4.0, 1.0)
    return ndtr(d / np.sqrt(2.0 * s))


def race_estimate(array: np.ndarray) -> float:
    """Winning chance of the side on roll (row 0) in a race, by the Keith-Kleinman formula."""
    k = keith_counts(array)[0]
    return float(race_win_probability(k[0], k[1]))


def take_point(context: Context, race: bool = False) -> float:
    """The least game-winning chance with which the side being doubled should take.

    Args:
        context: the taker's view, cube value before the double.
        race: the position is a race (money play: 22 % instead of 25 %).

    Returns:
        0-1; 0 when the take cannot cost anything (the doubler wins the match with any win
        anyway), above 1 when a take can never be right.

    >>> take_point(Context())
    0.25
    >>> round(take_point(Context(length=5, my_score=3, opponent_score=3)), 3)   # 2-away 2-away
    0.315
    """
    if context.length == 0:
        return RACE_MONEY_TAKE_POINT if race else MONEY_TAKE_POINT
    a, b, done = context.away
    v = context.cube_value
    drop = match_equity(a, b - v, done)
    win = match_equity(a - 2 * v, b, done)
    lose = match_equity(a, b - 2 * v, done)
    if win - lose <= 1e-12:
        return 0.0 if drop <= lose else 2.0
    return (drop - lose) / (win - lose)


def should_take(p_win: float, context: Context, race: bool = False) -> bool:
    """Take a double with game-winning chance ``p_win`` (taker's view)?"""
    return p_win >= take_point(context, race)


def _gammons_count(context: Context) -> bool:
    """False in money play under the Jacoby rule while the cube is centred."""
    return not (context.length == 0 and context.jacoby
                and context.cube_owner is CubeOwner.CENTRE)


def _opponent_view(context: Context) -> Context:
    owner = {CubeOwner.ME: CubeOwner.OPPONENT, CubeOwner.OPPONENT: CubeOwner.ME,
             CubeOwner.CENTRE: CubeOwner.CENTRE}[context.cube_owner]
    return Context(length=context.length, my_score=context.opponent_score,
                   opponent_score=context.my_score, crawford=context.crawford,
                   cube_value=context.cube_value, cube_owner=owner, variant=context.variant,
                   jacoby=context.jacoby)


def should_double(p_win: float, context: Context, race: bool = False,
                  gammon: float = 0.0) -> bool:
    """Double (or redouble) with game-winning chance ``p_win`` before rolling?

    Never when the rules forbid it (Crawford game, 1-point match, cube owned by the opponent or
    at 64) or when the cube is dead for the doubler (a win already gives it the match).
    Always when the opponent wins the match with any win anyway (post-Crawford, the trailer
    doubles at once). Otherwise it doubles from ``DOUBLE_WINDOW`` below the opponent's drop
    point, unless too good: the opponent should drop but playing on for ``gammon`` (the
    share of wins that are gammons; none under the Jacoby rule with the cube centred) is worth
    more than the cube, i.e.
    ``gammon > 2 (1 - p) / p`` (cubeless: ``p (1 + g) - (1 - p) > 1``).

    Args:
        p_win: the doubler's game-winning chance, 0-1.
        context: the doubler's view.
        race: the position is a race.
        gammon: share of the doubler's wins that are gammons (0-1).
    """
    if not context.cube_available_to_me:
        return False
    if context.length:
        if context.cube_dead_for_me:
            return False
        _, b, _ = context.away
        if b <= context.cube_value:
            return True
    opp_take = take_point(_opponent_view(context), race)
    drop_point = 1.0 - opp_take
    too_good = (_gammons_count(context) and p_win >= drop_point and p_win > 0
                and gammon > 2.0 * (1.0 - p_win) / p_win)
    if too_good:
        return False
    return p_win >= drop_point - DOUBLE_WINDOW[(race, context.cube_owner)]


def outcome_value(context: Context, points: int) -> float:
    """What the game ending with the deciding side winning ``points`` (negative: losing them)
    is worth to it: the points themselves in money play (``length == 0``), its match-winning
    chance at the resulting score in a match."""
    if context.length == 0:
        return float(points)
    a, b, done = context.away
    if points >= 0:
        return match_equity(a - points, b, done)
    return match_equity(a, b + points, done)


def playing_on_value(p_win: float, gammon_share: float, context: Context,
                     gammons_lost: float = 0.0) -> float:
    """Expected :func:`outcome_value` of playing the game out at the current cube, cubeless.

    Args:
        p_win: the deciding side's game-winning chance.
        gammon_share: share of its wins that are gammons.
        gammons_lost: share of its losses that are gammons.

    Under the Jacoby rule (money play, cube centred) gammons count as singles.
    """
    if not _gammons_count(context):
        gammon_share = gammons_lost = 0.0
    v = context.cube_value
    return (p_win * ((1 - gammon_share) * outcome_value(context, v)
                     + gammon_share * outcome_value(context, 2 * v))
            + (1 - p_win) * ((1 - gammons_lost) * outcome_value(context, -v)
                             + gammons_lost * outcome_value(context, -2 * v)))


def should_accept_resignation(p_win: float, gammon_share: float, context: Context,
                              points: int) -> bool:
    """Accept the opponent's offer to resign ``points`` (1, 2 or 3) times the cube?

    Accepts when what the offer gives is at least what playing on is worth by the caller's
    estimate (:func:`playing_on_value`): a single is accepted unless gammons are likely.
    """
    return (outcome_value(context, points * context.cube_value)
            >= playing_on_value(p_win, gammon_share, context) - 1e-9)
