"""Build ``training/judged.npz`` and score players on it: a fixed set of unforced checker-play
decisions with every legal play valued by gnubg 2-ply, so that a candidate network's error rate
as gnubg judges it costs seconds instead of the hours of ``make bench-strength``.

Positions come from cubeless money games of gnubg 0-ply against itself with one play in ten
chosen at random (so the set holds the odd positions weaker players reach, and does not depend
on any of our networks), one unforced decision in three.
gnubg's ``hint`` at 2-ply values every legal play of the roll (cubeless equity, mover's view).
A player's error on a decision is the best play's equity minus that of the play it chose; the
error rate is the mean over decisions in millipoints (gnubg's convention), as in
``make bench-strength``, but on one fixed set of positions for every player, so that two networks
are compared on the same decisions (a paired difference with its own interval).

    python -m training.make_judged build [--decisions 1500] [--seed 11]
    python -m training.make_judged score [--weights A.npz B.npz …] [--levels medium hard]
        [--gnubg]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np

from benchmarks.strength import (
    GnubgPlayer,
    GnubgWorker,
    _after,
    dice_sequence,
)
from boardgammon.bots import Context
from boardgammon.bots.network import Network
from boardgammon.bots.neural import HardBot, MediumBot
from boardgammon.engine import Board

PATH = Path(__file__).resolve().parent / "judged.npz"


def build(decisions: int, seed: int) -> None:
    worker = GnubgWorker()
    rng = random.Random(seed)
    gnubg0 = GnubgPlayer(worker, 0)
    boards, dice, offsets, afters, equities = [], [], [0], [], []
    t0 = time.perf_counter()
    game = 0
    try:
        while len(boards) < decisions:
            rolls = dice_sequence(seed * 1_000_003 + game)
            game += 1
            board = Board.initial()
            for ply in range(len(rolls)):
                roll = rolls[ply]
                plays = board.legal_plays(*roll)
                if len(plays) > 1 and rng.random() < 1 / 3:
                    hints = worker.ask("hint", board, roll, 2)
                    boards.append(board.array.copy())
                    dice.append(roll)
                    for pairs, eq in hints:
                        afters.append(_after(board, pairs))
                        equities.append(eq)
                    offsets.append(len(afters))
                if rng.random() < 0.1:
                    play = plays[rng.randrange(len(plays))]
                else:
                    play = gnubg0.choose_play(board, roll, Context())
                after = play.after
                if after.borne_off(0) == after.checkers or len(boards) >= decisions:
                    break
                board = after.swapped()
            print(f"\r{len(boards)} decisions, {game} games, "
                  f"{time.perf_counter() - t0:.0f} s", end="", file=sys.stderr, flush=True)
    finally:
        worker.close()
    print(file=sys.stderr)
    np.savez_compressed(PATH, boards=np.stack(boards), dice=np.array(dice, dtype=np.int8),
                        offsets=np.array(offsets, dtype=np.int64),
                        afters=np.stack(afters), equities=np.array(equities, dtype=np.float32))


def errors_of(chooser, data) -> np.ndarray:
    """Equity lost (gnubg 2-ply) by ``chooser`` on each decision of ``data``."""
    out = np.empty(len(data["boards"]))
    for i, (arr, roll) in enumerate(zip(data["boards"], data["dice"], strict=True)):
        board = Board(arr)
        play = chooser.choose_play(board, (int(roll[0]), int(roll[1])), Context())
        lo, hi = data["offsets"][i], data["offsets"][i + 1]
        eq = data["equities"][lo:hi]
        hit = [k for k in range(lo, hi) if np.array_equal(data["afters"][k], play.after.array)]
        if not hit:
            raise RuntimeError(f"play {play} not among gnubg's in decision {i}")
        out[i] = eq.max() - data["equities"][hit[0]]
    return out


def score(weights: list[str], levels: list[str], with_gnubg: bool, dump: str | None) -> None:
    with np.load(PATH) as z:
        data = {k: z[k] for k in z.files}
    n = len(data["boards"])
    contact = np.array([Board(b).is_contact() for b in data["boards"]])
    results: dict[str, np.ndarray] = {}
    choosers = []
    for w in weights or [None]:
        net = Network.load(w, widen=True) if w else None
        name = Path(w).stem if w else "shipped"
        for level in levels:
            bot = MediumBot(seed=1, network=net) if level == "medium" else HardBot(seed=1,
                                                                                  network=net)
            choosers.append((f"{level}/{name}", bot))
    if dump:
        Path(dump).mkdir(parents=True, exist_ok=True)  # before the minutes of scoring
    worker = GnubgWorker() if with_gnubg else None
    if worker:
        choosers.append(("gnubg 0-ply", GnubgPlayer(worker, 0)))
    try:
        for name, chooser in choosers:
            t0 = time.perf_counter()
            e = 1000 * errors_of(chooser, data)
            results[name] = e
            if dump:
                np.save(Path(dump) / f"{name.replace('/', '_').replace(' ', '_')}.npy", e)
            half = 1.96 * e.std(ddof=1) / np.sqrt(n)
            print(f"{name:28s} {e.mean():6.2f} ± {half:.2f} mp/decision over {n} "
                  f"(contact {e[contact].mean():.2f}, race {e[~contact].mean():.2f}; "
                  f"{time.perf_counter() - t0:.0f} s)", flush=True)
    finally:
        if worker:
            worker.close()
    names = list(results)
    for a, b in zip(names, names[1:], strict=False):
        d = results[a] - results[b]
        print(f"{a} − {b}: {d.mean():+.2f} ± {1.96 * d.std(ddof=1) / np.sqrt(n):.2f} mp")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("--decisions", type=int, default=1500)
    b.add_argument("--seed", type=int, default=11)
    s = sub.add_parser("score")
    s.add_argument("--weights", nargs="*", default=[])
    s.add_argument("--levels", nargs="+", default=["medium"])
    s.add_argument("--gnubg", action="store_true")
    s.add_argument("--dump", help="directory for each player's per-decision errors (.npy)")
    args = ap.parse_args()
    if args.cmd == "build":
        build(args.decisions, args.seed)
    else:
        score(args.weights, args.levels, args.gnubg, args.dump)


if __name__ == "__main__":
    main()
