"""The evaluator interface the analysis is written against.

The analysis needs one thing from a model: the five outcome probabilities of positions, from
the view of the player on roll before the roll, at a search depth. Keeping that interface this
small lets the tests drive the whole analysis with a deterministic evaluator whose values are
known exactly, and the benchmarks with the neural network
(:class:`boardgammon.bots.neural.NetworkEvaluator`, the default).

Outputs follow gnubg's convention (:mod:`boardgammon.bots.network`): ``(win, win gammon, win
backgammon, lose gammon, lose backgammon)``, gammons including backgammons.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from boardgammon.engine.rules import game_values


class Evaluator(Protocol):
    """Outcome probabilities of positions at a depth.

    ``evaluate(boards, checkers, plies)``: ``boards`` is ``int8[P, 2, 25]`` (player on roll's
    view, every game still in progress), ``plies`` 0 (the static evaluation) up to
    ``max_plies``; returns ``float[P, 5]``. Raises ``ValueError`` for a depth it does not
    offer.
    """

    max_plies: int

    def evaluate(self, boards: np.ndarray, checkers: int = 15, plies: int = 0) -> np.ndarray:
        ...


def terminal_outputs(after: np.ndarray, checkers: int) -> np.ndarray | None:
    """The exact outputs of a position right after a play, from the *mover's* view (row 0 the
    mover, ``int8[2, 25]``), if the mover has just borne off the last checker; else ``None``.

    Gammon and backgammon as :func:`boardgammon.engine.rules.game_values` scores them.
    """
    if after[0].sum() != 0:
        return None
    value = int(game_values(after[1], checkers))
    o = np.zeros(5, dtype=np.float64)
    o[0] = 1.0
    o[1] = 1.0 if value >= 2 else 0.0
    o[2] = 1.0 if value == 3 else 0.0
    return o
