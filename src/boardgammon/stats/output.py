"""How exact odds are written out: a fraction in lowest terms plus a float for reading."""

from __future__ import annotations

import sys
from fractions import Fraction


def fraction_text(x: Fraction) -> str:
    """``"p/q"`` in lowest terms, always with a denominator (``Fraction(1)`` gives ``"1/1"``).

    Exact odds over thousands of rolls have denominators of 6**(N·G), tens of thousands of
    digits: Python's guard against slow int→str conversion of untrusted input (4,300 digits by
    default) is lifted for these numbers of our own and restored afterwards.
    """
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        return f"{x.numerator}/{x.denominator}"
    finally:
        sys.set_int_max_str_digits(limit)


def as_percent(x: Fraction) -> dict[str, str | float]:
    """``{"fraction": "p/q", "percent": 100·x}`` for a probability ``x``."""
    return {"fraction": fraction_text(x), "percent": float(x * 100)}


def as_value(x: Fraction) -> dict[str, str | float]:
    """``{"fraction": "p/q", "value": x}`` for an exact quantity that is not a probability."""
    return {"fraction": fraction_text(x), "value": float(x)}
