"""A match over HTTP (``docs/api.md`` §A match): its state, actions, and the ``.mat`` and JSON
downloads. Live events are in :mod:`.websocket`."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse, PlainTextResponse

from boardgammon.formats.mat import write_mat
from boardgammon.server.actions import ClientAction
from boardgammon.server.auth import current_user, optional_user
from boardgammon.server.bodies import MatchId
from boardgammon.server.errors import responses
from boardgammon.server.move_list import move_list
from boardgammon.server.services import services
from boardgammon.server.tables import User

router = APIRouter(tags=["matches"])


@router.get("/api/matches/{match_id}", responses=responses(404))
async def match_state(request: Request, match_id: str = MatchId,
                      user: User | None = Depends(optional_user)) -> dict:
    """The match's ``state`` from your seat (a spectator's view if you do not play in it)."""
    # A plain dict for the route's declared response (the state is a TypedDict, a dict).
    return dict(await asyncio.to_thread(services(request.app).game.service.view_for, match_id,
                                        user.id if user else None))


@router.post("/api/matches/{match_id}/actions",
             responses=responses(400, 401, 403, 404, 409, 429, 503))
async def act(action: ClientAction, request: Request, match_id: str = MatchId,
              user: User = Depends(current_user)) -> dict:
    """Apply an action (idempotent by ``action_id``); answers ``{"state", "events"}`` once the
    action is committed and broadcast."""
    runtime = services(request.app).game
    step = await runtime.act(match_id, user.id, action)
    if step.error is not None:
        raise step.error
    state = await asyncio.to_thread(runtime.service.view_for, match_id, user.id,
                                    step.snapshot)
    return {"state": state, "events": step.replayed + step.events}


@router.get("/api/matches/{match_id}/export.mat", response_class=PlainTextResponse,
            responses=responses(404))
def export_mat(request: Request, match_id: str = MatchId) -> PlainTextResponse:
    """The match so far as Jellyfish ``.mat`` text (gnubg imports it)."""
    info, match = services(request.app).game.service.match_copy(match_id)
    text = write_mat(match, {"Site": "Boardgammon", "EventDate":
                             datetime.now(UTC).strftime("%Y.%m.%d")})
    return PlainTextResponse(text, headers={
        "Content-Disposition": f'attachment; filename="{info.match_id}.mat"'})


@router.get("/api/matches/{match_id}/moves", responses=responses(404))
def moves(request: Request, match_id: str = MatchId) -> dict:
    """The move list, game by game (``server.move_list``): the ``.mat`` export's numbered
    lines with standard notation, the opening rolls, resignations and each game's end."""
    _info, match = services(request.app).game.service.match_copy(match_id)
    return {"games": move_list(match)}


@router.get("/api/matches/{match_id}/export.json", responses=responses(404))
def export_json(request: Request, match_id: str = MatchId) -> JSONResponse:
    """The match record as JSON (``Match.to_dict``: replays with ``Match.from_json``)."""
    info, match = services(request.app).game.service.match_copy(match_id)
    return JSONResponse(match.to_dict(), headers={
        "Content-Disposition": f'attachment; filename="{info.match_id}.json"'})
