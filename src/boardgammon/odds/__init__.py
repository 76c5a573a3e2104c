"""The chances players count at the board, exactly, from the engine's own legal plays over the
36 rolls: hitting a blot (:func:`hit_count`, direct and indirect shots apart by
:func:`split_shots`), entering from the bar (:func:`enter_count`) and
bearing off in one roll (:func:`bear_off_count`). Each answer is a :class:`RollCount`: the
rolls that do it, so the counting can be shown, and how many of the 36 that is.

Depends on :mod:`boardgammon.engine` only; the rules (what a legal play is) stay there.
"""

from .counting import (
    MAX_DISTANCE,
    InvalidOddsQuery,
    RollCount,
    bear_off_count,
    enter_count,
    hit_count,
    split_shots,
)

__all__ = [
    "MAX_DISTANCE",
    "InvalidOddsQuery",
    "RollCount",
    "bear_off_count",
    "enter_count",
    "hit_count",
    "split_shots",
]
