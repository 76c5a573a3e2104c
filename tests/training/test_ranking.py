"""training/ranking.py: the loss and its gradient, the rollouts' figures of a choice, loading
candidate shards (each decision once), a fit that learns a teacher's order, the CLI's refusals."""

from __future__ import annotations

import json

import numpy as np
import pytest

from boardgammon.bots.encoding import N_INPUTS, encode
from boardgammon.bots.network import RACE_INPUT, Network, cubeless_equity
from boardgammon.engine import Board
from training import ranking
from training.make_benchmark import sample_positions


def test_the_loss_ignores_an_offset_a_decision_shares_and_its_gradient_is_exact():
    rng = np.random.default_rng(5)
    decision = np.array([0, 0, 0, 1, 1, 2, 2, 2, 2])
    rollout = rng.normal(0, 0.1, 9)
    equity = rollout + np.array([0.3, 0.3, 0.3, -0.2, -0.2, 0.05, 0.05, 0.05, 0.05])
    assert ranking.rank_loss(equity, rollout, decision)[0] == pytest.approx(0.0, abs=1e-15)

    equity = rng.normal(0, 0.1, 9)
    loss, grad = ranking.rank_loss(equity, rollout, decision)
    # by hand, decision 1: two candidates, u = ±((e0 − e1) − (r0 − r1)) / 2
    u = ((equity[3] - equity[4]) - (rollout[3] - rollout[4])) / 2
    d0 = np.var(equity[:3] - rollout[:3])
    d2 = np.var(equity[5:] - rollout[5:])
    assert loss == pytest.approx((d0 + u * u + d2) / 3, rel=1e-12)
    eps = 1e-6
    for i in range(9):
        step = np.zeros(9)
        step[i] = eps
        numeric = (ranking.rank_loss(equity + step, rollout, decision)[0]
                   - ranking.rank_loss(equity - step, rollout, decision)[0]) / (2 * eps)
        assert grad[i] == pytest.approx(numeric, rel=1e-6, abs=1e-12)


def test_the_listwise_loss_weighs_the_top_and_its_gradient_is_exact():
    rng = np.random.default_rng(6)
    decision = np.array([0, 0, 0, 1, 1, 2, 2, 2, 2])
    target = rng.normal(0, 0.05, 9)
    shifted = target + np.array([0.3, 0.3, 0.3, -0.2, -0.2, 0.05, 0.05, 0.05, 0.05])
    assert ranking.listwise_loss(shifted, target, decision, 0.02)[0] == pytest.approx(0, abs=1e-12)
    # Two candidates: KL of Bernoulli distributions, by hand.
    e, r, tau = np.array([0.1, 0.13]), np.array([0.12, 0.1]), 0.02
    p = 1 / (1 + np.exp(-(r[0] - r[1]) / tau))
    q = 1 / (1 + np.exp(-(e[0] - e[1]) / tau))
    kl = p * np.log(p / q) + (1 - p) * np.log((1 - p) / (1 - q))
    assert ranking.listwise_loss(e, r, np.array([0, 0]), tau)[0] == pytest.approx(kl, rel=1e-12)
    # Swapping the two worst of four candidates, far behind the best, costs next to nothing;
    # swapping the best two costs much more.
    r4 = np.array([0.0, -0.01, -0.3, -0.31])
    d4 = np.zeros(4, dtype=np.int64)
    low = ranking.listwise_loss(r4[[0, 1, 3, 2]], r4, d4, 0.02)[0]
    high = ranking.listwise_loss(r4[[1, 0, 2, 3]], r4, d4, 0.02)[0]
    assert low < 1e-4 * high
    equity = rng.normal(0, 0.05, 9)
    loss, grad = ranking.listwise_loss(equity, target, decision, 0.02)
    eps = 1e-7
    for i in range(9):
        step = np.zeros(9)
        step[i] = eps
        numeric = (ranking.listwise_loss(equity + step, target, decision, 0.02)[0]
                   - ranking.listwise_loss(equity - step, target, decision, 0.02)[0]) / (2 * eps)
        assert grad[i] == pytest.approx(numeric, rel=1e-5, abs=1e-9)


def test_the_figures_of_a_choice_are_the_rollout_equity_it_loses():
    decision = np.array([0, 0, 0, 1, 1])
    rollout = np.array([0.10, 0.25, 0.20, -0.3, -0.1])
    equity = np.array([0.5, 0.0, 0.1, 0.2, 0.3])  # picks 0.10 (loses 0.15), then -0.1 (best)
    f = ranking.choice_figures(equity, rollout, decision)
    assert f["loss_mp"] == pytest.approx(1000 * 0.15 / 2)
    assert f["agree"] == 0.5


