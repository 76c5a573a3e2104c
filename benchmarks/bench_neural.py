"""Neural evaluator speed beside gnubg's own, self-play training speed, hard's time per decision.

Printed figures:

* network evaluations per second, one position per Python call and batched (numba), beside
  gnubg's static evaluations per second from its ``calibrate`` command measured in the same run
  (gnubg prints calibration only to a terminal, so it runs on a pseudo-tty);
* self-play TD(λ) training games per second (the kernel of ``boardgammon train``);
* the hard level's mean and 99th-percentile time per play decision over positions from games;
* the play hint's (:func:`boardgammon.analysis.hint.play_hint`: the same 2-ply search of 8
  plays, ranked by cubeful match winning chances in a 5-point match at 0-0) on the same
  positions and rolls, with its ratio to hard's mean.
"""

from __future__ import annotations

import os
import pty
import random
import re
import select
import time

import numpy as np

from boardgammon.analysis.hint import HINT_CANDIDATES, play_hint
from boardgammon.bots import Context, create
from boardgammon.bots.network import Network, evaluate_boards
from boardgammon.bots.neural import shipped_network
from boardgammon.bots.training import train_games
from boardgammon.engine import Board, Match
from boardgammon.engine.match import Setup
from tests.helpers.gnubg import gnubg_path
from tests.helpers.processes import process_group


def sample_positions(n: int, seed: int) -> list[Board]:
    """Positions before the roll from medium-level self-play (realistic, mostly contact)."""
    rng = random.Random(seed)
    bot = create("medium")
    out: list[Board] = []
    while len(out) < n:
        board = Board.initial()
        while not board.is_game_over() and len(out) < n:
            out.append(board)
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            board = bot.choose_play(board, dice, Context()).after.swapped()
    return out


def gnubg_calibrate(seconds: float = 6.0) -> float | None:
    """gnubg's static evaluations per second on one thread, or None if unavailable.

    gnubg runs on a pseudo-tty as the leader of its own process group, ended (with its
    threads) when the time is up, by error or by Ctrl-C.
    """
    exe = gnubg_path()
    if exe is None:
        return None
    master, slave = pty.openpty()
    out = b""
    try:
        with process_group([exe, "-t", "-q"], stdin=slave, stdout=slave, stderr=slave):
            os.close(slave)
            os.write(master, b"set threads 1\ncalibrate 1000000\n")
            deadline = time.monotonic() + seconds
            while (left := deadline - time.monotonic()) > 0:
                ready, _, _ = select.select([master], [], [], left)
                if ready:
                    try:
                        out += os.read(master, 4096)
                    except OSError:  # EIO: gnubg closed the terminal
                        break
    finally:
        os.close(master)
    rates = re.findall(rb"Calibrating: (\d+) static evaluations/second", out)
    return max(map(float, rates)) if rates else None  # best, as for our own figures


def main() -> None:
    net = shipped_network()
    boards = sample_positions(400, seed=1)
    arrays = np.stack([b.array for b in boards])
    evaluate_boards(arrays[:2], 15, *net.weights)  # compile outside the timing

    # Best of seven short runs each: the machine is shared, the best run is the least disturbed
    # by other processes (a single long run measures the neighbours as much as the code).
    single = batched = 0.0
    for _ in range(7):
        t0 = time.perf_counter()
        for a in arrays:
            net.evaluate(a)
        single = max(single, len(arrays) / (time.perf_counter() - t0))
        t0 = time.perf_counter()
        evaluate_boards(arrays, 15, *net.weights)
        batched = max(batched, len(arrays) / (time.perf_counter() - t0))
    gnubg = gnubg_calibrate()
    print(f"network evaluations/s: single {single:,.0f}, batched {batched:,.0f} "
          f"({f'a joined network, 2 x {net.hidden // 2}' if net.joined else net.hidden} "
          f"hidden units)")
    if gnubg:
        print(f"gnubg calibrate (static evaluations/s, 1 thread, same run): {gnubg:,.0f}; "
              f"ratio batched/gnubg {batched / gnubg:.2f}")
    else:
        print("gnubg calibrate: not available (gnubg missing)")

    single_net = net.halves()[0] if net.joined else net  # self-play trains a single network
    trainee = Network(*(w.copy() for w in single_net.weights))
    start = Board.initial().array.copy()
    train_games(*trainee.weights, start, 15, 99, 0, 5, 0.7, 0.01, 1e5, 0.01)  # compile
    n = 300
    t0 = time.perf_counter()
    train_games(*trainee.weights, start, 15, 99, 5, n, 0.7, 0.01, 1e5, 0.01)
    print(f"self-play training: {n / (time.perf_counter() - t0):.0f} games/s (one core)")

    hard = create("hard")
    rng = random.Random(3)
    contact = [b for b in boards if b.is_contact()][::4][:60]
    hard.choose_play(contact[0], (3, 1), Context())  # compile outside the timing
    rolls = [(rng.randint(1, 6), rng.randint(1, 6)) for _ in contact]
    times = []
    for board, dice in zip(contact, rolls, strict=True):
        t0 = time.perf_counter()
        hard.choose_play(board, dice, Context())
        times.append(time.perf_counter() - t0)
    t = np.array(times)
    print(f"hard (2-ply, {hard.candidates} candidates): mean {t.mean():.3f} s, "
          f"p99 {np.percentile(t, 99):.3f} s per decision over {len(t)} contact positions; "
          f"ratio to the 1 s target {np.percentile(t, 99):.2f}")

    def waiting(board: Board, dice: tuple[int, int]) -> Match:
        return Match(5, setup=Setup(position_id=board.position_id, dice=dice))

    play_hint(waiting(contact[0], (3, 1)))  # compile outside the timing
    hint_times = []
    for board, dice in zip(contact, rolls, strict=True):
        match = waiting(board, dice)
        t0 = time.perf_counter()
        play_hint(match)
        hint_times.append(time.perf_counter() - t0)
    h = np.array(hint_times)
    print(f"play hint (2-ply, {HINT_CANDIDATES} candidates, cubeful, 5-point match): mean "
          f"{h.mean():.3f} s, p99 {np.percentile(h, 99):.3f} s over the same positions and "
          f"rolls; ratio to hard's mean {h.mean() / t.mean():.2f}")


if __name__ == "__main__":
    main()
