"""The FastAPI application factory.

``create_app(settings)`` wires the routers (one per concern, under :mod:`.routes`), the error
handlers and the database: at start-up it opens the database named by the settings, applies
every Alembic migration; the app's parts (settings, game server, analysis worker, database)
are in :func:`.services.services`; routes get a session per request through
:func:`.db.get_session`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from boardgammon import __version__
from boardgammon.server import (
    analysis_worker,
    errors,
    guards,
    logs,
    runtime,
    webapp,
    websocket,
)
from boardgammon.server.db import open_database
from boardgammon.server.dice_log import LogKey
from boardgammon.server.routes import audit, pages, players, public_log
from boardgammon.server.services import Services
from boardgammon.server.settings import Settings

WEBSOCKETS_DESCRIPTION = """\
HTTP routes are listed below. OpenAPI cannot list WebSocket routes, so here they are
(full contract: `docs/api.md`).

**`/ws/matches/{match_id}`**: live events of a match. Signed in by the `bg_session` cookie,
`Authorization: Bearer`, or a message `{"type": "auth", "token": …}` (answered `signed_in`
and a `state`); a `?token=` is refused (close 1008); anyone else watches as a spectator and
cannot act. On connect: `{"type": "state"}`. Client frames: `{"type": "action", "action": {…}}`
(the body of `POST /api/matches/{match_id}/actions`), `{"type": "auth", …}` and
`{"type": "ping"}`. Server frames, each after the
change is committed: `state`, `commitment`, `roll`, `play`, `cube`, `resign`, `clock`,
`game_end`, `match_end`, `chat` (players only), `spectators`, then `ack` (your action
applied) or `error` (`action_id` and an error
as in HTTP: the same codes, e.g. `not_your_turn`, `illegal_play`, `bad_entropy`, and
`invalid_request` for a frame that is not JSON or not one of the two shapes), and `pong`.
Close codes: 4404 (no such match; an `error` frame with `not_found` comes first), 1013 (the
client reads too slowly; reconnect and resume from the fresh `state`).

**`/ws/me`**: the signed-in player's own events: `hello`, then `turn` and `invitation`
(close code 4401 without a session).

**`/ws/echo`** (only with `BOARDGAMMON_ECHO_SOCKET=1`): sends every text frame back; the load
benchmark's reference.
"""


def create_app(settings: Settings | None = None,
               game: runtime.GameConfig | None = None) -> FastAPI:
    """A new app for ``settings`` (default: :meth:`Settings.from_env`); ``game`` configures the
    game server (default: :meth:`~.runtime.GameConfig.from_env`)."""
    settings = settings or Settings.from_env()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        logs.install()  # here, after the server configured its logging
        parts.opened = open_database(settings.database_url)
        parts.opened_log_key = LogKey.load_or_create(Path(settings.log_key_path))
        parts.outage.watch(parts.opened.engine, parts.opened.sessions,
                           parts.opened.read_sessions)
        try:
            async with runtime.running(app), analysis_worker.running(app):
                yield
        finally:
            parts.opened.dispose()

    app = FastAPI(title="Boardgammon", version=__version__, lifespan=lifespan,
                  description=WEBSOCKETS_DESCRIPTION)
    errors.install(app, query_on_page=pages.QUERY_ON_PAGE, page=pages.error_page)
    app.include_router(audit.router)
    app.include_router(public_log.router)
    app.include_router(pages.router)
    app.include_router(players.router)
    game_server = runtime.install(app, game)
    if settings.echo_socket:
        app.include_router(websocket.echo_router)
    parts = Services(settings, game_server, analysis_worker.install(app))
    app.state.services = parts
    webapp.install(app)
    app.add_middleware(guards.OriginCheck, origins=settings.origins)
    if settings.trusted_proxies:
        app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=list(settings.trusted_proxies))
    app.add_middleware(guards.SecurityHeaders)  # outermost: every answer gets the headers
    return app
