"""``boardgammon serve`` processes for tests and the soak benchmark: started, waited for, and
ended with their whole process group however the caller's block is left."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx

from tests.helpers.processes import end_group

__all__ = ["Served", "serving", "wait_until_up"]


def wait_until_up(process: subprocess.Popen, port: int, output: Callable[[], str]) -> None:
    """Return once ``process`` answers on ``port``; fail with the end of its ``output()`` if
    it exits first, and kill it if it is not up within 120 s."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"the server exited: {output()[-2000:]}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/options", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            time.sleep(0.2)
    process.kill()
    raise AssertionError("the server did not start within 120 s")


@dataclass
class Served:
    """A ``boardgammon serve`` process and its log file (stdout and stderr: uvicorn's access
    log and errors)."""

    process: subprocess.Popen
    log: Path


@contextlib.contextmanager
def serving(ports: list[int], env: dict[str, str], cwd: Path) -> Iterator[list[Served]]:
    """``boardgammon serve`` on each of ``ports`` (started one after the other: each applies
    the migrations at start), each leading a process group of its own that is ended on leaving
    the block, however it is left; logs under ``cwd`` (appended to: a restart keeps the log)."""
    started: list[Served] = []
    try:
        for port in ports:
            log = cwd / f"server-{port}.log"
            with open(log, "ab") as out:
                process = subprocess.Popen(
                    [sys.executable, "-m", "boardgammon.cli", "serve", "--port", str(port)],
                    cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT,
                    start_new_session=True)
            started.append(Served(process, log))
            wait_until_up(process, port, log.read_text)
        yield started
    finally:
        for served in started:
            end_group(served.process)
