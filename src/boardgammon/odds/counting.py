"""Counting rolls through the engine: a small position is built for each question, and a roll
counts when some legal play of it (:meth:`boardgammon.engine.Board.legal_plays`) does what is
asked. The positions hold only the checkers the question is about (the others borne off), so
no other checker can hit, block or be forced to move; the answer is the one for the checkers
named, as the published shot and entering tables give it."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fractions import Fraction

from boardgammon.engine import Board, Play
from boardgammon.engine.constants import BAR, ROLLS

MAX_DISTANCE = 24
"""The farthest shot one checker can have: 6-6 moves 24 pips."""

# The hitting checker starts on the bar: entering with a die n lands on the (25 - n)-point just
# as a move of n from a 25th point would, so every distance up to 24 fits on the board.
_HITTER = BAR
# Where the opponent needs checkers besides those asked about (so that their game is not over),
# they wait on their bar, in nobody's way while we move.
_SPARES = {BAR: 2}


class InvalidOddsQuery(ValueError):
    """A question the counting cannot answer: the message says what is allowed; ``code`` names
    the rule broken and ``fields`` its figures, so that a page can say it in its own language."""

    def __init__(self, message: str, code: str, **fields: object) -> None:
        super().__init__(message)
        self.code = code
        self.fields = fields


@dataclass(frozen=True)
class RollCount:
    """The distinct rolls (lower die first) that do it, and how many of the 36 throws that is
    (a double is one throw, any other roll two)."""

    rolls: tuple[tuple[int, int], ...]

    @property
    def count(self) -> int:
        """Throws of the 36 that do it."""
        return sum(1 if a == b else 2 for a, b in self.rolls)

    @property
    def probability(self) -> Fraction:
        """``count`` / 36, in lowest terms."""
        return Fraction(self.count, 36)


def _count(board: Board, works: Callable[[Play], bool]) -> RollCount:
    return RollCount(tuple(
        (a, b) for a, b in ROLLS if any(works(play) for play in board.legal_plays(a, b))
    ))


def hit_count(distance: int, blocked: Iterable[int] = ()) -> RollCount:
    """The rolls with which one checker hits a blot ``distance`` pips in front of it (1 …
    :data:`MAX_DISTANCE`), when the opponent holds the points at the distances in ``blocked``
    (each 1 … ``distance`` − 1; at most 7, as the blot and seven points take 15 checkers).

    Direct shots with nothing in between are hit by 11, 12, 14, 15, 15, 17 of the 36 throws for
    the distances 1–6.

    Raises:
        InvalidOddsQuery: a distance outside 1–24, a blocked distance not between the checker
            and the blot, or more than 7 blocked points.
    """
    blocked = sorted(set(blocked))
    if not 1 <= distance <= MAX_DISTANCE:
        raise InvalidOddsQuery(f"a blot can be 1 to {MAX_DISTANCE} pips away, got {distance}",
                               "distance", high=MAX_DISTANCE, got=distance)
    if any(not 1 <= d < distance for d in blocked):
        raise InvalidOddsQuery(f"blocked points lie between the checker and the blot, 1 to "
                               f"{distance - 1} pips away, got {blocked}", "blocked_between",
                               high=distance - 1, got=", ".join(map(str, blocked)))
    if len(blocked) > 7:
        raise InvalidOddsQuery(f"the opponent's 15 checkers make the blot and at most 7 points, "
                               f"got {len(blocked)} points", "blocked_many", got=len(blocked))
    target = _HITTER - distance
    # The opponent's own numbering of our point p is 25 - p.
    theirs = {25 - target: 1} | {25 - (_HITTER - d): 2 for d in blocked}
    board = Board.from_points({_HITTER: 1}, theirs)
    return _count(board, lambda play: target in play.hits)


def split_shots(distance: int, hits: RollCount) -> tuple[RollCount, RollCount]:
    """``hits`` (the :func:`hit_count` of ``distance``) split into direct shots, where one die
    is the distance (so that die alone hits), and indirect (combination) shots, where only the
    dice together, or a double's steps in turn, reach the blot.

    A direct 6 with nothing in between: 11 direct throws and 6 indirect (5-1, 4-2, 3-3, 2-2)
    of the 17.
    """
    direct = tuple(roll for roll in hits.rolls if distance in roll)
    return RollCount(direct), RollCount(tuple(r for r in hits.rolls if r not in direct))


def enter_count(closed: int, checkers: int = 1) -> RollCount:
    """The rolls with which all of ``checkers`` (1 or 2) on the bar enter against ``closed``
    (0–6) closed points in the opponent's home board. Which points are closed does not change
    the count: a die enters exactly when its point is open.

    Raises:
        InvalidOddsQuery: ``closed`` outside 0–6 or ``checkers`` not 1 or 2.
    """
    if not 0 <= closed <= 6:
        raise InvalidOddsQuery(f"0 to 6 points can be closed, got {closed}", "closed",
                               got=closed)
    if checkers not in (1, 2):
        raise InvalidOddsQuery(f"1 or 2 checkers on the bar, got {checkers}", "bar",
                               got=checkers)
    theirs = _SPARES | {point: 2 for point in range(1, closed + 1)}
    board = Board.from_points({BAR: checkers}, theirs)
    return _count(board, lambda play: play.board_after.checkers_on(BAR) == 0)


def bear_off_count(position: dict[int, int]) -> RollCount:
    """The rolls that bear off every checker of ``position`` (``{point: checkers}``, points 1–6
    of the home board, at least one checker, at most 15).

    Raises:
        InvalidOddsQuery: a point outside 1–6, a negative count, no checker, or more than 15.
    """
    if any(not 1 <= p <= 6 for p in position) or any(n < 0 for n in position.values()):
        raise InvalidOddsQuery(f"checkers go on points 1-6 in counts of 0 or more, got "
                               f"{position}", "bearoff_points", got=position)
    total = sum(position.values())
    if not 1 <= total <= 15:
        raise InvalidOddsQuery(f"1 to 15 checkers can be borne off, got {total}",
                               "bearoff_total", got=total)
    board = Board.from_points({p: n for p, n in position.items() if n}, _SPARES)
    return _count(board, lambda play: play.board_after.borne_off() == board.checkers)
