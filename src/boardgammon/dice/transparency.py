"""The dice record's public append-only log: a Merkle tree as RFC 9162 (Certificate
Transparency 2.0) §2.1 defines it, its signed tree heads, and a checker.

This module imports only the Python standard library (Ed25519 signatures are checked with the
``cryptography`` package when it is installed, and by RFC 8032's arithmetic written out here
when it is not), so it can be copied out of the package and run alone::

    python3 transparency.py audit.json     # or an https://…/api/audit/mat_… URL
    python3 transparency.py --scan https://…/api/audit/mat_…   # against the newest head
    python3 transparency.py https://…/api/audit/mat_…/rolls/rol_…/proof   # one roll

It checks every log entry of the audit document: its leaf names the roll it stands beside and
its inclusion proof leads to the signed head's root, whose signature it checks. The rules are
those of the record the document's fields are of (v1 or v2), never of its label alone: a
label its fields contradict is refused. ``--scan`` also fetches the server's newest signed
head, checks that the same key signed it and that it extends the document's head (a
consistency proof), and reads the log up to it for any change of the match that the document
leaves out.

It does not check the dice or the record's hashes (the hash chain): a document whose dice
were rewritten, its leaves and proofs left as they were, passes it. ``verify.py`` checks
those, and a check that holds ends with a line that says so and gives its command.

Exit status: 0 when all hold; 1 when a check fails (``FAILED:`` and the first failure, on
standard output); 2, with a line on standard error, when the input is not one it reads (a
document that cannot be loaded or is not JSON, JSON that is not an object, a format it does
not know, labels that its fields contradict, a field missing or malformed) or, with
``--scan``, when the server's log cannot be read.

Hashes are SHA-256. A leaf's hash is ``SHA-256(0x00 || leaf)``, an inner node's
``SHA-256(0x01 || left || right)``, the hash of an empty tree ``SHA-256()`` (RFC 9162
§2.1.1). Proofs are lists of 32-byte hashes in the order RFC 9162 §2.1.3 and §2.1.4 give them.
The specification of the leaves and heads, with test vectors, is ``docs/fair-dice.md``
§The public log.
"""

from __future__ import annotations

import argparse
import hashlib
import http.client
import json
import shlex
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

LOG_FORMAT = "boardgammon-log-v1"
HEAD_FORMAT = "boardgammon-log-head-v1"
COSIGNATURE_FORMAT = "boardgammon-log-cosignature-v1"
PROOF_FORMAT = "boardgammon-roll-proof-v1"  # one roll's proof (GET …/rolls/{roll_id}/proof)
HASH_BYTES = 32
EVENTS = ("committed", "requested", "revealed", "played", "void")  # requested: v2 only
ANCHOR_EVENT = "anchor"  # a seat's hash-chain anchor registered for a match (v2 dice)
MATCH_EVENT = "match"  # how a v2 match is played, logged with its first roll's commitment
MODES = ("live", "correspondence", "computer")
# A live (or computer) match's leaf logged at or after this time states ``link_wait_ms``
# (docs/fair-dice.md §The public log, Match leaf); leaves from before stay valid without it.
WAIT_STATED_FROM = "2026-12-06T00:00:00+00:00"

# What each record's documents hold that no other record's do (``docs/fair-dice.md``): their
# spec labels, the fields of their rolls, and their own top-level fields. A document is checked
# by the rules of the record its rolls' fields are of, and refused when a label says another.
AUDIT_FORMAT = "boardgammon-audit-v1"
AUDIT_FORMAT_V2 = "boardgammon-audit-v2"
SPECS = {
    AUDIT_FORMAT: {"dice_spec": "boardgammon-dice-v1", "record_spec": "boardgammon-record-v1"},
    AUDIT_FORMAT_V2: {"dice_spec": "boardgammon-dice-v2", "record_spec": "boardgammon-record-v2"},
}
OWN_ROLL_FIELDS = {
    AUDIT_FORMAT: ("client_entropy", "entropy_source"),
    AUDIT_FORMAT_V2: ("kind", "roller_entropy", "roller_source", "opponent_prev_link",
                      "opponent_entropy", "opponent_source", "requested_at", "opponent_at"),
}
OWN_FIELDS = {AUDIT_FORMAT: (), AUDIT_FORMAT_V2: ("anchors", "counts")}
V1_EVENTS = ("committed", "revealed", "played", "void")  # a v1 roll is never ``requested``

Subtree = Callable[[int, int], bytes]
"""``subtree(lo, hi)``: MTH(D[lo:hi]), the hash of the tree over leaves ``lo`` … ``hi - 1``."""


class ProofError(ValueError):
    """A proof, a leaf or a head that does not verify; the message says which and why."""


def leaf_hash(leaf: bytes) -> bytes:
    """The hash of a leaf: SHA-256(0x00 || leaf), 32 bytes."""
    return hashlib.sha256(b"\x00" + leaf).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """The hash of an inner node: SHA-256(0x01 || left || right), 32 bytes."""
    return hashlib.sha256(b"\x01" + left + right).digest()


def split(n: int) -> int:
    """The largest power of two smaller than ``n`` (RFC 9162's k), for ``n`` > 1."""
    return 1 << ((n - 1).bit_length() - 1)


def root_of(hashes: Sequence[bytes]) -> bytes:
    """MTH of the leaves whose hashes are ``hashes`` (RFC 9162 §2.1.1), by its recursion."""
    if not hashes:
        return hashlib.sha256().digest()
    if len(hashes) == 1:
        return hashes[0]
    k = split(len(hashes))
    return node_hash(root_of(hashes[:k]), root_of(hashes[k:]))


def inclusion_path(index: int, size: int, subtree: Subtree) -> list[bytes]:
    """PATH(index, D[size]) of RFC 9162 §2.1.3.1: the audit path of leaf ``index`` in the
    tree of the first ``size`` leaves, hashes taken from ``subtree``.

    Raises:
        ValueError: not 0 <= index < size.
    """
    if not 0 <= index < size:
        raise ValueError(f"leaf {index} is not in a tree of {size} leaves")

    def path(m: int, lo: int, hi: int) -> list[bytes]:
        if hi - lo == 1:
            return []
        k = split(hi - lo)
        if m < k:
            return path(m, lo, lo + k) + [subtree(lo + k, hi)]
        return path(m - k, lo + k, hi) + [subtree(lo, lo + k)]

    return path(index, 0, size)


def consistency_path(first: int, second: int, subtree: Subtree) -> list[bytes]:
    """PROOF(first, D[second]) of RFC 9162 §2.1.4.1: the proof that the tree of the first
    ``first`` leaves is a prefix of the tree of ``second`` leaves; empty when they are equal.

    Raises:
        ValueError: not 1 <= first <= second.
    """
    if not 1 <= first <= second:
        raise ValueError(
            f"no consistency proof from size {first} to size {second} (1 <= first <= second)"
        )

    def subproof(m: int, lo: int, hi: int, whole: bool) -> list[bytes]:
        if m == hi - lo:
            return [] if whole else [subtree(lo, hi)]
        k = split(hi - lo)
        if m <= k:
            return subproof(m, lo, lo + k, whole) + [subtree(lo + k, hi)]
        return subproof(m - k, lo + k, hi, False) + [subtree(lo, lo + k)]

    return subproof(first, 0, second, True)


