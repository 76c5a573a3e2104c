"""The numbers of the game and of the position layout, each named once.

Two numberings meet in the engine, and the names below say which one a number belongs to:

* **Points** of standard notation, from the view of the side they belong to: 1–24 (the home
  board is 1–6), :data:`BAR` = 25, :data:`OFF` = 0.
* **Indices** of a position array ``int8[2, 25]`` (:attr:`Board.array
  <boardgammon.engine.Board.array>`): row 0 the player on roll, row 1 the opponent, each in its
  own numbering; index ``i`` (0–23) holds point ``i + 1`` and :data:`BAR_INDEX` the bar.
  Borne-off checkers are not stored. The mover's index ``i`` is the opponent's ``23 - i``.
"""

from __future__ import annotations

BAR = 25
"""The bar's point number in standard notation (``bar/22``)."""
OFF = 0
"""The point number of "off" in standard notation (``6/off``)."""

POINTS = 24
"""Points on the board; a side's point ``p`` is the other side's ``POINTS + 1 - p``."""
HOME_POINTS = 6
"""A side's home board is its points 1 to ``HOME_POINTS``."""

BAR_INDEX = 24
"""The bar's index in a row of a position array."""
ROW_LENGTH = 25
"""Length of one side's row in a position array: the 24 points and the bar."""
BOARD_SHAPE = (2, ROW_LENGTH)
"""Shape of a position array: one row per side."""
HOME_INDICES = slice(0, HOME_POINTS)
"""A row's indices of that side's home board (points 1–6)."""
BACKGAMMON_INDICES = slice(POINTS - HOME_POINTS, ROW_LENGTH)
"""A loser's indices (in the loser's own row) that turn a gammon into a backgammon: the
winner's home board (the loser's points 19–24) and the bar."""

MAX_CUBE = 64
"""The cube goes no higher: a side may not double a cube of 64."""

ROLLS: tuple[tuple[int, int], ...] = tuple((a, b) for a in range(1, 7) for b in range(a, 7))
"""The 21 distinct rolls of two dice, the smaller die first."""
ROLL_WAYS: tuple[int, ...] = tuple(1 if a == b else 2 for a, b in ROLLS)
"""Of the 36 equally likely throws, how many give each of :data:`ROLLS`: 1 a double, else 2."""
ROLL_PROBABILITIES: tuple[float, ...] = tuple(ways / 36.0 for ways in ROLL_WAYS)
"""The probability of each of :data:`ROLLS`."""

__all__ = ["BACKGAMMON_INDICES", "BAR", "BAR_INDEX", "BOARD_SHAPE", "HOME_INDICES", "HOME_POINTS",
           "MAX_CUBE", "OFF", "POINTS", "ROLLS", "ROLL_PROBABILITIES", "ROLL_WAYS", "ROW_LENGTH"]
