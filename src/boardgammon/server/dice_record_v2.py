"""The v2 dice record (``boardgammon-dice-v2``, ``docs/fair-dice.md``): three contributions to
every roll, each fixed before any is revealed, and every state change hashed with its time.

A roll's inputs: the server's seed (committed per roll), the roller's 16 bytes of entropy (sent
with the request to roll, after the roller's cube decision) and the opponent's next link of a
hash chain whose anchor the opponent's device registered before the roll was committed
(revealed by that device after the request). The server reveals last. Where the opponent's
link cannot be had, the roll is revealed without it and the record says so per roll
(``opponent_source``: ``client``, ``absent`` when a chain exists but its link did not come in
time, ``none`` when the opponent has no chain: the computer, or a device that registered none).

Service API (each writing function takes an open :class:`~sqlalchemy.orm.Session`, commits it
before it returns and rolls it back on any error, so a refused call changes nothing; with
``commit=False`` it only flushes, inside the caller's transaction, as in
:mod:`.dice_record`):

``register_anchor(session, match_id, seat, anchor)``
    The seat's chain anchor ``x_0`` (32 bytes), once per seat and match
    (:class:`AnchorRegistered` the second time), and its leaf in the public log. It takes part
    from the next roll committed with the seat as the opponent; a late one from the roll
    that :func:`.match_dice.register_anchor` voids and commits again for it.
``commit_roll(session, match_id, seat, kind) -> RollV2``
    Start the next roll (``kind`` ``"opening"`` or ``"normal"``) with a fresh seed and the
    server-wide nonce; fixes the link the opponent's contribution must hash to. Refused while
    the newest roll is not played or void. The match's first roll ends its wait for one
    (``matches.awaiting_first_roll_since``, in the same transaction).
``request_roll(session, roll_id, commitment, roller_entropy) -> RollV2``
    The roller asks to roll: its entropy (``None``: the server draws it, source ``server``,
    for a roller without a device). A retry with the same entropy returns the roll as it is;
    other entropy is refused (``already_rolled``), so a retry never gives a second outcome.
``contribute(session, roll_id, link) -> RollV2``
    The opponent's device reveals the link due for this roll; the server checks it against the
    chain and reveals the dice. Refused (``link_mismatch``) unless the link hashes to the one
    fixed (``opponent_prev_link``) in exactly :func:`link_steps` steps: every roll of the match
    where that seat is the opponent with a chain uses up one link, whether its link was
    revealed, came too late (``absent``) or the roll was voided, so no link is ever taken twice.
``reveal_without_opponent(session, roll_id) -> RollV2``
    Reveal a requested roll without the opponent's link (its device did not answer in time,
    or the opponent has none); the caller decides when.
``mark_played``, ``void_roll``, ``match_rolls``, ``link_steps``, ``audit_document``,
``roll_window`` (one roll's entry and the entries before it that its proof carries), both
built from the rows as stored (:func:`stored_entry`: a corrupt row is ``malformed``, not an
error).

Each change (commit, request, reveal, played, void) and each accepted anchor is a leaf of the
public log
(:func:`.dice_log.append`, in the same transaction), as v1's are.

Errors are :mod:`.dice_record`'s refusals plus :class:`LinkMismatch` and
:class:`AnchorRegistered`. A :class:`RollV2` carries its seed only once revealed. A row whose
hex column is not hex of its size (changed by hand, or corrupt) cannot become one: the live
match path is refused with :class:`~.dice_record.CorruptRoll` (``record_corrupt``, nothing
changed), while the audit reads the row as stored and calls it ``malformed``.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from typing import Any, cast

from sqlalchemy import Table, bindparam, func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from boardgammon.dice.ids import is_match_id, new_roll_id
from boardgammon.dice.verify import (
    AUDIT_FORMAT_V2,
    DICE_SPEC_V2,
    ENTROPY_BYTES,
    EVENT_TIMES,
    GENESIS,
    KINDS,
    LINK_BYTES,
    RECORD_SPEC_V2,
    REVEALED_STATES,
    SEED_BYTES,
    TIME_FIELDS,
    chain_link_steps,
    check_roll_v2,
    commitment,
    derive_dice_v2,
    entry_hash_v2,
    opponent_link_steps,
    verify_document,
)
from boardgammon.server import dice_log
from boardgammon.server.db import rowcount
from boardgammon.server.dice_record import (
    COMMIT_ATTEMPTS,
    BadEntropy,
    CommitmentMismatch,
    DiceRecordError,
    InvalidRollRequest,
    RecordUnavailable,
    RollNotFound,
    RollPending,
    WrongRollState,
    _next_nonce,
    _write,
    stored_hex,
)
from boardgammon.server.refusals import ErrorCode, Illegal, StateConflict
from boardgammon.server.tables import DiceAnchor, DiceRollV2, MatchRow, UnreadableTime

log = logging.getLogger("boardgammon.dice")


# The size in bytes of each hex column the live path decodes (stored_hex).
_SIZES = {"server_seed": SEED_BYTES, "roller_entropy": ENTROPY_BYTES,
          "opponent_entropy": LINK_BYTES, "opponent_prev_link": LINK_BYTES}


class LinkMismatch(DiceRecordError, Illegal):
    """The opponent's link does not hash to the link fixed at commit (or it has no chain)."""

    code = ErrorCode.LINK_MISMATCH


