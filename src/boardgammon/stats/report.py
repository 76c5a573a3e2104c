"""The dice record report: counts, chi-square, look-elsewhere-aware extremes, order tests.

:func:`dice_report` turns a :class:`~boardgammon.stats.record.DiceRecord` into one
JSON-ready dict (the output of ``boardgammon stats dice-report --json``); :func:`summary`
words it for people. Every p-value is for fair dice (each of the 36 ordered outcomes 1/36,
rolls independent); none is simulated.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from scipy import stats

from .record import Categories, DiceRecord
from .significance import (
    chi_square_uniform,
    longest_run_test,
    p_binomial_deviation_at_least,
    p_deviation_at_least,
    p_max_at_least,
)

FACES = 6
CELLS = FACES * FACES
DOUBLE = 1 / 6


def cell_index(die1: np.ndarray, die2: np.ndarray) -> np.ndarray:
    """``intp[N]`` ordered outcome of each roll, 0…35: 6 × (first die − 1) + (second die − 1)."""
    return (die1.astype(np.intp) - 1) * FACES + (die2 - 1)


def cell_table(die1: np.ndarray, die2: np.ndarray) -> np.ndarray:
    """``int64[6, 6]`` counts of ordered outcomes: row = first die − 1, column = second die − 1."""
    return np.bincount(cell_index(die1, die2), minlength=CELLS).reshape(FACES, FACES)


def face_counts(table: np.ndarray) -> np.ndarray:
    """``int64[6]`` count of each face over both dice, from the 6 × 6 table."""
    return table.sum(axis=0) + table.sum(axis=1)


def wilson_interval(successes: int, trials: int) -> tuple[float, float]:
    """95 % Wilson score interval of a proportion (E. B. Wilson, JASA 22 (1927) 209–212)."""
    ci = stats.binomtest(int(successes), int(trials)).proportion_ci(0.95, method="wilson")
    return float(ci.low), float(ci.high)


def _share(successes: int, trials: int, p: float = DOUBLE) -> dict:
    """Count, share, 95 % interval and two-sided exact binomial p-value against ``p``."""
    low, high = wilson_interval(successes, trials)
    return {
        "rolls": int(trials),
        "doubles": int(successes),
        "share": successes / trials,
        "ci95": [low, high],
        "p": float(stats.binomtest(int(successes), int(trials), p).pvalue),
    }


def _max_cell(table: np.ndarray) -> dict:
    n = int(table.sum())
    flat = table.ravel()
    top = int(flat.argmax())
    count = int(flat[top])
    expected = n / CELLS
    return {
        "outcome": f"{top // FACES + 1}-{top % FACES + 1}",
        "count": count,
        "expected": expected,
        "excess_percent": 100 * (count / expected - 1),
        # Chance that *some* outcome is this far up, versus that one outcome named beforehand is.
        "p_look_elsewhere": p_max_at_least(n, CELLS, count),
        "p_naive": float(stats.binom.sf(count - 1, n, 1 / CELLS)),
        "method": "exact (Levin 1981 representation of the multinomial maximum), not simulated",
    }


def _max_face(faces: np.ndarray) -> dict:
    dice = int(faces.sum())
    mean = Fraction(dice, FACES)
    deviations = [abs(Fraction(int(c)) - mean) for c in faces]
    face = int(np.argmax([float(d) for d in deviations]))
    deviation = deviations[face]
    return {
        "face": face + 1,
        "count": int(faces[face]),
        "share": int(faces[face]) / dice,
        "deviation_percent_points": 100 * float(deviation) / dice,
        "p_look_elsewhere": p_deviation_at_least(dice, FACES, deviation),
        "p_naive": p_binomial_deviation_at_least(dice, Fraction(1, FACES), deviation),
        "method": "exact (Levin 1981 representation, two-sided), not simulated",
    }


def _order_tests(parts: list[tuple[np.ndarray, np.ndarray]]) -> dict:
    """Doubles right after doubles and the longest run of doubles.

    ``parts``: ``(doubles, match)`` of disjoint parts of the record (the whole record, or each
    seat's rolls), each in the order of play with a match's rolls contiguous. A sequence is
    one match within one part; nothing follows across sequences.
    """
    lengths = []
    after = np.zeros(2, dtype=np.int64)  # rolls after a double, doubles among them
    other = np.zeros(2, dtype=np.int64)  # the same after a non-double
    longest = 0
    for seq, match in parts:
        if not len(seq):
            continue
        start = np.r_[True, match[1:] != match[:-1]]
        lengths.append(np.diff(np.r_[np.flatnonzero(start), len(seq)]))
        follows, previous, nxt = ~start[1:], seq[:-1], seq[1:]
        after += [np.count_nonzero(follows & previous), np.count_nonzero(follows & previous & nxt)]
        other += [
            np.count_nonzero(follows & ~previous),
            np.count_nonzero(follows & ~previous & nxt),
        ]
        if seq.any():
            # A run of doubles is numbered by the breaks (non-doubles, sequence starts) before it.
            run_id = np.cumsum(~seq | start)
            longest = max(longest, int(np.bincount(run_id[seq]).max()))
    all_lengths = np.concatenate(lengths)
    return {
        "sequences": int(len(all_lengths)),
        "after_double": _share(int(after[1]), int(after[0])) if after[0] else None,
        "after_non_double_share": float(other[1] / other[0]) if other[0] else None,
        "longest_run": longest_run_test(all_lengths, longest),
    }


def _split(cells: np.ndarray, groups: Categories) -> list[dict]:
    """Doubles share and chi-squares of each group's rolls (seats, entropy sources)."""
    tables = np.bincount(
        groups.codes * CELLS + cells, minlength=len(groups.labels) * CELLS
    ).reshape(-1, FACES, FACES)
    out = []
    for label, table in zip(groups.labels, tables, strict=True):
        rolls = int(table.sum())
        if rolls:
            out.append(
                {
                    "label": label,
                    **_share(int(np.trace(table)), rolls),
                    "chi2_cells": chi_square_uniform(table).as_json(),
                    "chi2_faces": chi_square_uniform(face_counts(table)).as_json(),
                }
            )
    return out


def dice_report(record: DiceRecord) -> dict:
    """Everything ``boardgammon stats dice-report`` reports, as a JSON-ready dict.

    Keys: ``rolls``, ``dice``, ``table`` (6 × 6 ordered outcomes, rows = first die),
    ``doubles`` (count, share, 95 % interval, binomial p, and each double's count), ``faces``
    (count, share and 95 % Wilson interval per face), ``chi2_cells`` and ``chi2_faces``
    (``{"statistic", "df", "p"}``), ``max_cell`` and ``max_face`` (look-elsewhere-aware and
    naive p-values), ``order_tests`` (``by_match``; ``by_seat`` when seats are known:
    doubles right after doubles vs 1/6, longest run of doubles vs its exact distribution;
    ``seats`` and ``entropy_sources``: shares and chi-squares per group, when known).
    """
    die1, die2 = record.die1, record.die2
    n = len(record)
    cells = cell_index(die1, die2)
    table = np.bincount(cells, minlength=CELLS).reshape(FACES, FACES)
    faces = face_counts(table)
    doubles = die1 == die2
    n_doubles = int(np.trace(table))
    face_rows = []
    for face in range(FACES):
        low, high = wilson_interval(int(faces[face]), 2 * n)
        face_rows.append(
            {
                "face": face + 1,
                "count": int(faces[face]),
                "share": int(faces[face]) / (2 * n),
                "ci95": [low, high],
            }
        )
    order_tests: dict = {"by_match": _order_tests([(doubles, record.match)])}
    if record.seat is not None:
        masks = [record.seat.codes == code for code in range(len(record.seat.labels))]
        order_tests["by_seat"] = _order_tests([(doubles[m], record.match[m]) for m in masks])
        order_tests["seats"] = _split(cells, record.seat)
    if record.entropy_source is not None:
        order_tests["entropy_sources"] = _split(cells, record.entropy_source)
    return {
        "rolls": n,
        "dice": 2 * n,
        "table": table.tolist(),
        "expected_per_outcome": n / CELLS,
        "doubles": {
            **_share(n_doubles, n),
            "each": {f"{f}-{f}": int(table[f - 1, f - 1]) for f in range(1, FACES + 1)},
        },
        "faces": face_rows,
        "chi2_cells": chi_square_uniform(table).as_json(),
        "chi2_faces": chi_square_uniform(faces).as_json(),
        "max_cell": _max_cell(table),
        "max_face": _max_face(faces),
        "order_tests": order_tests,
    }


def verdict_level(p: float) -> str:
    """What a p-value says, in words a page can translate: ``"unlikely"`` below 0.001 (very
    unlikely with fair dice), ``"unusual"`` below 0.05 (about 1 test in 20 is this unusual by
    chance), else ``"fair"`` (well within what fair dice do)."""
    if p < 0.001:
        return "unlikely"
    if p < 0.05:
        return "unusual"
    return "fair"


_VERDICTS = {
    "unlikely": "very unlikely with fair dice",
    "unusual": "unusual for fair dice (though about 1 test in 20 is this unusual by chance)",
    "fair": "well within what fair dice do",
}


def _verdict(p: float) -> str:
    return _VERDICTS[verdict_level(p)]


def _rough(chi2: dict) -> str:
    """The caveat for a chi-square whose approximation does not hold (Cochran's rule)."""
    if chi2.get("approximation_ok", True):
        return ""
    return (f" — but only {chi2['expected']:.1f} are expected per cell, under the 5 the "
            "chi-square approximation needs, so this p-value is rough")


def _rolls(n: int) -> str:
    return f"{n:,} roll" if n == 1 else f"{n:,} rolls"


def summary(report: dict) -> list[str]:
    """Plain-language sentences on what a :func:`dice_report` shows and what it cannot show."""
    n = report["rolls"]
    doubles = report["doubles"]
    cells, faces = report["chi2_cells"], report["chi2_faces"]
    top, face = report["max_cell"], report["max_face"]
    half_width = 50 * (doubles["ci95"][1] - doubles["ci95"][0])
    lines = [
        f"{_rolls(n)} ({report['dice']:,} dice). Doubles: {doubles['doubles']:,} = "
        f"{100 * doubles['share']:.2f} % (fair dice: 16.67 %, p = {doubles['p']:.2g}).",
        f"The 36 ordered outcomes together (chi-square {cells['statistic']:.2f}, {cells['df']} df, "
        f"p = {cells['p']:.2g}): {_verdict(cells['p'])}{_rough(cells)}.",
        f"The six faces together (chi-square {faces['statistic']:.2f}, {faces['df']} df, "
        f"p = {faces['p']:.2g}): {_verdict(faces['p'])}{_rough(faces)}.",
        f"The commonest outcome, {top['outcome']}, is {top['excess_percent']:+.2f} % over the "
        f"average. Fair dice put some outcome that far up in {100 * top['p_look_elsewhere']:.1f} % "
        f"of counts of this size; an outcome named in advance only in "
        f"{100 * top['p_naive']:.2g} % — picking the extreme after looking makes it look rarer "
        "than it is.",
        f"The face furthest from 1/6 is {face['face']} ({100 * face['share']:.3f} %). Fair dice "
        f"put some face at least that far off in {100 * face['p_look_elsewhere']:.1f} % of counts "
        f"(a face named in advance: {100 * face['p_naive']:.2g} %).",
    ]
    order = report["order_tests"]["by_match"]
    if order["after_double"] is not None:
        after = order["after_double"]
        cases = "case" if after["rolls"] == 1 else "cases"
        lines.append(
            f"Right after a double, the next roll in the same match was a double "
            f"in {after['doubles']:,} of {after['rolls']:,} {cases} "
            f"({100 * after['share']:.2f} %; fair: 16.67 %, "
            f"p = {after['p']:.2g}): {_verdict(after['p'])}."
        )
    run = order["longest_run"]
    lines.append(
        f"The longest run of doubles was {run['length']} in a row; fair dice give a run at least "
        f"that long somewhere in this record with chance {100 * run['p_at_least']:.1f} %."
    )
    for key, name in (("seats", "seat"), ("entropy_sources", "entropy source")):
        for row in report["order_tests"].get(key, []):
            lines.append(
                f"Doubles for {name} {row['label']}: {100 * row['share']:.2f} % of "
                f"{_rolls(row['rolls'])} (p = {row['p']:.2g})."
            )
    lines.append(
        "What this cannot show: a high p-value means no sign of bias of a size this count can "
        f"detect, not proof of fairness (a doubles bias under about ±{half_width:.2f} "
        "percentage points could go unseen here); and no count can show whether a single roll "
        "was altered or chosen. That is what each roll's published commitment (the SHA-256 of "
        "its server seed, revealed afterwards) lets anyone check, roll by roll "
        "(boardgammon audit verify)."
    )
    return lines
