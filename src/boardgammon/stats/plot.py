"""A picture of the dice report: the 6 × 6 table and each face's share with its 95 % interval."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from .errors import InvalidQuery

FORMATS = (".png", ".svg")


def plot_report(report: dict, path: str | Path) -> Path:
    """Draw a :func:`~boardgammon.stats.report.dice_report` dict to ``path`` (PNG or SVG, by
    suffix). Left: each ordered outcome's count, coloured by its percentage above or below the
    fair expectation n/36. Right: each face's share of all dice with its 95 % Wilson interval,
    against the fair 1/6.

    Raises:
        InvalidQuery: the suffix is not ``.png`` or ``.svg``, or the file cannot be written
            (missing folder, no permission).
    """
    path = Path(path)
    if path.suffix.lower() not in FORMATS:
        raise InvalidQuery(f"plot file must end in {' or '.join(FORMATS)}, got {path.name!r}")
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
            f"{int(count):,}",
            ha="center",
            va="center",
            fontsize=7,
            color="white" if dark else "black",
        )
    ticks = np.arange(6)
    cells.set_xticks(ticks, [str(f) for f in range(1, 7)])
    cells.set_yticks(ticks, [str(f) for f in range(1, 7)])
    cells.set_xlabel("second die")
    cells.set_ylabel("first die")
    cells.set_title(f"{report['rolls']:,} rolls: count per ordered outcome")
    fig.colorbar(image, ax=cells, label="% above (red) / below (blue) n/36")

    rows = report["faces"]
    share = np.array([100 * r["share"] for r in rows])
    low = share - np.array([100 * r["ci95"][0] for r in rows])
    high = np.array([100 * r["ci95"][1] for r in rows]) - share
    faces.errorbar(ticks + 1, share, yerr=[low, high], fmt="o", capsize=4, label="share, 95 % CI")
    faces.axhline(100 / 6, color="grey", linestyle="--", label="fair: 1/6")
    faces.set_xticks(ticks + 1)
    faces.set_xlabel("face")
    faces.set_ylabel("% of all dice")
    faces.set_title(f"{report['dice']:,} dice: share of each face")
    faces.legend(loc="best")
    try:
        fig.savefig(path)
    except OSError as exc:
        raise InvalidQuery(f"cannot write the plot to {path}: {exc.strerror}") from None
    return path
