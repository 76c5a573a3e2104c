"""The FastAPI application factory.

``create_app(settings)`` wires the routers (one per concern, under :mod:`.routes`), the error
handlers and the database: at start-up it opens the database named by the settings, applies
every Alembic migration and keeps the :class:`~.db.Database` on ``app.state.db``; routes get a
session per request through :func:`.db.get_session`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from boardgammon import __version__
from boardgammon.server import analysis_worker, errors, runtime, webapp
from boardgammon.server.db import open_database
from boardgammon.server.routes import audit
from boardgammon.server.settings import Settings


def create_app(settings: Settings | None = None,
               game: runtime.GameConfig | None = None) -> FastAPI:
    """A new app for ``settings`` (default: :meth:`Settings.from_env`); ``game`` configures the
    game server (default: :meth:`~.runtime.GameConfig.from_env`)."""
    settings = settings or Settings.from_env()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.db = open_database(settings.database_url)
        try:
            async with runtime.running(app), analysis_worker.running(app):
                yield
        finally:
            app.state.db.dispose()

    app = FastAPI(title="Boardgammon", version=__version__, lifespan=lifespan)
    app.state.settings = settings
    errors.install(app)
    app.include_router(audit.router)
    runtime.install(app, game)
    analysis_worker.install(app)
    webapp.install(app)
    return app
