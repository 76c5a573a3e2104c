"""The neural evaluator's input encoding: a raw board in Tesauro's style plus six hand features.

A position is an ``int8[2, 25]`` array from the view of the player on roll (row 0; row 1 the
opponent, each side in its own numbering, index 24 the bar; layout of
:mod:`boardgammon.engine.movegen`). The encoding is a ``float32[N_INPUTS]`` vector, always from the
view of the player on roll, who is about to roll.

Raw board (Tesauro, "TD-Gammon, a self-teaching backgammon program", 1995), per side
(``side`` 0 = on roll, 1 = opponent), 98 units each:

* for each of the 24 points, four units: at least 1 checker, at least 2, at least 3, and
  ``(n − 3) / 2`` for the checkers beyond three (a blot, a made point and a spare are what
  matter most, so they get their own unit);
* the bar: ``n / 2``; borne off: ``n / checkers``.

Hand features (indices 196–201), the few that strong nets add because a small net learns them
slowly from the raw board:

* 196, 197: each side's pip count / 100 — the race, which the raw units express only as a sum
  over 24 points;
* 198: 1.0 when the position is a pure race (no contact), else 0.0 — race and contact positions
  are valued by different rules of thumb, the flag lets hidden units switch;
* 199: shots, the fraction of the 36 rolls with which the player on roll can hit at least one
  opponent blot (direct and combination shots; intermediate points must be open; with checkers
  on the bar only shots from the bar count) — the main tactical risk of a position, which a
  one-layer net cannot compute from the raw board;
* 200, 201: each side's longest prime (consecutive points with two or more checkers) / 6 —
  blocking structure, which holds back checkers behind it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

N_RAW = 196
N_INPUTS = 202
_SIDE = 98


@njit(cache=True, inline="always")
def _contact(b):
    ra = -1
    rb = -1
    for i in range(25):
        if b[0, i] > 0:
            ra = i
        if b[1, i] > 0:
            rb = i
    if ra < 0 or rb < 0:
        return False
    return ra + rb >= 24


@njit(cache=True, inline="always")
def _open_for_mover(b, idx):
    """Whether the player on roll may land on its own index ``idx`` (0–23)."""
    return b[1, 23 - idx] < 2


@njit(cache=True)
def _hits_with(b, d1, d2, on_bar):
    """Whether the player on roll can hit some opponent blot with the roll ``d1``-``d2``."""
    for t in range(24):
        if b[1, 23 - t] != 1:
            continue
        # The blot stands on the mover's index t; sources are behind it (higher index).
        lo = 24 if on_bar else t + 1
        for s in range(lo, 25):
            if b[0, s] == 0:
                continue
            dist = s - t
            if d1 == d2:
                if dist % d1 == 0 and dist // d1 <= 4:
                    ok = True
                    for k in range(1, dist // d1):
                        if not _open_for_mover(b, s - k * d1):
                            ok = False
                            break
                    if ok:
                        return True
            else:
                if dist == d1 or dist == d2:
                    return True
                if dist == d1 + d2 and (not on_bar or b[0, 24] == 1):
                    if _open_for_mover(b, s - d1) or _open_for_mover(b, s - d2):
                        return True
    return False


@njit(cache=True)
def shots(b):
    """Fraction of the 36 rolls with which the player on roll hits an opponent blot (0–1)."""
    has_blot = False
    for j in range(24):
        if b[1, j] == 1:
            has_blot = True
            break
    if not has_blot:
        return 0.0
    on_bar = b[0, 24] > 0
    n = 0
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            if _hits_with(b, d1, d2, on_bar):
                n += 1 if d1 == d2 else 2
    return n / 36.0


@njit(cache=True)
def _prime(b, side):
    best = 0
    run = 0
    for i in range(24):
        if b[side, i] >= 2:
            run += 1
            if run > best:
                best = run
        else:
            run = 0
    return best


@njit(cache=True)
def encode_into(b, checkers, x):
    """Write the encoding of position ``b`` (player on roll's view) into ``x`` (float32[202])."""
    for side in range(2):
        base = side * _SIDE
        on_board = 0
        pips = 0
        for p in range(24):
            n = b[side, p]
            on_board += n
            pips += n * (p + 1)
            k = base + 4 * p
            x[k] = 1.0 if n >= 1 else 0.0
            x[k + 1] = 1.0 if n >= 2 else 0.0
            x[k + 2] = 1.0 if n >= 3 else 0.0
            x[k + 3] = (n - 3) / 2.0 if n > 3 else 0.0
        bar = b[side, 24]
        on_board += bar
        pips += bar * 25
        x[base + 96] = bar / 2.0
        x[base + 97] = (checkers - on_board) / checkers
        x[N_RAW + side] = pips / 100.0
    x[N_RAW + 2] = 0.0 if _contact(b) else 1.0
    x[N_RAW + 3] = shots(b)
    x[N_RAW + 4] = _prime(b, 0) / 6.0
    x[N_RAW + 5] = _prime(b, 1) / 6.0


def as_positions(boards: np.ndarray) -> tuple[np.ndarray, bool]:
    """``(int8[P, 2, 25] contiguous, whether one position was given)`` from one position
    ``[2, 25]`` or many ``[P, 2, 25]``.

    Raises:
        ValueError: wrong shape.
    """
    a = np.asarray(boards, dtype=np.int8)
    single = a.ndim == 2
    if single:
        a = a[None]
    if a.ndim != 3 or a.shape[1:] != (2, 25):
        raise ValueError(f"positions have shape (2, 25) or (P, 2, 25), got {np.shape(boards)}")
    return np.ascontiguousarray(a), single


def encode(boards: np.ndarray, checkers: int = 15) -> np.ndarray:
    """Encode positions (player on roll's view).

    Args:
        boards: ``int8[2, 25]`` or ``int8[P, 2, 25]``.
        checkers: checkers per side (15; 3 in Hypergammon).

    Returns:
        ``float32[N_INPUTS]`` or ``float32[P, N_INPUTS]``.

    Raises:
        ValueError: wrong shape.
    """
    a, single = as_positions(boards)
    out = np.zeros((a.shape[0], N_INPUTS), dtype=np.float32)
    for i in range(a.shape[0]):
        encode_into(a[i], checkers, out[i])
    return out[0] if single else out
