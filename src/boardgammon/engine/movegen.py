"""Legal-play generation: the engine's hot path, compiled with numba.

This module is the single source of truth for which plays are legal. Everything else (``Board``,
the bots, the ``plays`` command, the benchmark) calls these kernels.

Array layout (:mod:`boardgammon.engine.constants`, shared with :mod:`boardgammon.engine.board`):
a position is an ``int8`` array of shape ``(2, 25)``; row 0 is the player on roll, row 1 the
opponent, each in its own numbering: index ``i`` (0–23) holds the checkers on point ``i + 1``,
index 24 (``BAR_INDEX``) the checkers on the bar.
Borne-off checkers are not stored (they are the side's total minus what is on the board). The
mover's index ``i`` is the opponent's index ``23 - i``.

Rules implemented (international backgammon, as in the rules of the World Backgammon
Federation and in GNU Backgammon, against which :mod:`tests.engine.test_gnubg_diff` checks them):

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

Inside the kernels a position is one flat, padded ``int8[64]`` ("work board"): the mover's 25
places at bytes 0–24, the opponent's at bytes 32–56, zeros elsewhere, so that it is also eight
``uint64`` words that are copied, hashed and compared word by word. The search is iterative
(numba's recursion together with ``cache=True`` crashed) and moves and unmoves checkers on that
one board. Duplicates are found with an open-addressing hash table whose slots carry a
generation stamp, so the table never needs clearing between calls.
"""

from __future__ import annotations

import numpy as np

from boardgammon._numba_cache import njit

from .constants import BAR_INDEX, HOME_POINTS, ROW_LENGTH

MAX_MOVES = 4
_OPP = 32  # byte offset of the opponent's places in a work board
_WORDS = 8  # a work board is 64 bytes
_CAPACITY = 4096  # distinct states one roll can produce, partial ones included


@njit(cache=True, inline="always")
def _can_move(w, outside, src, die):
    """Whether the player on roll may move a checker from index ``src`` by ``die`` pips.

    The caller guarantees that a checker stands on ``src`` and that the bar is empty unless
    ``src`` is the bar; ``outside`` counts the mover's checkers outside the home board.
    """
    dst = src - die
    if dst >= 0:
        return w[_OPP + 23 - dst] < 2
    # Bearing off: every checker in the home board (which also means none on the bar).
    if outside > 0:
        return False
    if dst == -1:
        return True
    # A die larger than needed bears off only from the highest occupied point.
    for i in range(src + 1, HOME_POINTS):
        if w[i] > 0:
            return False
    return True


@njit(cache=True, inline="always")
def _apply(w, src, dst):
    """Move one checker from ``src`` to ``dst`` (< 0: off) in place; return 1 if it hit."""
    w[src] -= 1
    if dst < 0:
        return 0
    w[dst] += 1
    opp = _OPP + 23 - dst
    if w[opp] == 1:
        w[opp] = 0
        w[_OPP + BAR_INDEX] += 1
        return 1
    return 0


@njit(cache=True, inline="always")
def _undo(w, src, dst, hit):
    """Take back :func:`_apply`."""
    w[src] += 1
    if dst < 0:
        return
    w[dst] -= 1
    if hit:
        w[_OPP + 23 - dst] = 1
        w[_OPP + BAR_INDEX] -= 1


@njit(cache=True, inline="always")  # called at every leaf: inlining saved ~20%
def _record(w64, moves, nmoves, die_first, out, dedup, count):
    """Store a state unless an identical position with as many moves is already stored."""
    res, out_m, out_n, out_d = out
    table, gen = dedup
    h = np.uint64(0)
    for i in range(_WORDS):
        h = (h ^ w64[i]) * np.uint64(0x9E3779B97F4A7C15)
    h ^= h >> np.uint64(32)
    mask = table.shape[0] - 1
    slot = np.int64(h & np.uint64(mask))
    stamp = gen[0] << 32
    while table[slot] >= stamp:
        k = table[slot] - stamp
        if out_n[k] == nmoves:
            same = True
            for i in range(_WORDS):
                if res[k, i] != w64[i]:
                    same = False
                    break
            if same:
                return count
        slot = (slot + 1) & mask
    if count >= res.shape[0]:
        return count + 1  # overflow: reported to the caller, never silently truncated
    for i in range(_WORDS):
        res[count, i] = w64[i]
    for i in range(MAX_MOVES):
        for j in range(3):
            out_m[count, i, j] = moves[i, j]
    out_n[count] = nmoves
    out_d[count] = die_first
    table[slot] = stamp + count
    return count + 1


