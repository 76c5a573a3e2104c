"""The rules of backgammon, pure: no I/O, no clock reads, no randomness of its own.

>>> from boardgammon.engine import Board, Play
>>> board = Board.initial()
>>> Play.parse("24/18 13/11") in board.legal_plays(6, 2)
True
"""

from .board import BAR, OFF, Board, Variant
from .clock import PRESETS, Clock, TimeControl
from .errors import (
    ClockError,
    CubeUnavailable,
    EngineError,
    IllegalAction,
    IllegalPlay,
    InvalidDice,
    InvalidNotation,
    InvalidPosition,
    InvalidRecord,
    MatchOver,
    NotYourTurn,
    TimeExpired,
    WrongPhase,
)
from .game import EndReason, Game, GameResult, Outcome, Phase
from .match import Action, Match
from .plays import Move, Play

__all__ = [
    "BAR",
    "OFF",
    "PRESETS",
    "Action",
    "Board",
    "Clock",
    "ClockError",
    "CubeUnavailable",
    "EndReason",
    "EngineError",
    "Game",
    "GameResult",
    "IllegalAction",
    "IllegalPlay",
    "InvalidDice",
    "InvalidNotation",
    "InvalidPosition",
    "InvalidRecord",
    "Match",
    "MatchOver",
    "Move",
    "NotYourTurn",
    "Outcome",
    "Phase",
    "Play",
    "TimeControl",
    "TimeExpired",
    "Variant",
    "WrongPhase",
]
