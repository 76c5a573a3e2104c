"""Boardgammon's provably fair dice: the derivation, the record's hash chain, and a verifier.

This module imports only the Python standard library, so it can be copied out of the package
and run alone::

    python3 verify.py audit.json                      # or an https://…/api/audit/mat_… URL
    python3 verify.py audit.json --head <chain head>  # also compare with the published head

It exits 0 when every revealed roll matches its commitment and its dice and the hash chain is
intact, 1 naming the first roll that fails and why (``seed missing``, ``commitment mismatch``,
``dice mismatch``, ``chain broken``, or ``malformed`` for an entry that cannot be read), and 2
when the document cannot be loaded.

The specification, with test vectors, is ``docs/fair-dice.md`` (version ``boardgammon-dice-v1``).
Public and stable: :func:`derive_dice` and :func:`commitment`.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import sys
import urllib.request
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

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

SEED_MISSING = "seed missing"
COMMITMENT_MISMATCH = "commitment mismatch"
DICE_MISMATCH = "dice mismatch"
CHAIN_BROKEN = "chain broken"
MALFORMED = "malformed"


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


_BYTES = (bytes, bytearray)


def _require_length(name: str, value: bytes, length: int) -> None:
    if not isinstance(value, _BYTES) or len(value) != length:
        size = len(value) if isinstance(value, _BYTES) else type(value).__name__
        raise ValueError(f"{name} must be {length} bytes, got {size}")


@dataclass(frozen=True)
class RollCheck:
    """The verdict on one roll of an audit document.

    ``verdict`` is ``"ok"``, ``"pending"`` (committed, not yet revealed), ``"never revealed"``
    (void: the match moved on or ended), or a failure reason (one of the module's reason strings);
    ``detail`` says what differed.
    """

    index: int
    roll_id: str
    verdict: str
    detail: str = ""

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


def verify_document(document: dict, expected_head: str | None = None) -> Report:
    """Verify an audit document (``GET /api/audit/{match_id}``): every roll and the hash chain.

    Args:
        document: the parsed JSON, format ``boardgammon-audit-v1``.
        expected_head: the chain head published at the end of the match, if the caller has it;
            the recomputed head must equal it.

    Raises:
        ValueError: the document is not an audit document of a known format.
    """
    if not isinstance(document, dict):
        raise ValueError(f"not an audit document: a JSON object, got {type(document).__name__}")
    if document.get("format") != AUDIT_FORMAT or document.get("dice_spec") != DICE_SPEC:
        raise ValueError(
            f"not a {AUDIT_FORMAT} document with dice spec {DICE_SPEC}: "
            f"format {document.get('format')!r}, dice_spec {document.get('dice_spec')!r}"
        )
    match_id, rolls = document["match_id"], document["rolls"]
    if not isinstance(rolls, list):
        raise ValueError(f"not an audit document: rolls is a {type(rolls).__name__}, not a list")
    checks: list[RollCheck] = []
    head = GENESIS
    for index, entry in enumerate(rolls):
        check, head = check_roll(match_id, index, entry, head)
        checks.append(check)
    failure = next((c for c in checks if c.failed), None)
    if failure is None:
        for published in (document.get("chain_head"), expected_head):
            if published is not None and published != head:
                detail = f"the rolls hash to chain head {head}, the published head is {published}"
                failure = RollCheck(len(checks), "(chain head)", CHAIN_BROKEN, detail)
                break
    return Report(match_id, tuple(checks), head, failure)


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
        with urllib.request.urlopen(request, timeout=timeout) as response:
            if response.headers.get_content_type() == "text/html":
                raise ValueError(
                    "this URL is a web page, not an audit document; "
                    "the JSON of a match's dice record is at /api/audit/MATCH_ID"
                )
            return json.loads(response.read().decode("utf-8"))
    with open(source, encoding="utf-8") as handle:
        return json.load(handle)


def format_report(report: Report) -> list[str]:
    """Lines describing a report for people: one per roll, then the outcome."""
    lines = [f"{report.match_id}: {len(report.checks)} roll(s)"]
    lines += [f"  {c.index:>4}  {c.roll_id}  {c.verdict}" for c in report.checks]
    if report.failure is None:
        lines.append(f"OK: every revealed roll verifies; chain head {report.chain_head}")
    else:
        f = report.failure
        lines.append(f"FAIL: roll {f.roll_id} (#{f.index}): {f.verdict}: {f.detail}")
    return lines


def run(source: str, expected_head: str | None = None, out=print) -> int:
    """Load, verify and print; return the exit status (0 verified, 1 a roll fails, 2 unreadable)."""
    try:
        report = verify_document(load_document(source), expected_head)
    except (OSError, ValueError, KeyError, TypeError, RecursionError) as exc:
        # RecursionError: JSON nested too deeply for the parser.
        out(f"cannot read an audit document from {source}: {exc}")
        return 2
    for line in format_report(report):
        out(line)
    return 0 if report.ok else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Verify a Boardgammon dice audit document.")
    parser.add_argument("source", help="audit JSON file, '-' for stdin, or an http(s) URL")
    parser.add_argument("--head", help="the chain head published at the end of the match")
    args = parser.parse_args(argv)
    return run(args.source, args.head)


if __name__ == "__main__":
    sys.exit(main())
