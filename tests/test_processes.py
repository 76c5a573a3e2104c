"""Every process a benchmark or a test helper starts ends with its whole process group, on
success, on a timeout and on an exception (Ctrl-C is a KeyboardInterrupt), before the call
returns: a gnubg orphaned by a kill of its ``script`` wrapper (``script`` puts its child in a
session of its own) kept a core at 100 % after ``make bench`` (issue 21, 9)."""

from __future__ import annotations

import os
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from benchmarks.bench_neural import gnubg_calibrate
from tests.helpers import processes
from tests.helpers.gnubg import run_script


@pytest.fixture
def marker(monkeypatch: pytest.MonkeyPatch) -> str:
    """A variable every child of this test inherits, to find them (and only them) in /proc."""
    value = uuid.uuid4().hex
    monkeypatch.setenv("BOARDGAMMON_TEST_MARKER", value)
    return value


def _marked(value: str) -> list[int]:
    """PIDs of live (not zombie) processes whose environment holds the marker."""
    needle = f"BOARDGAMMON_TEST_MARKER={value}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if needle in (entry / "environ").read_bytes().split(b"\0") and \
                    (entry / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
                found.append(int(entry.name))
        except OSError:
            continue  # gone, or not ours to read
    return found


# A shell that starts a grandchild in the background and then waits: ending the shell alone
# orphans the grandchild.
TREE = ["sh", "-c", "sleep 60 & wait"]


def test_a_timeout_ends_the_grandchildren(marker: str) -> None:
    with pytest.raises(subprocess.TimeoutExpired):
        processes.run(TREE, timeout=0.5)
    assert _marked(marker) == []


def test_an_exception_ends_the_grandchildren(marker: str) -> None:
    with pytest.raises(KeyboardInterrupt), processes.process_group(TREE):
        deadline = time.monotonic() + 5
        while len(_marked(marker)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        raise KeyboardInterrupt
    assert _marked(marker) == []


def test_success_ends_what_the_leader_left_behind(marker: str) -> None:
    done = processes.run(["sh", "-c", "sleep 60 >/dev/null 2>&1 & echo started"], timeout=10)
    assert (done.returncode, done.stdout) == (0, "started\n")
    assert _marked(marker) == []


@pytest.mark.gnubg
def test_gnubg_calibrate_leaves_no_gnubg(marker: str) -> None:
    gnubg_calibrate(seconds=1.0)
    assert _marked(marker) == []


@pytest.mark.gnubg
def test_a_gnubg_script_past_its_timeout_leaves_no_gnubg(marker: str) -> None:
    with pytest.raises(Exception, match="did not finish within"):
        run_script("import time\ntime.sleep(60)", timeout=1.0)
    assert _marked(marker) == []
