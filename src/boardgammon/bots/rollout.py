"""Rollouts by our network at 0-ply or 1-ply, with variance reduction: the kernel of
``boardgammon rollout`` and of the training labels (``training/rollouts.py``).

* ``trials`` games from the position, the first roll stratified over the 36 outcomes (trial
  ``i`` starts with outcome ``i mod 36``), later rolls from numba's generator seeded by
  ``seed + i``, so a trial depends only on the seed and its number (a rollout run in batches of
  36 trials is the same rollout);
* optionally the second roll stratified too, by a Latin square over the first two rolls: trial
  ``i``'s second roll is outcome ``(i + i // 36 + offset) mod 36``, so that every 36 trials
  have each second roll once and every 1296 have each ordered pair of first and second rolls
  once. ``offset`` comes from the seed; over it, each trial's second roll is uniform whatever
  its first, so the estimate stays unbiased;
* every play chosen greedily at 0-ply (:func:`boardgammon.bots.training.choose`, bear-off
  database included), or at 1-ply (:func:`choose1`: the plays within :data:`FILTER` of the
  best at 0-ply, at most :data:`KEEP` of them, as gnubg's default move filter, each valued by
  the average over the opponent's 21 rolls of its best 0-ply reply);
* variance reduction as gnubg's rollouts do it: at each ply the best play of all 21 rolls is
  found and valued at 0-ply; the roll's luck, the chosen roll's value minus the 21 rolls'
  average, is subtracted from the game's result. Luck has mean zero whatever the network's
  errors, so the estimate stays unbiased, and most of the dice's noise cancels. At 1-ply the
  luck is still valued with the 0-ply choices of the 21 rolls (21 1-ply searches per ply would
  cost 21 times more): any such value has mean zero over the roll, so the estimate stays
  unbiased; it cancels a little less noise;
* a game stops when it ends (its result), when it reaches a race valued exactly by the one-sided
  bear-off database (both sides bearing off, a checker off each), or at ``truncate`` plies
  (0: never) with the network's 0-ply value there.

Results are the five cubeless outputs (win, win gammon, win backgammon, lose gammon, lose
backgammon) from the view of the player on roll, averaged over the trials, with their standard
errors (standard deviation over trials / √trials).
"""

from __future__ import annotations

import numpy as np

from boardgammon._numba_cache import njit
from boardgammon.bots import bearoff
from boardgammon.bots.encoding import N_INPUTS
from boardgammon.bots.network import N_OUTPUTS, Network, equity, flip_into
from boardgammon.bots.training import _result, choose, value0
from boardgammon.engine import movegen
from boardgammon.engine.constants import BOARD_SHAPE

MAX_PLIES = 2048  # far above real games; a longer one is valued at 0-ply where it stands
_CAP = 4096
FILTER = 0.16
"""1-ply candidates: the plays within this much cubeless equity of the best at 0-ply."""
KEEP = 8
"""1-ply candidates: at most this many (gnubg's default filter: 8 within 0.16)."""


def _roll_index() -> np.ndarray:
    """``int64[7, 7]``: the row of :data:`bearoff.ROLLS` of each ordered roll ``(d1, d2)``."""
    idx = np.full((7, 7), -1, dtype=np.int64)
    for r, (a, b) in enumerate(bearoff.ROLLS):
        idx[a, b] = idx[b, a] = r
    return idx


ROLL_INDEX = _roll_index()


@njit(cache=True)
def _to_root(o, side, out):
    """Outputs ``o`` of the side ``side`` plies from the root (0: the root's player) in the
    root's view."""
    if side == 0:
        out[:] = o
    else:
        flip_into(o, out)


