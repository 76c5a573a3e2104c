"""``python -m boardgammon`` runs the console script's commands (a fresh user tried it)."""

from __future__ import annotations

import subprocess
import sys


def test_python_dash_m_runs_the_cli():
    done = subprocess.run([sys.executable, "-m", "boardgammon", "--help"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "Usage: boardgammon" in done.stdout
    for command in ("analyze", "serve", "train", "selfplay"):
        assert command in done.stdout
