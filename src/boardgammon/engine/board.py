"""Positions: both sides' checkers, setups per variant, pip counts, legal plays.

A :class:`Board` is an immutable position seen from the player on roll. Points are numbered 1–24
from that player's view (their home board is 1–6), the bar is 25 and off is 0, as in standard
notation. The opponent's checkers are stored in the opponent's own numbering; the opponent's
point ``p`` is the mover's point ``25 - p``.

>>> board = Board.initial()
>>> board.position_id
'4HPwATDgc/ABMA'
>>> board.pip_counts()
(167, 167)
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from enum import StrEnum

import numpy as np

from .constants import BAR, BAR_INDEX, BOARD_SHAPE, OFF, POINTS
from .errors import IllegalPlay, InvalidDice, InvalidPosition
from .ids import decode_position_id, encode_position_id
from .movegen import Generator
from .plays import Move, Play, broken_rule, explain_refusal, journeys, missing_checkers, parse_moves
from .rules import is_contact, pip_counts


def check_dice(d1: object, d2: object) -> tuple[int, int]:
    """Return the dice as a pair of ints after checking each is a whole number 1–6 (Python or
    numpy integers; ``bool`` is refused). The one check of dice for boards and games.

    Raises:
        InvalidDice: otherwise.
    """
    dice = []
    for d in (d1, d2):
        if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or not 1 <= d <= 6:
            raise InvalidDice(f"a die shows a whole number from 1 to 6, got {d!r}")
        dice.append(int(d))
    return dice[0], dice[1]


class Variant(StrEnum):
    """The backgammon variants Boardgammon plays; all use the same rules, only the setup differs.

    * ``standard``: 2 checkers on the 24-point, 5 on the 13, 3 on the 8, 5 on the 6.
    * ``nackgammon`` (Nack Ballard's variant): 2 on the 24 and 2 on the 23, 4 on the 13, 3 on
      the 8, 4 on the 6.
    * ``hypergammon``: 3 checkers each, on the 24-, 23- and 22-points.
    """

    STANDARD = "standard"
    NACKGAMMON = "nackgammon"
    HYPERGAMMON = "hypergammon"

    @property
    def checkers(self) -> int:
        """Checkers per side: 15, or 3 in Hypergammon."""
        return 3 if self is Variant.HYPERGAMMON else 15


_SETUPS: dict[Variant, dict[int, int]] = {
    Variant.STANDARD: {24: 2, 13: 5, 8: 3, 6: 5},
    Variant.NACKGAMMON: {24: 2, 23: 2, 13: 4, 8: 3, 6: 4},
    Variant.HYPERGAMMON: {24: 1, 23: 1, 22: 1},
}

class _PerThread(threading.local):
    """One move generator per thread: a :class:`Generator` owns scratch buffers that one call
    fills and reads back, so two threads sharing one (the server's worker threads, an
    analysis running beside a match) would overwrite each other's results. Made at a thread's
    first play rather than at import, so that importing the engine compiles and loads nothing."""

    _generator: Generator | None = None

    @property
    def generator(self) -> Generator:
        if self._generator is None:
            self._generator = Generator()
        return self._generator


_PER_THREAD = _PerThread()


def _pair(dice) -> tuple[int, int]:
    """``dice`` as two values, or :class:`InvalidDice` (a ``ValueError``) if it is not a pair."""
    try:
        d1, d2 = dice
    except (TypeError, ValueError):
        raise InvalidDice(f"dice are a pair of numbers 1-6, got {dice!r}") from None
    return d1, d2


def _side(side: int) -> int:
    if side not in (0, 1):
        raise ValueError(f"a side is 0 (on roll) or 1 (opponent), got {side!r}")
    return side


class Board:
    """An immutable backgammon position from the view of the player on roll.

    Args:
        array: ``int8[2, 25]``-like; row 0 the player on roll, row 1 the opponent, each in its
            own numbering: index ``i`` (0–23) is point ``i + 1``, index 24 the bar.
        checkers: checkers per side in the game (15; 3 in Hypergammon); those not on the board
            are borne off.

    Raises:
        InvalidPosition: wrong shape, counts that are not integers, negative counts, more
            checkers than ``checkers`` on a side, or both sides on one point.
    """

    __slots__ = ("_a", "checkers", "_hash")

    def __init__(self, array: Sequence[Sequence[int]] | np.ndarray, checkers: int = 15) -> None:
        raw = np.asarray(array)
        if raw.shape != BOARD_SHAPE:
            raise InvalidPosition(f"a position has shape (2, 25), got {raw.shape}")
        if raw.dtype.kind not in "iub":
            raise InvalidPosition(f"checker counts are integers, got {raw.dtype}")
        if (raw < 0).any():
            raise InvalidPosition("a point cannot hold a negative number of checkers")
        for side, name in ((0, "player on roll"), (1, "opponent")):
            n = int(raw[side].sum())
            if n > checkers:
                raise InvalidPosition(f"the {name} has {n} checkers on the board, at most "
                                      f"{checkers} allowed")
        a = raw.astype(np.int8)
        # The mover's point i + 1 is the opponent's index 23 - i.
        clash = np.nonzero((a[0, :POINTS] > 0) & (a[1, POINTS - 1::-1] > 0))[0]
        if clash.size:
            raise InvalidPosition(f"both sides have checkers on point {clash[0] + 1}")
        self._set(a, checkers)

    def _set(self, a: np.ndarray, checkers: int) -> None:
        a.setflags(write=False)
        self._a = a
        self.checkers = checkers
        self._hash = hash((a.tobytes(), checkers))

    @classmethod
    def _from_kernel(cls, a: np.ndarray, checkers: int) -> Board:
        """A board from the generator's output, which is valid by construction (no checks)."""
        board = cls.__new__(cls)
        board._set(a, checkers)
        return board

    # Construction ---------------------------------------------------------------------------

    @classmethod
    def initial(cls, variant: Variant | str = Variant.STANDARD) -> Board:
        """The starting position of ``variant`` (``standard``, ``nackgammon``, ``hypergammon``).

        Raises:
            ValueError: unknown variant name.
        """
        variant = Variant(variant)
        a = np.zeros(BOARD_SHAPE, dtype=np.int8)
        for point, n in _SETUPS[variant].items():
            a[0, point - 1] = n
            a[1, point - 1] = n
        return cls(a, variant.checkers)

    @classmethod
    def from_position_id(cls, position_id: str, checkers: int = 15) -> Board:
        """The position of a gnubg Position ID (player on roll as in the ID).

        Raises:
            InvalidPosition: malformed ID or impossible position.
        """
        return cls(decode_position_id(position_id), checkers)

    @classmethod
    def from_points(cls, mine: dict[int, int], theirs: dict[int, int],
                    checkers: int = 15) -> Board:
        """A position from ``{point: count}`` maps, each side in its own numbering (25 = bar).

        >>> Board.from_points({6: 2, 5: 2}, {1: 1}).pip_counts()
        (22, 1)

        Raises:
            InvalidPosition: a point outside 1–25 or an impossible position.
        """
        a = np.zeros(BOARD_SHAPE, dtype=np.int8)
        for side, spec in ((0, mine), (1, theirs)):
            for point, n in spec.items():
                if not 1 <= point <= BAR:
                    raise InvalidPosition(f"point {point} is outside 1-24 (25 = bar)")
                a[side, point - 1] = n
        return cls(a, checkers)

    # Queries --------------------------------------------------------------------------------

    @property
    def array(self) -> np.ndarray:
        """The read-only ``int8[2, 25]`` array (layout in the class docstring)."""
        return self._a

    @property
    def position_id(self) -> str:
        """gnubg's Position ID of this position (see :mod:`boardgammon.engine.ids`)."""
        return encode_position_id(self._a)

    def checkers_on(self, point: int, side: int = 0) -> int:
        """Checkers of ``side`` (0 = on roll, 1 = opponent) on ``point`` of that side's numbering
        (1–24, 25 = bar, 0 = borne off).

        Raises:
            ValueError: ``side`` not 0 or 1, or ``point`` outside 0–25.
        """
        if not (isinstance(point, (int, np.integer)) and OFF <= point <= BAR):
            raise ValueError(f"a point is 1-24, 25 (bar) or 0 (off), got {point!r}")
        if point == OFF:
            return self.borne_off(side)
        return int(self._a[_side(side), point - 1])

    def borne_off(self, side: int = 0) -> int:
        """Checkers ``side`` (0 = on roll, 1 = opponent) has borne off.

        Raises:
            ValueError: ``side`` not 0 or 1.
        """
        return self.checkers - int(self._a[_side(side)].sum())

    def pip_counts(self) -> tuple[int, int]:
        """Pip counts (player on roll, opponent): the pips each needs to bear everything off."""
        mine, theirs = pip_counts(self._a).tolist()
        return mine, theirs

    def is_contact(self) -> bool:
        """Whether the sides can still hit each other (some checker of one is behind one of the
        other); a position without contact is a race (the rule of
        :func:`~boardgammon.engine.rules.is_contact`)."""
        return bool(is_contact(self._a))

    def is_game_over(self) -> bool:
        """Whether either side has borne off every checker."""
        return self.borne_off(0) == self.checkers or self.borne_off(1) == self.checkers

    def swapped(self) -> Board:
        """The same position seen from the opponent (as after the turn passes)."""
        return Board(self._a[::-1], self.checkers)

    # Plays ----------------------------------------------------------------------------------

    def _generate(self, d1: int, d2: int, partial: bool = False):
        d1, d2 = check_dice(d1, d2)
        return _PER_THREAD.generator.run(self._a, d1, d2, partial)

    def legal_plays(self, d1: int, d2: int) -> list[Play]:
        """Every legal play of the roll ``d1``-``d2``, one per distinct resulting position.

        A dance (no legal move) gives a single play with no moves, ``Play(())``.

        >>> plays = Board.initial().legal_plays(3, 1)
        >>> len(plays), Play.parse("8/5 6/5") in plays
        (16, True)

        Raises:
            InvalidDice: (a ``ValueError``) a die outside 1–6, or dice that are not a pair.
        """
        boards, moves, nmoves, _, keep, _ = self._generate(d1, d2)
        return [Play._from_kernel(moves[k], int(nmoves[k]),
                                  Board._from_kernel(boards[k], self.checkers))
                for k in np.nonzero(keep)[0]]

    def play(self, play: Play | str, dice: tuple[int, int]) -> Board:
        """The position after ``play`` (parsed if text) of ``dice``, still from the mover's view.

        Raises:
            InvalidNotation: text that is not standard notation.
            IllegalPlay: not a legal play of ``dice`` here; the message says why.
        """
        return self.validate(play, dice).board_after

    def validate(self, play: Play | str, dice: tuple[int, int]) -> Play:
        """Check a submitted play against the legal set and return the legal :class:`Play`.

        Hits may be left unmarked where the play lands on a blot. A journey written without
        the points it passes (``13/5`` for 6-2) is accepted when exactly one legal play moves
        the checkers that way; if one path hits and another does not, the hit must be written
        (``13/7*/5``).

        Raises:
            InvalidNotation: text that is not standard notation.
            IllegalPlay: not legal; says whether the play moves checkers the player does not
                have, lands on a point the opponent holds (naming the point, and the legal way
                through open points when there is one), is a dance of a roll that can be played,
                is incomplete ("both dice can be played"), uses the smaller die when the larger
                must be played, is ambiguous, or which rule it breaks (no checker on a point,
                the bar enters first, too many moves, a move no die makes, a point held by the
                opponent, bearing off with a checker outside the home board), else that it is
                not legal.
            InvalidDice: (a ``ValueError``) a die outside 1–6, or dice that are not a pair.
        """
        d1, d2 = _pair(dice)
        parsed = play if isinstance(play, Play) else Play.parse(play)
        written = str(parsed) if isinstance(play, Play) else " ".join(play.split())
        missing = missing_checkers(parsed, self._a)
        if missing is not None:
            raise IllegalPlay(f"{written} is not a legal play of {d1}-{d2}: {missing}")
        candidate = parsed._with_hits_on(self)
        # The position alone cannot tell bar/19 19/14 from bar/20/14: a point written as a
        # landing must be open.
        blocked = next((m.dest for m in candidate.moves
                        if m.dest != OFF and self._a[1, POINTS - m.dest] >= 2), None)
        # A play is identified by the position it reaches: apply the moves without checks, then
        # look the result up among the legal plays' results (linear, however many plays).
        target = self._a.astype(np.int16)
        for m in candidate.moves:
            target[0, m.source - 1] -= 1
            if m.dest != OFF:
                target[0, m.dest - 1] += 1
                if m.hit:
                    target[1, POINTS - m.dest] -= 1
                    target[1, BAR_INDEX] += 1
        boards, moves, nmoves, _, keep, best = self._generate(d1, d2)
        legal = np.nonzero(keep)[0]
        paths = legal[(boards[legal] == target).all(axis=(1, 2))]
        if not paths.size:
            # A journey written without the points it passes may still name one legal play.
            same_moves = legal[(boards[legal, 0] == target[0]).all(axis=1)]
            paths = [k for k in same_moves
                     if candidate._passes_for(Play._from_kernel(moves[k], int(nmoves[k]), None))]
        if blocked is not None and best:
            held = (f"{written} is not a legal play of {d1}-{d2}: the {blocked}-point is held by "
                    f"the opponent ({self._a[1, POINTS - blocked]} checkers)")
            if len(paths) == 1:
                way = Play._from_kernel(moves[paths[0]], int(nmoves[paths[0]]), None)
                held += f"; play it by the open points: {journeys(way)}"
            raise IllegalPlay(held)
        if len(paths) == 1:
            k = paths[0]
            return Play._from_kernel(moves[k], int(nmoves[k]),
                                     Board._from_kernel(boards[k], self.checkers))
        if len(paths):
            raise IllegalPlay(f"{candidate} is ambiguous with {d1}-{d2}: write the hits, one of "
                              + ", ".join(str(Play._from_kernel(moves[k], int(nmoves[k]), None))
                                          for k in paths))
        _, moves, nmoves, first, _, best = self._generate(d1, d2, partial=True)
        for k in range(len(nmoves)):
            if Play._from_kernel(moves[k], int(nmoves[k]), None) == candidate:
                raise IllegalPlay(explain_refusal(candidate, int(nmoves[k]), int(first[k]),
                                                  best, d1, d2))
        why = broken_rule(candidate, self._a, target, d1, d2) if best else None
        if why is not None:
            raise IllegalPlay(f"{candidate} is not a legal play of {d1}-{d2}: {why}")
        raise IllegalPlay(explain_refusal(candidate, None, None, best, d1, d2))

    # Dunder ---------------------------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Board) and self.checkers == other.checkers
                and np.array_equal(self._a, other._a))

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return f"Board.from_position_id({self.position_id!r})"

    def __str__(self) -> str:
        """A text diagram from the mover's view: ``O`` the player on roll, ``X`` the opponent."""
        top = list(range(13, 25))
        bottom = list(range(12, 0, -1))

        def cell(point: int, row: int) -> str:
            mine = int(self._a[0, point - 1])
            theirs = int(self._a[1, POINTS - point])
            n, ch = (mine, "O") if mine else (theirs, "X")
            if n == 0:
                return " ." if row == 0 else "  "
            if row < 4:
                return f" {ch}" if n > row else "  "
            return f"{n:2d}" if n > 5 else (f" {ch}" if n > 4 else "  ")

        def half(points: Iterable[int], rows: range) -> list[str]:
            pts = list(points)
            out = []
            for r in rows:
                left = "".join(cell(p, r) for p in pts[:6])
                right = "".join(cell(p, r) for p in pts[6:])
                out.append(f" |{left} |   |{right} |")
            return out

        mp, tp = self.pip_counts()
        lines = [" " + "".join(f"{p:>3}" for p in top[:6]) + "     "
                 + "".join(f"{p:>3}" for p in top[6:])]
        lines += half(top, range(5))
        bar = self._a[:, BAR_INDEX]
        lines.append(f" |{'':12} |BAR|{'':12} |  bar: O {bar[0]}  X {bar[1]}")
        lines += half(bottom, range(4, -1, -1))
        lines.append(" " + "".join(f"{p:>3}" for p in bottom[:6]) + "     "
                     + "".join(f"{p:>3}" for p in bottom[6:]))
        lines.append(f" O (on roll) pips {mp}, off {self.borne_off(0)}   "
                     f"X pips {tp}, off {self.borne_off(1)}")
        return "\n".join(lines)


__all__ = ["BAR", "OFF", "Board", "Variant", "Move", "Play", "parse_moves"]
