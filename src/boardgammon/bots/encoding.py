"""The neural evaluator's input encoding: a raw board in Tesauro's style and 31 hand features.

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

Blocking and escaping (indices 202–208), after the features gnubg's contact net adds to its raw
inputs (gnubg's ``eval.c``: back escapes, containment, rearmost checker; our own definitions,
below). An *escape* of a checker is a roll it can play in full by itself (both dice, or the four
steps of a double) without landing on a point the opponent holds (two or more checkers) within
the 12 pips in front of it; points beyond 12 pips count as open. A checker behind a full prime has
none; one with no opposing point in front has all 36. A one-layer net sees a prime only as a sum
of separate points; how many rolls get through it is an "and/or" over paths, which it cannot
form, and it decides the prime-versus-prime and holding games TD nets misplay:

* 202, 203: each side's back escapes: escapes of its rearmost checker (the bar counts) / 36;
  1.0 when it has no checker in contact;
* 204, 205: each side's containment of the other: 1 − the fewest escapes / 36 of an opposing
  checker standing on any of the other side's points 15–24 and the bar, whether occupied or not
  (how well this side's blocks hold checkers still to come round); 0 in a race;
* 206, 207: each side's rearmost checker: its point / 25 (the bar 25/25, 0 when all are off) —
  how far the last checker still has to travel, a maximum the raw units do not give;
* 208: the opponent's shots: the fraction of the 36 rolls with which the opponent, were it on
  roll, would hit a blot of the player on roll (definition of 199 from the other side) — after
  this roll it will be, and hit risk decides many plays.

Structure and risk (indices 209–226, since 2026-12-06), after more of gnubg's contact inputs
(its ``I_ENTER2``, ``I_BREAK_CONTACT``, ``I_FREEPIP``, ``I_BACKG``, ``I_BACKG1``,
``I_FORWARD_ANCHOR``, ``I_CONTAIN2``, ``I_PIPLOSS``; our own definitions, below). Medium's
largest errors on gnubg's judged decisions (docs/neural.md) are leaving shots and breaking or
keeping anchors: the shot count above treats a blot on the opponent's 24-point like one in
its outfield, and a one-layer net cannot square a probability or multiply two counts. Pairs
are (player on roll, opponent):

* 209, 210: the chance that one of the side's checkers on the bar dances, (the other side's
  closed home points / 6)², whether or not one is there;
* 211, 212: pips the side needs to break contact: the sum, over its checkers still behind the
  other side's rearmost checker, of the pips from each to that checker's point / 152 (1.0 at
  the start of a game); 0 in a race;
* 213, 214: free pips: the pips of the side's checkers already past the other's rearmost
  (all of them in a race) / 100;
* 215, 216: 1.0 when the side holds two or more points of the other's home board (a back
  game), else 0.0; 217, 218: 1.0 when it holds exactly one (an anchor), else 0.0;
* 219, 220: the side's most advanced point held in the other's home board or on its bar point
  (own index 17–23): (24 − index) / 7, 0 when none;
* 221–224: the squares of 202, 203 (back escapes) and 204, 205 (containment);
* 225, 226: pip loss: the mean over the 36 rolls of the pips the other side loses to the
  side's most costly hit (a blot on the hitter's own index ``t`` goes back ``t + 1`` pips),
  / 24, for the player on roll and, as if it were on roll, the opponent; 0 in a race.

Exposure and blocking (indices 227–234, since 2026-12-06, later), pairs (player on roll,
opponent), our own definitions again, each a product or a count a one-layer net cannot form
from the inputs above:

* 227, 228: double hits: the fraction of the 36 rolls with which the side, as if it were on
  roll, hits two or more of the other side's blots (two checkers hitting one each, or one
  checker hitting on its way and again where it stops; a double's four steps shared among
  them; intermediate points must be open; with checkers on the bar only hits by a checker
  from the bar count); 0 in a race. The risk of leaving two blots, which 199 and 208 count
  as one;
* 229, 230: race lead: the other side's pip count less the side's, over the side's
  (clipped to −1…1): the race's standing as a ratio, which decides races and doubles;
* 231, 232: blocked checkers: the sum over the side's checkers still behind the other's
  rearmost of (1 − its escapes / 36) (escapes as for 202), / the checkers per side; 0 in a
  race: how much of the side is held, where 202 looks at one checker;
* 233, 234: the cost of being hit: the other side's shots at the side (208 for the player on
  roll, 199 for the opponent) times the side's dance chance (209, 210): a blot within reach
  of a closed board, the product a hit's cost turns on.
"""

from __future__ import annotations

import numpy as np

from boardgammon._numba_cache import njit
from boardgammon.engine.constants import BAR_INDEX, BOARD_SHAPE
from boardgammon.engine.rules import is_contact_kernel

