"""training/supervised.py: the fit lowers the loss, the split is disjoint and seeded, the output
is a Network state of the same shape, the CLI refuses bad arguments."""

from __future__ import annotations

import json

import numpy as np
import pytest

from boardgammon.bots.network import Network
from boardgammon.bots.neural import NetworkEvaluator
from training import supervised
from training.make_benchmark import sample_positions


@pytest.fixture(scope="module")
def shards(tmp_path_factory):
    """Two tiny rollout-shaped shards: self-play positions labelled by a 'teacher' network
    different from the start network, so that there is something to learn."""
    root = tmp_path_factory.mktemp("sup")
    start, teacher = Network.random(hidden=8, seed=1), Network.random(hidden=8, seed=2)
    boards = sample_positions(start, 80, 3)
    labels = teacher.evaluate(boards)
    stderr = np.full_like(labels, 0.01)
    paths = []
    for i, rows in enumerate((slice(0, 40), slice(40, 80))):
        p = root / f"rollouts-1-{i:04d}.npz"
        np.savez(p, boards=boards[rows], outputs=labels[rows], stderr=stderr[rows])
        paths.append(str(p))
    weights = root / "start.npz"
    start.save(weights, games=np.int64(1234))
    return weights, paths, boards, labels


def train_mse(net: Network, boards, labels, rows) -> float:
    return float(((net.evaluate(boards[rows]) - labels[rows]) ** 2).mean())


def test_the_fit_lowers_the_error_on_its_training_labels_and_writes_a_network_state(shards,
                                                                                   tmp_path):
    weights, paths, boards, labels = shards
    st = supervised.Settings(seed=4, val_share=0.25, lr=0.01, epochs=30, patience=30, batch=16,
                             anchors=0)
    out = tmp_path / "new.npz"
    res = supervised.fit(weights, paths, out, st)
    errors_before, errors_after = res["before"], res["after"]
    assert isinstance(errors_before, dict) and isinstance(errors_after, dict)
    tr, va = supervised.split(len(boards), 0.25, 4)
    start, new = Network.load(weights), Network.load(out)
    before, after = train_mse(start, boards, labels, tr), train_mse(new, boards, labels, tr)
    assert after < 0.7 * before, (before, after)
    assert errors_after["mse"] < errors_before["mse"]
    assert errors_before["mse"] == pytest.approx(train_mse(start, boards, labels, va), rel=1e-5)
    assert new.w1.shape == start.w1.shape and new.w2.shape == start.w2.shape
    assert new.w1.dtype == np.float32
    with np.load(out) as z:
        assert int(z["games"]) == 1234  # the rest of the training state is kept
        assert json.loads(str(z["supervised"]))["settings"]["seed"] == 4


def test_anchors_keep_the_net_nearer_its_own_outputs(shards, tmp_path):
    weights, paths, *_ = shards
    start = Network.load(weights)
    fresh = sample_positions(start, 40, 99)
    drift = {}
    for w in (0.0, 5.0):
        st = supervised.Settings(seed=4, lr=0.01, epochs=10, patience=10, batch=16, anchors=200,
                                 anchor_weight=w)
        supervised.fit(weights, paths, tmp_path / f"{w}.npz", st)
        new = Network.load(tmp_path / f"{w}.npz")
        drift[w] = float(((new.evaluate(fresh) - start.evaluate(fresh)) ** 2).mean())
    assert drift[5.0] < 0.5 * drift[0.0], drift


def test_a_position_in_two_shards_is_loaded_once_with_its_first_label(shards, tmp_path):
    _, paths, _, _ = shards
    with np.load(paths[0]) as z:
        boards, outputs, stderr = z["boards"], z["outputs"], z["stderr"]
    again = tmp_path / "rollouts-2-0000.npz"  # another seed's shard meeting rows 3 and 5
    np.savez(again, boards=boards[[5, 3]], outputs=outputs[[5, 3]] * 0.5,
             stderr=stderr[[5, 3]])
    b, o, _ = supervised.load_rollouts([*paths, str(again)])
    alone = supervised.load_rollouts(paths)
    assert len(b) == len(alone[0]) == 80
    np.testing.assert_array_equal(b, alone[0])
    np.testing.assert_array_equal(o, alone[1])  # the first label kept, not the halved one
    b, o, _ = supervised.load_rollouts([str(again), paths[0]])
    assert len(b) == 40 and (b[0] == boards[5]).all() and o[0][0] == outputs[5][0] * 0.5