def test_the_movers_equity_is_minus_the_opponents():
    o = np.array([[0.7, 0.2, 0.01, 0.1, 0.005]])
    assert ranking.mover_equity(o)[0] == pytest.approx(-(1.4 - 1 + 0.2 + 0.01 - 0.1 - 0.005))


def _shard(path, net, teacher, seed, n):
    """A candidate-shaped shard of ``n`` decisions: every legal result of a roll (up to five),
    rolled out by ``teacher`` (its outputs as the 'rollout' means)."""
    rng = np.random.default_rng(seed)
    boards, dice, decision, after = [], [], [], []
    for b in sample_positions(net, 4 * n, seed):
        roll = tuple(int(x) for x in rng.integers(1, 7, 2))
        res = np.unique(np.stack([p.after.swapped().array
                                  for p in Board(b).legal_plays(*roll)]), axis=0)
        if len(res) < 3:
            continue
        res = res[rng.permutation(len(res))[:5]]
        decision += [len(boards)] * len(res)
        boards.append(b)
        dice.append(roll)
        after.extend(res)
        if len(boards) == n:
            break
    after = np.stack(after)
    outputs = teacher.evaluate(after)
    np.savez(path, boards=np.stack(boards), dice=np.array(dice, np.int8),
             decision=np.array(decision, np.int32), after=after, outputs=outputs,
             stderr=np.full_like(outputs, 0.01),
             equity0=-cubeless_equity(net.evaluate(after)).astype(np.float32),
             equity2=-cubeless_equity(outputs).astype(np.float32))
    return path


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp("rank")
    start, teacher = Network.random(hidden=8, seed=1), Network.random(hidden=8, seed=2)
    weights = root / "start.npz"
    start.save(weights, games=np.int64(77))
    paths = [str(_shard(root / f"candidates-1-{i:04d}.npz", start, teacher, 10 + i, 30))
             for i in range(2)]
    return weights, paths


def test_loading_keeps_each_decision_once_and_the_movers_rollout_equity(data, tmp_path):
    _, paths = data
    once = ranking.load_candidates(paths)
    twice = ranking.load_candidates(paths + paths[:1])  # a shard met again: nothing added
    assert len(once.boards) == len(twice.boards) == 60
    assert np.array_equal(once.after, twice.after)
    with np.load(paths[1]) as z:
        first = int(np.sum(np.load(paths[0])["decision"] >= 0))
        assert np.allclose(once.rollout[first:], -cubeless_equity(z["outputs"]))
        assert np.array_equal(once.decision[first:], z["decision"] + 30)
    sub = once.subset(np.array([2, 5]))
    assert set(sub.decision.tolist()) == {0, 1}
    assert np.array_equal(sub.boards, once.boards[[2, 5]])
    assert len(sub.after) == int(np.isin(once.decision, [2, 5]).sum())


def test_a_fit_without_anchors_learns_the_teachers_order_and_writes_a_network_state(data,
                                                                                   tmp_path):
    weights, paths = data
    st = ranking.Settings(seed=3, val_share=0.25, lr=0.01, epochs=40, patience=40, batch=8,
                          anchors=0)
    out = tmp_path / "new.npz"
    res = ranking.fit(weights, paths, out, st)
    cands = ranking.load_candidates(paths)
    tr, _ = ranking.supervised.split(len(cands.boards), 0.25, 3)
    train = cands.subset(tr)
    start, new = Network.load(weights), Network.load(out)

    def train_loss(net):
        return ranking.rank_loss(ranking.mover_equity(net.evaluate(train.after)),
                                 train.rollout, train.decision)[0]

    assert train_loss(new) < 0.5 * train_loss(start), (train_loss(start), train_loss(new))
    assert res["after"]["rank_loss"] <= res["before"]["rank_loss"]
    assert new.w1.shape == start.w1.shape and new.w1.dtype == np.float32
    with np.load(out) as z:
        assert int(z["games"]) == 77
        assert json.loads(str(z["ranking"]))["settings"]["lr"] == 0.01
    listwise = ranking.fit(weights, paths, tmp_path / "list.npz",
                           ranking.Settings(**{**st.__dict__, "loss": "listwise"}))
    assert listwise["after"]["loss_mp"] <= listwise["before"]["loss_mp"] + 1e-9
    net = Network.load(tmp_path / "list.npz")
    assert ranking.listwise_loss(ranking.mover_equity(net.evaluate(train.after)),
                                 train.rollout, train.decision, 0.02)[0] < 0.5 * (
        ranking.listwise_loss(ranking.mover_equity(start.evaluate(train.after)),
                              train.rollout, train.decision, 0.02)[0])


