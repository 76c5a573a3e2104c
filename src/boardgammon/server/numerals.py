"""Numbers as each page language writes them: ``1,234.5`` and ``44.44%`` in English,
``1.234,5`` and ``44,44 %`` in German (decimal comma, a point between thousands, a space
before the percent sign, as DIN 5008 and the Duden write them), ``1,234.5`` and ``44.44%`` in
Japanese (as JIS Z 8301 and Japanese newspapers write them).

The server-rendered pages get one :class:`Numerals` per request as ``num`` (see
:func:`boardgammon.server.i18n.page_context`): ``{{ num.percent(0.4444) }}``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction


@dataclass(frozen=True)
class Numerals:
    """How one language writes numbers: its decimal mark, the mark between groups of three
    digits, and what goes between a number and ``%``."""

    decimal_mark: str
    group_mark: str
    percent_sign: str

    def _marks(self, text: str) -> str:
        """``text`` written by Python's ``,`` / ``.`` formatting, in this language's marks."""
        return text.translate({ord(","): self.group_mark, ord("."): self.decimal_mark})

    def integer(self, n: int) -> str:
        """A whole number with its thousands grouped: ``12345`` → ``12,345`` / ``12.345``."""
        return self._marks(f"{n:,}")

    def decimal(self, x: float | Fraction, places: int = 2, *, sign: bool = False) -> str:
        """``x`` (exact odds come as fractions) with ``places`` decimals (grouped thousands);
        ``sign``: always a ``+`` or a minus sign (U+2212) in front, as the analysis page
        (web/analysis.js ``signed``) writes a signed figure."""
        text = self._marks(f"{float(x):{'+' if sign else ''},.{places}f}")
        return "\u2212" + text[1:] if sign and text.startswith("-") else text

    def percent(self, fraction: float | Fraction, places: int = 2, *, sign: bool = False) -> str:
        """``fraction`` (0…1) in percent: ``0.4444`` → ``44.44%`` / ``44,44 %``."""
        return self.decimal(fraction * 100, places, sign=sign) + self.percent_sign

    def percent_figure(self, percent: float, places: int = 2, *, sign: bool = False) -> str:
        """A figure that is already in percent (``4.6`` → ``4.60%``)."""
        return self.decimal(percent, places, sign=sign) + self.percent_sign

    def probability(self, p: float) -> str:
        """A p-value: four decimals down to 0.0001, then two significant digits in
        scientific notation (``1.2e-05``), and ``< 1e-308`` for one too small for a float."""
        if p == 0:
            return "< 1e-308"
        if p >= 0.00005:
            return self.decimal(p, 4)
        mantissa, exponent = f"{p:.1e}".split("e")
        return f"{self._marks(mantissa)}e{exponent}"

    def short(self, x: float) -> str:
        """A figure written as short as it is (``2.5``, ``30``), in this language's marks."""
        if math.isfinite(x) and x == int(x):
            return self.integer(int(x))
        return self._marks(f"{x:,g}")


NUMERALS = {
    "en": Numerals(decimal_mark=".", group_mark=",", percent_sign="%"),
    "de": Numerals(decimal_mark=",", group_mark=".", percent_sign="\u00a0%"),
    "ja": Numerals(decimal_mark=".", group_mark=",", percent_sign="%"),
}
"""Each page language's :class:`Numerals`, by the codes of
:data:`boardgammon.server.i18n.LANGUAGES`."""