def verify_inclusion(
    index: int, size: int, hashed_leaf: bytes, path: Sequence[bytes], root: bytes
) -> None:
    """Check an inclusion proof as RFC 9162 §2.1.3.2 does.

    Raises:
        ProofError: the path does not lead from the leaf hash to ``root``.
    """
    if not 0 <= index < size:
        raise ProofError(f"leaf {index} is not in a tree of {size} leaves")
    fn, sn, r = index, size - 1, hashed_leaf
    for p in path:
        if sn == 0:
            raise ProofError("the inclusion path is longer than the tree is deep")
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            while not fn & 1 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            r = node_hash(r, p)
        fn, sn = fn >> 1, sn >> 1
    if sn != 0:
        raise ProofError("the inclusion path is shorter than the tree is deep")
    if r != root:
        raise ProofError(f"leaf {index} does not lead to the root of the tree of {size} leaves")


def verify_consistency(
    first: int, second: int, first_root: bytes, second_root: bytes, path: Sequence[bytes]
) -> None:
    """Check a consistency proof as RFC 9162 §2.1.4.2 does (equal sizes: an empty proof and
    equal roots).

    Raises:
        ProofError: the tree of ``second`` leaves does not extend the tree of ``first``.
    """
    if not 1 <= first <= second:
        raise ProofError(f"no consistency proof from size {first} to size {second}")
    if first == second:
        if path:
            raise ProofError("a consistency proof between equal sizes is empty")
        if first_root != second_root:
            raise ProofError(f"two different roots for the same size {first}")
        return
    if not path:
        raise ProofError("the consistency proof is empty")
    hashes = list(path)
    if first & (first - 1) == 0:
        hashes.insert(0, first_root)
    fn, sn = first - 1, second - 1
    while fn & 1:
        fn, sn = fn >> 1, sn >> 1
    fr = sr = hashes[0]
    for c in hashes[1:]:
        if sn == 0:
            raise ProofError("the consistency proof is longer than the tree is deep")
        if fn & 1 or fn == sn:
            fr, sr = node_hash(c, fr), node_hash(c, sr)
            while not fn & 1 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            sr = node_hash(sr, c)
        fn, sn = fn >> 1, sn >> 1
    if sn != 0:
        raise ProofError("the consistency proof is shorter than the tree is deep")
    if fr != first_root:
        raise ProofError(f"the proof does not lead to the root of size {first}")
    if sr != second_root:
        raise ProofError(f"the proof does not lead to the root of size {second}")


def leaf_bytes(event: str, roll: Mapping[str, Any], at: str) -> bytes:
    """The leaf of one change of a roll: the UTF-8 of a JSON object, keys sorted, no spaces,
    ASCII only (``docs/fair-dice.md`` §The public log).

    ``roll`` holds the roll's ``match_id``, ``roll_id``, ``seq``, ``nonce``, ``seat``,
    ``commitment`` and ``entry_hash`` after the change; ``event`` is the state it entered
    (one of :data:`EVENTS`); ``at`` when, ISO 8601 with offset.
    """
    if event not in EVENTS:
        raise ValueError(f"event {event!r} is none of {', '.join(EVENTS)}")
    fields = {
        key: roll[key]
        for key in ("match_id", "roll_id", "seq", "nonce", "seat", "commitment", "entry_hash")
    }
    document = {"format": LOG_FORMAT, "event": event, "at": at, **fields}
    return json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def anchor_leaf_bytes(match_id: str, seat: int, anchor: str, at: str) -> bytes:
    """The leaf of a seat's accepted hash-chain anchor (``docs/fair-dice.md`` §The public log):
    ``{"anchor", "at", "event": "anchor", "format", "match_id", "seat"}`` encoded as
    :func:`leaf_bytes` encodes a roll's change; ``anchor`` 64 hex digits, ``at`` when the
    server accepted it, ISO 8601 with offset."""
    document = {"format": LOG_FORMAT, "event": ANCHOR_EVENT, "at": at, "match_id": match_id,
                "seat": seat, "anchor": anchor}
    return json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def match_leaf_bytes(match_id: str, mode: str, at: str, link_wait_ms: int | None = None) -> bytes:
    """The leaf that states how a v2 match is played (``docs/fair-dice.md`` §The public log,
    Match leaf): ``{"at", "event": "match", "format", "link_wait_ms", "match_id", "mode"}``
    encoded as :func:`leaf_bytes` encodes a roll's change; ``mode`` one of :data:`MODES`,
    ``at`` its first roll's commitment time, ISO 8601 with offset; ``link_wait_ms`` the
    server's wait for the opponent's link in whole milliseconds (a live match's, or one
    against the computer), left out where it is ``None`` (a correspondence match, which waits
    for no link, and every leaf written before 2026-12-05's wait was stated).

    Raises:
        ValueError: ``mode`` is none of :data:`MODES`; ``link_wait_ms`` is not an integer
            >= 0, or is given for a correspondence match.
    """
    if mode not in MODES:
        raise ValueError(f"mode {mode!r} is none of {', '.join(MODES)}")
    document: dict[str, Any] = {"format": LOG_FORMAT, "event": MATCH_EVENT, "at": at,
                                "match_id": match_id, "mode": mode}
    if link_wait_ms is not None:
        if not _is_wait(link_wait_ms):
            raise ValueError(f"link_wait_ms must be whole milliseconds (an integer >= 0), got "
                             f"{link_wait_ms!r}")
        if mode == "correspondence":
            raise ValueError("a correspondence match waits for no link: its leaf states no "
                             "link_wait_ms")
        document["link_wait_ms"] = link_wait_ms
    return json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def _is_wait(value: object) -> bool:
    """Whether ``value`` is a match leaf's ``link_wait_ms``: an integer >= 0 (JSON's true and
    false read as Python's bool, an int, and are none)."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def head_bytes(tree_size: int, timestamp_ms: int, root_hash: bytes) -> bytes:
    """The bytes a tree head's signature covers: ``boardgammon-log-head-v1`` (ASCII), 0x00,
    the tree size and the time (milliseconds since 1970-01-01 UTC) as unsigned 64-bit
    big-endian integers, the 32-byte root hash; 72 bytes."""
    if len(root_hash) != HASH_BYTES:
        raise ValueError(f"a root hash is {HASH_BYTES} bytes, got {len(root_hash)}")
    return (
        HEAD_FORMAT.encode()
        + b"\x00"
        + tree_size.to_bytes(8, "big")
        + timestamp_ms.to_bytes(8, "big")
        + root_hash
    )


def cosigned_bytes(head: dict) -> bytes:
    """The bytes a witness signs for ``head`` (a head as JSON, :func:`signed_head_bytes`):
    ``boardgammon-log-cosignature-v1`` (ASCII), 0x00, then the head's signed bytes."""
    return COSIGNATURE_FORMAT.encode() + b"\x00" + signed_head_bytes(head)


