"""Playing strength of the neural levels, judged by gnubg (``make bench-strength``; hours, not CI).

Reports, each with a 95 % interval (normal approximation over dice sequences; error rates as a
ratio over the judged sequences, :func:`ratio_interval`):

* each level against gnubg 0-ply in cubeless money games (Jacoby off, gammons and backgammons
  count), every dice sequence played twice with the sides swapped (duplicate dice): points
  per game for the level;
* error rate per unforced move (more than one legal play) as judged by gnubg 2-ply, in
  millipoints of cubeless equity (gnubg's convention), for the level and for gnubg 0-ply in the
  same games (the first ``--analysed`` dice sequences);
* medium against easy and hard against medium, the same duplicate way;
* with ``--reference N``, gnubg N-ply against gnubg 0-ply, the same duplicate way: what a
  deeper search is worth over a net of gnubg's quality (the yardstick for how far hard can
  lead gnubg 0-ply).

Targets (issue 8): hard ≥ −0.05 points per game against gnubg 0-ply and an error rate no worse
than gnubg 0-ply's; medium within 0.15 points per game of gnubg 0-ply; each level ≥ 0.3 points
per game stronger than the one below.

    python -m benchmarks.strength [--games 1000] [--analysed 100] [--pairs 1000]
        [--levels medium hard] [--no-gnubg] [--pairings medium-easy hard-medium]
        [--reference 2]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from boardgammon.bots import Bot, Context, create, levels
from boardgammon.engine import Board, Play
from tests.helpers.gnubg import gnubg_path
from tests.helpers.processes import end_group

MAX_PLIES = 2000

_WORKER = """
import gnubg, json, os
for c in ("set player 0 human", "set player 1 human", "set jacoby off", "new game",
          "set evaluation chequerplay evaluation cubeful off",
          "set evaluation chequerplay evaluation prune on"):
    gnubg.command(c)
req = open(os.environ["REQ"])
resp = open(os.environ["RESP"], "w")
plies = None
for line in req:
    r = json.loads(line)
    if r["plies"] != plies:
        plies = r["plies"]
        gnubg.command("set evaluation chequerplay evaluation plies %d" % plies)
    gnubg.command("set board " + r["pid"])
    gnubg.command("set dice %d%d" % tuple(r["dice"]))
    if r["cmd"] == "best":
        out = list(gnubg.findbestmove())
    else:
        out = [[[x for pair in gnubg.parsemove(h["move"]) for x in pair], h["equity"]]
               for h in gnubg.hint(10000)["hint"]]
    resp.write(json.dumps(out) + "\\n")
    resp.flush()
