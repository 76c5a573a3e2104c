"""training/twoply.py: candidates are the best results at 0-ply valued at 2-ply by the same
network, the shards read by the order fit as its targets, and a resumed run writing the same
shards as one run."""

from __future__ import annotations

import numpy as np
import pytest

from boardgammon.bots.network import Network, cubeless_equity
from boardgammon.bots.neural import NetworkEvaluator
from boardgammon.engine import Board
from training import ranking, rollouts, twoply


@pytest.fixture(scope="module")
def evaluator() -> NetworkEvaluator:
    return NetworkEvaluator(Network.load(rollouts.WEIGHTS))


def test_candidates_are_the_best_at_0_ply_valued_at_2_ply(evaluator):
    board = Board.initial().array
    after, outputs2, equity0, equity2 = twoply.label(evaluator, board, (6, 4), top=3)
    plays = Board(board).legal_plays(6, 4)
    results = np.unique(np.stack([p.after.swapped().array for p in plays]), axis=0)
    all0 = -cubeless_equity(evaluator.evaluate(results, plies=0))
    # The three best of the roll's distinct results at 0-ply, best first, each once.
    expected = results[np.argsort(-all0, kind="stable")[:3]]
    assert np.array_equal(after, expected) and len({a.tobytes() for a in after}) == 3
    assert np.all(np.diff(equity0) <= 0)
    assert np.allclose(outputs2, evaluator.evaluate(after, plies=2), atol=1e-6)
    assert np.allclose(equity2, -cubeless_equity(outputs2), atol=1e-6)
    assert not np.allclose(equity0, equity2, atol=1e-3)  # the search changes the values
    # A roll with one distinct result gives nothing to order.
    one = Board.from_points({2: 1}, {2: 1}).array
    assert twoply.label(evaluator, one, (6, 5), top=3) is None


def test_a_resumed_run_writes_the_same_shards_and_the_fit_reads_them(tmp_path, monkeypatch):
    # Every third position has a single result (dropped, not a decision): a resumed run
    # still counts the positions it looked at, as the uninterrupted one does.
    label, calls = twoply.label, []

    def some_forced(*a, **k):
        calls.append(1)
        return None if len(calls) % 3 == 0 else label(*a, **k)

    monkeypatch.setattr(twoply, "label", some_forced)
    twoply.generate(str(tmp_path / "a" / "t"), 5, 6, shard_size=3, top=2)
    calls.clear()
    twoply.generate(str(tmp_path / "b" / "t"), 5, 3, shard_size=3, top=2)
    twoply.generate(str(tmp_path / "b" / "t"), 5, 6, shard_size=3, top=2)
    assert len(calls) == 6 and not (tmp_path / "b" / "t-5-0002.npz").exists()
    monkeypatch.setattr(twoply, "label", label)
    for k in range(2):
        with (np.load(tmp_path / "a" / f"t-5-{k:04d}.npz") as a,
              np.load(tmp_path / "b" / f"t-5-{k:04d}.npz") as b):
            assert a.files == b.files
            for name in a.files:
                assert np.array_equal(a[name], b[name]), name
    with pytest.raises(SystemExit, match="was made with .'top': 2, 'shard_size': 3"):
        twoply.generate(str(tmp_path / "b" / "t"), 5, 9, shard_size=3, top=3)
    paths = [str(tmp_path / "a" / f"t-5-{k:04d}.npz") for k in range(2)]
    cands = ranking.load_candidates(paths)
    # The order fit's targets are the 2-ply values, as the rollouts' were.
    assert np.allclose(cands.rollout, cands.equity2, atol=1e-6)
    assert len(cands.boards) >= 2 and len(cands.after) >= 2 * len(cands.boards)
    assert len((tmp_path / "a" / "t-log.jsonl").read_text().splitlines()) == 2


@pytest.mark.parametrize("args", [["--shard", "0"], ["--top", "1"], ["--decisions", "-5"],
                                  ["--weights", "/no/such/weights.npz"]])
def test_the_command_refuses_bad_arguments_in_one_line(tmp_path, capsys, args):
    with pytest.raises(SystemExit) as e:
        twoply.main(["generate", "--out", str(tmp_path / "t"), "--seed", "1", *args])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert ("must be at least" in err or "no such weights file" in err) and "Traceback" not in err
    assert not list(tmp_path.iterdir())