N_RAW = 196
N_INPUTS = 235
_SIDE = 98
_WINDOW = 12  # pips in front of a checker inspected for the opponent's points


def _escape_table() -> np.ndarray:
    """``int8[4096]``: escapes (of 36 rolls) for each mask of the 12 points in front of a checker,
    bit ``i`` set when the point ``i + 1`` pips ahead is held by the opponent."""
    table = np.zeros(1 << _WINDOW, dtype=np.int8)
    for mask in range(1 << _WINDOW):

        def is_open(dist: int, mask: int = mask) -> bool:
            return dist > _WINDOW or not mask >> (dist - 1) & 1

        n = 0
        for d1 in range(1, 7):
            for d2 in range(1, 7):
                if d1 == d2:
                    ok = all(is_open(k * d1) for k in range(1, 5))
                else:
                    ok = is_open(d1 + d2) and (is_open(d1) or is_open(d2))
                n += ok
        table[mask] = n
    return table


ESCAPES = _escape_table()
# The same counts indexed the other way round (bit ``j`` = the point ``12 − j`` pips ahead), the
# order in which :func:`_held` yields the window: one shift and one mask per checker.
ESCAPES_BY_SHIFT = np.array([ESCAPES[int(f"{m:012b}"[::-1], 2)] for m in range(1 << _WINDOW)],
                            dtype=np.int8)


@njit(cache=True, inline="always")
def _open_for_mover(b, idx):
    """Whether the player on roll may land on its own index ``idx`` (0–23)."""
    return b[1, 23 - idx] < 2


@njit(cache=True)
def _loss_with(b, d1, d2, on_bar):
    """Pips the opponent loses to the most costly hit the player on roll can make with
    ``d1``-``d2`` (a blot on the mover's index ``t`` loses ``t + 1``), 0 without a hit."""
    for t in range(23, -1, -1):
        if b[1, 23 - t] != 1:
            continue
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
                        return t + 1
            else:
                if dist == d1 or dist == d2:
                    return t + 1
                if dist == d1 + d2 and (not on_bar or b[0, BAR_INDEX] == 1):
                    if _open_for_mover(b, s - d1) or _open_for_mover(b, s - d2):
                        return t + 1
    return 0


@njit(cache=True)
def _hit_stats(b):
    """``(rolls, pips)``: how many of the 36 rolls let the player on roll hit an opponent blot,
    and the sum over the 36 rolls of the pips the opponent loses to the most costly hit of each
    (direct and combination shots; intermediate points must be open; with checkers on the bar
    only hits from the bar count). Both :func:`shots` and :func:`pip_loss` in one pass."""
    has_blot = False
    for j in range(24):
        if b[1, j] == 1:
            has_blot = True
            break
    if not has_blot:
        return 0, 0
    on_bar = b[0, BAR_INDEX] > 0
    rolls = 0
    pips = 0
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            loss = _loss_with(b, d1, d2, on_bar)
            if loss > 0:
                w = 1 if d1 == d2 else 2
                rolls += w
                pips += loss * w
    return rolls, pips


@njit(cache=True)
def shots(b):
    """Fraction of the 36 rolls with which the player on roll hits an opponent blot (0–1)."""
    return _hit_stats(b)[0] / 36.0


@njit(cache=True)
def pip_loss(b):
    """Mean over the 36 rolls of the pips the opponent loses to the player on roll's most
    costly hit, / 24 (0–1; see the module docstring, 225). With checkers on the bar only hits
    from the bar count, as in :func:`shots`."""
    return _hit_stats(b)[1] / 36.0 / 24.0


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


@njit(cache=True, inline="always")
def _held(b, side):
    """Bit ``12 + i`` set when the other side holds ``side``'s own index ``i`` (0–23)."""
    other = 1 - side
    bits = 0
    for i in range(24):
        if b[other, 23 - i] >= 2:
            bits |= 1 << (i + _WINDOW)
    return bits


@njit(cache=True, inline="always")
def _escapes_from(held, point):
    # bits point … point + 11 of `held` are the indices point − 12 … point − 1 (below 0: off)
    return ESCAPES_BY_SHIFT[(held >> point) & ((1 << _WINDOW) - 1)]


@njit(cache=True)
def escapes_at(b, side, point):
    """Escapes (0–36 rolls, see the module docstring) of a checker of ``side`` on its own index
    ``point`` (0–23, 24 the bar); whether a checker stands there does not matter."""
    return _escapes_from(_held(b, side), point)


@njit(cache=True)
def _rearmost(b, side):
    """The side's highest occupied index (24 the bar), −1 when all its checkers are off."""
    for i in range(24, -1, -1):
        if b[side, i] > 0:
            return i
    return -1


