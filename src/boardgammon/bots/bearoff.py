"""Exact one-sided bear-off database: for every home-board position of up to 15 checkers, the
probability distribution of the number of rolls needed to bear everything off.

A side's checkers on points 1–6 (none elsewhere, none on the bar) are a position; there are
C(21, 6) = 54,264 of them. Each is computed from the positions it can reach: for every one of
the 21 rolls the play that minimises the expected number of rolls is made (as gnubg's one-sided
database does), and the distribution is the roll-weighted average of the chosen positions'
distributions shifted by one roll. Plays come from the engine's own generator with no
opponent checkers, so every rule of bearing off is the engine's.

Two one-sided distributions give the exact cubeless winning chance of a race where both sides
are bearing off and neither can be gammoned (each has a checker off): the side on roll wins when
it needs no more rolls than the other (see :func:`win_probability`). The one-sided model is exact
for that chance, though not for cube or gammon decisions.

The table (7 MB) is computed on first use (seconds, numba) and cached in
``$XDG_CACHE_HOME/boardgammon`` (default ``~/.cache/boardgammon``), recomputed if missing.
"""

from __future__ import annotations

import itertools
import os
import threading
from functools import cache
from pathlib import Path

import numpy as np

from boardgammon._numba_cache import njit
from boardgammon.engine import constants, movegen
from boardgammon.engine.constants import BOARD_SHAPE, HOME_POINTS

MAX_CHECKERS = 15
MAX_ROLLS = 32  # far above the most rolls any position needs (15 on the 6-point: under 30)
N_POSITIONS = 54264  # C(21, 6)
_VERSION = 1

# The 21 distinct rolls and their probabilities (1/36 for doubles, 2/36 otherwise).
ROLLS = np.array(constants.ROLLS, dtype=np.int64)
ROLL_WEIGHTS = np.array(constants.ROLL_PROBABILITIES)


@njit(cache=True)
def _binom(n, k):
    if k < 0 or k > n:
        return 0
    r = 1
    for i in range(k):
        r = r * (n - i) // (i + 1)
    return r


@njit(cache=True)
def index(counts):
    """Index (0 … 54,263) of a home board ``counts`` (checkers on points 1–6, at most 15 in
    all), by the combinatorial number system on the partial sums."""
    r = 0
    s = 0
    for k in range(HOME_POINTS):
        s += counts[k]
        r += _binom(s + k, k + 1)
    return r


def positions() -> np.ndarray:
    """All home-board positions ``int8[54264, 6]`` in index order."""
    # Choosing the six partial-sum "bars" among 21 slots enumerates every position once.
    out = np.zeros((N_POSITIONS, HOME_POINTS), dtype=np.int8)
    for bars in itertools.combinations(range(MAX_CHECKERS + HOME_POINTS), HOME_POINTS):
        c = np.diff(np.array((-1,) + bars)) - 1
        out[index(c.astype(np.int64))] = c
    return out


@njit(cache=True, nogil=True)  # seconds, once: other threads (a server's loop) run meanwhile
def _compute(pos, order, rolls, weights):
    n = pos.shape[0]
    dist = np.zeros((n, MAX_ROLLS), dtype=np.float64)
    mean = np.zeros(n, dtype=np.float64)
    bufs = movegen.make_buffers(4096)
    work, out, dedup = bufs
    res, _, out_n, out_d = out
    board = np.zeros(BOARD_SHAPE, dtype=np.int8)
    cand = np.zeros(BOARD_SHAPE, dtype=np.int8)
    child = np.zeros(HOME_POINTS, dtype=np.int64)
    for i in order:
        total = 0
        for k in range(HOME_POINTS):
            board[0, k] = pos[i, k]
            total += pos[i, k]
        if total == 0:
            dist[i, 0] = 1.0
            continue
        for r in range(rolls.shape[0]):
            d1 = rolls[r, 0]
            d2 = rolls[r, 1]
            m, most = movegen.generate(board, d1, d2, False, work, out, dedup)
            keep = movegen.legal_mask(m, most, d1, d2, out_n, out_d)
            best = -1
            best_mean = 1e9
            for k in range(m):
                if not keep[k]:
                    continue
                movegen.unpack(res, k, cand)
                for q in range(HOME_POINTS):
                    child[q] = cand[0, q]
                j = index(child)
                if mean[j] < best_mean:
                    best_mean = mean[j]
                    best = j
            for t in range(MAX_ROLLS - 1):
                dist[i, t + 1] += weights[r] * dist[best, t]
        for t in range(MAX_ROLLS):
            mean[i] += t * dist[i, t]
    return dist


