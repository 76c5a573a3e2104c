"""Rollout speed (``boardgammon rollout``) beside gnubg's own rollout at the same settings, in
the same run.

Both roll the starting position out before the roll: whole games (no truncation), cubeless,
plays at 0-ply and then at 1-ply (gnubg with its default move filter, ours with the same: 8
plays within 0.16), variance reduction on, one thread; ours stratifies the first two rolls (a
Latin square), gnubg uses its quasi-random dice. gnubg's embedded Python has no rollout
function, so its ``rollout`` command is timed after ``set board`` (it rolls out the position on
the board; a run of twice the trials takes about twice as long, so it does roll the games out).
Each side's rate is the trials of the longer run less those of the shorter over the time between
them, which leaves out the fixed costs (gnubg's set-up, our first batch's compilation check).
"""

from __future__ import annotations

import time

from boardgammon.commands.rollout import roll_out
from boardgammon.engine import Board
from tests.helpers.gnubg import GnubgError, run_script

TRIALS = {0: (36, 108), 1: (36, 72)}
"""Trials of the shorter and the longer run at each depth (whole batches of 36 for ours)."""

_GNUBG = """
import time
for command in ("set threads 1", "set rollout cubeful off", "set rollout varredn on",
                "set rollout quasirandom on", "set rollout truncation enable off",
                "set rollout chequerplay plies " + os.environ["PLIES"],
                "set rollout cubedecision plies " + os.environ["PLIES"],
                "set board " + os.environ["POSITION_ID"]):
    gnubg.command(command)
seconds = []
for trials in os.environ["TRIALS"].split():
    gnubg.command("set rollout trials " + trials)
    t0 = time.perf_counter()
    gnubg.command("rollout")
    seconds.append(time.perf_counter() - t0)
emit(seconds)
"""


def _rate(seconds: list[float], plies: int) -> float:
    """Trials per second between the shorter and the longer run."""
    short, long = TRIALS[plies]
    return (long - short) / max(seconds[1] - seconds[0], 1e-9)


def ours(board: Board, plies: int) -> float:
    """Our trials per second on ``board`` at ``plies`` (see the module docstring)."""
    seconds = []
    for trials in TRIALS[plies]:
        t0 = time.perf_counter()
        roll_out(board, trials, truncate=0, seed=1, stratify=2, plies=plies)
        seconds.append(time.perf_counter() - t0)
    return _rate(seconds, plies)


def gnubgs(board: Board, plies: int) -> float | None:
    """gnubg's trials per second on ``board`` at ``plies``, or ``None`` where gnubg is missing
    or fails."""
    try:
        return _rate(run_script(_GNUBG, setup=True, env={
            "POSITION_ID": board.position_id, "PLIES": str(plies),
            "TRIALS": " ".join(map(str, TRIALS[plies]))}), plies)
    except GnubgError as exc:
        print(f"gnubg rollout: not available ({str(exc).splitlines()[0]})")
        return None


def main() -> None:
    board = Board.initial()
    for plies in TRIALS:
        roll_out(board, 1, truncate=2, plies=plies)  # compiled or loaded outside the timing
        mine = ours(board, plies)
        theirs = gnubgs(board, plies)
        print(f"rollout of the starting position (whole games, cubeless, {plies}-ply, variance "
              f"reduction, one thread): {mine:.2f} trials/s")
        if theirs:
            print(f"gnubg rollout at the same settings (same run): {theirs:.2f} trials/s; "
                  f"ratio ours/gnubg {mine / theirs:.2f}")


if __name__ == "__main__":
    main()
