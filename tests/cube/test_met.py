"""The match equity table: the published Kazaross-XG2 values as shipped, the cube model that
extends them beyond 25 points and, alone, reproduces them closely; boundaries, symmetry,
monotonicity."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from boardgammon.cube import met

KAZAROSS = Path("/usr/share/gnubg/met/Kazaross-XG2.xml")


def test_boundaries():
    assert met.match_equity(1, 1) == 0.5
    assert met.match_equity(0, 5) == 1.0 and met.match_equity(5, 0) == 0.0
    assert all(met.match_equity(n, n) == 0.5 for n in range(1, 16))
    # Post-Crawford, 2-away against 1-away: the trailer doubles; one game decides. The cube
    # model says a half; the published rollouts 0.488 (the leader may move first).
    assert met.match_equity(2, 1, post_crawford=True, published=False) == pytest.approx(0.5)
    assert met.match_equity(2, 1, post_crawford=True) == 0.48803
    with pytest.raises(TypeError):
        met.match_equity(2.5, 3)
    with pytest.raises(TypeError):
        met.match_equity(True, 3)
    with pytest.raises(ValueError):
        met.table(0)


@pytest.mark.parametrize("published", [True, False])
def test_symmetry_and_monotonicity(published):
    # 40 points: across the published table's edge at 25, where the cube model takes over.
    t = met.table(40, published=published)
    assert np.allclose(t + t.T, 1.0)
    assert (np.diff(t, axis=0) < 0).all()  # needing more points is worse
    assert (np.diff(t, axis=1) > 0).all()  # the opponent needing more is better
    assert ((t > 0) & (t < 1)).all()
    post = [met.match_equity(n, 1, True, published) for n in range(1, 41)]
    assert (np.diff(post) <= 0).all() and post[-1] > 0


@pytest.mark.parametrize(("a", "b", "published"), [
    (1, 2, 0.677), (2, 3, 0.599), (2, 4, 0.669), (3, 4, 0.572), (3, 5, 0.648),
    (4, 7, 0.699), (5, 7, 0.626), (7, 11, 0.700)])
def test_published_values_and_cube_model_close_to_them(a, b, published):
    # Kazaross-XG2 MET (Neil Kazaross 2011, XG and gnubg rollouts), as shipped with gnubg.
    assert met.match_equity(a, b) == pytest.approx(published, abs=0.0005)
    assert met.match_equity(a, b, published=False) == pytest.approx(published, abs=0.02)


def _kazaross(text: str) -> tuple[np.ndarray, np.ndarray]:
    """(pre-Crawford table, post-Crawford row) of a gnubg MET file, read independently of
    :func:`met.published_table` (by regular expressions rather than an XML parser)."""
    pre, post = (text.split(f"<{t}-crawford-table")[1].split(f"</{t}-crawford-table>")[0]
                 for t in ("pre", "post"))
    rows = [[float(v) for v in re.findall(r"<me>([0-9.]+)</me>", r)]
            for r in pre.split("<row>")[1:]]
    return np.array(rows), np.array([float(v) for v in re.findall(r"<me>([0-9.]+)</me>", post)])


def test_shipped_table_is_read_whole():
    pre, post = _kazaross((Path(met.__file__).parent / "data" / "Kazaross-XG2.xml").read_text())
    assert pre.shape == (25, 25) and post.shape == (25,)
    assert (met.table(25) == pre).all()
    assert [met.match_equity(n, 1, True) for n in range(1, 26)] == list(post)
    assert [met.match_equity(1, n, True) for n in range(2, 26)] == list(1 - post[1:])
    assert met.match_equity(26, 2) < met.match_equity(25, 2)


@pytest.mark.skipif(not KAZAROSS.exists(), reason="gnubg's MET files are not installed")
def test_shipped_table_is_gnubgs_and_the_cube_model_close_to_it():
    # The copy in the package is the file gnubg installs, notice included.
    shipped = (Path(met.__file__).parent / "data" / "Kazaross-XG2.xml").read_bytes()
    assert shipped == KAZAROSS.read_bytes()
    ref, _ = _kazaross(KAZAROSS.read_text())
    diff = np.abs(met.table(11, published=False) - ref[:11, :11])
    assert diff.max() < 0.025 and diff.mean() < 0.01


def test_take_points_follow_the_positions_own_gammons():
    # The default knots are the table's typical game; with more of our wins gammons the
    # opponent's take is worse, so we cash (our upper knot) at a lower winning chance; with
    # more of our losses gammons their cash point (our lower knot) comes at a higher one.
    typical = met.cube_knots(5, 5)[(1, "centre")]
    assert met.cube_knots(5, 5, (met.GAMMON_RATE, met.GAMMON_RATE))[(1, "centre")] == typical
    (lo0, _), (hi0, _) = met.cube_knots(5, 5, (0.0, 0.0))[(1, "centre")]
    (_, _), (hi1, _) = met.cube_knots(5, 5, (0.5, 0.0))[(1, "centre")]
    (lo2, _), (_, _) = met.cube_knots(5, 5, (0.0, 0.5))[(1, "centre")]
    assert hi1 < hi0 - 0.02 and lo2 > lo0 + 0.02
    # Without gammons at 5-away 5-away the take point is near the money game's 20-25 %.
    assert 0.17 < lo0 < 0.3 and 0.7 < hi0 < 0.83