@njit(cache=True)
def choose1(board, d1, d2, checkers, w1, b1, w2, b2, db, rolls, roll_weights, bufs, x, h, o,
            best_o, cand, chosen, plays, values, order, reply, reply_o):
    """1-ply choice of a play of ``d1``-``d2`` in ``board`` (player on roll's view), with the
    same outputs as :func:`boardgammon.bots.training.choose`: the chosen position swapped to
    the opponent's view in ``chosen``, its 0-ply outputs (opponent's view; the game's result
    from the mover's view when the play ends the game) in ``best_o``; returns whether the play
    ends the game. ``plays`` (``int8[_CAP, 2, 25]``), ``values``, ``order`` (``[_CAP]``),
    ``reply`` (``int8[2, 25]``) and ``reply_o`` (``float32[5]``) are scratch space.

    The legal plays are valued at 0-ply; those within :data:`FILTER` of the best, at most
    :data:`KEEP`, are valued again as the mover's equity averaged over the opponent's 21 rolls
    of its best 0-ply reply. A play that ends the game is taken at once (it wins)."""
    work, out, dedup = bufs
    n, most = movegen.generate(board, d1, d2, False, work, out, dedup)
    res, _, out_n, out_d = out
    keep = movegen.legal_mask(n, most, d1, d2, out_n, out_d)
    m = 0
    best = -1e9
    for k in range(n):
        if not keep[k]:
            continue
        movegen.unpack(res, k, cand)
        left = 0
        for i in range(25):
            left += cand[0, i]
            cand[0, i], cand[1, i] = cand[1, i], cand[0, i]
        if left == 0:
            _result(cand, checkers, best_o)
            chosen[:] = cand
            return True
        plays[m] = cand
        value0(cand, checkers, w1, b1, w2, b2, db, x, h, o)
        values[m] = -equity(o)
        best = max(best, values[m])
        m += 1
    kept = 0
    for i in range(m):
        if values[i] >= best - FILTER:
            order[kept] = i
            kept += 1
    # The KEEP best by 0-ply value (a partial selection sort: kept is small).
    for a in range(min(kept, KEEP)):
        top = a
        for b in range(a + 1, kept):
            if values[order[b]] > values[order[top]]:
                top = b
        order[a], order[top] = order[top], order[a]
    kept = min(kept, KEEP)
    best = -1e9
    pick = order[0]
    for a in range(kept if kept > 1 else 0):  # one candidate needs no search
        i = order[a]
        total = 0.0
        for r in range(rolls.shape[0]):
            # The opponent's best reply; its outputs back in the mover's view.
            if choose(plays[i], rolls[r, 0], rolls[r, 1], checkers, w1, b1, w2, b2, db, bufs,
                      x, h, o, reply_o, cand, reply):
                total -= roll_weights[r] * equity(reply_o)
            else:
                total += roll_weights[r] * equity(reply_o)
        if total > best:
            best = total
            pick = i
    chosen[:] = plays[pick]
    value0(chosen, checkers, w1, b1, w2, b2, db, x, h, best_o)
    return False


