"""The load benchmark's comparison of dice protocols: the order of its server runs and the
line that states the v2/v1 ratio with its interval (``benchmarks/bench_server.py``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.bench_server import pair_order, ratio_summary

ROOT = Path(__file__).resolve().parents[1]


def test_pairs_alternate_which_protocol_runs_first():
    assert pair_order(3, ["v1", "v2"]) == [(0, "v1"), (0, "v2"), (1, "v2"), (1, "v1"),
                                           (2, "v1"), (2, "v2")]
    assert pair_order(2, ["v2"]) == [(0, "v2"), (1, "v2")]


@pytest.mark.parametrize(("ratios", "says"), [
    # The median of 1.0, 1.1, 1.15; all three within 20 %: met, the range covers 75 %.
    ([1.1, 1.0, 1.15], "median 1.10x over 3 pair(s), range 1.00-1.15x (75 %); "
                       "target within 20 %: met"),
    # One pair above the target: not shown, however good the median.
    ([0.9, 1.0, 1.0, 1.1, 3.2], "median 1.00x over 5 pair(s), range 0.90-3.20x (94 %); "
                                "target within 20 %: not shown"),
    ([1.3, 3.2, 1.5], "median 1.50x over 3 pair(s), range 1.30-3.20x (75 %); "
                      "target within 20 %: not met"),
    # Too few pairs for a verdict, either way.
    ([1.3, 3.2], "median 2.25x over 2 pair(s), range 1.30-3.20x (50 %); "
                 "target within 20 %: not shown (fewer than 3 pairs)"),
    ([0.55], "median 0.55x over 1 pair(s), range 0.55-0.55x (no interval from one pair); "
             "target within 20 %: not shown (fewer than 3 pairs)"),
])
def test_the_ratio_is_stated_with_its_interval(ratios, says):
    assert ratio_summary(ratios) == says


@pytest.mark.parametrize(("env", "says"), [
    ({"BENCH_SERVER_PAIRS": "0"}, "BENCH_SERVER_PAIRS is at least 1, not 0"),
    ({"BENCH_SERVER_DICE": "v3"}, "unknown protocol 'v3'"),
    ({"BENCH_SERVER_RUNS": "fast"}, "unknown run 'fast'"),
    ({"BENCH_SERVER_DATABASE_URL": "postgresql+psycopg://x/y"}, "one protocol and one pair"),
    ({"BENCH_SERVER_SIDE_BY_SIDE": "yes"}, "BENCH_SERVER_SIDE_BY_SIDE is 0 or 1, not 'yes'"),
])
def test_bad_settings_are_refused_before_any_server_starts(env, says):
    result = subprocess.run([sys.executable, "-m", "benchmarks", "server"], cwd=ROOT,
                            env={**_environ(), **env}, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode != 0
    assert says in result.stdout + result.stderr
    assert "pair 1 of" not in result.stdout  # no server was started
    assert "Traceback" not in result.stderr


def _environ() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("BENCH_SERVER_")}


def test_a_pair_side_by_side_measures_both_protocols_at_once():
    """Two servers, v1 and v2, played at the same time by one client process (a capacity run
    of two matches each: seconds, and no verdict, which needs live runs)."""
    result = subprocess.run([sys.executable, "-m", "benchmarks", "server"], cwd=ROOT,
                            env={**_environ(), "BENCH_SERVER_MATCHES": "2",
                                 "BENCH_SERVER_RUNS": "capacity", "BENCH_SERVER_PAIRS": "1",
                                 "BENCH_SERVER_SIDE_BY_SIDE": "1"},
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    out = result.stdout
    assert "pair 1 of 1, v1 and v2 side by side:" in out
    assert "capacity run (flat out), dice v1: 2 concurrent matches" in out
    assert "capacity run (flat out), dice v2: 2 concurrent matches" in out
    # Each server's matches were played to their action budget (12 a match), v2's with the
    # opponents' links besides.
    runs = out.split("capacity run (flat out), dice ")[1:]
    played = {run[:2]: run for run in runs}
    assert "match actions: 24 in" in played["v1"]
    assert "contribute:" in played["v2"] and "contribute:" not in played["v1"]