class AnchorRegistered(DiceRecordError, StateConflict):
    """The seat's chain anchor for the match is already registered."""

    code = ErrorCode.ANCHOR_REGISTERED


class AlreadyRequested(DiceRecordError, StateConflict):
    """The roll was requested with other entropy: a retry must send the same."""

    code = ErrorCode.ALREADY_ROLLED


def format_time(moment: datetime | None) -> str | None:
    """A record time as hashed and published: UTC, microseconds, ``2026-12-02T13:20:39.000001Z``;
    the stored text as it is where the row holds none that reads as a time
    (:class:`~boardgammon.server.tables.UnreadableTime`: the verifier says ``malformed``)."""
    if isinstance(moment, UnreadableTime):
        return str(moment)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ") if moment else None


@dataclass(frozen=True)
class RollV2:
    """A v2 roll as the record holds it; ``server_seed`` is ``None`` until revealed.

    Hex fields as in the audit entry; ``dice`` (first, second) once revealed; times aware UTC.
    """

    roll_id: str
    match_id: str
    seq: int
    nonce: int
    seat: int
    kind: str
    state: str
    commitment: str
    server_seed: bytes | None
    roller_entropy: bytes | None
    roller_source: str | None
    opponent_prev_link: str | None
    opponent_entropy: bytes | None
    opponent_source: str | None
    dice: tuple[int, int] | None
    prev_hash: str
    entry_hash: str
    committed_at: datetime
    requested_at: datetime | None
    opponent_at: datetime | None
    revealed_at: datetime | None
    played_at: datetime | None
    voided_at: datetime | None

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> RollV2:
        """The roll of a stored row (its columns by name).

        Raises:
            CorruptRoll (:mod:`.dice_record`): a hex column is not hex of its size (the
                seed is checked before it is revealed too, and never shown; the link the
                opponent's must hash to as well, which stays text).
        """
        revealed = row["state"] in REVEALED_STATES

        def raw(key: str) -> bytes | None:
            return stored_hex(row["roll_id"], row["match_id"], key, row[key], _SIZES[key])

        seed = raw("server_seed")
        raw("opponent_prev_link")

        return cls(
            **{
                key: row[key]
                for key in (
                    "roll_id",
                    "match_id",
                    "seq",
                    "nonce",
                    "seat",
                    "kind",
                    "state",
                    "commitment",
                    "roller_source",
                    "opponent_prev_link",
                    "opponent_source",
                    "prev_hash",
                    "entry_hash",
                    *TIME_FIELDS,
                )
            },
            server_seed=seed if revealed else None,
            roller_entropy=raw("roller_entropy"),
            opponent_entropy=raw("opponent_entropy"),
            dice=(row["die1"], row["die2"]) if row["die1"] is not None else None,
        )

    def to_json(self) -> dict[str, Any]:
        """The roll as a v2 audit entry (:func:`stored_entry` of the row it was read from)."""

        def hexed(value: bytes | None) -> str | None:
            return value.hex() if value is not None else None

        first, second = self.dice if self.dice is not None else (None, None)
        return stored_entry(
            {f.name: getattr(self, f.name) for f in fields(self)}
            | {
                "server_seed": hexed(self.server_seed),
                "roller_entropy": hexed(self.roller_entropy),
                "opponent_entropy": hexed(self.opponent_entropy),
                "die1": first,
                "die2": second,
            }
        )


