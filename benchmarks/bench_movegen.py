"""Legal-play generation speed: (position, roll) pairs per second, with resulting positions.

Corpus: 2,000 positions reached by random play (seed 2024) x the 21 rolls = 42,000 pairs. Ours:
``movegen.generate_batch`` on one core (numba, serial), best of three runs after compilation.
Reference, in the same run: GNU Backgammon listing the plays of a subset through its embedded
Python (``set board``, ``set dice``, ``hint``, then the resulting Position IDs; the listing of
``tests/engine/fixtures/gnubg_reference.py`` that makes the differential test's reference),
timed inside gnubg with ``time.perf_counter`` so that its start-up is excluded. gnubg's Python
calls pass through a task queue polled every ~10 ms, so the reference measures what a caller of
gnubg gets, not gnubg's C move generator on its own. Target: at least 100,000 pairs per
second on one core.

Ours is reported in CPU time of the generating thread (what one core does, steady on a shared
machine) and in wall-clock time; the ratio uses wall-clock time on both sides.
"""

from __future__ import annotations

import time

import numpy as np

from boardgammon.engine.movegen import generate_batch
from tests.helpers.gnubg import GnubgError, gnubg_path

# gnubg is driven exactly as for the differential test's reference: one listing script.
from tests.helpers.gnubg_reference import ROLLS, gnubg_listing
from tests.helpers.positions import random_play_positions

POSITIONS = 2000
GNUBG_POSITIONS = 15  # x 21 rolls: about 4 s of gnubg


def corpus() -> tuple[np.ndarray, np.ndarray, list[str]]:
    """``(boards int8[P, 2, 25], dice int64[P, 2], position IDs)`` of the benchmark corpus."""
    positions = random_play_positions(np.random.default_rng(2024), POSITIONS)
    boards = np.repeat(np.array([b.array for b in positions]), len(ROLLS), axis=0)
    dice = np.array(ROLLS * len(positions), dtype=np.int64)
    return boards, dice, [b.position_id for b in positions]


def ours(boards: np.ndarray, dice: np.ndarray) -> tuple[float, float, int]:
    """Best pairs per second of three runs in thread CPU time and in wall-clock time, and the
    number of legal plays found."""
    out = np.empty((len(boards) * 100, 2, 25), dtype=np.int8)
    offsets = np.empty(len(boards) + 1, dtype=np.int64)
    generate_batch(boards[:21], dice[:21], out, offsets)  # compile (or load the cache)
    cpu = wall = float("inf")
    for _ in range(3):
        start_cpu, start_wall = time.thread_time(), time.perf_counter()
        total = generate_batch(boards, dice, out, offsets)
        cpu = min(cpu, time.thread_time() - start_cpu)
        wall = min(wall, time.perf_counter() - start_wall)
    return len(boards) / cpu, len(boards) / wall, total


def gnubgs(position_ids: list[str]) -> tuple[float, int]:
    """gnubg's pairs per second on ``position_ids`` x 21 rolls, and the plays it listed; the
    listing is the one the differential test's reference is made with."""
    sets, seconds = gnubg_listing(position_ids, ROLLS)
    plays = sum(len(ids) for per_roll in sets for ids in per_roll.values())
    return len(position_ids) * len(ROLLS) / seconds, plays


def main() -> None:
    boards, dice, ids = corpus()
    cpu_rate, rate, plays = ours(boards, dice)
    print(f"corpus: {POSITIONS} positions from random play (seed 2024) x 21 rolls = "
          f"{len(boards):,} pairs, {plays:,} legal plays")
    print(f"boardgammon generate_batch, 1 core: {cpu_rate:10,.0f} pairs/s CPU time "
          f"(target 100,000), {rate:,.0f} pairs/s wall-clock")
    if gnubg_path() is None:
        print("gnubg not installed: no reference measured (Debian package gnubg)")
        return
    try:
        ref, ref_plays = gnubgs(ids[:GNUBG_POSITIONS])
    except GnubgError as exc:
        print(f"gnubg failed, no reference measured: {exc}")
        return
    print(f"gnubg 1.07 hint listing ({GNUBG_POSITIONS * 21} pairs, {ref_plays:,} plays): "
          f"{ref:,.0f} pairs/s wall-clock")
    print(f"ratio boardgammon / gnubg (wall-clock): {rate / ref:,.0f}x")


if __name__ == "__main__":
    main()
