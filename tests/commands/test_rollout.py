"""``boardgammon rollout``: the package's kernel run in batches, exact where the value is known,
standard errors shrinking as 1/√N."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from boardgammon.bots import bearoff
from boardgammon.bots.encoding import N_INPUTS
from boardgammon.bots.network import cubeless_equity
from boardgammon.bots.neural import NetworkEvaluator, shipped_network
from boardgammon.bots.rollout import _CAP, FILTER, KEEP, choose1, label
from boardgammon.cli import app
from boardgammon.commands.rollout import roll_out
from boardgammon.engine import Board, movegen

runner = CliRunner()
START = Board.initial()
LAST_ROLL = Board.from_points({6: 1}, {1: 1})  # 27 of 36 rolls win: 75 %


def _se(results: np.ndarray) -> np.ndarray:
    return results.std(axis=0, ddof=1) / np.sqrt(len(results))


def test_batches_give_the_rollout_of_one_run():
    results = roll_out(START, 80, truncate=3, seed=9)  # two whole batches and a part
    outputs, stderr, _, _ = label(shipped_network(), START.array[None], 80, 3, np.array([9]))
    assert results.mean(axis=0) == pytest.approx(outputs[0], abs=1e-6)
    assert _se(results) == pytest.approx(stderr[0], abs=1e-6)


def test_standard_errors_shrink_as_one_over_the_root_of_the_trials():
    few = _se(roll_out(START, 144, truncate=4, seed=1))
    many = _se(roll_out(START, 576, truncate=4, seed=1001))
    ratio = few[0] / many[0]  # √(576 / 144) = 2
    assert 1.5 < ratio < 2.7, (few, many)


def test_a_last_roll_rolls_out_to_its_exact_value():
    results = roll_out(LAST_ROLL, 36)
    # Luck-adjusted, every trial is the average over the rolls: exactly 27/36.
    assert results[:, 0] == pytest.approx(np.full(36, 0.75), abs=1e-6)
    assert _se(results)[0] < 1e-6


def test_ctrl_c_keeps_the_batches_done():
    calls = []

    def interrupted() -> bool:
        calls.append(1)
        return len(calls) > 1  # after the first batch

    assert len(roll_out(START, 360, truncate=2, interrupted=interrupted)) == 36


def test_the_command_prints_outputs_errors_and_the_cube_decision():
    result = runner.invoke(app, ["rollout", LAST_ROLL.position_id, "--trials", "36", "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["trials"] == 36 and out["outputs"][0] == pytest.approx(0.75, abs=1e-6)
    assert out["cubeless"] == pytest.approx(0.5, abs=1e-5)
    assert out["action"] == "Double, take"
    # The cube decision of a short bear-off is exact (the cube model gave 0.700 and 0.850).
    assert out["exact_cube"] and out["cube"] == pytest.approx([0.5, 1.0, 1.0], abs=1e-9)
    shown = runner.invoke(app, ["rollout", START.position_id, "--trials", "36", "--truncate",
                                "2", "--no-progress"])
    assert shown.exit_code == 0, shown.output
    # Within 80 columns (issue 26 review: this heading and the line of standard errors wrapped).
    assert shown.stdout.startswith("Evaluation by a rollout of 36 trials, 0-ply, truncated at 2 "
                                   "plies,\n  money play, cube 1:\n")
    assert max(len(line) for line in shown.stdout.splitlines()) <= 80, shown.stdout
    lines = shown.stdout.splitlines()
    assert lines[5].startswith("  std. error ") and lines[5].endswith("%  (on roll)")
    assert lines[6].startswith("  std. error ") and lines[6].endswith("%  (opponent)")
    assert "(standard error)" in shown.stdout and "Proper cube action:" in shown.stdout


@pytest.mark.parametrize(("args", "message"), [
    (["--ply", "2"], "error: --ply is 0 or 1 (the depth of the plays in the trials), not 2"),
    (["--trials", "0"], "error: --trials is 1 to 10,000,000, not 0"),
    (["--trials", "99999999999999999999"], "error: --trials is 1 to 10,000,000, not 9999"),
    (["--truncate", "-1"], "error: --truncate is 0 (play to the end) or a number of plies"),
])
def test_bad_options_exit_2_with_a_message(args, message):
    result = runner.invoke(app, ["rollout", START.position_id, *args])
    assert result.exit_code == 2 and message in result.stderr


def test_the_best_plays_of_a_roll_rolled_out():
    result = runner.invoke(app, ["rollout", START.position_id, "--dice", "3", "1", "--trials",
                                 "36", "--truncate", "3", "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["plays"]
    assert len(rows) == 3 and rows[0]["play"] == "8/5 6/5"
    assert [r["cubeless"] for r in rows] == sorted((r["cubeless"] for r in rows), reverse=True)
    assert all(r["trials"] == 36 and 0 < r["cubeless_stderr"] < 0.05 for r in rows)
    # As text, within 80 columns (issue 26 review: 112 wide), the figures of the JSON.
    shown = runner.invoke(app, ["rollout", START.position_id, "--dice", "3", "1", "--trials",
                                "36", "--truncate", "3", "--no-progress"]).stdout.splitlines()
    assert shown[0] == "Rollout of the best 3 plays of 3-1 (0-ply, truncated at 3 plies):"
    assert max(len(line) for line in shown) <= 80, shown
    first = rows[0]
    w, wg, _, lg, _ = first["outputs"]
    assert shown[3] == (f" 1. 8/5 6/5                 {first['cubeless']:+.3f} ± "
                        f"{first['cubeless_stderr']:.3f}  {100 * w:5.1f}  {100 * wg:5.1f} | "
                        f"{100 * lg:7.1f}      36")
    # A play that ends the game is its result, exactly, with no trial needed.
    last = json.loads(runner.invoke(app, ["rollout", LAST_ROLL.position_id, "--dice", "6",
                                          "5", "--json"]).stdout)["plays"]
    assert last == [{"play": "6/off", "trials": 1, "outputs": [1.0, 0.0, 0.0, 0.0, 0.0],
                     "stderr": [0.0] * 5, "cubeless": 1.0, "cubeless_stderr": 0.0}]
    bad = runner.invoke(app, ["rollout", START.position_id, "--dice", "7", "1"])
    assert bad.exit_code == 2 and "error: --dice:" in bad.stderr


def test_a_rollout_saved_and_resumed_is_the_rollout_of_one_run(tmp_path):
    whole = json.loads(runner.invoke(app, ["rollout", START.position_id, "--trials", "108",
                                           "--truncate", "2", "--seed", "5",
                                           "--json"]).stdout)
    checkpoint = tmp_path / "start.json"
    part = runner.invoke(app, ["rollout", START.position_id, "--trials", "72", "--truncate",
                               "2", "--seed", "5", "--json", "--save", str(checkpoint)])
    assert part.exit_code == 0, part.output
    kept = json.loads(checkpoint.read_text())
    assert (kept["format"], kept["position_id"], kept["seed"], len(kept["results"])) == \
        ("boardgammon-rollout", START.position_id, 5, 72)
    resumed = runner.invoke(app, ["rollout", START.position_id, "--trials", "108",
                                  "--truncate", "2", "--seed", "5", "--json", "--resume",
                                  str(checkpoint)])
    assert resumed.exit_code == 0, resumed.output
    out = json.loads(resumed.stdout)
    assert out["trials"] == 108 and len(json.loads(checkpoint.read_text())["results"]) == 108
    assert out["outputs"] == pytest.approx(whole["outputs"], abs=1e-9)
    assert out["stderr"] == pytest.approx(whole["stderr"], abs=1e-9)
    # Other settings than the checkpoint's are refused, naming the first that differs.
    other = runner.invoke(app, ["rollout", START.position_id, "--trials", "144", "--truncate",
                                "3", "--seed", "5", "--resume", str(checkpoint)])
    assert other.exit_code == 2
    assert (f"error: --resume: {checkpoint} is a rollout with truncate 2, not 3: resume it "
            f"with the same settings") in other.stderr


def test_a_checkpoint_with_a_part_batch_is_not_extended(tmp_path):
    checkpoint = tmp_path / "part.json"
    runner.invoke(app, ["rollout", START.position_id, "--trials", "40", "--truncate", "1",
                        "--save", str(checkpoint), "--json"])
    more = runner.invoke(app, ["rollout", START.position_id, "--trials", "72", "--truncate",
                               "1", "--resume", str(checkpoint)])
    assert more.exit_code == 2
    assert ("error: --resume: the checkpoint holds 40 trials, not a multiple of 36 (a whole "
            "number of first-roll sets), so it cannot be extended to 72") in more.stderr
    (tmp_path / "not.json").write_text("[]")
    bad = runner.invoke(app, ["rollout", START.position_id, "--resume",
                              str(tmp_path / "not.json")])
    assert bad.exit_code == 2 and "is not a rollout checkpoint" in bad.stderr


def test_two_rolls_stratified_cover_every_pair_once_in_1296_trials():
    from boardgammon.bots import bearoff
    from boardgammon.bots.rollout import ROLL_INDEX, rollout

    net = shipped_network()

    def kernel(seed: int, square: int) -> tuple[np.ndarray, np.ndarray]:
        plain, adjusted = np.empty((1296, 5)), np.empty((1296, 5))
        rollout(START.array, 15, *net.weights, bearoff.table(), bearoff.ROLLS,
                bearoff.ROLL_WEIGHTS, ROLL_INDEX, 1296, 2, seed, plain, adjusted, square)
        return plain.mean(axis=0), adjusted.mean(axis=0)

    # Truncated after two plies, a trial's plain result depends on its two rolls alone; with
    # every ordered pair once it averages to the exact 2-ply expectation, which the
    # luck-adjusted mean also is, whatever the seed and the square's starting row.
    plain, adjusted = kernel(1, 1)
    assert plain == pytest.approx(adjusted, abs=2e-6)
    other, _ = kernel(77, 5)
    assert other == pytest.approx(plain, abs=2e-6)
    # The first roll alone stratified: the second is random, and the plain mean is not exact.
    random_second, _ = kernel(1, -1)
    assert np.abs(random_second - plain).max() > 1e-4


def test_a_rollout_stratified_twice_in_batches_is_the_rollout_of_one_run():
    from boardgammon.bots import bearoff
    from boardgammon.bots.rollout import ROLL_INDEX, rollout

    batched = roll_out(START, 108, truncate=3, seed=3, stratify=2)
    plain, one_run = np.empty((108, 5)), np.empty((108, 5))
    rollout(START.array, 15, *shipped_network().weights, bearoff.table(), bearoff.ROLLS,
            bearoff.ROLL_WEIGHTS, ROLL_INDEX, 108, 3, 3, plain, one_run, 3)  # row seed mod 36
    assert batched == pytest.approx(one_run, abs=1e-12)
    bad = runner.invoke(app, ["rollout", START.position_id, "--stratify", "3"])
    assert bad.exit_code == 2
    assert "error: --stratify is 1 (the first roll) or 2 (the first two rolls), not 3" in \
        bad.stderr


def _reference_1ply(board: Board, dice: tuple[int, int]) -> Board:
    """The 1-ply choice by the documented rule, through the public evaluator: the plays within
    FILTER of the best at 0-ply, at most KEEP, ranked by the mover's equity at 1-ply."""
    ev = NetworkEvaluator()
    plays = board.legal_plays(*dice)
    theirs = np.stack([p.board_after.swapped().array for p in plays])
    v0 = -np.asarray(cubeless_equity(ev.evaluate(theirs, board.checkers, 0)))
    near = [i for i in np.argsort(-v0, kind="stable") if v0[i] >= v0.max() - FILTER][:KEEP]
    if len(near) == 1:
        return plays[near[0]].board_after.swapped()
    v1 = -np.asarray(cubeless_equity(ev.evaluate(theirs[near], board.checkers, 1)))
    return plays[near[int(np.argmax(v1))]].board_after.swapped()


