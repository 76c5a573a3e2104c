"""Differential check against gnubg's own analysis of the same short match (0-ply).

The tolerances reflect the interim network weights (measured: correlation of per-play equity
losses about 0.7 and the same best play in a little over half of the unforced plays of bot
matches; the issue's targets are 10 % on error rates and 90 % on best plays, which
``make bench-analysis`` reports as the weights improve).
"""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.analysis_vs_gnubg import bot_match, compare, gnubg_analysis, gnubg_same_best
from boardgammon.analysis.analysis import analyse_match

pytestmark = pytest.mark.gnubg


def test_per_play_losses_follow_gnubgs_analysis():
    m = bot_match(3, length=3)
    theirs, _ = gnubg_analysis(m, 0)
    c = compare(analyse_match(m, plies=0), theirs)
    assert len(c["ours"]) >= 20
    ours, gnubg = np.array(c["ours"]), np.array(c["gnubg"])
    assert np.corrcoef(ours, gnubg)[0, 1] > 0.4
    assert np.mean(c["same_best"]) > 0.35
    # gnubg's lead of its best play over its second, one per compared play.
    margins = np.array(c["margins"])
    assert len(margins) == len(ours) and margins.min() >= 0
    # Where gnubg's best play leads by a tenth of a point (some plays), ours names it too,
    # all but rarely (here 7 of 8: the one missed led by 0.103); by 0.15, always.
    same = np.array(c["same_best"])
    assert (margins >= 0.1).sum() >= 3 and (margins >= 0.15).sum() >= 2
    assert same[margins >= 0.1].mean() >= 0.85
    assert all(same[margins >= 0.15])
    # What gnubg says our best play loses: nothing where both name it, more where they differ.
    lost = np.array(c["best_loss"])
    assert len(lost) == len(ours) and (lost[np.array(c["same_best"])] == 0).all()
    assert (lost[~np.array(c["same_best"])] > 0).mean() > 0.8
    # The two engines agree on which plays cost nothing much more often than not.
    assert np.mean((ours < 0.04) == (gnubg < 0.04)) > 0.6
    for p in c["players"].values():
        assert p["ours_unforced"] == p["gnubg_unforced"]
    # Luck per roll (cubeful, 0-ply, as gnubg's): measured 0.94-0.96 over 7-point matches.
    luck = np.array(c["luck"])
    assert len(luck) >= 30
    assert np.corrcoef(luck[:, 0], luck[:, 1])[0, 1] > 0.85
    assert np.abs(luck[:, 0] - luck[:, 1]).mean() < 0.06


def test_gnubg_yardstick_compares_its_own_two_depths():
    m = bot_match(3, length=3)
    shallow, _ = gnubg_analysis(m, 0)
    deep, _ = gnubg_analysis(m, 1)
    unforced = sum(1 for g in shallow["moves"] if g["best"] and g["n"] >= 2)
    itself = gnubg_same_best(shallow, shallow)
    assert [same for same, _, _ in itself] == [True] * unforced
    assert all(margin >= 0 and loss == 0 for _, margin, loss in itself)
    rows = gnubg_same_best(shallow, deep)
    assert len(rows) == unforced >= 20
    # One engine at 0 and 1 ply: most best plays agree (more than half), not all (their
    # orderings differ; 59 % on this match since the network of 2026-12-05 plays it, 78 % over
    # many: docs/neural.md).
    same = np.array([s for s, _, _ in rows])
    assert 0.5 < same.mean() < 1.0
    # Where 1-ply's best play leads by a tenth of a point, 0-ply names it too.
    clear = [s for s, margin, _ in rows if margin >= 0.1]
    assert clear and all(clear)
    # What 1-ply says 0-ply's best play loses: nothing where they agree, else mostly more.
    assert all(loss == 0 for s, _, loss in rows if s)
    assert all(0 <= loss < float("inf") for _, _, loss in rows)
    assert np.mean([loss > 0 for s, _, loss in rows if not s]) > 0.8
    with pytest.raises(ValueError, match="gnubg's runs list"):
        gnubg_same_best(shallow, {"moves": deep["moves"][:-1]})
