"""The dice record: the service the match server calls to roll, and what the audit pages read.

Every online roll is an entry of an append-only, hash-chained record (table ``dice_rolls``,
spec in ``docs/fair-dice.md``). A roll moves committed → revealed → played, or committed → void
when it will never be revealed (a drop, a resignation, the match ended, a flag). Each change
is also a leaf of the public log (:func:`.dice_log.append`, in the same transaction).

Service API (each writing function takes an open :class:`~sqlalchemy.orm.Session`, commits it
before it returns and rolls it back on any error, so what it returns is durable and a refused
call changes nothing; send a commitment or dice to anyone only after the call returned). With
``commit=False`` a writing function only flushes, inside the caller's transaction: the caller
commits it together with its own writes (one transaction per match action) or rolls it all
back on an error it raises, and sends nothing before its commit:

``commit_roll(session, match_id, seat) -> Roll``
    Start the next roll of ``match_id`` for ``seat`` (0 or 1): a fresh 32-byte seed, the next
    server-wide nonce, appended to the match's chain. Send ``roll_id``, ``nonce`` and
    ``commitment`` to both players. Refused while the match's newest roll is pending
    (:class:`RollPending`: reveal or void it first) or revealed and not played
    (:class:`WrongRollState`).
``reveal_roll(session, roll_id, commitment, client_entropy) -> Roll``
    Reveal with the 16 bytes the roller's device sent and the commitment it was shown
    (:class:`CommitmentMismatch` if they differ, logged; :class:`BadEntropy` if not 16 bytes).
    Repeating it, even concurrently, returns the same roll and dice.
``auto_reveal_roll(session, roll_id) -> Roll``
    Reveal with server-drawn entropy (entropy source ``server``): only where no device takes
    part (a timeout, an automatic roll).
``mark_played(session, roll_id) -> Roll``
    The roll's play was accepted (validate it against ``roll.dice`` first).
``void_roll(session, roll_id) -> Roll``
    The pending roll will never be revealed; its seed stays secret forever.
``get_roll(session, roll_id)``, ``current_roll(session, match_id)`` (the newest roll or
``None``), ``match_rolls(session, match_id)``, ``chain_head(session, match_id)`` (publish it on
the result screen when the match ends), ``audit_document(session, match_id)`` (the JSON of
``GET /api/audit/{match_id}``, verdicts recomputed).

A :class:`Roll` carries ``server_seed`` only once revealed, so it is safe to serialise with
:meth:`Roll.to_json` anywhere. Errors are :class:`DiceRecordError` subclasses, each a
:class:`~boardgammon.server.refusals.Refusal` of its kind with the ``code`` of ``docs/api.md``
(the edge gives the status). Logs go to ``boardgammon.dice`` and never hold
a seed.

On SQLite every transaction takes the write lock (see :mod:`.db`); keep sessions short.

Why one module of some 620 lines: every step of the protocol (commit, reveal, play, void) and
every read (a roll, a match's rolls, the chain head, the audit document) share the row format,
the entry hash of the chain and the row locks; apart, each would need the others' internals.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any, TypeVar, cast

from sqlalchemy import Table, bindparam, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from boardgammon.dice.ids import is_match_id, new_roll_id
from boardgammon.dice.verify import (
    AUDIT_FORMAT,
    DICE_SPEC,
    ENTROPY_BYTES,
    GENESIS,
    RECORD_SPEC,
    REVEALED_STATES,
    SEED_BYTES,
    commitment,
    derive_dice,
    entry_hash,
    verify_document,
)
from boardgammon.server import dice_log
from boardgammon.server.db import rowcount
from boardgammon.server.refusals import (
    ErrorCode,
    Illegal,
    Invalid,
    NotFound,
    Refusal,
    StateConflict,
    Unavailable,
)
from boardgammon.server.tables import DiceNonceCounter, DiceRoll, UnreadableTime

log = logging.getLogger("boardgammon.dice")

COMMIT_ATTEMPTS = 5  # retries after a lost race for the match's next place (or a seed collision)

T = TypeVar("T")
V = TypeVar("V")


class DiceRecordError(Refusal):
    """Base of the dice record's refusals (each also of its kind, for the edge's status)."""


class InvalidRollRequest(DiceRecordError, Invalid):
    """A malformed match ID or seat."""


class RollNotFound(DiceRecordError, NotFound):
    """No roll with that ID, or no record for that match."""


class CommitmentMismatch(DiceRecordError, Illegal):
    """The reveal request carried a commitment other than the one issued for the roll."""

    code = ErrorCode.COMMITMENT_MISMATCH


class BadEntropy(DiceRecordError, Invalid):
    """Client entropy missing or not exactly 16 bytes (malformed input, as at the edge)."""

    code = ErrorCode.BAD_ENTROPY


class RollPending(DiceRecordError, StateConflict):
    """The match's newest roll is committed and not yet revealed or voided."""

    code = ErrorCode.ROLL_PENDING