def stored_entry(row: Mapping[str, Any]) -> dict[str, Any]:
    """The v2 audit entry of a ``dice_rolls_v2`` row (its columns by name): hex strings as
    stored, not decoded, so that a row changed by hand or corrupt (a seed that is not hex)
    reaches the verifier and gets its verdict, ``malformed``, instead of failing the audit;
    ``…Z`` times (:func:`format_time`); dice as a list; the seed only once revealed."""
    revealed = row["state"] in REVEALED_STATES
    dice = None if row["die1"] is None and row["die2"] is None else [row["die1"], row["die2"]]
    return {
        "seq": row["seq"],
        "roll_id": row["roll_id"],
        "nonce": row["nonce"],
        "seat": row["seat"],
        "kind": row["kind"],
        "state": row["state"],
        "commitment": row["commitment"],
        "server_seed": row["server_seed"] if revealed else None,
        "roller_entropy": row["roller_entropy"],
        "roller_source": row["roller_source"],
        "opponent_prev_link": row["opponent_prev_link"],
        "opponent_entropy": row["opponent_entropy"],
        "opponent_source": row["opponent_source"],
        "dice": dice,
        "prev_hash": row["prev_hash"],
        "entry_hash": row["entry_hash"],
        **{key: format_time(row[key]) for key in TIME_FIELDS},
    }


def _hash_row(row: dict[str, Any]) -> str:
    """The entry hash of a row as it will be stored (the seed hashed only once revealed)."""
    return entry_hash_v2(row["match_id"], stored_entry(row))


_TABLE = cast(Table, DiceRollV2.__table__)
_ANCHORS = cast(Table, DiceAnchor.__table__)
_LOCK_ROLL = select(*_TABLE.c).where(_TABLE.c.roll_id == bindparam("roll_id")).with_for_update()
_HEAD_ROLL = (
    select(*_TABLE.c)
    .where(_TABLE.c.match_id == bindparam("match_id"))
    .order_by(_TABLE.c.seq.desc())
    .limit(1)
    .with_for_update()
)
# The roller's last roll with the opponent's link revealed: where the opponent's chain stands.
_LAST_LINK = (
    select(_TABLE.c.opponent_entropy)
    .where(
        _TABLE.c.match_id == bindparam("match_id"),
        _TABLE.c.seat == bindparam("seat"),
        _TABLE.c.opponent_entropy.is_not(None),
    )
    .order_by(_TABLE.c.seq.desc())
    .limit(1)
)
# What the number of the opponent's link due for a roll follows from (link_steps).
# The link columns of a match's entries up to a seq (a proof's window: roll_window).
_LINK_HISTORY = (
    select(_TABLE.c.seq, _TABLE.c.seat, _TABLE.c.opponent_prev_link, _TABLE.c.opponent_entropy)
    .where(_TABLE.c.match_id == bindparam("match_id"), _TABLE.c.seq <= bindparam("seq"))
    .order_by(_TABLE.c.seq)
)
# The entries a roll's link count depends on (opponent_link_steps): the roller's own, since
# the last one its opponent revealed a link for (which set the count back to 0); the other
# seat's entries use up the other chain and do not count. Bounded by the rolls since that
# link, not by the match's length (contribute read the whole history before).
_LAST_REVEALED_LINK = (
    select(func.coalesce(func.max(_TABLE.c.seq), -1))
    .where(_TABLE.c.match_id == bindparam("match_id"), _TABLE.c.seat == bindparam("seat"),
           _TABLE.c.seq < bindparam("seq"), _TABLE.c.opponent_entropy.is_not(None))
    .scalar_subquery()
)
_LINKS_SINCE_REVEALED = (
    select(_TABLE.c.seq, _TABLE.c.seat, _TABLE.c.opponent_prev_link, _TABLE.c.opponent_entropy)
    .where(_TABLE.c.match_id == bindparam("match_id"), _TABLE.c.seat == bindparam("seat"),
           _TABLE.c.seq <= bindparam("seq"), _TABLE.c.seq > _LAST_REVEALED_LINK)
    .order_by(_TABLE.c.seq)
)
_ANCHOR = select(_ANCHORS.c.anchor).where(
    _ANCHORS.c.match_id == bindparam("match_id"), _ANCHORS.c.seat == bindparam("seat")
)
_INSERT_ROLL = insert(_TABLE)
# A match's first roll ends its wait for one (matches.awaiting_first_roll_since).
_MATCHES = cast(Table, MatchRow.__table__)
_FIRST_ROLL = (
    update(_MATCHES)
    .where(_MATCHES.c.id == bindparam("match_id"),
           _MATCHES.c.awaiting_first_roll_since.is_not(None))
    .values(awaiting_first_roll_since=None)
)
_MUTABLE = (
    "state",
    "roller_entropy",
    "roller_source",
    "opponent_entropy",
    "opponent_source",
    "die1",
    "die2",
    "entry_hash",
    "requested_at",
    "opponent_at",
    "revealed_at",
    "played_at",
    "voided_at",
)
# A roll moves on only from the state it was read in (the row is locked, so this is a check).
_SAVE = (
    update(_TABLE)
    .where(_TABLE.c.roll_id == bindparam("b_roll_id"), _TABLE.c.state == bindparam("b_state"))
    .values({key: bindparam(key) for key in _MUTABLE})
)


