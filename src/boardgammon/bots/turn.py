"""The computer's turn: what a bot does when a match waits for it, for every caller alike
(``boardgammon selfplay`` and ``play``, the game server).

:func:`decide` answers with one of the typed decisions below and changes nothing; the caller
applies it (with its own dice, clock and record). A bot offers to resign at most once per
game: once its offer is declined it plays the game out. That is read from the match's record,
not kept by the caller, so it holds across a server restart and for each seat on its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from boardgammon.cube import context_for
from boardgammon.engine.game import Phase
from boardgammon.engine.match import Match

from .base import Bot


@dataclass(frozen=True)
class RollDice:
    """Roll the dice (an opening roll too)."""

    type: ClassVar[str] = "roll"


@dataclass(frozen=True)
class MakePlay:
    """Play the rolled dice: ``play`` in standard notation (``""`` for a dance)."""

    play: str
    type: ClassVar[str] = "play"


@dataclass(frozen=True)
class Double:
    """Offer to double before rolling."""

    type: ClassVar[str] = "double"


@dataclass(frozen=True)
class Take:
    """Take the opponent's double."""

    type: ClassVar[str] = "take"


@dataclass(frozen=True)
class Beaver:
    """Beaver the opponent's double: take and at once redouble, keeping the cube (money play
    with beavers on)."""

    type: ClassVar[str] = "beaver"


@dataclass(frozen=True)
class Drop:
    """Drop the opponent's double (lose the game at the cube's value)."""

    type: ClassVar[str] = "drop"


@dataclass(frozen=True)
class Resign:
    """Offer to resign ``points`` (1 single, 2 gammon, 3 backgammon; times the cube)."""

    points: int
    type: ClassVar[str] = "resign"


@dataclass(frozen=True)
class AcceptResign:
    """Accept the opponent's offer to resign."""

    type: ClassVar[str] = "accept_resign"


@dataclass(frozen=True)
class DeclineResign:
    """Decline the opponent's offer to resign."""

    type: ClassVar[str] = "decline_resign"


Decision = (RollDice | MakePlay | Double | Take | Beaver | Drop | Resign | AcceptResign
            | DeclineResign)
"""One action of the computer; ``type`` is the API's action ``type`` (``docs/api.md``) and the
fields carry the API's names."""


def offered_resignation(match: Match, seat: int) -> bool:
    """Whether ``seat`` has offered to resign in the match's current game."""
    index = len(match.games) - 1
    for action in reversed(match.record):
        if action.game != index:
            return False
        if action.kind == "resign" and action.seat == seat:
            return True
    return False


def decide(match: Match, seat: int, bot: Bot) -> Decision:
    """What ``bot`` at ``seat`` does now (the match is not changed).

    Args:
        match: a match that waits for ``seat`` (``match.waiting_for == seat``).

    Raises:
        ValueError: the match does not wait for ``seat``.
    """
    if match.waiting_for != seat:
        raise ValueError(f"the match waits for seat {match.waiting_for}, not seat {seat}")
    game = match.game
    if game.phase is Phase.OPENING:
        return RollDice()
    context = context_for(match, seat)
    if game.phase is Phase.ROLL:
        points = None if offered_resignation(match, seat) else bot.resign(game.board, context)
        if points:
            return Resign(int(points))
        if game.can_double(seat) and bot.double(game.board, context):
            return Double()
        return RollDice()
    if game.phase is Phase.PLAY:
        assert game.dice is not None
        return MakePlay(str(bot.choose_play(game.board, game.dice, context)))
    if game.phase is Phase.DOUBLE_OFFERED:
        if game.beavered:  # the doubler, on roll, answers the beaver
            return Take() if bot.take_beaver(game.board, context) else Drop()
        if game.can_beaver(seat) and bot.beaver(game.board, context):
            return Beaver()
        return Take() if bot.take(game.board, context) else Drop()
    offer = game.resignation
    assert offer is not None
    accept = bot.accept_resignation(game.board_for(offer.seat), context, int(offer.outcome))
    return AcceptResign() if accept else DeclineResign()
