"""``make bench-soak`` (benchmarks/soak.py): a tiny soak runs two processes on PostgreSQL and
Redis and reports real figures with nothing lost; addresses off this machine are refused before
any work."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _soak(*args: str, timeout: float) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "benchmarks.soak", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize(("args", "says"), [
    (["--redis", "redis://10.1.2.3:6379/0"], "--redis must name a loopback host"),
    (["--postgres", "host=db.example dbname=test"], "--postgres must name a loopback host"),
    (["--matches", "0"], "--matches is 1 to 200"),
    (["--seconds", "0"], "--seconds is more than 0"),
])
def test_bad_arguments_are_refused_at_once(args, says):
    result = _soak(*args, timeout=60)
    assert result.returncode == 2, result.stdout + result.stderr
    assert says in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.slow
def test_a_tiny_soak_reports_real_figures(tmp_path):
    import psycopg
    import redis

    from benchmarks.soak import POSTGRES, REDIS
    from tests.helpers.services import service_missing

    try:
        psycopg.connect(f"{POSTGRES} connect_timeout=3").close()
    except psycopg.OperationalError as exc:
        service_missing(f"PostgreSQL is not reachable at 127.0.0.1:5432 db test: {exc}")
    try:
        redis.Redis.from_url(REDIS, socket_connect_timeout=3).ping()
    except redis.RedisError as exc:
        service_missing(f"Redis is not reachable at 127.0.0.1:6379: {exc}")
    report_file = tmp_path / "soak.json"
    result = _soak("--matches", "2", "--seconds", "10", "--json", str(report_file), timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(report_file.read_text())
    assert report["actions"] > 0
    assert report["actions_ws"] > 0 and report["actions_http"] > 0
    assert report["actions"] == report["actions_ws"] + report["actions_http"]
    assert report["losses"] == 0
    assert report["errors"] == 0, report["errors_by_kind"]
    assert 0 < report["p50_ms"] <= report["p99_ms"] < math.inf
    assert len(report["processes"]) == 2
    for process in report["processes"]:
        assert process["alive_at_end"]
        assert 50 < process["rss_start_mb"] and 50 < process["rss_end_mb"]
    assert "losses (acknowledged, missing from the match log): 0" in result.stdout