def _now() -> datetime:
    return datetime.now(UTC)


def _lock(session: Session, roll_id: str) -> dict[str, Any]:
    row = session.connection().execute(_LOCK_ROLL, {"roll_id": roll_id}).first()
    if row is None:
        raise RollNotFound(f"no roll {roll_id!r} in the dice record")
    return dict(row._mapping)


# The time field of each state: the public log's leaf of the change carries it (the spec's
# rule, which the verifiers check).
_STATE_TIME = EVENT_TIMES


def _save(session: Session, row: dict[str, Any], from_state: str) -> RollV2:
    row["entry_hash"] = _hash_row(row)
    params = {key: row[key] for key in _MUTABLE}
    params.update(b_roll_id=row["roll_id"], b_state=from_state)
    if rowcount(session.connection().execute(_SAVE, params)) != 1:
        raise WrongRollState(f"roll {row['roll_id']} changed while it was locked")
    dice_log.append(session, row["state"], row, row[_STATE_TIME[row["state"]]])
    return RollV2.from_row(row)


def _step(
    session: Session, roll_id: str, change: Callable[[dict[str, Any]], RollV2 | None], commit: bool
) -> RollV2:
    """Lock the roll, let ``change`` move it on (it returns the roll as it is for a repeat,
    ``None`` after changing ``row``), save, commit."""

    def step() -> RollV2:
        row = _lock(session, roll_id)
        from_state = row["state"]
        same = change(row)
        return same if same is not None else _save(session, row, from_state)

    return _write(session, step, commit)


def register_anchor(
    session: Session,
    match_id: str,
    seat: int,
    anchor: bytes,
    *,
    now: datetime | None = None,
    commit: bool = True,
) -> None:
    """Register ``seat``'s hash-chain anchor ``x_0`` (32 bytes) for ``match_id``, with its
    leaf in the public log (:func:`.dice_log.append_anchor`, the same transaction).

    It takes part from the next roll committed; the links it fixes are revealed one per roll
    where the seat is the opponent.

    Raises:
        InvalidRollRequest: a malformed match ID or seat; BadEntropy: not 32 bytes;
        AnchorRegistered: the seat has one already.
    """
    _check_match(match_id, seat)
    if not isinstance(anchor, bytes) or len(anchor) != LINK_BYTES:
        raise BadEntropy(f"a chain anchor must be {LINK_BYTES} bytes")

    def step() -> None:
        if session.execute(_ANCHOR, {"match_id": match_id, "seat": seat}).first() is not None:
            raise AnchorRegistered(f"seat {seat} of {match_id} has registered its anchor")
        at = now or _now()
        session.execute(
            insert(_ANCHORS),
            {"match_id": match_id, "seat": seat, "anchor": anchor.hex(), "registered_at": at},
        )
        # A public leaf, so that a server cannot later leave the anchor out of the record and
        # roll without its links (docs/fair-dice.md §The public log).
        dice_log.append_anchor(session, match_id, seat, anchor.hex(), at)

    try:
        _write(session, step, commit)
    except IntegrityError:
        raise AnchorRegistered(f"seat {seat} of {match_id} has registered its anchor") from None


def anchors(session: Session, match_id: str) -> list[str | None]:
    """Each seat's registered anchor (hex), ``None`` where none is."""
    return [
        session.execute(_ANCHOR, {"match_id": match_id, "seat": seat}).scalar() for seat in (0, 1)
    ]


def _check_match(match_id: str, seat: int) -> None:
    if not isinstance(match_id, str) or not is_match_id(match_id):
        raise InvalidRollRequest(f"not a match ID: {match_id!r} (expected mat_ and 1-64 letters)")
    if seat not in (0, 1):
        raise InvalidRollRequest(f"seat must be 0 or 1, got {seat!r}")