def test_the_validation_split_is_disjoint_complete_and_seeded():
    tr, va = supervised.split(1000, 0.2, 7)
    assert len(va) == 200 and len(tr) == 800
    assert not set(tr) & set(va)
    assert sorted(np.concatenate([tr, va])) == list(range(1000))
    tr2, va2 = supervised.split(1000, 0.2, 7)
    assert np.array_equal(va, va2) and np.array_equal(tr, tr2)
    assert not np.array_equal(va, supervised.split(1000, 0.2, 8)[1])
    tr, va = supervised.split(2, 0.01, 1)
    assert len(tr) == len(va) == 1
    with pytest.raises(ValueError, match="at least two"):
        supervised.split(1, 0.2, 1)


@pytest.mark.parametrize("args, message", [
    (["--val-share", "1.5"], "--val-share is a share strictly between 0 and 1"),
    (["--lr", "0"], "--lr must be positive"),
    (["--epochs", "0"], "--epochs must be at least 1"),
    (["--anchors", "-1"], "--anchors is a count"),
    (["--search-keep", "0"], "--search-keep is a share"),
])
def test_the_cli_refuses_bad_settings_and_writes_nothing(shards, tmp_path, capsys, args,
                                                         message):
    weights, paths, *_ = shards
    out = tmp_path / "x.npz"
    with pytest.raises(SystemExit) as e:
        supervised.main(["fit", "--weights", str(weights), "--data", *paths, "--out", str(out),
                         *args])
    assert e.value.code == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


def test_the_cli_refuses_missing_files_and_overwriting_its_start(shards, tmp_path, capsys):
    weights, paths, *_ = shards
    for args, message in (
            (["--data", str(tmp_path / "nope.npz")], "no such data file"),
            (["--data", *paths, "--weights", str(tmp_path / "w.npz")], "no such weights file"),
            (["--data", *paths, "--weights", str(weights), "--out", str(weights)],
             "--out must differ from --weights")):
        with pytest.raises(SystemExit) as e:
            supervised.main(["fit", "--out", str(tmp_path / "x.npz"), *args])
        assert e.value.code == 2
        assert message in capsys.readouterr().err
    bad = tmp_path / "bad.npz"
    np.savez(bad, boards=np.zeros((3, 2, 25), np.int8))
    with pytest.raises(SystemExit) as e:
        supervised.main(["fit", "--weights", str(weights), "--data", str(bad), "--out",
                         str(tmp_path / "y.npz")])
    assert e.value.code == 2
    assert "is not a rollout shard" in capsys.readouterr().err
    assert not (tmp_path / "y.npz").exists()


def test_report_prints_the_held_out_error_of_each_network(shards, capsys):
    weights, paths, boards, labels = shards
    supervised.main(["report", str(weights), "--data", *paths, "--seed", "4", "--val-share",
                     "0.25"])
    _, va = supervised.split(len(boards), 0.25, 4)
    line = capsys.readouterr().out.strip()
    assert line.startswith(f"{weights} at 0-ply: MSE ")
    printed = float(line.split("MSE ")[1].split()[0])
    # as the bots value them: the bear-off database where it is exact, the bare net elsewhere
    played = NetworkEvaluator(Network.load(weights)).evaluate(boards[va], 15, 0)
    assert printed == pytest.approx(float(((played - labels[va]) ** 2).mean()), abs=1e-6)
    with pytest.raises(SystemExit) as e:
        supervised.main(["report", str(weights), "--data", *paths, "--val-share", "0"])
    assert e.value.code == 2
    assert "--val-share is a share" in capsys.readouterr().err


def test_a_run_is_reproducible_from_its_seed(shards, tmp_path):
    weights, paths, *_ = shards
    nets = []
    for name, seed in (("one", 5), ("two", 5), ("other", 6)):
        st = supervised.Settings(seed=seed, lr=0.01, epochs=3, patience=3, batch=16, anchors=30)
        supervised.fit(weights, paths, tmp_path / f"{name}.npz", st)
        nets.append(Network.load(tmp_path / f"{name}.npz"))
    assert all(np.array_equal(a, b) for a, b in zip(nets[0].weights, nets[1].weights,
                                                    strict=True))
    assert not np.array_equal(nets[0].w1, nets[2].w1)