def signed_head_bytes(head: dict) -> bytes:
    """:func:`head_bytes` of a head as JSON (``tree_size``, ``timestamp``, ``root_hash`` hex).

    Raises:
        ProofError: a field is missing or malformed.
    """
    try:
        return head_bytes(
            int(head["tree_size"]), int(head["timestamp"]), bytes.fromhex(head["root_hash"])
        )
    except (KeyError, TypeError, ValueError, OverflowError) as exc:
        raise ProofError(f"malformed tree head: {exc}") from exc


def verify_ed25519(public_key: bytes, signature: bytes, message: bytes) -> bool:
    """Whether ``signature`` (64 bytes) is ``public_key``'s (32 bytes) Ed25519 signature of
    ``message`` (RFC 8032 §5.1.7). With the ``cryptography`` package when it is installed;
    otherwise by :func:`ed25519_verify_stdlib`, so that this file checks heads with the
    standard library alone. A key of small order (the identity among them, with which one
    signature verifies every message, and which OpenSSL accepts) is refused: it would let a
    log disown every head it signed."""
    point = _decode_point(public_key) if len(public_key) == 32 else None
    if point is None or _small_order(point):
        return False
    try:
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    except ImportError:
        return ed25519_verify_stdlib(public_key, signature, message)
    try:
        Ed25519PublicKey.from_public_bytes(public_key).verify(signature, message)
    except (InvalidSignature, ValueError):
        return False
    return True


