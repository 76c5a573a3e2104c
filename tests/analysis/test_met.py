"""The computed match equity table: boundary values, symmetry, monotonicity, published values."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from boardgammon.analysis import met

KAZAROSS = Path("/usr/share/gnubg/met/Kazaross-XG2.xml")


def test_boundaries():
    assert met.match_equity(1, 1) == 0.5
    assert met.match_equity(0, 5) == 1.0 and met.match_equity(5, 0) == 0.0
    assert all(met.match_equity(n, n) == 0.5 for n in range(1, 16))
    # Post-Crawford, 2-away against 1-away: the trailer doubles; one game decides.
    assert met.match_equity(2, 1, post_crawford=True) == pytest.approx(0.5)
    with pytest.raises(TypeError):
        met.match_equity(2.5, 3)
    with pytest.raises(ValueError):
        met.table(0)


def test_symmetry_and_monotonicity():
    t = met.table(15)
    assert np.allclose(t + t.T, 1.0)
    assert (np.diff(t, axis=0) < 0).all()  # needing more points is worse
    assert (np.diff(t, axis=1) > 0).all()  # the opponent needing more is better
    assert ((t > 0) & (t < 1)).all()


@pytest.mark.parametrize(("a", "b", "published"), [
    (1, 2, 0.677), (2, 3, 0.599), (2, 4, 0.669), (3, 4, 0.572), (3, 5, 0.648),
    (4, 7, 0.699), (5, 7, 0.626), (7, 11, 0.700)])
def test_close_to_published_kazaross_values(a, b, published):
    # Kazaross-XG2 MET (Neil Kazaross 2011, XG and gnubg rollouts), as shipped with gnubg.
    assert met.match_equity(a, b) == pytest.approx(published, abs=0.02)


@pytest.mark.skipif(not KAZAROSS.exists(), reason="gnubg's MET files are not installed")
def test_whole_table_close_to_kazaross_xg2():
    text = KAZAROSS.read_text()
    pre = text.split("<pre-crawford-table")[1].split("</pre-crawford-table>")[0]
    rows = [[float(v) for v in re.findall(r"<me>([0-9.]+)</me>", r)]
            for r in pre.split("<row>")[1:]]
    ref = np.array(rows)[:11, :11]
    diff = np.abs(met.table(11) - ref)
    assert diff.max() < 0.025 and diff.mean() < 0.01