@njit(cache=True)
def _search(dice, ndice, partial, work, out, dedup, count, best):
    """Depth-first search over single-die moves from the work board; returns
    ``(count, deepest depth reached)``.

    For doubles (``ndice == 4``) sources are taken in non-increasing order: every legal sequence
    of equal dice can be reordered that way without changing legality or result (gnubg prunes
    the same way), which removes most duplicate work. Unless ``partial``, only the leaves of the
    search that use at least ``best`` dice so far are stored.
    """
    w64, outside, next_src, moved, moves, _ = work
    w = w64.view(np.int8)
    next_src[0] = BAR_INDEX
    moved[0] = False
    die_first = 0
    depth = 0
    while depth >= 0:
        if depth < ndice:
            die = dice[depth]
            # With a checker on the bar, only the bar may move.
            low = BAR_INDEX if w[BAR_INDEX] > 0 else 0
            src = next_src[depth]
            while src >= low and (w[src] == 0 or not _can_move(w, outside[depth], src, die)):
                src -= 1
            if src >= low:
                next_src[depth] = src - 1
                moved[depth] = True
                dst = src - die
                moves[depth, 0] = src + 1
                moves[depth, 1] = max(dst + 1, 0)
                moves[depth, 2] = _apply(w, src, dst)
                entered_home = src >= HOME_POINTS and 0 <= dst < HOME_POINTS
                outside[depth + 1] = outside[depth] - (1 if entered_home else 0)
                if depth == 0:
                    die_first = die
                next_src[depth + 1] = src if ndice == 4 else BAR_INDEX
                moved[depth + 1] = False
                depth += 1
                continue
        # Every move from this node has been tried: store it if it is a leaf (or if asked).
        if depth > best:
            best = depth
        if partial or (not moved[depth] and depth >= best):
            count = _record(w64, moves, depth, die_first if depth > 0 else 0, out, dedup, count)
        depth -= 1
        if depth >= 0:
            src = moves[depth, 0] - 1
            _undo(w, src, src - dice[depth], moves[depth, 2])
            moves[depth, 0] = 0
            moves[depth, 1] = 0
            moves[depth, 2] = 0
    return count, best


@njit(cache=True)
def generate(board, d1, d2, partial, work, out, dedup):
    """Generate the plays of ``board`` for the roll ``d1``-``d2`` into ``out``.

    Args:
        board: ``int8[2, 25]`` valid position, player on roll first (layout in the module
            docstring).
        d1, d2: the dice, 1–6 each, in any order.
        partial: also store every incomplete play (fewer moves than the dice allow); used to
            explain why a submitted play is refused.
        work, out, dedup: buffers from :func:`make_buffers`. ``out`` receives
            ``(res, out_m, out_n, out_d)``: resulting positions as work boards
            ``uint64[N, 8]`` (mover's view, not swapped; :func:`unpack` turns one into
            ``int8[2, 25]``), single-die moves ``int8[N, 4, 3]`` ``(from, to, hit)``, number
            of moves ``int8[N]``, and the die of the first move ``int8[N]`` (which die a
            one-move play used).

    Returns:
        ``(n, best)``: ``n`` states were stored (``n > N`` means the output overflowed) and
        ``best`` is the most dice any sequence plays; :func:`legal_mask` picks the legal plays.
    """
    w64, outside, _, _, moves, dice = work
    table, gen = dedup
    gen[0] += 1  # a new stamp empties the hash table without touching it
    if gen[0] >= 1 << 30:  # before ``stamp << 32`` would overflow: clear once and start again
        table[:] = 0
        gen[0] = 1
    w = w64.view(np.int8)
    n_out = 0
    for i in range(ROW_LENGTH):
        w[i] = board[0, i]
        w[_OPP + i] = board[1, i]
        if i >= HOME_POINTS:
            n_out += board[0, i]
    outside[0] = n_out
    moves[:, :] = 0
    if d1 == d2:
        dice[:] = d1
        return _search(dice, 4, partial, work, out, dedup, 0, 0)
    # The larger die first: a one-move play reachable with either die is then stored as a play
    # of the larger one, which is the die the rules require when only one can be played.
    dice[0] = max(d1, d2)
    dice[1] = min(d1, d2)
    count, best = _search(dice, 2, partial, work, out, dedup, 0, 0)
    dice[0] = min(d1, d2)
    dice[1] = max(d1, d2)
    return _search(dice, 2, partial, work, out, dedup, count, best)


