"""``boardgammon serve`` starts the app with uvicorn, migrating the default SQLite database
(./var/boardgammon.sqlite3) or the one BOARDGAMMON_DATABASE_URL names."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

import httpx
import pytest

from boardgammon.server.settings import DEFAULT_DATABASE_URL, Settings


def test_settings_from_env():
    assert Settings.from_env({}).database_url == DEFAULT_DATABASE_URL
    assert Settings.from_env({"BOARDGAMMON_DATABASE_URL": ""}).database_url == DEFAULT_DATABASE_URL
    url = "postgresql://postgres@127.0.0.1/test"
    assert Settings.from_env({"BOARDGAMMON_DATABASE_URL": url}).database_url == url


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.slow  # starting the CLI imports every command module (~10-20 s on a busy machine)
def test_serve_starts_the_app_on_the_default_database(tmp_path):
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k != "BOARDGAMMON_DATABASE_URL"}
    server = subprocess.Popen(
        [sys.executable, "-m", "boardgammon.cli", "serve", "--port", str(port)],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                answer = httpx.get(f"http://127.0.0.1:{port}/api/audit/mat_none", timeout=2)
                break
            except httpx.TransportError:
                assert server.poll() is None, server.stdout.read()
                assert time.monotonic() < deadline, "the server did not answer within 60 s"
                time.sleep(0.2)
        assert answer.status_code == 404
        assert answer.json()["error"]["code"] == "not_found"
        assert (tmp_path / "var" / "boardgammon.sqlite3").is_file()
    finally:
        server.terminate()
        server.wait(timeout=30)
        server.stdout.close()