@njit(cache=True)
def _foremost(b, side):
    """The side's lowest occupied index on the board (0–23), 24 when none is on the points."""
    for i in range(24):
        if b[side, i] > 0:
            return i
    return 24


@njit(cache=True)
def _blocking(b, x, contact):
    """Write the features 202–207 (see the module docstring) into ``x``."""
    for side in range(2):
        other = 1 - side
        back = _rearmost(b, side)
        x[N_RAW + 10 + side] = (back + 1) / 25.0
        # in contact when the rearmost checker still has opposing checkers in front of it
        if contact and back >= 0 and back + _foremost(b, other) >= 24:
            x[N_RAW + 6 + side] = _escapes_from(_held(b, side), back) / 36.0
        else:
            x[N_RAW + 6 + side] = 1.0
        least = 36
        held = _held(b, other) if contact else 0
        for p in range(14, 25 if contact else 14):
            e = _escapes_from(held, p)
            if e < least:
                least = e
        x[N_RAW + 8 + side] = 1.0 - least / 36.0


@njit(cache=True)
def _structure(b, x, contact):
    """Write the features 209–224 (see the module docstring) into ``x``; 202–205 first."""
    for side in range(2):
        other = 1 - side
        closed = 0
        for i in range(6):
            if b[other, i] >= 2:
                closed += 1
        x[N_RAW + 13 + side] = (closed / 6.0) ** 2
        # the other side's rearmost checker, in this side's numbering (−1: the other's bar)
        r = _rearmost(b, other)
        edge = 23 - r if r >= 0 else -2
        brk = 0
        free = 0
        for i in range(25):
            n = b[side, i]
            if n == 0:
                continue
            if contact and i > edge:
                brk += n * (i - edge)
            else:
                free += n * (i + 1)
        x[N_RAW + 15 + side] = brk / 152.0
        x[N_RAW + 17 + side] = free / 100.0
        anchors = 0
        fwd = -1
        for i in range(23, 16, -1):
            if b[side, i] >= 2:
                fwd = i
                if i >= 18:
                    anchors += 1
        x[N_RAW + 19 + side] = 1.0 if anchors >= 2 else 0.0
        x[N_RAW + 21 + side] = 1.0 if anchors == 1 else 0.0
        x[N_RAW + 23 + side] = (24 - fwd) / 7.0 if fwd >= 0 else 0.0
        x[N_RAW + 25 + side] = x[N_RAW + 6 + side] ** 2
        x[N_RAW + 27 + side] = x[N_RAW + 8 + side] ** 2


@njit(cache=True)
def _hits_double_roll(b, d, blots):
    """Whether the side on roll (row 0) hits two or more blots (``blots``: bit ``t`` set for a
    blot on its own index ``t``) with the double ``d``-``d``. Its ``k`` checkers on the bar
    enter first (none if the entry point is held), which leaves ``4 − k`` steps of ``d`` pips; a
    blot costs the fewest of those steps that reach it from any checker along open points (a
    checker entering stands on the entry point for nothing and goes on from it). One path
    through two blots within the steps, or two blots whose costs sum to no more, count."""
    k = b[0, BAR_INDEX]
    if k > 0 and not _open_for_mover(b, 24 - d):
        return False
    budget = 4 - k
    if budget < 0:
        return False
    first = 5
    second = 5
    for t in range(24):
        if not blots >> t & 1:
            continue
        passed = False
        cost = 5
        # back along the path from the blot towards a checker that can reach it
        for m in range(1, 6):
            idx = t + m * d
            if idx > BAR_INDEX:
                break
            free = 1 if idx == BAR_INDEX else 0
            if m - free > budget:
                break
            if b[0, idx] > 0:
                cost = m - free
                break
            if idx == BAR_INDEX or not _open_for_mover(b, idx):
                break
            if blots >> idx & 1:
                passed = True
        if cost > budget:
            continue
        if passed:
            return True
        if cost < first:
            second = first
            first = cost
        elif cost < second:
            second = cost
    return first + second <= budget


@njit(cache=True, inline="always")
def _two_hits_with(b, a, c, blots, sources):
    """Whether two different checkers (from ``sources``, bit per index) hit two different
    blots, one with ``a`` and the other with ``c``, or one checker hits with ``a`` and again
    with ``c``."""
    with_a = blots & (sources >> a)
    if with_a == 0:
        return False
    if (with_a >> c) & blots:  # the same checker on, hitting again
        return True
    with_c = blots & (sources >> c)
    t1 = 0
    while with_a >> t1:
        if with_a >> t1 & 1:
            for t2 in range(24):
                if with_c >> t2 & 1 and t2 != t1 and (t1 + a != t2 + c or b[0, t1 + a] >= 2):
                    return True
        t1 += 1
    return False


