"""Ctrl-C at a safe point: long commands that must stop between two steps (never inside one,
where compiled code may have half-updated their state) read a flag instead of catching
``KeyboardInterrupt`` wherever it lands."""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def deferred_interrupt() -> Iterator[Callable[[], bool]]:
    """Within the block, Ctrl-C (SIGINT) only sets a flag; yields the function that reads it.
    The previous handler is back after the block. Outside the main thread (where Python
    cannot set handlers) the flag stays false and Ctrl-C behaves as before."""
    caught = [False]

    def note(signum, frame) -> None:
        caught[0] = True

    try:
        previous = signal.signal(signal.SIGINT, note)
    except ValueError:  # not the main thread
        yield lambda: False
        return
    try:
        yield lambda: caught[0]
    finally:
        signal.signal(signal.SIGINT, previous)


@contextmanager
def held_interrupt() -> Iterator[None]:
    """Within the block, Ctrl-C waits: the block runs to its end, then ``KeyboardInterrupt``
    is raised if Ctrl-C came meanwhile. For bookkeeping that must not be cut in two (a game
    counted in a summary and written to its record)."""
    with deferred_interrupt() as interrupted:
        yield
    if interrupted():
        raise KeyboardInterrupt
