"""Serves the browser client (``boardgammon/web``): its files under ``/static/`` and its
``index.html`` for the client's own pages (``/``, ``/join/{seek_id}``, ``/match/{match_id}``,
``/match/{match_id}/analysis``): each is a page the client routes itself, so a reload or a
shared link of any of them must get the client; and its icon at ``/favicon.ico``.

A match page whose ID is malformed or names no match, or a join link of no seek, is the same
client with status 404: the page says so itself, as it reads them through the API ("There is
no match …", "There is no seek with this link"), and the status tells a crawler, a link
checker or ``curl -f`` what a person reads. A seek since accepted or withdrawn is still a page
(200): it says which, and a taken one links to its match. While the database cannot be reached
these pages are the client with 503 and ``Retry-After`` (the client says so and tries again),
never the API's JSON. ``HEAD`` gets the status ``GET`` would."""

from __future__ import annotations

import re
from pathlib import Path

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles
from sqlalchemy.exc import DBAPIError, DisconnectionError

from boardgammon.dice.ids import MATCH_ID_PATTERN
from boardgammon.server import outage
from boardgammon.server.refusals import Unavailable
from boardgammon.server.services import services
from boardgammon.server.tables import MatchRow, Seek

WEB = Path(__file__).parent.parent / "web"
router = APIRouter(include_in_schema=False)


def _index(status_code: int = 200) -> FileResponse:
    headers = {"Cache-Control": "no-cache"}
    if status_code == 503:
        headers["Retry-After"] = str(outage.RETRY_AFTER_S)
    return FileResponse(WEB / "index.html", status_code=status_code, headers=headers)


def _index_of(request: Request, row: type[MatchRow] | type[Seek], key: str) -> FileResponse:
    """The client, with 200 if ``row`` has ``key``, 404 if not, and 503 (``Retry-After``) if
    the database cannot be reached: the page is still the client, which says the database is
    down and tries again itself, never the API's JSON refusal."""
    try:
        with services(request.app).db.read_sessions() as session:
            known = session.get(row, key) is not None
    except Unavailable:  # refused at once: the database hangs
        return _index(503)
    except (DBAPIError, DisconnectionError) as exc:
        if not outage.is_outage(exc):
            raise  # a bug, not an outage: the bare 500 and its traceback
        return _index(503)
    return _index(200 if known else 404)


def _match_index(request: Request, match_id: str) -> FileResponse:
    """The client for a match's page (:func:`_index_of`); a malformed ID is 404 unasked."""
    if re.fullmatch(MATCH_ID_PATTERN, match_id) is None:
        return _index(404)
    return _index_of(request, MatchRow, match_id)


PAGE_METHODS = ["GET", "HEAD"]
"""A link checker may ask with ``HEAD`` first; it gets the status ``GET`` would."""


@router.api_route("/", methods=PAGE_METHODS)
def home() -> FileResponse:
    return _index()


@router.api_route("/join/{seek_id}", methods=PAGE_METHODS)
def join(request: Request, seek_id: str) -> FileResponse:
    return _index_of(request, Seek, seek_id)


@router.api_route("/match/{match_id}", methods=PAGE_METHODS)
def match_page(request: Request, match_id: str) -> FileResponse:
    return _match_index(request, match_id)


@router.api_route("/match/{match_id}/analysis", methods=PAGE_METHODS)
def analysis_page(request: Request, match_id: str) -> FileResponse:
    return _match_index(request, match_id)


@router.api_route("/favicon.ico", methods=["GET", "HEAD"])
def favicon() -> FileResponse:
    """The icon at the address browsers ask for by themselves (a page without a ``<link
    rel="icon">``, a JSON answer opened in a tab): the client's SVG icon, which browsers take
    under any name by its media type."""
    return FileResponse(
        WEB / "favicon.svg",
        media_type="image/svg+xml",
        headers={"Cache-Control": "public, max-age=86400"},
    )


def install(app: FastAPI) -> None:
    """Mount the client if it is installed (it is part of the package)."""
    if (WEB / "index.html").is_file():
        app.mount("/static", StaticFiles(directory=WEB), name="static")
        app.include_router(router)