class WrongRollState(DiceRecordError, StateConflict):
    """The roll is not in a state that allows the step (e.g. playing an unrevealed roll)."""

    code = ErrorCode.WRONG_PHASE


class RecordUnavailable(DiceRecordError, Unavailable):
    """The record could not take the roll after :data:`COMMIT_ATTEMPTS` tries."""

    code = ErrorCode.RECORD_UNAVAILABLE


class CorruptRoll(DiceRecordError, Unavailable):
    """A stored roll of the match cannot be read: a hex column that is not hex of its size (a
    row changed by hand, or corrupt). The match is held (its state and actions refused,
    nothing changed) until the server's operator repairs the row; the audit reports the row
    as ``malformed`` all along."""

    code = ErrorCode.RECORD_CORRUPT


# The (roll, column) pairs already reported in this process: a held match is read again on
# every request and every background tick (4 a second), and the operator needs one line.
_REPORTED: set[tuple[str, str]] = set()


def stored_hex(roll_id: str, match_id: str, column: str, value: str | None,
               size: int) -> bytes | None:
    """The stored hex column ``column`` of a roll as ``size`` bytes (``None`` where it holds
    none), for the live match path; the audit reads the text as stored instead
    (:func:`_row_entry`) and gives such a row its verdict.

    Raises:
        CorruptRoll: ``record_corrupt`` (logged at ERROR for the operator, once per roll and
            column in a process); the message names the roll and the column, never the
            value (a pending roll's seed is secret).
    """
    if value is None or value == "":
        return None
    try:
        decoded = bytes.fromhex(value)
    except ValueError:
        decoded = None
    # The length of the text too: fromhex skips whitespace between the digits.
    if decoded is not None and len(decoded) == size and len(value) == 2 * size:
        return decoded
    if (roll_id, column) not in _REPORTED:
        _REPORTED.add((roll_id, column))
        log.error("the dice record of match %s cannot be read: roll %s's %s is not %d bytes "
                  "of hex (%d characters stored); the match is held until the row is repaired",
                  match_id, roll_id, column, size, len(value))
    raise CorruptRoll(
        f"the dice record of match {match_id} cannot be read: roll {roll_id}'s {column} is "
        f"not {size} bytes of hex. The match is held (nothing changed) until the server's "
        f"operator repairs it; see /audit/{match_id}"
    )


