"""The benchmark reports' command lines refuse bad arguments before any work (a fresh user's:
a bad --pairings failed with a traceback after the gnubg part, maybe hours in), and the error
rates' intervals are taken over dice sequences."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.strength import ratio_interval

ROOT = Path(__file__).resolve().parents[1]


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize(("args", "says"), [
    (["benchmarks.strength", "--levels", "bogus"], "unknown level 'bogus'"),
    (["benchmarks.strength", "--levels", "--pairings", "medium"], "UPPER-LOWER"),
    (["benchmarks.strength", "--pairings", "medium-bogus"], "not 'medium-bogus'"),
    (["benchmarks.strength", "--pairs", "0"], "at least 1"),
    (["benchmarks.strength", "--reference", "-1"], "1 ply or more"),
    (["benchmarks.analysis_vs_gnubg", "1", "--ply", "5"], "invalid choice: 5"),
    (["benchmarks.analysis_vs_gnubg", "0"], "MATCHES is at least 1"),
    (["benchmarks.cube_vs_gnubg", "1", "--save", "."], "a file in an existing folder"),
    (["benchmarks.cube_vs_gnubg", "1", "--games", "3"], "give --money too"),
    (["benchmarks", "nosuch"], "unknown benchmark(s): bench_nosuch"),
])
def test_bad_arguments_are_refused_at_once(args, says):
    result = _run(*args)
    assert result.returncode == 2, result.stdout + result.stderr
    assert says in result.stdout + result.stderr
    assert "Traceback" not in result.stderr


def test_the_speed_benchmarks_list_themselves():
    result = _run("benchmarks", "--help")
    assert result.returncode == 0
    known = ("known: analysis, dice, due, easy, log, movegen, neural, ratings, rollout, server, "
             "stats, time_to_start")
    assert known in " ".join(result.stdout.split())  # argparse wraps the line


def test_ratio_interval_is_over_the_groups():
    # Two sequences: losses 1, 1 and 4 → mean 2; t = (2, 4), n = (2, 1), r = 2:
    # residuals (2 - 4, 4 - 2) = (-2, 2), SE = sqrt(8 / 2) / 1.5 = 4 / 3.
    assert ratio_interval([[1.0, 1.0], [4.0]]) == f"+2.000 ± {1.96 * 4 / 3:.3f}"
    # Equal rates in every sequence: no spread between sequences, whatever the values' own.
    assert ratio_interval([[0.0, 2.0], [1.0, 1.0], [2.0, 0.0]]) == "+1.000 ± 0.000"
    assert ratio_interval([[3.0]]) == "+3.000 ± nan"  # one sequence: no interval


@pytest.mark.slow
def test_the_rollout_benchmark_times_gnubg_rolling_games_out():
    from benchmarks import bench_rollout
    from boardgammon.engine import Board
    from tests.helpers.gnubg import gnubg_path

    if gnubg_path() is None:
        pytest.skip("gnubg is not installed")
    assert "bench_rollout" in _run("benchmarks", "nosuch").stdout
    # The longer run took longer by about its extra trials: gnubg's rollout command did roll
    # the games out (a command that did nothing would give an absurd or negative rate).
    rate = bench_rollout.gnubgs(Board.initial(), 0)
    assert rate is not None and 2.0 < rate < 2000.0
