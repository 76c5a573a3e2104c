"""ORM models of the game server: accounts, sessions, seeks, matches and each match's action
log (migration ``0002_game_server``).

A match's state is never kept only in memory: ``match_log`` holds every accepted action of the
rules engine's record (:class:`boardgammon.engine.match.Action`) in order, and the match is
rebuilt by replaying it. ``matches.version`` is the number of log entries; every write checks it
(optimistic concurrency between threads and server processes).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    Boolean,
    CheckConstraint,
    Float,
    ForeignKey,
    Integer,
    SmallInteger,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from boardgammon.server.models import Base, UTCDateTime


class User(Base):
    """A player. ``username_key`` is the lower-cased name (names are unique regardless of
    case); guests have no password until they upgrade."""

    __tablename__ = "users"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    username: Mapped[str] = mapped_column(String(20))
    username_key: Mapped[str] = mapped_column(String(20), unique=True)
    password_hash: Mapped[str | None] = mapped_column(String(200))
    guest: Mapped[bool] = mapped_column(Boolean)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


class AuthToken(Base):
    """A session: the SHA-256 of the bearer/cookie token (the token itself is never stored)."""

    __tablename__ = "auth_tokens"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


class Seek(Base):
    """An open seek or an invitation (``invite_id`` set). ``state``: open, accepted, cancelled."""

    __tablename__ = "seeks"
    __table_args__ = (
        CheckConstraint("mode IN ('live', 'correspondence')", name="ck_seeks_mode"),
        CheckConstraint("state IN ('open', 'accepted', 'cancelled')", name="ck_seeks_state"),
    )

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    owner_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    length: Mapped[int] = mapped_column(SmallInteger)
    variant: Mapped[str] = mapped_column(String(12))
    mode: Mapped[str] = mapped_column(String(16))
    clock: Mapped[str | None] = mapped_column(String(16))
    days: Mapped[int | None] = mapped_column(SmallInteger)
    invite_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), index=True)
    state: Mapped[str] = mapped_column(String(10), index=True)
    match_id: Mapped[str | None] = mapped_column(String(68))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


class MatchRow(Base):
    """A match: who plays which seat and the settings, plus a summary of the replayed state
    for listings and background tasks (``turn_seat``, ``score0/1``, ``deadline_t``).

    ``bot_seat``/``bot_level``/``bot_seed``: the computer's seat in a game against it.
    ``deadline_t``: when the running clock's reserve runs out, in service seconds (see
    :mod:`boardgammon.server.service_clock`), ``None`` when no clock runs.
    ``start_t``: when a match with a clock started, in service seconds: the first opening
    roller's clock runs from then (``None`` without a clock, and for matches created before
    migration 0004, whose opening roll was not on the clock).
    """

    __tablename__ = "matches"
    __table_args__ = (
        CheckConstraint("mode IN ('live', 'correspondence')", name="ck_matches_mode"),
        CheckConstraint("status IN ('active', 'finished')", name="ck_matches_status"),
    )

    id: Mapped[str] = mapped_column(String(68), primary_key=True)
    seat0_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), index=True)
    seat1_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), index=True)
    bot_seat: Mapped[int | None] = mapped_column(SmallInteger)
    bot_level: Mapped[str | None] = mapped_column(String(20))
    bot_seed: Mapped[int | None] = mapped_column(Integer)
    length: Mapped[int] = mapped_column(SmallInteger)
    variant: Mapped[str] = mapped_column(String(12))
    mode: Mapped[str] = mapped_column(String(16))
    clock: Mapped[str | None] = mapped_column(String(16))
    days: Mapped[int | None] = mapped_column(SmallInteger)
    status: Mapped[str] = mapped_column(String(10), index=True)
    version: Mapped[int] = mapped_column(Integer)
    turn_seat: Mapped[int | None] = mapped_column(SmallInteger)
    score0: Mapped[int] = mapped_column(SmallInteger)
    score1: Mapped[int] = mapped_column(SmallInteger)
    winner: Mapped[int | None] = mapped_column(SmallInteger)
    deadline_t: Mapped[float | None] = mapped_column(Float, index=True)
    start_t: Mapped[float | None] = mapped_column(Float)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime())


class MatchLogEntry(Base):
    """Entry ``seq`` (0, 1, …) of a match's record: the engine action as JSON, the client's
    ``action_id`` (unique per match: a resent action is found here and not applied twice), the
    events it produced (returned again to a resend) and ``request``, the client's action as
    sent (canonical JSON; an ID reused for a different action is refused). The server's own
    entries (the computer's actions, flags) have no ``action_id`` and no ``request``."""

    __tablename__ = "match_log"
    __table_args__ = (UniqueConstraint("match_id", "action_id", name="uq_match_log_action"),)

    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    action_id: Mapped[str | None] = mapped_column(String(100))
    user_id: Mapped[int | None] = mapped_column(Integer)
    action: Mapped[str] = mapped_column(Text)
    events: Mapped[str] = mapped_column(Text)
    request: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


class ServiceClock(Base):
    """One row (id 1): the service clock's ``downtime`` (seconds the whole service was down,
    summed) and the last ``heartbeat`` (wall seconds) any server process wrote."""

    __tablename__ = "service_clock"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    downtime: Mapped[float] = mapped_column(Float)
    heartbeat: Mapped[float] = mapped_column(Float)