def _append(session: Session, match_id: str, seat: int, kind: str, now: datetime) -> RollV2:
    connection = session.connection()  # once: cheaper than a Session.execute per statement
    head = connection.execute(_HEAD_ROLL, {"match_id": match_id}).first()
    if head is not None and head.state in ("committed", "requested"):
        raise RollPending(
            f"roll {head.roll_id} of match {match_id} is still pending: reveal "
            "or void it before starting another"
        )
    if head is not None and head.state == "revealed":
        raise WrongRollState(
            f"roll {head.roll_id} of match {match_id} is revealed but not "
            "played: no new roll starts before it is played"
        )
    opponent = 1 - seat
    link = (
        connection.execute(_LAST_LINK, {"match_id": match_id, "seat": seat}).scalar()
        or connection.execute(_ANCHOR, {"match_id": match_id, "seat": opponent}).scalar()
    )
    seed = secrets.token_bytes(SEED_BYTES)
    dice_log.hold(session)  # the log's lock before the nonce's: see dice_log.hold
    row: dict[str, Any] = {
        "roll_id": new_roll_id(),
        "match_id": match_id,
        "seq": head.seq + 1 if head is not None else 0,
        "nonce": _next_nonce(session),
        "seat": seat,
        "kind": kind,
        "state": "committed",
        "commitment": commitment(seed),
        "server_seed": seed.hex(),
        "roller_entropy": None,
        "roller_source": None,
        "opponent_prev_link": link,
        "opponent_entropy": None,
        "opponent_source": None,
        "die1": None,
        "die2": None,
        "prev_hash": head.entry_hash if head is not None else GENESIS,
        "committed_at": now,
        "requested_at": None,
        "opponent_at": None,
        "revealed_at": None,
        "played_at": None,
        "voided_at": None,
    }
    row["entry_hash"] = ""  # the hash of the entry covers every field but itself
    row["entry_hash"] = _hash_row(row)
    connection.execute(_INSERT_ROLL, row)
    if head is None:
        connection.execute(_FIRST_ROLL, {"match_id": match_id})
    dice_log.append(session, "committed", row, now)
    return RollV2.from_row(row)


def commit_roll(
    session: Session,
    match_id: str,
    seat: int,
    kind: str = "normal",
    *,
    now: datetime | None = None,
    commit: bool = True,
) -> RollV2:
    """Commit the next v2 roll of ``match_id`` for ``seat``; see the module docstring.

    Raises:
        InvalidRollRequest: a malformed match ID, seat or kind; RollPending, WrongRollState:
        the newest roll is not played or void; RecordUnavailable: lost every race for the
        match's next place; IntegrityError: with ``commit=False``, a lost race (the caller
        rolls back and starts over).
    """
    _check_match(match_id, seat)
    if kind not in KINDS:
        raise InvalidRollRequest(f"kind must be one of {KINDS}, got {kind!r}")
    for _ in range(COMMIT_ATTEMPTS):
        try:
            roll = _write(
                session, lambda: _append(session, match_id, seat, kind, now or _now()), commit
            )
        except IntegrityError:
            if not commit:
                raise
            continue  # another transaction took this match's next place: start again
        log.info(
            "committed v2 roll %s match %s seq %d seat %d kind %s commitment %s",
            roll.roll_id,
            match_id,
            roll.seq,
            seat,
            kind,
            roll.commitment,
        )
        return roll
    raise RecordUnavailable(
        f"could not append a roll to match {match_id} after {COMMIT_ATTEMPTS} attempts"
    )


def request_roll(
    session: Session,
    roll_id: str,
    shown_commitment: str,
    roller_entropy: bytes | None,
    *,
    now: datetime | None = None,
    commit: bool = True,
) -> RollV2:
    """The roller asks to roll with ``roller_entropy`` (16 bytes; ``None``: drawn here, source
    ``server``, for a roller without a device). Idempotent: the same entropy again, or
    ``None`` again for a roll the server requested, returns the roll as it is.

    Raises:
        BadEntropy; RollNotFound; CommitmentMismatch; AlreadyRequested: other entropy than
        the first request's; WrongRollState: the roll is void.
    """
    if roller_entropy is not None and (
        not isinstance(roller_entropy, bytes) or len(roller_entropy) != ENTROPY_BYTES
    ):
        raise BadEntropy(f"client entropy must be {ENTROPY_BYTES} bytes")
    source = "client" if roller_entropy is not None else "server"
    entropy = roller_entropy if roller_entropy is not None else secrets.token_bytes(ENTROPY_BYTES)

    def change(row: dict[str, Any]) -> RollV2 | None:
        if shown_commitment != row["commitment"]:
            raise CommitmentMismatch(
                f"roll {roll_id} was committed as {row['commitment']}; the "
                f"request carried {str(shown_commitment)[:80]!r}"
            )
        if row["state"] == "void":
            raise WrongRollState(f"roll {roll_id} is void and can no longer be rolled")
        if row["state"] != "committed":
            # The same request again: the server's own draw, or the device's same entropy.
            if row["roller_source"] == source and (
                source == "server" or row["roller_entropy"] == entropy.hex()
            ):
                return RollV2.from_row(row)
            raise AlreadyRequested(
                f"roll {roll_id} was requested with other entropy; a retry "
                "sends the same entropy as the first request"
            )
        row.update(
            state="requested",
            roller_entropy=entropy.hex(),
            roller_source=source,
            requested_at=now or _now(),
        )
        return None

    roll = _step(session, roll_id, change, commit)
    log.info("requested v2 roll %s match %s roller source %s", roll_id, roll.match_id, source)
    return roll


