"""Exact cubeful values of short bear-offs, money and match play, by recursion over the rolls.

Where it applies: both sides have every checker on their home boards (points 1–6, none on the
bar), each has borne at least one checker off (so no gammon is possible: every game ends as a
single game at the cube) and the home boards the two sides can come to are at most
:data:`MAX_BOARDS` (210): any position of up to four checkers a side anywhere on the home
boards, more where they lie low (six a side on the 1- and 2-points).
Elsewhere :func:`cube_values` answers ``None`` and callers keep the cube model of
:mod:`boardgammon.cube.cubeful` (Janowski's cube efficiency), which is wrong exactly where the
cube is dead or nearly so: on the last roll it gave no double +0.700 and double/take +0.850
where the values are +0.500 and +1.000.

The recursion: the value of the side on roll before its roll, with the cube centred, its own or
the opponent's at value ``c``, is the better of holding (the average over the 21 rolls of the
best play's value, the play chosen by this same value, so plays are exact too) and doubling
(the worse for it of the opponent's take, the same recursion at ``2c`` owned by the taker,
and its drop); doubling is allowed where :class:`~boardgammon.cube.Context` allows it (not the
Crawford game, not a 1-point match, not beyond 64, not where a win at the cube already takes
the match). A side that bears its last checker off wins ``c`` points. Money values are per
cube; match values are match-winning chances from the Kazaross-XG2 table
(:func:`boardgammon.cube.met.match_equity`), the game's result at each cube valued as
:mod:`boardgammon.cube.cubeful` values it. Beavers are not played (gnubg's ``eval`` leaves them
out too). The plays come from the engine's own generator, memoised by side and roll.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache, lru_cache

import numpy as np

from boardgammon._numba_cache import njit
from boardgammon.cube import Context, CubeOwner, cubeful, met
from boardgammon.engine import Board
from boardgammon.engine.constants import HOME_POINTS, MAX_CUBE, ROLL_PROBABILITIES, ROLLS

MAX_BOARDS = 210
"""The most home boards the two sides can come to together (:func:`reachable`) that are solved
exactly: every pair of them is solved, so time and memory grow with its square (210: under a
second, 15 MB)."""

Side = tuple[int, ...]  # checkers on points 1-6 of one side, its own numbering


def home_boards(board: Board) -> tuple[Side, Side] | None:
    """The two home boards ``(mine, theirs)`` of ``board`` (player on roll's view) where the
    recursion applies (module docstring, the size limit aside), else ``None``."""
    a = board.array
    if a[:, HOME_POINTS:].any():
        return None
    sides = tuple(tuple(int(n) for n in a[s, :HOME_POINTS]) for s in (0, 1))
    if any(not 0 < sum(s) < board.checkers for s in sides):
        return None
    return sides[0], sides[1]


@cache
def _children(side: Side, d1: int, d2: int) -> tuple[Side, ...]:
    """The distinct home boards one side can leave with the roll ``d1``-``d2``."""
    a = np.zeros((2, 25), dtype=np.int8)
    a[0, :HOME_POINTS] = side
    kids = {tuple(int(n) for n in p.board_after.array[0, :HOME_POINTS])
            for p in Board(a).legal_plays(d1, d2)}
    return tuple(sorted(kids))


@cache
def _closure(side: Side) -> frozenset[Side]:
    """The home boards ``side`` can come to, itself included, the empty board left out."""
    seen = {side}
    todo = [side]
    while todo:
        s = todo.pop()
        for d1, d2 in ROLLS:
            for k in _children(s, d1, d2):
                if sum(k) and k not in seen:
                    seen.add(k)
                    todo.append(k)
    return frozenset(seen)


def reachable(mine: Side, theirs: Side) -> int:
    """How many home boards (checkers on points 1–6) either side can come to, the two given
    included."""
    return len(_closure(mine) | _closure(theirs))


def applies(board: Board) -> bool:
    """Whether :func:`cube_values` answers for ``board`` (module docstring)."""
    sides = home_boards(board)
    return sides is not None and reachable(*sides) <= MAX_BOARDS


# Cube owners from the view of the side on roll: centred, its own, the opponent's.
_CENTRE, _MINE, _THEIRS = 0, 1, 2
_OWNER_CODE = {CubeOwner.CENTRE: _CENTRE, CubeOwner.ME: _MINE, CubeOwner.OPPONENT: _THEIRS}
_WIN = -2  # a child that is the empty board: the mover has borne off and wins


@njit(cache=True)
def _hold(values, kids, probs, win, money, flip, owner, level, i, j):
    """Value for the side on roll (board ``i``, opponent ``j``; ``flip`` 1 when it is the
    original opponent) of rolling without doubling, the cube at ``level`` held by ``owner``:
    per roll the best child, valued from the opponent's on-roll values in ``values``."""
    after = owner if owner == 0 else 3 - owner
    total = 0.0
    for r in range(kids.shape[1]):
        best = -1e300
        for k in range(kids.shape[2]):
            kid = kids[i, r, k]
            if kid == -1:
                break
            if kid == -2:
                v = win[flip, level]
            else:
                theirs = values[1 - flip, after, level, j, kid]
                v = -theirs if money else 1.0 - theirs
            if v > best:
                best = v
        total += probs[r] * best
    return total


@njit(cache=True)
def _solve_all(kids, probs, order_i, order_j, win, can_double, money):
    """On-roll values ``float64[2, 3, levels, n, n]`` (side on roll: original 0 or 1; owner;
    cube level; boards of the side on roll and of its opponent) of every pair of boards, the
    pairs taken in ``order`` of their summed pip counts so that every child is done first."""
    n = kids.shape[0]
    levels = win.shape[1]
    values = np.zeros((2, 3, levels, n, n))
    hold = np.zeros((3, levels))
    for q in range(order_i.shape[0]):
        i = order_i[q]
        j = order_j[q]
        for flip in range(2):
            for level in range(levels):
                for owner in range(3):
                    hold[owner, level] = _hold(values, kids, probs, win, money, flip, owner,
                                               level, i, j)
            for level in range(levels):
                for owner in range(3):
                    v = hold[owner, level]
                    if can_double[flip, owner, level] and level + 1 < levels:
                        dt = hold[2, level + 1]
                        dp = win[flip, level]
                        v = max(v, min(dt, dp))
                    values[flip, owner, level, i, j] = v
    return values


class _Solved:
    """Every on-roll value of the boards two sides can reach, at every cube level from the
    decision's cube to 64, money values in points and match values in MWC."""

    def __init__(self, context: Context, sides: tuple[Side, Side]) -> None:
        boards = sorted(_closure(sides[0]) | _closure(sides[1]), key=_pips)
        ids = {b: k for k, b in enumerate(boards)}
        width = max(len(_children(b, d1, d2)) for b in boards for d1, d2 in ROLLS)
        kids = np.full((len(boards), len(ROLLS), width), -1, dtype=np.int64)
        for k, b in enumerate(boards):
            for r, (d1, d2) in enumerate(ROLLS):
                for m, kid in enumerate(_children(b, d1, d2)):
                    kids[k, r, m] = ids[kid] if sum(kid) else _WIN
        pips = np.array([_pips(b) for b in boards])
        pi, pj = np.meshgrid(np.arange(len(boards)), np.arange(len(boards)), indexing="ij")
        order = np.argsort((pips[:, None] + pips[None, :]).ravel(), kind="stable")
        levels = 1
        while context.cube_value << levels <= MAX_CUBE:
            levels += 1
        win = np.zeros((2, levels))
        can_double = np.zeros((2, 3, levels), dtype=np.bool_)
        for flip in range(2):
            view = context if not flip else replace(context, my_score=context.opponent_score,
                                                    opponent_score=context.my_score)
            for level in range(levels):
                cube = context.cube_value << level
                if context.length:
                    away, other_away, post = view.away
                    win[flip, level] = met.match_equity(away - cube, other_away, post)
                else:
                    win[flip, level] = cube
                for owner, code in _OWNER_CODE.items():
                    c = replace(view, cube_owner=owner, cube_value=cube)
                    can_double[flip, code, level] = (c.cube_available_to_me
                                                     and not c.cube_dead_for_me)
        self.money = not context.length
        self.probs = np.array(ROLL_PROBABILITIES)
        self.kids, self.win = kids, win
        self.values = _solve_all(kids, self.probs, pi.ravel()[order], pj.ravel()[order], win,
                                 can_double, self.money)
        self.root = ids[sides[0]], ids[sides[1]]
        self.owner = _OWNER_CODE[context.cube_owner]
        self.unit = 1.0 if context.length else float(context.cube_value)

    def hold(self, owner: int, level: int) -> float:
        return float(_hold(self.values, self.kids, self.probs, self.win, self.money, 0, owner,
                           level, *self.root))

    def cube(self) -> tuple[float, float, float]:
        nd = self.hold(self.owner, 0)
        dt = self.hold(_THEIRS, 1) if self.win.shape[1] > 1 else nd
        return nd / self.unit, dt / self.unit, float(self.win[0, 0]) / self.unit

    def on_roll(self) -> float:
        return float(self.values[0, self.owner, 0, self.root[0], self.root[1]]) / self.unit


def _pips(side: Side) -> int:
    return sum((k + 1) * n for k, n in enumerate(side))


def _solved(board: Board, context: Context) -> _Solved | None:
    sides = home_boards(board)
    if sides is None or reachable(*sides) > MAX_BOARDS:
        return None
    return _solve(context, sides)


@lru_cache(maxsize=16)  # a decision asks for its values and its on-roll value in turn
def _solve(context: Context, sides: tuple[Side, Side]) -> _Solved:
    return _Solved(context, sides)


def cube_values(board: Board, context: Context) -> tuple[float, float, float] | None:
    """Exact ``(no double, double/take, double/drop)`` for the side on roll of ``board`` (its
    view) and ``context`` (same view), as :func:`boardgammon.cube.cubeful.cube_values` gives
    them (money: per current cube; match: MWC), or ``None`` outside the range of the module
    docstring. Meaningful where the side on roll may double (``context.cube_available_to_me``),
    but computed as if it could (at a cube of 64: double/take is no double)."""
    solved = _solved(board, context)
    return None if solved is None else solved.cube()


def on_roll_value(board: Board, context: Context) -> float | None:
    """Exact cubeful value of the side on roll of ``board`` before its roll, the cube played
    right by both sides (money: per current cube; match: MWC), or ``None`` outside the range
    (module docstring); as :func:`boardgammon.cube.cubeful.on_roll_value`."""
    solved = _solved(board, context)
    return None if solved is None else solved.on_roll()


def decision_values(board: Board, outputs: np.ndarray, context: Context
                    ) -> tuple[float, float, float]:
    """``(no double, double/take, double/drop)`` of the side on roll of ``board`` (outputs
    ``float[5]`` and ``context`` from its view): exact where :func:`applies`, else the cube
    model of :func:`boardgammon.cube.cubeful.cube_values` at the position's cube efficiency."""
    exact = cube_values(board, context)
    if exact is not None:
        return exact
    x = float(cubeful.cube_efficiency(board.array, context.variant))
    return cubeful.cube_values(outputs, context, x)


def position_value(board: Board, outputs: np.ndarray, context: Context) -> float:
    """Cubeful value of the side on roll of ``board`` before its roll (as
    :func:`boardgammon.cube.cubeful.on_roll_value`): exact where :func:`applies`, else the
    cube model at the position's cube efficiency."""
    exact = on_roll_value(board, context)
    if exact is not None:
        return exact
    x = float(cubeful.cube_efficiency(board.array, context.variant))
    return cubeful.on_roll_value(outputs, context, x)
