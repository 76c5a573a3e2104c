"""Players' profiles and leaderboards: the API (``/api/players/{name}``,
``/api/players/{name}/matches``, ``/api/leaderboard/{variant}``) and the pages people read
(``/player/{name}``, ``/leaderboard/{variant}``, and ``/ratings``: how ratings work),
server-rendered like the other reading pages, in ``?lang=en|de|ja``. No account needed:
ratings and results are public."""

from __future__ import annotations

import re
from urllib.parse import quote

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse
from sqlalchemy.orm import Session

from boardgammon.engine.board import Variant
from boardgammon.server import players
from boardgammon.server.db import get_session
from boardgammon.server.errors import responses
from boardgammon.server.i18n import request_language, translator
from boardgammon.server.numerals import NUMERALS
from boardgammon.server.players import Leaderboard, MatchPage, Profile
from boardgammon.server.refusals import Invalid, NotFound
from boardgammon.server.routes.pages import READ, echo, error_page
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


PAGE_LIMIT = 10**12
"""Page numbers longer than this are read as this, which is past any player's last page:
``int()`` refuses numbers of thousands of digits."""


def page_number(text: str) -> int | None:
    """The page that ``?page=`` of a page for people names: a whole number from 1 (digits
    only, surrounding spaces dropped), at most :data:`PAGE_LIMIT`; else ``None``."""
    digits = text.strip()
    if not re.fullmatch(r"[0-9]+", digits) or not digits.strip("0"):
        return None
    digits = digits.lstrip("0")
    return min(int(digits), PAGE_LIMIT) if len(digits) <= len(str(PAGE_LIMIT)) else PAGE_LIMIT


@router.api_route(
    "/player/{name}", methods=READ, response_class=HTMLResponse, include_in_schema=False
)
def player_page(
    request: Request,
    name: str,
    page: str = "1",
    lang: str | None = None,
    session: Session = Depends(get_session),
) -> HTMLResponse:
    """A player's page, in the site's page for refusals as people type and follow these
    addresses: an unknown name is 404; a ``?page=`` that is not a whole number from 1 is 400
    (as the API's 422, said in the page's language with a link to the first page); a page past
    the last is 404 (as the API), naming the last page, not the one asked for."""
    try:
        user = players.find_player(session, name)
    except NotFound:
        return error_page(request, 404, "player", name=echo(name))
    language = request_language(request, lang)
    first = ((f"/player/{quote(user.username)}?lang={language}",
              translator(language)("error.player_page", name=user.username)),)
    number = page_number(page)
    if number is None:
        return error_page(request, 400, "page_number", links=first, got=echo(page))
    try:
        played = players.matches_page(session, user, number)
    except players.PastLastPage as past:
        return error_page(request, 404, "page_past", links=first, name=user.username,
                          pages=NUMERALS[language].integer(past.pages))
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
        return error_page(request, 404, "variant", variant=echo(variant))
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