def _reveal(row: dict[str, Any], link: bytes | None, now: datetime) -> None:
    seed, entropy = (stored_hex(row["roll_id"], row["match_id"], key, row[key], _SIZES[key])
                     for key in ("server_seed", "roller_entropy"))
    assert seed is not None and entropy is not None  # committed with one, requested with one
    first, second = derive_dice_v2(
        seed, row["match_id"], row["roll_id"], row["nonce"], row["kind"], entropy, link
    )
    source = "client" if link is not None else "absent" if row["opponent_prev_link"] else "none"
    row.update(
        state="revealed",
        die1=first,
        die2=second,
        revealed_at=now,
        opponent_entropy=link.hex() if link is not None else None,
        opponent_source=source,
        opponent_at=now if link is not None else None,
    )


def contribute(
    session: Session, roll_id: str, link: bytes, *, now: datetime | None = None, commit: bool = True
) -> RollV2:
    """The opponent's device reveals its next chain link; the dice are revealed with it.
    Idempotent for the same link.

    Raises:
        BadEntropy: not 32 bytes; RollNotFound; WrongRollState: the roller has not asked to
        roll yet, or the roll is void or revealed without the link; LinkMismatch.
    """
    if not isinstance(link, bytes) or len(link) != LINK_BYTES:
        raise BadEntropy(f"a chain link must be {LINK_BYTES} bytes")

    def change(row: dict[str, Any]) -> RollV2 | None:
        if row["opponent_entropy"] == link.hex():
            return RollV2.from_row(row)
        if row["state"] != "requested":
            raise WrongRollState(
                f"roll {roll_id} is {row['state']}: the opponent's link is "
                "taken only after the roller asked to roll, before the reveal"
            )
        if row["opponent_prev_link"] is None:
            raise LinkMismatch(f"seat {1 - row['seat']} registered no chain for this match")
        history = session.connection().execute(
            _LINKS_SINCE_REVEALED,
            {"match_id": row["match_id"], "seat": row["seat"], "seq": row["seq"]},
        ).all()
        steps = opponent_link_steps([dict(r._mapping) for r in history])[-1]
        assert steps is not None  # this roll's opponent has a chain
        if chain_link_steps(link, steps).hex() != row["opponent_prev_link"]:
            raise LinkMismatch(
                f"the link does not hash to {row['opponent_prev_link']}, the link fixed for "
                f"this roll, in exactly {steps} {'step' if steps == 1 else 'steps'}: this roll "
                f"takes link number {steps} "
                "after it (every earlier roll since uses one up, revealed or not)"
            )
        _reveal(row, link, now or _now())
        return None

    return _logged(_step(session, roll_id, change, commit))


def reveal_without_opponent(
    session: Session, roll_id: str, *, now: datetime | None = None, commit: bool = True
) -> RollV2:
    """Reveal a requested roll without the opponent's link (``absent`` if it has a chain,
    ``none`` if not). Idempotent.

    Raises:
        RollNotFound; WrongRollState: not requested (committed, or void).
    """

    def change(row: dict[str, Any]) -> RollV2 | None:
        if row["state"] in REVEALED_STATES:
            return RollV2.from_row(row)
        if row["state"] != "requested":
            raise WrongRollState(f"roll {roll_id} is {row['state']}, not requested")
        _reveal(row, None, now or _now())
        return None

    return _logged(_step(session, roll_id, change, commit))


def _logged(roll: RollV2) -> RollV2:
    if roll.dice is not None:
        log.info(
            "revealed v2 roll %s match %s dice %d-%d opponent %s",
            roll.roll_id,
            roll.match_id,
            roll.dice[0],
            roll.dice[1],
            roll.opponent_source,
        )
    return roll