@dataclass(frozen=True)
class Roll:
    """A roll as the record holds it. ``server_seed`` is ``None`` until the roll is revealed.

    ``dice`` is (first die, second die) once revealed; ``client_entropy`` 16 bytes;
    ``entropy_source`` ``"client"`` or ``"server"``; times are aware UTC datetimes.
    """

    roll_id: str
    match_id: str
    seq: int
    nonce: int
    seat: int
    state: str
    commitment: str
    server_seed: bytes | None
    client_entropy: bytes | None
    entropy_source: str | None
    dice: tuple[int, int] | None
    prev_hash: str
    entry_hash: str
    committed_at: datetime
    revealed_at: datetime | None
    played_at: datetime | None
    voided_at: datetime | None

    @classmethod
    def from_row(cls, row: DiceRoll | _Entry) -> Roll:
        """The roll of a stored row.

        Raises:
            CorruptRoll: a hex column is not hex of its size (the seed is checked before
                it is revealed too, and never shown).
        """
        revealed = row.state in REVEALED_STATES
        seed = stored_hex(row.roll_id, row.match_id, "server_seed", row.server_seed, SEED_BYTES)
        return cls(
            roll_id=row.roll_id,
            match_id=row.match_id,
            seq=row.seq,
            nonce=row.nonce,
            seat=row.seat,
            state=row.state,
            commitment=row.commitment,
            server_seed=seed if revealed else None,
            client_entropy=stored_hex(row.roll_id, row.match_id, "client_entropy",
                                      row.client_entropy, ENTROPY_BYTES),
            entropy_source=row.entropy_source,
            dice=(row.die1, _stored(row, row.die2, "its second die")) if row.die1 is not None
            else None,
            prev_hash=row.prev_hash,
            entry_hash=row.entry_hash,
            committed_at=row.committed_at,
            revealed_at=row.revealed_at,
            played_at=row.played_at,
            voided_at=row.voided_at,
        )

    def to_json(self) -> dict:
        """The roll as an audit entry (hex strings, ISO 8601 times, dice as a list)."""
        return _entry(
            self,
            self.server_seed.hex() if self.server_seed else None,
            self.client_entropy.hex() if self.client_entropy else None,
            list(self.dice) if self.dice else None,
        )


def _entry(roll: Roll | DiceRoll, seed: str | None, entropy: str | None, dice: list | None) -> dict:
    """An audit entry of ``roll`` (a :class:`Roll` or a row: the same attribute names) with its
    reveal fields already as JSON values."""

    def when(moment: datetime | None) -> str | None:
        if isinstance(moment, UnreadableTime):
            return str(moment)  # a row changed by hand: shown as stored
        return moment.isoformat() if moment else None

    return {
        "seq": roll.seq,
        "roll_id": roll.roll_id,
        "nonce": roll.nonce,
        "seat": roll.seat,
        "state": roll.state,
        "commitment": roll.commitment,
        "server_seed": seed,
        "client_entropy": entropy,
        "entropy_source": roll.entropy_source,
        "dice": dice,
        "prev_hash": roll.prev_hash,
        "entry_hash": roll.entry_hash,
        "committed_at": when(roll.committed_at),
        "revealed_at": when(roll.revealed_at),
        "played_at": when(roll.played_at),
        "voided_at": when(roll.voided_at),
    }


def _row_entry(row: DiceRoll) -> dict:
    """The audit entry of a row as stored, not decoded first: a row corrupted in the database
    (a seed that is not hex, say) must reach the verifier and get its verdict, not crash the
    audit page. The seed stays out until the roll is revealed."""
    revealed = row.state in REVEALED_STATES
    dice = None if row.die1 is None and row.die2 is None else [row.die1, row.die2]
    return _entry(row, row.server_seed if revealed else None, row.client_entropy, dice)


def _now() -> datetime:
    return datetime.now(UTC)


def _row_hash(row: DiceRoll | _Entry) -> str:
    revealed = row.state in REVEALED_STATES
    return entry_hash(
        row.prev_hash,
        row.match_id,
        row.roll_id,
        row.nonce,
        row.seat,
        row.commitment,
        stored_hex(row.roll_id, row.match_id, "server_seed", row.server_seed, SEED_BYTES)
        if revealed else None,
        stored_hex(row.roll_id, row.match_id, "client_entropy",
                   _stored(row, row.client_entropy, "client entropy"), ENTROPY_BYTES)
        if revealed else None,
        row.entropy_source if revealed else None,
        (_stored(row, row.die1, "dice"), _stored(row, row.die2, "dice")) if revealed else None,
    )


