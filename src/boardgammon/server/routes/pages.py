"""The pages players read, one address each, in ``?lang=en|de|ja`` (else by
``Accept-Language``), no account needed: ``GET /fair`` (provably fair dice, with the box that
opens a match's audit page) and ``/glossary``. The addresses people
guess for the dice page (``/provably-fair``, ``/verify``, ``/dice``, ``/audit``) redirect to
``/fair`` with their query.

A page's text is its template ``pages/{page}.{lang}.html``; the header, footer and the few short
strings they share are in :mod:`boardgammon.server.i18n`.
"""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy.orm import Session

from boardgammon.dice.ids import is_match_id
from boardgammon.server.db import get_session
from boardgammon.server.dice_record import RollNotFound, audit_document
from boardgammon.server.i18n import choose_language, page_context
from boardgammon.server.routes.audit import pages as templates

router = APIRouter(include_in_schema=False)

ALIASES = ("/provably-fair", "/verify", "/dice", "/audit")


def _render(request: Request, page: str, lang: str | None, **fields: object) -> HTMLResponse:
    language = choose_language(lang, request.headers.get("accept-language"))
    context = page_context(language, page) | fields
    return templates.TemplateResponse(request, f"pages/{page}.{language}.html", context)


@router.get("/fair", response_class=HTMLResponse)
def fair(
    request: Request,
    lang: str | None = None,
    match: str | None = None,
    session: Session = Depends(get_session),
) -> Response:
    """The provably fair dice page. With ``?match=mat_…`` of a match that has a dice record it
    redirects (303) to ``/audit/{match}``; a malformed or unknown ID is answered on this page
    (``fair.malformed`` / ``fair.unknown``) with the ID kept in the box."""
    if match is None or not match.strip():
        return _render(request, "fair", lang, match="", problem=None)
    match_id = match.strip()
    if not is_match_id(match_id):
        return _render(request, "fair", lang, match=match_id, problem="fair.malformed")
    try:
        audit_document(session, match_id)
    except RollNotFound:
        return _render(request, "fair", lang, match=match_id, problem="fair.unknown")
    language = choose_language(lang, request.headers.get("accept-language"))
    return RedirectResponse(f"/audit/{match_id}?lang={language}", status_code=303)


def _alias(request: Request) -> RedirectResponse:
    query = f"?{request.url.query}" if request.url.query else ""
    return RedirectResponse(f"/fair{query}", status_code=301)


for _path in ALIASES:
    router.add_api_route(_path, _alias, methods=["GET"])


@router.get("/glossary", response_class=HTMLResponse)
def glossary(request: Request, lang: str | None = None) -> HTMLResponse:
    """Every term the interface uses, one anchor each (``/glossary#blot``)."""
    return _render(request, "glossary", lang)
