"""A picture of the dice report: the 6 × 6 table and each face's share with its 95 % interval."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
from matplotlib import font_manager, rc_context
from matplotlib.figure import Figure
from matplotlib.ticker import ScalarFormatter

from .errors import InvalidQuery

FORMATS = (".png", ".svg")

FONTS = ["DejaVu Sans", "IPAGothic"]
"""Fonts in the order matplotlib tries them for each character: Latin from DejaVu (matplotlib's
own), Japanese from IPA Gothic (Debian's ``fonts-ipafont-gothic``, which ``make system-deps``
installs); a font that is not installed is left out (:func:`_fonts`)."""


@cache
def _fonts() -> list[str]:
    """:data:`FONTS` that are installed: matplotlib logs a line for every character it looks up
    in a family it cannot find (hundreds a picture)."""
    installed = {entry.name for entry in font_manager.fontManager.ttflist}
    return [f for f in FONTS if f in installed] or ["DejaVu Sans"]


def _grouped(n: int) -> str:
    return f"{n:,}"


@dataclass(frozen=True)
class PlotWords:
    """The words of the picture, English by default (the server passes each language's, from
    :mod:`boardgammon.server.i18n`). ``cells`` and ``faces`` are titles with ``{rolls}`` and
    ``{dice}``, filled in with ``number`` (an ``int`` → its text: thousands grouped as the
    language groups them); the axes' decimals are written with ``decimal_mark``."""

    cells: str = "{rolls} rolls: count per ordered outcome"
    second_die: str = "second die"
    first_die: str = "first die"
    colour_bar: str = "% above (red) / below (blue) n/36"
    faces: str = "{dice} dice: share of each face"
    face: str = "face"
    percent: str = "% of all dice"
    share: str = "share, 95% interval"
    fair: str = "fair: 1/6"
    number: Callable[[int], str] = _grouped
    decimal_mark: str = "."


class _Marked(ScalarFormatter):
    """Matplotlib's tick labels with another decimal mark (``16,75`` on a German page)."""

    def __init__(self, mark: str) -> None:
        super().__init__()
        self.mark = mark

    def __call__(self, x: float, pos: int | None = None) -> str:
        return super().__call__(x, pos).replace(".", self.mark)


def plot_report(report: dict, path: str | Path, words: PlotWords | None = None) -> Path:
    """Draw a :func:`~boardgammon.stats.report.dice_report` dict to ``path`` (PNG or SVG, by
    suffix), labelled with ``words`` (English without). Left: each ordered outcome's count,
    coloured by its percentage above or below the fair expectation n/36. Right: each face's
    share of all dice with its 95 % Wilson interval, against the fair 1/6.

    Raises:
        InvalidQuery: the suffix is not ``.png`` or ``.svg``, or the file cannot be written
            (missing folder, no permission).
    """
    path = Path(path)
    if path.suffix.lower() not in FORMATS:
        raise InvalidQuery(f"plot file must end in {' or '.join(FORMATS)}, got {path.name!r}")
    with rc_context({"font.family": _fonts()}):
        return _draw(report, path, words or PlotWords())


def _draw(report: dict, path: Path, words: PlotWords) -> Path:
    table = np.array(report["table"], dtype=float)
    excess = 100 * (table / report["expected_per_outcome"] - 1)
    limit = max(float(np.abs(excess).max()), 1e-9)

    # A bare Figure (no pyplot) so that drawing never needs a display or global state.
    fig = Figure(figsize=(11, 4.6), layout="constrained")
    cells, faces = fig.subplots(1, 2, width_ratios=(1.1, 1))
    image = cells.imshow(excess, cmap="RdBu_r", vmin=-limit, vmax=limit)
    for (row, col), count in np.ndenumerate(table):
        dark = abs(excess[row, col]) > 0.6 * limit  # white on the deepest colours, to stay legible
        cells.text(
            col,
            row,
            words.number(int(count)),
            ha="center",
            va="center",
            fontsize=7,
            color="white" if dark else "black",
        )
    ticks = np.arange(6)
    cells.set_xticks(ticks, [str(f) for f in range(1, 7)])
    cells.set_yticks(ticks, [str(f) for f in range(1, 7)])
    cells.set_xlabel(words.second_die)
    cells.set_ylabel(words.first_die)
    cells.set_title(words.cells.format(rolls=words.number(report["rolls"])))
    bar = fig.colorbar(image, ax=cells, label=words.colour_bar)
    bar.ax.yaxis.set_major_formatter(_Marked(words.decimal_mark))

    rows = report["faces"]
    share = np.array([100 * r["share"] for r in rows])
    low = share - np.array([100 * r["ci95"][0] for r in rows])
    high = np.array([100 * r["ci95"][1] for r in rows]) - share
    faces.errorbar(ticks + 1, share, yerr=[low, high], fmt="o", capsize=4, label=words.share)
    faces.axhline(100 / 6, color="grey", linestyle="--", label=words.fair)
    faces.set_xticks(ticks + 1)
    faces.set_xlabel(words.face)
    faces.set_ylabel(words.percent)
    faces.yaxis.set_major_formatter(_Marked(words.decimal_mark))
    faces.set_title(words.faces.format(dice=words.number(report["dice"])))
    faces.legend(loc="best")
    try:
        fig.savefig(path)
    except OSError as exc:
        raise InvalidQuery(f"cannot write the plot to {path}: {exc.strerror}") from None
    return path
