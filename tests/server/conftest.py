"""Database fixtures for server tests: every test gets a fresh, migrated database, on SQLite (a
file under tmp_path) and on PostgreSQL (127.0.0.1:5432 db ``test``, user ``postgres``) in a
schema of its own, dropped afterwards, so parallel runs by different people never collide."""

from __future__ import annotations

import secrets

import pytest

from boardgammon.server.db import open_database
from tests.helpers.services import service_missing

POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
CONNINFO = "host=127.0.0.1 port=5432 dbname=test user=postgres"


def _postgres_or_skip() -> None:
    import psycopg

    try:
        psycopg.connect(f"{CONNINFO} connect_timeout=3").close()
    except psycopg.OperationalError as exc:
        service_missing(f"PostgreSQL is not reachable at 127.0.0.1:5432 db test: {exc}")


@pytest.fixture
def postgres_url():
    """A URL whose connections use a fresh schema of their own (search_path)."""
    _postgres_or_skip()
    import psycopg

    schema = f"bg_test_{secrets.token_hex(6)}"
    with psycopg.connect(CONNINFO, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    yield f"{POSTGRES}?options=-csearch_path%3D{schema}"
    _drop_schema(schema)


def _drop_schema(schema: str) -> None:
    """Drop `schema` even while an app a test started is still at work in it: pytest ends
    fixtures in the reverse order of their start, so a test that asked for its app's fixture
    before this one has that app (an analysis pass, the log's signer) running when the drop
    comes, and the drop's locks and the app's reads can deadlock (seen in CI). The sessions
    holding locks in the schema are ended first; a drop that still meets one is tried again."""
    import psycopg

    holders = """
        SELECT pg_terminate_backend(l.pid) FROM pg_locks l
        JOIN pg_class c ON c.oid = l.relation JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = %s AND l.pid <> pg_backend_pid()
          AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())"""
    with psycopg.connect(CONNINFO, autocommit=True) as conn:
        conn.execute("SET lock_timeout = '5s'")
        for attempt in range(5):
            conn.execute(holders, (schema,))
            try:
                conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
                return
            except (psycopg.errors.DeadlockDetected, psycopg.errors.LockNotAvailable):
                if attempt == 4:
                    raise


@pytest.fixture
def sqlite_url(tmp_path):
    return f"sqlite:///{tmp_path}/boardgammon.sqlite3"


@pytest.fixture(params=["sqlite", "postgres"])
def database_url(request):
    """The URL of a fresh database on each backend in turn."""
    return request.getfixturevalue(f"{request.param}_url")


@pytest.fixture
def database(database_url):
    """A migrated :class:`boardgammon.server.db.Database`."""
    db = open_database(database_url)
    yield db
    db.dispose()