def _stored(row: DiceRoll | _Entry, value: V | None, what: str) -> V:
    """``value``, a column of ``row`` that its state says is set."""
    if value is None:
        raise ValueError(f"roll {row.roll_id} ({row.state}) is stored without {what}")
    return value


class _Entry(SimpleNamespace):
    """A ``dice_rolls`` row read by a Core statement, as attributes that a step may change
    before writing them back (the ORM's names, so :meth:`Roll.from_row` and :func:`_row_hash`
    take it as they take a :class:`DiceRoll`)."""


def _write(session: Session, step: Callable[[], T], commit: bool = True) -> T:
    """Run ``step`` and commit; roll back on any error so that a refusal changes nothing.
    ``commit=False``: run it inside the caller's transaction (flushed, neither committed nor
    rolled back here)."""
    if not commit:
        result = step()
        session.flush()
        return result
    try:
        result = step()
        session.commit()
    except BaseException:
        session.rollback()
        raise
    return result


# The statements every action runs, built once (building one, coercing each clause and
# computing its cache key, cost more than executing it on SQLite), and Core statements on the
# table rather than ORM ones: rows read as plain values and changed by an explicit UPDATE, no
# identity map or unit of work (which took most of a roll's time).
# Declarative's __table__ is typed as any FromClause; these classes map plain Tables.
_TABLE = cast(Table, DiceRoll.__table__)
_NONCE = cast(Table, DiceNonceCounter.__table__)
_LOCK_ROLL = (select(*_TABLE.c).where(_TABLE.c.roll_id == bindparam("roll_id"))
              .with_for_update())
_TAKE_NONCE = (update(_NONCE).where(_NONCE.c.id == 1)
               .values(value=_NONCE.c.value + 1)
               .returning(_NONCE.c.value))
_HEAD_ROLL = (select(*_TABLE.c).where(_TABLE.c.match_id == bindparam("match_id"))
              .order_by(_TABLE.c.seq.desc()).limit(1)
              .with_for_update())
_INSERT_ROLL = insert(_TABLE)
# A roll moves on only from the state it was read in (the row is locked, so this is a check).
_REVEAL = (update(_TABLE)
           .where(_TABLE.c.roll_id == bindparam("b_roll_id"), _TABLE.c.state == "committed")
           .values(state="revealed", client_entropy=bindparam("client_entropy"),
                   entropy_source=bindparam("entropy_source"), die1=bindparam("die1"),
                   die2=bindparam("die2"), entry_hash=bindparam("entry_hash"),
                   revealed_at=bindparam("revealed_at")))
# The column that records when a roll entered each later state. Spelled out: "void" -> "void_at"
# set a plain attribute the ORM never saved, so void rolls had no time.
_STATE_TIME = {"played": "played_at", "void": "voided_at"}
_ADVANCE = {
    target: (update(_TABLE)
             .where(_TABLE.c.roll_id == bindparam("b_roll_id"),
                    _TABLE.c.state == bindparam("b_source"))
             .values({"state": target, column: bindparam("at")}))
    for target, column in _STATE_TIME.items()
}


def _lock_roll(session: Session, roll_id: str) -> _Entry:
    row = session.execute(_LOCK_ROLL, {"roll_id": roll_id}).first()
    if row is None:
        raise RollNotFound(f"no roll {roll_id!r} in the dice record")
    return _Entry(**row._mapping)


def _update_one(session: Session, statement, params: dict) -> None:
    """Run an UPDATE of one locked roll that checks the roll's state; the lock makes it
    change exactly one row, so anything else means the record moved under the lock."""
    if rowcount(session.execute(statement, params)) != 1:
        raise WrongRollState(f"roll {params['b_roll_id']} changed while it was locked")


