"""Every table of the server as ORM models (SQLAlchemy 2, declarative): the dice record,
accounts, sessions, seeks, matches and each match's action log, the service clock, match
analyses, an operator's request to remake the dice record's report, and the players' chat,
chat mutes and block lists. Schema changes go
through an Alembic migration under ``migrations/versions/``; the app applies them at start-up.

A match's state is never kept only in memory: ``match_log`` holds every accepted action of the
rules engine's record (:mod:`boardgammon.engine.record`) in order, and the match is rebuilt by
replaying it. ``matches.version`` is the number of log entries; every write checks it
(optimistic concurrency between threads and server processes).

Times are stored as UTC; :class:`UTCDateTime` hands back timezone-aware datetimes on every
backend (SQLite keeps no offset).
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    SmallInteger,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
    false,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    """Declarative base of every Boardgammon table."""


class UTCDateTime(TypeDecorator):
    """A ``DateTime`` that stores UTC and always returns an aware UTC datetime.

    Raises:
        ValueError: a naive datetime is bound (its zone would be a guess).
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError(f"naive datetime {value!r}: pass an aware UTC time")
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect) -> datetime | None:
        if value is None or value.tzinfo is not None:
            return value
        return value.replace(tzinfo=UTC)


class UnreadableTime(str):
    """The stored text of a dice-record time the database driver cannot read as one (a row
    changed by hand): kept as text so that the audit reports the row ``malformed``."""


class RecordTime(UTCDateTime):
    """:class:`UTCDateTime` for the dice records' times: text that cannot be read as a time
    comes back as :class:`UnreadableTime` instead of raising, since the audit must give such a
    row its verdict rather than fail (v2 hashes its times: ``malformed``, docs/fair-dice.md
    §The record (v2); v1 shows the text, its times are not hashed)."""

    cache_ok = True

    def result_processor(self, dialect, coltype):
        read = super().result_processor(dialect, coltype)

        def process(value):
            if read is None or value is None:
                return value
            try:
                return read(value)
            except ValueError:
                return UnreadableTime(value)

        return process


