"""The API's error shape (``docs/api.md``): every refusal is a 4xx/5xx with
``{"error": {"code": "<machine_code>", "message": "<for people>"}}``.

:func:`install` registers handlers for :class:`ApiError`, the dice record's refusals and request
validation errors. Unexpected exceptions keep FastAPI's bare 500 (no detail leaves the server).
"""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from boardgammon.server.dice_record import DiceRecordError


class ApiError(Exception):
    """A refusal a route raises: HTTP ``status``, machine ``code``, ``message`` for people."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def error_response(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


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
