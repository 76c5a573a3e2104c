"""The rating benchmark (``benchmarks/bench_ratings.py``): bad arguments are refused before any
game is played, and the simulation and report run from a file of measured games."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.bench_ratings import STRENGTHS, calibration, play_match

ROOT = Path(__file__).resolve().parents[1]


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "benchmarks.bench_ratings", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--players", "0"], "--players is at least 1"),
        (["--sequences", "0"], "--sequences is at least 1"),
        (["--matches", "5"], "--matches is at least 20"),
        (["--hard", "-1"], "--hard is at least 0"),
    ],
)
def test_bad_arguments_are_refused_at_once(args, says):
    result = _run(*args)
    assert result.returncode == 2 and says in result.stderr
    assert "Traceback" not in result.stderr


def measured_ladder(strengths: int = len(STRENGTHS)) -> dict[str, list[int]]:
    """Games where the stronger of each pair wins 3 in 4 (single games only)."""
    return {
        f"{i}-{j}": [-1, -1, -1, 1]
        for i in range(strengths)
        for j in range(i + 1, strengths)
    }


def test_the_report_runs_from_measured_games(tmp_path):
    games = tmp_path / "games.json"
    games.write_text(json.dumps(measured_ladder()))
    result = _run("--measured", str(games), "--players", "4", "--matches", "1500")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.count("strength means in order: True") == 2  # both systems order the ladder
    assert "### Glicko-2 (match length)" in out and "### FIBS" in out
    assert out.count("| 0.9–1.0 |") == 2


def test_a_match_is_first_to_its_length():
    # The stronger side wins 3 games in 4: it takes most 7-point matches, and fewer 1-pointers.
    games = {(0, 1): [-1, -1, -1, 1]}
    rng = random.Random(1)
    long = sum(play_match(games, 1, 0, 7, rng) for _ in range(400)) / 400
    short = sum(play_match(games, 1, 0, 1, rng) for _ in range(400)) / 400
    assert 0.68 < short < 0.82 and long > 0.9


def test_calibration_bins_by_tenths():
    rows = calibration([(0.05, False), (0.07, True), (0.95, True), (1.0, True)])
    assert rows == [("0.0–0.1", 2, pytest.approx(0.06), 0.5), ("0.9–1.0", 2, 0.975, 1.0)]


def test_the_report_takes_hard_from_a_file_measured_with_it(tmp_path):
    # A file written with --hard has a seventh strength, hard, strongest: it is reported.
    games = tmp_path / "games.json"
    games.write_text(json.dumps(measured_ladder(len(STRENGTHS) + 1)))
    result = _run("--measured", str(games), "--players", "4", "--matches", "1500")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "| medium | hard |" in out and "| hard |" in out
    assert out.count("strength means in order: True") == 2
    assert out.count(", hard ") == 2  # each system's mean rating of hard
