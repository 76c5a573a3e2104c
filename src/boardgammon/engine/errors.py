"""The engine's exception hierarchy.

Every refused action raises a subclass of :class:`EngineError`; the message says what was wrong
and what is allowed. A refused action leaves the game, match or clock exactly as it was.
"""


def quoted(text: object, limit: int = 40) -> str:
    """``text`` quoted for a message (Python's ``repr``), the quote cut to ``limit`` characters
    with ``…``: a message names what it refuses without echoing kilobytes of it (a 12 KB play
    typed at the terminal came back whole; a binary file read as a record is one long line)."""
    shown = repr(text)
    return shown if len(shown) <= limit else f"{shown[:limit]}…"


class EngineError(Exception):
    """Base class of every error the rules engine raises."""


class InvalidPosition(EngineError, ValueError):
    """A position breaks the rules: checker counts, both sides on one point, a bad ID."""


class InvalidNotation(EngineError, ValueError):
    """A play's text could not be parsed as standard notation (e.g. ``24/18 13/11``)."""


class IllegalPlay(EngineError):
    """A play is not among the legal plays for the position and roll; the message says why."""


class IllegalAction(EngineError):
    """A game or match action is not allowed in the current state (base of the specific errors)."""


class NotYourTurn(IllegalAction):
    """The acting player is not the one whose turn it is."""


class WrongPhase(IllegalAction):
    """The action does not fit the phase of the turn (e.g. a double after rolling)."""


class CubeUnavailable(IllegalAction):
    """The cube cannot be turned: Crawford game, 1-point match, owned by the opponent, or at 64."""


class MatchOver(IllegalAction):
    """The game or match has already ended."""


class InvalidDice(EngineError, ValueError):
    """Dice that are not two whole numbers from 1 to 6."""


class TimeExpired(IllegalAction):
    """The running clock's reserve has run out: no action counts until the flag is claimed."""


class ClockError(EngineError, ValueError):
    """A time that goes backwards, a missing time, or a clock stopped for the wrong player."""


class InvalidRecord(EngineError, ValueError):
    """A match record (JSON or ``.mat`` text) that cannot be read or does not replay."""
