"""Positions reached by random play: a corpus for tests, benchmarks and training scripts."""

from __future__ import annotations

import numpy as np

from boardgammon.engine import Board, Variant
from boardgammon.engine.movegen import Generator


def random_play_positions(rng: np.random.Generator, count: int,
                          variant: Variant | str = Variant.STANDARD) -> list[Board]:
    """Positions reached by random play: a corpus for tests and benchmarks.

    Games start from ``variant``'s setup; each turn rolls two dice with ``rng`` and picks one of
    the legal plays uniformly; a finished game is followed by a new one. The engine has no
    randomness of its own, so the same ``rng`` state always gives the same corpus.

    Args:
        rng: the source of randomness, e.g. ``numpy.random.default_rng(seed)``.
        count: how many positions to return.
        variant: the setup games start from.

    Returns:
        ``count`` boards, each from the view of the player on roll, before the roll, in the
        order they occurred (repeats possible, no finished games).
    """
    start = Board.initial(variant)
    a = start.array.copy()
    generator = Generator()
    out: list[Board] = []
    while len(out) < count:
        out.append(Board(a, start.checkers))
        d1, d2 = (int(d) for d in rng.integers(1, 7, size=2))
        boards, _, _, _, keep, _ = generator.run(a, d1, d2)
        after = boards[rng.choice(np.nonzero(keep)[0])]
        a = after[::-1].copy()
        if a[1].sum() == 0:  # the mover bore off the last checker
            a = start.array.copy()
    return out