AFTER_31 = START.play("8/5 6/5", (3, 1)).swapped()  # the reply to the opening 3-1
SPLIT = START.play("24/18 13/11", (6, 2)).swapped().play("24/21 13/8", (5, 3)).swapped()


@pytest.mark.parametrize("board", [START, AFTER_31, SPLIT], ids=["start", "after-31", "split"])
def test_the_1ply_choice_is_the_documented_search_through_the_evaluator(board):
    net = shipped_network()
    scratch = dict(x=np.empty(N_INPUTS, dtype=np.float32),
                   h=np.empty(net.weights[1].shape[0], dtype=np.float32),
                   o=np.empty(5, dtype=np.float32), best_o=np.empty(5, dtype=np.float32),
                   cand=np.empty((2, 25), dtype=np.int8), chosen=np.empty((2, 25), dtype=np.int8),
                   plays=np.empty((_CAP, 2, 25), dtype=np.int8), values=np.empty(_CAP),
                   order=np.empty(_CAP, dtype=np.int64), reply=np.empty((2, 25), dtype=np.int8),
                   reply_o=np.empty(5, dtype=np.float32))
    differ = 0
    for d1, d2 in bearoff.ROLLS:
        ended = choose1(np.ascontiguousarray(board.array), d1, d2, 15, *net.weights,
                        bearoff.table(), bearoff.ROLLS, bearoff.ROLL_WEIGHTS,
                        movegen.make_buffers(_CAP), *scratch.values())
        assert not ended
        ours = Board(scratch["chosen"].copy(), 15)
        assert ours == _reference_1ply(board, (int(d1), int(d2))), (d1, d2)
        zero = board.legal_plays(int(d1), int(d2))
        best0 = max(zero, key=lambda p: -float(cubeless_equity(NetworkEvaluator().evaluate(
            p.board_after.swapped().array[None], 15, 0)[0])))
        differ += ours != best0.board_after.swapped()
    assert differ >= 1  # the search is deeper than 0-ply, not the same choice


