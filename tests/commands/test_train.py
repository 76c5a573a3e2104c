"""``boardgammon train``: checkpoints, log, and resuming to the same weights."""

from __future__ import annotations

import json

import numpy as np
from typer.testing import CliRunner

from boardgammon.bots.encoding import N_INPUTS
from boardgammon.bots.network import Network
from boardgammon.cli import app
from tests.bots.test_neural import random_positions

runner = CliRunner()


def _train(out, games, every=5):
    result = runner.invoke(app, ["train", "--games", str(games), "--out", str(out),
                                 "--checkpoint-every", str(every), "--hidden", "8",
                                 "--seed", "3", "--no-progress"])
    assert result.exit_code == 0, result.output
    with np.load(out / "state.npz") as z:
        return int(z["games"]), z["w1"].copy()


def test_resumed_run_gives_the_same_weights(tmp_path):
    assert _train(tmp_path / "a", 10)[0] == 10
    games, resumed = _train(tmp_path / "a", 20)
    straight = _train(tmp_path / "b", 20, every=20)[1]
    assert games == 20 and np.array_equal(resumed, straight)
    log = [json.loads(line) for line in (tmp_path / "a" / "train.log").read_text().splitlines()]
    assert [e["games"] for e in log] == [5, 10, 15, 20]
    assert all(e["games_per_s"] > 0 and e["loss"] > 0 for e in log)


def test_a_run_refuses_another_seed(tmp_path):
    _train(tmp_path, 5)
    result = runner.invoke(app, ["train", "--games", "10", "--out", str(tmp_path),
                                 "--seed", "4", "--no-progress"])
    assert result.exit_code != 0 and "seed 3" in result.output


def test_the_exported_copy_resumes_like_the_run(tmp_path):
    result = runner.invoke(app, ["train", "--games", "10", "--out", str(tmp_path / "a"),
                                 "--checkpoint-every", "5", "--hidden", "8", "--seed", "3",
                                 "--export", str(tmp_path / "latest.npz"), "--no-progress"])
    assert result.exit_code == 0, result.output
    (tmp_path / "b").mkdir()
    (tmp_path / "latest.npz").rename(tmp_path / "b" / "state.npz")
    assert _train(tmp_path / "b", 20)[0] == 20
    assert np.array_equal(_train(tmp_path / "b", 20)[1], _train(tmp_path / "c", 20, every=20)[1])


def _text(output: str) -> str:
    """The output's words, unwrapped from the error panel."""
    return " ".join(output.replace("│", " ").split())


def test_a_run_refuses_a_damaged_state_and_other_hidden_units(tmp_path):
    (tmp_path / "state.npz").write_text("junk")
    result = runner.invoke(app, ["train", "--games", "10", "--out", str(tmp_path),
                                 "--no-progress"])
    assert result.exit_code == 2 and "is not a training state" in _text(result.output)
    (tmp_path / "state.npz").unlink()
    _train(tmp_path, 5)
    result = runner.invoke(app, ["train", "--games", "10", "--out", str(tmp_path), "--seed", "3",
                                 "--hidden", "16", "--no-progress"])
    assert result.exit_code == 2 and "8 hidden units, not 16" in _text(result.output)
    result = runner.invoke(app, ["train", "--games", "5", "--out", str(tmp_path), "--seed", "3",
                                 "--no-progress"])
    assert result.exit_code == 0 and "already at 5 games" in _text(result.output)


