"""Database engine, sessions and migrations (SQLAlchemy 2 + Alembic).

:func:`open_database` builds the engine for a URL, applies every Alembic migration and returns a
:class:`Database`; the app keeps one in its services (:mod:`.services`) and routes get a
session per request from :func:`get_session`.

SQLite is set up for durability and for writers in several threads or processes: WAL journal,
``synchronous=NORMAL``, a 30 s busy timeout, and every transaction of :attr:`Database.sessions`
opened with ``BEGIN IMMEDIATE`` so that a read-then-write transaction takes the write lock up
front instead of failing when it upgrades; :attr:`Database.read_sessions` open a plain
(deferred) ``BEGIN`` with ``PRAGMA query_only`` on (a write in one fails at once) and never
wait for a writer (WAL readers see the last commit). On PostgreSQL a read session's
transaction is ``READ ONLY`` (SQLAlchemy's ``postgresql_readonly``), so a write in one fails
there too ("cannot execute INSERT in a read-only transaction"), and so does a ``SELECT …
FOR UPDATE``; and ``REPEATABLE READ``, so that, as on SQLite, all its statements see the
database of its first one (an audit document read in several statements is of one moment).
On both a write in a read session raises :class:`sqlalchemy.exc.InternalError`: a bug (an HTTP
request answered 500), not an outage.
HTTP requests get a session from :func:`get_session`: ``GET`` and ``HEAD`` a read one (the
few writes they make, a signed head or marking a sign-in session used, are short transactions
of :meth:`Database.writing`), the other methods a write one.

SQLite lets one transaction write at a time, and a ``BEGIN IMMEDIATE`` that finds the file
taken sleeps in SQLite's busy handler (1, 2, 5 … up to 100 ms between tries) rather than
waiting for it to be free. So a process's writers take turns on :attr:`Database.turn` first,
and each is woken the moment the one before it is done: every write of live play
(:meth:`Database.writing`: the match writes, a WebSocket's sign-in, the heartbeat, a signed
head, marking a sign-in session used). A write that does not take the turn (a write request's
session, such as a seek or a chat line; another process) still works; it waits in the busy
handler, and whoever holds the turn may wait behind it there. Reads never take the write lock.

Durability of ``synchronous=NORMAL`` in WAL mode: a commit is written to the WAL file before
``COMMIT`` returns, only the fsync is left to checkpoints. So a committed transaction survives
the server process dying at any moment (SIGKILL, a crash: the data is in the operating system's
file cache and the next open replays the WAL); only a power cut or kernel crash can lose the
last commits. ``FULL`` would fsync on every commit, which on this hardware costs more than
everything else an action does; set ``BOARDGAMMON_SQLITE_SYNCHRONOUS=FULL`` to pay it.
PostgreSQL keeps its own (fsync-on-commit) settings.

Checkpoints (copying the WAL's pages into the database file) are the server's background work
(:meth:`Database.checkpoint`, about once a second): left to SQLite, one ran inside every
thousandth page's commit, 5-8 ms with the writer waiting, and every other writer behind it.
SQLite still checkpoints by itself past :data:`SQLITE_AUTOCHECKPOINT_PAGES`, for processes that
do not run the background work (tools, tests) or if it falls behind.

The SQLite pool keeps a connection for every thread that may hold a session
(:data:`SQLITE_POOL_SIZE`: AnyIO's threads for sync routes plus the event loop's executor),
and makes as many again on demand: no request waits for a connection that SQLite does not
need to withhold. PostgreSQL keeps SQLAlchemy's pool (5, and 10 more on demand, per process):
its connections are the database server's processes, shared by every server process.

Statement parameters are hidden from error messages on every backend: they can hold an
unrevealed server seed.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from fastapi import Request
from sqlalchemy import CursorResult, Engine, Result, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import InternalError, OperationalError
from sqlalchemy.orm import Session, sessionmaker

MIGRATIONS = Path(__file__).with_name("migrations")
SQLITE_BUSY_TIMEOUT_S = 30.0
SQLITE_AUTOCHECKPOINT_PAGES = 10_000
"""WAL pages (4 KiB each) after which a commit checkpoints by itself (SQLite's default: 1000)."""
SQLITE_READONLY = 8
"""SQLite's result code for a write refused, here by ``PRAGMA query_only`` in a read session."""
READ_ONLY = "boardgammon_read_only"
"""Execution option of the engine behind :attr:`Database.read_sessions` (deferred ``BEGIN``)."""
WORKER_THREADS = 40
"""Threads AnyIO runs the sync routes and dependencies in (``get_session`` among them): its
default limiter's size, which the server sets to this at start (:func:`.runtime.running`),
so that the pool below is sized for the number it runs with."""
TO_THREAD_WORKERS = min(32, (os.cpu_count() or 1) + 4)
"""Threads of the event loop's default executor (``asyncio.to_thread``: every match read and
write, the heartbeat, the analysis worker): Python's own size for it, which the server keeps."""
SQLITE_POOL_SIZE = WORKER_THREADS + TO_THREAD_WORKERS
"""SQLite connections the pool keeps: one for every thread that may hold a session at once.
SQLAlchemy's default (5, and 10 more made and closed on demand) is smaller than the threads:
a request beyond the fifteenth waited up to 30 s (the pool's timeout) for a connection, then
failed, while SQLite itself could have served it (WAL readers never wait; writers take turns).
An idle SQLite connection costs a few file handles and nothing else, and the pool opens them
only when they are first needed."""
SQLITE_POOL_OVERFLOW = SQLITE_POOL_SIZE + 1
"""More connections made on demand beyond :data:`SQLITE_POOL_SIZE` (and closed when returned),
one more than the threads for the event loop's own read of a held request
(:meth:`.MatchService.hold_now`), which must never wait for a connection:
a thread may hold a second session at once (a ``GET`` route's read session and the write of a
signed head, :meth:`Database.writing`), and an async route holds its request's session
across the awaits of its worker threads."""
PG_CONNECT_TIMEOUT_S = 5
"""PostgreSQL: seconds a new connection may take (libpq's ``connect_timeout``, unless the URL
sets one): a connection to a database that hangs fails instead of waiting for ever."""


def create_db_engine(url: str) -> Engine:
    """An engine for ``url``; ``postgresql://`` means psycopg 3, SQLite files get their folder
    created and the pragmas above.

    Raises:
        ValueError: an in-memory SQLite URL (each connection would see its own empty database).
    """
    parsed = make_url(url)
    if parsed.drivername == "postgresql":
        parsed = parsed.set(drivername="postgresql+psycopg")
    if parsed.get_backend_name() == "postgresql":
        connect_args = ({} if "connect_timeout" in parsed.query
                        else {"connect_timeout": PG_CONNECT_TIMEOUT_S})
        return create_engine(parsed, hide_parameters=True, pool_pre_ping=True,
                             connect_args=connect_args)
    if parsed.get_backend_name() != "sqlite":
        return create_engine(parsed, hide_parameters=True, pool_pre_ping=True)
    if parsed.database in (None, "", ":memory:"):
        raise ValueError(f"SQLite needs a file, not an in-memory database: {url!r}")
    Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
    synchronous = os.environ.get("BOARDGAMMON_SQLITE_SYNCHRONOUS", "NORMAL").upper()
    if synchronous not in ("NORMAL", "FULL"):
        raise ValueError(f"BOARDGAMMON_SQLITE_SYNCHRONOUS is NORMAL or FULL, not {synchronous!r}")
    engine = create_engine(
        parsed, hide_parameters=True, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_S},
        pool_size=SQLITE_POOL_SIZE, max_overflow=SQLITE_POOL_OVERFLOW,
    )

    @event.listens_for(engine, "connect")
    def _configure(dbapi_connection, _record) -> None:
        # Autocommit at the driver level hands transaction control to the "begin" hook below.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA synchronous={synchronous}")
        cursor.execute(f"PRAGMA wal_autocheckpoint={SQLITE_AUTOCHECKPOINT_PAGES}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection) -> None:
        read_only = bool(connection.get_execution_options().get(READ_ONLY))
        # A write in a read transaction fails at once ("attempt to write a readonly
        # database") instead of upgrading, which works until another connection commits
        # first (SQLITE_BUSY_SNAPSHOT). The pragma is per connection: set when it changes.
        if connection.info.get(READ_ONLY, False) != read_only:
            connection.exec_driver_sql(f"PRAGMA query_only={int(read_only)}")
            connection.info[READ_ONLY] = read_only
        connection.exec_driver_sql("BEGIN" if read_only else "BEGIN IMMEDIATE")

    @event.listens_for(engine, "handle_error")
    def _write_in_read_session(context) -> None:
        # query_only's refusal is the caller's bug, not the database failing: raised as
        # PostgreSQL raises a write in a read-only transaction (InternalError, an HTTP 500)
        # rather than as sqlite3's OperationalError, which would count as an outage (503, and
        # a false "database outage" in the log; boardgammon.server.outage).
        orig = context.original_exception
        if (context.connection is not None and context.connection.info.get(READ_ONLY)
                and getattr(orig, "sqlite_errorcode", None) == SQLITE_READONLY):
            raise InternalError(context.statement, context.parameters, orig,
                                hide_parameters=True) from orig

    return engine


def migrate(engine: Engine) -> None:
    """Bring the schema to the newest Alembic revision (idempotent)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


@dataclass
class Database:
    """A migrated database: its engine and session factories (``expire_on_commit=False``):
    ``sessions`` for anything that may write, ``read_sessions`` for reads only (a write in one
    fails on every backend; on SQLite they do not take the write lock, so they neither wait
    for nor hold up writers)."""

    engine: Engine
    sessions: sessionmaker[Session]
    read_sessions: sessionmaker[Session] = field(init=False)
    turn: Any = field(init=False)
    """This process's turn to write (see the module docstring): a :class:`threading.Lock` on
    SQLite, where the file takes one writer at a time anyway; no limit on other backends."""

    def __post_init__(self) -> None:
        read_only: dict[str, Any] = {READ_ONLY: True}
        if self.engine.dialect.name == "postgresql":
            # psycopg then opens each of these transactions with ``BEGIN READ ONLY``, and
            # SQLAlchemy turns it off again when the connection goes back to the pool.
            read_only["postgresql_readonly"] = True
            # One snapshot per read, as a SQLite read transaction is: a document read in
            # several statements (an audit's rolls, then their log leaves) is of one moment.
            # A read-only transaction at this level never fails to serialize.
            read_only["isolation_level"] = "REPEATABLE READ"
        self.read_sessions = sessionmaker(self.engine.execution_options(**read_only),
                                          expire_on_commit=False)
        self.turn = threading.Lock() if self.is_sqlite else contextlib.nullcontext()

    @contextlib.contextmanager
    def writing(self) -> Iterator[Session]:
        """A write session (:attr:`sessions`) inside this process's :attr:`turn`: for every
        write on the server's hot path; the caller commits."""
        with self.turn, self.sessions() as session:
            yield session

    @property
    def is_sqlite(self) -> bool:
        """Whether the backend is SQLite (one writer at a time for the whole file)."""
        return self.engine.dialect.name == "sqlite"

    def checkpoint(self) -> tuple[int, int] | None:
        """SQLite: copy the committed pages of the WAL into the database file, waiting for no
        reader or writer (a ``PASSIVE`` checkpoint; pages a reader still needs stay for the
        next one). Returns (pages in the WAL, pages now in the database file); ``None`` on
        other backends, which need nothing of the kind."""
        if not self.is_sqlite:
            return None
        raw = self.engine.raw_connection()
        try:
            driver = raw.driver_connection
            if driver is None:
                raise RuntimeError("the pooled SQLite connection has no driver connection")
            _busy, in_log, copied = driver.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        finally:
            raw.close()
        return in_log, copied

    def dispose(self) -> None:
        self.engine.dispose()


def open_database(url: str) -> Database:
    """Engine for ``url``, migrated to the newest revision."""
    engine = create_db_engine(url)
    migrate(engine)
    return Database(engine, sessionmaker(engine, expire_on_commit=False))


def rowcount(result: Result[Any]) -> int:
    """The rows an UPDATE or DELETE matched. ``Session.execute`` is typed as returning a
    plain :class:`Result`, but for these statements it is a :class:`CursorResult`."""
    if not isinstance(result, CursorResult):
        raise TypeError(f"a row count needs the result of an UPDATE or DELETE, got {result!r}")
    return result.rowcount


class DatabaseUnreachable(RuntimeError):
    """The database did not answer within the time the server waits for it at start-up."""


def wait_for_database(url: str, wait_s: float, *, sleep=time.sleep,
                      clock=time.monotonic) -> int:
    """Connect to ``url`` until it answers, retrying with back-off (0.5 s doubling to 5 s) for
    up to ``wait_s`` seconds: a server started with its database (a service restarting at the
    same time) waits rather than dying. Returns the attempts made.

    Raises:
        DatabaseUnreachable: no answer within ``wait_s`` (its message is one line saying why).
    """
    engine = create_db_engine(url)
    deadline, pause, attempts = clock() + wait_s, 0.5, 0
    try:
        while True:
            attempts += 1
            try:
                with engine.connect():
                    return attempts
            except OperationalError as exc:
                if clock() + pause > deadline:
                    reason = str(exc.orig or exc).strip().splitlines()
                    raise DatabaseUnreachable(
                        f"the database at {make_url(url).render_as_string(hide_password=True)} "
                        f"did not answer within {wait_s:g} s ({attempts} attempts): "
                        f"{reason[0] if reason else type(exc).__name__}") from None
            sleep(pause)
            pause = min(2 * pause, 5.0)
    finally:
        engine.dispose()


READ_METHODS = frozenset({"GET", "HEAD"})
"""HTTP methods whose requests read only: :func:`get_session` gives them a read session."""


def get_session(request: Request) -> Iterator[Session]:
    """FastAPI dependency: a session for one request, closed (rolled back if open) afterwards:
    for ``GET`` and ``HEAD`` a read session (:attr:`Database.read_sessions`: a write in it
    fails, on SQLite and PostgreSQL alike, and on SQLite it never takes the write lock), whose
    route writes, if it must, in a session of :meth:`Database.writing`; for other methods a
    write session."""
    from boardgammon.server.services import services

    db = services(request.app).db
    factory = db.read_sessions if request.method in READ_METHODS else db.sessions
    with factory() as session:
        yield session
