"""The rules of backgammon, pure: no I/O, no clock reads, no randomness of its own.

>>> from boardgammon.engine import Board, Play
>>> board = Board.initial()
>>> Play.parse("24/18 13/11") in board.legal_plays(6, 2)
True
"""

from .board import BAR, OFF, Board, Variant
from .errors import (
    CubeUnavailable,
    EngineError,
    IllegalAction,
    IllegalPlay,
    InvalidNotation,
    InvalidPosition,
    MatchOver,
    NotYourTurn,
    WrongPhase,
)
from .plays import Move, Play

__all__ = [
    "BAR",
    "OFF",
    "Board",
    "CubeUnavailable",
    "EngineError",
    "IllegalAction",
    "IllegalPlay",
    "InvalidNotation",
    "InvalidPosition",
    "MatchOver",
    "Move",
    "NotYourTurn",
    "Play",
    "Variant",
    "WrongPhase",
]
