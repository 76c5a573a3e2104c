"""training/rollouts.py: rollout labels against exact values, variance reduction, resumption."""

from __future__ import annotations

import numpy as np
import pytest

from boardgammon.bots import bearoff
from boardgammon.bots.network import Network
from boardgammon.engine import Board
from training import rollouts


@pytest.fixture(scope="module")
def net() -> Network:
    return Network.load(rollouts.WEIGHTS)


def test_a_bear_off_rolled_out_to_the_end_matches_the_exact_database(net):
    mine, theirs = (0, 0, 1, 1, 1, 1), (1, 1, 1, 0, 1, 1)
    board = Board.from_points({p + 1: n for p, n in enumerate(mine) if n},
                              {p + 1: n for p, n in enumerate(theirs) if n}).array
    no_db = np.empty((0, bearoff.MAX_ROLLS), dtype=np.float32)
    out, se, plain, plain_se = rollouts.label(net, board[None], 144, 0, np.array([7]), db=no_db)
    exact = bearoff.win_probability(mine, theirs)
    assert 0.6 < exact < 0.9
    assert abs(out[0, 0] - exact) < 3 * se[0, 0] + 0.005, (out[0], se[0], exact)
    assert abs(plain[0, 0] - exact) < 3 * plain_se[0, 0] + 0.005, (plain[0], plain_se[0], exact)
    assert np.abs(out[0, 1:]).max() < 1e-3  # nobody can be gammoned


def test_luck_adjustment_lowers_the_standard_error_of_the_same_trials(net):
    boards = rollouts.shard_positions(net, 11, 0, 3, set())
    out, se, plain, plain_se = rollouts.label(net, boards, 36, 6, np.array([1, 2, 3]))
    assert (se[:, 0] < plain_se[:, 0]).all(), (se, plain_se)
    assert se[:, 0].mean() < 0.6 * plain_se[:, 0].mean()
    assert (np.abs(out - plain) < 4 * np.hypot(se, plain_se) + 1e-3).all()


def test_a_resumed_run_writes_the_same_shards_as_one_run(tmp_path, monkeypatch):
    args = dict(trials=4, truncate=3, shard_size=2)
    rollouts.generate(str(tmp_path / "a" / "r"), 5, 4, **args)
    rollouts.generate(str(tmp_path / "b" / "r"), 5, 2, **args)
    monkeypatch.setattr(rollouts, "PARTIAL", 1)
    label, calls = rollouts.label, []

    def interrupted(*a, **k):  # stopped in the middle of the second shard
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return label(*a, **k)

    monkeypatch.setattr(rollouts, "label", interrupted)
    with pytest.raises(KeyboardInterrupt):
        rollouts.generate(str(tmp_path / "b" / "r"), 5, 4, **args)
    assert (tmp_path / "b" / "r-5-0001.partial.npz").exists()
    monkeypatch.setattr(rollouts, "label", label)
    rollouts.generate(str(tmp_path / "b" / "r"), 5, 4, **args)
    assert not (tmp_path / "b" / "r-5-0001.partial.npz").exists()
    for k in range(2):
        with (np.load(tmp_path / "a" / f"r-5-{k:04d}.npz") as a,
              np.load(tmp_path / "b" / f"r-5-{k:04d}.npz") as b):
            assert a.files == b.files
            for name in a.files:
                assert np.array_equal(a[name], b[name]), name
    first = np.load(tmp_path / "a" / "r-5-0000.npz")["boards"]
    second = np.load(tmp_path / "a" / "r-5-0001.npz")["boards"]
    assert len({b.tobytes() for b in np.concatenate([first, second])}) == 4
    assert len((tmp_path / "b" / "r-log.jsonl").read_text().splitlines()) == 2
    with pytest.raises(SystemExit):
        rollouts.generate(str(tmp_path / "b" / "r"), 5, 6, trials=8, truncate=3, shard_size=2)