class DiceRoll(Base):
    """One entry of the dice record: a roll from its commitment on.

    Rows are inserted, then moved forward in ``state`` (committed → revealed → played, or
    committed → void), never deleted. ``seq`` is the roll's place in its match's record (0, 1,
    …); ``prev_hash`` the entry hash of the match's previous roll (``"0" * 64`` for the first),
    fixed at insert; ``entry_hash`` this entry's hash, updated when the roll is revealed (see
    :func:`boardgammon.dice.verify.entry_hash`). Hex strings are lowercase.
    """

    __tablename__ = "dice_rolls"
    __table_args__ = (
        UniqueConstraint("match_id", "seq", name="uq_dice_rolls_match_seq"),
        UniqueConstraint("nonce", name="uq_dice_rolls_nonce"),
        UniqueConstraint("commitment", name="uq_dice_rolls_commitment"),
        UniqueConstraint("server_seed", name="uq_dice_rolls_server_seed"),
        CheckConstraint("seat IN (0, 1)", name="ck_dice_rolls_seat"),
        CheckConstraint(
            "state IN ('committed', 'revealed', 'played', 'void')", name="ck_dice_rolls_state"
        ),
        CheckConstraint(
            "entropy_source IS NULL OR entropy_source IN ('client', 'server')",
            name="ck_dice_rolls_entropy_source",
        ),
    )

    roll_id: Mapped[str] = mapped_column(String(68), primary_key=True)
    match_id: Mapped[str] = mapped_column(String(68), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    nonce: Mapped[int] = mapped_column(BigInteger)
    seat: Mapped[int] = mapped_column(SmallInteger)
    state: Mapped[str] = mapped_column(String(10))
    commitment: Mapped[str] = mapped_column(String(64))
    server_seed: Mapped[str] = mapped_column(String(64))
    client_entropy: Mapped[str | None] = mapped_column(String(32))
    entropy_source: Mapped[str | None] = mapped_column(String(6))
    die1: Mapped[int | None] = mapped_column(SmallInteger)
    die2: Mapped[int | None] = mapped_column(SmallInteger)
    prev_hash: Mapped[str] = mapped_column(String(64))
    entry_hash: Mapped[str] = mapped_column(String(64))
    committed_at: Mapped[datetime] = mapped_column(RecordTime())
    revealed_at: Mapped[datetime | None] = mapped_column(RecordTime())
    played_at: Mapped[datetime | None] = mapped_column(RecordTime())
    voided_at: Mapped[datetime | None] = mapped_column(RecordTime())

    def __repr__(self) -> str:
        # Never the seed: reprs end up in logs and tracebacks.
        where = f"{self.match_id}#{self.seq}"
        return f"<DiceRoll {self.roll_id} {where} nonce={self.nonce} {self.state}>"


class DiceNonceCounter(Base):
    """The server-wide dice nonce counter: one row, id 1, ``value`` the next nonce to hand out.

    A row rather than a database sequence so that SQLite and PostgreSQL behave alike: the
    ``UPDATE … RETURNING`` that takes a nonce holds the row until the roll's transaction
    commits, so committed nonces rise in commit order and a rolled-back one is reused.
    """

    __tablename__ = "dice_nonce_counter"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    value: Mapped[int] = mapped_column(BigInteger)


class User(Base):
    """A player. ``username_key`` is the lower-cased name (names are unique regardless of
    case); guests have no password until they upgrade. A deleted account (``deleted_at`` set,
    migration 0018) keeps its row and ``username_key`` (the name stays taken) with
    ``username`` the placeholder :data:`DELETED_NAME` and no password."""

    __tablename__ = "users"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    username: Mapped[str] = mapped_column(String(20))
    username_key: Mapped[str] = mapped_column(String(20), unique=True)
    password_hash: Mapped[str | None] = mapped_column(String(200))
    guest: Mapped[bool] = mapped_column(Boolean)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    deleted_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


DELETED_NAME = "deleted player"
"""The name of every deleted account wherever its matches are shown (``users.username``): no
account can be called this (a name has no space), and clients show it translated."""


class AuthToken(Base):
    """A session: the SHA-256 of the bearer/cookie token (the token itself is never stored),
    when it was opened and when it was last used (to within :data:`.auth.TOUCH_EVERY`)."""

    __tablename__ = "auth_tokens"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    last_used_at: Mapped[datetime] = mapped_column(UTCDateTime())


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
    # Ratings (migration 0009): a rated seek, and the owner's range for the opponent's rating.
    rated: Mapped[bool] = mapped_column(Boolean, server_default=false())
    min_rating: Mapped[float | None] = mapped_column(Float)
    max_rating: Mapped[float | None] = mapped_column(Float)


class MatchRow(Base):
    """A match: who plays which seat and the settings, plus a summary of the replayed state
    for listings and background tasks (``turn_seat``, ``score0/1``, ``deadline_t``).

    ``bot_seat``/``bot_level``/``bot_seed``: the computer's seat in a game against it.
    ``deadline_t``: when the running clock's reserve runs out, in service seconds (see
    :mod:`boardgammon.server.service_clock`), ``None`` when no clock runs.
    ``start_t``: when a match with a clock started, in service seconds: the first opening
    roller's clock runs from then (``None`` without a clock, and for matches created before
    migration 0004, whose opening roll was not on the clock).
    ``awaiting_first_roll_since``: for an active live v2 match that has no roll yet (against
    the computer, only when the computer rolls first), when it began to wait
    (``created_at``); ``None`` once its first roll is committed or it is finished, and for
    every other match. The server's background round finds the matches
    whose wait for their players' anchors is over by it, through a partial index that holds
    only the waiting ones (:meth:`.MatchRepository.due_ids`).
    """

    __tablename__ = "matches"
    __table_args__ = (
        CheckConstraint("mode IN ('live', 'correspondence')", name="ck_matches_mode"),
        CheckConstraint("status IN ('active', 'finished')", name="ck_matches_status"),
        Index("ix_matches_awaiting_first_roll", "awaiting_first_roll_since",
              sqlite_where=text("awaiting_first_roll_since IS NOT NULL"),
              postgresql_where=text("awaiting_first_roll_since IS NOT NULL")),
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
    # The dice protocol, fixed at creation: "v1" (dice_rolls) or "v2" (dice_rolls_v2).
    dice: Mapped[str] = mapped_column(String(4), server_default="v1")
    awaiting_first_roll_since: Mapped[datetime | None] = mapped_column(UTCDateTime())
    # The finished match this one is the rematch of (one rematch each), None for the others.
    rematch_of: Mapped[str | None] = mapped_column(String(68), unique=True, index=True)
    # v2: the wait for the opponent's link (ms) its match leaf states, fixed with its first
    # roll; None before then, for correspondence and v1 matches and those from before 0024.
    link_wait_ms: Mapped[int | None] = mapped_column(Integer)


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


class MatchActionLabel(Base):
    """A client's action that added no entry to its match's record, by its ``action_id``: a
    v2 roll's request (the link's reveal is the entry), an anchor. Kept as
    :class:`MatchLogEntry` keeps an entry's label, so that the ID stays the action's: a resend
    gets its ``events`` again, another action under it is refused (``request``: the action as
    sent, canonical JSON), and the other player cannot take it over. An action ID of a match
    is in one of the two tables at most."""

    __tablename__ = "match_action_labels"

    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id"), primary_key=True)
    action_id: Mapped[str] = mapped_column(String(100), primary_key=True)
    user_id: Mapped[int] = mapped_column(Integer)
    events: Mapped[str] = mapped_column(Text)
    request: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


class ServiceClockRow(Base):
    """One row (id 1): the service clock's ``downtime`` (seconds the whole service was down,
    summed) and the last ``heartbeat`` (wall seconds) any server process wrote."""

    __tablename__ = "service_clock"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    downtime: Mapped[float] = mapped_column(Float)
    heartbeat: Mapped[float] = mapped_column(Float)


class ClockResumption(Base):
    """A service time (seconds) at which the clocks resumed after the server could not serve:
    a live clock running across it gets a fresh delay window there
    (:attr:`boardgammon.engine.clock.Clock.resumes`)."""

    __tablename__ = "clock_resumptions"

    at: Mapped[float] = mapped_column(Float, primary_key=True)
    downtime_before: Mapped[float | None] = mapped_column(Float, nullable=True)
    """The service's downtime (seconds) just before this resumption's credit: wall times before
    it are service times plus this much (:meth:`.ServiceClock.to_service`); ``None`` on rows
    recorded before 2026-12-05."""


class DiceReportRequest(Base):
    """One row (id 1): when an operator last asked for the dice record's public report to be
    made again (``boardgammon stats refresh-record``); every server process compares it with
    the request its cached report was made under."""

    __tablename__ = "dice_report_requests"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    requested_at: Mapped[datetime] = mapped_column(UTCDateTime())


class MatchAnalysisRow(Base):
    """The analysis of one finished match: ``status`` pending, done or failed; ``result`` the
    JSON of :func:`boardgammon.analysis.report.to_dict` with every decision; ``error`` why it
    failed (on a ``done`` row: why its last deeper pass failed, the shallower result kept);
    ``claimed_t`` wall seconds when a worker took it (on a done row whose deeper pass failed:
    set so that the claim runs out when that pass may be tried again); ``version`` the analysis
    version that made it (or is making it)."""

    __tablename__ = "match_analyses"
    __table_args__ = (CheckConstraint("status IN ('pending', 'done', 'failed')",
                                      name="ck_match_analyses_status"),)

    match_id: Mapped[str] = mapped_column(String(68), primary_key=True)
    status: Mapped[str] = mapped_column(String(10), index=True)
    plies: Mapped[int] = mapped_column(SmallInteger)
    result: Mapped[str | None] = mapped_column(Text)
    error: Mapped[str | None] = mapped_column(Text)
    claimed_t: Mapped[float] = mapped_column(Float)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime())
    version: Mapped[int] = mapped_column(SmallInteger, server_default="1")


# Dice protocol v2 (issue #25) ------------------------------------------------------------------


class DiceRollV2(Base):
    """One entry of a match's ``boardgammon-record-v2`` dice record (``docs/fair-dice.md``).

    States: committed → requested (the roller's entropy in) → revealed (the opponent's link or
    its absence, the seed, the dice) → played; committed or requested → void. Every state
    change rewrites ``entry_hash`` (states and times are hashed); the next roll starts only
    when this one is played or void, so the hash the next entry links to is final. Hex strings
    are lowercase; ``opponent_prev_link`` is what the opponent's link must hash to, fixed at
    commit.
    """

    __tablename__ = "dice_rolls_v2"
    __table_args__ = (
        UniqueConstraint("match_id", "seq", name="uq_dice_rolls_v2_match_seq"),
        UniqueConstraint("nonce", name="uq_dice_rolls_v2_nonce"),
        UniqueConstraint("commitment", name="uq_dice_rolls_v2_commitment"),
        UniqueConstraint("server_seed", name="uq_dice_rolls_v2_server_seed"),
        CheckConstraint("seat IN (0, 1)", name="ck_dice_rolls_v2_seat"),
        CheckConstraint("kind IN ('opening', 'normal')", name="ck_dice_rolls_v2_kind"),
        CheckConstraint("state IN ('committed', 'requested', 'revealed', 'played', 'void')",
                        name="ck_dice_rolls_v2_state"),
        # The server's tick looks for requested rolls whose opponent's link is overdue.
        Index("ix_dice_rolls_v2_state", "state"),
    )

    roll_id: Mapped[str] = mapped_column(String(68), primary_key=True)
    match_id: Mapped[str] = mapped_column(String(68), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    nonce: Mapped[int] = mapped_column(BigInteger)
    seat: Mapped[int] = mapped_column(SmallInteger)
    kind: Mapped[str] = mapped_column(String(8))
    state: Mapped[str] = mapped_column(String(10))
    commitment: Mapped[str] = mapped_column(String(64))
    server_seed: Mapped[str] = mapped_column(String(64))
    roller_entropy: Mapped[str | None] = mapped_column(String(32))
    roller_source: Mapped[str | None] = mapped_column(String(6))
    opponent_prev_link: Mapped[str | None] = mapped_column(String(64))
    opponent_entropy: Mapped[str | None] = mapped_column(String(64))
    opponent_source: Mapped[str | None] = mapped_column(String(6))
    die1: Mapped[int | None] = mapped_column(SmallInteger)
    die2: Mapped[int | None] = mapped_column(SmallInteger)
    prev_hash: Mapped[str] = mapped_column(String(64))
    entry_hash: Mapped[str] = mapped_column(String(64))
    committed_at: Mapped[datetime] = mapped_column(RecordTime())
    requested_at: Mapped[datetime | None] = mapped_column(RecordTime())
    opponent_at: Mapped[datetime | None] = mapped_column(RecordTime())
    revealed_at: Mapped[datetime | None] = mapped_column(RecordTime())
    played_at: Mapped[datetime | None] = mapped_column(RecordTime())
    voided_at: Mapped[datetime | None] = mapped_column(RecordTime())

    def __repr__(self) -> str:
        # Never the seed: reprs end up in logs and tracebacks.
        return f"<DiceRollV2 {self.roll_id} {self.match_id}#{self.seq} {self.state}>"


class DiceAnchor(Base):
    """A player's hash-chain anchor for a match (v2 dice): registered once per seat, before
    the rolls it takes part in are committed; the links it fixes are the player's
    contributions to the rolls where it is the opponent."""

    __tablename__ = "dice_anchors"

    match_id: Mapped[str] = mapped_column(String(68), primary_key=True)
    seat: Mapped[int] = mapped_column(SmallInteger, primary_key=True)
    anchor: Mapped[str] = mapped_column(String(64))
    registered_at: Mapped[datetime] = mapped_column(UTCDateTime())
# The public log of the dice record (issue 25): docs/fair-dice.md §The public log.
class LogEntry(Base):
    """One leaf of the public log (:mod:`.dice_log`): a change of a roll or an accepted chain
    anchor, in log order.
    ``idx`` is the leaf's place (0, 1, …, without gaps); ``leaf`` the exact bytes hashed (ASCII
    JSON, :func:`boardgammon.dice.transparency.leaf_bytes`). Inserted, never changed."""

    __tablename__ = "log_entries"

    idx: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    match_id: Mapped[str] = mapped_column(String(68), index=True)
    roll_id: Mapped[str | None] = mapped_column(String(68))  # None: an anchor's leaf
    leaf: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


class LogNode(Base):
    """The hash of a complete subtree of the log: ``level`` 0 is leaf ``idx``'s hash, level
    ``l`` the subtree over leaves ``idx·2^l`` … ``(idx+1)·2^l − 1``; stored once complete, so
    any root or proof needs O(log n) of them."""

    __tablename__ = "log_nodes"

    level: Mapped[int] = mapped_column(SmallInteger, primary_key=True, autoincrement=False)
    idx: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    hash: Mapped[str] = mapped_column(String(64))


class LogSize(Base):
    """One row (id 1): the number of leaves. The ``UPDATE … RETURNING`` that takes the next
    index holds the row until the change's transaction commits, so indices have no gaps."""

    __tablename__ = "log_size"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    size: Mapped[int] = mapped_column(BigInteger)


class LogHead(Base):
    """A signed tree head, the first one signed for its size: ``timestamp`` in milliseconds
    since 1970 UTC, ``root_hash`` hex, ``signature`` the log key's Ed25519 signature (hex) of
    :func:`boardgammon.dice.transparency.head_bytes`."""

    __tablename__ = "log_heads"

    tree_size: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    timestamp: Mapped[int] = mapped_column(BigInteger)
    root_hash: Mapped[str] = mapped_column(String(64))
    signature: Mapped[str] = mapped_column(String(128))


class LogCosignature(Base):
    """A witness's Ed25519 signature (hex) of a head it checked
    (:func:`boardgammon.dice.transparency.cosigned_bytes`), under its public key (hex)."""

    __tablename__ = "log_cosignatures"
    # One witness's co-signatures, newest head first (GET /api/log/witnesses?key=), without
    # scanning every witness's.
    __table_args__ = (Index("ix_log_cosignatures_witness", "witness_key", "tree_size"),)

    tree_size: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    witness_key: Mapped[str] = mapped_column(String(64), primary_key=True)
    signature: Mapped[str] = mapped_column(String(128))
    received_at: Mapped[datetime] = mapped_column(UTCDateTime())
class PlayerRating(Base):
    """A player's rating in one variant (Glicko-2 adapted to match length,
    :mod:`boardgammon.ratings.glicko`): ``rating`` and ``deviation`` in rating points,
    ``volatility`` on Glickman's scale, ``experience`` the sum of the lengths of the rated
    matches finished (as FIBS counts it), ``matches`` their number. No row: never rated (1500)."""

    __tablename__ = "player_ratings"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True)
    variant: Mapped[str] = mapped_column(String(12), primary_key=True)
    rating: Mapped[float] = mapped_column(Float, index=True)
    deviation: Mapped[float] = mapped_column(Float)
    volatility: Mapped[float] = mapped_column(Float)
    experience: Mapped[int] = mapped_column(Integer)
    matches: Mapped[int] = mapped_column(Integer)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime())


