"""Exceptions of :mod:`boardgammon.ratings`; each message says what was wrong and what is
allowed."""


class RatingError(ValueError):
    """A rating question out of range: a match length below 1, a deviation or volatility not
    above 0."""
