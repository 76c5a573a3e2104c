"""Exceptions of :mod:`boardgammon.stats`; each message says what was wrong and what is allowed."""


class StatsError(Exception):
    """Base class of every error raised by the dice statistics and odds."""


class InvalidQuery(StatsError, ValueError):
    """An odds question is out of range (e.g. zero rolls, a run longer than the rolls)."""


class InvalidDiceRecord(StatsError, ValueError):
    """A dice record cannot be read: missing columns, a die outside 1–6, no rolls at all."""
