"""Legal-play generation: the engine's hot path, compiled with numba.

This module is the single source of truth for which plays are legal. Everything else (``Board``,
the bots, the ``plays`` command, the benchmark) calls these kernels.

Array layout (shared with :mod:`boardgammon.engine.board`): a position is an ``int8`` array of
shape ``(2, 25)``; row 0 is the player on roll, row 1 the opponent, each in its own numbering:
index ``i`` (0–23) holds the checkers on point ``i + 1``, index 24 the checkers on the bar.
Borne-off checkers are not stored (they are the side's total minus what is on the board).

Rules implemented (international backgammon; see e.g. the gnubg manual or any standard rule book):

* checkers on the bar must enter before any other checker moves; a point held by two or more
  opposing checkers is closed; landing on a lone opposing checker (a blot) hits it to the bar;
* bearing off only with all checkers in the home board (points 1–6) and none on the bar; a die
  equal to a point bears off from it; a larger die bears off from the highest occupied point only
  when no checker stands higher, otherwise it must be moved inside;
* both dice must be played if any sequence (either order) allows it; if only one can be played,
  the larger must be played when possible; doubles move four times, as many as possible;
* plays are distinct by resulting position; a roll with no legal play (a dance) yields one play
  with zero moves.

A recorded play is its resulting position plus up to four single-die moves ``(from, to, hit)``,
with ``from`` in 1–25 (25 = bar) and ``to`` in 0–24 (0 = off), in the mover's numbering.
"""

from __future__ import annotations

import numpy as np
from numba import njit

BAR = 24  # array index of the bar
MAX_MOVES = 4
_TABLE_BITS = 13  # open-addressing table of 8192 slots: far above the most plays of any roll


@njit(cache=True, inline="always")
def _can_move(b, src, die):
    """Whether the player on roll may move a checker from index ``src`` by ``die`` pips."""
    if b[0, src] == 0:
        return False
    if src != BAR and b[0, BAR] > 0:
        return False
    dst = src - die
    if dst >= 0:
        return b[1, 23 - dst] < 2
    # Bearing off: every checker in the home board (indices 0-5), none on the bar.
    for i in range(6, 25):
        if b[0, i] > 0:
            return False
    if dst == -1:
        return True
    # A die larger than needed bears off only from the highest occupied point.
    for i in range(src + 1, 6):
        if b[0, i] > 0:
            return False
    return True


@njit(cache=True, inline="always")
def _apply(b, src, die):
    """Move one checker in place; return 1 if it hit a blot, else 0."""
    b[0, src] -= 1
    dst = src - die
    if dst < 0:
        return 0
    b[0, dst] += 1
    opp = 23 - dst
    if b[1, opp] == 1:
        b[1, opp] = 0
        b[1, BAR] += 1
        return 1
    return 0


@njit(cache=True)
def _hash(b):
    h = np.uint64(1469598103934665603)
    for s in range(2):
        for i in range(25):
            h = (h ^ np.uint64(b[s, i] + 16)) * np.uint64(1099511628211)
    return h


@njit(cache=True)
def _record(b, moves, nmoves, die_first, out_b, out_m, out_n, out_d, count, table, hashes):
    """Store a state unless an identical position with as many moves is already stored."""
    h = _hash(b)
    mask = table.shape[0] - 1
    slot = np.int64(h & np.uint64(mask))
    while table[slot] != 0:
        k = table[slot] - 1
        if hashes[k] == h and out_n[k] == nmoves:
            same = True
            for s in range(2):
                for i in range(25):
                    if out_b[k, s, i] != b[s, i]:
                        same = False
                        break
                if not same:
                    break
            if same:
                return count
        slot = (slot + 1) & mask
    if count >= out_b.shape[0]:
        return count + 1  # overflow: reported to the caller, never silently truncated
    out_b[count] = b
    out_m[count] = moves
    out_n[count] = nmoves
    out_d[count] = die_first
    hashes[count] = h
    table[slot] = count + 1
    return count + 1


@njit(cache=True)
def _search(board, dice, ndice, partial, out_b, out_m, out_n, out_d, count, table, hashes, best):
    """Depth-first search over single-die moves; returns (count, deepest depth reached).

    Iterative (an explicit stack of at most five positions), so it compiles and caches well.
    For doubles (``ndice == 4``) sources are taken in non-increasing order: every legal sequence
    of equal dice can be reordered that way without changing legality or result (gnubg prunes
    the same way), which removes most duplicate work.
    """
    stack = np.empty((MAX_MOVES + 1, 2, 25), dtype=np.int8)
    next_src = np.empty(MAX_MOVES + 1, dtype=np.int64)
    moved = np.zeros(MAX_MOVES + 1, dtype=np.bool_)
    moves = np.zeros((MAX_MOVES, 3), dtype=np.int8)
    stack[0] = board
    next_src[0] = BAR
    die_first = 0
    depth = 0
    while depth >= 0:
        if depth < ndice:
            die = dice[depth]
            src = next_src[depth]
            while src >= 0 and not _can_move(stack[depth], src, die):
                src -= 1
            if src >= 0:
                next_src[depth] = src - 1
                moved[depth] = True
                stack[depth + 1] = stack[depth]
                hit = _apply(stack[depth + 1], src, die)
                moves[depth, 0] = src + 1
                moves[depth, 1] = max(src - die + 1, 0)
                moves[depth, 2] = hit
                if depth == 0:
                    die_first = die
                next_src[depth + 1] = src if ndice == 4 else BAR
                moved[depth + 1] = False
                depth += 1
                continue
        # Every move from this node has been tried: record it if it is a leaf (or if asked).
        if depth > best:
            best = depth
        if partial or not moved[depth]:
            count = _record(stack[depth], moves, depth, die_first if depth > 0 else 0,
                            out_b, out_m, out_n, out_d, count, table, hashes)
        depth -= 1
        if depth >= 0:
            moves[depth, 0] = 0
            moves[depth, 1] = 0
            moves[depth, 2] = 0
    return count, best


