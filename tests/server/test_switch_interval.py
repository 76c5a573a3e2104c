"""``BOARDGAMMON_SWITCH_INTERVAL``: the thread switch interval ``boardgammon serve`` sets
(docs/server.md §Threads and the GIL)."""

from __future__ import annotations

import sys

import pytest
import uvicorn
from typer.testing import CliRunner

from boardgammon.cli import app as cli
from boardgammon.server.settings import DEFAULT_SWITCH_INTERVAL, Settings


@pytest.mark.parametrize(("value", "seconds"), [(None, 0.005), ("", 0.005), ("0.001", 0.001),
                                                ("1", 1.0)])
def test_the_switch_interval_setting(value, seconds):
    environ = {} if value is None else {"BOARDGAMMON_SWITCH_INTERVAL": value}
    assert Settings.from_env(environ).switch_interval_s == seconds


@pytest.mark.parametrize("value", ["0", "-0.001", "1.5", "soon", "nan", "inf"])
def test_a_bad_switch_interval_is_refused_by_name(value):
    with pytest.raises(ValueError, match="BOARDGAMMON_SWITCH_INTERVAL"):
        Settings.from_env({"BOARDGAMMON_SWITCH_INTERVAL": value})


def test_serve_sets_the_interval_before_it_serves(monkeypatch, tmp_path):
    seen: list[float] = []
    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: seen.append(sys.getswitchinterval()))
    monkeypatch.setenv("BOARDGAMMON_DATABASE_URL", f"sqlite:///{tmp_path}/serve.sqlite3")
    monkeypatch.setenv("BOARDGAMMON_LOG_KEY", str(tmp_path / "key.pem"))
    monkeypatch.setenv("BOARDGAMMON_SWITCH_INTERVAL", "0.002")
    before = sys.getswitchinterval()
    try:
        result = CliRunner().invoke(cli, ["serve", "--port", "8123"])
        assert result.exit_code == 0, result.output
        assert seen == [0.002]
        monkeypatch.delenv("BOARDGAMMON_SWITCH_INTERVAL")
        assert CliRunner().invoke(cli, ["serve", "--port", "8123"]).exit_code == 0
        assert seen == [0.002, DEFAULT_SWITCH_INTERVAL]
    finally:
        sys.setswitchinterval(before)


def test_serve_refuses_a_bad_setting_by_name_and_serves_nothing(monkeypatch):
    seen: list[object] = []
    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: seen.append(a))
    monkeypatch.setenv("BOARDGAMMON_SWITCH_INTERVAL", "0")
    before = sys.getswitchinterval()
    result = CliRunner().invoke(cli, ["serve"])
    assert result.exit_code == 2
    assert "BOARDGAMMON_SWITCH_INTERVAL='0'" in result.output
    assert seen == [] and sys.getswitchinterval() == before
