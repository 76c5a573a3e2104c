"""Numbers and plurals as each page language writes them (server/numerals.py, the plural forms
of server/i18n.py): German decimal commas, Japanese and English points, and no "1 rolls" or
"of 1 times" in any language."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from boardgammon.server.i18n import MESSAGES, plural_category, translator
from boardgammon.server.numerals import NUMERALS

EN, DE, JA = NUMERALS["en"], NUMERALS["de"], NUMERALS["ja"]


def test_each_language_writes_its_own_marks():
    assert (EN.decimal(1234.5), DE.decimal(1234.5), JA.decimal(1234.5)) == (
        "1,234.50",
        "1.234,50",
        "1,234.50",
    )
    assert (
        EN.percent(Fraction(17, 36)),
        DE.percent(Fraction(17, 36)),
        JA.percent(Fraction(17, 36)),
    ) == ("47.22%", "47,22\u00a0%", "47.22%")
    assert (EN.integer(12345), DE.integer(12345)) == ("12,345", "12.345")
    assert DE.percent_figure(4.6, sign=True) == "+4,60\u00a0%"
    # a signed figure as the analysis page writes it (web/analysis.js): a real minus sign
    assert (EN.percent(-0.1, 1, sign=True), DE.percent(-0.1, 1, sign=True)) == (
        "\u221210.0%",
        "\u221210,0\u00a0%",
    )
    assert (EN.decimal(12.25, 1, sign=True), EN.decimal(-0.04, 1, sign=True)) == (
        "+12.2",
        "\u22120.0",
    )
    assert DE.probability(0.04321) == "0,0432" and DE.probability(1.234e-7) == "1,2e-07"
    assert EN.probability(1.234e-7) == "1.2e-07" and DE.probability(0.0) == "< 1e-308"
    assert (DE.short(2.5), DE.short(30), EN.short(12.5)) == ("2,5", "30", "12.5")


def read_german(text: str) -> float:
    return float(text.replace(".", "").replace(",", "."))


@given(st.floats(min_value=-1e9, max_value=1e9, allow_nan=False), st.integers(0, 4))
def test_german_is_english_with_the_marks_swapped(x, places):
    english, german = EN.decimal(x, places), DE.decimal(x, places)
    assert german == english.translate({ord(","): ".", ord("."): ","})
    assert read_german(german) == float(english.replace(",", ""))
    assert abs(read_german(german) - x) <= 0.5 * 10**-places + 1e-6 * abs(x)


@given(st.integers(0, 10**9))
def test_counts_group_thousands(n):
    assert int(EN.integer(n).replace(",", "")) == n == int(DE.integer(n).replace(".", ""))


def test_plural_categories():
    assert [plural_category("en", n) for n in (0, 1, 2)] == ["other", "one", "other"]
    assert [plural_category("de", n) for n in (0, 1, 2)] == ["other", "one", "other"]
    assert {plural_category("ja", n) for n in (0, 1, 2, 21)} == {"other"}


def test_every_plural_text_has_the_forms_its_language_needs():
    for code, table in MESSAGES.items():
        for key, text in table.items():
            if isinstance(text, dict):
                needed = {"one", "other"} if code in ("en", "de") else {"other"}
                assert set(text) == needed, (code, key)
                assert isinstance(MESSAGES["en"][key], dict), key


def test_after_a_double_in_one_case_and_in_many():
    fields = {"doubles": "1", "share": "100%", "p": "0.17", "verdict": "fair"}
    one = {
        code: translator(code)("record.after_double", plural=1, rolls="1", **fields)
        for code in MESSAGES
    }
    assert "in 1 of 1 case (" in one["en"] and "times" not in one["en"]
    assert "in 1 von 1 Fall ein Pasch" in one["de"]
    assert "1 回中 1 回" in one["ja"]
    many = translator("en")("record.after_double", plural=3, rolls="3", **fields)
    assert "in 1 of 3 cases (" in many
    assert "in 1 von 3 Fällen" in translator("de")(
        "record.after_double", plural=3, rolls="3", **fields
    )