# Ed25519 over the standard library (RFC 8032 §5.1): the curve -x² + y² = 1 + d·x²·y² over
# GF(p), points in extended coordinates (X, Y, Z, T) with x = X/Z, y = Y/Z, x·y = T/Z.
_P = 2**255 - 19
_D = -121665 * pow(121666, _P - 2, _P) % _P
_L = 2**252 + 27742317777372353535851937790883648493  # the base point's order
_SQRT_M1 = pow(2, (_P - 1) // 4, _P)
_Point = tuple[int, int, int, int]


def _add(a: _Point, b: _Point) -> _Point:
    """a + b (RFC 8032 §5.1.4, the unified addition formulas; doubling included)."""
    x1, y1, z1, t1 = a
    x2, y2, z2, t2 = b
    ea, eb = (y1 - x1) * (y2 - x2) % _P, (y1 + x1) * (y2 + x2) % _P
    ec, ed = t1 * 2 * _D * t2 % _P, z1 * 2 * z2 % _P
    e, f, g, h = eb - ea, ed - ec, ed + ec, eb + ea
    return e * f % _P, g * h % _P, f * g % _P, e * h % _P


def _times(n: int, point: _Point) -> _Point:
    """[n]point, by doubling and adding (verification handles public values only, so its
    timing reveals nothing)."""
    total: _Point = (0, 1, 1, 0)  # the neutral element
    while n:
        if n & 1:
            total = _add(total, point)
        point = _add(point, point)
        n >>= 1
    return total


def _decode_point(encoded: bytes) -> _Point | None:
    """The point of a 32-byte encoding (RFC 8032 §5.1.3), ``None`` when it is none."""
    y = int.from_bytes(encoded, "little")
    sign, y = y >> 255, y & ((1 << 255) - 1)
    if y >= _P:
        return None
    u, v = (y * y - 1) % _P, (_D * y * y + 1) % _P
    x = u * pow(v, 3, _P) * pow(u * pow(v, 7, _P), (_P - 5) // 8, _P) % _P
    if v * x * x % _P == (-u) % _P:
        x = x * _SQRT_M1 % _P
    elif v * x * x % _P != u:
        return None
    if x == 0 and sign:
        return None
    if x & 1 != sign:
        x = _P - x
    return x, y, 1, x * y % _P


def _small_order(point: _Point) -> bool:
    """Whether [8]point is the neutral element (the point's order divides the cofactor)."""
    x, y, z, _ = _times(8, point)
    return x % _P == 0 and (y - z) % _P == 0


_BASE = _decode_point(((4 * pow(5, _P - 2, _P)) % _P).to_bytes(32, "little"))


def ed25519_verify_stdlib(public_key: bytes, signature: bytes, message: bytes) -> bool:
    """Ed25519 verification with the standard library only (RFC 8032 §5.1.7, the
    cofactorless check [S]B = R + [k]A, which the ``cryptography`` package's OpenSSL makes
    too): ``False`` for a key or signature of the wrong length or encoding."""
    if len(public_key) != 32 or len(signature) != 64:
        return False
    a, r = _decode_point(public_key), _decode_point(signature[:32])
    s = int.from_bytes(signature[32:], "little")
    if a is None or r is None or s >= _L or _BASE is None:
        return False
    k = int.from_bytes(hashlib.sha512(signature[:32] + public_key + message).digest(),
                       "little") % _L
    left, right = _times(s, _BASE), _add(r, _times(k, a))
    return ((left[0] * right[2] - right[0] * left[2]) % _P == 0
            and (left[1] * right[2] - right[1] * left[2]) % _P == 0)


class DocumentError(ValueError):
    """The input is not a document this checker reads (exit status 2): not a JSON object, a
    format it does not know, labels that its fields contradict, a field missing or malformed.
    The message names the field by its path (``rolls[2].log[0].index``)."""


def record_format(document: Any) -> str:
    """The record an audit document or a roll's proof is of, :data:`AUDIT_FORMAT` or
    :data:`AUDIT_FORMAT_V2`, read from its rolls' fields (:data:`OWN_ROLL_FIELDS`) and checked
    against its labels, after checking that it holds every field the checks read, of its
    type: ``{"format", "match_id", "log": {"public_key", "head": {"tree_size", "timestamp",
    "root_hash", "signature"}, "anchors"?, "match"?}, "rolls": [{"roll_id", "seq", "nonce", "seat",
    "commitment", "state", "entry_hash", "log"?: [entry …], …}]}``, an entry ``{"index",
    "leaf", "inclusion_path", "event"?}``; a roll's proof (``boardgammon-roll-proof-v1``) has
    ``record_format`` and one ``roll`` instead of ``rolls``.

    Raises:
        DocumentError: not a JSON object; a ``format`` (or a proof's ``record_format``) this
            checker does not know; a label (``format``, ``record_format``, ``dice_spec``,
            ``record_spec``) that the fields contradict: a roll with another record's fields,
            or without its own, or a field only another record's documents have; a field
            missing or malformed.
    """
    if not isinstance(document, dict):
        raise DocumentError(f"the document is {_shown(document)}, not a JSON object (an audit "
                            "document or a roll's proof)")
    formats = (*SPECS, PROOF_FORMAT)
    label = _field(document, "format", "", f"one of {', '.join(formats)}",
                   lambda v: v in formats)
    if label == PROOF_FORMAT:
        record = _field(document, "record_format", "", "a string", _is_str)
        _field(document, "roll", "", "an object (the roll)", _is_object)
        rolls = {"roll": document["roll"]}
        said = f"its record_format is {record}"
    else:
        record, said = label, f"its format is {label}"
        listed = _field(document, "rolls", "", "an array of rolls", _is_list)
        rolls = {f"rolls[{index}]": roll for index, roll in enumerate(listed)}
    if record not in SPECS:
        raise DocumentError(f"record_format is {_shown(record)}, not one of {', '.join(SPECS)}")
    for key, value in SPECS[record].items():
        if key in document and document[key] != value:
            raise DocumentError(f"{said}, but its {key} is {_shown(document[key])}, not "
                                f"{value!r}")
    for other, fields in OWN_FIELDS.items():
        found = [key for key in fields if key in document]
        if other != record and found:
            raise DocumentError(f"{said}, but it holds {', '.join(found)}, which only a "
                                f"{other} document has")
    _field(document, "match_id", "", "the match's ID", _is_str)
    _check_log_section(_field(document, "log", "", "an object (the log section)", _is_object))
    if "anchors" in document:
        _fit(document["anchors"], "anchors", "an array of two anchors (hex or null)",
             lambda v: isinstance(v, list) and len(v) == 2
             and all(a is None or isinstance(a, str) for a in v))
    for path, roll in rolls.items():
        _check_roll(roll, path, record, said)
    return record


def _check_roll(roll: Any, path: str, record: str, said: str) -> None:
    """Check a roll of a ``record`` document: an object with the fields the checks read and
    every field of its record's own, none of another's (:func:`record_format`; ``said``: how
    the document's label is named in a message)."""
    _fit(roll, path, "an object (a roll)", _is_object)
    roll_id = _field(roll, "roll_id", path, "the roll's ID", _is_str)
    for other, fields in OWN_ROLL_FIELDS.items():
        found = [key for key in fields if key in roll]
        if other != record and found:
            raise DocumentError(f"{said}, but roll {roll_id} ({path}) holds "
                                f"{', '.join(found)}, the fields of a {other} roll")
    missing = [key for key in OWN_ROLL_FIELDS[record] if key not in roll]
    if missing:
        raise DocumentError(f"{said}, but roll {roll_id} ({path}) lacks "
                            f"{', '.join(missing)}, which every {record} roll has")
    for key in ("seq", "nonce", "seat"):
        _field(roll, key, path, "an integer >= 0", _is_uint)
    for key in ("commitment", "state", "entry_hash"):
        _field(roll, key, path, "a string", _is_str)
    if "log" in roll:
        entries = _field(roll, "log", path, "an array of log entries", _is_list)
        for index, entry in enumerate(entries):
            _check_entry(entry, f"{path}.log[{index}]")


def _check_log_section(log: dict) -> None:
    """Check a document's ``log`` section: its key, its head and its anchor leaves."""
    if "format" in log:
        _field(log, "format", "log", repr(LOG_FORMAT), lambda v: v == LOG_FORMAT)
    _field(log, "public_key", "log", "an Ed25519 key (64 hex digits)", _is_hex_of(32))
    check_head_shape(_field(log, "head", "log", "an object (a signed tree head)", _is_object),
                     "log.head")
    anchors = log.get("anchors")
    if anchors is not None:
        for index, entry in enumerate(_field(log, "anchors", "log", "an array", _is_list)):
            _check_entry(entry, f"log.anchors[{index}]")
    if log.get("match") is not None:
        _check_entry(log["match"], "log.match")


def check_head_shape(head: Any, path: str) -> None:
    """Check that ``head`` is a signed tree head as JSON: ``{"tree_size", "timestamp" (each an
    integer, 0 … 2⁶⁴ - 1), "root_hash" (64 hex digits), "signature" (128), "format"?:
    "boardgammon-log-head-v1"}``.

    Raises:
        DocumentError: it is not, naming the field (``path``: where ``head`` is).
    """
    _fit(head, path, "an object (a signed tree head)", _is_object)
    if "format" in head:
        _field(head, "format", path, repr(HEAD_FORMAT), lambda v: v == HEAD_FORMAT)
    for key in ("tree_size", "timestamp"):
        _field(head, key, path, "an integer >= 0", _is_uint)
    _field(head, "root_hash", path, "a hash (64 hex digits)", _is_hex_of(HASH_BYTES))
    _field(head, "signature", path, "an Ed25519 signature (128 hex digits)", _is_hex_of(64))


def _check_entry(entry: Any, path: str) -> None:
    _fit(entry, path, "an object (a log entry)", _is_object)
    _field(entry, "index", path, "a leaf's index (an integer >= 0)", _is_uint)
    _field(entry, "leaf", path, "the leaf's text", _is_str)
    hashes = _field(entry, "inclusion_path", path, "an array of hashes", _is_list)
    for index, node in enumerate(hashes):
        _fit(node, f"{path}.inclusion_path[{index}]", "a hash (64 hex digits)",
             _is_hex_of(HASH_BYTES))
    if "event" in entry:
        _field(entry, "event", path, "a string", _is_str)


def _field(parent: dict, key: str, path: str, what: str, fits: Callable[[Any], bool]) -> Any:
    """``parent[key]``, checked to be ``what`` (``fits``); ``path``: where ``parent`` is."""
    where = f"{path}.{key}" if path else key
    if key not in parent:
        raise DocumentError(f"{where} is missing ({what})")
    return _fit(parent[key], where, what, fits)


def _fit(value: Any, where: str, what: str, fits: Callable[[Any], bool]) -> Any:
    if not fits(value):
        raise DocumentError(f"{where} is {_shown(value)}, not {what}")
    return value


def _shown(value: Any) -> str:
    """A JSON value as a message names it: short, of any size."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return f"the string {value[:40]!r}" + ("…" if len(value) > 40 else "")
    return json.dumps(value)[:40] if isinstance(value, (int, float, type(None))) else repr(value)


def _is_str(value: Any) -> bool:
    return isinstance(value, str)


def _is_object(value: Any) -> bool:
    return isinstance(value, dict)


def _is_list(value: Any) -> bool:
    return isinstance(value, list)


def _is_uint(value: Any) -> bool:
    """An integer that fits the signed head's 64 unsigned bits (JSON's ``true`` is none)."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**64


def _is_hex_of(size: int) -> Callable[[Any], bool]:
    return lambda value: isinstance(value, str) and len(value) == 2 * size and _is_hex(value)


def check_log(document: dict, public_key: str | None = None) -> list[str]:
    """Check the ``log`` section of an audit document: every roll's log entries are leaves
    that name that roll, each has an inclusion proof to the head's root, the last names the
    roll's state and entry hash now; each chain anchor leaf (``log.anchors``, v2) is the
    record's anchor of its seat, with its inclusion proof; the head's signature with
    ``log.public_key``, which must be ``public_key`` (64 hex digits) when one is given: the
    log's key as the checker knows it from elsewhere (``GET /api/log/public-key`` fetched
    once and kept, a witness's state), so that a document signed with another key fails. The
    report's lines (a v1 roll without entries, from before the log began, is counted there;
    a v2 roll is logged from its commitment on, or it fails).

    The rules are those of the record the document's content is (:func:`record_format`), not
    of its label alone. A roll's proof (format ``boardgammon-roll-proof-v1``) is checked as the
    document of that one roll.

    Raises:
        DocumentError: the document is not one this checker reads (:func:`record_format`).
        ProofError: the first entry or proof that fails, a roll's proof that its head does
            not cover yet, or a document's key other than ``public_key``.
    """
    v2 = record_format(document) == AUDIT_FORMAT_V2
    one_roll = document["format"] == PROOF_FORMAT  # lists no match leaf: not the match's
    if one_roll:
        document = proof_document(document)
    log = document["log"]
    if public_key is not None and log["public_key"].lower() != public_key.lower():
        raise ProofError(f"the document's log key {log['public_key']} is not the key given "
                         f"(--key {public_key}): its heads are signed by another key")
    head = log["head"]
    size, root = head["tree_size"], bytes.fromhex(head["root_hash"])
    signed = verify_ed25519(
        bytes.fromhex(log["public_key"]), bytes.fromhex(head["signature"]), signed_head_bytes(head)
    )
    if not signed:
        raise ProofError("the tree head's signature does not verify with the log's key")
    lines = [f"tree head: size {size}, root {head['root_hash']}, signature verified with the "
             f"document's key {log['public_key']} " + (
                 "(the key given)" if public_key is not None else
                 "(compare it with the server's published key, GET /api/log/public-key, "
                 "or give that key as --key)")]
    count = unlogged = 0
    for roll in document["rolls"]:
        for entry in roll.get("log", []):
            fields = _leaf_fields(entry["leaf"], entry["index"])
            for key in ("roll_id", "seq", "nonce", "seat", "commitment"):
                if fields.get(key) != roll[key]:
                    raise ProofError(
                        f"log entry {entry['index']}: {key} is "
                        f"{fields.get(key)!r}, the roll's is {roll[key]!r}"
                    )
            if entry.get("event", fields.get("event")) != fields.get("event"):
                raise ProofError(
                    f"log entry {entry['index']} says {entry['event']!r}, its leaf "
                    f"{fields.get('event')!r}"
                )
            if fields.get("match_id") != document["match_id"]:
                raise ProofError(f"log entry {entry['index']} is of another match")
            path = [bytes.fromhex(h) for h in entry["inclusion_path"]]
            verify_inclusion(entry["index"], size, leaf_hash(entry["leaf"].encode()), path, root)
            count += 1
        problem = leaves_disagree(roll, v2)
        if problem:
            raise ProofError(problem)
        if not roll.get("log"):
            unlogged += 1
    anchors = _check_anchor_leaves(document, size, root)
    stated = _check_match_leaf(document, size, root)
    lines.append(f"{count} log entries of its rolls included in the tree of size {size}")
    if anchors:
        lines.append(f"{anchors} chain anchor(s) included, each the record's for its seat")
    if stated is not None:
        mode, wait = stated
        words = {"computer": "a match against the computer"}.get(mode, f"a {mode} match")
        waits = ("" if wait is None else
                 f", where the server waits {wait_words(wait)} for the opponent's link before "
                 "it rolls without it")
        lines.append(f"it is {words}{waits}, as its log entry "
                     f"{document['log']['match']['index']} states (logged with its first roll)")
    elif v2 and not one_roll:
        lines.append("the document lists no log entry of the match's mode: a match from before "
                     "2026-12-05 has none; --scan finds one the log holds and the document "
                     "leaves out")
    if unlogged:
        lines.append(f"{unlogged} rolls have no log entries (committed before the log began)")
    return lines


def _leaf_fields(leaf: str, index: int) -> dict:
    """The fields of log entry ``index``'s leaf.

    Raises:
        ProofError: the leaf is not a JSON object (no leaf of this log is anything else).
    """
    try:
        fields = json.loads(leaf)
    except (ValueError, RecursionError):
        fields = None
    if not isinstance(fields, dict):
        raise ProofError(f"log entry {index}'s leaf is not a JSON object: {_shown(leaf)}")
    return fields


def leaves_disagree(roll: Mapping[str, Any], v2: bool) -> str | None:
    """Why a roll's log entries (``roll["log"]``, as in the audit document, each leaf a JSON
    object) do not name the roll as the record holds it now, or ``None``: a v2 roll's entries
    begin with its commitment, the last names its state and entry hash (a v1 roll committed
    before the log began has none), no v1 roll's entry names a change only v2 rolls have
    (``requested``), a v2 roll's entries are exactly its changes in the order of its life
    (committed, then requested, revealed, played, or void, as the record's times say), and
    each v2 entry's ``at`` is the record's time of its change in the log's spelling
    (:func:`leaf_time`). Its inclusion proofs are :func:`check_log`'s. The entry hashes of
    the entries before the last are ``verify.py``'s to recompute (it checks the record's
    hashes; this checker does not)."""
    log = roll.get("log") or []
    # The log (record v1's era) came before v2 dice: every v2 roll is logged from its
    # commitment on, so a v2 roll without leaves, or whose first leaf is not its
    # commitment, had them taken away.
    if v2 and (not log or json.loads(log[0]["leaf"]).get("event") != "committed"):
        return (f"roll {roll['roll_id']} has no log entry of its commitment; every change "
                "of a v2 roll is logged")
    if not log:
        return None
    if not v2:
        for entry in log:
            event = json.loads(entry["leaf"]).get("event")
            if event not in V1_EVENTS:
                return (f"log entry {entry['index']} of roll {roll['roll_id']} says {event!r}, "
                        f"which a v1 roll never is ({', '.join(V1_EVENTS)})")
    last = json.loads(log[-1]["leaf"])
    if last.get("event") != roll["state"]:
        return (f"roll {roll['roll_id']} is {roll['state']} but its last log entry says "
                f"{last.get('event')}")
    # The entry hash covers the roll's seed, entropy and dice: a roll rewritten after its
    # last leaf no longer matches it, however its chain was re-hashed.
    if last.get("entry_hash") != roll["entry_hash"]:
        return (f"roll {roll['roll_id']} has entry hash {roll['entry_hash']}; its last log "
                f"entry says {last.get('entry_hash')}")
    if v2:
        # One leaf per change of the roll's life, in its order: a leaf left out, repeated or
        # out of order hides where a request or a reveal happened.
        events = [json.loads(entry["leaf"]).get("event") for entry in log]
        changes = [event for event, key in EVENT_TIMES.items() if roll.get(key) is not None]
        if events != changes:
            return (f"the log entries of roll {roll['roll_id']} say "
                    f"{', '.join(map(str, events))}; its record's changes are "
                    f"{', '.join(changes)}: every change is one entry, in the order of the "
                    "roll's life")
        for entry in log:
            problem = _time_disagrees(roll, json.loads(entry["leaf"]), entry["index"])
            if problem:
                return problem
    return None



# The record's time of the change each leaf of a roll stands for (v2).
EVENT_TIMES = {"committed": "committed_at", "requested": "requested_at",
               "revealed": "revealed_at", "played": "played_at", "void": "voided_at"}


def leaf_time(record_time: str) -> str:
    """The log's spelling of a v2 record time (``docs/fair-dice.md`` §The record (v2), Times
    in the log): ``YYYY-MM-DDTHH:MM:SS.ffffffZ`` becomes ``YYYY-MM-DDTHH:MM:SS.ffffff+00:00``,
    and ``YYYY-MM-DDTHH:MM:SS+00:00`` where ``ffffff`` is ``000000`` (the verifier's
    ``verify.leaf_time``; this module stands alone).

    Raises:
        ValueError: ``record_time`` is not a record time as the spec writes it.
    """
    try:
        if len(record_time) != 27 or not record_time.endswith("Z"):
            raise ValueError(record_time)
        datetime.strptime(record_time, "%Y-%m-%dT%H:%M:%S.%fZ")
    except (TypeError, ValueError):
        raise ValueError(f"{record_time!r} is not a time YYYY-MM-DDTHH:MM:SS.ffffffZ") from None
    seconds, fraction = record_time[:19], record_time[20:26]
    return f"{seconds}+00:00" if fraction == "000000" else f"{seconds}.{fraction}+00:00"


def _time_disagrees(roll: Mapping[str, Any], fields: Mapping[str, Any], index: Any) -> str | None:
    """Why the leaf ``fields`` (log entry ``index`` of the v2 roll ``roll``) does not carry in
    ``at`` the record's time of its change, or ``None``."""
    event = fields.get("event")
    key = EVENT_TIMES.get(str(event))
    if key is None:
        return f"log entry {index} of roll {roll['roll_id']} says {event!r}, no state"
    recorded = roll.get(key)
    try:
        expected: str | None = leaf_time(recorded) if isinstance(recorded, str) else None
    except ValueError:
        expected = None
    if fields.get("at") != expected:
        return (f"log entry {index} ({event} of roll {roll['roll_id']}) is at "
                f"{fields.get('at')!r}; the record's {key} is {recorded!r}"
                + (f", in the log {expected!r}" if expected is not None else ""))
    return None


def _check_anchor_leaves(document: dict, size: int, root: bytes) -> int:
    """Check the leaves of the match's accepted chain anchors (``log.anchors``, v2): each
    names the match, is the record's anchor of its seat and has an inclusion proof to the
    head's root; how many.

    Raises:
        ProofError: the first that does not hold.
    """
    entries = document["log"].get("anchors") or []
    for entry in entries:
        fields = _leaf_fields(entry["leaf"], entry["index"])
        if fields.get("event") != ANCHOR_EVENT or fields.get("match_id") != document["match_id"]:
            raise ProofError(f"log entry {entry['index']} is no chain anchor of this match")
        seat = fields.get("seat")
        record = document.get("anchors") or [None, None]
        if seat not in (0, 1) or record[seat] != fields.get("anchor"):
            raise ProofError(
                f"log entry {entry['index']} is seat {seat}'s chain anchor "
                f"{fields.get('anchor')}; the record's anchors are {record}"
            )
        path = [bytes.fromhex(h) for h in entry["inclusion_path"]]
        verify_inclusion(int(entry["index"]), size, leaf_hash(entry["leaf"].encode()), path, root)
    return len(entries)


def wait_words(link_wait_ms: int) -> str:
    """A match leaf's ``link_wait_ms`` in words: ``3 s``, ``2.5 s``, ``250 ms``."""
    if link_wait_ms < 1000:
        return f"{link_wait_ms} ms"
    return f"{link_wait_ms / 1000:g} s"


def _check_match_leaf(document: dict, size: int,
                      root: bytes) -> tuple[str, int | None] | None:
    """Check the leaf that states the match's mode (``log.match``, v2), if the document lists
    one: it names the match, says a mode of :data:`MODES`, a ``link_wait_ms`` where it has one
    that is whole milliseconds (an integer >= 0), and has an inclusion proof to the head's
    root. The mode and the stated wait (``None`` where the leaf states none: a correspondence
    match, or a leaf from before 2026-12-05's wait), or ``None`` where none is listed.

    Raises:
        ProofError: it does not hold.
    """
    entry = document["log"].get("match")
    if entry is None:
        return None
    fields = _leaf_fields(entry["leaf"], entry["index"])
    if fields.get("event") != MATCH_EVENT or fields.get("match_id") != document["match_id"]:
        raise ProofError(f"log entry {entry['index']} is no statement of this match's mode")
    if entry.get("event", MATCH_EVENT) != MATCH_EVENT:
        raise ProofError(f"log entry {entry['index']} says {entry['event']!r}, its leaf "
                         f"{MATCH_EVENT!r}")
    if fields.get("mode") not in MODES:
        raise ProofError(f"log entry {entry['index']} says the match is "
                         f"{_shown(fields.get('mode'))}, none of {', '.join(MODES)}")
    wait = fields.get("link_wait_ms")
    if "link_wait_ms" in fields and not _is_wait(wait):
        raise ProofError(f"log entry {entry['index']} states the link wait "
                         f"{json.dumps(wait)}, not whole milliseconds (an integer >= 0)")
    if "link_wait_ms" in fields and fields["mode"] == "correspondence":
        raise ProofError(f"log entry {entry['index']} states a link wait for a "
                         "correspondence match, whose turns wait for no link")
    if "link_wait_ms" not in fields and fields["mode"] != "correspondence":
        try:
            late = (datetime.fromisoformat(fields.get("at"))  # type: ignore[arg-type]
                    >= datetime.fromisoformat(WAIT_STATED_FROM))
        except (TypeError, ValueError):
            raise ProofError(f"log entry {entry['index']}, the match's mode, is at "
                             f"{_shown(fields.get('at'))}, no time with its offset") from None
        if late:
            raise ProofError(f"log entry {entry['index']}, the match's mode, logged at "
                             f"{fields['at']}, states no wait for the opponent's link; every "
                             f"live match's leaf logged since {WAIT_STATED_FROM} states it")
    path = [bytes.fromhex(h) for h in entry["inclusion_path"]]
    verify_inclusion(int(entry["index"]), size, leaf_hash(entry["leaf"].encode()), path, root)
    return str(fields["mode"]), wait


def proof_document(proof: dict) -> dict:
    """A roll's proof as the audit document of that one roll (what :func:`check_log` reads).

    Raises:
        ProofError: the server said its head does not cover the roll yet (``covered`` false).
    """
    if proof.get("covered") is False:
        raise ProofError(
            f"roll {proof['roll']['roll_id']} is not under the signed head yet: fetch its "
            f"proof again in {proof.get('retry_after') or 1} s"
        )
    return {"format": proof["record_format"], "match_id": proof["match_id"],
            "log": proof["log"], "rolls": [proof["roll"]]}


def check_match_complete(document: dict, leaves: Sequence[str],
                         head: Mapping[str, Any] | None = None) -> list[str]:
    """Check that the audit document holds every log entry of its match (its rolls', its
    chain anchors', ``log.anchors``, and its mode's, ``log.match``): ``leaves`` are the log's
    leaves 0 … ``tree_size - 1`` of ``head``, as ``GET /api/log/entries`` serves them;
    ``head`` is the document's own head (the default) or a newer one that extends it
    (:func:`check_extension`: the server's newest, so that changes logged after the
    document's head are looked for too). Their RFC 9162 root must be the head's, and the
    leaves that name the match must be exactly the entries beside the document's rolls: a
    roll left out of the document (the last one, say, with the chain head moved back to the
    roll before it) still has its leaves in the log.
    The report's lines.

    Raises:
        DocumentError: the document is not an audit document this checker reads (one roll's
            proof holds one roll, not the match).
        ProofError: the leaves are not the head's tree, or the document misses a logged change.
    """
    record_format(document)
    if document["format"] == PROOF_FORMAT:
        raise DocumentError("a roll's proof holds one roll, not the match: give the match's "
                            "audit document (/api/audit/mat_…)")
    ours = document["log"]["head"]
    head = ours if head is None else head
    size = head["tree_size"]
    if len(leaves) != size:
        raise ProofError(f"the server serves {len(leaves)} log entries for its head of size "
                         f"{size}")
    if root_of([leaf_hash(leaf.encode()) for leaf in leaves]) != bytes.fromhex(head["root_hash"]):
        raise ProofError(f"the log's {size} leaves do not make the head's root")
    shown = {entry["index"] for roll in document["rolls"] for entry in roll.get("log", [])}
    shown |= {entry["index"] for entry in document["log"].get("anchors") or []}
    if document["log"].get("match") is not None:
        shown.add(document["log"]["match"]["index"])
    for index, leaf in enumerate(leaves):
        fields = _leaf_fields(leaf, index)
        if fields.get("match_id") == document["match_id"] and index not in shown:
            what = (
                f"seat {fields.get('seat')}'s chain anchor {fields.get('anchor')}"
                if fields.get("event") == ANCHOR_EVENT
                else f"the match's mode, {fields.get('mode')}"
                if fields.get("event") == MATCH_EVENT
                else f"{fields.get('event')} of roll {fields.get('roll_id')}, "
                f"seq {fields.get('seq')}"
            )
            later = (
                f": it was logged after the document's head (size {ours['tree_size']}), "
                "which leaves out the match's later changes (a match still in play: fetch "
                "the document again)"
                if index >= ours["tree_size"] else ""
            )
            raise ProofError(f"log entry {index} ({what}) is not in the document{later}")
    return [f"every one of the match's log entries among the {size} is in the document"]


def check_extension(document: dict, newest: Any,
                    consistency: Callable[[int, int], Any]) -> list[str]:
    """Check the server's newest signed tree head ``newest`` (as ``GET /api/log/head`` serves
    it) against the document's head: signed with the document's log key (the key
    :func:`check_log` checked, the one given with ``--key`` where there is one), no smaller,
    and proven to extend it (RFC 9162 §2.1.4.2) by ``consistency(first, second)``: the
    server's answer to ``GET /api/log/proof/consistency?first=&second=``, ``{"first",
    "second", "consistency_path": [hash …]}``, asked only where the sizes differ and the
    document's is not 0. The report's lines.

    Raises:
        DocumentError: the document is not one this checker reads (:func:`record_format`).
        ProofError: ``newest`` or the proof is malformed, the signature does not verify, the
            newest head is smaller (the log shrank), or the proof does not lead from the
            document's root to the newest root (two histories).
    """
    record_format(document)
    key, ours = document["log"]["public_key"], document["log"]["head"]
    try:
        check_head_shape(newest, "head")
    except DocumentError as exc:
        raise ProofError(f"the server's newest tree head is malformed: {exc}") from None
    first, second = ours["tree_size"], newest["tree_size"]
    first_root, second_root = bytes.fromhex(ours["root_hash"]), bytes.fromhex(newest["root_hash"])
    if not verify_ed25519(bytes.fromhex(key), bytes.fromhex(newest["signature"]),
                          signed_head_bytes(newest)):
        raise ProofError(f"the server's newest tree head (size {second}) does not verify with "
                         f"the log's key {key}")
    lines = [f"newest tree head: size {second}, root {newest['root_hash']}, signature verified "
             "with the same key"]
    if second < first:
        raise ProofError(f"the server's newest tree head has size {second}, smaller than the "
                         f"document's head (size {first}): the log shrank, or the document's "
                         "head is not of this log")
    if first == 0:
        if first_root != root_of([]):
            raise ProofError(f"the document's head of size 0 has root {ours['root_hash']}, "
                             "not the empty tree's")
        return [*lines, "the document's head is the empty tree, which every head extends"]
    path: list[bytes] = []
    if first < second:
        answer = consistency(first, second)
        nodes = answer.get("consistency_path") if isinstance(answer, dict) else None
        if not isinstance(nodes, list) or not all(map(_is_hex_of(HASH_BYTES), nodes)):
            raise ProofError(f"the server's consistency proof from size {first} to size "
                             f"{second} is no proof: {_shown(answer)} (an object with "
                             "consistency_path, an array of hashes)")
        path = [bytes.fromhex(node) for node in nodes]
    try:
        verify_consistency(first, second, first_root, second_root, path)
    except ProofError as exc:
        raise ProofError(
            f"two histories: the server's newest tree head (size {second}, root "
            f"{newest['root_hash']}) does not extend the document's head (size {first}, root "
            f"{ours['root_hash']}): {exc}"
        ) from None
    if first == second:
        return [*lines, "it is the document's head"]
    return [*lines, f"it extends the document's head of size {first}: consistency proof "
                    "verified"]


class LogUnreadable(Exception):
    """The server's log could not be read for ``--scan`` (exit status 2: nothing was caught,
    nothing checked): no answer, an HTTP error status, an answer that is not JSON.
    ``status``: the HTTP status of a refusal, ``None`` for no answer."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


def scan(audit_url: str, document: dict, timeout: float = 30.0) -> list[str]:
    """``--scan``: check the document (already through :func:`check_log`) against the newest
    history of the log of the server that serves ``audit_url`` (``https://host/api/audit/
    mat_…``): its newest signed head (``GET /api/log/head``) extends the document's head
    (:func:`check_extension`, the proof from ``GET /api/log/proof/consistency``), and the
    log's leaves up to it (``GET /api/log/entries``) make it and hold no change of the match
    that the document leaves out (:func:`check_match_complete`). The report's lines.

    Raises:
        ProofError: a check fails (a server that refuses, with a 4xx status, the consistency
            proof between two heads its key signed fails too: a log that signed both has
            both trees).
        LogUnreadable: the server cannot be read.
    """
    base = audit_url.split("/api/audit/", 1)[0]
    newest = _get_json(f"{base}/api/log/head", timeout)

    def consistency(first: int, second: int) -> Any:
        url = f"{base}/api/log/proof/consistency?first={first}&second={second}"
        try:
            return _get_json(url, timeout)
        except LogUnreadable as exc:
            if exc.status is not None and 400 <= exc.status < 500:
                raise ProofError(f"the server refuses the consistency proof between two heads "
                                 f"its key signed ({exc})") from None
            raise

    lines = check_extension(document, newest, consistency)
    leaves = _log_leaves(base, newest["tree_size"], timeout)
    return lines + check_match_complete(document, leaves, newest)


def _log_leaves(base: str, tree_size: int, timeout: float) -> list[str]:
    """The leaves 0 … ``tree_size - 1`` (fewer where the server serves fewer) of the log of
    the server at ``base``.

    Raises:
        ProofError: an answer that is not the log's entries in order.
        LogUnreadable: the server cannot be read.
    """
    leaves: list[str] = []
    while len(leaves) < tree_size:
        count = min(1000, tree_size - len(leaves))
        url = f"{base}/api/log/entries?start={len(leaves)}&count={count}"
        page = _get_json(url, timeout)
        if not isinstance(page, list):
            raise ProofError(f"GET {url} answers {_shown(page)}, not an array of log entries")
        if not page:
            break
        for entry in page[:count]:
            if (not isinstance(entry, dict) or not isinstance(entry.get("leaf"), str)
                    or entry.get("index") != len(leaves)):
                raise ProofError(f"GET {url}: entry {len(leaves)} is {_shown(entry)}, not "
                                 f'{{"index": {len(leaves)}, "leaf": …}}')
            leaves.append(entry["leaf"])
    return leaves


def _get_json(url: str, timeout: float) -> Any:
    """The JSON the server answers to ``GET url``.

    Raises:
        LogUnreadable: no answer, an HTTP error status or an answer that is not JSON.
    """
    try:
        with urllib.request.urlopen(url, timeout=timeout) as answer:  # noqa: S310
            return json.load(answer)
    except urllib.error.HTTPError as exc:
        raise LogUnreadable(f"GET {url}: {_refusal(exc)}", exc.code) from None
    except urllib.error.URLError as exc:
        raise LogUnreadable(f"GET {url}: {_no_answer(url, exc)}") from None
    except (OSError, ValueError, RecursionError, http.client.HTTPException) as exc:
        raise LogUnreadable(f"GET {url}: {exc or type(exc).__name__}") from None


def _is_hex(text: str) -> bool:
    return all(c in "0123456789abcdefABCDEF" for c in text)


def _refusal(exc: urllib.error.HTTPError) -> str:
    """An HTTP error status in words, with the API's error code and message where the answer
    has them (``docs/api.md`` §Errors), not the body (a proxy's error page is HTML), and not
    urllib's ``HTTP Error 404: Not Found``."""
    said = f"the server answered HTTP {exc.code} {exc.reason}".rstrip()
    try:
        error = json.loads(exc.read(4096))["error"]
        said += f": {error['code']}: {error['message']}"
    except (OSError, http.client.HTTPException, ValueError, RecursionError, KeyError,
            TypeError):
        pass
    return said


def _no_answer(url: str, exc: urllib.error.URLError) -> str:
    """Why no answer came from the host of ``url``, in words, not ``<urlopen error …>``."""
    host = urllib.parse.urlsplit(url).netloc or url
    return f"no answer from {host}: {getattr(exc.reason, 'strerror', None) or exc.reason}"


def _open(request: urllib.request.Request, timeout: float) -> http.client.HTTPResponse:
    """``urlopen`` whose failures read in words (:func:`_refusal`, :func:`_no_answer`).
    (verify.py and transparency.py are each downloaded and run alone, so each has its own
    copy, as the witness has its own.)

    Raises:
        OSError: no answer, or an HTTP error status.
    """
    try:
        return urllib.request.urlopen(request, timeout=timeout)  # noqa: S310
    except urllib.error.HTTPError as exc:
        raise OSError(_refusal(exc)) from None
    except urllib.error.URLError as exc:
        raise OSError(_no_answer(request.full_url, exc)) from None


def _load(source: str, timeout: float = 30.0) -> Any:
    """The JSON of a file or an ``http(s)://`` URL.

    Raises:
        OSError, ValueError, RecursionError, http.client.HTTPException: it cannot be read or
            is not JSON.
    """
    if source.startswith(("https://", "http://")):
        request = urllib.request.Request(source, headers={"Accept": "application/json"})
        with _open(request, timeout) as answer:
            kind = answer.headers.get_content_type()
            if kind in ("text/html", "text/x-python"):
                what = "a web page" if kind == "text/html" else "a program (run it: python3 FILE)"
                raise ValueError(f"this URL is {what}, not an audit document; the JSON of "
                                 "a match's dice record is at /api/audit/MATCH_ID")
            return json.load(answer)
    with open(source, encoding="utf-8") as file:
        return json.load(file)


def dice_left_to_verify(source: str, document: dict) -> str:
    """The line a check that holds ends with: the dice and the record's hashes are not checked
    here (a document with rewritten dice passes, its leaves and proofs intact) but by
    ``verify.py``, and the command that checks them, in the form ``docs/fair-dice.md`` and the
    audit page give it (``python3 verify.py FILE_OR_URL``). A roll's proof is one roll of a
    match: ``verify.py`` checks the match's audit document (the proof's URL up to ``/rolls/``,
    else the match's address)."""
    target = shlex.quote(source)
    if document.get("format") == PROOF_FORMAT:
        if source.startswith(("https://", "http://")) and "/rolls/" in source:
            target = shlex.quote(source.split("/rolls/")[0])
        else:
            target = f"https://…/api/audit/{document.get('match_id')}"
    return ("the dice and the record's hashes are not checked here but by verify.py "
            f"(GET /audit/verify.py): python3 verify.py {target}")


def main(argv: list[str] | None = None) -> int:
    """``python3 transparency.py FILE_OR_URL``: check an audit document's log section."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("source", help="an audit JSON file or its https:// URL (or one "
                        "roll's proof)")
    parser.add_argument(
        "--scan",
        action="store_true",
        help="also fetch the server's newest signed head, check that the same key signed it "
        "and that it extends the document's head (a consistency proof), read the log up to it "
        "and check that the document holds every entry of its match (source: the match's "
        "audit URL)",
    )
    parser.add_argument(
        "--key",
        metavar="HEX",
        help="the log's public key (64 hex digits, from GET /api/log/public-key, kept from "
        "before): the document's heads must be signed with it",
    )
    args = parser.parse_args(argv)
    if args.key is not None and (len(args.key) != 64 or not _is_hex(args.key)):
        parser.error("--key is the log's Ed25519 public key: 64 hex digits")
    if args.scan and not (args.source.startswith(("https://", "http://"))
                          and "/api/audit/" in args.source):
        parser.error("--scan reads the log of the server the source URL names: give the "
                     "match's audit URL (https://…/api/audit/mat_…)")
    try:
        document = _load(args.source)
    except (OSError, ValueError, RecursionError, http.client.HTTPException) as exc:
        print(f"cannot load {args.source}: {exc or type(exc).__name__}", file=sys.stderr)
        return 2
    try:
        record_format(document)
        if args.scan and document["format"] == PROOF_FORMAT:
            print("--scan needs the match's audit document (/api/audit/mat_…), not one roll's "
                  "proof", file=sys.stderr)
            return 2
        for line in check_log(document, args.key):
            print(line)
        if args.scan:
            for line in scan(args.source, document):
                print(line)
        print(dice_left_to_verify(args.source, document))
    except DocumentError as exc:
        print(f"not a document this checker reads ({args.source}): {exc}", file=sys.stderr)
        return 2
    except LogUnreadable as exc:
        print(f"cannot read the server's log: {exc}", file=sys.stderr)
        return 2
    except ProofError as exc:
        print(f"FAILED: {exc}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