@njit(cache=True)
def generate(board, d1, d2, partial, out_b, out_m, out_n, out_d, table, hashes):
    """Generate the plays of ``board`` for the roll ``d1``-``d2`` into the output arrays.

    Args:
        board: ``int8[2, 25]`` position, player on roll first (layout in the module docstring).
        d1, d2: the dice, 1–6 each, in any order.
        partial: also record every incomplete play (fewer moves than the dice allow); used to
            explain why a submitted play is refused.
        out_b: ``int8[N, 2, 25]`` resulting positions (mover's view, not swapped).
        out_m: ``int8[N, 4, 3]`` the single-die moves ``(from, to, hit)`` of each play.
        out_n: ``int8[N]`` number of moves of each play.
        out_d: ``int8[N]`` the die of the first move (tells which die a one-move play used).
        table, hashes: scratch space, ``int32[2**k]`` and ``uint64[N]``.

    Returns:
        ``(n, best)``: ``n`` states were written (``n > N`` means the output overflowed) and
        ``best`` is the most dice any sequence plays; :func:`legal_mask` picks the legal plays.
    """
    table[:] = 0
    count = 0
    best = 0
    if d1 == d2:
        dice = np.array([d1, d1, d1, d1], dtype=np.int64)
        count, best = _search(board, dice, 4, partial, out_b, out_m, out_n, out_d,
                              count, table, hashes, best)
    else:
        dice = np.array([d1, d2], dtype=np.int64)
        count, best = _search(board, dice, 2, partial, out_b, out_m, out_n, out_d,
                              count, table, hashes, best)
        dice[0] = d2
        dice[1] = d1
        count, best = _search(board, dice, 2, partial, out_b, out_m, out_n, out_d,
                              count, table, hashes, best)
    return count, best


@njit(cache=True)
def legal_mask(n, best, d1, d2, out_n, out_d):
    """Which of the ``n`` generated states are legal plays.

    A legal play uses as many dice as possible (``best``); when only one die of a non-double can
    be played, plays of the larger die are kept whenever any exists.
    """
    keep = np.zeros(n, dtype=np.bool_)
    hi = max(d1, d2)
    larger_exists = False
    if best == 1 and d1 != d2:
        for k in range(n):
            if out_n[k] == 1 and out_d[k] == hi:
                larger_exists = True
                break
    for k in range(n):
        if out_n[k] != best:
            continue
        if best == 1 and d1 != d2 and larger_exists and out_d[k] != hi:
            continue
        keep[k] = True
    return keep


@njit(cache=True)
def generate_batch(boards, dice, out_b, out_offsets):
    """Legal resulting positions for many (position, roll) pairs in one call.

    Args:
        boards: ``int8[P, 2, 25]`` positions, player on roll first.
        dice: ``int64[P, 2]`` the rolls.
        out_b: ``int8[M, 2, 25]`` receives every legal resulting position, pair after pair.
        out_offsets: ``int64[P + 1]`` receives where each pair's plays start in ``out_b``.

    Returns:
        the number of positions written, or ``-1`` if ``out_b`` was too small.
    """
    cap = 4096
    tb = np.empty((cap, 2, 25), dtype=np.int8)
    tm = np.empty((cap, 4, 3), dtype=np.int8)
    tn = np.empty(cap, dtype=np.int8)
    td = np.empty(cap, dtype=np.int8)
    table = np.zeros(1 << _TABLE_BITS, dtype=np.int32)
    hashes = np.empty(cap, dtype=np.uint64)
    total = 0
    for p in range(boards.shape[0]):
        d1 = dice[p, 0]
        d2 = dice[p, 1]
        n, best = generate(boards[p], d1, d2, False, tb, tm, tn, td, table, hashes)
        keep = legal_mask(n, best, d1, d2, tn, td)
        out_offsets[p] = total
        for k in range(n):
            if keep[k]:
                if total >= out_b.shape[0]:
                    return -1
                out_b[total] = tb[k]
                total += 1
    out_offsets[boards.shape[0]] = total
    return total


class Generator:
    """Reusable scratch buffers around :func:`generate` for one-at-a-time calls from Python."""

    def __init__(self, capacity: int = 4096) -> None:
        self.out_b = np.empty((capacity, 2, 25), dtype=np.int8)
        self.out_m = np.empty((capacity, MAX_MOVES, 3), dtype=np.int8)
        self.out_n = np.empty(capacity, dtype=np.int8)
        self.out_d = np.empty(capacity, dtype=np.int8)
        self.table = np.zeros(1 << _TABLE_BITS, dtype=np.int32)
        self.hashes = np.empty(capacity, dtype=np.uint64)

    def run(self, board: np.ndarray, d1: int, d2: int, partial: bool = False):
        """Return ``(boards, moves, nmoves, first_die, legal_mask, best)`` as numpy arrays.

        Raises:
            OverflowError: more distinct states than the buffers hold (never seen in practice).
        """
        n, best = generate(board, d1, d2, partial, self.out_b, self.out_m, self.out_n,
                           self.out_d, self.table, self.hashes)
        if n > self.out_b.shape[0]:
            raise OverflowError(f"{n} play states exceed the generator's capacity")
        keep = legal_mask(n, best, d1, d2, self.out_n, self.out_d)
        return (self.out_b[:n].copy(), self.out_m[:n].copy(), self.out_n[:n].copy(),
                self.out_d[:n].copy(), keep, best)
