"""Hand-made positional features of backgammon positions, computed in bulk with numpy.

Every function takes ``arrays``: ``int8[N, 2, 25]`` positions in the layout of
:attr:`boardgammon.engine.Board.array` (row 0 one side, row 1 the other, each in its own
numbering, index ``i`` = point ``i + 1``, index 24 = bar). The easy bot passes the positions
*after* each legal play (``play.after.array``), so row 0 is the side that has just moved and
row 1 the side about to roll; the feature names below use that view: "mine" is row 0,
"theirs" row 1. Features of the side on roll are those of the swapped arrays
(``arrays[:, ::-1]``), without the shot features, which only make sense for the side whose
blots are about to be shot at.

The features (:data:`NAMES`, columns of :func:`features`):

``pips_mine``, ``pips_theirs``
    Pip counts: pips each side needs to bear everything off (bar = 25).
``shots``
    Rolls of 36 with which the side on roll can hit at least one of my blots, direct (one die)
    or indirect (both dice, or a double's three or four steps), each intermediate landing point
    open (I do not hold it with two or more). See :func:`hit_rolls`.
``hit_loss``
    Expected pips I lose to a hit on their next roll: over the 36 rolls, the largest loss among
    the blots that roll hits (a blot on my point ``p`` loses ``25 - p`` pips), divided by 36.
``hit_exposure``
    ``shots / 36`` times the points they have made in their home board: being hit costs more
    against a strong board (I may dance or be closed out).
``home_points``
    Points I have made (two or more checkers) in my home board, points 1-6.
``five_point``, ``bar_point``
    Whether I hold my 5-point, and my 7-point (the bar point), the two most valuable points
    outside the 6-point for blocking and attacking.
``outfield_points``
    Points I have made on 8-11, which help priming but block less.
``anchor``, ``advanced_anchor``
    Whether I hold a point in their home board (my 19-24), and one on my 20- or 21-point
    (their 5- or 4-point), which is much harder to attack and to prime.
``prime``
    The longest run of consecutive points I have made in front of their rearmost checker
    (a run behind all their checkers blocks nothing).
``back_checkers``
    My checkers on the bar or in their home board (my 19-24).
``stacking``
    Checkers beyond three on any one point of mine (a heavy point wastes builders).
``trapped``
    ``1 - escapes / 36`` for my rearmost checker when it is in their half or on the bar and
    the sides are in contact: the share of rolls that fail to carry it past their blocking
    points (see :func:`rearmost_escapes`).
``borne_off``
    Checkers I have borne off (bear-off progress).
``on_bar_vs_board``
    My checkers on the bar times the points they have made in their home board (I may dance).
``racing_lead``
    ``pips_theirs - pips_mine``: positive when I lead the race.
"""

from __future__ import annotations

import numpy as np

from boardgammon.engine import constants, rules
from boardgammon.engine.constants import (
    BACKGAMMON_INDICES,
    BAR_INDEX,
    BOARD_SHAPE,
    HOME_INDICES,
    POINTS,
    ROLLS,
)

NAMES: tuple[str, ...] = (
    "pips_mine", "pips_theirs", "shots", "hit_loss", "hit_exposure", "home_points",
    "five_point", "bar_point", "outfield_points", "anchor", "advanced_anchor", "prime",
    "back_checkers", "stacking", "trapped", "borne_off", "on_bar_vs_board", "racing_lead",
)
SHOT_FEATURES: tuple[str, ...] = ("shots", "hit_loss", "hit_exposure")
INDEX: dict[str, int] = {name: i for i, name in enumerate(NAMES)}

# --- Rolls and the ways each roll moves one checker ------------------------------------------
#
# The 21 distinct rolls (engine.constants.ROLLS), each counted in throws of 36: 2 for a
# non-double (two orders), 1 for a double.
ROLL_WAYS = np.array(constants.ROLL_WAYS, dtype=np.int64)


