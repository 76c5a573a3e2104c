"""A command whose optional dependencies (pyproject's extras) are not installed names the extra
to install instead of ending in a traceback."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

from boardgammon.cli import EXTRAS

# The interpreter as if uvicorn were not installed: importing it raises ModuleNotFoundError.
WITHOUT_UVICORN = ("import sys; sys.modules['uvicorn'] = None; "
                   "sys.argv = ['boardgammon', 'serve']; from boardgammon.cli import main; main()")


def test_serve_without_the_server_extra_says_what_to_install():
    done = subprocess.run([sys.executable, "-c", WITHOUT_UVICORN], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 1
    assert "pip install 'boardgammon[server]'" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_extras_named_are_pyprojects():
    pyproject = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
    assert set(EXTRAS.values()) <= set(pyproject["project"]["optional-dependencies"])
