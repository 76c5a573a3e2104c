"""Matches that end each way a match can end, made by the engine from a set-up position: for
tests of the final score and of the result dialog."""

from __future__ import annotations

from boardgammon.engine import Match
from boardgammon.engine.board import Board
from boardgammon.engine.match import Setup


def ended(how: str, length: int, score: tuple[int, int] = (0, 0)) -> Match:
    """A match that ``how`` ends, won by seat 0: it bears off its last checker (``single``,
    ``gammon``, ``backgammon``, by where seat 1's checkers are), seat 1 drops a redouble
    (``drop``), or seat 1 resigns a gammon and seat 0 accepts (``resign``); or, with a clock,
    seat 1's reserve runs out after its first roll (``flag``)."""
    if how == "flag":
        m = Match(length, time_control="blitz", start=0.0)
        m.roll_opening(6, 1, now=1.0)
        m.play(0, "13/7 8/7", now=2.0)
        m.roll(1, 2, 1, now=3.0)  # seat 1 has acted: its flag loses (a no-show's aborts)
        m.claim_flag(10_000.0)
        return m
    if how == "resign":
        m = Match(
            length, setup=Setup(position_id=Board.initial().position_id, on_roll=1, score=score)
        )
        m.resign(1, 2)
        m.accept(0)
        return m
    theirs = {"single": {6: 5}, "gammon": {12: 15}, "backgammon": {24: 1, 12: 14}, "drop": {6: 5}}[
        how
    ]
    mine = {6: 8} if how == "drop" else {2: 1}
    board = Board.from_points(mine, theirs)
    if how == "drop":
        m = Match(
            length, setup=Setup(position_id=board.position_id, score=score, cube=2, cube_owner=0)
        )
        m.double(0)
        m.drop(1)
    else:
        m = Match(length, setup=Setup(position_id=board.position_id, score=score, dice=(6, 5)))
        m.play(0, "2/off")
    return m


ENDINGS = [  # (how, length, score before, final score)
    ("single", 1, (0, 0), (1, 0)),
    ("gammon", 1, (0, 0), (1, 0)),
    ("backgammon", 1, (0, 0), (1, 0)),
    ("backgammon", 3, (0, 0), (3, 0)),
    ("gammon", 5, (4, 3), (5, 3)),
    ("single", 7, (6, 2), (7, 2)),
    ("drop", 3, (1, 2), (3, 2)),
    ("resign", 1, (0, 0), (1, 0)),
    ("resign", 5, (3, 1), (5, 1)),
    ("flag", 5, (0, 0), (5, 0)),
]