def mark_played(
    session: Session, roll_id: str, *, now: datetime | None = None, commit: bool = True
) -> RollV2:
    """The revealed roll's play was accepted.

    Raises:
        RollNotFound; WrongRollState: not revealed.
    """

    def change(row: dict[str, Any]) -> None:
        if row["state"] != "revealed":
            raise WrongRollState(
                f"roll {roll_id} is {row['state']}; only a revealed roll can become played"
            )
        row.update(state="played", played_at=now or _now())

    return _step(session, roll_id, change, commit)


def void_roll(
    session: Session, roll_id: str, *, now: datetime | None = None, commit: bool = True
) -> RollV2:
    """A committed or requested roll will never be revealed (its seed stays secret).

    Raises:
        RollNotFound; WrongRollState: revealed, played or already void.
    """

    def change(row: dict[str, Any]) -> None:
        if row["state"] not in ("committed", "requested"):
            raise WrongRollState(
                f"roll {roll_id} is {row['state']}; only a committed or "
                "requested roll can become void"
            )
        row.update(state="void", voided_at=now or _now())

    return _step(session, roll_id, change, commit)


def match_rolls(session: Session, match_id: str) -> list[RollV2]:
    """Every v2 roll of ``match_id`` in record order (empty if none)."""
    return [RollV2.from_row(row) for row in _stored_rows(session, match_id)]


def _stored_rows(session: Session, match_id: str) -> list[dict[str, Any]]:
    """The rows of ``match_id``'s v2 rolls in record order, their columns as stored."""
    rows = session.execute(
        select(*_TABLE.c).where(_TABLE.c.match_id == match_id).order_by(_TABLE.c.seq)
    )
    return [dict(row._mapping) for row in rows]


def link_steps(rolls: list[RollV2]) -> list[int | None]:
    """For each roll of a match's record (in seq order, from the first) the ``k`` of
    :func:`boardgammon.dice.verify.opponent_link_steps`: its opponent's link must hash to
    ``opponent_prev_link`` in exactly ``k`` steps; ``None`` where the opponent has no chain."""
    return opponent_link_steps(
        {
            "seat": roll.seat,
            "opponent_prev_link": roll.opponent_prev_link,
            "opponent_entropy": roll.opponent_entropy,
        }
        for roll in rolls
    )


def roll_guarantee(entry: Mapping[str, Any]) -> str:
    """What a revealed roll (its audit entry) proves (``docs/fair-dice.md`` §What each kind of
    roll proves): ``live`` (both devices took part), ``computer`` (the computer's roll with
    the human's link), ``opponent_absent`` (the opponent's chain did not answer),
    ``no_opponent_device`` (the opponent has no chain), ``server_only`` (the server drew every
    input)."""
    if entry["opponent_source"] == "client":
        return "live" if entry["roller_source"] == "client" else "computer"
    if entry["roller_source"] == "server":
        return "server_only"
    return "opponent_absent" if entry["opponent_source"] == "absent" else "no_opponent_device"


GUARANTEES = ("live", "computer", "opponent_absent", "no_opponent_device", "server_only")