class RatedMatch(Base):
    """A rated match (from a rated seek): ``rated_at`` is set, exactly once, in the
    transaction that ends the match and changes both ratings (a second writer finds it set)."""

    __tablename__ = "rated_matches"

    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id"), primary_key=True)
    rated_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


class RatingChange(Base):
    """One player's rating before and after one rated match: the rating history."""

    __tablename__ = "rating_changes"

    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id"), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True, index=True)
    variant: Mapped[str] = mapped_column(String(12))
    before: Mapped[float] = mapped_column(Float)
    after: Mapped[float] = mapped_column(Float)
    deviation: Mapped[float] = mapped_column(Float)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


class ChatMessage(Base):
    """One chat line a player wrote in a match (``docs/api.md`` §Chat): plain text as written
    (at most :data:`boardgammon.server.chat.MAX_CHARS` characters, no control characters),
    escaped by whoever shows it. ``seat`` is the writer's seat; kept as long as the match."""

    __tablename__ = "chat_messages"
    __table_args__ = (CheckConstraint("seat IN (0, 1)", name="ck_chat_messages_seat"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id"), index=True)
    seat: Mapped[int] = mapped_column(SmallInteger)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    text: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


class ChatMute(Base):
    """A player (``user_id``) muted their opponent's chat in one match."""

    __tablename__ = "chat_mutes"

    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id"), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True)


class Block(Base):
    """``user_id`` blocked ``blocked_id``: neither can invite the other, take the other's seek
    or read the other's chat (``docs/api.md`` §Blocks)."""

    __tablename__ = "blocks"
    __table_args__ = (CheckConstraint("user_id <> blocked_id", name="ck_blocks_not_self"),)

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True)
    blocked_id: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True,
                                            index=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
