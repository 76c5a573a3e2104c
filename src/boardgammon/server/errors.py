"""Refusals at the edge (``docs/api.md`` §Errors): the one mapping of a
:class:`~boardgammon.server.refusals.Refusal` to an HTTP status (:func:`http_status`) and to a
WebSocket ``error`` frame (:func:`ws_error`). A refusal over HTTP is a 4xx/5xx with
``{"error": {"code": "<machine_code>", "message": "<for people>"}}`` under ``/api/`` and at
data and program addresses; at a page's address it is the site's HTML page (below).

:func:`install` registers handlers for refusals (a 429 with ``Retry-After``), request
validation errors and the router's own refusals (no such route 404, wrong method 405): under
``/api/`` those get the API's shape (codes ``not_found``, ``method_not_allowed``), elsewhere
an HTML page of the site for people, in their language (the ``page`` that :func:`install` is
given: :func:`boardgammon.server.routes.pages.error_page`). Unexpected exceptions keep
FastAPI's bare 500 (no detail leaves the server), except the database's outages: 503
``database_unavailable`` with ``Retry-After`` (:mod:`.outage`). A refusal, an outage's
included, of a page's address is that page of the site (:func:`for_people`): a person who opens
a player's page during an outage reads, in their language, that the database cannot be reached,
not the API's JSON.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any
from urllib.parse import unquote_to_bytes

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel
from sqlalchemy.exc import DBAPIError, DisconnectionError
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from boardgammon.server import outage
from boardgammon.server.bodies import control_character, lone_surrogate, problem
from boardgammon.server.refusals import (
    ErrorCode,
    Illegal,
    Invalid,
    NotAllowed,
    NotFound,
    NotSignedIn,
    RateLimited,
    Refusal,
    StateConflict,
    Unavailable,
)

HTTP_STATUS: dict[type[Refusal], int] = {
    Illegal: 400, NotSignedIn: 401, NotAllowed: 403, NotFound: 404, StateConflict: 409,
    Invalid: 422, RateLimited: 429, Unavailable: 503, Refusal: 400}
"""The HTTP status of each kind of refusal (the nearest kind in its class's ancestry)."""


def http_status(refusal: Refusal) -> int:
    """The HTTP status that answers ``refusal``."""
    return next(HTTP_STATUS[kind] for kind in type(refusal).__mro__ if kind in HTTP_STATUS)


def ws_error(action_id: str | None, refusal: Refusal) -> dict[str, Any]:
    """The WebSocket ``error`` frame that answers ``refusal`` (of the action ``action_id``)."""
    return {"type": "error", "action_id": action_id,
            "error": {"code": refusal.code, "message": capped(refusal.message)}}


MAX_BODY_BYTES = 64 * 1024
"""Largest request body the server reads (413 beyond): every request body of the API is a
small JSON object, and without a limit a client could make the server read and parse
megabytes (a fresh user sent 50 MB)."""


MESSAGE_LIMIT = 300
"""Characters of a refusal's message at most: messages quote what the client sent (an ID, a
play), and a client may send megabytes."""


def capped(message: str) -> str:
    """``message`` cut to :data:`MESSAGE_LIMIT` characters, ``…`` marking a cut."""
    return message if len(message) <= MESSAGE_LIMIT else message[:MESSAGE_LIMIT - 1] + "…"


def error_response(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": capped(message)}},
                        status_code=status)


def runs_as_program(request: Request) -> bool:
    """Whether a refusal of ``request`` is read by ``python3``: an address of a program (its
    last segment names a ``.py`` file: the verifiers, a roll's program, also one copied with a
    stray character after it) fetched without asking for JSON by name (``curl URL |
    python3``). The API's JSON error is a Python expression that would run and exit 0."""
    return (".py" in request.url.path.rsplit("/", 1)[-1]
            and "application/json" not in request.headers.get("accept", ""))


def program_refusal(status: int, code: str, message: str) -> Response:
    """A refusal as a Python program that prints ``no program: MESSAGE`` to standard error and
    exits with status 1 (``text/x-python``, the refusal's own status)."""
    said = capped(message)
    return Response(f"# Boardgammon: HTTP {status} {code}\n"
                    f"raise SystemExit({('no program: ' + said)!r})\n",
                    status_code=status, media_type="text/x-python; charset=utf-8")


_CODES = {404: ErrorCode.NOT_FOUND, 405: ErrorCode.METHOD_NOT_ALLOWED,
          413: ErrorCode.PAYLOAD_TOO_LARGE}

ErrorPage = Callable[..., Response]
"""The site's HTML page for a refusal of a page's address: ``(request, status, problem=None)``
→ the page, in the request's language; ``problem`` names a text of its own (e.g.
``database_unavailable``) instead of the status's."""


def is_api(path: str) -> bool:
    """Whether ``path`` is the API's, whose refusals are JSON (``docs/api.md`` §Errors). Other
    addresses are pages, refused with an HTML page for people, but for data and programs
    (:func:`for_people`)."""
    return path == "/api" or path.startswith("/api/")


DATA_SUFFIXES = (".json", ".csv", ".png")
"""Addresses outside the API that are data, not pages (``/dice-record.json``, ``.csv``,
``.png``): their refusals stay the API's JSON, whose message says why (e.g. no roll is
revealed yet)."""


def for_people(request: Request) -> bool:
    """Whether a refusal of ``request`` is read by a person in a browser, as the site's HTML
    page: an address outside the API that is neither a program's (its last segment names a
    ``.py`` file, as in :func:`runs_as_program`, whatever its ``Accept``) nor data's
    (:data:`DATA_SUFFIXES`)."""
    path = request.url.path
    return not (is_api(path) or path.endswith(DATA_SUFFIXES)
                or ".py" in path.rsplit("/", 1)[-1])


class BodyLimit:
    """ASGI middleware: a request body over ``limit`` bytes is refused with 413
    ``payload_too_large`` in the API's shape, before it is read (by its ``Content-Length``) or
    as soon as the bytes received pass the limit. (FastAPI's own ``max_body_size`` answers with
    Starlette's plain-text 413, outside the app's exception handlers.)"""

    def __init__(self, app: ASGIApp, limit: int = MAX_BODY_BYTES) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope["headers"]).get(b"content-length", b"")
        if length.isdigit() and int(length) > self.limit:
            response = error_response(413, "payload_too_large", _too_large(self.limit))
            await response(scope, receive, send)
            return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise HTTPException(413)
            return message

        await self.app(scope, counted, send)


