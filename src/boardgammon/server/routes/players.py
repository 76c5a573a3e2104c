"""Players' profiles and leaderboards: the API (``/api/players/{name}``,
``/api/players/{name}/matches``, ``/api/leaderboard/{variant}``) and the pages people read
(``/player/{name}``, ``/leaderboard/{variant}``, and ``/ratings``: how ratings work),
server-rendered like the other reading pages, in ``?lang=en|de|ja``. No account needed:
ratings and results are public."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse
from sqlalchemy.orm import Session

from boardgammon.engine.board import Variant
from boardgammon.server import players
from boardgammon.server.db import get_session
from boardgammon.server.errors import NOT_FOUND_PAGE, responses
from boardgammon.server.players import Leaderboard, MatchPage, Profile
from boardgammon.server.refusals import Invalid, NotFound
from boardgammon.server.routes.pages import READ
from boardgammon.server.routes.pages import _render as render

router = APIRouter()


@router.get(
    "/api/players/{name}", response_model=Profile, tags=["players"], responses=responses(404)
)
def player(name: str, session: Session = Depends(get_session)) -> Profile:
    """A player's profile: the rating per variant with its history."""
    return players.profile(session, players.find_player(session, name))


@router.get(
    "/api/players/{name}/matches",
    response_model=MatchPage,
    tags=["players"],
    responses=responses(404),
)
def player_matches(
    name: str, page: int = Query(1, description="from 1"), session: Session = Depends(get_session)
) -> MatchPage:
    """A player's matches, newest first, 20 a page, with PR and luck from the analysis."""
    return players.matches_page(session, players.find_player(session, name), page)


@router.get("/api/players/{name}/dice", tags=["players"], responses=responses(404))
def player_dice(name: str, session: Session = Depends(get_session)) -> dict | None:
    """The statistics of the player's own revealed rolls (``boardgammon stats dice-report``'s
    JSON; ``null`` before their first roll)."""
    return players.player_dice(session, players.find_player(session, name))


@router.get("/api/leaderboard/{variant}", response_model=Leaderboard, tags=["players"])
def leaderboard(variant: str, session: Session = Depends(get_session)) -> Leaderboard:
    """The highest-rated full accounts in ``variant`` with at least 5 rated matches there."""
    return players.leaderboard(session, variant)


@router.api_route(
    "/player/{name}", methods=READ, response_class=HTMLResponse, include_in_schema=False
)
def player_page(
    request: Request,
    name: str,
    page: int = 1,
    lang: str | None = None,
    session: Session = Depends(get_session),
) -> HTMLResponse:
    """A player's page; an unknown name or a page past the last is the "not found" page (404),
    as people type and follow these addresses."""
    try:
        user = players.find_player(session, name)
        played = players.matches_page(session, user, page)
    except (NotFound, Invalid):
        return HTMLResponse(NOT_FOUND_PAGE, status_code=404)
    profile = players.profile(session, user)
    plots = {
        r.variant: players.svg_points(players.rating_values(r.history)) for r in profile.ratings
    }
    prs = players.pr_history(session, user)
    from boardgammon.stats.report import verdict_level

    return render(
        request,
        "player",
        lang,
        profile=profile,
        plots=plots,
        played=played,
        dice=players.player_dice(session, user),
        pr_plot=players.svg_points([pr for _, pr in prs]),
        pr_count=len(prs),
        verdict=verdict_level,
    )


@router.api_route(
    "/leaderboard/{variant}", methods=READ, response_class=HTMLResponse, include_in_schema=False
)
def leaderboard_page(
    request: Request, variant: str, lang: str | None = None, session: Session = Depends(get_session)
) -> HTMLResponse:
    """A variant's leaderboard; an unknown variant is the "not found" page (404)."""
    try:
        board = players.leaderboard(session, variant)
    except (NotFound, Invalid):
        return HTMLResponse(NOT_FOUND_PAGE, status_code=404)
    return render(
        request,
        "leaderboard",
        lang,
        board=board,
        variants=[v.value for v in Variant],
    )


@router.api_route("/ratings", methods=READ, response_class=HTMLResponse, include_in_schema=False)
def ratings_page(request: Request, lang: str | None = None) -> HTMLResponse:
    """How ratings work: the formula and its sources (``docs/ratings.md`` in full)."""
    return render(request, "ratings", lang)
