"""Run Python inside GNU Backgammon (Debian package ``gnubg``) and read back a JSON result.

gnubg runs a script with ``gnubg -t -q -p script.py``; the script gets no arguments and gnubg
prints a banner, so parameters go in through environment variables and the result comes back
through a file (see ``../shared/reference/gnubg-as-oracle.md``). A script calls the injected
``emit(obj)`` once to return a JSON-serialisable result.

>>> run_script("emit(gnubg.positionid())", setup=True)  # doctest: +SKIP
'4HPwATDgc/ABMA'
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from tests.helpers import processes

_CANDIDATES = ("gnubg", "/usr/games/gnubg")

_PRELUDE = """\
import gnubg, json, os
def emit(obj):
    with open(os.environ["BOARDGAMMON_GNUBG_OUT"], "w") as f:
        json.dump(obj, f)
"""

_SETUP = """\
gnubg.command("set player 0 human")
gnubg.command("set player 1 human")
gnubg.command("set jacoby off")
gnubg.command("new game")
"""


class GnubgError(RuntimeError):
    """gnubg is missing, failed, timed out, or its script emitted nothing."""


def gnubg_path() -> str | None:
    """The gnubg executable (``gnubg`` on PATH or Debian's ``/usr/games/gnubg``), or ``None``."""
    for name in _CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


def run_script(body: str, *, setup: bool = False, env: dict[str, str] | None = None,
               timeout: float = 600.0) -> Any:
    """Run ``body`` inside gnubg's embedded Python and return what it passed to ``emit``.

    Args:
        body: Python source run with ``gnubg``, ``json``, ``os`` and ``emit`` in scope.
        setup: first make both players human, Jacoby off, and start a new game (needed before
            ``set board`` and ``set dice``).
        env: extra environment variables for the script (its only way to get parameters).
        timeout: seconds before the run is killed.

    Raises:
        GnubgError: gnubg not installed, non-zero exit, timeout, or no result emitted.
    """
    exe = gnubg_path()
    if exe is None:
        raise GnubgError("gnubg is not installed (Debian package 'gnubg'; `make test` installs it)")
    with tempfile.TemporaryDirectory(prefix="boardgammon-gnubg-") as tmp:
        script = Path(tmp) / "script.py"
        out = Path(tmp) / "out.json"
        script.write_text(_PRELUDE + (_SETUP if setup else "") + body)
        run_env = {**os.environ, **(env or {}), "BOARDGAMMON_GNUBG_OUT": str(out),
                   "HOME": tmp}
        try:
            proc = processes.run([exe, "-t", "-q", "-p", str(script)], cwd=tmp, env=run_env,
                                 timeout=timeout)
        except subprocess.TimeoutExpired as exc:
            raise GnubgError(f"gnubg did not finish within {timeout} s") from exc
        if not out.exists():
            raise GnubgError(f"gnubg emitted no result (exit {proc.returncode}):\n"
                             f"{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
        return json.loads(out.read_text())


def run_commands(commands: list[str], timeout: float = 600.0) -> str:
    """Type ``commands`` into gnubg's command line (``gnubg -t -q``, both players human) and
    return what it printed: for what its Python interface does not give, such as the cubeful
    equities of ``eval``.

    Raises:
        GnubgError: gnubg not installed or timed out.
    """
    exe = gnubg_path()
    if exe is None:
        raise GnubgError("gnubg is not installed (Debian package 'gnubg'; `make test` installs it)")
    with tempfile.TemporaryDirectory(prefix="boardgammon-gnubg-") as tmp:
        try:
            proc = processes.run([exe, "-t", "-q"], cwd=tmp, env={**os.environ, "HOME": tmp},
                                 timeout=timeout,
                                 input="\n".join(["set player 0 human", "set player 1 human",
                                                  *commands]) + "\n")
        except subprocess.TimeoutExpired as exc:
            raise GnubgError(f"gnubg did not finish within {timeout} s") from exc
        return proc.stdout


def cube_analyses(output: str) -> list[tuple[tuple[float, ...], tuple[float, float, float]]]:
    """Of every ``eval`` in gnubg's ``output`` (:func:`run_commands`), in order: its cubeless
    outputs ``(win, win gammon, win backgammon, lose gammon, lose backgammon)`` at the cube
    decision's depth, and its ``(no double, double/take, double/pass)``."""
    found = []
    for block in output.split("Cube analysis")[1:]:
        probs = [float(v) for v in re.search(
            r"\n\s*([\d.]+) ([\d.]+) ([\d.]+) - [\d.]+ ([\d.]+) ([\d.]+)", block).groups()]
        values = dict(re.findall(r"\d\. (No double|Double, take|Double, pass)\s+([+-]\d+\.\d+)",
                                 block))
        found.append((tuple(probs), (float(values["No double"]), float(values["Double, take"]),
                                     float(values["Double, pass"]))))
    return found


def cube_equities(output: str) -> list[tuple[float, float, float]]:
    """``(no double, double/take, double/pass)`` of every ``eval`` in gnubg's ``output``
    (:func:`run_commands`), in order."""
    return [values for _, values in cube_analyses(output)]
