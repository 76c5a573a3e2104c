"""Dice statistics over the record and exact dice odds (backgammon doubles, Kniffel).

Pure computation: exact odds are :class:`fractions.Fraction` values (:mod:`.doubles`,
:mod:`.kniffel`); the record report (:mod:`.report`) uses numpy/scipy and exact or
numerically exact distributions (:mod:`.significance`); :mod:`.plot` draws it with matplotlib.
Depends on nothing else of Boardgammon's.
"""

from .doubles import DoublesOdds, doubles_odds, p_more_by, p_run
from .errors import InvalidQuery, InvalidRecord, StatsError
from .kniffel import KniffelOdds, kniffel_odds
from .record import DiceRecord, read_csv
from .report import dice_report

__all__ = [
    "DiceRecord",
    "DoublesOdds",
    "InvalidQuery",
    "InvalidRecord",
    "KniffelOdds",
    "StatsError",
    "dice_report",
    "doubles_odds",
    "kniffel_odds",
    "p_more_by",
    "p_run",
    "read_csv",
]