@njit(cache=True)
def _hits_two(b, d1, d2, blots, sources):
    """Whether the side on roll (row 0) hits two or more blots with ``d1``-``d2``, ``d1 != d2``
    (``blots`` and ``sources``: bit per own index, the bar 24 among the sources): two checkers
    hitting one blot each, or one checker hitting with one die and again with the other; with
    a checker on the bar, its entry hits with one die (with two there, both enter)."""
    k = b[0, BAR_INDEX]
    if k >= 2:
        return blots >> (24 - d1) & 1 and blots >> (24 - d2) & 1
    if k == 1:
        on_board = sources & ~(1 << BAR_INDEX)
        for order in range(2):
            a = d1 if order == 0 else d2
            c = d2 if order == 0 else d1
            entry = 24 - a
            if not blots >> entry & 1:
                continue
            # the entered checker or any other hits a second blot with the other die
            if blots & ~(1 << entry) & ((on_board | (1 << entry)) >> c):
                return True
        return False
    return _two_hits_with(b, d1, d2, blots, sources) or _two_hits_with(b, d2, d1, blots, sources)


@njit(cache=True)
def double_hits(b):
    """Fraction of the 36 rolls with which the player on roll hits two or more opponent blots
    (0–1; see the module docstring, 227)."""
    blots = 0
    n = 0
    for t in range(24):
        if b[1, 23 - t] == 1:
            blots |= 1 << t
            n += 1
    if n < 2:
        return 0.0
    sources = 0
    for s in range(25):
        if b[0, s] > 0:
            sources |= 1 << s
    rolls = 0
    for d1 in range(1, 7):
        if _hits_double_roll(b, d1, blots):
            rolls += 1
        for d2 in range(d1 + 1, 7):
            if _hits_two(b, d1, d2, blots, sources):
                rolls += 2
    return rolls / 36.0


@njit(cache=True)
def _exposure(b, x, contact, checkers, pips0, pips1):
    """Write the features 227–234 (see the module docstring) into ``x``; 199, 202 and
    208–210 first."""
    x[N_RAW + 33] = min(1.0, max(-1.0, (pips1 - pips0) / max(pips0, 1)))
    x[N_RAW + 34] = min(1.0, max(-1.0, (pips0 - pips1) / max(pips1, 1)))
    if not contact:
        for k in (31, 32, 35, 36, 37, 38):
            x[N_RAW + k] = 0.0
        return
    x[N_RAW + 31] = double_hits(b)
    x[N_RAW + 32] = double_hits(b[::-1])
    for side in range(2):
        other = 1 - side
        r = _rearmost(b, other)
        edge = 23 - r if r >= 0 else -2
        held = _held(b, side)
        blocked = 0.0
        for i in range(edge + 1, 25):
            n = b[side, i]
            if n > 0:
                blocked += n * (1.0 - _escapes_from(held, i) / 36.0)
        x[N_RAW + 35 + side] = blocked / checkers
    x[N_RAW + 37] = x[N_RAW + 12] * x[N_RAW + 13]
    x[N_RAW + 38] = x[N_RAW + 3] * x[N_RAW + 14]


@njit(cache=True)
def encode_into(b, checkers, x):
    """Write the encoding of position ``b`` (player on roll's view) into ``x``
    (``float32[N_INPUTS]``)."""
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
        bar = b[side, BAR_INDEX]
        on_board += bar
        pips += bar * 25
        x[base + 96] = bar / 2.0
        x[base + 97] = (checkers - on_board) / checkers
        x[N_RAW + side] = pips / 100.0
    contact = is_contact_kernel(b)
    x[N_RAW + 2] = 0.0 if contact else 1.0
    rolls, pips = _hit_stats(b)
    x[N_RAW + 3] = rolls / 36.0
    x[N_RAW + 4] = _prime(b, 0) / 6.0
    x[N_RAW + 5] = _prime(b, 1) / 6.0
    _blocking(b, x, contact)
    _structure(b, x, contact)
    if contact:
        x[N_RAW + 29] = pips / 36.0 / 24.0
        rolls, pips = _hit_stats(b[::-1])
        x[N_RAW + 12] = rolls / 36.0
        x[N_RAW + 30] = pips / 36.0 / 24.0
    else:
        x[N_RAW + 12] = x[N_RAW + 29] = x[N_RAW + 30] = 0.0
    _exposure(b, x, contact, checkers, x[N_RAW] * 100.0, x[N_RAW + 1] * 100.0)


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
    if a.ndim != 3 or a.shape[1:] != BOARD_SHAPE:
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
