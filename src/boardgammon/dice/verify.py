"""Boardgammon's provably fair dice: the derivation, the record's hash chain, and a verifier.

This module imports only the Python standard library, so it can be copied out of the package
and run alone::

    python3 verify.py audit.json                      # or an https://…/api/audit/mat_… URL
    python3 verify.py audit.json --head <chain head>  # also compare with the published head
    python3 verify.py https://…/api/audit/mat_… --log   # and the rolls and anchors in the log

It exits 0 when every revealed roll matches its commitment and its dice, the hash chain is
intact and only the record's last roll is still unresolved (committed, requested or revealed),
1 naming the first roll that fails and why (``seed missing``, ``commitment mismatch``, ``dice
mismatch``, ``chain broken``, ``left unresolved``, for v2 also ``opponent link mismatch``,
``void after reveal``, ``void after request``, ``chain skipped``, ``anchor missing``, ``absent
too early`` (an ``absent`` roll revealed before the wait its match leaf states) and ``log
mismatch``, or ``malformed`` for an entry that cannot be read), and 2 when the document cannot
be loaded, ``--head`` is no chain head (64 hex digits) or ``--log`` without an entries file
has no URL source to read the log from (each of those two one line on standard error). A v2
roll that verifies with the weaker guarantee (its opponent's link ``absent`` or ``none``:
the server and the roller held every input) is ``ok`` with that said, e.g. ``ok (opponent
absent: server + roller inputs only)``, and exits 0 all the same; a v2 record that verifies
ends with the count of each kind of roll, as the audit page gives them.

The specification, with test vectors, is ``docs/fair-dice.md``: versions ``boardgammon-dice-v1``
(server seed and the roller's entropy) and ``boardgammon-dice-v2`` (server seed, the roller's
entropy and the opponent's hash-chain link; every state change and its time hashed). Public and
stable: :func:`derive_dice`, :func:`derive_dice_v2`, :func:`entry_hash_v2` and :func:`commitment`.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import http.client
import json
import sys
import urllib.error
import urllib.request
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

DICE_SPEC = "boardgammon-dice-v1"
RECORD_SPEC = "boardgammon-record-v1"
AUDIT_FORMAT = "boardgammon-audit-v1"
SEED_BYTES = 32
ENTROPY_BYTES = 16
ACCEPT_BELOW = 252  # 252 = 6 × 42: every face gets exactly 42 of the accepted byte values.
GENESIS = "0" * 64  # the "previous entry hash" of a match's first roll
ENTROPY_SOURCES = ("client", "server")
STATES = ("committed", "revealed", "played", "void")
REVEALED_STATES = ("revealed", "played")
# Not final: a new roll of the match starts only once the one before it is played or void, so
# only a record's last roll may be in one of these (v1 has no "requested").
UNRESOLVED_STATES = ("committed", "requested", "revealed")

DICE_SPEC_V2 = "boardgammon-dice-v2"
RECORD_SPEC_V2 = "boardgammon-record-v2"
AUDIT_FORMAT_V2 = "boardgammon-audit-v2"
LINK_BYTES = 32  # one link of a player's hash chain (SHA-256 output)
KINDS = ("opening", "normal")
STATES_V2 = ("committed", "requested", "revealed", "played", "void")
ROLLER_SOURCES = ("client", "server")
# client: the opponent's device revealed its link; absent: it had a chain but did not reveal in
# time; none: the opponent has no device in this match (the computer) or registered no chain.
OPPONENT_SOURCES = ("client", "absent", "none")
TIME_FIELDS = (
    "committed_at",
    "requested_at",
    "opponent_at",
    "revealed_at",
    "played_at",
    "voided_at",
)
# The record's time of the change each public log leaf of a roll stands for (its ``event``).
EVENT_TIMES = {
    "committed": "committed_at",
    "requested": "requested_at",
    "revealed": "revealed_at",
    "played": "played_at",
    "void": "voided_at",
}

# The fields each change of a v2 roll's life sets, beside its state (``docs/fair-dice.md``
# §The record (v2), A roll's leaves); a roll's entry as it stood after a change has the
# fields of the changes after it null (:func:`entry_after`).
CHANGE_FIELDS = {
    "committed": ("committed_at",),
    "requested": ("roller_entropy", "roller_source", "requested_at"),
    "revealed": ("server_seed", "opponent_entropy", "opponent_source", "dice", "opponent_at",
                 "revealed_at"),
    "played": ("played_at",),
    "void": ("voided_at",),
}

SEED_MISSING = "seed missing"
COMMITMENT_MISMATCH = "commitment mismatch"
DICE_MISMATCH = "dice mismatch"
CHAIN_BROKEN = "chain broken"
MALFORMED = "malformed"
LINK_MISMATCH = "opponent link mismatch"
VOID_AFTER_REVEAL = "void after reveal"
CHAIN_SKIPPED = "chain skipped"  # a roll took no link of a chain the log shows registered
ANCHOR_MISSING = "anchor missing"  # an anchor the log shows accepted is not the record's
LOG_MISMATCH = "log mismatch"  # the log's leaves given do not make the document's signed head
# A roll before the record's last that was never played nor voided: the server went on to the
# next roll with this one still open, perhaps after its inputs (and dice) were known to it.
LEFT_UNRESOLVED = "left unresolved"
# v2: a roll voided after its request (``requested_at`` set) with another roll of the same game
# after it: the server drops a requested roll only when its game or the match ends, so this one
# it dropped after the roller's input (and perhaps the opponent's link) had reached it, and
# rolled again (a "busy" reroll; the players' devices flag it as ``void_after_request``).
VOID_AFTER_REQUEST = "void after request"
# v2: a roll revealed without the opponent's link (``absent``) sooner after its request than
# the wait for the link its match's leaf in the public log states (``link_wait_ms``): the
# server did not wait for the link as it said it would (it may have held the link back and
# rolled without it, or cut the wait of a device about to answer).
ABSENT_TOO_EARLY = "absent too early"
ANCHOR_EVENT = "anchor"  # the public log's leaf of an accepted chain anchor
MATCH_EVENT = "match"  # the public log's leaf that states how a v2 match is played
MODES = ("live", "correspondence", "computer")
# A live match's leaf (or one against the computer) logged at or after this time states the
# server's wait for the link (``link_wait_ms``): one without it is a leaf that cannot be read.
# Leaves from before, written when the wait was in no record, stay valid without it.
WAIT_STATED_FROM = "2026-12-06T00:00:00+00:00"

# v2: what a revealed roll proves (docs/fair-dice.md §What each kind of roll proves), by its
# sources: the kinds the audit JSON counts in ``counts`` (the server's ``roll_guarantee``).
GUARANTEES = ("live", "computer", "opponent_absent", "no_opponent_device", "server_only")
# The kinds whose guarantee is weaker than the full one of their roller: their row's "ok" says so.
WEAKER_GUARANTEES = {
    "opponent_absent": "opponent absent: server + roller inputs only",
    "no_opponent_device": "no opponent device: server + roller inputs only",
    "server_only": "server only: the server drew every input",
}
# The summary of an ok v2 record, one line per kind: the audit page's texts (English), which
# tests/dice/test_verify_guarantees.py keeps equal to them.
GUARANTEES_TITLE = "What these rolls prove"
GUARANTEE_COUNTS = {
    "live": (
        "{count} rolls with both devices' entropy: neither player alone, nor the server "
        "with one of them, could foresee them; once the server had the opponent's link, it "
        "could at most have chosen between the roll with it and the roll without it."
    ),
    "computer": (
        "{count} rolls of the computer with its human opponent's device link: the server "
        "alone could not foresee them; once it had that link, it could at most have chosen "
        "between the roll with it and the roll without it."
    ),
    "opponent_absent": (
        "{count} rolls without the opponent's device's link (correspondence turns, which "
        "do not ask it, or live rolls it did not answer in time): the server and the "
        "roller together could have known them early."
    ),
    "no_opponent_device": (
        "{count} rolls whose opponent had no chain: the server and the roller together "
        "could have known them early. That it had none is checked against the public log, "
        "where every chain anchor the server accepted is a leaf (verify.py --log)."
    ),
    "server_only": "{count} rolls where the server drew every input.",
}


def lp(data: bytes) -> bytes:
    """``data`` prefixed with its length as 4 bytes, big-endian (the spec's ``lp(x)``)."""
    return len(data).to_bytes(4, "big") + data


_DICE_SPEC_LP = lp(DICE_SPEC.encode())


def commitment(server_seed: bytes) -> str:
    """The commitment to a server seed: SHA-256 of the 32 raw seed bytes, lowercase hex (64 chars).

    Raises:
        ValueError: the seed is not 32 bytes.
    """
    _require_length("server seed", server_seed, SEED_BYTES)
    return hashlib.sha256(server_seed).hexdigest()


def dice_prefix(match_id: str, roll_id: str, nonce: int, client_entropy: bytes) -> bytes:
    """The message prefix of every HMAC block of a roll (spec §Derivation).

    ``lp(b"boardgammon-dice-v1") + lp(match_id) + lp(roll_id) + nonce (8 bytes, big-endian)
    + lp(client_entropy)``, the IDs in UTF-8.

    Raises:
        ValueError: the nonce is outside 0 ≤ nonce < 2**64 or the entropy is not 16 bytes.
    """
    if not isinstance(nonce, int) or not 0 <= nonce < 2**64:
        raise ValueError(f"nonce must be an integer in 0 … 2**64-1, got {nonce!r}")
    _require_length("client entropy", client_entropy, ENTROPY_BYTES)
    return (
        _DICE_SPEC_LP
        + lp(match_id.encode("utf-8"))
        + lp(roll_id.encode("utf-8"))
        + nonce.to_bytes(8, "big")
        + lp(client_entropy)
    )


def hmac_sha256(key: bytes, message: bytes) -> bytes:
    """HMAC-SHA256 (RFC 2104) of ``message`` under ``key``: 32 bytes."""
    return hmac.digest(key, message, "sha256")


def dice_blocks(server_seed: bytes, prefix: bytes) -> Iterator[bytes]:
    """Blocks 0, 1, 2 … of a roll: HMAC-SHA256(seed, prefix + block index as 4 bytes big-endian)."""
    for index in range(2**32):
        yield hmac_sha256(server_seed, prefix + index.to_bytes(4, "big"))
    raise ValueError("all 2**32 blocks were exhausted without two accepted bytes")


def dice_from_blocks(blocks: Iterable[bytes]) -> tuple[int, int]:
    """The first two accepted bytes of ``blocks`` read in order, as dice (1–6 each).

    A byte ≥ 252 is skipped; an accepted byte gives the die ``byte % 6 + 1``.

    Raises:
        ValueError: the blocks end before two bytes are accepted.
    """
    dice: list[int] = []
    for block in blocks:
        for byte in block:
            if byte < ACCEPT_BELOW:
                dice.append(byte % 6 + 1)
                if len(dice) == 2:
                    return dice[0], dice[1]
    raise ValueError(f"the blocks ended after {len(dice)} accepted byte(s); 2 are needed")


def derive_dice(
    server_seed: bytes, match_id: str, roll_id: str, nonce: int, client_entropy: bytes
) -> tuple[int, int]:
    """The roll (first die, second die), each 1–6, that follows from a seed and client entropy.

    Args:
        server_seed: the 32 raw bytes whose SHA-256 was published as the commitment.
        match_id, roll_id: the IDs as recorded (``mat_…``, ``rol_…``).
        nonce: the server-wide counter value assigned when the roll was committed.
        client_entropy: the 16 bytes the roller's device sent with the request to reveal.

    Raises:
        ValueError: a seed not of 32 bytes, entropy not of 16 bytes, a nonce out of range.
    """
    _require_length("server seed", server_seed, SEED_BYTES)
    prefix = dice_prefix(match_id, roll_id, nonce, client_entropy)
    return dice_from_blocks(dice_blocks(server_seed, prefix))


def entry_hash(
    prev_hash: str,
    match_id: str,
    roll_id: str,
    nonce: int,
    seat: int,
    commitment_hex: str,
    server_seed: bytes | None,
    client_entropy: bytes | None,
    entropy_source: str | None,
    dice: tuple[int, int] | None,
) -> str:
    """The hash of one record entry, lowercase hex, which the match's next entry carries.

    SHA-256 of ``lp(b"boardgammon-record-v1") + lp(prev_hash) + lp(match_id) + lp(roll_id)
    + nonce (8 bytes) + seat (1 byte) + lp(commitment) + lp(seed) + lp(entropy)
    + lp(entropy source) + first die (1 byte) + second die (1 byte)``, hex strings as ASCII;
    a roll not revealed has an empty seed, entropy and source and dice 0, 0.
    """
    first, second = dice if dice is not None else (0, 0)
    data = (
        lp(RECORD_SPEC.encode())
        + lp(prev_hash.encode("ascii"))
        + lp(match_id.encode("utf-8"))
        + lp(roll_id.encode("utf-8"))
        + nonce.to_bytes(8, "big")
        + seat.to_bytes(1, "big")
        + lp(commitment_hex.encode("ascii"))
        + lp(server_seed or b"")
        + lp(client_entropy or b"")
        + lp((entropy_source or "").encode("ascii"))
        + bytes((first, second))
    )
    return hashlib.sha256(data).hexdigest()


_DICE_SPEC_V2_LP = lp(DICE_SPEC_V2.encode())


def chain_link(link: bytes) -> bytes:
    """The link a hash-chain link must hash to: SHA-256 of its 32 raw bytes (32 bytes).

    A player's chain is ``x_N`` (32 random bytes), ``x_(i-1) = SHA-256(x_i)``; its anchor ``x_0``
    is registered before the match's rolls, and its links are revealed ``x_1, x_2, …``, one per
    roll where that player is the opponent, each checked by ``SHA-256(x_i) == x_(i-1)``.
    """
    return hashlib.sha256(link).digest()


def chain_link_steps(link: bytes, steps: int) -> bytes:
    """SHA-256 applied ``steps`` times to ``link`` (32 bytes): from ``x_(i+steps)`` back to
    ``x_i``. ``steps`` 0 returns ``link`` itself.

    Raises:
        ValueError: ``steps`` negative.
    """
    if steps < 0:
        raise ValueError(f"steps must be 0 or more, got {steps}")
    for _ in range(steps):
        link = hashlib.sha256(link).digest()
    return link


def opponent_link_steps(entries: Iterable[Mapping]) -> list[int | None]:
    """For each v2 entry (audit entries in seq order) how many links of its opponent's chain
    its revealed link lies beyond ``opponent_prev_link`` (spec §Terms (v2), "used up"):
    ``SHA-256^k(link) == opponent_prev_link`` with exactly this ``k``. ``None`` for an entry
    whose opponent has no chain (``opponent_prev_link`` null).

    Every entry whose opponent has a chain uses up one link of it, whatever becomes of the
    entry (revealed with the link, ``absent``, void, still pending): ``k`` is 1 plus the number
    of such entries of the same opponent since that opponent's last revealed link (or the
    record's start). Only ``seat``, ``opponent_prev_link`` and ``opponent_entropy`` are read.
    """
    used = [0, 0]
    steps: list[int | None] = []
    for entry in entries:
        opponent = 1 - entry["seat"]
        if entry.get("opponent_prev_link") is None:
            steps.append(None)
            continue
        used[opponent] += 1
        steps.append(used[opponent])
        if entry.get("opponent_entropy") is not None:
            used[opponent] = 0
    return steps


def dice_prefix_v2(
    match_id: str,
    roll_id: str,
    nonce: int,
    kind: str,
    roller_entropy: bytes,
    opponent_entropy: bytes | None,
) -> bytes:
    """The message prefix of every HMAC block of a v2 roll (spec §Derivation, v2).

    ``lp(b"boardgammon-dice-v2") + lp(match_id) + lp(roll_id) + nonce (8 bytes, big-endian)
    + lp(kind) + lp(roller_entropy) + lp(opponent_entropy)``; IDs in UTF-8, the kind in ASCII,
    an opponent contribution that is missing as ``lp(b"")`` = ``00000000``.

    Raises:
        ValueError: a nonce outside 0 ≤ nonce < 2**64, an unknown kind, roller entropy not of
            16 bytes, an opponent link not of 32 bytes.
    """
    if not isinstance(nonce, int) or not 0 <= nonce < 2**64:
        raise ValueError(f"nonce must be an integer in 0 … 2**64-1, got {nonce!r}")
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    _require_length("roller entropy", roller_entropy, ENTROPY_BYTES)
    if opponent_entropy is not None:
        _require_length("opponent link", opponent_entropy, LINK_BYTES)
    return (
        _DICE_SPEC_V2_LP
        + lp(match_id.encode("utf-8"))
        + lp(roll_id.encode("utf-8"))
        + nonce.to_bytes(8, "big")
        + lp(kind.encode("ascii"))
        + lp(roller_entropy)
        + lp(opponent_entropy or b"")
    )


def derive_dice_v2(
    server_seed: bytes,
    match_id: str,
    roll_id: str,
    nonce: int,
    kind: str,
    roller_entropy: bytes,
    opponent_entropy: bytes | None,
) -> tuple[int, int]:
    """The v2 roll (first die, second die), each 1–6: the v1 rule on the v2 prefix.

    Args:
        server_seed: the 32 raw bytes whose SHA-256 was the commitment.
        kind: ``"opening"`` (first die seat 0's, second seat 1's) or ``"normal"``.
        roller_entropy: the 16 bytes of the roller's device (or the server's, source ``server``).
        opponent_entropy: the opponent's 32-byte chain link, ``None`` where none was revealed.

    Raises:
        ValueError: as :func:`dice_prefix_v2`, or a seed not of 32 bytes.
    """
    _require_length("server seed", server_seed, SEED_BYTES)
    prefix = dice_prefix_v2(match_id, roll_id, nonce, kind, roller_entropy, opponent_entropy)
    return dice_from_blocks(dice_blocks(server_seed, prefix))


def _hex_or_empty(entry: Mapping, key: str, length: int) -> bytes:
    value = entry.get(key)
    if value is None:
        return b""
    data = bytes.fromhex(value)
    if len(data) != length:
        raise ValueError(f"{key} must be {length} bytes of hex, got {len(data)}")
    return data


def _text(entry: Mapping, key: str) -> bytes:
    value = entry.get(key)
    if value is None:
        return b""
    if not isinstance(value, str):
        raise ValueError(f"{key} must be a string or null, got {value!r}")
    return value.encode("ascii")


def entry_hash_v2(match_id: str, entry: Mapping) -> str:
    """The hash of one v2 record entry (an audit entry as JSON), lowercase hex.

    SHA-256 of ``lp(b"boardgammon-record-v2") + lp(prev_hash) + lp(match_id) + lp(roll_id)
    + seq (4 bytes) + nonce (8 bytes) + seat (1 byte) + lp(kind) + lp(state) + lp(commitment)
    + lp(server_seed) + lp(roller_entropy) + lp(roller_source) + lp(opponent_prev_link)
    + lp(opponent_entropy) + lp(opponent_source) + first die (1 byte) + second die (1 byte)
    + lp(t)`` for each time ``committed_at, requested_at, opponent_at, revealed_at, played_at,
    voided_at``. Integers are unsigned big-endian; hex strings and the ``…Z`` times enter as
    ASCII text, seeds, entropy and links as raw bytes; a field that is ``null`` enters as
    ``lp(b"")`` (four zero bytes) and missing dice as the bytes 0, 0.

    Raises:
        KeyError, ValueError, TypeError: a field is missing or of the wrong form.
    """
    dice = entry.get("dice")
    first, second = (0, 0) if dice is None else (int(dice[0]), int(dice[1]))
    data = (
        lp(RECORD_SPEC_V2.encode())
        + lp(_text(entry, "prev_hash"))
        + lp(match_id.encode("utf-8"))
        + lp(str(entry["roll_id"]).encode("utf-8"))
        + int(entry["seq"]).to_bytes(4, "big")
        + int(entry["nonce"]).to_bytes(8, "big")
        + int(entry["seat"]).to_bytes(1, "big")
        + lp(_text(entry, "kind"))
        + lp(_text(entry, "state"))
        + lp(_text(entry, "commitment"))
        + lp(_hex_or_empty(entry, "server_seed", SEED_BYTES))
        + lp(_hex_or_empty(entry, "roller_entropy", ENTROPY_BYTES))
        + lp(_text(entry, "roller_source"))
        + lp(_hex_or_empty(entry, "opponent_prev_link", LINK_BYTES))
        + lp(_hex_or_empty(entry, "opponent_entropy", LINK_BYTES))
        + lp(_text(entry, "opponent_source"))
        + bytes((first, second))
        + b"".join(lp(_text(entry, key)) for key in TIME_FIELDS)
    )
    return hashlib.sha256(data).hexdigest()


_BYTES = (bytes, bytearray)


def _require_length(name: str, value: bytes, length: int) -> None:
    if not isinstance(value, _BYTES) or len(value) != length:
        size = len(value) if isinstance(value, _BYTES) else type(value).__name__
        raise ValueError(f"{name} must be {length} bytes, got {size}")


@dataclass(frozen=True)
class RollCheck:
    """The verdict on one roll of an audit document.

    ``verdict`` is ``"ok"``, ``"pending"`` (committed or, v2, requested: not yet revealed;
    only the record's last roll, :data:`LEFT_UNRESOLVED` otherwise), ``"never revealed"``
    (void: the match moved on or ended; v2, once requested, only where no roll of its game
    follows, :data:`VOID_AFTER_REQUEST` otherwise), or a failure reason (one of the module's
    reason strings);
    ``detail`` says what differed. ``guarantee``: for an ``"ok"`` v2 roll, what it proves
    (one of :data:`GUARANTEES`, :func:`roll_guarantee`); ``None`` otherwise.
    """

    index: int
    roll_id: str
    verdict: str
    detail: str = ""
    guarantee: str | None = None

    @property
    def failed(self) -> bool:
        return self.verdict not in ("ok", "pending", "never revealed")


@dataclass(frozen=True)
class Report:
    """The outcome of :func:`verify_document`: one check per roll, the recomputed chain head,
    and the first failure (``None`` when the document verifies)."""

    match_id: str
    checks: tuple[RollCheck, ...]
    chain_head: str
    failure: RollCheck | None
    # v2: how many ok rolls give each guarantee (every key of GUARANTEES); None for v1.
    counts: Mapping[str, int] | None = None
    # v2: how the match is played, as the public log states it (:func:`logged_mode`).
    mode: Mode | None = None

    @property
    def ok(self) -> bool:
        return self.failure is None


def _hex_field(entry: dict, key: str, length: int) -> bytes | None:
    value = entry.get(key)
    if value is None:
        return None
    data = bytes.fromhex(value)
    if len(data) != length:
        raise ValueError(f"{key} must be {length} bytes of hex, got {len(data)}")
    return data


def _is_int(value: object) -> bool:
    # JSON true/false parse as bool, a subclass of int; the format has no booleans there.
    return isinstance(value, int) and not isinstance(value, bool)


def check_roll(match_id: str, index: int, entry: dict, prev_hash: str) -> tuple[RollCheck, str]:
    """Check one audit entry against its predecessor's hash ``prev_hash``.

    Returns the verdict and the entry's recomputed hash (the next entry's expected
    ``prev_hash``). Checks, in order: the entry can be read, a revealed roll has its seed, the
    seed matches the commitment, the dice follow from seed, IDs, nonce and entropy, and the
    entry links to its predecessor and hashes to its recorded ``entry_hash``.
    """
    if not isinstance(entry, dict):
        detail = f"the entry cannot be read: a JSON object is expected, got {type(entry).__name__}"
        return RollCheck(index, f"#{index}", MALFORMED, detail), GENESIS
    roll_id = str(entry.get("roll_id", f"#{index}"))

    def verdict(reason: str, detail: str = "") -> RollCheck:
        return RollCheck(index, roll_id, reason, detail)

    try:
        nonce, seat, state = entry["nonce"], entry["seat"], entry["state"]
        commit_hex, stated_prev = entry["commitment"], entry["prev_hash"]
        seed = _hex_field(entry, "server_seed", SEED_BYTES)
        entropy = _hex_field(entry, "client_entropy", ENTROPY_BYTES)
        source = entry.get("entropy_source")
        dice = tuple(entry["dice"]) if entry.get("dice") is not None else None
        if state not in STATES or seat not in (0, 1) or not _is_int(seat) or not _is_int(nonce):
            raise ValueError(f"state {state!r}, seat {seat!r}, nonce {nonce!r}")
        if dice is not None and (len(dice) != 2 or not all(_is_int(die) for die in dice)):
            raise ValueError(f"dice must be two integers, got {entry['dice']!r}")
        # Hashed with its own stated link, so one broken link fails one roll, not all after it.
        own_hash = entry_hash(
            stated_prev, match_id, roll_id, nonce, seat, commit_hex, seed, entropy, source, dice
        )
    except (KeyError, ValueError, TypeError, AttributeError, OverflowError) as exc:
        return verdict(MALFORMED, f"the entry cannot be read: {exc}"), GENESIS

    revealed = state in REVEALED_STATES
    if revealed:
        if seed is None:
            detail = f"the roll is {state} but its server seed is absent"
            return verdict(SEED_MISSING, detail), own_hash
        if entropy is None or dice is None or source not in ENTROPY_SOURCES:
            detail = "a revealed roll needs entropy, its source and dice"
            return verdict(MALFORMED, detail), own_hash
        shown = commitment(seed)
        if shown != commit_hex:
            detail = f"SHA-256 of the seed is {shown}, the commitment was {commit_hex}"
            return verdict(COMMITMENT_MISMATCH, detail), own_hash
        derived = derive_dice(seed, match_id, roll_id, nonce, entropy)
        if derived != dice:
            detail = f"recorded {dice[0]}-{dice[1]}, the inputs give {derived[0]}-{derived[1]}"
            return verdict(DICE_MISMATCH, detail), own_hash
    elif any(x is not None for x in (seed, entropy, dice)):
        return verdict(MALFORMED, f"a {state} roll carries reveal fields"), own_hash
    if stated_prev != prev_hash:
        detail = f"prev_hash is {stated_prev}, the previous entry hashes to {prev_hash}"
        return verdict(CHAIN_BROKEN, detail), own_hash
    if entry.get("entry_hash") != own_hash:
        detail = f"the entry hashes to {own_hash}, its entry_hash says {entry.get('entry_hash')}"
        return verdict(CHAIN_BROKEN, detail), own_hash
    label = {"committed": "pending", "void": "never revealed"}.get(state, "ok")
    return verdict(label), own_hash


# What each v2 state must carry (True) and must not (False); other fields are free.
_V2_SHAPE = {
    "committed": {
        "server_seed": False,
        "roller_entropy": False,
        "opponent_entropy": False,
        "opponent_source": False,
        "dice": False,
        "requested_at": False,
        "revealed_at": False,
    },
    "requested": {
        "server_seed": False,
        "roller_entropy": True,
        "opponent_entropy": False,
        "opponent_source": False,
        "dice": False,
        "requested_at": True,
        "revealed_at": False,
    },
    "revealed": {
        "server_seed": True,
        "roller_entropy": True,
        "dice": True,
        "requested_at": True,
        "revealed_at": True,
        "opponent_source": True,
    },
    "played": {
        "server_seed": True,
        "roller_entropy": True,
        "dice": True,
        "requested_at": True,
        "revealed_at": True,
        "opponent_source": True,
        "played_at": True,
    },
    "void": {"server_seed": False, "dice": False, "revealed_at": False, "voided_at": True},
}


def _v2_shape_problem(entry: dict) -> str | None:
    """Why ``entry``'s fields do not fit its state (``None`` if they do); a void entry with
    reveal fields is :data:`VOID_AFTER_REVEAL`, checked before."""
    state = entry["state"]
    for key, wanted in _V2_SHAPE[state].items():
        if (entry.get(key) is not None) != wanted:
            return f"a {state} roll {'needs' if wanted else 'cannot carry'} {key}"
    if entry.get("played_at") is not None and state != "played":
        return f"a {state} roll cannot carry played_at"
    if entry.get("voided_at") is not None and state != "void":
        return f"a {state} roll cannot carry voided_at"
    if (entry.get("roller_entropy") is None) != (entry.get("roller_source") is None):
        return "roller_entropy and roller_source come together"
    if (entry.get("opponent_entropy") is None) != (entry.get("opponent_at") is None):
        return "opponent_entropy and opponent_at come together"
    times = [entry[key] for key in TIME_FIELDS if entry.get(key) is not None]
    for key in TIME_FIELDS:
        if entry.get(key) is not None and not _is_record_time(entry[key]):
            return f"{key} {entry[key]!r} is not a time YYYY-MM-DDTHH:MM:SS.ffffffZ"
    if entry.get("committed_at") is None or times != sorted(times):
        return "the times must start with committed_at and never go back"
    return None


def _as_record_time(value: object) -> str | None:
    """A record time (``…SS.ffffffZ``) or a leaf's ``at`` in the log's spelling (UTC,
    ``…SS[.ffffff]+00:00``) as a record time, which sort as the instants they name; ``None``
    for any other spelling. Digits where the record time has digits, nothing more: the
    independent verifier reads them the same way."""
    if not isinstance(value, str):
        return None
    if value.endswith("+00:00") and len(value) in (25, 32):
        value = value[:-6] + ("" if len(value) == 32 else ".000000") + "Z"
    shape = "dddd-dd-ddTdd:dd:dd.ddddddZ"
    if len(value) != len(shape) or not all(
        ("0" <= c <= "9") if f == "d" else c == f for c, f in zip(value, shape, strict=True)
    ):
        return None
    return value


def _is_record_time(value: object) -> bool:
    """Whether ``value`` is a record time exactly as the spec writes it (27 characters, UTC)."""
    if not isinstance(value, str) or len(value) != 27 or not value.endswith("Z"):
        return False
    try:
        datetime.strptime(value, "%Y-%m-%dT%H:%M:%S.%fZ")
    except ValueError:
        return False
    return True


def check_roll_v2(
    match_id: str,
    index: int,
    entry: dict,
    prev_hash: str,
    links: list[str | None],
    used: list[int] | None = None,
    registered: list[Anchor | None] | None = None,
    started: list[bool] | None = None,
    requested_leaf: int | None = None,
) -> tuple[RollCheck, str]:
    """Check one v2 audit entry against its predecessor's hash and the players' hash chains.

    ``links[seat]``: the hex value that seat's next revealed link must hash to (its anchor,
    then its last revealed link), ``None`` without a chain; ``used[seat]``: how many entries
    have used up a link of that seat's chain since (:func:`opponent_link_steps`; zeros when
    not given); ``started[seat]``: whether an entry before this one fixed a link of that
    seat's chain (``False`` for both when not given). All three are updated here.
    ``registered[seat]``: that seat's anchor as the public log shows it accepted
    (:func:`logged_anchors`), if known; ``requested_leaf``: the place in the log of the
    entry's request (:func:`request_places`), if known. Returns the verdict and the entry's
    recomputed hash.
    Checks, in order: the entry can be read and its fields fit its state, a void roll reveals
    nothing, ``opponent_prev_link`` is where the opponent's chain stands (``null`` until an
    entry first fixes a link of it, which must be the anchor, then every entry with that
    opponent continues it: a late anchor takes part from its first use on), a roll
    requested after the opponent's anchor leaf (by their places in the log; where the
    request's place is unknown, by its ``requested_at`` against the leaf's ``at``: flagged
    unless the earlier, or where either cannot be read) takes a link of its chain
    (:data:`CHAIN_SKIPPED`), the entry's
    ``opponent_link_steps`` (optional, not hashed) is the ``k`` counted here, the opponent's
    link hashes to ``opponent_prev_link`` in exactly ``k`` steps, the seed matches the
    commitment, the dice follow from all inputs, and the entry links to its predecessor and
    hashes to its ``entry_hash``.
    """
    used = used if used is not None else [0, 0]
    started = started if started is not None else [False, False]
    if not isinstance(entry, dict):
        detail = f"the entry cannot be read: a JSON object is expected, got {type(entry).__name__}"
        return RollCheck(index, f"#{index}", MALFORMED, detail), GENESIS
    roll_id = str(entry.get("roll_id", f"#{index}"))

    def verdict(reason: str, detail: str = "") -> RollCheck:
        return RollCheck(index, roll_id, reason, detail)

    try:
        seq, nonce, seat, state = entry["seq"], entry["nonce"], entry["seat"], entry["state"]
        kind, commit_hex = entry["kind"], entry["commitment"]
        if (
            not all(_is_int(x) for x in (seq, nonce, seat))
            or seat not in (0, 1)
            or seq != index
            or state not in STATES_V2
            or kind not in KINDS
        ):
            raise ValueError(
                f"seq {seq!r} (expected {index}), seat {seat!r}, nonce {nonce!r}, "
                f"state {state!r}, kind {kind!r}"
            )
        seed = _hex_field(entry, "server_seed", SEED_BYTES)
        roller = _hex_field(entry, "roller_entropy", ENTROPY_BYTES)
        prev_link = _hex_field(entry, "opponent_prev_link", LINK_BYTES)
        opponent = _hex_field(entry, "opponent_entropy", LINK_BYTES)
        dice = tuple(entry["dice"]) if entry.get("dice") is not None else None
        if dice is not None and (len(dice) != 2 or not all(_is_int(d) for d in dice)):
            raise ValueError(f"dice must be two integers, got {entry['dice']!r}")
        if entry.get("roller_source") not in (None, *ROLLER_SOURCES) or entry.get(
            "opponent_source"
        ) not in (None, *OPPONENT_SOURCES):
            raise ValueError(
                f"roller_source {entry.get('roller_source')!r}, "
                f"opponent_source {entry.get('opponent_source')!r}"
            )
        own_hash = entry_hash_v2(match_id, entry)
    except (KeyError, ValueError, TypeError, AttributeError, OverflowError) as exc:
        return verdict(MALFORMED, f"the entry cannot be read: {exc}"), GENESIS

    if state == "void" and any(x is not None for x in (seed, opponent, dice)):
        return verdict(
            VOID_AFTER_REVEAL,
            "a void roll carries the opponent's link, the seed or "
            "dice: it was voided after its dice were known",
        ), own_hash
    problem = _v2_shape_problem(entry)
    if problem is not None:
        return verdict(MALFORMED, problem), own_hash
    other = 1 - seat
    # Until the chain's first use an entry may fix no link of it (the anchor came late, or
    # never); from then on each one continues it.
    expected = links[other] if prev_link is not None or started[other] else None
    if (prev_link.hex() if prev_link else None) != expected:
        detail = (
            f"seat {other}'s chain continues from {expected}, the entry says "
            f"{entry.get('opponent_prev_link')}"
        )
        return verdict(LINK_MISMATCH, detail), own_hash
    logged = registered[other] if registered is not None else None
    if prev_link is None and logged is not None and entry.get("requested_at") is not None:
        if requested_leaf is not None:
            skipped = requested_leaf > logged.index
            when = f"before this roll was requested (log entry {requested_leaf})"
        else:
            # No place for the request (no log given, none listed in the document): the
            # record's times instead, flagged unless the request is the earlier of the two.
            asked = _as_record_time(entry["requested_at"])
            accepted = _as_record_time(logged.at)
            skipped = asked is None or accepted is None or not asked < accepted
            when = (
                f"at {logged.at}, and this roll's request, without a place in the log read, "
                f"has requested_at {entry['requested_at']} not before it"
            )
        if skipped:
            detail = (
                f"seat {other}'s chain anchor {logged.anchor} was accepted in public log "
                f"entry {logged.index}, {when}, yet the roll took no link of it "
                f"(opponent_prev_link null, source {entry.get('opponent_source')!r})"
            )
            return verdict(CHAIN_SKIPPED, detail), own_hash
    steps = None
    if prev_link is not None:
        started[other] = True
        used[other] += 1
        steps = used[other]
    shown_steps = entry.get("opponent_link_steps", steps)
    if shown_steps != steps or (shown_steps is not None and not _is_int(shown_steps)):
        detail = f"opponent_link_steps is {shown_steps!r}, the record before it gives {steps}"
        return verdict(MALFORMED, detail), own_hash
    source = entry.get("opponent_source")
    if opponent is not None:
        if prev_link is None:
            detail = (
                "the entry reveals the opponent's link but names no link of the chain it "
                "continues (opponent_prev_link null)"
            )
            return verdict(LINK_MISMATCH, detail), own_hash
        reached = chain_link_steps(opponent, steps or 1)
        if reached != prev_link:
            detail = (
                f"SHA-256 applied {steps or 1} times to the opponent's link (its link number "
                f"{steps or 1} since the last one revealed) gives {reached.hex()}"
            )
            return verdict(LINK_MISMATCH, f"{detail}, not {expected}"), own_hash
        if source != "client":
            detail = f"the opponent's link is revealed, so the source is client, not {source!r}"
            return verdict(LINK_MISMATCH, detail), own_hash
        links[other] = opponent.hex()
        used[other] = 0
    elif source is not None and source != ("absent" if prev_link is not None else "none"):
        detail = f"no link revealed, so the source is {'absent' if prev_link else 'none'}"
        return verdict(LINK_MISMATCH, f"{detail}, not {source}"), own_hash
    if state in REVEALED_STATES:
        assert seed is not None and roller is not None and dice is not None  # the shape check
        shown = commitment(seed)
        if shown != commit_hex:
            detail = f"SHA-256 of the seed is {shown}, the commitment was {commit_hex}"
            return verdict(COMMITMENT_MISMATCH, detail), own_hash
        derived = derive_dice_v2(seed, match_id, roll_id, nonce, kind, roller, opponent)
        if derived != dice:
            detail = f"recorded {dice[0]}-{dice[1]}, the inputs give {derived[0]}-{derived[1]}"
            return verdict(DICE_MISMATCH, detail), own_hash
    if entry.get("prev_hash") != prev_hash:
        detail = f"prev_hash is {entry.get('prev_hash')}, the previous entry hashes to {prev_hash}"
        return verdict(CHAIN_BROKEN, detail), own_hash
    if entry.get("entry_hash") != own_hash:
        detail = f"the entry hashes to {own_hash}, its entry_hash says {entry.get('entry_hash')}"
        return verdict(CHAIN_BROKEN, detail), own_hash
    label = {"committed": "pending", "requested": "pending", "void": "never revealed"}
    if state in REVEALED_STATES:
        return RollCheck(index, roll_id, "ok", guarantee=roll_guarantee(entry)), own_hash
    return verdict(label.get(state, "ok")), own_hash


def roll_guarantee(entry: Mapping) -> str:
    """What a revealed v2 roll (its audit entry) proves, one of :data:`GUARANTEES`
    (``docs/fair-dice.md`` §What each kind of roll proves): ``live`` (both devices took part),
    ``computer`` (the computer's roll, ``roller_source`` ``server``, with the human's link),
    ``opponent_absent`` (the opponent's chain did not answer: server and roller held every
    input), ``no_opponent_device`` (``none``: the opponent has no chain, the same), or
    ``server_only`` (the computer's roll without the human's link: the server drew every
    input). The audit JSON's ``counts`` count the revealed rolls of each."""
    if entry.get("opponent_source") == "client":
        return "live" if entry.get("roller_source") == "client" else "computer"
    if entry.get("roller_source") == "server":
        return "server_only"
    return "opponent_absent" if entry.get("opponent_source") == "absent" else "no_opponent_device"


def verify_document(
    document: dict, expected_head: str | None = None, log_leaves: list[str] | None = None
) -> Report:
    """Verify an audit document (``GET /api/audit/{match_id}``): every roll and the hash chain.

    Args:
        document: the parsed JSON, format ``boardgammon-audit-v1`` or ``boardgammon-audit-v2``
            (which adds ``anchors``: each seat's hash-chain anchor, hex or ``null``, and in
            ``log.anchors`` the public log's leaves of the anchors the server accepted).
        expected_head: the chain head published at the end of the match, if the caller has it;
            the recomputed head must equal it.
        log_leaves: the whole public log up to the document's signed head (``log.head``),
            leaf ``i`` at place ``i``, as ``GET /api/log/entries`` serves them, if the caller
            read it. Their tree must have the head's size and root; then every anchor leaf of
            the match is found there by its place, not taken from the document's list (v2;
            :func:`logged_anchors`), and every roll's leaves must name it as it is, with no
            roll of the match left out (:func:`_against_log`).

    Only the record's last roll may be unresolved (committed, requested or revealed): an
    earlier one, with rolls after it, is :data:`LEFT_UNRESOLVED` (the server starts a roll
    only once the one before it is played or void), so a server that rolls again cannot keep
    the first roll's void (and its ``voided_at``) out of the record by leaving it
    ``requested``. v2: nor may it void it and roll again in the same game: a void roll with
    ``requested_at`` followed by another roll of its game is :data:`VOID_AFTER_REQUEST`
    (:func:`_fail_void_after_request`).

    v2: every anchor the log shows accepted must be the record's ``anchors`` entry for its
    seat (:data:`ANCHOR_MISSING`), and a roll whose request is a later leaf of the log than
    it (:func:`request_places`: from ``log_leaves``, else each roll's ``log`` in the document;
    a roll with no place there by its ``requested_at``, not before the anchor leaf's ``at``)
    must take a link of that chain (:data:`CHAIN_SKIPPED`); ``absent`` and void rolls do
    (their ``opponent_prev_link`` is set), so only ``none`` fails. A roll requested before
    the anchor's leaf (a late anchor) may say ``none``; from the chain's first use on, every
    roll with that opponent continues it (:data:`LINK_MISMATCH` otherwise). The report's
    ``mode`` is how the match is played as the public log states it (:func:`logged_mode`:
    from ``log_leaves`` when given, else the document's ``log.match``); a listed leaf that is
    not the log's first of the match's mode is :data:`LOG_MISMATCH`. Where that leaf states
    the server's wait for the opponent's link (``link_wait_ms``), a roll revealed without
    the link (``absent``) less than that after its request (``revealed_at`` −
    ``requested_at``) is :data:`ABSENT_TOO_EARLY` (:func:`_fail_absent_too_early`); a leaf
    that states none (a correspondence match, a leaf from before 2026-12-05's wait) checks
    no wait.

    Raises:
        ValueError: the document is not an audit document of a known format.
    """
    if not isinstance(document, dict):
        raise ValueError(f"not an audit document: a JSON object, got {type(document).__name__}")
    version = (document.get("format"), document.get("dice_spec"))
    if version not in ((AUDIT_FORMAT, DICE_SPEC), (AUDIT_FORMAT_V2, DICE_SPEC_V2)):
        raise ValueError(
            f"not a {AUDIT_FORMAT} document with dice spec {DICE_SPEC} nor a {AUDIT_FORMAT_V2} "
            f"one with {DICE_SPEC_V2}: format {version[0]!r}, dice_spec {version[1]!r}"
        )
    match_id, rolls = document["match_id"], document["rolls"]
    if not isinstance(rolls, list):
        raise ValueError(f"not an audit document: rolls is a {type(rolls).__name__}, not a list")
    checks: list[RollCheck] = []
    head = GENESIS
    mode: Mode | None = None
    late: RollCheck | None = None  # a failure of the record as a whole, after the rolls'
    if version[0] == AUDIT_FORMAT_V2:
        links, used, started = _anchors(document), [0, 0], [False, False]
        listed = list(links)
        try:
            registered = logged_anchors(document, log_leaves)
        except (KeyError, TypeError, ValueError) as exc:
            registered = [None, None]
            late = RollCheck(len(rolls), "(public log)", LOG_MISMATCH, str(exc))
        places = request_places(document, log_leaves)
        for index, entry in enumerate(rolls):
            place = places.get(str(entry.get("roll_id"))) if isinstance(entry, dict) else None
            check, head = check_roll_v2(match_id, index, entry, head, links, used, registered,
                                        started, place)
            checks.append(check)
        _fail_void_after_request(rolls, checks)
        for seat, logged in enumerate(registered):
            if late is None and logged is not None and logged.anchor != listed[seat]:
                detail = (
                    f"the public log's entry {logged.index} shows seat {seat}'s chain anchor "
                    f"{logged.anchor} accepted at {logged.at}; the record's anchors list "
                    f"{listed[seat]}"
                )
                late = RollCheck(len(rolls), "(anchors)", ANCHOR_MISSING, detail)
        if late is None and log_leaves is not None:  # the leaves make the signed head
            late = _against_log(document, log_leaves)
            left_out = _anchors_left_out(document, log_leaves) if late is None else None
            if left_out is not None:
                late = RollCheck(len(rolls), "(public log)", LOG_MISMATCH, left_out)
        elif late is None:
            late = _against_listed(document)
        try:
            mode = logged_mode(document, log_leaves)
        except (KeyError, TypeError, ValueError) as exc:
            mode = None
            if late is None:
                late = RollCheck(len(rolls), "(public log)", LOG_MISMATCH, str(exc))
        if mode is not None:
            _fail_absent_too_early(rolls, checks, mode)
    else:
        for index, entry in enumerate(rolls):
            check, head = check_roll(match_id, index, entry, head)
            checks.append(check)
    _fail_left_unresolved(rolls, checks)
    counts = None
    if version[0] == AUDIT_FORMAT_V2:
        counts = dict.fromkeys(GUARANTEES, 0)
        for check in checks:
            if check.verdict == "ok" and check.guarantee in counts:
                counts[check.guarantee] += 1
    failure = next((c for c in checks if c.failed), late)
    if failure is None:
        for published in (document.get("chain_head"), expected_head):
            if published is not None and published != head:
                detail = f"the rolls hash to chain head {head}, the published head is {published}"
                failure = RollCheck(len(checks), "(chain head)", CHAIN_BROKEN, detail)
                break
    return Report(match_id, tuple(checks), head, failure, counts, mode)


def _fail_left_unresolved(rolls: list, checks: list[RollCheck]) -> None:
    """Mark, in ``checks``, every roll of ``rolls`` but the last that passed its own checks
    and is still unresolved (:data:`UNRESOLVED_STATES`) as :data:`LEFT_UNRESOLVED`. The
    server starts a roll only once the one before it is played or void, so an honest record
    has one open roll at most, its last. A roll left ``requested`` with rolls after it is the
    "busy" reroll of a roll voided after its request without saying so: the roller's input
    (and with it, perhaps, the dice) had reached the server, which rolled again; left
    ``committed`` it may have been asked with the request unrecorded, left ``revealed`` its
    dice were known. Whatever the next roll's kind: a game that ends voids its open roll."""
    for index, (entry, check) in enumerate(zip(rolls[:-1], checks, strict=False)):
        state = entry.get("state") if isinstance(entry, dict) else None
        if check.failed or state not in UNRESOLVED_STATES:
            continue
        following = rolls[index + 1]
        after = following.get("roll_id") if isinstance(following, dict) else None
        detail = (
            f"the roll is still {state}, yet roll {after} (#{index + 1}) follows it: a new roll "
            "starts only once the one before it is played or void, so this one was left open "
            "after the server may have had its inputs, and rolled again"
        )
        checks[index] = RollCheck(index, check.roll_id, LEFT_UNRESOLVED, detail)


def _fail_void_after_request(rolls: list, checks: list[RollCheck]) -> None:
    """Mark, in ``checks``, every void v2 roll of ``rolls`` that passed its own checks, was
    requested (its hashed ``requested_at`` is set) and has a roll of the same game after it
    as :data:`VOID_AFTER_REQUEST`: after a ``normal`` roll, a ``normal`` roll next (the game
    went on; a next game begins with an ``opening`` roll); after an ``opening`` roll, any
    roll (no game ends before its opening roll is played). The server voids a requested roll
    only when its game or the match ends (a resignation accepted, a flag, a forfeit), so the
    next roll, if any, is the next game's ``opening``; ``kind`` is hashed, and a new game
    shows in the score. A void never requested (``requested_at`` null: the roll a late
    anchor voids and commits again) is not judged: no input had reached the server for it.

    "Requested" is the record's hashed ``requested_at``, as the record's ``state`` is what
    :data:`LEFT_UNRESOLVED` reads, not the log's leaves: a ``requested`` leaf of a roll
    without ``requested_at`` is a leaf whose ``at`` is no time of the record's, a
    :data:`LOG_MISMATCH` wherever the leaves are checked (``--log``, the server's verdict).
    """
    for index, (entry, check) in enumerate(zip(rolls, checks, strict=False)):
        if (
            check.failed
            or not isinstance(entry, dict)
            or entry.get("state") != "void"
            or entry.get("requested_at") is None
        ):
            continue
        for later, following in enumerate(rolls[index + 1:], start=index + 1):
            kind = following.get("kind") if isinstance(following, dict) else None
            if kind not in KINDS:
                continue  # an entry that cannot be read: its own verdict says so
            if entry.get("kind") == "normal" and kind == "opening":
                break  # the game ended with the void, and the next one began with this roll
            detail = (
                f"the roll was voided at {entry.get('voided_at')} after its request at "
                f"{entry.get('requested_at')}, yet roll {following.get('roll_id')} (#{later}, "
                f"{kind}) of the same game follows it: a requested roll is voided only when "
                "its game or the match ends, so the server dropped this one after the "
                "roller's input had reached it, and rolled again"
            )
            checks[index] = RollCheck(index, check.roll_id, VOID_AFTER_REQUEST, detail)
            break


def _fail_absent_too_early(rolls: list, checks: list[RollCheck], mode: Mode) -> None:
    """Mark, in ``checks``, every v2 roll of ``rolls`` that passed its own checks and was
    revealed without the opponent's link (``opponent_source`` ``absent``) less than
    ``mode.link_wait_ms`` after its request (``revealed_at`` − ``requested_at``, to the
    microsecond) as :data:`ABSENT_TOO_EARLY`; nothing where the match's leaf states no wait.
    The server reveals a roll without the link only once the wait its match's leaf states is
    over (``docs/fair-dice.md`` §The roll's life (v2), step 3): the opponent's device, which
    answers at once, had that long to send it."""
    if mode.link_wait_ms is None:
        return
    wait_us = mode.link_wait_ms * 1000
    for index, (entry, check) in enumerate(zip(rolls, checks, strict=False)):
        if check.failed or not isinstance(entry, dict) or entry.get("opponent_source") != "absent":
            continue
        asked, revealed = entry.get("requested_at"), entry.get("revealed_at")
        if not (isinstance(asked, str) and isinstance(revealed, str)
                and _is_record_time(asked) and _is_record_time(revealed)):
            continue  # a roll's own check fails a revealed v2 roll without both times
        waited = datetime.strptime(revealed, "%Y-%m-%dT%H:%M:%S.%fZ") - datetime.strptime(
            asked, "%Y-%m-%dT%H:%M:%S.%fZ")
        waited_us = (waited.days * 86400 + waited.seconds) * 1_000_000 + waited.microseconds
        if waited_us >= wait_us:
            continue
        detail = (
            f"the roll was revealed without the opponent's link at {revealed}, "
            f"{waited_us / 1_000_000:.6f} s after its request at {asked}; the public log's "
            f"entry {mode.index} states that the server waits {mode.wait_words} for the "
            "link in this match before it rolls without it, so it did not wait as it said"
        )
        checks[index] = RollCheck(index, check.roll_id, ABSENT_TOO_EARLY, detail)


def _against_log(document: dict, log_leaves: list[str]) -> RollCheck | None:
    """The first roll of a v2 ``document`` that the public log contradicts (``log_leaves``:
    the whole log up to the document's signed head, already found to make it), as a
    :data:`LOG_MISMATCH`, or ``None``. Every change of a v2 roll is a leaf: a roll's leaves
    begin with its commitment and the last names its state and entry hash now, so a roll
    rewritten and its chain re-hashed, or relabelled, no longer matches; the leaves are
    exactly its changes, each with its time and the entry hash of the roll as it stood then
    (:func:`roll_leaves_problem`), so the log and the record cannot show two times of one
    change, nor a field fixed at one change and another later; a roll with leaves that the
    document leaves out (its last, say) is found by its leaves."""
    match_id, rolls = document["match_id"], document["rolls"]
    logged: dict[str, list[tuple[int, dict]]] = {}  # roll ID -> its leaves, in log order
    for index, leaf in enumerate(log_leaves):
        try:
            fields = json.loads(leaf)
        except ValueError:
            continue
        if (
            isinstance(fields, dict)
            and fields.get("match_id") == match_id
            and fields.get("event") not in (ANCHOR_EVENT, MATCH_EVENT)
        ):
            logged.setdefault(str(fields.get("roll_id")), []).append((index, fields))
    for place, roll in enumerate(rolls):
        roll_id = str(roll.get("roll_id"))
        leaves = logged.pop(roll_id, [])
        if not leaves or leaves[0][1].get("event") != "committed":
            detail = "the public log holds no entry of its commitment; every change is logged"
            return RollCheck(place, roll_id, LOG_MISMATCH, detail)
        index, last = leaves[-1]
        if (last.get("event"), last.get("entry_hash")) != (roll.get("state"),
                                                            roll.get("entry_hash")):
            detail = (
                f"the public log's last entry of the roll ({index}) says {last.get('event')} "
                f"{last.get('entry_hash')}; the record says {roll.get('state')} "
                f"{roll.get('entry_hash')}"
            )
            return RollCheck(place, roll_id, LOG_MISMATCH, detail)
        problem = roll_leaves_problem(match_id, roll, leaves)
        if problem is None:
            # The entries the document lists for the roll are the log's, place for place.
            try:
                listed = _listed_leaves(roll) or []
            except ValueError as exc:
                return RollCheck(place, roll_id, LOG_MISMATCH, str(exc))
            if listed != [(index, log_leaves[index]) for index, _ in leaves]:
                problem = (
                    f"the document lists log entries {[index for index, _ in listed]} for roll "
                    f"{roll_id}; the log's of the roll are {[index for index, _ in leaves]}"
                    + (", with other leaves" if [i for i, _ in listed] == [i for i, _ in leaves]
                       else "")
                )
        if problem is not None:
            return RollCheck(place, roll_id, LOG_MISMATCH, problem)
    for roll_id, leaves in logged.items():
        index, fields = leaves[0]
        detail = (
            f"log entry {index} ({fields.get('event')} of roll {roll_id}, seq "
            f"{fields.get('seq')}) is not in the record"
        )
        return RollCheck(len(rolls), roll_id, LOG_MISMATCH, detail)
    return None


def _entries(entries: object, where: str) -> list[tuple[int, str]]:
    """Log entries as a document lists them (a roll's ``log``, ``log.anchors``; ``where`` names
    the list in messages), as ``(index, leaf)`` in the order listed.

    Raises:
        ValueError: not a list of entries (objects with an integer ``index`` >= 0 and a
            ``leaf`` string), or an entry's own ``event`` (repeated for reading) is not its
            leaf's.
    """
    if not isinstance(entries, list):
        raise ValueError(f"{where} is {type(entries).__name__}, not a list of log entries")
    listed = []
    for n, entry in enumerate(entries):
        index = entry.get("index") if isinstance(entry, dict) else None
        leaf = entry.get("leaf") if isinstance(entry, dict) else None
        if not isinstance(index, int) or isinstance(index, bool) or index < 0 or not isinstance(
                leaf, str):
            raise ValueError(f"{where}[{n}] is not a log entry (an integer index >= 0 and a "
                             f"leaf string): {str(entry)[:200]}")
        if isinstance(entry, dict) and "event" in entry:
            try:
                said = json.loads(leaf).get("event")
            except (ValueError, AttributeError):
                said = None
            if entry["event"] != said:
                raise ValueError(f"{where}[{n}] says {entry['event']!r}, its leaf {said!r}")
        listed.append((index, leaf))
    return listed


def _listed_leaves(roll: Mapping) -> list[tuple[int, str]] | None:
    """A roll's log entries as the document lists them (its ``log``, :func:`_entries`);
    ``None`` where it lists none (no ``log``).

    Raises:
        ValueError: ``log`` is not a list of entries.
    """
    entries = roll.get("log")
    return None if entries is None else _entries(entries, f"roll {roll.get('roll_id')}'s log")


def _against_listed(document: dict) -> RollCheck | None:
    """The first roll of a v2 ``document`` whose own listed log entries (``log``, where it
    lists any) are not its changes as :func:`roll_leaves_problem` reads them, as a
    :data:`LOG_MISMATCH`, or ``None``. Without the log itself (``--log``) these entries are
    the document's word, and their inclusion proofs are ``transparency.py``'s to check; but a
    record rewritten without its leaves (the roller's entropy changed and the chain
    re-hashed, say) contradicts the leaves it carries, each of which must name its roll. A
    roll that lists none is passed here: ``transparency.py`` and ``--log`` fail it (every v2
    roll is logged from its commitment), and without leaves :data:`CHAIN_SKIPPED` is judged
    by the times."""
    match_id = document["match_id"]
    for place, roll in enumerate(document["rolls"]):
        if not isinstance(roll, dict):
            continue
        roll_id = str(roll.get("roll_id"))
        try:
            listed = _listed_leaves(roll)
            if not listed:
                continue
            leaves = []
            for index, leaf in listed:
                fields = json.loads(leaf)
                if not isinstance(fields, dict):
                    raise ValueError(f"log entry {index} of roll {roll_id} is not a JSON object")
                named = {key: fields.get(key) for key in ("roll_id", "seq", "nonce", "seat",
                                                          "commitment")}
                if fields.get("match_id") != match_id or any(
                        roll.get(key) != value for key, value in named.items()):
                    raise ValueError(f"log entry {index}, listed for roll {roll_id}, names roll "
                                     f"{fields.get('roll_id')} (seq {fields.get('seq')}) of "
                                     f"match {fields.get('match_id')}")
                leaves.append((index, fields))
        except ValueError as exc:
            return RollCheck(place, roll_id, LOG_MISMATCH, str(exc))
        problem = roll_leaves_problem(match_id, roll, leaves)
        if problem is not None:
            return RollCheck(place, roll_id, LOG_MISMATCH, problem)
    return None


def roll_changes(entry: Mapping) -> list[str]:
    """The changes a v2 audit ``entry`` went through, in the order of its life, read from its
    times: ``committed``, then ``requested`` where it has ``requested_at``, ``revealed`` where
    it has ``revealed_at``, and ``played`` or ``void``. An honest log holds exactly one leaf
    per change, in this order (``docs/fair-dice.md`` §The record (v2), A roll's leaves)."""
    return [event for event, key in EVENT_TIMES.items() if entry.get(key) is not None]


def entry_after(entry: Mapping, event: str) -> dict:
    """The v2 audit ``entry`` as it stood right after its change ``event`` (one of
    :func:`roll_changes`): ``state`` that change, and the fields the later changes of its
    life set (:data:`CHANGE_FIELDS`) ``null``. Its :func:`entry_hash_v2` is what the change's
    leaf must carry as ``entry_hash``: the commitment's covers the link fixed for the roll
    (``opponent_prev_link``), the request's the roller's entropy, before the server's seed
    and the opponent's link are known.

    Raises:
        ValueError: ``event`` is not one of the entry's changes.
    """
    changes = roll_changes(entry)
    if event not in changes:
        raise ValueError(f"the entry has no change {event!r} (its changes: {changes})")
    stood = dict(entry, state=event)
    for later in changes[changes.index(event) + 1:]:
        stood.update(dict.fromkeys(CHANGE_FIELDS[later]))
    return stood


def roll_leaves_problem(
    match_id: str, entry: Mapping, leaves: Sequence[tuple[int, Mapping]]
) -> str | None:
    """Why the public log's ``leaves`` of a v2 roll (``(index, fields)`` in log order, its
    commitment's first) are not the changes of the audit ``entry``, or ``None``: there must
    be exactly one leaf per change, in the order of the roll's life (:func:`roll_changes`;
    a leaf left out, repeated or out of order would hide where a request or a reveal
    happened), each with the record's time of its change in ``at``
    (:func:`leaf_time_problem`), and each leaf's ``entry_hash`` must be the hash of the entry
    as it stood after that change (:func:`entry_after`): a field fixed by then (the link due,
    the roller's entropy) and changed afterwards, the chain re-hashed, no longer matches the
    leaf written when it was fixed."""
    roll_id = entry.get("roll_id")
    events = [fields.get("event") for _, fields in leaves]
    changes = roll_changes(entry)
    if events != changes:
        return (
            f"the log entries of roll {roll_id} say {', '.join(map(str, events))}; "
            f"its record's changes are {', '.join(changes)}: every change is one entry, in "
            "the order of the roll's life"
        )
    for index, fields in leaves:
        problem = leaf_time_problem(entry, fields, index)
        if problem is not None:
            return problem
        event = str(fields.get("event"))
        try:
            expected = entry_hash_v2(match_id, entry_after(entry, event))
        except (KeyError, TypeError, ValueError) as exc:
            return f"roll {roll_id} cannot be hashed as it stood after its {event} change: {exc}"
        if fields.get("entry_hash") != expected:
            return (
                f"log entry {index} ({event} of roll {roll_id}) has entry hash "
                f"{fields.get('entry_hash')}; the record's entry as it stood after that "
                f"change hashes to {expected}: a field fixed by then was changed afterwards"
            )
    return None


def leaf_time(record_time: str) -> str:
    """The public log's spelling of a v2 record time (``docs/fair-dice.md`` §The record (v2),
    Times in the log): ``YYYY-MM-DDTHH:MM:SS.ffffffZ`` becomes ``YYYY-MM-DDTHH:MM:SS.ffffff+00:00``,
    and ``YYYY-MM-DDTHH:MM:SS+00:00`` where ``ffffff`` is ``000000``. A leaf's ``at`` must be
    exactly this text of the record's time of its change; nothing is parsed or rounded.

    Raises:
        ValueError: ``record_time`` is not a record time as the spec writes it.
    """
    if not _is_record_time(record_time):
        raise ValueError(f"{record_time!r} is not a time YYYY-MM-DDTHH:MM:SS.ffffffZ")
    seconds, fraction = record_time[:19], record_time[20:26]
    return f"{seconds}+00:00" if fraction == "000000" else f"{seconds}.{fraction}+00:00"


def leaf_time_problem(roll: Mapping, fields: Mapping, index: object) -> str | None:
    """Why the leaf ``fields`` (the public log's entry ``index`` of the v2 audit entry
    ``roll``) does not carry the record's time of its change in ``at``
    (:func:`leaf_time`), or ``None``."""
    event = fields.get("event")
    key = EVENT_TIMES.get(str(event))
    if key is None:
        return f"log entry {index} of roll {roll.get('roll_id')} says {event!r}, no state"
    recorded = roll.get(key)
    try:
        expected = leaf_time(recorded) if isinstance(recorded, str) else None
    except ValueError:
        expected = None
    if fields.get("at") != expected:
        return (
            f"log entry {index} ({event} of roll {roll.get('roll_id')}) is at "
            f"{fields.get('at')!r}; the record's {key} is {recorded!r}"
            + (f", in the log {expected!r}" if expected is not None else "")
        )
    return None


def _anchors(document: dict) -> list[str | None]:
    anchors = document.get("anchors")
    if (
        not isinstance(anchors, list)
        or len(anchors) != 2
        or not all(
            a is None or (isinstance(a, str) and len(bytes.fromhex(a)) == LINK_BYTES)
            for a in anchors
        )
    ):
        raise ValueError(
            f"anchors must be a list of two 64-hex-digit strings or nulls, got {anchors!r}"
        )
    return [a.lower() if a else None for a in anchors]


@dataclass(frozen=True)
class Anchor:
    """A seat's chain anchor as the public log shows it accepted: ``anchor`` (64 hex), ``at``
    (ISO 8601 with offset) and ``index``, its leaf's place in the log."""

    seat: int
    anchor: str
    at: str
    index: int


def logged_anchors(document: dict, log_leaves: list[str] | None = None) -> list[Anchor | None]:
    """Each seat's accepted anchor (the first, should there be more) from the public log's
    anchor leaves of the document's match (``docs/fair-dice.md`` §The public log): those the
    document lists in ``log.anchors`` and, when ``log_leaves`` (the whole log up to the
    document's signed head) is given, every one there; ``None`` for a seat with none.

    With ``log_leaves`` each entry of the document's own list must be the log's leaf at its
    place (that none is left out is :func:`_anchors_left_out`'s).

    Raises:
        ValueError: the leaves do not make the signed head's tree, ``log.anchors`` is not a
            list of log entries, a listed entry is no anchor leaf of the match or (with
            ``log_leaves``) the list is not the log's, or an anchor leaf of the match cannot
            be read.
    """
    log = document.get("log")
    if log is not None and not isinstance(log, dict):
        raise ValueError(f"the document's log is {type(log).__name__}, not an object")
    log = log or {}
    listed = _entries(log.get("anchors") or [], "log.anchors")
    for n, (index, leaf) in enumerate(listed):
        try:
            fields = json.loads(leaf)
        except ValueError:
            fields = None
        if (not isinstance(fields, dict) or fields.get("event") != ANCHOR_EVENT
                or fields.get("match_id") != document["match_id"]):
            raise ValueError(f"log.anchors[{n}] (log entry {index}) is no chain anchor of this "
                             "match")
    if log_leaves is None:
        found = listed
    else:
        head = log.get("head") or {}
        size = head.get("tree_size")
        if size != len(log_leaves) or _log_root(log_leaves).hex() != head.get("root_hash"):
            raise ValueError(
                f"the {len(log_leaves)} leaves read do not make the signed head of size "
                f"{size} (its root {head.get('root_hash')})"
            )
        for index, leaf in listed:
            if not 0 <= index < size or log_leaves[index] != leaf:
                raise ValueError(f"the document's anchor leaf {index} is not the log's")
        found = list(enumerate(log_leaves))
    anchors: list[Anchor | None] = [None, None]
    for index, leaf in sorted(found):
        try:
            fields = json.loads(leaf)
        except ValueError:
            continue  # no leaf of this log is anything but JSON; the root check holds them
        if (
            not isinstance(fields, dict)
            or fields.get("event") != ANCHOR_EVENT
            or fields.get("match_id") != document["match_id"]
        ):
            continue
        seat, anchor, at = fields.get("seat"), fields.get("anchor"), fields.get("at")
        if (
            not _is_int(seat)
            or seat not in (0, 1)
            or not isinstance(anchor, str)
            or len(bytes.fromhex(anchor)) != LINK_BYTES
            or not isinstance(at, str)
        ):
            raise ValueError(f"the anchor leaf {index} cannot be read: {leaf[:200]}")
        if anchors[seat] is None:
            anchors[seat] = Anchor(seat, anchor.lower(), at, index)
    return anchors


def _anchors_left_out(document: dict, log_leaves: list[str]) -> str | None:
    """Why the anchor leaves a v2 ``document`` lists (``log.anchors``, already found to be the
    log's at their places by :func:`logged_anchors`) are not all the match's anchor leaves in
    ``log_leaves``, or ``None``: one left out of the list is as much a log mismatch as a roll's
    leaf left out (``transparency.py --scan`` fails both)."""
    log = document.get("log") or {}
    listed = [entry["index"] for entry in log.get("anchors") or []]
    of_match = []
    for index, leaf in enumerate(log_leaves):
        try:
            fields = json.loads(leaf)
        except ValueError:
            continue
        if (isinstance(fields, dict) and fields.get("event") == ANCHOR_EVENT
                and fields.get("match_id") == document["match_id"]):
            of_match.append(index)
    if listed == of_match:
        return None
    return f"the document lists anchor leaves {listed}; the log's of the match are {of_match}"


@dataclass(frozen=True)
class Mode:
    """How a v2 match is played, as the public log states it in the leaf logged with its first
    roll (``docs/fair-dice.md`` §The public log, Match leaf): ``mode`` (one of :data:`MODES`),
    ``at`` (ISO 8601 with offset), ``index``, the leaf's place in the log, ``proven``:
    whether it was read from the log itself (``--log``) rather than from the document's list,
    whose inclusion proof ``transparency.py`` checks, and ``link_wait_ms``: the server's wait
    for the opponent's link in whole milliseconds, ``None`` where the leaf states none (a
    correspondence match, which waits for no link, or a leaf from before 2026-12-05's wait)."""

    mode: str
    at: str
    index: int
    proven: bool = False
    link_wait_ms: int | None = None

    @property
    def words(self) -> str:
        """The mode in words: ``a live match``, ``a correspondence match``, ``a match against
        the computer``."""
        return {"computer": "a match against the computer"}.get(self.mode, f"a {self.mode} match")

    @property
    def wait_words(self) -> str:
        """The stated wait in words: ``3 s``, ``2.5 s``, ``250 ms``; ``""`` where none is
        stated."""
        if self.link_wait_ms is None:
            return ""
        if self.link_wait_ms < 1000:
            return f"{self.link_wait_ms} ms"
        return f"{self.link_wait_ms / 1000:g} s"


def _listed_mode(document: dict) -> tuple[int, str] | None:
    """The document's ``log.match`` as ``(index, leaf)``, ``None`` where it lists none.

    Raises:
        ValueError: it is not a log entry (an object with an integer ``index`` >= 0 and a
            ``leaf`` string).
    """
    log = document.get("log")
    listed = log.get("match") if isinstance(log, dict) else None
    if listed is None:
        return None
    if not isinstance(listed, dict):
        raise ValueError(f"log.match is {type(listed).__name__}, not a log entry (an object)")
    index, leaf = listed.get("index"), listed.get("leaf")
    if not isinstance(index, int) or isinstance(index, bool) or index < 0:
        raise ValueError(f"log.match.index is {index!r}, not a leaf's index (an integer >= 0)")
    if not isinstance(leaf, str):
        raise ValueError(f"log.match.leaf is {leaf!r}, not a leaf (a string)")
    if listed.get("event", MATCH_EVENT) != MATCH_EVENT:  # repeated for reading: the leaf's
        raise ValueError(f"log.match says {listed['event']!r}; a match leaf is "
                         f"{MATCH_EVENT!r}")
    return index, leaf


def logged_mode(document: dict, log_leaves: list[str] | None = None) -> Mode | None:
    """The mode of the document's match from the public log's first leaf that states it: the
    one the document lists in ``log.match`` or, when ``log_leaves`` (the whole log up to the
    document's signed head, already found to make it) is given, the first one there, which
    the listed one, if any, must be (``proven``); ``None`` where there is none (a match from
    before 2026-12-05, or one with no roll yet).

    Raises:
        ValueError: the listed entry is malformed or not the log's first of the match's mode,
            or a leaf of the match's mode cannot be read.
    """
    listed = _listed_mode(document)
    if log_leaves is None:
        found = [] if listed is None else [listed]
    else:
        found = list(enumerate(log_leaves))
    for index, leaf in found:
        try:
            fields = json.loads(leaf)
        except ValueError:
            if log_leaves is None:
                raise ValueError(f"log.match.leaf is not JSON: {leaf[:200]!r}") from None
            continue
        if (
            not isinstance(fields, dict)
            or fields.get("event") != MATCH_EVENT
            or fields.get("match_id") != document.get("match_id")
        ):
            if log_leaves is None:
                raise ValueError(f"the document's log entry {index} listed as the match's mode "
                                 "is no statement of this match's mode")
            continue
        mode, at, wait = fields.get("mode"), fields.get("at"), fields.get("link_wait_ms")
        if mode not in MODES or not isinstance(at, str):
            raise ValueError(f"log entry {index}, the match's mode, cannot be read: {leaf[:200]}")
        if "link_wait_ms" in fields and not (isinstance(wait, int) and _is_int(wait)
                                             and wait >= 0):
            raise ValueError(f"log entry {index}, the match's mode, states the link wait "
                             f"{json.dumps(wait)}, not whole milliseconds (an integer >= 0)")
        if "link_wait_ms" in fields and mode == "correspondence":
            raise ValueError(f"log entry {index} states a link wait for a correspondence "
                             "match, whose turns wait for no link")
        if "link_wait_ms" not in fields and mode != "correspondence" and _from(at, index):
            raise ValueError(f"log entry {index}, the match's mode, logged at {at}, states no "
                             "wait for the opponent's link; every live match's leaf logged "
                             f"since {WAIT_STATED_FROM} states it")
        if log_leaves is not None and listed is not None and listed[0] != index:
            raise ValueError(f"the document lists log entry {listed[0]} as the match's mode; "
                             f"the log's first is entry {index}")
        if log_leaves is not None and listed is not None and listed[1] != leaf:
            raise ValueError(f"the document's log entry {index}, the match's mode, is not the "
                             f"log's entry {index}")
        if log_leaves is not None and listed is None:
            raise ValueError(f"the document lists no log entry of the match's mode; the "
                             f"log's is entry {index}")
        return Mode(str(mode), at, index, proven=log_leaves is not None, link_wait_ms=wait)
    if log_leaves is not None and listed is not None:
        raise ValueError(f"the document lists log entry {listed[0]} as the match's mode; the "
                         "log has none")
    return None


def _from(at: str, index: object) -> bool:
    """Whether a match leaf's ``at`` (ISO 8601 with offset) is at or after
    :data:`WAIT_STATED_FROM`.

    Raises:
        ValueError: ``at`` is no such time (the leaf cannot be read).
    """
    try:
        return datetime.fromisoformat(at) >= datetime.fromisoformat(WAIT_STATED_FROM)
    except (TypeError, ValueError):
        raise ValueError(f"log entry {index}, the match's mode, is at {at!r}, no time with "
                         "its offset") from None


def request_places(document: dict, log_leaves: list[str] | None = None) -> dict[str, int]:
    """Where in the public log each roll of a v2 ``document`` was requested: roll ID → the
    place of its first leaf after its commitment's (its ``requested`` leaf in an honest log;
    a log that leaves that one out gives the later leaf that follows, and fails
    :func:`roll_leaves_problem`), from ``log_leaves``
    (the whole log) when given, else from each roll's ``log`` in the document; a roll with no
    such leaf there is left out. Leaves that cannot be read are passed over (the log's own
    checks name them). :data:`CHAIN_SKIPPED` compares these places with the anchor leaves'."""
    if log_leaves is not None:
        found: Iterable[tuple[object, object]] = enumerate(log_leaves)
    else:
        found = (
            (entry.get("index"), entry.get("leaf"))
            for roll in document.get("rolls") or []
            if isinstance(roll, dict) and isinstance(roll.get("log"), list)
            for entry in roll["log"]
            if isinstance(entry, dict)
        )
    places: dict[str, int] = {}
    for index, leaf in found:
        try:
            fields = json.loads(leaf) if isinstance(leaf, str) else None
        except ValueError:
            continue
        if (
            isinstance(index, int)
            and not isinstance(index, bool)
            and isinstance(fields, dict)
            and fields.get("match_id") == document.get("match_id")
            and fields.get("event") not in (ANCHOR_EVENT, "committed")
            and isinstance(fields.get("roll_id"), str)
        ):
            roll_id = fields["roll_id"]
            places[roll_id] = min(places.get(roll_id, index), index)
    return places


def _log_root(leaves: list[str]) -> bytes:
    """The RFC 9162 root of the public log's ``leaves`` (a leaf's hash ``SHA-256(0x00 ||
    leaf)``, a node's ``SHA-256(0x01 || left || right)``), folded left to right over a stack of
    complete subtrees. The log's checker (``transparency.py``) has the RFC's recursive
    definition; this copy keeps the verifier one file, and the tests check that they agree."""
    stack: list[tuple[int, bytes]] = []  # (leaves covered, hash), sizes falling
    for leaf in leaves:
        size, node = 1, hashlib.sha256(b"\x00" + leaf.encode()).digest()
        while stack and stack[-1][0] == size:
            left_size, left = stack.pop()
            size, node = left_size + size, hashlib.sha256(b"\x01" + left + node).digest()
        stack.append((size, node))
    if not stack:
        return hashlib.sha256().digest()
    root = stack.pop()[1]
    while stack:
        root = hashlib.sha256(b"\x01" + stack.pop()[1] + root).digest()
    return root


def _open(request: urllib.request.Request | str, timeout: float) -> http.client.HTTPResponse:
    """``urlopen`` whose failures read in words: an HTTP error status with the API's error
    code and message where the answer has them (``docs/api.md`` §Errors), not the body;
    no answer with its reason, not ``<urlopen error …>``. (verify.py and transparency.py are
    each downloaded and run alone, so each has its own copy, as the witness has its own.)

    Raises:
        OSError: no answer, or an HTTP error status.
    """
    url = request if isinstance(request, str) else request.full_url
    try:
        return urllib.request.urlopen(request, timeout=timeout)  # noqa: S310
    except urllib.error.HTTPError as exc:
        said = f"the server answered HTTP {exc.code} {exc.reason}".rstrip()
        try:
            error = json.loads(exc.read(4096))["error"]
            said += f": {error['code']}: {error['message']}"
        except (OSError, http.client.HTTPException, ValueError, RecursionError, KeyError,
                TypeError):
            pass
        raise OSError(said) from None
    except urllib.error.URLError as exc:
        raise OSError(f"no answer from {url.split('/')[2] if '//' in url else url}: "
                      f"{getattr(exc.reason, 'strerror', None) or exc.reason}") from None


def log_leaves(audit_url: str, tree_size: int, timeout: float = 30.0) -> list[str]:
    """The public log's leaves 0 … ``tree_size - 1`` from the server that serves ``audit_url``
    (``GET /api/log/entries``, 1000 at a time).

    Raises:
        OSError: the log cannot be read.
    """
    base = audit_url.split("/api/audit/", 1)[0]
    leaves: list[str] = []
    while len(leaves) < tree_size:
        count = min(1000, tree_size - len(leaves))
        url = f"{base}/api/log/entries?start={len(leaves)}&count={count}"
        with _open(url, timeout) as answer:
            page = json.loads(answer.read().decode("utf-8"))
        if not page:
            break
        leaves.extend(entry["leaf"] for entry in page)
    return leaves


def _head_size(document: object) -> int:
    """The tree size of the audit document's signed head (``log.head.tree_size``).

    Raises:
        ValueError: the document has no signed head with an integer size >= 0.
    """
    if not isinstance(document, dict):
        raise ValueError(f"not an audit document: a JSON object, got {type(document).__name__}")
    log = document.get("log")
    head = log.get("head") if isinstance(log, dict) else None
    size = head.get("tree_size") if isinstance(head, dict) else None
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        raise ValueError(f"the document has no signed head to read the log up to "
                         f"(log.head.tree_size is {size!r})")
    return size


def entries_file_leaves(path: str, tree_size: int) -> list[str]:
    """The leaves 0 … ``tree_size - 1`` of a JSON file of the public log's entries
    (``[{"index", "leaf"}, …]`` from index 0, as ``GET /api/log/entries?start=0&count=…``
    serves them page by page; a file saved later holds more, and the log only grows, so its
    first ``tree_size`` are the head's).

    Raises:
        OSError: the file cannot be read. ValueError: it is not such a list, its entries are
            not numbered 0, 1, … or it holds fewer than ``tree_size``.
    """
    with open(path, encoding="utf-8") as handle:
        entries = json.load(handle)
    if not isinstance(entries, list):
        raise ValueError(f"the file holds {type(entries).__name__}, not a list of the log's "
                         'entries ([{"index", "leaf"}, ...])')
    leaves = []
    for place, entry in enumerate(entries[:tree_size]):
        index = entry.get("index") if isinstance(entry, dict) else None
        leaf = entry.get("leaf") if isinstance(entry, dict) else None
        if not (isinstance(index, int) and not isinstance(index, bool) and index == place
                and isinstance(leaf, str)):
            raise ValueError(f"entry {place} of the file is not the log's entry {place} "
                             f'(an object with "index": {place} and a "leaf" string): '
                             f"{str(entry)[:200]}")
        leaves.append(leaf)
    if len(leaves) < tree_size:
        raise ValueError(f"the file holds {len(leaves)} entries; the document's signed head "
                         f"has {tree_size}")
    return leaves


def load_document(source: str, timeout: float = 30.0) -> dict:
    """Read an audit document from a file path, ``-`` (standard input) or an http(s) URL.

    Raises:
        OSError: the file or URL cannot be read. ValueError: it is not JSON (a URL of a web
        page, such as the audit page ``/audit/mat_…``, is named as such).
    """
    if source == "-":
        return json.load(sys.stdin)
    if source.startswith(("http://", "https://")):
        request = urllib.request.Request(source, headers={"Accept": "application/json"})
        with _open(request, timeout) as response:
            kind = response.headers.get_content_type()
            if kind == "text/html":
                raise ValueError(
                    "this URL is a web page, not an audit document; "
                    "the JSON of a match's dice record is at /api/audit/MATCH_ID"
                )
            if kind == "text/x-python":
                raise ValueError(
                    "this URL is a program (run it: python3 FILE); "
                    "the JSON of a match's dice record is at /api/audit/MATCH_ID"
                )
            return json.loads(response.read().decode("utf-8"))
    with open(source, encoding="utf-8") as handle:
        return json.load(handle)


def shown_verdict(check: RollCheck) -> str:
    """A roll's verdict as its row shows it: an ``ok`` v2 roll whose guarantee is the weaker
    one (:data:`WEAKER_GUARANTEES`) says which, e.g. ``ok (opponent absent: server + roller
    inputs only)``; a roll with both players' inputs (or the computer's with the human's
    link) shows ``ok`` alone."""
    note = WEAKER_GUARANTEES.get(check.guarantee or "") if check.verdict == "ok" else None
    return f"{check.verdict} ({note})" if note else check.verdict


def format_report(report: Report) -> list[str]:
    """Lines describing a report for people: one per roll, then (v2, when the record verifies)
    the match's mode where the public log states it, and how many rolls give each guarantee
    (:data:`GUARANTEE_COUNTS`, each kind the match has, as the audit page lists them), then the
    outcome."""
    lines = [f"{report.match_id}: {len(report.checks)} roll(s)"]
    lines += [f"  {c.index:>4}  {c.roll_id}  {shown_verdict(c)}" for c in report.checks]
    if report.failure is None:
        if report.mode is not None and report.mode.proven:
            lines.append(f"It is {report.mode.words}, as the public log states (entry "
                         f"{report.mode.index}, {report.mode.at})")
        elif report.mode is not None:
            lines.append(f"It is {report.mode.words}, as the document's log entry "
                         f"{report.mode.index} says ({report.mode.at}; that the log holds it: "
                         "transparency.py, or this with --log)")
        if report.mode is not None and report.mode.link_wait_ms is not None:
            lines.append(f"Its server waits {report.mode.wait_words} for the opponent's link "
                         "before it rolls without it, as the same entry states; every roll "
                         "without the link waited at least that long")
        if report.counts is not None:
            lines.append(f"{GUARANTEES_TITLE}:")
            lines += [f"  {GUARANTEE_COUNTS[kind].format(count=report.counts[kind])}"
                      for kind in GUARANTEES if report.counts.get(kind)]
        lines.append(f"OK: every revealed roll verifies; chain head {report.chain_head}")
    else:
        f = report.failure
        # A failure of the record as a whole (the public log, the anchors, the chain head)
        # names no roll of the record.
        where = f.roll_id if f.roll_id.startswith("(") else f"roll {f.roll_id} (#{f.index})"
        lines.append(f"FAIL: {where}: {f.verdict}: {f.detail}")
    return lines


def head_argument_error(head: str) -> str | None:
    """Why ``head`` cannot be a chain head (64 hex digits), as one line naming ``--head``;
    ``None`` when it can. A malformed head is an argument error (exit status 2), not a chain
    that fails to match it (``chain broken``, 1)."""
    if len(head) == 2 * 32 and all(c in "0123456789abcdefABCDEF" for c in head):
        return None
    shown = repr(head) if len(head) <= 80 else f"{head[:77]!r}…"
    return (f"argument --head: expected the chain head published at the end of the match, "
            f"64 hex digits; got {shown} ({len(head)} characters)")


def log_argument_error(source: str) -> str:
    """Why ``--log`` without an entries file cannot be used with ``source``, a file or ``-``
    (standard input), as one line naming ``--log``: it reads the log from the server of an
    http(s) source, and a file has no server."""
    given = "standard input" if source == "-" else repr(source)
    return (f"argument --log: needs the log's entries file (--log ENTRIES_FILE: a JSON list "
            f"of the log's entries from index 0, as GET /api/log/entries?start=0&count=N "
            f"serves them, N at most 1000 a page) or an http(s) URL as the source, whose "
            f"server's log it then reads; the source is {given}")


def run(
    source: str, expected_head: str | None = None, out=print, log: str | None = None,
    usage=None,
) -> int:
    """Load, verify and print; return the exit status (0 verified, 1 a roll fails, 2 unreadable,
    an ``expected_head`` that is no chain head, :func:`head_argument_error`, or ``log`` ``""``
    with a source that is no URL, :func:`log_argument_error`; those two go to ``usage``,
    ``out`` when not given).

    ``log``: where to read the whole public log up to the document's signed head, to find
    every anchor leaf of the match (:func:`verify_document`): ``""`` from the server of the
    ``source`` URL, else a JSON file of its entries (``[{"index", "leaf"}, …]`` from index 0,
    as ``GET /api/log/entries`` serves them)."""
    if expected_head is not None:
        error = head_argument_error(expected_head)
        if error is not None:
            (usage or out)(error)
            return 2
        expected_head = expected_head.lower()  # the record's hex is lowercase
    if log == "" and not source.startswith(("http://", "https://")):
        # Not the document's fault: nothing names where the log's entries are.
        (usage or out)(log_argument_error(source))
        return 2
    try:
        document = load_document(source)
    except (OSError, ValueError, KeyError, TypeError, RecursionError) as exc:
        # RecursionError: JSON nested too deeply for the parser.
        out(f"cannot read an audit document from {source}: {exc}")
        return 2
    leaves = None
    if log is not None:
        try:
            size = _head_size(document)
        except ValueError as exc:  # the document's fault, not the entries'
            out(f"cannot read an audit document from {source}: {exc}")
            return 2
        try:
            leaves = (log_leaves(source, size) if log == ""
                      else entries_file_leaves(log, size))
        except (OSError, ValueError, RecursionError) as exc:
            out(f"cannot read the public log's entries from {log or source}: {exc}")
            return 2
    try:
        report = verify_document(document, expected_head, leaves)
    except (ValueError, KeyError, TypeError) as exc:
        out(f"cannot read an audit document from {source}: {exc}")
        return 2
    for line in format_report(report):
        out(line)
    if leaves is not None and report.ok:
        out(f"every roll and chain anchor of the match among the log's {len(leaves)} entries "
            "is in the record as logged")
    return 0 if report.ok else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Verify a Boardgammon dice audit document.")
    parser.add_argument("source", help="audit JSON file, '-' for stdin, or an http(s) URL")
    parser.add_argument(
        "--head",
        metavar="CHAIN_HEAD",
        help="the chain head published at the end of the match (64 hex digits)",
    )
    parser.add_argument(
        "--log",
        nargs="?",
        const="",
        metavar="ENTRIES_FILE",
        help="v2: also read the whole public log up to the document's signed head (from the "
        "source URL's server, or a JSON file of its entries from index 0) and check that the "
        "document's rolls, chain anchors and mode are the log's, every change of every roll "
        "as logged, and every chain anchor registered for the match in the record, its links "
        "used",
    )
    args = parser.parse_args(argv)
    # A malformed --head: one line on standard error, as a usage error (exit status 2).
    return run(args.source, args.head, log=args.log,
               usage=lambda line: print(line, file=sys.stderr))


if __name__ == "__main__":
    sys.exit(main())
