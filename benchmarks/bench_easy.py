"""Easy bot: self-play games per second, and where the time goes.

1. Easy against easy, money play (cube and resignations in use), games per second, beside the
   reference measured in the same run: the same driver and dice with both sides playing a
   uniformly random legal play and never doubling (the floor set by play generation and the
   match engine).
2. The share of the easy run's time spent in play generation (``Board.legal_plays``, which
   builds every legal play and its resulting position) and in evaluation (the feature model
   and the race formula: ``easy.win_probability`` and ``cube.race_estimate``); the rest is the
   match engine, the driver and the cube arithmetic.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from contextlib import contextmanager

from boardgammon.bots import Bot, Context, RankedPlay, create
from boardgammon.bots import easy as easy_module
from boardgammon.commands.selfplay import run
from boardgammon.cube import heuristic as cube_module
from boardgammon.engine import Board

GAMES = 40
SEED = 1


class RandomBot(Bot):
    """The reference: a random legal play, no cube, no resignations, takes everything."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self._rng = random.Random(seed)

    def rank_plays(self, board: Board, dice: tuple[int, int],
                   context: Context) -> list[RankedPlay]:
        return [RankedPlay(p, 0.0) for p in board.legal_plays(*dice)]

    def choose_play(self, board, dice, context):
        return self._rng.choice(board.legal_plays(*dice))

    def double(self, board, context):
        return False

    def take(self, board, context):
        return True

    def accept_resignation(self, board, context, points):
        return True

    def resign(self, board, context):
        return None


@contextmanager
def timed(owner: object, name: str, totals: dict[str, float], key: str):
    """Accumulate the time spent in ``owner.name`` into ``totals[key]`` while in the block."""
    original: Callable = getattr(owner, name)

    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            totals[key] += time.perf_counter() - start

    setattr(owner, name, wrapper)
    try:
        yield
    finally:
        setattr(owner, name, original)


def games_per_second(white: Bot, black: Bot) -> tuple[float, float]:
    summary = run(white, black, GAMES, 0, random.Random(SEED))
    return summary.games_per_second, summary.seconds


def main() -> None:
    # Warm up numba and numpy paths outside the measurements.
    run(create("easy", 0), create("easy", 0), 1, 0, random.Random(0))

    reference, _ = games_per_second(RandomBot(SEED), RandomBot(SEED + 1))
    totals = {"generation": 0.0, "evaluation": 0.0}
    with timed(Board, "legal_plays", totals, "generation"), \
            timed(easy_module, "win_probability", totals, "evaluation"), \
            timed(cube_module, "race_estimate", totals, "evaluation"):
        easy, seconds = games_per_second(create("easy", SEED), create("easy", SEED + 1))
    print(f"easy self-play:   {easy:8.2f} games/s  ({GAMES} money games)")
    print(f"random self-play: {reference:8.2f} games/s  (reference: random legal plays, no cube)")
    print(f"ratio easy / random: {easy / reference:.3f}")
    print(f"time in play generation: {totals['generation'] / seconds:6.1%}")
    print(f"time in evaluation:      {totals['evaluation'] / seconds:6.1%}")
    print(f"other (engine, driver, cube): "
          f"{1 - (totals['generation'] + totals['evaluation']) / seconds:6.1%}")


if __name__ == "__main__":
    main()
