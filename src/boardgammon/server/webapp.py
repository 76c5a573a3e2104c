"""Serves the browser client (``boardgammon/web``): its files under ``/static/`` and its
``index.html`` for the client's own pages (``/``, ``/join/{seek_id}``, ``/match/{match_id}``,
``/match/{match_id}/analysis``): each is a page the client routes itself, so a reload or a
shared link of any of them must get the client; and its icon at ``/favicon.ico``.

A match page whose ID is malformed or names no match, or a join link of no seek, is the same
client with status 404: the page says "There is no match …" (or that the seek is not open)
itself, as it reads them through the API, and the status tells a crawler, a link checker or
``curl -f`` what a person reads. A seek since accepted or cancelled is still a page (200): it
says so and leads on."""

from __future__ import annotations

import re
from pathlib import Path

from fastapi import APIRouter, Depends, FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles
from sqlalchemy.orm import Session

from boardgammon.dice.ids import MATCH_ID_PATTERN
from boardgammon.server.db import get_session
from boardgammon.server.tables import MatchRow, Seek

WEB = Path(__file__).parent.parent / "web"
router = APIRouter(include_in_schema=False)


def _index(status_code: int = 200) -> FileResponse:
    return FileResponse(WEB / "index.html", status_code=status_code,
                        headers={"Cache-Control": "no-cache"})


def _match_index(session: Session, match_id: str) -> FileResponse:
    """The client for a match's page: 200 if the match exists, else 404 (same body)."""
    known = (re.fullmatch(MATCH_ID_PATTERN, match_id) is not None
             and session.get(MatchRow, match_id) is not None)
    return _index(200 if known else 404)


@router.get("/")
def home() -> FileResponse:
    return _index()


@router.get("/join/{seek_id}")
def join(seek_id: str, session: Session = Depends(get_session)) -> FileResponse:
    return _index(200 if session.get(Seek, seek_id) is not None else 404)


@router.get("/match/{match_id}")
def match_page(match_id: str, session: Session = Depends(get_session)) -> FileResponse:
    return _match_index(session, match_id)


@router.get("/match/{match_id}/analysis")
def analysis_page(match_id: str, session: Session = Depends(get_session)) -> FileResponse:
    return _match_index(session, match_id)


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
