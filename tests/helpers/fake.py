"""A deterministic evaluator for exact analysis tests: a race formula on the pip counts.

The player on roll wins with probability ``1 / (1 + exp(−(theirs − mine + 4) / 10))`` (4 pips
for being on roll), never a gammon, at every depth. So the best play of a roll is the one that
leaves the opponent the most pips to go, i.e. the one that hits most behind, with ties broken by
generation order; every value can be recomputed by hand in a test.
"""

from __future__ import annotations

import numpy as np

PIPS = np.arange(1, 26)


def win_probability(mine: float, theirs: float) -> float:
    """The fake's winning chance of the player on roll with pip counts ``mine``/``theirs``."""
    return float(1.0 / (1.0 + np.exp(-(theirs - mine + 4.0) / 10.0)))


class PipEvaluator:
    """:class:`boardgammon.analysis.evaluator.Evaluator` from pip counts alone."""

    max_plies = 2

    def __init__(self) -> None:
        self.calls: list[int] = []

    def evaluate(self, boards: np.ndarray, checkers: int = 15, plies: int = 0) -> np.ndarray:
        boards = np.asarray(boards)
        self.calls.append(plies)
        mine = boards[:, 0] @ PIPS
        theirs = boards[:, 1] @ PIPS
        out = np.zeros((len(boards), 5))
        out[:, 0] = 1.0 / (1.0 + np.exp(-(theirs - mine + 4.0) / 10.0))
        return out
