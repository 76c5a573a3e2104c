"""The marks' thresholds are the ones gnubg 1.07 applies: read from its own ``show analysis``."""

from __future__ import annotations

import re

import pytest

from boardgammon.analysis.analysis import BLUNDER, DOUBTFUL, ERROR
from tests.helpers.gnubg import run_script

pytestmark = pytest.mark.gnubg

# gnubg prints C stdio output that Python's sys.stdout does not see: point file descriptor 1
# at a file around the command, flushing C's buffers on both sides.
_SHOW_ANALYSIS = """\
import ctypes
libc = ctypes.CDLL(None)
path = os.environ["BOARDGAMMON_GNUBG_OUT"] + ".txt"
fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
libc.fflush(None)
saved = os.dup(1)
os.dup2(fd, 1)
gnubg.command("show analysis")
libc.fflush(None)
os.dup2(saved, 1)
os.close(fd)
emit(open(path).read())
"""


def test_thresholds_are_those_gnubg_shows():
    text = run_script(_SHOW_ANALYSIS, timeout=120)
    shown = {
        name.lower(): float(value)
        for value, name in re.findall(
            r"^\s*-(\d+\.\d+)\s+(doubtful|bad|very bad)\s*$", text, re.MULTILINE | re.IGNORECASE
        )
    }
    assert shown == {"doubtful": DOUBTFUL, "bad": ERROR, "very bad": BLUNDER}, text
