"""The Bot interface every level implements, and the registry of levels by name.

A bot ranks every legal play of a position and roll, chooses one, and makes every cube and
resignation decision in match context. All methods are synchronous; the server runs heavier
levels in a worker so that no decision blocks its event loop.

Perspective: every method takes the position from the view of the player on roll (as
:class:`~boardgammon.engine.Board` always is) and a :class:`~boardgammon.cube.Context` from the
view of the *bot*.
For :meth:`Bot.take` the player on roll is the doubler, so ``board`` is the doubler's view.

Levels register themselves with :func:`register` and are created with :func:`create`, with a
seed that makes their play reproducible.
"""

from __future__ import annotations

import abc
from collections.abc import Callable
from dataclasses import dataclass

from boardgammon.cube.context import Context
from boardgammon.engine import Board, Play


@dataclass(frozen=True)
class RankedPlay:
    """One legal play with the bot's estimate of it.

    Attributes:
        play: the legal play (its ``after`` is the resulting position, mover's view).
        equity: the bot's cubeless equity of the resulting position for the mover, in points
            per unit cube (−3…+3); comparable only within one ranking.
    """

    play: Play
    equity: float


class Bot(abc.ABC):
    """A computer player of one level.

    Args:
        seed: seeds the bot's own random choices (never the dice), for reproducible play.
    """

    name: str = ""

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed

    @abc.abstractmethod
    def rank_plays(self, board: Board, dice: tuple[int, int],
                   context: Context) -> list[RankedPlay]:
        """Every legal play of ``dice`` in ``board``, best first by the bot's model."""

    def choose_play(self, board: Board, dice: tuple[int, int], context: Context) -> Play:
        """The play the bot makes (by default the best of its ranking)."""
        return self.rank_plays(board, dice, context)[0].play

    @abc.abstractmethod
    def double(self, board: Board, context: Context) -> bool:
        """Whether to double before rolling (``board``: the bot on roll). Must return False
        whenever ``context.cube_available_to_me`` is false."""

    @abc.abstractmethod
    def take(self, board: Board, context: Context) -> bool:
        """Whether to take the opponent's double (``board``: the doubler on roll)."""

    def beaver(self, board: Board, context: Context) -> bool:
        """Whether to beaver the opponent's double where beavers are played (money play;
        ``board``: the doubler on roll). This base rule never beavers; the levels override
        it with their own judgement."""
        return False

    def take_beaver(self, board: Board, context: Context) -> bool:
        """Whether, having doubled and been beavered, to take (``board``: the bot on roll;
        ``context.cube_value``: the value the beaver accepted). This base rule takes: a bot
        doubles only when its model puts it ahead; the levels override it."""
        return True

    @abc.abstractmethod
    def accept_resignation(self, board: Board, context: Context, points: int) -> bool:
        """Whether to accept the opponent's offer to resign for ``points`` (1 single,
        2 gammon, 3 backgammon; times the cube). ``board``: the position as it stands, from
        the view of the player on roll. Since either player may resign at any time, callers
        pass the resigner's view (``game.board_for(resigner)``), so that the bot knows which
        side it is: row 1 of ``board.array``."""

    @abc.abstractmethod
    def resign(self, board: Board, context: Context) -> int | None:
        """``None`` to play on, or 1/2/3 to offer to resign a single/gammon/backgammon
        (``board``: the bot on roll)."""


_REGISTRY: dict[str, Callable[..., Bot]] = {}


def register(name: str) -> Callable[[type[Bot]], type[Bot]]:
    """Class decorator: make a Bot subclass available as level ``name``.

    Raises:
        ValueError: the name is already taken.
    """

    def deco(cls: type[Bot]) -> type[Bot]:
        if name in _REGISTRY:
            raise ValueError(f"bot level {name!r} is already registered")
        cls.name = name
        _REGISTRY[name] = cls
        return cls

    return deco


def levels() -> list[str]:
    """Names of the registered levels."""
    return list(_REGISTRY)


def create(name: str, seed: int | None = None) -> Bot:
    """A bot of level ``name`` seeded with ``seed``.

    Raises:
        KeyError: unknown level; the message lists the known ones.
    """
    try:
        factory = _REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown bot level {name!r}; known levels: {', '.join(levels())}") from None
    return factory(seed=seed)