@njit(cache=True)
def rollout(board, checkers, w1, b1, w2, b2, db, rolls, roll_weights, roll_index, trials,
            truncate, seed, plain, adjusted, square=-1, plies=0):
    """Roll out ``board`` (player on roll's view, game not over) ``trials`` times, every play
    chosen at ``plies`` (0 or 1).

    Writes each trial's result (root player's view) into ``plain[trials, 5]`` and the same
    result less the luck of every roll into ``adjusted[trials, 5]``. ``db``: the bear-off
    database or an empty array; ``rolls``/``roll_weights``: the 21 rolls and their chances,
    ``roll_index[d1, d2]`` the row of a roll; ``truncate``: plies after which a game is valued
    at 0-ply (0: never); trial ``i`` draws its dice after the first from seed ``seed + i``.
    ``square``: negative, the second roll is drawn as the later ones; else it is stratified by
    the Latin square (module docstring) whose row for trial 0 is ``square`` (a caller running a
    rollout in batches of 36 passes its offset plus the batch's number).
    """
    bufs = movegen.make_buffers(_CAP)
    plays = np.empty((_CAP, 2, 25), dtype=np.int8)
    values = np.empty(_CAP, dtype=np.float64)
    order = np.empty(_CAP, dtype=np.int64)
    reply = np.empty(BOARD_SHAPE, dtype=np.int8)
    reply_o = np.empty(N_OUTPUTS, dtype=np.float32)
    nh = b1.shape[0]
    x = np.empty(N_INPUTS, dtype=np.float32)
    h = np.empty(nh, dtype=np.float32)
    o = np.empty(N_OUTPUTS, dtype=np.float32)
    best_o = np.empty(N_OUTPUTS, dtype=np.float32)
    mine = np.empty(N_OUTPUTS, dtype=np.float32)
    cand = np.empty(BOARD_SHAPE, dtype=np.int8)
    nr = rolls.shape[0]
    chosen = np.empty((nr, 2, 25), dtype=np.int8)
    value = np.empty((nr, N_OUTPUTS), dtype=np.float32)  # root's view
    terminal = np.empty(nr, dtype=np.bool_)
    mean = np.empty(N_OUTPUTS, dtype=np.float64)
    luck = np.empty(N_OUTPUTS, dtype=np.float64)
    result = np.empty(N_OUTPUTS, dtype=np.float32)
    cur = np.empty(BOARD_SHAPE, dtype=np.int8)
    for trial in range(trials):
        np.random.seed(seed + trial)
        cur[:] = board
        luck[:] = 0.0
        side = 0
        t = 0
        while True:
            if t == 0 or (t == 1 and square >= 0):
                k = trial % 36 if t == 0 else (trial + trial // 36 + square) % 36
                d1, d2 = k // 6 + 1, k % 6 + 1
            else:
                d1 = np.random.randint(1, 7)
                d2 = np.random.randint(1, 7)
            mean[:] = 0.0
            for r in range(nr):
                end = choose(cur, rolls[r, 0], rolls[r, 1], checkers, w1, b1, w2, b2, db, bufs,
                             x, h, o, best_o, cand, chosen[r])
                if end:
                    mine[:] = best_o
                else:
                    flip_into(best_o, mine)
                _to_root(mine, side, value[r])
                terminal[r] = end
                for j in range(N_OUTPUTS):
                    mean[j] += roll_weights[r] * value[r, j]
            r = roll_index[d1, d2]
            for j in range(N_OUTPUTS):
                luck[j] += value[r, j] - mean[j]
            if plies == 1:
                end = choose1(cur, d1, d2, checkers, w1, b1, w2, b2, db, rolls, roll_weights,
                              bufs, x, h, o, best_o, cand, chosen[r], plays, values, order,
                              reply, reply_o)
                if end:
                    mine[:] = best_o
                else:
                    flip_into(best_o, mine)
                _to_root(mine, side, value[r])
                terminal[r] = end
            result[:] = value[r]
            t += 1
            if terminal[r] or t == truncate or t >= MAX_PLIES:
                break
            cur[:] = chosen[r]
            side ^= 1
            if db.shape[0] > 0 and bearoff.lookup_into(cur, checkers, db, o):
                break  # value[r] is already the exact value
        for j in range(N_OUTPUTS):
            plain[trial, j] = result[j]
            adjusted[trial, j] = result[j] - luck[j]


def label(net: Network, boards: np.ndarray, trials: int, truncate: int, seeds: np.ndarray,
          db: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Rollout outputs of ``boards`` (player on roll's view): ``(outputs, stderr,
    plain_outputs, plain_stderr)``, each ``float32[P, 5]``, luck-adjusted and plain from the
    same trials; position ``i``'s dice come from ``seeds[i]``. ``db``: the bear-off database
    (default), or an empty array to roll bear-offs out too."""
    if db is None:
        db = bearoff.table()
    p = len(boards)
    out = np.empty((4, p, N_OUTPUTS), dtype=np.float32)
    plain = np.empty((trials, N_OUTPUTS), dtype=np.float64)
    adjusted = np.empty((trials, N_OUTPUTS), dtype=np.float64)
    for i in range(p):
        rollout(np.ascontiguousarray(boards[i], dtype=np.int8), 15, *net.weights, db,
                bearoff.ROLLS, bearoff.ROLL_WEIGHTS, ROLL_INDEX, trials, truncate,
                int(seeds[i]), plain, adjusted)
        for row, a in ((0, adjusted), (2, plain)):
            out[row, i] = a.mean(axis=0)
            out[row + 1, i] = a.std(axis=0, ddof=1) / np.sqrt(trials) if trials > 1 else 0.0
    return out[0], out[1], out[2], out[3]
