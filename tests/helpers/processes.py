"""Child processes that end with their whole process group, on success, failure and Ctrl-C.

A tool started through a wrapper (``script`` for a pseudo-tty, a shell, gnubg's own threads)
outlives a kill of the wrapper alone: the orphan keeps a core busy and slows every later
measurement on the machine. Each child here leads a new session, so ``os.killpg`` reaches
everything it started.

>>> with process_group(["sleep", "60"]) as proc:  # doctest: +SKIP
...     proc.pid
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

GRACE = 3.0
"""Seconds a group has between SIGTERM and SIGKILL."""

_GONE_WITHIN = 10.0
"""Seconds a SIGKILLed group has to disappear before :func:`end_group` gives up waiting."""


def group_members(pgid: int) -> list[int]:
    """PIDs of the live processes of group ``pgid`` (zombies left out: they hold nothing)."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            # Fields after the command name (which may hold spaces): state, ppid, pgrp, ...
            state, _ppid, pgrp = (entry / "stat").read_text().rsplit(")", 1)[1].split()[:3]
        except (OSError, ValueError):
            continue  # gone meanwhile
        if int(pgrp) == pgid and state != "Z":
            members.append(int(entry.name))
    return members


def end_group(proc: subprocess.Popen, grace: float = GRACE) -> None:
    """End ``proc``'s process group: SIGTERM, up to ``grace`` seconds for the leader, then
    SIGKILL for whatever is left of the group; returns once the leader is reaped and no
    member is alive (a signal is delivered later than ``kill`` returns). Safe to call twice."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break  # no process of the group is left
        if sig == signal.SIGTERM:
            try:
                proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                pass
    proc.wait()
    deadline = time.monotonic() + _GONE_WITHIN
    while group_members(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.01)


@contextmanager
def process_group(args: Sequence[str], **popen: Any) -> Iterator[subprocess.Popen]:
    """``subprocess.Popen(args, **popen)`` as the leader of a new session, its group ended on
    leaving the block however it is left (see :func:`end_group`)."""
    proc = subprocess.Popen(args, start_new_session=True, **popen)
    try:
        yield proc
    finally:
        end_group(proc)


def run(args: Sequence[str], *, input: str | None = None, timeout: float | None = None,
        **popen: Any) -> subprocess.CompletedProcess:
    """Like ``subprocess.run(args, input=…, timeout=…, capture_output=True, text=True)``, with
    the whole process group ended afterwards (a timeout ends the group before it is raised).

    Raises:
        subprocess.TimeoutExpired: the leader ran past ``timeout`` seconds.
    """
    with process_group(args, stdin=subprocess.PIPE if input is not None else None,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       **popen) as proc:
        try:
            out, err = proc.communicate(input, timeout=timeout)
        except subprocess.TimeoutExpired:
            end_group(proc)
            out, err = proc.communicate()
            raise subprocess.TimeoutExpired(args, timeout or 0.0, out, err) from None
    return subprocess.CompletedProcess(args, proc.returncode, out, err)