def test_relabel_values_the_same_decisions_with_other_weights(tmp_path, evaluator):
    """Relabelled shards keep the source's positions and rolls, carry the new network's 0-ply
    top and 2-ply values, name both networks, resume, refuse other weights, and win over the
    old labels of the same decisions when the fit reads them first."""
    twoply.generate(str(tmp_path / "t"), 4, 6, shard_size=3, top=3)
    net = Network.load(rollouts.WEIGHTS)
    rng = np.random.default_rng(0)
    net.w2 = net.w2 + rng.normal(0.0, 0.3, net.w2.shape)  # a network that orders plays otherwise
    weights = tmp_path / "other.npz"
    net.save(weights)
    other = NetworkEvaluator(Network.load(weights))
    twoply.relabel(str(tmp_path / "t"), str(tmp_path / "r"), 4, top=2, weights=weights, shards=1)
    assert not (tmp_path / "r-4-0001.npz").exists()
    twoply.relabel(str(tmp_path / "t"), str(tmp_path / "r"), 4, top=2, weights=weights)
    changed = 0
    for k in range(2):
        with (np.load(tmp_path / f"t-4-{k:04d}.npz") as old,
              np.load(tmp_path / f"r-4-{k:04d}.npz") as new):
            assert np.array_equal(old["boards"], new["boards"])
            assert np.array_equal(old["dice"], new["dice"])
            assert np.array_equal(old["screened"], new["screened"])
            assert str(new["source_weights_sha256"]) == str(old["weights_sha256"])
            assert str(new["weights_sha256"]) == rollouts.weights_sha256(weights)
            assert int(new["shard"]) == k and int(new["top"]) == 2
            for i, (board, dice) in enumerate(zip(new["boards"], new["dice"], strict=True)):
                got = twoply.label(other, board, (int(dice[0]), int(dice[1])), top=2)
                rows = new["decision"] == i
                assert np.array_equal(new["after"][rows], got[0])
                assert np.allclose(new["equity2"][rows], got[3], atol=1e-6)
                changed += not np.allclose(new["equity2"][rows],
                                           old["equity2"][old["decision"] == i][:2], atol=1e-4)
    assert changed > 0
    assert len((tmp_path / "r-log.jsonl").read_text().splitlines()) == 2
    # Resumed with nothing left to do it writes nothing; other weights are refused.
    twoply.relabel(str(tmp_path / "t"), str(tmp_path / "r"), 4, top=2, weights=weights)
    assert len((tmp_path / "r-log.jsonl").read_text().splitlines()) == 2
    with pytest.raises(SystemExit, match="other weights or --top"):
        twoply.relabel(str(tmp_path / "t"), str(tmp_path / "r"), 4, top=2)
    # Another run's shards of the same seed and number under the same --out are refused too.
    twoply.generate(str(tmp_path / "u"), 4, 3, shard_size=3, top=2, weights=weights)
    with pytest.raises(SystemExit, match="from another source"):
        twoply.relabel(str(tmp_path / "u"), str(tmp_path / "r"), 4, top=2, weights=weights)
    with pytest.raises(SystemExit, match="no shards"):
        twoply.relabel(str(tmp_path / "t"), str(tmp_path / "r"), 7, top=2)
    # Listed first, the new labels stand for their decisions; the old ones are dropped.
    paths = [str(tmp_path / f"{p}-4-{k:04d}.npz") for p in "rt" for k in range(2)]
    both = ranking.load_candidates(paths)
    new = ranking.load_candidates(paths[:2])
    assert np.array_equal(both.after, new.after) and np.allclose(both.equity2, new.equity2)


@pytest.mark.parametrize("args", [["--top", "1"], ["--shards", "0"],
                                  ["--weights", "/no/such/weights.npz"]])
def test_relabel_refuses_bad_arguments_in_one_line(tmp_path, capsys, args):
    with pytest.raises(SystemExit) as e:
        twoply.main(["relabel", "--source", str(tmp_path / "t"), "--out", str(tmp_path / "r"),
                     "--seed", "1", *args])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert ("must be at least" in err or "no such weights file" in err) and "Traceback" not in err
    assert not list(tmp_path.iterdir())
