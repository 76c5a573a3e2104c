"""Refusals of the game server as API errors (``docs/api.md`` §Errors): the rules engine's
exceptions mapped to status and code, rate limiting (429 with ``Retry-After``), and the error
responses documented in OpenAPI for every route.
"""

from __future__ import annotations

import math

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel

from boardgammon.engine import errors as engine
from boardgammon.server.errors import ApiError, error_response


class ErrorDetail(BaseModel):
    code: str
    message: str


class ErrorBody(BaseModel):
    """Every refusal: ``{"error": {"code", "message"}}``."""

    error: ErrorDetail


_WHEN = {
    400: "The action breaks the rules: illegal_play (the message gives the reason), "
         "cube_unavailable, wrong_phase, illegal_action, commitment_mismatch (not the "
         "commitment issued), roll_mismatch (not the pending roll's roll_id).",
    401: "Not signed in (not_authenticated) or bad credentials (bad_credentials).",
    403: "Not your match, seat or seek: not_your_match, not_invited, not_your_seek.",
    404: "Unknown match, seek or user (not_found).",
    409: "Conflicts with the current state: not_your_turn, username_taken, roll_pending, "
         "match_over, match_not_finished, time_expired (lost on time), duplicate_action_id "
         "(the other player used that action_id), action_id_reused (you used it for another "
         "action), already_rolled, own_seek, not_a_guest.",
    413: "The request body is over 64 KiB (payload_too_large).",
    422: "Malformed input: invalid_request (the message says what), bad_entropy (a roll's "
         "entropy is not exactly 32 hex characters).",
    429: "Too many requests (rate_limited); see Retry-After.",
    503: "The match is being changed by another server process (busy); retry.",
}


def responses(*statuses: int) -> dict[int | str, dict]:
    """The OpenAPI ``responses`` of a route that can refuse with ``statuses`` (and, as every
    route can, 413 and 422)."""
    return {s: {"model": ErrorBody, "description": _WHEN[s]} for s in (*statuses, 413, 422)}


class RateLimited(ApiError):
    """429 ``rate_limited``; the response carries ``Retry-After`` (whole seconds)."""

    def __init__(self, retry_after: float, what: str) -> None:
        self.retry_after = retry_after
        super().__init__(429, "rate_limited", f"too many {what}; try again in "
                                             f"{self.retry_after_s} s")

    @property
    def retry_after_s(self) -> int:
        """The wait in whole seconds, rounded up (at least 1): the message and the header."""
        return max(1, math.ceil(self.retry_after))


# Most specific first: the engine's hierarchy nests (e.g. NotYourTurn is an IllegalAction).
_ENGINE_CODES: tuple[tuple[type[engine.EngineError], int, str], ...] = (
    (engine.TimeExpired, 409, "time_expired"),
    (engine.NotYourTurn, 409, "not_your_turn"),
    (engine.MatchOver, 409, "match_over"),
    (engine.CubeUnavailable, 400, "cube_unavailable"),
    (engine.WrongPhase, 400, "wrong_phase"),
    (engine.IllegalPlay, 400, "illegal_play"),
    (engine.InvalidNotation, 400, "illegal_play"),
    (engine.IllegalAction, 400, "illegal_action"),
)


def from_engine(exc: engine.EngineError) -> ApiError:
    """The API error for a refusal by the rules engine (the engine's message kept)."""
    for kind, status, code in _ENGINE_CODES:
        if isinstance(exc, kind):
            return ApiError(status, code, str(exc))
    return ApiError(400, "illegal_action", str(exc))


def install(app: FastAPI) -> None:
    """Register the 429 handler (the other API errors are handled by :mod:`.errors`)."""

    @app.exception_handler(RateLimited)
    async def _rate_limited(_request: Request, exc: RateLimited) -> JSONResponse:
        response = error_response(exc.status, exc.code, exc.message)
        response.headers["Retry-After"] = str(exc.retry_after_s)
        return response