def _next_nonce(session: Session) -> int:
    taken = session.connection().execute(_TAKE_NONCE).scalar_one()
    return taken - 1


def _append_roll(session: Session, match_id: str, seat: int, now: datetime) -> Roll:
    head = session.execute(_HEAD_ROLL, {"match_id": match_id}).first()
    if head is not None and head.state == "committed":
        raise RollPending(
            f"roll {head.roll_id} of match {match_id} is still pending: reveal or void it "
            "before starting another"
        )
    if head is not None and head.state == "revealed":
        raise WrongRollState(
            f"roll {head.roll_id} of match {match_id} is revealed but not played: no new roll "
            "starts before it is played"
        )
    seed = secrets.token_bytes(SEED_BYTES)
    dice_log.hold(session)  # the log's lock before the nonce's: see dice_log.hold
    row = _Entry(
        roll_id=new_roll_id(),
        match_id=match_id,
        seq=head.seq + 1 if head is not None else 0,
        nonce=_next_nonce(session),
        seat=seat,
        state="committed",
        commitment=commitment(seed),
        server_seed=seed.hex(),
        client_entropy=None,
        entropy_source=None,
        die1=None,
        die2=None,
        prev_hash=head.entry_hash if head is not None else GENESIS,
        committed_at=now,
        revealed_at=None,
        played_at=None,
        voided_at=None,
    )
    row.entry_hash = _row_hash(row)
    session.execute(_INSERT_ROLL, vars(row))
    dice_log.append(session, "committed", vars(row), now)
    return Roll.from_row(row)


def commit_roll(session: Session, match_id: str, seat: int, *, now: datetime | None = None,
                commit: bool = True) -> Roll:
    """Commit the next roll of ``match_id`` for ``seat``; see the module docstring.

    Raises:
        IntegrityError: with ``commit=False``, a lost race for the match's next place (the
            caller rolls back and starts over; with ``commit=True`` it is retried here).
        InvalidRollRequest: malformed match ID or a seat other than 0 or 1.
        RollPending, WrongRollState: the match's newest roll is not finished.
        RecordUnavailable: every attempt lost a race for the match's next place.
    """
    if not isinstance(match_id, str) or not is_match_id(match_id):
        raise InvalidRollRequest(f"not a match ID: {match_id!r} (expected mat_ and 1-64 letters)")
    if seat not in (0, 1):
        raise InvalidRollRequest(f"seat must be 0 or 1, got {seat!r}")
    for _ in range(COMMIT_ATTEMPTS):
        try:
            roll = _write(session, lambda: _append_roll(session, match_id, seat, now or _now()),
                          commit)
        except IntegrityError:
            if not commit:
                raise
            # Another transaction took this match's next place first (or, never in practice,
            # the same seed): start over from the new head.
            continue
        log.info(
            "committed roll %s match %s seq %d seat %d nonce %d commitment %s",
            roll.roll_id, match_id, roll.seq, seat, roll.nonce, roll.commitment,
        )
        return roll
    raise RecordUnavailable(
        f"could not append a roll to match {match_id} after {COMMIT_ATTEMPTS} attempts"
    )


def _reveal(
    session: Session,
    roll_id: str,
    shown_commitment: str | None,
    entropy: bytes,
    source: str,
    now: datetime,
) -> tuple[Roll, bool]:
    row = _lock_roll(session, roll_id)
    if shown_commitment is not None and shown_commitment != row.commitment:
        raise CommitmentMismatch(
            f"roll {roll_id} was committed as {row.commitment}; the request carried "
            f"{str(shown_commitment)[:80]!r}"
        )
    if row.state in REVEALED_STATES:
        return Roll.from_row(row), False
    if row.state != "committed":
        raise WrongRollState(f"roll {roll_id} is {row.state} and can no longer be revealed")
    seed = stored_hex(row.roll_id, row.match_id, "server_seed", row.server_seed, SEED_BYTES)
    assert seed is not None  # every roll is committed with one
    first, second = derive_dice(seed, row.match_id, row.roll_id, row.nonce, entropy)
    row.client_entropy = entropy.hex()
    row.entropy_source = source
    row.die1, row.die2 = first, second
    row.state = "revealed"
    row.revealed_at = now
    row.entry_hash = _row_hash(row)
    _update_one(session, _REVEAL, {"b_roll_id": roll_id, "client_entropy": row.client_entropy,
                                   "entropy_source": source, "die1": first, "die2": second,
                                   "entry_hash": row.entry_hash, "revealed_at": now})
    dice_log.append(session, "revealed", vars(row), now)
    return Roll.from_row(row), True