def test_the_cli_refuses_bad_arguments_with_a_message(data, tmp_path, capsys):
    weights, paths = data
    with pytest.raises(SystemExit) as e:
        ranking.main(["fit", "--out", str(weights), "--weights", str(weights),
                      "--data", *paths])
    assert e.value.code == 2 and "--out must differ" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        ranking.main(["fit", "--out", str(tmp_path / "x.npz"), "--weights", str(weights),
                      "--data", *paths, "--val-share", "1.5"])
    assert e.value.code == 2 and "--val-share" in capsys.readouterr().err
    rollout_shard = tmp_path / "rollouts-1-0000.npz"
    np.savez(rollout_shard, boards=np.zeros((1, 2, 25), np.int8))
    with pytest.raises(SystemExit) as e:
        ranking.main(["fit", "--out", str(tmp_path / "x.npz"), "--weights", str(weights),
                      "--data", str(rollout_shard)])
    assert e.value.code == 2 and "is not a candidate shard" in capsys.readouterr().err
    assert not (tmp_path / "x.npz").exists()


def test_held_out_shards_are_the_held_out_set_and_all_of_the_data_is_trained_on(data, tmp_path):
    weights, paths = data
    start, teacher = Network.load(weights), Network.random(hidden=8, seed=2)
    fresh = str(_shard(tmp_path / "candidates-2-0000.npz", start, teacher, 40, 20))
    st = ranking.Settings(seed=3, lr=0.01, epochs=3, patience=3, batch=8, anchors=0)
    res = ranking.fit(weights, paths, tmp_path / "h.npz", st, held_out=[fresh, paths[0]])
    # The held-out set is the fresh shard's 20 decisions: paths[0]'s are trained on.
    val = ranking.load_candidates([fresh])
    figures = ranking.choice_figures(ranking.mover_equity(start.evaluate(val.after)),
                                     val.rollout, val.decision)
    assert res["before"] == pytest.approx(figures)
    assert res["held_out"] == [fresh, paths[0]]
    assert (res["trained"], res["held"]) == (60, 20)  # all of --data trained on
    with pytest.raises(ValueError, match="--held-out holds no decision that --data lacks"):
        ranking.fit(weights, paths, tmp_path / "x.npz", st, held_out=paths[1:])
    assert not (tmp_path / "x.npz").exists()


def test_cached_anchors_leave_out_what_a_later_fit_excludes(data, tmp_path):
    weights, _ = data
    net = Network.load(weights)
    st = ranking.supervised.Settings(seed=2, anchors=12, search=0)
    first, targets, _, _ = ranking.supervised.extra_targets(net, st, set(), tmp_path)
    assert len(first) == 12
    again, again_targets, _, _ = ranking.supervised.extra_targets(
        net, st, {first[0].tobytes(), first[5].tobytes()}, tmp_path)
    assert len(again) == 10 and not any(np.array_equal(b, first[0]) for b in again)
    assert np.array_equal(again_targets, np.delete(targets, [0, 5], axis=0))


def test_widening_keeps_the_outputs_and_a_widened_fit_writes_the_wider_network(data, tmp_path):
    weights, paths = data
    start = Network.load(weights)
    wide = ranking.widen(start, 12, seed=4)
    assert wide.hidden == 12 and wide.w1.shape == (start.w1.shape[0], 12)
    boards = sample_positions(start, 20, 9)
    assert np.allclose(wide.evaluate(boards), start.evaluate(boards), atol=1e-6)
    assert np.array_equal(wide.w1[:, :8], start.w1) and not np.any(wide.w2[:, 8:])
    assert np.all(np.abs(wide.w1[:, 8:]) <= 0.1) and np.any(wide.w1[:, 8:])
    assert np.array_equal(ranking.widen(start, 12, seed=4).w1, wide.w1)  # from the seed
    with pytest.raises(ValueError, match="fewer than the start network's 8"):
        ranking.widen(start, 6, seed=4)

    out = tmp_path / "wide.npz"
    res = ranking.fit(weights, paths, out, ranking.Settings(
        seed=3, val_share=0.25, lr=0.01, epochs=10, patience=10, batch=8, anchors=0,
        hidden=12))
    new = Network.load(out)
    assert new.hidden == 12 and res["after"]["rank_loss"] < res["before"]["rank_loss"]
    assert np.any(new.w2[:, 8:])  # the new units were put to use
    with pytest.raises(ValueError, match="--hidden must not be negative"):
        ranking.Settings(hidden=-1).check()