@njit(cache=True)
def unpack(res, k, board):
    """Write stored state ``k`` of ``res`` (work boards ``uint64[N, 8]``) into ``board``
    (``int8[2, 25]``)."""
    w = res[k].view(np.int8)
    for i in range(ROW_LENGTH):
        board[0, i] = w[i]
        board[1, i] = w[_OPP + i]


@njit(cache=True)
def _keep(k, best, hi_only, hi, out_n, out_d):
    """Whether generated state ``k`` is a legal play (see :func:`legal_mask`)."""
    return out_n[k] == best and (not hi_only or out_d[k] == hi)


@njit(cache=True)
def _hi_only(n, best, d1, d2, out_n, out_d):
    """Whether only plays of the larger die are legal: one die only can be played, and some
    one-move play uses the larger die."""
    if best != 1 or d1 == d2:
        return False
    hi = max(d1, d2)
    for k in range(n):
        if out_n[k] == 1 and out_d[k] == hi:
            return True
    return False


@njit(cache=True)
def legal_mask(n, best, d1, d2, out_n, out_d):
    """Which of the ``n`` generated states are legal plays (``bool[n]``).

    A legal play uses as many dice as possible (``best``); when only one die of a non-double can
    be played, plays of the larger die are kept whenever any exists.
    """
    hi_only = _hi_only(n, best, d1, d2, out_n, out_d)
    hi = max(d1, d2)
    keep = np.zeros(n, dtype=np.bool_)
    for k in range(n):
        keep[k] = _keep(k, best, hi_only, hi, out_n, out_d)
    return keep


@njit(cache=True)
def make_buffers(capacity):
    """Fresh ``(work, out, dedup)`` buffers for :func:`generate`, holding ``capacity`` states."""
    work = (np.zeros(_WORDS, dtype=np.uint64),
            np.empty(MAX_MOVES + 1, dtype=np.int64),
            np.empty(MAX_MOVES + 1, dtype=np.int64),
            np.empty(MAX_MOVES + 1, dtype=np.bool_),
            np.zeros((MAX_MOVES, 3), dtype=np.int8),
            np.empty(MAX_MOVES, dtype=np.int64))
    out = (np.empty((capacity, _WORDS), dtype=np.uint64),
           np.empty((capacity, MAX_MOVES, 3), dtype=np.int8),
           np.empty(capacity, dtype=np.int8),
           np.empty(capacity, dtype=np.int8))
    # Slots hold ``stamp << 32 | index``; at least twice the capacity keeps probe chains short.
    slots = 1
    while slots < 2 * capacity:
        slots *= 2
    dedup = (np.zeros(slots, dtype=np.int64), np.zeros(1, dtype=np.int64))
    return work, out, dedup