def _reveal_logged(
    session: Session, roll_id: str, shown: str | None, entropy: bytes, source: str, now: datetime,
    commit: bool = True,
) -> Roll:
    try:
        roll, fresh = _write(
            session, lambda: _reveal(session, roll_id, shown, entropy, source, now), commit
        )
    except CommitmentMismatch as refused:
        log.warning("refused reveal: %s", refused)
        raise
    if fresh:
        if roll.dice is None:
            raise RuntimeError(f"roll {roll.roll_id} was revealed without dice")
        log.info(
            "revealed roll %s match %s dice %d-%d entropy source %s",
            roll.roll_id, roll.match_id, roll.dice[0], roll.dice[1], source,
        )
    return roll


def reveal_roll(
    session: Session,
    roll_id: str,
    shown_commitment: str,
    client_entropy: bytes,
    *,
    now: datetime | None = None,
    commit: bool = True,
) -> Roll:
    """Reveal a committed roll with the roller's entropy; idempotent.

    Args:
        shown_commitment: the commitment the roller's device was shown (64 hex chars).
        client_entropy: 16 bytes from the roller's device.

    Raises:
        BadEntropy: entropy not exactly 16 bytes.
        RollNotFound, CommitmentMismatch, WrongRollState (the roll is void).
    """
    if not isinstance(client_entropy, bytes) or len(client_entropy) != ENTROPY_BYTES:
        size = len(client_entropy) if isinstance(client_entropy, bytes) else "no"
        raise BadEntropy(f"client entropy must be {ENTROPY_BYTES} bytes, got {size}")
    if not isinstance(shown_commitment, str):
        raise CommitmentMismatch(f"the reveal of roll {roll_id} carried no commitment")
    return _reveal_logged(
        session, roll_id, shown_commitment, client_entropy, "client", now or _now(), commit
    )


def auto_reveal_roll(session: Session, roll_id: str, *, now: datetime | None = None,
                     commit: bool = True) -> Roll:
    """Reveal a committed roll with entropy the server draws (source ``server``); idempotent.

    Only for rolls no device takes part in (a timeout, an automatic roll).

    Raises:
        RollNotFound, WrongRollState (the roll is void).
    """
    entropy = secrets.token_bytes(ENTROPY_BYTES)
    return _reveal_logged(session, roll_id, None, entropy, "server", now or _now(), commit)


def _advance(session: Session, roll_id: str, source: str, target: str, now: datetime,
             commit: bool = True) -> Roll:
    def step() -> Roll:
        row = _lock_roll(session, roll_id)
        if row.state == target:
            raise WrongRollState(f"roll {roll_id} is already {target}")
        if row.state != source:
            raise WrongRollState(
                f"roll {roll_id} is {row.state}; only a {source} roll can become {target}"
            )
        row.state = target
        setattr(row, _STATE_TIME[target], now)
        _update_one(session, _ADVANCE[target], {"b_roll_id": roll_id, "b_source": source,
                                                "at": now})
        dice_log.append(session, target, vars(row), now)
        return Roll.from_row(row)

    roll = _write(session, step, commit)
    log.info("roll %s match %s %s", roll_id, roll.match_id, target)
    return roll


