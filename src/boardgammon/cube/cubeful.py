"""Cube and resignation decisions from five cubeless outputs, for money and match play.

Inputs are the network's outputs ``(win, win gammon, win backgammon, lose gammon, lose
backgammon)`` from the deciding side's view and a :class:`~boardgammon.cube.Context` from
the same view.

Money play: Janowski's cubeful equity ("Take-points in money games", 1993). With ``W`` and ``L``
the average values of a win and of a loss (gammons and backgammons included), the live-cube
take point is ``TP = (L − ½)/(W + L + ½)`` and the cash point ``CP = (L + 1)/(W + L + ½)``;
the live-cube equity is piecewise linear through ``(0, −L)``, ``(TP, −1)`` (opponent can double),
``(CP, +1)`` (we can double) and ``(1, W)``; the cubeful equity is
``x·live + (1 − x)·dead``, dead = cubeless. The cube efficiency ``x`` is gnubg's
(:func:`~boardgammon.cube.efficiency.cube_efficiency`): 0.68 in contact positions (Janowski's
typical value), 0.6 once both sides are in their home boards, ``0.55 + 0.00125 · pips`` of the
side on roll, within 0.6–0.7, in other races. With it, given gnubg 0-ply's cubeless
probabilities, our cubeful equities are gnubg 0-ply's own, money and match, contact and race
(tested). Judged by gnubg 2-ply on 81 close race doubling decisions of money sessions
(``benchmarks.cube_vs_gnubg --money``, gnubg's probabilities), a single race value lost 3.6 mp
per decision at 0.68 or 0.70 against 3.8 with the formula (within noise), 4.1 at 0.60 and 9.1
at the 0.80 used before 2026-12-01 (night).

Match play: the same construction in match-winning chances, from the cube model of
:mod:`boardgammon.cube.met` with this position's own gammon shares (take and cash points),
outcome probabilities (the ends of the live-cube line, the dead-cube part) and cube
efficiency. The Crawford game has no cube; post-Crawford the same curves on the post-Crawford
table (the trailer's cube live, the leader's doubles of no use, the free drop); a 1-point
match has no cube. The bots' trailer doubles at once post-Crawford, as gnubg's does.

A side doubles when doubling is worth more than holding: ``min(double/take, double/drop) >
no double``; it takes when taking is worth at least dropping.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from boardgammon.engine.constants import MAX_CUBE

from . import met
from .context import Context, CubeOwner
from .efficiency import X_CONTACT, cube_efficiency

RESIGN_TOLERANCE = 0.01  # equity (points per cube) a resignation may give away
RESIGN_WIN_CHANCE = 1e-3  # a game is lost beyond doubt below this chance to win it


def _outcomes(o: np.ndarray) -> np.ndarray:
    """Probabilities ``[..., 6]`` of win single/gammon/backgammon, lose single/gammon/bg."""
    o = np.asarray(o, dtype=np.float64)
    w = np.clip(o[..., 0], 0.0, 1.0)
    wbg = np.clip(o[..., 2], 0.0, None)
    wg = np.clip(np.maximum(o[..., 1], wbg), None, w)
    lbg = np.clip(o[..., 4], 0.0, None)
    lg = np.clip(np.maximum(o[..., 3], lbg), None, 1.0 - w)
    return np.stack([w - wg, wg - np.minimum(wbg, wg), np.minimum(wbg, wg),
                     (1.0 - w) - lg, lg - np.minimum(lbg, lg), np.minimum(lbg, lg)], axis=-1)


def _outcome_mwc(context: Context, cube: int) -> np.ndarray:
    """MWC ``[6]`` after each outcome of :func:`_outcomes` played at ``cube``."""
    a, b, post = context.away
    return np.array([met.match_equity(a - k * cube, b, post) for k in (1, 2, 3)]
                    + [met.match_equity(a, b - k * cube, post) for k in (1, 2, 3)])


def _dead_mwc(o: np.ndarray, context: Context, cube: int) -> np.ndarray:
    """Match-winning chance with the game played out at ``cube`` (no further doubling)."""
    return _outcomes(o) @ _outcome_mwc(context, cube)


def _money_values(o: np.ndarray) -> tuple[float, float, float]:
    """(win probability, average win W, average loss L) in points per cube."""
    w = float(np.clip(o[0], 1e-6, 1 - 1e-6))
    win = 1.0 + (max(o[1], 0.0) + max(o[2], 0.0)) / w
    loss = 1.0 + (max(o[3], 0.0) + max(o[4], 0.0)) / (1.0 - w)
    return w, win, loss


def money_equity(o: np.ndarray, owner: CubeOwner, x: float = X_CONTACT,
                 gammons: bool = True) -> float:
    """Janowski's cubeful money equity per unit cube (module docstring) of outputs ``o``
    with the cube owned by ``owner`` (decider's view), cube efficiency ``x``
    (:func:`cube_efficiency`).

    ``gammons=False``: the Jacoby rule with the cube centred. A game played out with the cube
    in the middle scores no gammons (the dead-cube part, and the ends of the live line at
    ``p`` = 0 and 1, are ±1), but the take and cash points stay those with gammons counted,
    since a game where the cube is turned scores them: gnubg's treatment (given gnubg 0-ply's
    probabilities, its no double with Jacoby on is ours: ``tests/cube/test_jacoby_gnubg.py``).
    With the take and cash points of a gammonless game instead (before 2026-12-02), no double
    came out too low in gammonish positions (0.735 against gnubg's 0.842 at 75 % wins, 40 %
    gammons), and a position gnubg holds was doubled."""
    w, win, loss = _money_values(o)
    tp = (loss - 0.5) / (win + loss + 0.5)
    cp = (loss + 1.0) / (win + loss + 0.5)
    if not gammons:
        win = loss = 1.0
    points = [(0.0, -loss), (1.0, win)]
    if owner in (CubeOwner.CENTRE, CubeOwner.OPPONENT):
        points.append((tp, -1.0))
    if owner in (CubeOwner.CENTRE, CubeOwner.ME):
        points.append((cp, 1.0))
    xs, ys = zip(*sorted(points), strict=True)
    live = float(np.interp(w, xs, ys))
    dead = w * (win + loss) - loss
    return x * live + (1.0 - x) * dead


def _match_cubeful(o: np.ndarray, context: Context, cube: int, owner: str,
                   x: float = X_CONTACT) -> float:
    """Cubeful MWC of a game with a cube (pre- or post-Crawford, not the Crawford game) at
    ``cube`` owned by ``owner`` (met curve names):
    the live-cube line through the take and cash points of :func:`met.cube_knots` for this
    position's own gammon shares (as gnubg computes take points from the position's gammon
    ratios: judged by gnubg 2-ply over 90 matches, doubling decisions lost 0.8 mp instead of
    1.2 with the table's typical 26 %), ending at this position's own MWC when it loses
    (``p`` = 0) and wins (``p`` = 1), weighted by the cube efficiency against the dead-cube
    MWC. The ends come from the position's gammon chances, not
    the MET's typical rate: with the typical rate at the ends, a position without gammon chances
    looked "too good to double" near certain wins (at 2-away 2-away, 99 % no double)."""
    a, b, post = context.away
    p = float(np.clip(o[0], 0.0, 1.0))
    values = _outcome_mwc(context, cube)
    probs = _outcomes(o)
    win = float(probs[:3] @ values[:3] / p) if p > 1e-9 else float(values[0])
    lose = float(probs[3:] @ values[3:] / (1 - p)) if p < 1 - 1e-9 else float(values[3])
    gammons = (float(np.clip(o[1] / p, 0, 1)) if p > 1e-9 else 0.0,
               float(np.clip(o[3] / (1 - p), 0, 1)) if p < 1 - 1e-9 else 0.0)
    knots = met.cube_knots(a, b, gammons, post_crawford=post, efficiency=x)[(cube, owner)]
    xs, ys = zip(*[(0.0, lose), *knots, (1.0, win)], strict=True)
    live = float(np.interp(p, xs, ys))
    dead = float(probs @ values)
    return x * live + (1 - x) * dead


def play_utility(o: np.ndarray, context: Context) -> np.ndarray:
    """Value ``[P]`` of resulting positions with outputs ``o[P, 5]`` (mover's view) for
    ranking plays: cubeless equity in money play (gammons not counted under the Jacoby rule
    with the cube centred), dead-cube match-winning chance at the current cube in a match."""
    o = np.atleast_2d(np.asarray(o, dtype=np.float64))
    if context.length:
        return _dead_mwc(o, context, context.cube_value)
    if context.jacoby and context.cube_owner is CubeOwner.CENTRE:
        return 2.0 * o[:, 0] - 1.0
    return 2.0 * o[:, 0] - 1.0 + o[:, 1] - o[:, 3] + o[:, 2] - o[:, 4]


def hold_value(o: np.ndarray, context: Context, x: float = X_CONTACT) -> float:
    """Cubeful value of the side on roll with outputs ``o`` (its view) if it does not double
    now, whoever owns the cube: money equity per current cube (Janowski) or MWC (the match
    cube curves; dead-cube MWC in the Crawford game only). Post-Crawford the trailer's cube
    stays live: holding it now is worth more than the game played out at the current cube,
    as gnubg values it (a fresh user's match: a trailer who waited a roll at 2-away/1-away was
    charged 0.68 EMG, gnubg 0-ply 0.22, when no double was valued with the cube dead)."""
    if not context.length:
        gammons = not (context.jacoby and context.cube_owner is CubeOwner.CENTRE)
        return money_equity(o, context.cube_owner, x, gammons)
    if context.crawford or context.length == 1:
        return float(_dead_mwc(o, context, context.cube_value))
    owner = {CubeOwner.CENTRE: "centre", CubeOwner.ME: "me",
             CubeOwner.OPPONENT: "opponent"}[context.cube_owner]
    return _match_cubeful(o, context, context.cube_value, owner, x)


def cube_values(o: np.ndarray, context: Context, x: float = X_CONTACT
                ) -> tuple[float, float, float]:
    """(no double, double/take, double/drop) for the side on roll with outputs ``o`` (its
    view) and ``context`` (cube available to it): equity per current cube in money play, MWC
    in a match. The models of :func:`should_double` and :func:`should_take`."""
    o = np.asarray(o, dtype=np.float64)
    c = context.cube_value
    nd = hold_value(o, context, x)
    if not context.length:
        return nd, 2.0 * money_equity(o, CubeOwner.OPPONENT, x), 1.0
    a, b, post = context.away
    drop = met.match_equity(a - c, b, post)
    if 2 * c >= MAX_CUBE:
        return nd, float(_dead_mwc(o, context, 2 * c)), drop
    return nd, _match_cubeful(o, context, 2 * c, "opponent", x), drop


def on_roll_value(o: np.ndarray, context: Context, x: float = X_CONTACT) -> float:
    """Cubeful value of the side on roll, before its roll, playing the cube right: the better
    of no double and double (answered right) where it may double, else :func:`hold_value`."""
    if not context.cube_available_to_me or context.cube_dead_for_me:
        return hold_value(o, context, x)
    nd, dt, dp = cube_values(o, context, x)
    return max(nd, min(dt, dp))


def swapped(context: Context) -> Context:
    """The same situation from the other side's view."""
    owner = {CubeOwner.ME: CubeOwner.OPPONENT, CubeOwner.OPPONENT: CubeOwner.ME}.get(
        context.cube_owner, CubeOwner.CENTRE)
    return replace(context, my_score=context.opponent_score,
                   opponent_score=context.my_score, cube_owner=owner)


def cubeful_play_values(o: np.ndarray, context: Context, afters: np.ndarray) -> np.ndarray:
    """Cubeful values ``float64[P]`` for the mover of positions right after its play: outputs
    ``o[P, 5]`` and ``context`` from the mover's view, ``afters`` the positions
    (``int8[P, 2, 25]``, the mover's view; their cube efficiency is taken with the opponent on
    roll). The opponent is then on roll and plays the cube right
    (:func:`on_roll_value` from its view); the mover's value is 1 − its MWC in a match, minus
    its equity per current cube in money play. gnubg values plays cubefully the same way
    (its 0-ply cubeful evaluation, with its own cube model)."""
    o = np.atleast_2d(np.asarray(o, dtype=np.float64))
    theirs = np.stack([1.0 - o[:, 0], o[:, 3], o[:, 4], o[:, 1], o[:, 2]], axis=-1)
    other = swapped(context)
    xs = np.atleast_1d(cube_efficiency(np.asarray(afters)[:, ::-1], context.variant))
    v = np.array([on_roll_value(t, other, float(x)) for t, x in zip(theirs, xs, strict=True)])
    return 1.0 - v if context.length else -v


def should_double(o: np.ndarray, context: Context, x: float = X_CONTACT) -> bool:
    """Whether the side on roll with outputs ``o`` doubles (always False when the rules forbid
    it: Crawford game, 1-point match, cube at 64 or the opponent's): when the better of
    double/take and double/drop of :func:`cube_values` beats no double."""
    if not context.cube_available_to_me:
        return False
    if context.length and context.cube_dead_for_me:
        return False  # the leader after the Crawford game among them
    # Post-Crawford the trailer's no double is valued with its cube live, so the same rule
    # doubles at once unless too good (it doubled even then: a fresh user's near-certain
    # gammon at 2-away, gnubg: too good, no double 2.58 EMG against double/drop 1.0).
    nd, dt, dp = cube_values(o, context, x)
    return bool(min(dt, dp) > nd)


def should_take(o: np.ndarray, context: Context, x: float = X_CONTACT) -> bool:
    """Whether the side being doubled (outputs ``o`` and ``context`` from its view, cube value
    before the double) takes; ``x`` the cube efficiency of the position (the doubler on
    roll)."""
    c = context.cube_value
    if context.length == 0:
        return bool(2.0 * money_equity(o, CubeOwner.ME, x) >= -1.0)
    a, b, post = context.away
    drop = met.match_equity(a, b - c, post)
    if 2 * c >= MAX_CUBE:
        take = float(_dead_mwc(o, context, 2 * c))
    else:
        take = _match_cubeful(o, context, 2 * c, "me", x)
    return bool(take >= drop)


def should_beaver(o: np.ndarray, context: Context, x: float = X_CONTACT) -> bool:
    """Money play: whether the side just doubled (outputs ``o`` and ``context`` from its view,
    the doubler on roll) beavers: when its equity owning the cube is above 0, so that the
    beaver doubles a gain (if the doubler then drops, it gains more). Never in a match.

    Source: the beaver rule as gnubg's ``set beavers`` plays it (no raccoons here)."""
    return context.length == 0 and bool(money_equity(o, CubeOwner.ME, x) > 0.0)


def should_take_beaver(o: np.ndarray, context: Context, x: float = X_CONTACT) -> bool:
    """Money play: whether the doubler, beavered (outputs ``o`` from its view, on roll;
    ``context.cube_value``: the value the beaver accepted), takes: the cube then stays with
    the beaverer at twice that value, while a drop loses the value itself."""
    return bool(2.0 * money_equity(o, CubeOwner.OPPONENT, x) >= -1.0)


def should_accept(o: np.ndarray, context: Context, points: int) -> bool:
    """Whether to accept the opponent's resignation of ``points`` (1–3, times the cube);
    ``o``: outputs from the accepting side's view.

    Raises:
        ValueError: ``points`` not 1, 2 or 3.
    """
    accepted, played_on = resignation_values(o, context, points)
    return accepted >= played_on


def resignation_values(o: np.ndarray, context: Context, points: int) -> tuple[float, float]:
    """(accepting, playing on) for the side offered a resignation of ``points`` (1–3, times
    the cube) with outputs ``o`` (its view): per cube in money play, MWC in a match (the game
    played on with a dead cube, as :func:`play_utility`).

    Raises:
        ValueError: ``points`` not 1, 2 or 3.
    """
    if points not in (1, 2, 3):
        raise ValueError(f"a resignation is for 1, 2 or 3 points, got {points!r}")
    played_on = float(play_utility(o, context)[0])
    if context.length:
        a, b, post = context.away
        return float(met.match_equity(a - points * context.cube_value, b, post)), played_on
    return float(points), played_on


def resignation(o: np.ndarray, context: Context) -> int | None:
    """The resignation to offer (1, 2 or 3 points) with outputs ``o`` (bot on roll), or None.

    Only when the game is lost beyond doubt: the cheapest offer the opponent should accept
    (worth at least its cubeless equity of playing on) that gives away at most
    ``RESIGN_TOLERANCE`` points per cube. In a match, no more points than the opponent needs
    to win it: in a 1-point match, or once a single at this cube ends the match, a gammon or
    backgammon counts for no more than a single, and so is never offered.
    """
    if o[0] > RESIGN_WIN_CHANCE:
        return None
    # In a match too the offer is sized in points (a lost game's gammon chances).
    loss = -float(play_utility(o, Context(jacoby=context.jacoby,
                                          cube_owner=context.cube_owner))[0])
    for points in (1, 2, 3):
        if points >= loss - RESIGN_TOLERANCE and points <= loss + RESIGN_TOLERANCE:
            if context.length:
                needed = context.length - context.opponent_score
                points = min(points, -(-needed // context.cube_value))  # ceil(needed / cube)
            return points
    return None
