"""Time to start: what a fresh install costs before the first answer, cold and warm.

Each step runs in a fresh process, first with an empty numba cache (a fresh install that did
not run ``boardgammon warm``, or the first run after an edit of the source), then again with
the cache that run left (every later run):

1. ``import boardgammon.engine``;
2. the first ``Board.legal_plays`` (the move generator compiled or loaded);
3. ``boardgammon play`` up to its first prompt, through a pseudo-terminal as a person types;
4. ``boardgammon analyze`` of a saved one-point match;
5. ``boardgammon warm`` (what ``make install`` runs, so that 2–4 start warm).

Beside them, the references measured in the same run: ``python -c pass`` (the interpreter's
own start) and, when installed, GNU Backgammon's start to its prompt and exit (``gnubg -t``).
The figures of one run are in docs/startup.md.
"""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from tests.helpers import processes
from tests.helpers.gnubg import gnubg_path

PYTHON = sys.executable
PROMPT_WAIT = 600.0  # seconds: a cold compile on a busy 2-core machine took 3.5 min


def _env(cache: Path) -> dict[str, str]:
    """The environment of a fresh user whose cache lives under ``cache``."""
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(cache)
    return env


def _timed_run(args: list[str], env: dict[str, str], stdin: str | None = None) -> float:
    start = time.perf_counter()
    processes.run(args, env=env, input=stdin, timeout=PROMPT_WAIT).check_returncode()
    return time.perf_counter() - start


def _timed_prompt(args: list[str], env: dict[str, str]) -> float:
    """Seconds from starting ``args`` on a pty to its first ``"> "`` prompt; then it is killed."""
    master, slave = pty.openpty()
    start = time.perf_counter()
    proc = subprocess.Popen(args, stdin=slave, stdout=slave, stderr=slave, env=env,
                            close_fds=True, start_new_session=True)
    os.close(slave)
    out = b""
    try:
        while not out.endswith(b"> "):
            left = start + PROMPT_WAIT - time.perf_counter()
            if left <= 0 or proc.poll() is not None:
                raise RuntimeError(f"no prompt from {' '.join(args)}; output:\n{out.decode()}")
            ready, _, _ = select.select([master], [], [], min(left, 1.0))
            if ready:
                out += os.read(master, 4096)
        return time.perf_counter() - start
    finally:
        processes.end_group(proc)
        os.close(master)


def _saved_match(folder: Path) -> Path:
    """A one-point match between two easy bots, saved as .mat (made with this process's cache,
    outside the timed ones)."""
    processes.run([PYTHON, "-m", "boardgammon", "selfplay", "--games", "1", "--length", "1",
                   "--seed", "1", "--save", str(folder)]).check_returncode()
    return next(folder.glob("*.mat"))


def _steps(match: Path) -> list[tuple[str, Callable[[dict[str, str]], float]]]:
    cli = [PYTHON, "-m", "boardgammon"]
    return [
        ("import boardgammon.engine",
         lambda env: _timed_run([PYTHON, "-c", "import boardgammon.engine"], env)),
        ("first legal_plays",
         lambda env: _timed_run([PYTHON, "-c", "from boardgammon.engine import Board; "
                                 "Board.initial().legal_plays(6, 5)"], env)),
        ("boardgammon play, to its prompt",
         lambda env: _timed_prompt([*cli, "play", "--bot", "easy", "--length", "1"], env)),
        ("boardgammon analyze (1-point match)",
         lambda env: _timed_run([*cli, "analyze", str(match)], env)),
        ("boardgammon warm", lambda env: _timed_run([*cli, "warm"], env)),
    ]


def _references() -> list[tuple[str, float]]:
    env = dict(os.environ)
    found = [("python -c pass", min(_timed_run([PYTHON, "-c", "pass"], env) for _ in range(3)))]
    gnubg = gnubg_path()
    if gnubg is None:
        return found
    found.append(("gnubg -t, start and quit",
                  min(_timed_run([gnubg, "-t", "-q"], env, stdin="quit\n") for _ in range(3))))
    return found


def main() -> None:
    references = _references()
    for name, seconds in references:
        print(f"reference: {name:<26} {seconds:6.2f} s")
    base_name, base = references[-1]
    print(f"ratios against the last reference ({base_name})")
    print(f"{'step (a fresh process each)':<38} {'cold s':>7} {'warm s':>7} {'cold x':>7} "
          f"{'warm x':>7}")
    with tempfile.TemporaryDirectory() as tmp:
        match = _saved_match(Path(tmp) / "match")
        for k, (name, step) in enumerate(_steps(match)):
            env = _env(Path(tmp) / f"cache-{k}")
            cold = step(env)
            warm = step(env)
            print(f"{name:<38} {cold:7.2f} {warm:7.2f} {cold / base:7.1f} {warm / base:7.1f}",
                  flush=True)

if __name__ == "__main__":
    main()