def mark_played(session: Session, roll_id: str, *, now: datetime | None = None,
                commit: bool = True) -> Roll:
    """Record that the revealed roll's play was accepted.

    Raises:
        RollNotFound; WrongRollState: the roll is not revealed (pending, void or already played).
    """
    return _advance(session, roll_id, "revealed", "played", now or _now(), commit)


def void_roll(session: Session, roll_id: str, *, now: datetime | None = None,
              commit: bool = True) -> Roll:
    """Mark a pending roll as never to be revealed (it stays in the record, seed secret).

    Raises:
        RollNotFound; WrongRollState: the roll is revealed, played or already void.
    """
    return _advance(session, roll_id, "committed", "void", now or _now(), commit)


def get_roll(session: Session, roll_id: str) -> Roll:
    """The roll with ID ``roll_id``.

    Raises:
        RollNotFound.
    """
    row = session.get(DiceRoll, roll_id, populate_existing=True)
    if row is None:
        raise RollNotFound(f"no roll {roll_id!r} in the dice record")
    return Roll.from_row(row)


def _match_rows(session: Session, match_id: str) -> list[DiceRoll]:
    return list(
        session.execute(
            select(DiceRoll)
            .where(DiceRoll.match_id == match_id)
            .order_by(DiceRoll.seq)
            .execution_options(populate_existing=True)
        ).scalars()
    )


def match_rolls(session: Session, match_id: str) -> list[Roll]:
    """Every roll of ``match_id`` in record order (empty if none)."""
    return [Roll.from_row(row) for row in _match_rows(session, match_id)]


def current_roll(session: Session, match_id: str) -> Roll | None:
    """The newest roll of ``match_id`` (the one the server holds), or ``None``."""
    row = session.execute(
        select(DiceRoll)
        .where(DiceRoll.match_id == match_id)
        .order_by(DiceRoll.seq.desc())
        .limit(1)
        .execution_options(populate_existing=True)
    ).scalar_one_or_none()
    return Roll.from_row(row) if row is not None else None


def chain_head(session: Session, match_id: str) -> str:
    """The entry hash of the match's newest roll (64 hex chars); ``"0" * 64`` with no rolls.

    Final once the match has ended and its last roll is played or void.
    """
    roll = current_roll(session, match_id)
    return roll.entry_hash if roll is not None else GENESIS


def audit_document(session: Session, match_id: str) -> dict:
    """The audit JSON of a match, each roll with a ``verdict`` recomputed now.

    Shape: ``{"format": "boardgammon-audit-v1", "dice_spec", "record_spec", "match_id",
    "genesis", "chain_head", "rolls": [entry …], "verified": bool, "failure": null or
    {"index", "roll_id", "reason", "detail"}}``; an entry is :meth:`Roll.to_json` (of the stored
    text, so that a row corrupted in the database gets a verdict too) plus ``verdict`` and
    ``verdict_detail`` (see :class:`boardgammon.dice.verify.RollCheck`).

    Raises:
        RollNotFound: the match has no rolls in the record.
    """
    rows = _match_rows(session, match_id)
    if not rows:
        raise RollNotFound(f"no dice record for match {match_id!r}")
    document: dict[str, Any] = {
        "format": AUDIT_FORMAT,
        "dice_spec": DICE_SPEC,
        "record_spec": RECORD_SPEC,
        "match_id": match_id,
        "genesis": GENESIS,
        "chain_head": rows[-1].entry_hash,
        "rolls": [_row_entry(row) for row in rows],
    }
    report = verify_document(document)
    for entry, check in zip(document["rolls"], report.checks, strict=True):
        entry["verdict"], entry["verdict_detail"] = check.verdict, check.detail
    failure = report.failure
    document["verified"] = report.ok
    document["failure"] = failure and {
        "index": failure.index,
        "roll_id": failure.roll_id,
        "reason": failure.verdict,
        "detail": failure.detail,
    }
    return document
