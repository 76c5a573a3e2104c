"""Luck per roll, totals per player, labels and the luck-adjusted result.

Definition (gnubg's, ``analysis.c``): the luck of a roll is the value of the position after the
roller's best play of the dice rolled, minus the average of that over every roll the roller
could have had, i.e. measured against the position's value before the roll. Values are at
0-ply whatever the analysis depth (gnubg's default for luck, which keeps the 21 × all-plays
search cheap), in the units of :class:`~.analysis.Stakes` (MWC in a match, equity per cube in
money play), reported as normalised equity (EMG) like the decisions. Like gnubg's, they are
cubeful: each roll's best play (chosen by its dead-cube value, the cheap part) is valued with
the opponent then on roll playing the cube right. Against gnubg's own luck per roll on four
7-point matches (0-ply, opening rolls aside): correlation 0.956, mean difference 0.028 EMG
(0.942 and 0.033 with dead-cube values).

The opening roll is judged against the 15 rolls that can start a game (no doubles, each equally
likely); every other roll against the 36 (21 distinct, doubles 1/36 each, others 2/36).

Labels use gnubg's default luck levels (EMG): very lucky > 0.6, lucky > 0.3, unlucky < −0.3,
very unlucky < −0.6, otherwise none.

Luck-adjusted result (gnubg's "luck adjusted result"): the actual result minus the net luck
(own luck minus the opponent's), in MWC for a match (actual result: +0.5 for the winner,
−0.5 for the loser, against the 0.5 both had at the start) and in points for money play.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from boardgammon.engine import Board, constants, movegen

if TYPE_CHECKING:
    from .analysis import Stakes, _Judge

VERY_LUCKY, LUCKY, UNLUCKY, VERY_UNLUCKY = 0.6, 0.3, -0.3, -0.6

ROLLS = list(constants.ROLLS)
"""The 21 distinct rolls, lower die first."""
ROLL_WEIGHTS = np.array(constants.ROLL_PROBABILITIES)
OPENING_ROLLS = [(a, b) for a, b in ROLLS if a != b]
OPENING_WEIGHTS = np.full(len(OPENING_ROLLS), 1.0 / len(OPENING_ROLLS))


def label(luck: float) -> str | None:
    """``very lucky``, ``lucky``, ``unlucky``, ``very unlucky`` or ``None`` for luck in EMG."""
    if luck > VERY_LUCKY:
        return "very lucky"
    if luck > LUCKY:
        return "lucky"
    if luck < VERY_UNLUCKY:
        return "very unlucky"
    if luck < UNLUCKY:
        return "unlucky"
    return None


@dataclass(frozen=True)
class RollLuck:
    """The luck of ``seat``'s ``turn``-th roll in game ``game`` at cube value ``cube``:
    ``luck`` in EMG and ``luck_mwc`` in MWC (match play; in money play equity per cube, equal
    to ``luck``)."""

    game: int
    turn: int
    seat: int
    dice: tuple[int, int]
    luck: float
    luck_mwc: float
    cube: int

    @property
    def label(self) -> str | None:
        return label(self.luck)


def best_values(judge: _Judge, board: Board, rolls: list[tuple[int, int]], stakes: Stakes
                ) -> np.ndarray:
    """The value ``float64[len(rolls)]`` for the roller (``board``: the roller's view) after
    the best 0-ply play of each roll (a dance leaves the position as it is)."""
    n = len(rolls)
    boards = np.ascontiguousarray(np.repeat(board.array[None], n, axis=0))
    dice = np.array(rolls, dtype=np.int64)
    offsets = np.empty(n + 1, dtype=np.int64)
    size = 4096
    while True:
        out = np.empty((size, 2, 25), dtype=np.int8)
        total = movegen.generate_batch(boards, dice, out, offsets)
        if total >= 0:
            break
        size *= 4
    afters = out[:total]
    outputs = judge.after_outputs(afters, 0)
    values = stakes.value(outputs)
    # The best play of each roll by its dead-cube value, then valued cubefully (one position a
    # roll keeps this cheap; the cubeful best play differs from it only near the cube's edges).
    best = np.array([offsets[k] + int(np.argmax(values[offsets[k]:offsets[k + 1]]))
                     for k in range(n)])
    return stakes.value(outputs[best], afters[best])


def roll_luck(judge: _Judge, board: Board, dice: tuple[int, int], stakes: Stakes, game: int,
              turn: int, seat: int, opening: bool = False) -> RollLuck:
    """The luck of rolling ``dice`` in ``board`` (roller's view, before the roll) for ``seat``;
    ``opening``: the game's first roll (see the module docstring)."""
    rolls, weights = (OPENING_ROLLS, OPENING_WEIGHTS) if opening else (ROLLS, ROLL_WEIGHTS)
    best = best_values(judge, board, rolls, stakes)
    rolled = best[rolls.index((min(dice), max(dice)))]
    luck_value = float(rolled - weights @ best)
    return RollLuck(game, turn, seat, (int(dice[0]), int(dice[1])), stakes.emg(luck_value),
                    luck_value, stakes.context.cube_value)


def luck_adjusted(result: float, own_luck: float, opponent_luck: float) -> float:
    """``result − (own_luck − opponent_luck)``, all in the same unit (see the module
    docstring)."""
    return result - (own_luck - opponent_luck)
