"""The rules that the rest of the package asks about a position: pip counts, contact, the value of
a finished game, and whether the cube may be turned. Each rule is written here once, in the
versions its callers need side by side: numpy over any number of positions (``[..., 2, 25]``
arrays, one position included), and a numba kernel of one position for the compiled hot paths
(the encoding, self-play training). ``tests/engine/test_rule_versions.py`` checks that the
versions agree.

Arrays follow the layout of :mod:`boardgammon.engine.constants` (row 0 the player on roll, each
row in its own numbering, :data:`~boardgammon.engine.constants.BAR_INDEX` the bar).
"""

from __future__ import annotations

from enum import StrEnum

import numpy as np

from boardgammon._numba_cache import njit

from .constants import BACKGAMMON_INDICES, MAX_CUBE, POINTS, ROW_LENGTH

_BACKGAMMON_FROM = BACKGAMMON_INDICES.start
_PIPS_TO_GO = np.arange(1, ROW_LENGTH + 1, dtype=np.int64)  # point p (index p - 1), bar 25


# Pip counts ---------------------------------------------------------------------------------------


def pip_counts(boards: np.ndarray) -> np.ndarray:
    """The pip count of each side of ``boards`` (``int[..., 2, 25]``): the pips it needs to bear
    every checker off (a checker on point ``p`` needs ``p``, one on the bar 25).

    Returns ``int64[..., 2]``: row 0's count, row 1's.
    """
    return np.asarray(boards, dtype=np.int64) @ _PIPS_TO_GO


# Contact ----------------------------------------------------------------------------------------


def is_contact(boards: np.ndarray) -> np.ndarray:
    """Whether each of ``boards`` (``int[..., 2, 25]``) is a contact position: some checker of
    one side is behind one of the other, so they can still hit each other; otherwise a race.
    A side with every checker off is in contact with nothing.

    Returns ``bool[...]`` (a 0-d array for one ``[2, 25]`` position).
    """
    boards = np.asarray(boards)
    rear = np.where(boards > 0, np.arange(ROW_LENGTH), -1).max(axis=-1)  # [..., 2]; -1: none
    # The mover's index i faces the opponent's index 23 - i: the rearmost checkers have passed
    # each other exactly when their indices sum to less than 23 + 1.
    return (rear[..., 0] >= 0) & (rear[..., 1] >= 0) & (rear[..., 0] + rear[..., 1] >= POINTS)


@njit(cache=True, inline="always")
def is_contact_kernel(board):
    """:func:`is_contact` of one position ``int8[2, 25]``, for numba code."""
    mine = -1
    theirs = -1
    for i in range(ROW_LENGTH):
        if board[0, i] > 0:
            mine = i
        if board[1, i] > 0:
            theirs = i
    return mine >= 0 and theirs >= 0 and mine + theirs >= POINTS


# The value of a finished game ---------------------------------------------------------------------


def game_values(loser_rows: np.ndarray, checkers: int) -> np.ndarray:
    """Points a won game is worth before the cube, from the loser's checkers: 1 (single) when
    the loser has borne off a checker, else 3 (backgammon) when one is still on the bar or in
    the winner's home board, else 2 (gammon).

    Args:
        loser_rows: ``int[..., 25]`` the loser's row of the final position, in the loser's own
            numbering (one row of a position array).
        checkers: checkers per side (15; 3 in Hypergammon).

    Returns:
        ``int64[...]`` of 1, 2 or 3.
    """
    rows = np.asarray(loser_rows)
    none_off = rows.sum(axis=-1) == checkers
    trapped = rows[..., BACKGAMMON_INDICES].any(axis=-1)
    return np.where(none_off, np.where(trapped, 3, 2), 1).astype(np.int64)


@njit(cache=True, inline="always")
def game_value_kernel(loser_row, checkers):
    """:func:`game_values` of one loser's row ``int8[25]``, for numba code."""
    on_board = 0
    trapped = 0
    for i in range(ROW_LENGTH):
        on_board += loser_row[i]
        if i >= _BACKGAMMON_FROM:
            trapped += loser_row[i]
    if on_board < checkers:
        return 1
    return 3 if trapped > 0 else 2


# The cube -----------------------------------------------------------------------------------------


class DoubleRefusal(StrEnum):
    """Why the side on roll may not double."""

    CRAWFORD = "crawford"
    """The Crawford game has no cube."""
    ONE_POINT_MATCH = "one_point_match"
    """The cube is disabled: a 1-point match."""
    OWNED_BY_OPPONENT = "owned_by_opponent"
    """Only the cube's owner may turn it."""
    AT_MAX = "at_max"
    """The cube is at :data:`~boardgammon.engine.constants.MAX_CUBE` and goes no higher."""


def cube_enabled(length: int) -> bool:
    """Whether a match of ``length`` points (0: money play) uses the cube: every match but a
    1-point match, where a double could only ever win what a single game already does."""
    return length != 1


def double_refusal(*, cube_enabled: bool, crawford: bool, cube: int,
                   owned_by_opponent: bool) -> DoubleRefusal | None:
    """Why the side on roll may not double now, or ``None`` when it may.

    The cube may be turned by its owner or, while centred, by either side, below
    :data:`~boardgammon.engine.constants.MAX_CUBE`; never in the Crawford game nor in a game
    whose cube is disabled (a 1-point match).

    Args:
        cube_enabled: False in a 1-point match (and in the Crawford game).
        crawford: this game is the Crawford game.
        cube: the cube's value now.
        owned_by_opponent: the other side owns the cube.
    """
    if crawford:
        return DoubleRefusal.CRAWFORD
    if not cube_enabled:
        return DoubleRefusal.ONE_POINT_MATCH
    if owned_by_opponent:
        return DoubleRefusal.OWNED_BY_OPPONENT
    if cube >= MAX_CUBE:
        return DoubleRefusal.AT_MAX
    return None


__all__ = ["DoubleRefusal", "cube_enabled", "double_refusal", "game_value_kernel", "game_values",
           "is_contact", "is_contact_kernel", "pip_counts"]