def test_the_late_floor_starts_at_its_game_and_resumes_exactly(tmp_path):
    """α's floor switches to --alpha-late at game --anneal-at (a floor of 0.5 lies above the
    decaying α ≈ 0.1 of a short run, so the switch changes every later update)."""
    def run(out, games, *extra):
        result = runner.invoke(app, ["train", "--games", str(games), "--out", str(out),
                                     "--checkpoint-every", "5", "--hidden", "8", "--seed", "3",
                                     "--no-progress", *extra])
        assert result.exit_code == 0, result.output
        with np.load(out / "state.npz") as z:
            return z["w1"].copy(), float(z["anneal_at"]), float(z["alpha_late"])

    annealed, at, late = run(tmp_path / "a", 10, "--anneal-at", "5", "--alpha-late", "0.5")
    assert (at, late) == (5, 0.5)
    log = [json.loads(line) for line in (tmp_path / "a" / "train.log").read_text().splitlines()]
    assert [e["alpha"] for e in log] == [0.5, 0.5]  # α of the next game, after games 5 and 10
    # the same by hand: 5 games at the usual floor, then the state's floor raised to 0.5
    run(tmp_path / "b", 5)
    with np.load(tmp_path / "b" / "state.npz") as z:
        state = dict(z)
    assert float(state["alpha_min"]) == 0.01 and float(state["anneal_at"]) == 1_600_000
    state["alpha_min"] = np.float64(0.5)
    np.savez(tmp_path / "b" / "state.npz", **state)
    by_hand = run(tmp_path / "b", 10)[0]
    assert np.array_equal(annealed, by_hand)
    assert not np.array_equal(annealed, run(tmp_path / "c", 10)[0])
    # a resumed run keeps its schedule: another one is refused, and so are nonsense values
    result = runner.invoke(app, ["train", "--games", "15", "--out", str(tmp_path / "a"),
                                 "--seed", "3", "--anneal-at", "7", "--no-progress"])
    assert result.exit_code == 2 and "anneal_at 5, not 7" in _text(result.output)
    result = runner.invoke(app, ["train", "--games", "5", "--out", str(tmp_path / "d"),
                                 "--alpha-late", "0", "--no-progress"])
    assert result.exit_code == 2 and "--alpha-late in (0, 1]" in _text(result.output)


def test_a_state_from_before_the_late_floor_resumes_with_its_defaults(tmp_path):
    """States written before anneal_at/alpha_late existed (the tracked checkpoint of
    1,600,000 games) resume with the defaults."""
    _train(tmp_path, 5)
    with np.load(tmp_path / "state.npz") as z:
        state = {k: z[k] for k in z.files if k not in ("anneal_at", "alpha_late")}
    np.savez(tmp_path / "state.npz", **state)
    assert _train(tmp_path, 10)[0] == 10
    with np.load(tmp_path / "state.npz") as z:
        assert float(z["anneal_at"]) == 1_600_000 and float(z["alpha_late"]) == 0.003


