"""Dice statistics over the record and exact dice odds (backgammon doubles, Kniffel).

Pure computation: exact odds are :class:`fractions.Fraction` values (:mod:`.doubles`,
:mod:`.kniffel`); the record report (:mod:`.report`) uses numpy/scipy and exact or
numerically exact distributions (:mod:`.significance`); :mod:`.plot` draws it with matplotlib.
Depends on nothing else of Boardgammon's.
"""

from .doubles import DoublesOdds, doubles_odds, p_more_by, p_run
from .errors import InvalidDiceRecord, InvalidQuery, StatsError
from .kniffel import KniffelOdds, kniffel_odds

# The record report needs scipy (seconds to import on a loaded machine); `odds` needs none of it.
_LAZY = {"DiceRecord": ".record", "read_csv": ".record", "dice_report": ".report"}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        from importlib import import_module

        return getattr(import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DiceRecord",
    "DoublesOdds",
    "InvalidDiceRecord",
    "InvalidQuery",
    "KniffelOdds",
    "StatsError",
    "dice_report",
    "doubles_odds",
    "kniffel_odds",
    "p_more_by",
    "p_run",
    "read_csv",
]