def test_a_1ply_rollout_through_the_command():
    result = runner.invoke(app, ["rollout", START.position_id, "--trials", "36", "--truncate",
                                 "2", "--ply", "1", "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["ply"] == 1 and out["trials"] == 36
    zero = json.loads(runner.invoke(app, ["rollout", START.position_id, "--trials", "36",
                                          "--truncate", "2", "--json"]).stdout)
    assert zero["ply"] == 0
    # Two plies from the start: the same dice, some plays chosen differently.
    assert out["outputs"] != zero["outputs"]
    assert abs(out["cubeless"] - zero["cubeless"]) < 0.1


def test_the_plays_of_a_roll_saved_and_resumed_are_the_rollout_of_one_run(tmp_path):
    args = ["rollout", START.position_id, "--dice", "3", "1", "--plays", "2", "--truncate",
            "2", "--seed", "4", "--json"]
    whole = json.loads(runner.invoke(app, [*args, "--trials", "72"]).stdout)["plays"]
    checkpoint = tmp_path / "plays.json"
    part = runner.invoke(app, [*args, "--trials", "36", "--save", str(checkpoint)])
    assert part.exit_code == 0, part.output
    kept = json.loads(checkpoint.read_text())
    assert kept["dice"] == [3, 1] and kept["plays"] == 2
    assert sorted((play, len(rows)) for play, rows in kept["plays_done"]) == \
        sorted((r["play"], 36) for r in json.loads(part.stdout)["plays"])
    resumed = runner.invoke(app, [*args, "--trials", "72", "--resume", str(checkpoint)])
    assert resumed.exit_code == 0, resumed.output
    rows = json.loads(resumed.stdout)["plays"]
    assert [(r["play"], r["trials"]) for r in rows] == [(r["play"], 72) for r in whole]
    for ours, one_run in zip(rows, whole, strict=True):
        assert ours["outputs"] == pytest.approx(one_run["outputs"], abs=1e-9)
        assert ours["cubeless_stderr"] == pytest.approx(one_run["cubeless_stderr"], abs=1e-9)
    assert sorted(len(r) for _, r in json.loads(checkpoint.read_text())["plays_done"]) == \
        [72, 72]
    # Another roll, or a position rollout, from this checkpoint is refused, saying why.
    other = runner.invoke(app, [*args[:3], "4", "2", *args[5:], "--resume", str(checkpoint)])
    assert other.exit_code == 2
    assert (f"error: --resume: {checkpoint} is a rollout with dice [3, 1], not [4, 2]: resume "
            f"it with the same settings") in other.stderr
    position = runner.invoke(app, ["rollout", START.position_id, "--truncate", "2", "--seed",
                                   "4", "--resume", str(checkpoint)])
    assert position.exit_code == 2
    assert (f"error: --resume: {checkpoint} is the rollout of the plays of a roll: resume it "
            f"with --dice 3 1") in position.stderr


def test_the_plays_of_a_roll_show_a_progress_bar():
    shown = runner.invoke(app, ["rollout", START.position_id, "--dice", "3", "1", "--plays",
                                "2", "--trials", "72", "--truncate", "1"])
    assert shown.exit_code == 0, shown.output
    # tqdm writes to standard error: the trials of both plays, the play under way.
    assert "144/144" in shown.stderr and "8/5 6/5: equity" in shown.stderr, shown.stderr


def test_ctrl_c_in_a_rollout_of_plays_keeps_the_trials_done(tmp_path, monkeypatch):
    from contextlib import contextmanager

    from boardgammon.commands import rollout as rollout_module

    calls = []

    @contextmanager
    def after_three_batches():
        def interrupted() -> bool:
            calls.append(1)
            return len(calls) > 3

        yield interrupted

    args = ["rollout", START.position_id, "--dice", "3", "1", "--plays", "2", "--truncate",
            "1", "--seed", "2", "--trials", "72"]
    whole = json.loads(runner.invoke(app, [*args, "--json"]).stdout)["plays"]
    checkpoint = tmp_path / "cut.json"
    monkeypatch.setattr(rollout_module, "deferred_interrupt", after_three_batches)
    cut = runner.invoke(app, [*args, "--save", str(checkpoint)])
    assert cut.exit_code == 130
    assert (f"Interrupted (Ctrl-C): the plays and trials done so far; kept in {checkpoint}: go "
            f"on with --resume {checkpoint}.") in cut.stdout
    kept = json.loads(checkpoint.read_text())["plays_done"]
    assert 0 < sum(len(rows) for _, rows in kept) < 144
    monkeypatch.undo()
    resumed = json.loads(runner.invoke(app, [*args, "--json", "--resume",
                                             str(checkpoint)]).stdout)["plays"]
    assert [(r["play"], r["trials"]) for r in resumed] == [(r["play"], 72) for r in whole]
    for ours, one_run in zip(resumed, whole, strict=True):
        assert ours["outputs"] == pytest.approx(one_run["outputs"], abs=1e-9)
