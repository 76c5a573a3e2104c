"""Match equity table (MET) and cubeful match-winning chances (MWC).

The table: the published **Kazaross-XG2** MET (Neil Kazaross 2011: XG rollouts to 9 points,
gnubg rollouts to 15, extended to 25 by projecting take points), as distributed with GNU
Backgammon (``data/Kazaross-XG2.xml``, copied unchanged with its notice, which permits copying
and distribution). It is the table gnubg and XG use by default, so our MWC, take points and
analysis are measured on the same scale as theirs. Scores beyond its 25 points come from the
project's own cube model below, built on the published values.

The cube model (in the spirit of Zadeh's and Keeler & Spencer's continuous cube models,
simplified), for the cube curves of every cube state and for scores beyond the table:

* A game's winning chance ``p`` moves continuously from the start (``p = ½``) to 0 or 1; a
  game is won as a gammon with probability ``GAMMON_RATE`` (backgammons are ignored).
* A side with access to the cube doubles at the last moment, when ``p`` reaches the other
  side's take point, where taking and dropping are worth the same; so the MWC as a function of
  ``p`` is piecewise linear between the lost game (``p = 0``), the two take points and the won
  game (``p = 1``) — Janowski's "live cube" lines, drawn in MWC instead of money equity.
* Cubes are not perfectly efficient (a real game jumps past take points): the curve used at
  every cube level is ``x · live + (1 − x) · dead`` with the dead-cube line
  ``L + p·(W − L)``, ``x`` = :data:`~boardgammon.cube.efficiency.X_CONTACT` (Janowski, 1993;
  0.68 is the value usually quoted for contact positions).
* The take point of a double to ``2c`` is where the taker's curve at ``2c`` (cube owned by the
  taker) equals the MWC of dropping; curves are computed from the highest cube level down.
* The Crawford game has no cube. Post-Crawford games use the same curves with the outcomes
  valued on the post-Crawford table: the leader's doubles never gain (a win already takes the
  match), the trailer's cube is live, and the leader drops where the drop costs no more than
  the take (the "free drop"). The trailer's cube matters even where it doubles at once: not
  doubling now still keeps the cube for the next roll, as gnubg values it.

The same model alone (``published=False``) makes a whole table from the gammon rate; it is
within 0.02 of Kazaross-XG2 over 11 × 11 scores (``tests/cube/test_met.py``), which is the
check that its cube curves are sound. Why the published table is used: on gnubg 2-ply's own
probabilities, cube decisions by our model with the computed table lost 1.9 millipoints (EMG)
per doubling decision and 7.0 per take decision as gnubg 2-ply judges them, with the
published one 1.1 and 2.7 (``python -m benchmarks.cube_vs_gnubg``, 90 matches): near short
scores a MWC difference of 0.01 is worth 0.05 EMG. Scores are in points *away* (still
needed), as MET tables are written.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from functools import cache, lru_cache
from importlib.resources import files

import numpy as np

from boardgammon.engine.constants import MAX_CUBE

from .efficiency import X_CONTACT

GAMMON_RATE = 0.26  # share of games ending in a gammon, typical of rollouts of openings
GRID = np.linspace(0.0, 1.0, 1001)
PUBLISHED = "Kazaross-XG2"
PUBLISHED_LENGTH = 25
"""Scores (points away) the published table covers; beyond, the cube model extends it."""


def _check(a: int, b: int) -> None:
    if not all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in (a, b)):
        raise TypeError(f"scores away are integers, got {a!r}, {b!r}")


@cache
def published_table() -> tuple[np.ndarray, np.ndarray]:
    """The Kazaross-XG2 table as shipped: ``(pre, post)`` with ``pre[i, j]`` (float64[25, 25])
    the MWC of the side ``i + 1`` away against ``j + 1`` away at the start of a pre-Crawford
    game (row or column 0: the Crawford game), and ``post[i]`` (float64[25]) the MWC of the
    trailer ``i + 1`` away against a leader 1 away, post-Crawford."""
    root = ET.fromstring(files(__package__).joinpath(f"data/{PUBLISHED}.xml").read_bytes())

    def values(row: ET.Element) -> list[float]:
        return [float(me.text or "") for me in row.iter("me")]
    pre = np.array([values(r) for r in root.iter("pre-crawford-table") for r in r.iter("row")])
    post = np.array([v for t in root.iter("post-crawford-table") for v in values(t)])
    return pre, post


def match_equity(a: int, b: int, post_crawford: bool = False, published: bool = True) -> float:
    """MWC (0–1) at the start of a game of the side ``a`` points away against ``b`` away.

    Args:
        a, b: points each side still needs; 0 or less means that side has won the match.
        post_crawford: when a side is 1 away, whether the Crawford game has been played (so
            this game is post-Crawford); otherwise it is the Crawford game.
        published: the Kazaross-XG2 table up to 25 points away, the cube model beyond (the
            default, used by the bots and the analysis); ``False``: the cube model alone.

    >>> match_equity(1, 1), match_equity(0, 3), match_equity(4, 4), match_equity(1, 2)
    (0.5, 1.0, 0.5, 0.67736)

    Raises:
        TypeError: non-integer scores.
    """
    _check(a, b)
    if a <= 0:
        return 1.0
    if b <= 0:
        return 0.0
    if a == b:
        return 0.5
    if a == 1 or b == 1:
        if post_crawford:
            return ((1.0 - _post_crawford_trailer(b, published)) if a == 1
                    else _post_crawford_trailer(a, published))
        return _crawford(a, b, published)
    return _pre_crawford(a, b, published)


def _in_table(a: int, b: int, published: bool) -> bool:
    return published and max(a, b) <= PUBLISHED_LENGTH


@cache
def _post_crawford_trailer(n: int, published: bool = True) -> float:
    """MWC of the trailer ``n`` away against a leader 1 away, post-Crawford, start of game."""
    if n <= 0:
        return 1.0
    if n == 1:
        return 0.5
    if _in_table(n, 1, published):
        return float(published_table()[1][n - 1])
    take = 0.5 * ((1 - GAMMON_RATE) * _post_crawford_trailer(n - 2, published)
                  + GAMMON_RATE * _post_crawford_trailer(n - 4, published))
    # the leader drops when that is cheaper
    return min(take, _post_crawford_trailer(n - 1, published))


def _after(a: int, b: int, published: bool = True, post: bool = False) -> float:
    """MWC after a game leaves the sides ``a`` and ``b`` away: a pre-Crawford game
    (``post`` False: a side reaching 1 away plays the Crawford game next) or a post-Crawford
    one (``post`` True)."""
    return match_equity(a, b, post, published)


def _crawford(a: int, b: int, published: bool) -> float:
    """MWC of the Crawford game (no cube) at ``a``-away, ``b``-away (one of them 1)."""
    if _in_table(a, b, published):
        return float(published_table()[0][a - 1, b - 1])

    def post(x: int, y: int) -> float:
        return match_equity(x, y, True, published)
    win = (1 - GAMMON_RATE) * post(a - 1, b) + GAMMON_RATE * post(a - 2, b)
    lose = (1 - GAMMON_RATE) * post(a, b - 1) + GAMMON_RATE * post(a, b - 2)
    return 0.5 * win + 0.5 * lose


def _ends(a: int, b: int, cube: int, published: bool, gammons: tuple[float, float],
          post: bool = False) -> tuple[float, float]:
    """(MWC if the game is lost, if it is won) at cube value ``cube``, gammons included:
    ``gammons`` = (share of our wins, share of our losses) that are gammons; ``post``: a
    post-Crawford game."""
    gw, gl = gammons
    win = ((1 - gw) * _after(a - cube, b, published, post)
           + gw * _after(a - 2 * cube, b, published, post))
    lose = ((1 - gl) * _after(a, b - cube, published, post)
            + gl * _after(a, b - 2 * cube, published, post))
    return lose, win


def _line(points: list[tuple[float, float]]) -> np.ndarray:
    xs, ys = zip(*sorted(points), strict=True)
    return np.interp(GRID, xs, ys)


def _crossing(curve: np.ndarray, level: float) -> float | None:
    """The ``p`` where a non-decreasing curve reaches ``level``, if strictly inside (0, 1)."""
    if not (curve[0] < level < curve[-1]):
        return None
    return float(np.interp(level, curve, GRID))


def cube_curves(a: int, b: int, published: bool = True) -> dict[tuple[int, str], np.ndarray]:
    """MWC of the side ``a`` away against ``b`` away as a function of its winning chance ``p``
    (on :data:`GRID`), for each cube state of a pre-Crawford game, on the table chosen by
    ``published`` (see :func:`match_equity`).

    Returns:
        ``{(cube, owner): float64[len(GRID)]}`` with owner ``"me"``, ``"opponent"`` or (cube 1)
        ``"centre"``; efficiency-weighted curves as described in the module docstring.
    """
    return _cube_model(a, b, published)[0]


def cube_knots(a: int, b: int, gammons: tuple[float, float] | None = None,
               post_crawford: bool = False, efficiency: float = X_CONTACT
               ) -> dict[tuple[int, str], list[tuple[float, float]]]:
    """The inner points ``(p, MWC)`` of the live-cube line of each cube state of
    :func:`cube_curves` (published table): the opponent's take point (where we would be
    cashed: our MWC after losing the cube's points) and our cash point (our MWC after winning
    them), where the cube is live. A position's own gammon chances give the ends (``p`` = 0
    and 1) of the line.

    Args:
        gammons: the shares of our wins and of our losses that are gammons, for take points
            of this position's own gammon chances (rounded to 0.02 for caching), as gnubg
            computes its take points from the position's gammon ratios; default
            :data:`GAMMON_RATE` for both, the table's typical game.
        post_crawford: a post-Crawford game (one side 1 away): the outcomes are valued on the
            post-Crawford table. The same construction then gives the trailer's cube: the
            leader's take point is where dropping (the "free drop") is worth what taking is,
            and the leader's own doubles never gain (its cash point would be a match win).
        efficiency: the cube efficiency of the curves at the higher cube levels (whose
            crossings are the take points), the position's own as gnubg uses it
            (:func:`boardgammon.cube.efficiency.cube_efficiency`).
    """
    gw, gl = (GAMMON_RATE, GAMMON_RATE) if gammons is None else (
        round(min(max(float(g), 0.0), 1.0) * 50) / 50 for g in gammons)
    return _cube_model(a, b, True, (gw, gl), post_crawford, float(efficiency))[1]


# An entry holds 15 curves on the grid, some 110 KB, and its key has the position's cube
# efficiency (a float), so a server analysing matches filled 8,192 of them: about 0.9 GB
# (issue 21, finding 8; docs/server.md §Memory). The hits come from the same position asked
# again within a decision: 256 entries keep 98 % of them and bound the cache to ~30 MB.
@lru_cache(maxsize=256)
def _cube_model(a: int, b: int, published: bool,
                gammons: tuple[float, float] = (GAMMON_RATE, GAMMON_RATE), post: bool = False,
                x: float = X_CONTACT) -> tuple[dict[tuple[int, str], np.ndarray],
                           dict[tuple[int, str], list[tuple[float, float]]]]:
    """Cube curves and knots (see :func:`cube_curves`, :func:`cube_knots`); ``x`` the cube
    efficiency."""
    def after(mine: int, theirs: int) -> float:
        return _after(mine, theirs, published, post)
    curves: dict[tuple[int, str], np.ndarray] = {}
    knots: dict[tuple[int, str], list[tuple[float, float]]] = {}
    levels = [1 << k for k in range(7)]
    for cube in reversed(levels):
        lose, win = _ends(a, b, cube, published, gammons, post)
        dead = _line([(0.0, lose), (1.0, win)])
        live_cube = cube < MAX_CUBE and not (cube >= a and cube >= b)
        for owner in ("me", "opponent"):
            points = [(0.0, lose), (1.0, win)]
            if live_cube:
                if owner == "me":
                    t = _crossing(curves[(2 * cube, "opponent")], after(a - cube, b))
                    if t is not None:
                        points.append((t, after(a - cube, b)))
                else:
                    t = _crossing(curves[(2 * cube, "me")], after(a, b - cube))
                    if t is not None:
                        points.append((t, after(a, b - cube)))
            curves[(cube, owner)] = x * _line(points) + (1 - x) * dead
            knots[(cube, owner)] = sorted(points[2:])
    lose, win = _ends(a, b, 1, published, gammons, post)
    points = [(0.0, lose), (1.0, win)]
    hi = _crossing(curves[(2, "opponent")], after(a - 1, b))
    lo = _crossing(curves[(2, "me")], after(a, b - 1))
    if hi is not None:
        points.append((hi, after(a - 1, b)))
    if lo is not None and (hi is None or lo < hi):
        points.append((lo, after(a, b - 1)))
    dead = _line([(0.0, lose), (1.0, win)])
    curves[(1, "centre")] = x * _line(points) + (1 - x) * dead
    knots[(1, "centre")] = sorted(points[2:])
    return curves, knots


@cache
def _pre_crawford(a: int, b: int, published: bool) -> float:
    if _in_table(a, b, published):
        return float(published_table()[0][a - 1, b - 1])
    if a > b:
        return 1.0 - _pre_crawford(b, a, published)
    return float(np.interp(0.5, GRID, cube_curves(a, b, published)[(1, "centre")]))


def table(length: int, published: bool = True) -> np.ndarray:
    """The pre-Crawford MET ``float64[length, length]``: entry ``[i, j]`` is the MWC of the side
    ``i + 1`` away against ``j + 1`` away (row/column 0: the Crawford game); ``published`` as in
    :func:`match_equity`.

    Raises:
        ValueError: ``length`` below 1.
    """
    if length < 1:
        raise ValueError(f"a match is at least 1 point long, got {length}")
    return np.array([[match_equity(i + 1, j + 1, published=published) for j in range(length)]
                     for i in range(length)])