@njit(cache=True, nogil=True)  # batches run long enough to stall other threads
def generate_batch_with_moves(boards, dice, out_b, out_m, out_n, out_offsets):
    """:func:`generate_batch` that also writes each legal play's moves.

    Args:
        boards, dice, out_b, out_offsets: as for :func:`generate_batch`.
        out_m: ``int8[M, 4, 3]`` receives each play's single-die moves ``(from, to, hit)``, or
            ``int8[0, 4, 3]`` to skip them.
        out_n: ``int8[M]`` receives each play's number of moves (or ``int8[0]``).

    Returns:
        the number of plays written, or ``-1`` if an output was too small.

    Raises:
        ValueError: a die outside 1–6.
    """
    work, out, dedup = make_buffers(_CAPACITY)
    res, res_m, res_n, res_d = out
    with_moves = out_m.shape[0] > 0
    total = 0
    for p in range(boards.shape[0]):
        d1 = dice[p, 0]
        d2 = dice[p, 1]
        if d1 < 1 or d1 > 6 or d2 < 1 or d2 > 6:
            raise ValueError("a die shows 1-6")
        n, best = generate(boards[p], d1, d2, False, work, out, dedup)
        if n > _CAPACITY:
            raise OverflowError("more play states than the generator's capacity")
        hi_only = _hi_only(n, best, d1, d2, res_n, res_d)
        hi = max(d1, d2)
        out_offsets[p] = total
        for k in range(n):
            if _keep(k, best, hi_only, hi, res_n, res_d):
                if total >= out_b.shape[0] or (with_moves and total >= out_m.shape[0]):
                    return -1
                unpack(res, k, out_b[total])
                if with_moves:
                    out_m[total] = res_m[k]
                    out_n[total] = res_n[k]
                total += 1
    out_offsets[boards.shape[0]] = total
    return total


@njit(cache=True, nogil=True)
def generate_batch(boards, dice, out_b, out_offsets):
    """Legal resulting positions for many (position, roll) pairs in one call.

    Args:
        boards: ``int8[P, 2, 25]`` valid positions, player on roll first.
        dice: ``int64[P, 2]`` the rolls, 1–6 each.
        out_b: ``int8[M, 2, 25]`` receives every legal resulting position (mover's view, not
            swapped), pair after pair, each pair's in the order of :func:`generate`.
        out_offsets: ``int64[P + 1]`` receives where each pair's plays start in ``out_b``.

    Returns:
        the number of positions written, or ``-1`` if ``out_b`` was too small.

    Raises:
        ValueError: a die outside 1–6.
    """
    return generate_batch_with_moves(boards, dice, out_b, np.empty((0, MAX_MOVES, 3), np.int8),
                                     np.empty(0, np.int8), out_offsets)


class Generator:
    """Reusable buffers around :func:`generate` for one-at-a-time calls from Python."""

    def __init__(self, capacity: int = _CAPACITY) -> None:
        self._buffers = make_buffers(capacity)
        self._capacity = capacity

    def run(self, board: np.ndarray, d1: int, d2: int, partial: bool = False):
        """Return ``(boards, moves, nmoves, first_die, legal_mask, best)`` as numpy arrays.

        ``boards`` ``int8[n, 2, 25]`` (mover's view), ``moves`` ``int8[n, 4, 3]``, ``nmoves``
        and ``first_die`` ``int8[n]``, ``legal_mask`` ``bool[n]``, ``best`` an int: the states
        of :func:`generate`, copied out of the buffers.

        Raises:
            OverflowError: more distinct states than the buffers hold (never seen in practice).
        """
        work, out, dedup = self._buffers
        n, best = generate(board, d1, d2, partial, work, out, dedup)
        if n > self._capacity:
            raise OverflowError(f"{n} play states exceed the generator's capacity")
        res, out_m, out_n, out_d = out
        keep = legal_mask(n, best, d1, d2, out_n, out_d)
        boards = np.empty((n, 2, 25), dtype=np.int8)
        for k in range(n):
            unpack(res, k, boards[k])
        return (boards, out_m[:n].copy(), out_n[:n].copy(), out_d[:n].copy(), keep,
                int(best))