"""


class GnubgWorker:
    """One gnubg process answering best-move and hint requests through two FIFOs (each
    request costs gnubg's ~10 ms task-queue poll plus the search)."""

    def __init__(self) -> None:
        exe = gnubg_path()
        if exe is None:
            raise RuntimeError("gnubg is not installed (Debian package 'gnubg')")
        self._tmp = tempfile.TemporaryDirectory(prefix="boardgammon-strength-")
        tmp = Path(self._tmp.name)
        (tmp / "worker.py").write_text(_WORKER)
        for name in ("req", "resp"):
            os.mkfifo(tmp / name)
        env = {**os.environ, "REQ": str(tmp / "req"), "RESP": str(tmp / "resp"), "HOME": str(tmp)}
        self._proc = subprocess.Popen([exe, "-t", "-q", "-p", str(tmp / "worker.py")], cwd=tmp,
                                      env=env, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL, start_new_session=True)
        self._req = open(tmp / "req", "w")  # noqa: SIM115 - kept open for the worker's life
        self._resp = open(tmp / "resp")  # noqa: SIM115

    def ask(self, cmd: str, board: Board, dice: tuple[int, int], plies: int):
        self._req.write(json.dumps({"cmd": cmd, "pid": board.position_id, "dice": dice,
                                    "plies": plies}) + "\n")
        self._req.flush()
        return json.loads(self._resp.readline())

    def close(self) -> None:
        """Ask gnubg to finish (end of requests), then end its process group whether it did
        or not (an interrupted search would otherwise keep a core busy)."""
        self._req.close()
        try:
            self._proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pass
        finally:
            end_group(self._proc)
            self._resp.close()
            self._tmp.cleanup()


def _after(board: Board, pairs: list[int]) -> np.ndarray:
    """The position (mover's view) after gnubg's (from, to) pairs, hits applied."""
    a = board.array.copy()
    for f, t in zip(pairs[::2], pairs[1::2], strict=True):
        a[0, f - 1] -= 1
        if t > 0:
            a[0, t - 1] += 1
            if a[1, 24 - t] == 1:
                a[1, 24 - t] = 0
                a[1, 24] += 1
    return a


def _match(board: Board, dice: tuple[int, int], pairs: list[int]) -> Play:
    target = _after(board, pairs)
    for play in board.legal_plays(*dice):
        if np.array_equal(play.after.array, target):
            return play
    raise RuntimeError(f"gnubg's move {pairs} is not legal in {board.position_id} {dice}")


class GnubgPlayer:
    """gnubg at ``plies`` choosing plays through a :class:`GnubgWorker`."""

    def __init__(self, worker: GnubgWorker, plies: int = 0) -> None:
        self.worker, self.plies = worker, plies

    def choose_play(self, board: Board, dice: tuple[int, int], context: Context) -> Play:
        pairs = self.worker.ask("best", board, dice, self.plies)
        return _match(board, dice, pairs) if pairs else board.legal_plays(*dice)[0]


Chooser = Bot | GnubgPlayer
Judge = Callable[[int, Board, tuple[int, int], Play], None]


def play_game(players: tuple[Chooser, Chooser], dice: list[tuple[int, int]],
              judge: Judge | None = None, swapped: bool = False) -> int:
    """One cubeless money game, ``players[0]`` moving first with the rolls ``dice``; returns
    the points won by ``players[0]``. ``judge(side, board, roll, play)`` sees every play, with
    ``side`` the index in ``players`` (the other index when ``swapped``)."""
    board = Board.initial()
    for ply in range(MAX_PLIES):
        side = ply % 2
        roll = dice[ply]
        play = players[side].choose_play(board, roll, Context())
        if judge is not None:
            judge(side ^ swapped, board, roll, play)
        after = play.after
        if after.borne_off(0) == after.checkers:
            points = 1 if after.borne_off(1) else (3 if after.array[1, 18:].sum() else 2)
            return points if side == 0 else -points
        board = after.swapped()
    raise RuntimeError("a game exceeded the ply cap")


def dice_sequence(seed: int) -> list[tuple[int, int]]:
    rng = random.Random(seed)
    first = (rng.randint(1, 6), rng.randint(1, 6))
    while first[0] == first[1]:
        first = (rng.randint(1, 6), rng.randint(1, 6))
    return [first] + [(rng.randint(1, 6), rng.randint(1, 6)) for _ in range(MAX_PLIES - 1)]


def interval(values: list[float]) -> str:
    v = np.asarray(values, dtype=float)
    half = 1.96 * v.std(ddof=1) / np.sqrt(len(v)) if len(v) > 1 else float("nan")
    return f"{v.mean():+.3f} ± {half:.3f}"


def duplicate(a: Chooser, b: Chooser, games: int, seed: int,
              judges: Callable[[], Judge] | None = None, analysed: int = 0) -> list[float]:
    """Points per game for ``a``, one value per dice sequence (mean of the two colours);
    ``judges()`` gives the judge of each of the first ``analysed`` sequences (both games)."""
    out = []
    for g in range(games):
        dice = dice_sequence(seed * 1_000_003 + g)
        j = judges() if judges is not None and g < analysed else None
        first = play_game((a, b), dice, j)
        second = play_game((b, a), dice, j, swapped=True)
        out.append((first - second) / 2)
    return out


class ErrorJudge:
    """Records, per side (0: the level, 1: gnubg) and per dice sequence, gnubg 2-ply's equity
    loss of each unforced play (more than one legal play): ``losses[side][k]`` lists the
    losses of the k-th judged sequence (both of its games). Called, it gives the
    :data:`Judge` of the next sequence (:func:`duplicate`'s ``judges``)."""

    def __init__(self, worker: GnubgWorker) -> None:
        self.worker = worker
        self.losses: tuple[list[list[float]], list[list[float]]] = ([], [])

    def __call__(self) -> Judge:
        sequence: tuple[list[float], list[float]] = ([], [])
        for side, kept in zip(self.losses, sequence, strict=True):
            side.append(kept)

        def judge(side: int, board: Board, roll: tuple[int, int], play: Play) -> None:
            hints = self.worker.ask("hint", board, roll, 2)
            if len(hints) < 2:
                return
            best = hints[0][1]
            for pairs, eq in hints:
                if np.array_equal(_after(board, pairs), play.after.array):
                    sequence[side].append(best - eq)
                    return

        return judge


def ratio_interval(groups: list[list[float]]) -> str:
    """Mean of all values in ``groups`` with a 95 % interval over the groups (dice
    sequences), not over single values: the plays of one game are not independent of each
    other. The ratio estimator's delta-method variance: ``r = Σt/Σn``,
    ``SE = sqrt(Σ(t_i − r·n_i)² / (k(k − 1))) / mean(n)`` over the k groups of n_i values
    summing to t_i (Cochran, *Sampling Techniques*, 1977, §6.4)."""
    t = np.array([sum(g) for g in groups], dtype=float)
    n = np.array([len(g) for g in groups], dtype=float)
    k, r = len(groups), t.sum() / n.sum()
    if k < 2:
        return f"{r:+.3f} ± nan"
    se = np.sqrt(((t - r * n) ** 2).sum() / (k * (k - 1))) / n.mean()
    return f"{r:+.3f} ± {1.96 * se:.3f}"


def main() -> None:
    ap = argparse.ArgumentParser(description="Strength of the neural levels against gnubg.")
    ap.add_argument("--games", type=int, default=1000, help="dice sequences per gnubg pairing")
    ap.add_argument("--analysed", type=int, default=100, help="sequences judged by gnubg 2-ply")
    ap.add_argument("--pairs", type=int, default=1000, help="sequences per level pairing")
    ap.add_argument("--levels", nargs="*", default=["medium", "hard"],
                    help="levels to play against gnubg 0-ply (none: skip)")
    ap.add_argument("--no-gnubg", action="store_true")
    ap.add_argument("--pairings", nargs="*", default=["medium-easy", "hard-medium"],
                    help="level pairings to play (none: skip)")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--reference", type=int, metavar="PLIES",
                    help="also play gnubg at PLIES against gnubg 0-ply (--games sequences)")
    args = ap.parse_args()
    # Checked now: a bad name used to fail only when its pairing came, maybe hours in.
    known = levels()
    for level in args.levels:
        if level not in known:
            ap.error(f"unknown level {level!r} in --levels; known: {', '.join(known)}")
    for pairing in args.pairings:
        parts = pairing.split("-")
        if len(parts) != 2 or not all(p in known for p in parts):
            ap.error(f"--pairings takes UPPER-LOWER of known levels ({', '.join(known)}), "
                     f"e.g. hard-medium; not {pairing!r}")
    if min(args.games, args.pairs) < 1 or args.analysed < 0:
        ap.error("--games and --pairs are at least 1, --analysed at least 0")
    if args.reference is not None and args.reference < 1:
        ap.error("--reference is a depth of 1 ply or more (gnubg N-ply against gnubg 0-ply)")

    if not args.no_gnubg:
        worker = GnubgWorker()
        try:
            gnubg0 = GnubgPlayer(worker, 0)
            for level in args.levels:
                judge = ErrorJudge(worker)
                t0 = time.perf_counter()
                ppg = duplicate(create(level, seed=1), gnubg0, args.games, args.seed,
                                judge, args.analysed)
                print(f"{level} vs gnubg 0-ply: {interval(ppg)} points/game over {len(ppg)} "
                      f"duplicate dice sequences ({2 * len(ppg)} games, "
                      f"{time.perf_counter() - t0:.0f} s)", flush=True)
                for name, errs in ((level, judge.losses[0]), ("gnubg 0-ply", judge.losses[1])):
                    if not errs:  # --analysed 0: no error rates asked for
                        continue
                    mp = [[1000 * e for e in seq] for seq in errs]
                    print(f"  error rate of {name} judged by gnubg 2-ply: {ratio_interval(mp)} "
                          f"millipoints per unforced move ({sum(map(len, mp))} moves in "
                          f"{len(mp)} dice sequences; the interval over sequences)", flush=True)
            if args.reference is not None:
                t0 = time.perf_counter()
                ppg = duplicate(GnubgPlayer(worker, args.reference), gnubg0, args.games,
                                args.seed + 2)
                print(f"gnubg {args.reference}-ply vs gnubg 0-ply: {interval(ppg)} points/game "
                      f"over {len(ppg)} duplicate dice sequences ({2 * len(ppg)} games, "
                      f"{time.perf_counter() - t0:.0f} s)", flush=True)
        finally:
            worker.close()
    for pairing in args.pairings:
        upper, lower = pairing.split("-")
        t0 = time.perf_counter()
        ppg = duplicate(create(upper, seed=1), create(lower, seed=1), args.pairs, args.seed + 1)
        print(f"{upper} vs {lower}: {interval(ppg)} points/game over {len(ppg)} duplicate "
              f"dice sequences ({time.perf_counter() - t0:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
