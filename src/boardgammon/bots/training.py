"""Self-play training of the evaluator by TD(λ) (Sutton 1988; Tesauro 1992, 1995), in numba.

Each game is played greedily by the network against itself: for every roll, every legal play
is generated (:func:`boardgammon.engine.movegen.generate`), each resulting position is swapped to
the opponent's view, encoded and evaluated, and the play with the highest equity for the mover
(the negated equity of the opponent's evaluation) is made.

Learning uses the λ-return (the "forward view" of TD(λ), Sutton & Barto, *Reinforcement
Learning*, 2nd ed., §12.1): after the game, the target of the position before move ``t`` is

    G_t = flip((1 − λ)·V(s_{t+1}) + λ·G_{t+1}),      G_{T−1} = the game's result,

where ``V(s_{t+1})`` is the evaluation of the position after the chosen play (the opponent on
roll) as computed when the play was chosen, and ``flip`` turns five outputs into the other
side's view. Updating every position towards its λ-return with the weights held during the game
is exactly offline TD(λ) with accumulating eligibility traces, but the gradient of each update
touches only the non-zero inputs, so it costs a forward pass instead of dense traces of all
weights. Each output ``k`` is moved by ``α·(G_t,k − V_k(s_t))·∇V_k`` (squared-error gradient).

Reproducibility: game ``g`` of a run with seed ``s`` draws its dice from numba's generator seeded
with ``s·10⁹ + g``, and the learning rate depends only on ``g``, so a run resumed from a
checkpoint continues exactly as if it had never stopped.
"""

from __future__ import annotations

import numpy as np

from boardgammon._numba_cache import njit
from boardgammon.engine import movegen
from boardgammon.engine.constants import BOARD_SHAPE
from boardgammon.engine.rules import game_value_kernel

from . import bearoff
from .encoding import N_INPUTS, encode_into
from .network import N_OUTPUTS, equity, flip_into, forward

MAX_PLIES = 2048  # a cap far above real games; a truncated game bootstraps from its last value
_CAP = 4096


@njit(cache=True)
def learning_rate(game, alpha0, half_life, alpha_min):
    """α for game number ``game``: ``alpha0`` halving every ``half_life`` games, at least
    ``alpha_min``."""
    a = alpha0 * 0.5 ** (game / half_life)
    return a if a > alpha_min else alpha_min


@njit(cache=True)
def _result(final, checkers, out):
    """Outputs of a finished game from the winner's view; ``final`` is the last position from
    the loser's view (the loser "on roll")."""
    value = game_value_kernel(final[0], checkers)
    out[:] = 0.0
    out[0] = 1.0
    if value >= 2:
        out[1] = 1.0
    if value == 3:
        out[2] = 1.0


@njit(cache=True)
def value0(board, checkers, w1, b1, w2, b2, db, x, h, o):
    """0-ply outputs of ``board`` (player on roll's view, game not over) into ``o``: exact from
    the bear-off database ``db`` where it applies (an empty ``db`` disables it), else the
    network."""
    if db.shape[0] > 0 and bearoff.lookup_into(board, checkers, db, o):
        return
    encode_into(board, checkers, x)
    forward(x, w1, b1, w2, b2, h, o)


@njit(cache=True)
def choose(board, d1, d2, checkers, w1, b1, w2, b2, db, bufs, x, h, o, best_o, cand, chosen):
    """Greedy 0-ply choice of a play of ``d1``-``d2`` in ``board`` (player on roll's view).

    ``db``: the bear-off database or an empty array (see :func:`value0`); ``bufs``:
    :func:`boardgammon.engine.movegen.make_buffers` buffers; ``x``, ``h``, ``o`` and ``cand``
    (``int8[2, 25]``) scratch space. Writes the chosen resulting position, swapped
    to the opponent's view, into ``chosen``, and its outputs into ``best_o``: from the
    opponent's view, or the game's result from the mover's view when the play ends the game.

    Returns:
        whether the chosen play ends the game.
    """
    work, out, dedup = bufs
    n, most = movegen.generate(board, d1, d2, False, work, out, dedup)
    res, _, out_n, out_d = out
    keep = movegen.legal_mask(n, most, d1, d2, out_n, out_d)
    best_e = -1e9
    terminal = False
    for k in range(n):
        if not keep[k]:
            continue
        movegen.unpack(res, k, cand)
        left = 0
        for i in range(25):
            left += cand[0, i]
            cand[0, i], cand[1, i] = cand[1, i], cand[0, i]
        if left == 0:
            _result(cand, checkers, o)
            e = equity(o)
            is_terminal = True
        else:
            value0(cand, checkers, w1, b1, w2, b2, db, x, h, o)
            e = -equity(o)
            is_terminal = False
        if e > best_e:
            best_e = e
            terminal = is_terminal
            best_o[:] = o
            chosen[:] = cand
    return terminal


