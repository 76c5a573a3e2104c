"""Alembic environment: uses the connection the app passes in (``config.attributes``), or else
the database named by ``BOARDGAMMON_DATABASE_URL`` (for the ``alembic`` command line)."""

from alembic import context

from boardgammon.server.db import create_db_engine
from boardgammon.server.settings import Settings
from boardgammon.server.tables import Base


def _run(connection) -> None:
    # Batch mode lets later migrations alter SQLite tables (it copies and renames them).
    context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


connection = context.config.attributes.get("connection")
if connection is not None:
    _run(connection)
else:
    engine = create_db_engine(Settings.from_env().database_url)
    with engine.begin() as own_connection:
        _run(own_connection)
    engine.dispose()