def test_a_joined_start_is_fitted_half_by_half_and_written_joined(data, tmp_path):
    weights, paths = data
    start = Network.load(weights)
    race_half = Network.random(hidden=8, seed=9)
    joined = tmp_path / "joined.npz"
    Network.join(start, race_half).save(joined, games=np.int64(77))
    contact_only = []
    for i, path in enumerate(paths):  # the decisions none of whose candidates is a race
        with np.load(path) as z:
            shard = {k: z[k] for k in z.files}
        race = encode(shard["after"])[:, RACE_INPUT] == 1.0
        keep = ~np.isin(np.arange(len(shard["boards"])), shard["decision"][race])
        rows = keep[shard["decision"]]
        assert race.any() and keep.sum() >= 20
        renumber = np.cumsum(keep) - 1
        shard.update(boards=shard["boards"][keep], dice=shard["dice"][keep],
                     decision=renumber[shard["decision"][rows]].astype(np.int32),
                     **{k: shard[k][rows] for k in ("after", "outputs", "stderr", "equity0",
                                                     "equity2")})
        contact_only.append(str(tmp_path / f"candidates-1-{i:04d}.npz"))
        np.savez(contact_only[-1], **shard)
    paths = contact_only
    out = tmp_path / "fitted.npz"
    res = ranking.fit(joined, paths, out, ranking.Settings(
        seed=3, val_share=0.25, lr=0.01, epochs=10, patience=10, batch=8, anchors=0))
    new = Network.load(out)
    assert new.joined and res["after"]["rank_loss"] < res["before"]["rank_loss"]
    contact, race = new.halves()
    assert not np.allclose(contact.w1, start.w1, atol=1e-3)  # the contact half learned
    for a, b in zip(race.weights[:3], race_half.weights[:3], strict=True):
        assert np.allclose(a, b, atol=1e-5)  # the race half valued nothing, so kept
    # ... but for the output biases, which the gated form shares (training/split.py)
    assert np.allclose(race.b2 - race_half.b2, contact.b2 - start.b2, atol=1e-5)
    assert not np.allclose(contact.b2, start.b2, atol=1e-3)
    with pytest.raises(ValueError, match="--hidden widens a single network"):
        ranking.fit(joined, paths, tmp_path / "x.npz", ranking.Settings(hidden=20, anchors=0))
    with pytest.raises(ValueError, match="fitted in its gated form"):
        ranking.supervised._Params(new)


def test_leaving_out_races_keeps_the_contact_decisions_renumbered():
    contact = Board.initial().array
    race = np.zeros((2, 25), dtype=np.int8)
    race[0, 0], race[1, 0] = 15, 15  # each side's checkers all on its own ace point
    boards = np.stack([race, contact, race, contact])
    after = np.repeat(boards, 2, axis=0)
    cands = ranking.Candidates(after, np.arange(8.0), np.arange(8.0),
                               np.repeat(np.arange(4), 2), boards,
                               np.ones((4, 2), dtype=np.int8))
    kept = ranking.without_races(cands)
    assert np.array_equal(kept.boards, boards[[1, 3]])
    assert np.array_equal(kept.decision, [0, 0, 1, 1])
    assert np.array_equal(kept.rollout, [2.0, 3.0, 6.0, 7.0])
    with pytest.raises(ValueError, match="--race is fit or skip"):
        ranking.Settings(race="drop").check()


def test_a_start_network_of_the_older_encoding_is_widened_with_zero_weights(data, tmp_path):
    # The network shipped until 2026-12-06 had 209 inputs; a fit may start from it (the
    # reproduction of the 227-input network in docs/neural.md does, and that of the 235-input
    # one starts from the 227-input network).
    weights, paths = data
    start = Network.load(weights)
    narrow = tmp_path / "narrow.npz"
    np.savez(narrow, w1=start.w1[:209], b1=start.b1, w2=start.w2, b2=start.b2)
    with pytest.raises(ValueError):
        Network.load(narrow)  # not a network of this encoding as it stands
    widened = Network.load(narrow, widen=True)
    assert widened.w1.shape == (N_INPUTS, 8) and not widened.w1[209:].any()
    out = tmp_path / "from-narrow.npz"
    res = ranking.fit(narrow, paths, out, ranking.Settings(
        seed=3, val_share=0.25, lr=0.01, epochs=5, patience=5, batch=8, anchors=0))
    fitted = Network.load(out)
    assert fitted.w1.shape == (N_INPUTS, 8) and fitted.w1[209:].any()  # the new inputs learn
    assert res["after"]["rank_loss"] < res["before"]["rank_loss"]
