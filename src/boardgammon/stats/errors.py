"""Exceptions of :mod:`boardgammon.stats`; each message says what was wrong and what is allowed."""


class StatsError(Exception):
    """Base class of every error raised by the dice statistics and odds."""


class InvalidQuery(StatsError, ValueError):
    """An odds question is out of range (e.g. zero rolls, a run longer than the rolls).
    ``code`` names the rule broken (empty where no page asks it) and ``fields`` its figures, so
    that a page can say it in its own language."""

    def __init__(self, message: str, code: str = "", **fields: object) -> None:
        super().__init__(message)
        self.code = code
        self.fields = fields


class InvalidDiceRecord(StatsError, ValueError):
    """A dice record cannot be read: missing columns, a die outside 1–6, no rolls at all."""