def compute() -> np.ndarray:
    """Compute the database: ``float32[54264, 32]``, row ``index(counts)``, column ``n``: the
    probability that the position needs exactly ``n`` rolls (the side rolling first)."""
    pos = positions()
    pips = pos.astype(np.int64) @ np.arange(1, HOME_POINTS + 1)
    order = np.argsort(pips, kind="stable")  # every play lowers the pip count
    return _compute(pos, order, ROLLS, ROLL_WEIGHTS).astype(np.float32)


def _cache_path() -> Path:
    root = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(root) / "boardgammon" / f"bearoff-one-sided-v{_VERSION}.npy"


_TABLE_LOCK = threading.Lock()


def table() -> np.ndarray:
    """The database (computed once, then read from the cache file). Safe from several threads
    (the server's workers and its analysis worker): the first caller loads or computes it, the
    others wait for that one instead of computing it again and writing the same file."""
    with _TABLE_LOCK:
        return _table()


@cache
def _table() -> np.ndarray:
    path = _cache_path()
    if path.exists():
        data = np.load(path)
        if data.shape == (N_POSITIONS, MAX_ROLLS):
            return data
    data = compute()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp.npy")
        np.save(tmp, data)
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only home only costs recomputation next time
    return data


@njit(cache=True)
def win_probability_of(dist_roller, dist_other):
    """Chance that the side on roll, needing ``dist_roller`` rolls, bears off first."""
    p = 0.0
    tail = 0.0
    for n in range(MAX_ROLLS - 1, -1, -1):
        tail += dist_other[n]  # P(other needs >= n)
        p += dist_roller[n] * tail
    return min(p, 1.0)  # float32 rounding of a certain win


@njit(cache=True)
def lookup_into(board, checkers, db, o):
    """If ``board`` (player on roll's view) is a race of two bear-offs with a checker off each,
    write its exact outputs ``(p, 0, 0, 0, 0)`` into ``o`` and return True; else False."""
    counts = np.zeros((2, HOME_POINTS), dtype=np.int64)
    for s in range(2):
        n = 0
        for i in range(25):
            if board[s, i] == 0:
                continue
            if i >= HOME_POINTS:
                return False
            counts[s, i] = board[s, i]
            n += board[s, i]
        if n >= checkers or n == 0 or n > MAX_CHECKERS:
            return False
    o[:] = 0.0
    o[0] = win_probability_of(db[index(counts[0])], db[index(counts[1])])
    return True


def distribution(counts: tuple[int, ...] | list[int]) -> np.ndarray:
    """Distribution ``float32[32]`` of the rolls needed to bear off a home board ``counts``
    (checkers on points 1–6).

    Raises:
        ValueError: not six counts, negative, or more than 15 checkers.
    """
    c = np.asarray(counts, dtype=np.int64)
    if c.shape != (HOME_POINTS,) or (c < 0).any() or c.sum() > MAX_CHECKERS:
        raise ValueError(f"a home board is six counts, 0-15 checkers in all, got {counts!r}")
    return table()[index(c)]


def win_probability(mine: tuple[int, ...] | list[int],
                    theirs: tuple[int, ...] | list[int]) -> float:
    """Exact chance that the side on roll with home board ``mine`` bears off before the side
    with ``theirs`` (each: checkers on points 1–6 in its own numbering).

    Raises:
        ValueError: as :func:`distribution`.
    """
    return float(win_probability_of(distribution(mine), distribution(theirs)))