def test_damaged_states_and_bad_options_are_refused_with_a_message(tmp_path):
    """Found by a fresh user: an empty state printed only "Aborted.", a truncated one, NaN
    weights or λ = 5 gave tracebacks, negative games trained; a missing benchmark file, --out
    naming a file and an --export that cannot be written gave tracebacks (the last one after
    the training), --hidden -3 a traceback."""
    run = tmp_path / "run"
    _train(run, 5)
    good = (run / "state.npz").read_bytes()
    with np.load(run / "state.npz") as z:
        state = dict(z)

    def refused(*args: str) -> str:
        result = runner.invoke(app, ["train", "--games", "10", "--seed", "3", "--no-progress",
                                     *args])
        assert result.exit_code == 2, result.output
        return _text(result.output)

    damaged = {"empty": b"", "truncated": good[: len(good) // 2]}
    for name, content in damaged.items():
        (run / "state.npz").write_bytes(content)
        assert "is not a training state" in refused("--out", str(run)), name
    for key, value, why in (("w1", np.full_like(state["w1"], np.nan), "not all finite"),
                            ("lam", np.float64(5), "lam 5 is outside [0, 1]"),
                            ("games", np.int64(-100), "games -100 is not between 0 and"),
                            ("games", np.float64(1e30), "is not between 0 and 10^12"),
                            ("games", np.array([1, 2]), "is not a training state"),
                            ("half_life", np.float64(np.inf), "half_life must be positive and"),
                            ("w2", state["w2"] + 1j, "not all real numbers")):
        np.savez(run / "state.npz", **{**state, key: value})
        assert why in refused("--out", str(run))
    np.savez(run / "state.npz", **{**state, "w1": state["w1"][:, :0], "b1": state["b1"][:0],
                                   "w2": state["w2"][:, :0]})
    assert "no hidden units" in refused("--out", str(run))
    doubled = {k: np.concatenate([state[k]] * 2) for k in ("w1", "b1", "w2", "b2")}
    np.savez(run / "state.npz", **{**state, **doubled})  # a joined network's shapes
    assert "a joined contact and race network; self-play trains a single one" in refused(
        "--out", str(run))
    (run / "state.npz").write_bytes(good)
    assert "is not a benchmark file" in refused("--out", str(run), "--benchmark",
                                                str(tmp_path / "none.npz"))
    np.savez(tmp_path / "bad.npz", boards=np.zeros((3, 2, 24), np.int8),
             outputs=np.zeros((3, 5), np.float32))
    assert "not (P, 2, 25) and (P, 5)" in refused("--out", str(run), "--benchmark",
                                                  str(tmp_path / "bad.npz"))
    (tmp_path / "file").write_text("x")
    assert "is a file, not a run directory" in refused("--out", str(tmp_path / "file"))
    assert "cannot create" in refused("--out", str(tmp_path / "new"), "--export",
                                      str(tmp_path / "file" / "sub" / "latest.npz"))
    assert not (tmp_path / "new" / "train.log").exists()
    assert "exists and is not a file" in refused("--out", str(tmp_path / "new"), "--export",
                                                 str(tmp_path))
    assert "cannot create" in refused("--out", str(tmp_path / "new"), "--export",
                                      "/proc/no-such-dir-here/latest.npz")
    assert "greater than or equal to 1" in refused("--out", str(tmp_path / "new"), "--hidden", "-3")
    assert (run / "state.npz").read_bytes() == good  # nothing refused was written


def test_a_hypergammon_run_plays_three_checker_games_and_keeps_its_variant(tmp_path):
    """``--variant hypergammon`` trains on Hypergammon self-play (the shipped Hypergammon
    network's run): games of 3 checkers a side, much shorter than standard ones; the state
    remembers it, so resuming as another variant is refused, and a standard state resumes as
    standard (states from before the option have no variant: 15 checkers)."""
    args = ["train", "--games", "40", "--checkpoint-every", "20", "--hidden", "8", "--seed", "3",
            "--no-progress"]
    result = runner.invoke(app, [*args, "--out", str(tmp_path / "h"), "--variant", "hypergammon"])
    assert result.exit_code == 0, result.output
    with np.load(tmp_path / "h" / "state.npz") as z:
        assert int(z["games"]) == 40 and float(z["checkers"]) == 3
    hyper = [json.loads(line) for line in (tmp_path / "h" / "train.log").read_text().splitlines()]
    _train(tmp_path / "s", 40, every=20)
    standard = [json.loads(line)
                for line in (tmp_path / "s" / "train.log").read_text().splitlines()]
    assert max(e["plies_per_game"] for e in hyper) < min(e["plies_per_game"] for e in standard)
    refused = runner.invoke(app, [*args[:2], "60", *args[3:], "--out", str(tmp_path / "h"),
                                  "--variant", "standard"])
    assert refused.exit_code != 0 and "3-checker games, not standard" in refused.output
    # Without --variant (or --hidden, --seed) a resumed run keeps its own (a fresh user had
    # to repeat --variant hypergammon although the help said "new runs only").
    resumed = runner.invoke(app, ["train", "--games", "60", "--checkpoint-every", "20",
                                  "--no-progress", "--out", str(tmp_path / "h")])
    assert resumed.exit_code == 0, resumed.output
    with np.load(tmp_path / "h" / "state.npz") as z:
        assert int(z["games"]) == 60 and float(z["checkers"]) == 3 and z["w1"].shape[1] == 8
    for bad in (["--variant", "tavla"], ["--variant", "hypergammon", "--benchmark", "x.npz"]):
        result = runner.invoke(app, [*args, "--out", str(tmp_path / "x"), *bad])
        assert result.exit_code != 0 and "variant" in result.output.lower()


def test_an_option_given_at_its_default_is_still_checked_on_resume(tmp_path):
    # A fresh user's: --hidden 128 or the default floor asked of a run with other settings
    # was accepted silently (only values other than the defaults were compared).
    result = runner.invoke(app, ["train", "--games", "10", "--out", str(tmp_path),
                                 "--checkpoint-every", "5", "--hidden", "8", "--anneal-at", "5",
                                 "--alpha-late", "0.5", "--no-progress"])
    assert result.exit_code == 0, result.output
    for option, value, says in (("--hidden", "128", "8 hidden units, not 128"),
                                ("--anneal-at", "1600000", "anneal_at 5, not 1.6e+06"),
                                ("--alpha-late", "0.003", "alpha_late 0.5, not 0.003")):
        refused = runner.invoke(app, ["train", "--games", "15", "--out", str(tmp_path),
                                      option, value, "--no-progress"])
        assert refused.exit_code == 2 and says in _text(refused.output), (option, refused.output)
    # Asking for what the run has is no conflict: the new run's seed was the default, 1.
    same = runner.invoke(app, ["train", "--games", "15", "--out", str(tmp_path), "--seed", "1",
                               "--hidden", "8", "--checkpoint-every", "5", "--no-progress"])
    assert same.exit_code == 0, same.output


def test_a_bad_export_leaves_no_run_folder(tmp_path):
    out = tmp_path / "run"
    (tmp_path / "blocker").write_text("")
    result = runner.invoke(app, ["train", "--games", "10", "--out", str(out), "--export",
                                 str(tmp_path / "blocker" / "x.npz"), "--no-progress"])
    assert result.exit_code == 2 and "cannot create" in _text(result.output)
    assert not out.exists()


def test_ctrl_c_saves_the_state_and_says_so(tmp_path, monkeypatch):
    import os
    import signal

    from boardgammon.commands import train as train_module

    real = train_module.train_games
    calls = []

    def interrupted_after_the_first_chunk(*args):
        out = real(*args)
        if args[8] > 0:  # a call that plays games (not the warm-up)
            calls.append(args[8])
            if len(calls) == 1:
                os.kill(os.getpid(), signal.SIGINT)  # as Ctrl-C, in the middle of the run
        return out

    monkeypatch.setattr(train_module, "train_games", interrupted_after_the_first_chunk)
    result = runner.invoke(app, ["train", "--games", "20", "--out", str(tmp_path / "a"),
                                 "--checkpoint-every", "7", "--hidden", "8", "--seed", "3",
                                 "--no-progress"])
    # Issue 26: Ctrl-C silently lost the games since the last checkpoint.
    assert result.exit_code == 130, result.output
    state = tmp_path / "a" / "state.npz"
    assert (f"Interrupted (Ctrl-C): saved {state} at 7 games; rerun the same command to "
            f"continue from there.") in _text(result.output)
    assert calls == [7]
    monkeypatch.setattr(train_module, "train_games", real)
    assert np.array_equal(_train(tmp_path / "a", 20, every=7)[1],
                          _train(tmp_path / "b", 20, every=20)[1])


def test_a_run_of_fewer_inputs_continues_widened(tmp_path):
    """A state of an older encoding (fewer hand inputs, appended at the end) continues with
    zero weights for the inputs it lacks: its outputs are unchanged until training moves them,
    and the log says where the run was widened."""
    _train(tmp_path / "a", 5)
    with np.load(tmp_path / "a" / "state.npz") as z:
        old = {k: z[k] for k in z.files}
    old["w1"] = old["w1"][:209]  # the 209-input encoding shipped until 2026-12-05
    (tmp_path / "b").mkdir()
    np.savez(tmp_path / "b" / "state.npz", **old)
    widened = Network.load(tmp_path / "b" / "state.npz", widen=True)
    assert widened.w1.shape == (N_INPUTS, 8) and not widened.w1[209:].any()
    reference = Network(np.concatenate([old["w1"], np.zeros((N_INPUTS - 209, 8))]),
                        old["b1"], old["w2"], old["b2"])
    boards = np.stack([b.array for b in random_positions(20, seed=2)])
    assert np.array_equal(widened.evaluate(boards), reference.evaluate(boards))
    result = runner.invoke(app, ["train", "--games", "10", "--out", str(tmp_path / "b"),
                                 "--checkpoint-every", "5", "--no-progress"])
    assert result.exit_code == 0, result.output
    assert f"a run of 209 inputs, continued with this encoding's {N_INPUTS}" in _text(
        result.output)
    log = [json.loads(line) for line in (tmp_path / "b" / "train.log").read_text().splitlines()]
    assert log[0] == {"games": 5, "widened": [209, N_INPUTS]} and log[1]["games"] == 10
    with np.load(tmp_path / "b" / "state.npz") as z:
        assert z["w1"].shape == (N_INPUTS, 8) and z["w1"][209:].any()  # the new inputs learn
