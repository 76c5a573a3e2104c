"""The API's error shape (``docs/api.md``): every refusal is a 4xx/5xx with
``{"error": {"code": "<machine_code>", "message": "<for people>"}}``.

:func:`install` registers handlers for :class:`ApiError`, the dice record's refusals, request
validation errors and the router's own refusals (no such route 404, wrong method 405): under
``/api/`` those get the API's shape (codes ``not_found``, ``method_not_allowed``), elsewhere a
404 is a small HTML page for people. Unexpected exceptions keep FastAPI's bare 500 (no detail
leaves the server).
"""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from starlette.exceptions import HTTPException

from boardgammon.server.dice_record import DiceRecordError


class ApiError(Exception):
    """A refusal a route raises: HTTP ``status``, machine ``code``, ``message`` for people."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


MESSAGE_LIMIT = 300
"""Characters of a refusal's message at most: messages quote what the client sent (an ID, a
play), and a client may send megabytes."""


def capped(message: str) -> str:
    """``message`` cut to :data:`MESSAGE_LIMIT` characters, ``…`` marking a cut."""
    return message if len(message) <= MESSAGE_LIMIT else message[:MESSAGE_LIMIT - 1] + "…"


def error_response(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": capped(message)}},
                        status_code=status)


_CODES = {404: "not_found", 405: "method_not_allowed"}
NOT_FOUND_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Not found · Boardgammon</title></head>
<body><h1>Not found</h1><p>There is no page at this address.</p>
<p><a href="/">Go to the lobby</a></p></body></html>
"""


def install(app: FastAPI) -> None:
    """Register the error handlers on ``app``."""

    @app.exception_handler(ApiError)
    async def _api_error(_request: Request, exc: ApiError) -> JSONResponse:
        return error_response(exc.status, exc.code, exc.message)

    @app.exception_handler(DiceRecordError)
    async def _dice_error(_request: Request, exc: DiceRecordError) -> JSONResponse:
        return error_response(exc.status, exc.code, str(exc))

    @app.exception_handler(RequestValidationError)
    async def _invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()
        )
        return error_response(422, "invalid_request", problems)

    @app.exception_handler(HTTPException)
    async def _http_error(request: Request, exc: HTTPException) -> Response:
        path = request.url.path
        if path.startswith("/api/") or path == "/api":
            if exc.status_code == 404:
                message = f"no such endpoint: {request.method} {path} (see /docs)"
            elif exc.status_code == 405:
                message = f"{path} does not accept {request.method} (see /docs)"
            else:
                message = str(exc.detail)
            response = error_response(exc.status_code,
                                      _CODES.get(exc.status_code, "http_error"), message)
            response.headers.update(exc.headers or {})  # e.g. Allow on a 405
            return response
        if exc.status_code == 404:
            return HTMLResponse(NOT_FOUND_PAGE, status_code=404)
        return Response(str(exc.detail), status_code=exc.status_code, headers=exc.headers,
                        media_type="text/plain; charset=utf-8")
