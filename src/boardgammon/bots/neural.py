"""The neural levels: ``medium`` (the network at 0-ply) and ``hard`` (2-ply search with pruning),
both with cubeful decisions at match score.

Evaluation of a position (player on roll's view, before the roll), in numba:

* 0-ply: the network (:mod:`boardgammon.bots.network`); a finished game is scored exactly; a
  race with both sides in their home boards and each with a checker off (no gammon possible)
  is valued by the exact bear-off database (:mod:`boardgammon.bots.bearoff`).
* n-ply (gnubg's convention): the average over the 21 rolls of the position after the roller's
  best play by 0-ply, valued at (n − 1)-ply. Choosing each inner play by 0-ply rather than by a
  full search is the pruning that keeps 2-ply within about a second.

``medium`` ranks every play by the 0-ply value of the resulting position. ``hard`` ranks every
play at 0-ply, keeps at most the best ``HARD_CANDIDATES`` within ``HARD_WINDOW`` of the best
(gnubg's move filter does the same) and values those at 2-ply (gnubg's "2-ply": the opponent's
roll and reply, then our roll and reply).

Cube decisions (:mod:`boardgammon.cube.cubeful`) use the winning and gammon chances of the
position before the roll: 0-ply for medium, 2-ply for hard. A resignation is offered only when
that depth calls the game lost, and then sized at 1-ply at least (:meth:`NeuralBot.resign`).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from boardgammon._numba_cache import njit
from boardgammon.cube import Context, cubeful
from boardgammon.engine import Board, Variant, movegen
from boardgammon.engine.constants import BOARD_SHAPE

from . import bearoff
from .base import Bot, RankedPlay, register
from .encoding import N_INPUTS
from .network import N_OUTPUTS, Network, cubeless_equity, flip_into
from .training import _result, choose, value0

# Measured on training/judged.npz (2,000 decisions valued by gnubg 2-ply): 8 within 0.24 lose
# 0.35 ± 0.31 mp per decision less than 5 within 0.16, for about 1.6 times the time.
HARD_CANDIDATES = 8
HARD_WINDOW = 0.24  # cubeless equity below the 0-ply best beyond which a play is not searched
_CAP = 4096


@njit(cache=True)
def _value1(board, checkers, w1, b1, w2, b2, table, bufs, rolls, weights, out):
    """1-ply outputs of ``board`` (player on roll's view) into ``out``."""
    nh = b1.shape[0]
    x = np.empty(N_INPUTS, dtype=np.float32)
    h = np.empty(nh, dtype=np.float32)
    o = np.empty(N_OUTPUTS, dtype=np.float32)
    best_o = np.empty(N_OUTPUTS, dtype=np.float32)
    mine = np.empty(N_OUTPUTS, dtype=np.float32)
    cand = np.empty(BOARD_SHAPE, dtype=np.int8)
    chosen = np.empty(BOARD_SHAPE, dtype=np.int8)
    out[:] = 0.0
    for r in range(rolls.shape[0]):
        if choose(board, rolls[r, 0], rolls[r, 1], checkers, w1, b1, w2, b2, table, bufs, x, h,
                  o, best_o, cand, chosen):
            mine[:] = best_o
        else:
            flip_into(best_o, mine)
        for k in range(N_OUTPUTS):
            out[k] += weights[r] * mine[k]


@njit(cache=True)
def _value2(board, checkers, w1, b1, w2, b2, table, bufs, bufs_inner, rolls, weights, out):
    """2-ply outputs of ``board`` (player on roll's view) into ``out``."""
    nh = b1.shape[0]
    x = np.empty(N_INPUTS, dtype=np.float32)
    h = np.empty(nh, dtype=np.float32)
    o = np.empty(N_OUTPUTS, dtype=np.float32)
    best_o = np.empty(N_OUTPUTS, dtype=np.float32)
    theirs = np.empty(N_OUTPUTS, dtype=np.float32)
    mine = np.empty(N_OUTPUTS, dtype=np.float32)
    cand = np.empty(BOARD_SHAPE, dtype=np.int8)
    chosen = np.empty(BOARD_SHAPE, dtype=np.int8)
    out[:] = 0.0
    for r in range(rolls.shape[0]):
        if choose(board, rolls[r, 0], rolls[r, 1], checkers, w1, b1, w2, b2, table, bufs, x, h,
                  o, best_o, cand, chosen):
            mine[:] = best_o
        else:
            _value1(chosen, checkers, w1, b1, w2, b2, table, bufs_inner, rolls, weights, theirs)
            flip_into(theirs, mine)
        for k in range(N_OUTPUTS):
            out[k] += weights[r] * mine[k]


# nogil: a 2-ply call runs for tens to hundreds of milliseconds; holding the GIL that long
# froze every other thread of the process (the server's event loop, while the computer
# thought). It touches no Python object and allocates its own scratch buffers.
@njit(cache=True, nogil=True)
def evaluate_many(boards, checkers, plies, w1, b1, w2, b2, table, rolls, weights):
    """Outputs ``float32[P, 5]`` of positions ``int8[P, 2, 25]`` (player on roll's view, none
    finished) at ``plies`` = 0, 1 or 2. Releases the GIL while it runs."""
    p = boards.shape[0]
    out = np.empty((p, N_OUTPUTS), dtype=np.float32)
    bufs = movegen.make_buffers(_CAP)
    bufs_inner = movegen.make_buffers(_CAP)
    x = np.empty(N_INPUTS, dtype=np.float32)
    h = np.empty(b1.shape[0], dtype=np.float32)
    for i in range(p):
        if plies == 0:
            value0(boards[i], checkers, w1, b1, w2, b2, table, x, h, out[i])
        elif plies == 1:
            _value1(boards[i], checkers, w1, b1, w2, b2, table, bufs, rolls, weights, out[i])
        else:
            _value2(boards[i], checkers, w1, b1, w2, b2, table, bufs, bufs_inner, rolls,
                    weights, out[i])
    return out


@cache
def shipped_network(game: str = "standard") -> Network:
    """The network shipped with the package for ``game`` (``standard``: 15-checker games,
    Nackgammon included; ``hypergammon``), loaded once, without network access."""
    return Network.load(game=game)


class NetworkEvaluator:
    """Outputs of positions at a given search depth, by the networks: an
    :class:`~boardgammon.analysis.evaluator.Evaluator` for the analysis, and the medium and hard
    levels' model.

    Args:
        network: the weights for 15-checker positions (default: the shipped network).
        hypergammon: the weights for Hypergammon's 3-checker positions (default: the shipped
            Hypergammon network, trained on Hypergammon self-play: the 15-checker network saw
            almost no gammons there, 0.00-0.06 where playouts give 86 %).
    """

    def __init__(self, network: Network | None = None,
                 hypergammon: Network | None = None) -> None:
        self.network = network or shipped_network()
        self.hypergammon = hypergammon or shipped_network("hypergammon")

    max_plies = 2
    """The deepest search :meth:`evaluate` offers."""

    def evaluate(self, boards: np.ndarray, checkers: int = 15, plies: int = 0) -> np.ndarray:
        """Five outputs (player on roll's view) of positions ``int8[P, 2, 25]`` at ``plies``
        (0, 1 or 2): ``float32[P, 5]``, each within 0–1 (averages over rolls stray past the
        bounds by float32 rounding, e.g. −2e-7: then a certain backgammon was worth 3.0000012
        points and hard refused a resignation of all three). A finished position is scored as
        the game's result.

        Raises:
            ValueError: ``plies`` outside 0–2 or wrong shape.
        """
        if plies not in (0, 1, 2):
            raise ValueError(f"plies is 0, 1 or 2, got {plies!r}")
        a = np.ascontiguousarray(boards, dtype=np.int8)
        if a.ndim != 3 or a.shape[1:] != BOARD_SHAPE:
            raise ValueError(f"positions have shape (P, 2, 25), got {a.shape}")
        out = np.empty((a.shape[0], N_OUTPUTS), dtype=np.float32)
        on_board = a.sum(axis=2)
        live = (on_board > 0).all(axis=1)
        for i in np.nonzero(~live)[0]:
            out[i] = _finished(a[i], checkers)
        if live.any():
            net = self.hypergammon if checkers == Variant.HYPERGAMMON.checkers else self.network
            out[live] = evaluate_many(a[live], checkers, plies, *net.weights,
                                      bearoff.table(), bearoff.ROLLS,
                                      bearoff.ROLL_WEIGHTS)
        return np.clip(out, 0.0, 1.0, out=out)


def _finished(board: np.ndarray, checkers: int) -> np.ndarray:
    """The result of a finished game (player on roll's view)."""
    o = np.zeros(N_OUTPUTS, dtype=np.float32)
    if board[0].sum() == 0:  # the player on roll has borne off everything
        _result(np.ascontiguousarray(board[::-1]), checkers, o)
        return o
    _result(board, checkers, o)
    flipped = np.empty(N_OUTPUTS, dtype=np.float32)
    flip_into(o, flipped)
    return flipped


class NeuralBot(Bot):
    """A level built on the network: ranks plays at ``rank_plies`` over the best
    ``candidates`` of a 0-ply ranking, and judges the cube with ``cube_plies`` outputs."""

    rank_plies = 0
    cube_plies = 0
    candidates = 0

    def __init__(self, seed: int | None = None, network: Network | None = None,
                 hypergammon: Network | None = None) -> None:
        super().__init__(seed)
        self.evaluator = NetworkEvaluator(network, hypergammon)

    def outputs(self, board: Board) -> np.ndarray:
        """Five outputs of ``board`` (player on roll's view) at the level's cube depth."""
        return self.evaluator.evaluate(board.array[None], board.checkers, self.cube_plies)[0]

    def rank_plays(self, board: Board, dice: tuple[int, int],
                   context: Context) -> list[RankedPlay]:
        """Every legal play of ``dice``, best first for the mover; ``equity`` is the cubeless
        equity of the resulting position for the mover (ties keep generation order). In match
        play, plays are ordered by cubeful match-winning chance, the opponent then playing the
        cube right (:func:`cubeful.cubeful_play_values`, as the analysis values them and as
        gnubg plays); in money play by cubeless equity (gammons not counted under the Jacoby
        rule with the cube centred)."""
        plays = board.legal_plays(*dice)
        after = np.stack([p.board_after.swapped().array for p in plays])
        theirs = self.evaluator.evaluate(after, board.checkers, 0)
        mine = _flip(theirs)

        def utility(rows: np.ndarray) -> np.ndarray:
            if context.length:  # the resulting positions in the mover's view: rows swapped
                return cubeful.cubeful_play_values(mine[rows], context, after[rows, ::-1])
            return cubeful.play_utility(mine[rows], context)

        order = np.argsort(-utility(np.arange(len(plays))), kind="stable")
        if self.candidates and len(plays) > 1:
            # gnubg-style move filter: only plays close to the best at 0-ply are searched.
            eq = np.atleast_1d(cubeless_equity(mine))
            top = order[:self.candidates]
            top = top[eq[top] >= eq[order[0]] - HARD_WINDOW]
            mine[top] = _flip(self.evaluator.evaluate(after[top], board.checkers,
                                                      self.rank_plies))
            # The searched plays rank above the rest, whose 0-ply values are not comparable.
            deep = top[np.argsort(-utility(top), kind="stable")]
            order = np.concatenate([deep, order[~np.isin(order, top)]])
        equities = cubeless_equity(mine)
        return [RankedPlay(plays[i], float(np.atleast_1d(equities)[i])) for i in order]

    def double(self, board: Board, context: Context) -> bool:
        """Double iff the cubeful gain of doubling beats holding (see :mod:`cubeful`)."""
        if not context.cube_available_to_me:
            return False
        return cubeful.should_double(self.outputs(board), context,
                                     float(cubeful.cube_efficiency(board.array, context.variant)))

    def take(self, board: Board, context: Context) -> bool:
        """Take iff taking is worth at least dropping (``board``: the doubler on roll)."""
        return cubeful.should_take(_flip(self.outputs(board)), context,
                                   float(cubeful.cube_efficiency(board.array, context.variant)))

    def beaver(self, board: Board, context: Context) -> bool:
        """Beaver iff owning the cube it is ahead (see :func:`cubeful.should_beaver`;
        ``board``: the doubler on roll)."""
        return cubeful.should_beaver(_flip(self.outputs(board)), context,
                                     float(cubeful.cube_efficiency(board.array, context.variant)))

    def take_beaver(self, board: Board, context: Context) -> bool:
        """Take the beaver iff that is worth at least dropping
        (:func:`cubeful.should_take_beaver`; ``board``: the bot, the doubler, on roll)."""
        return cubeful.should_take_beaver(self.outputs(board), context,
                                          float(cubeful.cube_efficiency(board.array,
                                                                        context.variant)))

    def accept_resignation(self, board: Board, context: Context, points: int) -> bool:
        """Accept iff ``points`` (times the cube) are worth at least playing on
        (``board``: the resigner on roll, as the game offers it)."""
        return cubeful.should_accept(_flip(self.outputs(board)), context, points)

    def resign(self, board: Board, context: Context) -> int | None:
        """Offer the cheapest resignation the opponent should accept, once the game is lost
        beyond doubt (see :func:`cubeful.resignation`). A game the level's cube depth calls
        lost is looked at again at 1-ply at least (the 21 rolls, milliseconds, and only then):
        a 0-ply estimate of a certain backgammon can fall a few hundredths short (0.986 with
        the 15 checkers in the winner's home board and the winner one checker from home),
        which would withhold every offer."""
        o = self.outputs(board)
        if o[0] > cubeful.RESIGN_WIN_CHANCE:
            return None
        if self.cube_plies < 1:
            o = self.evaluator.evaluate(board.array[None], board.checkers, 1)[0]
        return cubeful.resignation(o, context)


def _flip(o: np.ndarray) -> np.ndarray:
    """Outputs ``[..., 5]`` seen from the other side."""
    o = np.asarray(o, dtype=np.float32)
    return np.stack([1.0 - o[..., 0], o[..., 3], o[..., 4], o[..., 1], o[..., 2]], axis=-1)


@register("medium")
class MediumBot(NeuralBot):
    """The network at 0-ply for plays and cube."""


@register("hard")
class HardBot(NeuralBot):
    """2-ply search over the best plays at 0-ply (at most eight, within 0.24); cube from 2-ply
    outputs (about 20 ms a decision; judged by gnubg 2-ply over 90 matches, doubling
    decisions lost 1.3 mp each against 1.8 at 1-ply and 2.3 at 0-ply; docs/neural.md)."""

    rank_plies = 2
    cube_plies = 2
    candidates = HARD_CANDIDATES
