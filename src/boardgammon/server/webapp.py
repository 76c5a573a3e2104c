"""Serves the browser client (``boardgammon/web``): its files under ``/static/`` and its
``index.html`` for the client's own pages (``/``, ``/join/{seek_id}``, ``/match/{match_id}``,
``/match/{match_id}/analysis``): each is a page the client routes itself, so a reload or a
shared link of any of them must get the client; and its icon at ``/favicon.ico``."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

WEB = Path(__file__).parent.parent / "web"
router = APIRouter(include_in_schema=False)


def _index() -> FileResponse:
    return FileResponse(WEB / "index.html", headers={"Cache-Control": "no-cache"})


@router.get("/")
def home() -> FileResponse:
    return _index()


@router.get("/join/{seek_id}")
def join(seek_id: str) -> FileResponse:
    return _index()


@router.get("/match/{match_id}")
def match_page(match_id: str) -> FileResponse:
    return _index()


@router.get("/match/{match_id}/analysis")
def analysis_page(match_id: str) -> FileResponse:
    return _index()


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