@njit(cache=True)
def _update(x, target, w1, b1, w2, b2, h, o, dh, alpha):
    """One gradient step of all outputs towards ``target``; returns the squared error."""
    forward(x, w1, b1, w2, b2, h, o)
    nh = b1.shape[0]
    sq = 0.0
    for j in range(nh):
        dh[j] = 0.0
    for k in range(N_OUTPUTS):
        err = target[k] - o[k]
        sq += err * err
        dk = err * o[k] * (1.0 - o[k])
        for j in range(nh):
            dh[j] += dk * w2[k, j]
            w2[k, j] += alpha * dk * h[j]
        b2[k] += alpha * dk
    for j in range(nh):
        dh[j] *= alpha * h[j] * (1.0 - h[j])
        b1[j] += dh[j]
    for i in range(x.shape[0]):
        xi = x[i]
        if xi != 0.0:
            for j in range(nh):
                w1[i, j] += xi * dh[j]
    return sq


@njit(cache=True)
def train_games(w1, b1, w2, b2, start_board, checkers, seed, first_game, n_games, lam,
                alpha0, half_life, alpha_min):
    """Play and learn from games ``first_game … first_game + n_games − 1`` (weights in place).

    Returns ``(plies, squared_error)``: total moves played and the sum over all updated
    positions of the squared error before each update (a training loss).

    Raises:
        ValueError: a joined contact and race network (its update would write the wrong rows).
    """
    if b2.shape[0] != N_OUTPUTS:
        raise ValueError("self-play trains a single network, not a joined one")
    bufs = movegen.make_buffers(_CAP)
    cand = np.empty(BOARD_SHAPE, dtype=np.int8)
    no_db = np.empty((0, bearoff.MAX_ROLLS), dtype=np.float32)
    nh = b1.shape[0]
    x = np.empty(N_INPUTS, dtype=np.float32)
    h = np.empty(nh, dtype=np.float32)
    dh = np.empty(nh, dtype=np.float32)
    o = np.empty(N_OUTPUTS, dtype=np.float32)
    xs = np.empty((MAX_PLIES, N_INPUTS), dtype=np.float32)
    vs = np.empty((MAX_PLIES, N_OUTPUTS), dtype=np.float32)  # V(s_{t+1}), opponent's view
    g = np.empty(N_OUTPUTS, dtype=np.float32)
    mix = np.empty(N_OUTPUTS, dtype=np.float32)
    swapped = np.empty(BOARD_SHAPE, dtype=np.int8)
    board = np.empty(BOARD_SHAPE, dtype=np.int8)
    total_plies = 0
    total_sq = 0.0
    for game in range(first_game, first_game + n_games):
        np.random.seed(seed * 1_000_000_000 + game)
        alpha = learning_rate(game, alpha0, half_life, alpha_min)
        board[:] = start_board
        d1 = np.random.randint(1, 7)
        d2 = np.random.randint(1, 7)
        while d1 == d2:  # the opening roll is never a double
            d1 = np.random.randint(1, 7)
            d2 = np.random.randint(1, 7)
        t = 0
        finished = False
        while t < MAX_PLIES:
            encode_into(board, checkers, xs[t])
            terminal = choose(board, d1, d2, checkers, w1, b1, w2, b2, no_db, bufs, x, h, o,
                              vs[t], cand, swapped)
            t += 1
            if terminal:
                finished = True
                break
            board[:] = swapped
            d1 = np.random.randint(1, 7)
            d2 = np.random.randint(1, 7)
        # vs[t-1] holds the result (mover's view) if finished, else V(s_t) (opponent's view).
        if finished:
            g[:] = vs[t - 1]
        else:
            flip_into(vs[t - 1], g)
        total_sq += _update(xs[t - 1], g, w1, b1, w2, b2, h, o, dh, alpha)
        for s in range(t - 2, -1, -1):
            # G_s = flip((1 − λ)·V(s_{s+1}) + λ·G_{s+1}); g holds G_{s+1} (next mover's view)
            for k2 in range(N_OUTPUTS):
                mix[k2] = (1.0 - lam) * vs[s, k2] + lam * g[k2]
            flip_into(mix, g)
            total_sq += _update(xs[s], g, w1, b1, w2, b2, h, o, dh, alpha)
        total_plies += t
    return total_plies, total_sq