def _ways() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every way one checker can use a roll: (roll index, total distance, partial distances).

    A non-double moves one checker by either die, or by both in either order (landing on the
    intermediate point); a double moves it 1-4 steps of the die. The partial distances are
    the intermediate landings; padding is 0.
    """
    roll, dist, mids = [], [], []
    for r, (a, b) in enumerate(ROLLS):
        if a == b:
            for steps in range(1, 5):
                roll.append(r)
                dist.append(a * steps)
                mids.append([a * k for k in range(1, steps)] + [0] * (4 - steps))
        else:
            for d, m in ((a, []), (b, []), (a + b, [a]), (a + b, [b])):
                roll.append(r)
                dist.append(d)
                mids.append(m + [0] * (3 - len(m)))
    return np.array(roll), np.array(dist), np.array(mids)


_WAY_ROLL, _WAY_DIST, _WAY_MIDS = _ways()
# Points are indexed 0-25 in the mover's numbering of a path (0 unused, 25 = bar); index 26 is
# a padding column: never a source, always open.
_PAD = 26
_TARGETS = np.arange(26)
_SRC_IDX = _TARGETS[None, :] + _WAY_DIST[:, None]                      # [W, 26]
_SRC_IDX = np.where(_SRC_IDX <= 25, _SRC_IDX, _PAD)
# A checker going from s = t + D to t passes s - c for each partial distance c.
_MID_IDX = _TARGETS[None, :, None] + (_WAY_DIST[:, None, None] - _WAY_MIDS[:, None, :])
_MID_IDX = np.where((_WAY_MIDS[:, None, :] > 0) & (_MID_IDX <= 25), _MID_IDX, _PAD)
_WAYS_WITH_MID = [np.flatnonzero(_WAY_MIDS[:, k] > 0) for k in range(_WAY_MIDS.shape[1])]
_ESCAPE_WINDOW = 8
_ROLL_STARTS = np.flatnonzero(np.r_[True, _WAY_ROLL[1:] != _WAY_ROLL[:-1]])


def _reach(sources: np.ndarray, blocked: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """Which rolls carry a checker from a source to each target point.

    Args:
        sources: ``bool[N, 26]`` points (0-25, path owner's numbering) holding a checker that
            may move.
        blocked: ``bool[N, 26]`` points the path cannot land on.
        targets: ``bool[N, 26]`` points of interest (landing there must be allowed).

    Returns:
        ``bool[N, 21, 26]``: roll ``r`` of :data:`ROLLS` reaches target ``t`` from some source
        with every intermediate landing open.
    """
    n = sources.shape[0]
    src = np.concatenate([sources, np.zeros((n, 1), bool)], axis=1)
    open_ = np.concatenate([~blocked, np.ones((n, 1), bool)], axis=1)
    ok = src[:, _SRC_IDX] & targets[:, None, :]
    # Most ways have no intermediate landing; check the k-th one only where it exists.
    for k, ways in enumerate(_WAYS_WITH_MID):
        ok[:, ways] &= open_[:, _MID_IDX[ways, :, k]]
    return np.logical_or.reduceat(ok, _ROLL_STARTS, axis=1)


def _as_batch(arrays: np.ndarray) -> np.ndarray:
    a = np.asarray(arrays)
    if a.ndim == 2:
        a = a[None]
    if a.ndim != 3 or a.shape[1:] != BOARD_SHAPE:
        raise ValueError(f"positions are int8[N, 2, 25] (or one [2, 25]), got shape {a.shape}")
    return a.astype(np.int64)


def hit_rolls(arrays: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """How row 1 (the side on roll) can hit row 0's blots on its next roll.

    Counts direct shots (one die) and indirect ones (both dice, or up to four steps of a
    double), each intermediate landing open (row 0 has fewer than two checkers there). With
    checkers on the bar, row 1 may hit only with a checker entering from the bar (a simplification:
    after entering one checker it could sometimes hit with another).

    >>> import numpy as np
    >>> from boardgammon.engine import Board
    >>> b = Board.from_points({7: 1, 6: 14}, {24: 1, 6: 14})   # their back checker on my 1
    >>> shots, loss, per_point = hit_rolls(b.array)              # my blot 6 pips in front
    >>> int(shots[0]), int(per_point[0, 6]), round(float(loss[0]), 3)
    (17, 17, 8.5)

    Returns:
        ``(shots, hit_loss, per_point)``: ``int[N]`` rolls of 36 hitting at least one blot;
        ``float[N]`` expected pips lost (per roll the largest loss among blots hit, / 36);
        ``int[N, 24]`` rolls of 36 hitting the blot on each of row 0's points 1-24 (0 where
        there is no blot).
    """
    a = _as_batch(arrays)
    n = a.shape[0]
    mine, theirs = a[:, 0], a[:, 1]
    # Row 1's path, in row 1's numbering: row 0's point p is row 1's point 25 - p.
    mine_rev = mine[:, 23::-1]                       # [N, 24], column q-1 = row 1's point q
    blots = np.zeros((n, 26), bool)
    blots[:, 1:25] = mine_rev == 1
    blocked = np.zeros((n, 26), bool)
    blocked[:, 1:25] = mine_rev >= 2
    sources = np.zeros((n, 26), bool)
    sources[:, 1:26] = theirs > 0
    on_bar = theirs[:, BAR_INDEX] > 0
    sources[on_bar, 1:25] = False
    reach = _reach(sources, blocked, blots)          # [N, 21, 26]
    weights = ROLL_WAYS[None, :]
    shots = (reach.any(axis=2) * weights).sum(axis=1)
    # A blot on row 1's point q is row 0's point 25 - q: hit, it loses 25 - (25 - q) = q pips.
    loss = (reach * _TARGETS[None, None, :]).max(axis=2)
    hit_loss = (loss * weights).sum(axis=1) / 36.0
    per_q = (reach * ROLL_WAYS[None, :, None]).sum(axis=1)    # [N, 26], row 1's numbering
    per_point = per_q[:, 24:0:-1]                    # row 0's point p = row 1's 25 - p
    return shots, hit_loss, per_point


def rearmost_escapes(arrays: np.ndarray) -> np.ndarray:
    """Rolls of 36 that carry row 0's rearmost checker past row 1's blocking points.

    The blockade is row 1's made points (two or more checkers) within the 8 points in front
    of the checker (from a back checker: their home board, bar point and 8-point); a roll
    escapes when the checker can land, through open points only, beyond the lowest of them.
    With no made point in that window, or no checker at all, the count is 36.

    >>> from boardgammon.engine import Board
    >>> b = Board.from_points({24: 1, 6: 14}, {2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 7: 2, 13: 3})
    >>> int(rearmost_escapes(b.array)[0])  # my 18-23 primed in front of my 24-point checker
    0


    Returns:
        ``int[N]`` escaping rolls, 0-36.
    """
    a = _as_batch(arrays)
    n = a.shape[0]
    mine, theirs = a[:, 0], a[:, 1]
    present = mine > 0
    has = present.any(axis=1)
    rear = np.where(has, 25 - np.argmax(present[:, ::-1], axis=1), 0)   # point 1-25
    blocked = np.zeros((n, 26), bool)
    blocked[:, 1:25] = theirs[:, 23::-1] >= 2        # row 1's point 25 - p, as row 0's p
    points = np.arange(26)[None, :]
    window = (points < rear[:, None]) & (points >= rear[:, None] - _ESCAPE_WINDOW) & (points >= 1)
    in_window = blocked & window
    any_block = in_window.any(axis=1)
    lowest = np.where(any_block, np.argmax(in_window, axis=1), 0)
    targets = (points >= 1) & (points < lowest[:, None]) & ~blocked
    # One source per position: follow each way from it directly (landing rear - distance,
    # intermediate landings rear - partial distances), index 26 being open padding.
    targets = np.concatenate([targets, np.zeros((n, 1), bool)], axis=1)
    open_ = np.concatenate([~blocked, np.ones((n, 1), bool)], axis=1)
    land = rear[:, None] - _WAY_DIST[None, :]
    land = np.where(land >= 1, land, _PAD)
    mids = rear[:, None, None] - _WAY_MIDS[None, :, :]
    mids = np.where(_WAY_MIDS[None] > 0, mids, _PAD)
    rows = np.arange(n)[:, None]
    ok = targets[rows, land] & open_[rows[:, :, None], mids].all(axis=2)
    by_roll = np.logical_or.reduceat(ok, _ROLL_STARTS, axis=1)
    count = (by_roll * ROLL_WAYS[None, :]).sum(axis=1)
    return np.where(any_block, count, 36)


def _longest_run(made: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """Longest run of consecutive ``True`` in ``made & allowed`` along axis 1 (``int[N]``)."""
    m = (made & allowed).astype(np.int64)
    run = np.zeros(m.shape[0], dtype=np.int64)
    best = np.zeros_like(run)
    for i in range(m.shape[1]):
        run = (run + 1) * m[:, i]
        best = np.maximum(best, run)
    return best


def pip_counts(arrays: np.ndarray) -> np.ndarray:
    """``int[N, 2]`` pip counts of row 0 and row 1 (:func:`boardgammon.engine.rules.pip_counts`)
    of ``int8[N, 2, 25]`` positions, or ``[1, 2]`` of one ``[2, 25]``."""
    return rules.pip_counts(_as_batch(arrays))


def features(arrays: np.ndarray, checkers: int = 15, shots: bool = True) -> np.ndarray:
    """The feature matrix of positions: ``float[N, len(NAMES)]``, columns as :data:`NAMES`.

    Args:
        arrays: ``int8[N, 2, 25]`` (or one ``[2, 25]``) positions, row 0 the side that has just
            moved, row 1 the side on roll.
        checkers: checkers per side in the variant (15; 3 in Hypergammon).
        shots: compute the shot features (:data:`SHOT_FEATURES`); left 0 when false.

    Raises:
        ValueError: arrays of the wrong shape.
    """
    a = _as_batch(arrays)
    n = a.shape[0]
    mine, theirs = a[:, 0], a[:, 1]
    pips = pip_counts(a)
    if shots:
        n_shots, hit_loss, _ = hit_rolls(a)
    else:
        n_shots, hit_loss = np.zeros(n), np.zeros(n)
    made = mine[:, :POINTS] >= 2
    home = made[:, HOME_INDICES].sum(axis=1)
    their_home = (theirs[:, HOME_INDICES] >= 2).sum(axis=1)

    # Their rearmost checker as my point (their point q is my 25 - q; their bar is my 0).
    their_present = theirs > 0
    their_rear_q = np.where(their_present.any(axis=1),
                            25 - np.argmax(their_present[:, ::-1], axis=1), 0)
    points = np.arange(1, 25)[None, :]
    prime = _longest_run(made, points > (25 - their_rear_q)[:, None])
    my_present = mine > 0
    my_rear = np.where(my_present.any(axis=1), 25 - np.argmax(my_present[:, ::-1], axis=1), 0)
    trapped = np.where(rules.is_contact(a) & (my_rear >= 13), 1 - rearmost_escapes(a) / 36.0, 0.0)

    out = np.empty((n, len(NAMES)), dtype=np.float64)
    out[:, INDEX["pips_mine"]] = pips[:, 0]
    out[:, INDEX["pips_theirs"]] = pips[:, 1]
    out[:, INDEX["shots"]] = n_shots
    out[:, INDEX["hit_loss"]] = hit_loss
    out[:, INDEX["hit_exposure"]] = n_shots / 36.0 * their_home
    out[:, INDEX["home_points"]] = home
    out[:, INDEX["five_point"]] = made[:, 4]
    out[:, INDEX["bar_point"]] = made[:, 6]
    out[:, INDEX["outfield_points"]] = made[:, 7:11].sum(axis=1)
    out[:, INDEX["anchor"]] = made[:, BACKGAMMON_INDICES].any(axis=1)  # made: no bar column
    out[:, INDEX["advanced_anchor"]] = made[:, 19] | made[:, 20]
    out[:, INDEX["prime"]] = prime
    out[:, INDEX["back_checkers"]] = mine[:, BACKGAMMON_INDICES].sum(axis=1)
    out[:, INDEX["stacking"]] = np.maximum(mine[:, :POINTS] - 3, 0).sum(axis=1)
    out[:, INDEX["trapped"]] = trapped
    out[:, INDEX["borne_off"]] = checkers - mine.sum(axis=1)
    out[:, INDEX["on_bar_vs_board"]] = mine[:, BAR_INDEX] * their_home
    out[:, INDEX["racing_lead"]] = pips[:, 1] - pips[:, 0]
    return out
