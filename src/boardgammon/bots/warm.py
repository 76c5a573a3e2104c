"""Compiling ahead of play: :func:`warm_up`.

The bots, the rules engine's batch move generation and the match analysis run numba-compiled
code. numba compiles a function the first time it is called, or loads it from its on-disk cache
(``__pycache__`` beside the source) once that exists. Compiling them all takes some 15 s on
this 2-core machine and holds the GIL throughout, so a server that compiled on the first
computer move froze every match for that long (a fresh user saw a 15 s answer to an unrelated
request). A server calls :func:`warm_up` before it accepts connections instead.
"""

from __future__ import annotations

import threading
import time

import numpy as np

from boardgammon.bots import exact_cube
from boardgammon.bots.base import create, levels
from boardgammon.cube import Context, CubeOwner
from boardgammon.engine import movegen
from boardgammon.engine.board import Board

_LOCK = threading.Lock()
_DONE = False


def warm_up() -> float:
    """Compile (or load from numba's cache) everything the computer levels and the match
    analysis run, and load the bear-off database, by taking one of each kind of decision at
    each level in a contact position and in a race. Once per process; later calls return at
    once. Thread-safe.

    Returns:
        seconds it took (0.0 when already done).
    """
    global _DONE
    with _LOCK:
        if _DONE:
            return 0.0
        started = time.perf_counter()
        contact = Board.initial()
        race = Board([[2] * 6 + [0] * 19, [2] * 6 + [0] * 19])  # both sides bearing off
        contexts = (Context(length=5),
                    Context(length=5, cube_value=2, cube_owner=CubeOwner.ME))
        for level in levels():
            bot = create(level, seed=0)
            for board in (contact, race):
                for context in contexts:
                    bot.choose_play(board, (6, 5), context)
                    bot.double(board, context)
                    bot.take(board, context)
                    bot.resign(board, context)
                    bot.accept_resignation(board, context, 1)
        # The batch generator (the analysis's luck of each roll).
        boards = np.stack([contact.array, race.array])
        out = np.empty((256, 2, 25), dtype=np.int8)
        movegen.generate_batch(boards, np.array([[3, 1], [6, 6]], dtype=np.int64), out,
                               np.empty(3, dtype=np.int64))
        # The exact cube of short bear-offs (eval, rollout and the analysis' cube decisions).
        exact_cube.cube_values(Board.from_points({1: 1}, {1: 1}), Context())
        _DONE = True
        return time.perf_counter() - started
