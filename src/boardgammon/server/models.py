"""ORM models (SQLAlchemy 2, declarative). Schema changes go through an Alembic migration under
``migrations/versions/``; the app applies them at start-up.

Times are stored as UTC; :class:`UTCDateTime` hands back timezone-aware datetimes on every
backend (SQLite keeps no offset).
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    DateTime,
    Integer,
    SmallInteger,
    String,
    TypeDecorator,
    UniqueConstraint,
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
    committed_at: Mapped[datetime] = mapped_column(UTCDateTime())
    revealed_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    played_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    voided_at: Mapped[datetime | None] = mapped_column(UTCDateTime())

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
