"""``boardgammon serve``: run the game server (uvicorn) with settings from the environment."""

from __future__ import annotations

import sys

import typer


def serve(
    host: str = typer.Option("127.0.0.1", help="Interface to listen on."),
    port: int = typer.Option(8000, min=1, max=65535, help="TCP port."),
) -> None:
    """Start the server on http://HOST:PORT (database: BOARDGAMMON_DATABASE_URL, default SQLite
    at ./var/boardgammon.sqlite3, migrated at start-up; the other settings: docs/server.md)."""
    import uvicorn

    from boardgammon.server.app import create_app
    from boardgammon.server.db import DatabaseUnreachable, wait_for_database
    from boardgammon.server.runtime import GameConfig
    from boardgammon.server.settings import Settings

    try:
        settings = Settings.from_env()
        GameConfig.from_env()  # read again by the app: a bad value is named here, not traced
    except ValueError as exc:
        typer.echo(f"boardgammon serve: {exc}", err=True)
        raise typer.Exit(2) from None
    # Every SQLite statement of a write releases the GIL and must get it back from the event
    # loop, after up to this interval (docs/server.md §Threads and the GIL).
    sys.setswitchinterval(settings.switch_interval_s)
    try:
        wait_for_database(settings.database_url, settings.database_wait_s)
    except DatabaseUnreachable as exc:
        typer.echo(f"boardgammon serve: {exc}", err=True)
        raise typer.Exit(1) from None

    # uvicorn itself would believe X-Forwarded-* from 127.0.0.1 (its default): the app reads
    # them only from BOARDGAMMON_TRUSTED_PROXIES.
    uvicorn.run(create_app(settings), host=host, port=port, proxy_headers=False)