class LoneSurrogates:
    """ASGI middleware: a request body whose JSON holds a lone UTF-16 surrogate
    (:func:`~boardgammon.server.bodies.lone_surrogate`) is refused with 422
    ``invalid_request`` before any route reads it, the same on every database (such a string
    cannot be stored, and pydantic fails on some fields instead of refusing). It reads the body
    first (inside :class:`BodyLimit`, so at most its limit) and hands it on unchanged."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        messages: list[Message] = []
        try:
            while True:
                message = await receive()
                messages.append(message)
                if message["type"] != "http.request" or not message.get("more_body"):
                    break
        except HTTPException:  # over the body limit
            response: Response = error_response(413, ErrorCode.PAYLOAD_TOO_LARGE,
                                                _too_large(MAX_BODY_BYTES))
            await response(scope, receive, send)
            return
        found = lone_surrogate(b"".join(m.get("body", b"") for m in messages
                                        if m["type"] == "http.request"))
        if found is not None:
            response = error_response(422, ErrorCode.INVALID_REQUEST,
                                      f"the request body holds a lone surrogate ({found}), "
                                      f"which is no character")
            await response(scope, receive, send)
            return

        async def replay() -> Message:
            return messages.pop(0) if messages else await receive()

        await self.app(scope, replay, send)


class ControlCharacters:
    """ASGI middleware: a path or query string holding a control character (``%00`` and the
    like; see :func:`~boardgammon.server.bodies.control_character`) is refused before any
    route sees it, the same on every database (PostgreSQL cannot even compare NUL): under
    ``/api/`` with 422 ``invalid_request`` in the API's shape, elsewhere with ``page``'s 400
    (the site's page in the reader's language, with its way home; without one a plain 400); a
    WebSocket handshake is refused (HTTP 403) before it is accepted. The query of a path in
    ``query_on_page`` (a page that answers its own query, e.g. a pasted ID, in its language) is
    left to its route; such a path is still checked."""

    def __init__(self, app: ASGIApp, query_on_page: Collection[str] = (),
                 page: ErrorPage | None = None) -> None:
        self.app = app
        self.query_on_page = frozenset(query_on_page)
        self.page = page

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        query = unquote_to_bytes(scope.get("query_string", b"")).decode("utf-8", "replace")
        if scope["path"] in self.query_on_page:
            query = ""
        found = control_character(scope["path"]) or control_character(query)
        if found is None:
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        message = f"the address holds a control character ({found}); no ID or name does"
        response: Response
        if is_api(scope["path"]):
            response = error_response(422, ErrorCode.INVALID_REQUEST, message)
        elif self.page is not None:
            response = self.page(Request(scope), 400)
        else:
            response = Response(message, status_code=400, media_type="text/plain; charset=utf-8")
        await response(scope, receive, send)


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
    403: "Not your match, seat or seek: not_your_match, not_invited, not_your_seek; or a "
         "cookie-signed state change from another site (bad_origin).",
    404: "Unknown match, seek or user (not_found).",
    409: "Conflicts with the current state: not_your_turn, username_taken, roll_pending, "
         "match_over, match_not_finished, time_expired (lost on time), duplicate_action_id "
         "(the other player used that action_id), action_id_reused (you used it for another "
         "action), already_rolled, own_seek, seek_closed (taken or withdrawn), duplicate_seek, "
         "not_a_guest.",
    413: "The request body is over 64 KiB (payload_too_large).",
    422: "Malformed input: invalid_request (the message says what), bad_entropy (a roll's "
         "entropy is not exactly 32 hex characters).",
    429: "Too many requests (rate_limited); see Retry-After.",
    503: "The match is being changed by another server process (busy), or the database is "
         "unreachable (database_unavailable, with Retry-After); retry.",
}


def responses(*statuses: int) -> dict[int | str, dict]:
    """The OpenAPI ``responses`` of a route that can refuse with ``statuses`` (and, as every
    route can, 413 and 422)."""
    return {s: {"model": ErrorBody, "description": _WHEN[s]} for s in (*statuses, 413, 422)}


def _too_large(limit: int) -> str:
    return f"the request body is larger than the {limit} bytes allowed"


def _problem(error: dict, body: Any) -> str:
    """One validation error of a request for people (:func:`~.bodies.problem`), placed as
    FastAPI places it (``body.play``, ``query.limit``). A body that is not JSON says where the
    parser stopped and why (pydantic's own line is "body.13: JSON decode error"); a missing
    body is said in words."""
    ctx = error.get("ctx", {})
    loc = tuple(error["loc"])
    if error["type"] == "json_invalid":
        at = loc[-1] if len(loc) > 1 else "?"
        return (f"the request body is not valid JSON: {ctx.get('error', 'malformed')} "
                f"(at character {at})")
    if error["type"] == "missing" and loc == ("body",):
        return "the request needs a JSON object as its body"
    return problem(error, {"body": body}, "request")


def _unreadable(exc: HTTPException) -> str:
    """Why FastAPI could not read a JSON body (its bare 400 keeps the reader's error as its
    cause): bytes that are not UTF-8, or JSON that Python's reader gives up on."""
    cause = exc.__cause__
    if isinstance(cause, UnicodeDecodeError):
        return (f"the request body is not UTF-8 text: byte 0x{cause.object[cause.start]:02x} "
                f"at position {cause.start}")
    return ("the request body could not be read as JSON (nested too deeply, or a number too "
            "long to read)")


def install(app: FastAPI, query_on_page: Collection[str] = (),
            page: ErrorPage | None = None) -> None:
    """Register the error handlers, the body limit and the refusal of control characters in
    addresses on ``app`` (but not in the query of the pages at ``query_on_page``, which answer
    it themselves). Outside ``/api/`` a refusal of the router, or a query that fails
    validation (422), is answered with ``page`` (without one: a plain-text line, and the API's
    JSON for the 422)."""
    app.add_middleware(LoneSurrogates)
    app.add_middleware(BodyLimit)
    app.add_middleware(ControlCharacters, query_on_page=query_on_page, page=page)

    @app.exception_handler(Refusal)
    async def _refusal(request: Request, exc: Refusal) -> Response:
        response: Response
        if page is not None and for_people(request):
            # The page's words for an outage are the outage's; any other refusal gets its
            # status's (a page route raises none today but the outage).
            outage_page = exc.code is ErrorCode.DATABASE_UNAVAILABLE
            response = (page(request, http_status(exc), "database_unavailable") if outage_page
                        else page(request, http_status(exc)))
        else:
            answer = program_refusal if runs_as_program(request) else error_response
            response = answer(http_status(exc), exc.code, exc.message)
        if isinstance(exc, RateLimited):
            response.headers["Retry-After"] = str(exc.retry_after_s)
        elif exc.code is ErrorCode.DATABASE_UNAVAILABLE:
            response.headers["Retry-After"] = str(outage.RETRY_AFTER_S)
        return response

    async def _database(_request: Request, exc: Exception) -> Response:
        if not outage.is_outage(exc):
            raise exc  # a bug, not an outage: the bare 500 and its traceback
        return await _refusal(_request, outage.refusal())

    for kind in (DBAPIError, DisconnectionError):
        app.add_exception_handler(kind, _database)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> Response:
        if page is not None and for_people(request):
            return page(request, 422)
        answer = program_refusal if runs_as_program(request) else error_response
        return answer(422, "invalid_request",
                      "; ".join(_problem(e, exc.body) for e in exc.errors()))

    @app.exception_handler(HTTPException)
    async def _http_error(request: Request, exc: HTTPException) -> Response:
        path = request.url.path
        if is_api(path):
            if exc.status_code == 404:
                message = f"no such endpoint: {request.method} {path} (see /docs)"
            elif exc.status_code == 405:
                message = f"{path} does not accept {request.method} (see /docs)"
            elif exc.status_code == 400:
                # The body could not be parsed at all (not UTF-8, or JSON nested too deeply to
                # read): malformed input, as a body that is not JSON is.
                return error_response(422, "invalid_request", _unreadable(exc))
            elif exc.status_code == 413:
                message = _too_large(MAX_BODY_BYTES)
            else:
                message = str(exc.detail)
            answer = program_refusal if runs_as_program(request) else error_response
            response = answer(exc.status_code,
                              _CODES.get(exc.status_code, ErrorCode.HTTP_ERROR), message)
            response.headers.update(exc.headers or {})  # e.g. Allow on a 405
            return response
        if page is not None:
            shown = page(request, exc.status_code)
            shown.headers.update(exc.headers or {})
            return shown
        return Response(str(exc.detail), status_code=exc.status_code, headers=exc.headers,
                        media_type="text/plain; charset=utf-8")
