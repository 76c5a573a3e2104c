"""training/candidates.py: decisions kept only where 0-ply and 2-ply disagree, candidates rolled
out with common dice, and a resumed run writing the same shards as one run."""

from __future__ import annotations

import numpy as np
import pytest

from boardgammon.bots.network import Network, cubeless_equity
from boardgammon.bots.neural import NetworkEvaluator
from boardgammon.engine import Board
from training import candidates, rollouts

SETTINGS = dict(trials=4, truncate=3, shard_size=2, top=2)


@pytest.fixture(scope="module")
def net() -> Network:
    return Network.load(rollouts.WEIGHTS)


def test_a_decision_is_kept_where_the_depths_rank_the_plays_differently(net):
    evaluator = NetworkEvaluator(net)
    kept = candidates.shard_decisions(net, evaluator, 3, 0, 3, set(), top=2)
    assert len(kept) == 3
    for d in kept:
        plays = Board(d.board).legal_plays(*d.dice)
        results = {p.after.swapped().array.tobytes() for p in plays}
        # Every candidate is a result of a legal play, each once, 2 to 4 of them.
        assert 2 <= len(d.after) <= 4
        assert len({a.tobytes() for a in d.after}) == len(d.after)
        assert all(a.tobytes() in results for a in d.after)
        # The values are the network's, recomputed here; its two depths pick different bests.
        e0 = -cubeless_equity(evaluator.evaluate(d.after, plies=0))
        e2 = -cubeless_equity(evaluator.evaluate(d.after, plies=2))
        assert np.allclose(d.equity0, e0, atol=1e-5) and np.allclose(d.equity2, e2, atol=1e-5)
        afters = np.unique(np.stack([p.after.swapped().array for p in plays]), axis=0)
        all0 = -cubeless_equity(evaluator.evaluate(afters, plies=0))
        all2 = -cubeless_equity(evaluator.evaluate(afters, plies=2))
        assert afters[np.argmax(all0)].tobytes() != afters[np.argmax(all2)].tobytes()
        assert afters[np.argmax(all2)].tobytes() == d.after[0].tobytes()  # best at 2-ply first
        assert any(a.tobytes() == afters[np.argmax(all0)].tobytes() for a in d.after)


def test_a_resumed_run_writes_the_same_shards_as_one_run(tmp_path, monkeypatch):
    candidates.generate(str(tmp_path / "a" / "c"), 5, 4, **SETTINGS)
    candidates.generate(str(tmp_path / "b" / "c"), 5, 2, **SETTINGS)
    monkeypatch.setattr(candidates, "PARTIAL", 1)
    label, calls = candidates.label, []

    def interrupted(*a, **k):  # stopped after the second shard's first decision
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return label(*a, **k)

    monkeypatch.setattr(candidates, "label", interrupted)
    with pytest.raises(KeyboardInterrupt):
        candidates.generate(str(tmp_path / "b" / "c"), 5, 4, **SETTINGS)
    assert (tmp_path / "b" / "c-5-0001.partial.npz").exists()
    monkeypatch.setattr(candidates, "label", label)
    candidates.generate(str(tmp_path / "b" / "c"), 5, 4, **SETTINGS)
    assert not (tmp_path / "b" / "c-5-0001.partial.npz").exists()
    for k in range(2):
        with (np.load(tmp_path / "a" / f"c-5-{k:04d}.npz") as a,
              np.load(tmp_path / "b" / f"c-5-{k:04d}.npz") as b):
            assert a.files == b.files
            for name in a.files:
                assert np.array_equal(a[name], b[name]), name
    with np.load(tmp_path / "a" / "c-5-0000.npz") as z:
        m = len(z["after"])
        assert z["decision"].tolist() == sorted(z["decision"].tolist())
        assert set(z["decision"].tolist()) == {0, 1}
        assert z["outputs"].shape == z["stderr"].shape == (m, 5)
        assert z["equity0"].shape == z["equity2"].shape == (m,)
        assert ((z["outputs"] > -0.05) & (z["outputs"] < 1.05)).all()
    first = np.load(tmp_path / "a" / "c-5-0000.npz")["screened"]
    second = np.load(tmp_path / "a" / "c-5-0001.npz")["screened"]
    assert len({b.tobytes() for b in np.concatenate([first, second])}) == len(first) + len(second)
    assert len((tmp_path / "b" / "c-log.jsonl").read_text().splitlines()) == 2
    with pytest.raises(SystemExit):
        candidates.generate(str(tmp_path / "b" / "c"), 5, 6, trials=8, truncate=3,
                            shard_size=2, top=2)


def test_one_decisions_candidates_share_their_dice(net, monkeypatch):
    """All the candidates of a decision are rolled out with one seed (common random numbers)."""
    seen: list[np.ndarray] = []
    label = candidates.label

    def spy(net_, boards, trials, truncate, seeds, *a, **k):
        seen.append(np.asarray(seeds))
        return label(net_, boards, trials, truncate, seeds, *a, **k)

    monkeypatch.setattr(candidates, "label", spy)
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        candidates.generate(f"{tmp}/c", 9, 2, **SETTINGS)
    assert len(seen) == 2
    for seeds in seen:
        assert len(seeds) >= 2 and len(set(seeds.tolist())) == 1
    assert seen[0][0] != seen[1][0]
