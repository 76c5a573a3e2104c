"""``boardgammon serve`` processes for tests and the soak benchmark: started, waited for, and
ended with their whole process group however the caller's block is left; and an app served by
uvicorn in a thread of the test's own process (:func:`serving_in_thread`)."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from tests.helpers.processes import end_group

__all__ = ["Served", "serving", "serving_in_thread", "wait_until_up"]


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


@contextlib.contextmanager
def serving_in_thread(app: Any, wait_s: float = 20.0) -> Iterator[int]:
    """Serve ``app`` with uvicorn in a daemon thread on a free loopback port; yields the port
    once the server has started (``AssertionError`` if not within ``wait_s`` seconds) and
    stops it when the block is left."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + wait_s
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server.started, f"the server did not start within {wait_s:g} s"
        yield sock.getsockname()[1]
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
