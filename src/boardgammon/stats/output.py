"""How exact odds are written out: a fraction in lowest terms plus a float for reading."""

from __future__ import annotations

from fractions import Fraction


def fraction_text(x: Fraction) -> str:
    """``"p/q"`` in lowest terms, always with a denominator (``Fraction(1)`` gives ``"1/1"``)."""
    return f"{x.numerator}/{x.denominator}"


def as_percent(x: Fraction) -> dict[str, str | float]:
    """``{"fraction": "p/q", "percent": 100·x}`` for a probability ``x``."""
    return {"fraction": fraction_text(x), "percent": float(x * 100)}


def as_value(x: Fraction) -> dict[str, str | float]:
    """``{"fraction": "p/q", "value": x}`` for an exact quantity that is not a probability."""
    return {"fraction": fraction_text(x), "value": float(x)}