def roll_counts(entries: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """How many revealed rolls (audit entries with dice) give each guarantee of
    :func:`roll_guarantee` (every key)."""
    counts = dict.fromkeys(GUARANTEES, 0)
    for entry in entries:
        if entry["dice"] is not None:
            counts[roll_guarantee(entry)] += 1
    return counts


def audit_document(session: Session, match_id: str) -> dict[str, Any]:
    """The ``boardgammon-audit-v2`` JSON of a match, verdicts recomputed now.

    Shape: ``{"format", "dice_spec", "record_spec", "match_id", "genesis", "anchors": [hex or
    null, hex or null], "chain_head", "rolls": [entry …], "verified", "failure"}``; an entry is
    :func:`stored_entry` (the row as stored) plus ``opponent_link_steps`` (:func:`link_steps`;
    not hashed, the verifiers recount it), ``verdict`` and ``verdict_detail``; ``counts``: the
    revealed rolls of each kind of guarantee (:func:`roll_counts`).

    Raises:
        RollNotFound: the match has no v2 rolls.
    """
    rows = _stored_rows(session, match_id)  # not decoded: a corrupt row gets its verdict
    if not rows:
        raise RollNotFound(f"no v2 dice record for match {match_id!r}")
    entries = [stored_entry(row) for row in rows]
    document: dict[str, Any] = {
        "format": AUDIT_FORMAT_V2,
        "dice_spec": DICE_SPEC_V2,
        "record_spec": RECORD_SPEC_V2,
        "match_id": match_id,
        "genesis": GENESIS,
        "anchors": anchors(session, match_id),
        "chain_head": rows[-1]["entry_hash"],
        "rolls": [
            entry | {"opponent_link_steps": steps}
            for entry, steps in zip(entries, opponent_link_steps(rows), strict=True)
        ],
    }
    document["counts"] = roll_counts(entries)
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


_ROLL_SEQ = select(_TABLE.c.seq).where(
    _TABLE.c.match_id == bindparam("match_id"), _TABLE.c.roll_id == bindparam("roll_id")
)
_ANY_ROLL = select(_TABLE.c.seq).where(_TABLE.c.match_id == bindparam("match_id")).limit(1)
_ROWS = (
    select(*_TABLE.c)
    .where(
        _TABLE.c.match_id == bindparam("match_id"),
        _TABLE.c.seq >= bindparam("low"),
        _TABLE.c.seq <= bindparam("high"),
    )
    .order_by(_TABLE.c.seq)
)


def preceding_start(history: list[Any], after: int | None) -> int:
    """Where, in ``history`` (the record's entries up to a roll, its last: mappings with
    ``seq``, ``seat``, ``opponent_prev_link`` and ``opponent_entropy``, in seq order from
    the first), the entries begin that the roll's proof (and its program) carry before it.

    With ``after`` (the seq of the newest entry a device has already checked): those after it,
    whatever they are (the device counts k on from its own tally). Without: those its
    opponent link's k counts, from the last one that revealed the same opponent's link (the
    same roller seat, ``opponent_entropy`` set) or from the first; none where the opponent has
    no chain (there is no k to count)."""
    at = len(history) - 1
    if after is not None:
        return next((i for i in range(at) if history[i]["seq"] > after), at)
    roll = history[at]
    if roll["opponent_prev_link"] is None:
        return at
    return next((i for i in range(at - 1, -1, -1) if history[i]["seat"] == roll["seat"]
                 and history[i]["opponent_entropy"] is not None), 0)


def roll_window(
    session: Session, match_id: str, roll_id: str, after: int | None = None
) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
    """One roll's audit entry and the entries before it from :func:`preceding_start`, each as
    in :func:`audit_document` (with ``opponent_link_steps``, ``verdict``, ``verdict_detail``),
    without building the document: only the window and the entry before it are read whole,
    hashed and checked (by the verifier's own :func:`check_roll_v2`); the link columns of the
    entries before them (no hashing) give each one's k and where the players' chains stand.
    ``None`` if the match has v2 rolls but not ``roll_id``.

    The verdicts are the document's wherever the record before the window verifies; the
    whole document (``verify.py``) is what checks that.

    Raises:
        RollNotFound: the match has no v2 rolls.
    """
    connection = session.connection()
    seq = connection.execute(_ROLL_SEQ, {"match_id": match_id, "roll_id": roll_id}).scalar()
    if seq is None:
        if connection.execute(_ANY_ROLL, {"match_id": match_id}).first() is None:
            raise RollNotFound(f"no v2 dice record for match {match_id!r}")
        return None
    # .all(): one fetch, where iterating the result fetched row by row.
    history = [dict(r._mapping) for r in connection.execute(
        _LINK_HISTORY, {"match_id": match_id, "seq": seq}).all()]
    steps = dict(zip((h["seq"] for h in history), opponent_link_steps(history), strict=True))
    start = preceding_start(history, after)
    first = max(start - 1, 0)  # the entry before the window: its hash is the window's prev
    # Where each player's chain stands before `first`, as the verifier's pass leaves it.
    links, used, started = anchors(session, match_id), [0, 0], [False, False]
    for earlier in history[:first]:
        if earlier["opponent_prev_link"] is not None:
            chain = 1 - earlier["seat"]
            started[chain] = True
            used[chain] += 1
            if earlier["opponent_entropy"] is not None:
                links[chain], used[chain] = earlier["opponent_entropy"], 0
    rows = connection.execute(
        _ROWS, {"match_id": match_id, "low": history[first]["seq"], "high": seq}
    ).all()
    entries, head = [], GENESIS
    for at, row in enumerate(rows, start=first):
        entry = stored_entry(dict(row._mapping))
        entry["opponent_link_steps"] = steps[entry["seq"]]
        if at == first > 0:
            head = entry["prev_hash"]  # its own check is not shown
        check, head = check_roll_v2(match_id, at, entry, head, links, used, started=started)
        entry["verdict"], entry["verdict_detail"] = check.verdict, check.detail
        if at >= start:
            entries.append(entry)
    return entries[-1], entries[:-1]
