"""The one-sided bear-off database against brute force, known values and gnubg."""

from __future__ import annotations

import json
from functools import cache

import numpy as np
import pytest

from boardgammon.bots import bearoff
from boardgammon.engine import Board
from tests.helpers.gnubg import run_script


@cache
def brute_force(counts: tuple[int, ...]) -> tuple[float, ...]:
    """Distribution of rolls to bear off ``counts`` by plain recursion over the engine's legal
    plays, each roll's play minimising the expected number of rolls."""
    if sum(counts) == 0:
        return (1.0,) + (0.0,) * (bearoff.MAX_ROLLS - 1)
    board = Board.from_points({p + 1: n for p, n in enumerate(counts) if n}, {})
    dist = np.zeros(bearoff.MAX_ROLLS)
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            children = [tuple(int(v) for v in p.after.array[0, :6])
                        for p in board.legal_plays(d1, d2)]
            best = min(children, key=lambda c: float(np.dot(brute_force(c), np.arange(32))))
            dist[1:] += np.array(brute_force(best))[:-1] / 36
    return tuple(dist)


def test_index_is_a_bijection():
    pos = bearoff.positions()
    assert pos.shape == (bearoff.N_POSITIONS, 6)
    assert len({tuple(p) for p in pos.tolist()}) == bearoff.N_POSITIONS
    assert all(bearoff.index(pos[i].astype(np.int64)) == i for i in range(0, len(pos), 997))


@pytest.mark.parametrize("counts", [(0, 0, 0, 0, 0, 1), (1, 1, 0, 0, 0, 0), (0, 0, 0, 2, 0, 1),
                                    (0, 1, 0, 0, 1, 1), (3, 0, 0, 0, 0, 0), (0, 0, 1, 1, 1, 0)])
def test_distributions_match_brute_force(counts):
    assert np.allclose(bearoff.distribution(counts), brute_force(counts), atol=1e-6)


def test_known_values():
    # One checker on the 6-point: 27 of 36 rolls bear it off at once (any 6, or 6+ pips
    # with an open intermediate point, which is always the case here).
    assert bearoff.distribution([0, 0, 0, 0, 0, 1])[1] == pytest.approx(27 / 36)
    assert bearoff.distribution([2, 0, 0, 0, 0, 0])[1] == pytest.approx(1.0)
    # Four checkers on the 1-point need doubles to go in one roll.
    assert bearoff.distribution([4, 0, 0, 0, 0, 0])[1] == pytest.approx(6 / 36)
    # One checker each on the 6-point: 27/36 + 9/36 * 9/36.
    assert bearoff.win_probability([0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 1]) == pytest.approx(
        0.8125)
    with pytest.raises(ValueError, match="six counts"):
        bearoff.distribution([16, 0, 0, 0, 0, 0])


def test_every_distribution_sums_to_one():
    sums = bearoff.table().sum(axis=1)
    assert np.allclose(sums, 1.0, atol=1e-5)


_GNUBG = """
boards = json.load(open(os.environ["BOARDS_FILE"]))
ci = gnubg.cubeinfo()
ec = gnubg.evalcontext(0, 0, 0, 1, 0.0)
emit([gnubg.evaluate(b, ci, ec)[0] for b in boards])
"""


@pytest.mark.gnubg
def test_win_chances_agree_with_gnubg_two_sided_database(tmp_path):
    # Small races that gnubg's exact two-sided database covers (up to 6 checkers each).
    rng = np.random.default_rng(3)
    cases = []
    for _ in range(25):
        mine = np.bincount(rng.integers(0, 6, rng.integers(1, 6)), minlength=6)
        theirs = np.bincount(rng.integers(0, 6, rng.integers(1, 6)), minlength=6)
        cases.append((mine, theirs))
    boards = [[list(map(int, t)) + [0] * 19, list(map(int, m)) + [0] * 19] for m, t in cases]
    path = tmp_path / "boards.json"
    path.write_text(json.dumps(boards))
    theirs = run_script(_GNUBG, setup=True, env={"BOARDS_FILE": str(path)})
    ours = [bearoff.win_probability(m.tolist(), t.tolist()) for m, t in cases]
    # The one-sided play (fewest expected rolls) differs from gnubg's two-sided optimum
    # (most wins) only in rare close choices.
    assert np.abs(np.array(ours) - np.array(theirs)).max() < 0.01
