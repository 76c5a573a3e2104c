"""The server's refusals, inside: an :class:`ErrorCode` and a message for people, in a few
kinds (:class:`Illegal`, :class:`NotFound`, ...). Nothing here knows HTTP or WebSockets; the
edge (:mod:`boardgammon.server.errors`) maps each kind to a status, once. ``docs/api.md``
§Errors lists every code.
"""

from __future__ import annotations

import math
from enum import StrEnum

from boardgammon.engine import errors as engine


class ErrorCode(StrEnum):
    """Every machine code a refusal carries (``docs/api.md`` §Errors)."""

    ILLEGAL_PLAY = "illegal_play"
    ILLEGAL_ACTION = "illegal_action"
    CUBE_UNAVAILABLE = "cube_unavailable"
    WRONG_PHASE = "wrong_phase"
    COMMITMENT_MISMATCH = "commitment_mismatch"
    ROLL_MISMATCH = "roll_mismatch"
    NOT_AUTHENTICATED = "not_authenticated"
    BAD_CREDENTIALS = "bad_credentials"
    NOT_YOUR_MATCH = "not_your_match"
    NOT_INVITED = "not_invited"
    NOT_YOUR_SEEK = "not_your_seek"
    BAD_ORIGIN = "bad_origin"
    NOT_FOUND = "not_found"
    METHOD_NOT_ALLOWED = "method_not_allowed"
    NOT_YOUR_TURN = "not_your_turn"
    USERNAME_TAKEN = "username_taken"
    USERNAME_RESERVED = "username_reserved"
    ROLL_PENDING = "roll_pending"
    MATCH_OVER = "match_over"
    MATCH_NOT_FINISHED = "match_not_finished"
    MATCH_ABORTED = "match_aborted"
    TIME_EXPIRED = "time_expired"
    DUPLICATE_ACTION_ID = "duplicate_action_id"
    ACTION_ID_REUSED = "action_id_reused"
    ALREADY_ROLLED = "already_rolled"
    OWN_SEEK = "own_seek"
    SEEK_CLOSED = "seek_closed"
    DUPLICATE_SEEK = "duplicate_seek"
    NOT_A_GUEST = "not_a_guest"
    PAYLOAD_TOO_LARGE = "payload_too_large"
    INVALID_REQUEST = "invalid_request"
    BAD_ENTROPY = "bad_entropy"
    RATE_LIMITED = "rate_limited"
    BUSY = "busy"
    RECORD_UNAVAILABLE = "record_unavailable"
    RECORD_CORRUPT = "record_corrupt"
    DATABASE_UNAVAILABLE = "database_unavailable"
    HTTP_ERROR = "http_error"
    # dice v2 (issue #25)
    LINK_MISMATCH = "link_mismatch"
    ANCHOR_REGISTERED = "anchor_registered"
    BAD_SIGNATURE = "bad_signature"
    # Ratings (issue 23)
    GUEST_UNRATED = "guest_unrated"
    OUTSIDE_RATING_RANGE = "outside_rating_range"
    BLOCKED = "blocked"
    BLOCK_SELF = "block_self"
    SESSION_CHANGED = "session_changed"


class Refusal(Exception):
    """A request the server refuses: ``code`` for machines, ``message`` for people. Each
    kind below has a usual code, used when none is given."""

    code: ErrorCode = ErrorCode.INVALID_REQUEST

    def __init__(self, message: str, code: ErrorCode | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code


class Illegal(Refusal):
    """The action breaks the rules or the dice protocol."""

    code = ErrorCode.ILLEGAL_ACTION


class NotSignedIn(Refusal):
    """No valid session, or wrong credentials."""

    code = ErrorCode.NOT_AUTHENTICATED


class NotAllowed(Refusal):
    """Signed in, but not someone who may do this (not your match, seat or seek)."""

    code = ErrorCode.NOT_YOUR_MATCH


class NotFound(Refusal):
    """No such match, seek, user or roll."""

    code = ErrorCode.NOT_FOUND


class StateConflict(Refusal):
    """The request does not fit the current state (not your turn, a name taken...)."""

    code = ErrorCode.NOT_YOUR_TURN


class Invalid(Refusal):
    """Malformed input."""

    code = ErrorCode.INVALID_REQUEST


class Unavailable(Refusal):
    """Could not be done now (the match changed elsewhere meanwhile); retry."""

    code = ErrorCode.BUSY


class RateLimited(Refusal):
    """Too many requests; ``retry_after`` seconds until the next one is let through."""

    code = ErrorCode.RATE_LIMITED

    def __init__(self, retry_after: float, what: str) -> None:
        self.retry_after = retry_after
        super().__init__(f"too many {what}; try again in {self.retry_after_s} s")

    @property
    def retry_after_s(self) -> int:
        """The wait in whole seconds, rounded up (at least 1): the message and the header."""
        return max(1, math.ceil(self.retry_after))


# Most specific first: the engine's hierarchy nests (e.g. NotYourTurn is an IllegalAction).
_ENGINE_CODES: tuple[tuple[type[engine.EngineError], type[Refusal], ErrorCode], ...] = (
    (engine.TimeExpired, StateConflict, ErrorCode.TIME_EXPIRED),
    (engine.NotYourTurn, StateConflict, ErrorCode.NOT_YOUR_TURN),
    (engine.MatchOver, StateConflict, ErrorCode.MATCH_OVER),
    (engine.CubeUnavailable, Illegal, ErrorCode.CUBE_UNAVAILABLE),
    (engine.WrongPhase, Illegal, ErrorCode.WRONG_PHASE),
    (engine.IllegalPlay, Illegal, ErrorCode.ILLEGAL_PLAY),
    (engine.InvalidNotation, Illegal, ErrorCode.ILLEGAL_PLAY),
    (engine.IllegalAction, Illegal, ErrorCode.ILLEGAL_ACTION),
)


def from_engine(exc: engine.EngineError) -> Refusal:
    """The refusal for a refusal by the rules engine (the engine's message kept)."""
    for kind, refusal, code in _ENGINE_CODES:
        if isinstance(exc, kind):
            return refusal(str(exc), code)
    return Illegal(str(exc), ErrorCode.ILLEGAL_ACTION)
