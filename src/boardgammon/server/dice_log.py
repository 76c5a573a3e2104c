"""The dice record's public append-only log: every commitment, reveal and state change of every
roll of every match, as leaves of a Merkle tree (RFC 9162), with signed tree heads and proofs
(spec: ``docs/fair-dice.md`` §The public log; the tree's algorithms:
:mod:`boardgammon.dice.transparency`).

Service API (each takes an open :class:`~sqlalchemy.orm.Session`):

``append(session, event, roll, at) -> None``
    The hook of the dice record (:mod:`.dice_record`): append the leaf of a roll's change
    inside the caller's transaction, so the change and its leaf commit or roll back together.
    The leaves of one transaction are written together when it commits (``flush``, which a
    read of the log in that transaction also does first): one action's two changes, a roll
    played and the next one committed, take three statements, not six, and the log's size
    row is locked only at the end of the transaction. ``hold(session)`` before a new roll
    takes its nonce keeps the lock order.
``append_anchor(session, match_id, seat, anchor, at) -> None``
    The same for a seat's accepted hash-chain anchor (v2 dice).
``flush(session) -> int | None``
    Write the transaction's appended leaves now; the index of the first (``None``: none).
``signed_head(session, key, interval_s=…, covering=…, writing=…) -> dict``
    The newest signed tree head, signed now (and stored) if the log grew since and the newest
    is at least ``interval_s`` old or does not cover ``covering`` leaves; a caller with a read
    session passes ``writing`` (:meth:`.db.Database.writing`) to sign in a write session of
    its own (also to ``with_log``, ``anchor_proofs`` and ``roll_proof``).
``inclusion_proof(session, index, size)``, ``consistency_proof(session, first, second)``,
``entries(session, start, count)``, ``with_log(session, key, document)`` (a match's audit
document with its log entries and their proofs), ``roll_proof(session, key, record_format,
match_id, entry, preceding, interval_s)`` (one roll's entry and proofs, heads signed at a
bounded rate), ``cached_roll_proof(session, key, cache, …)`` (the same, built once per state of
the match's record and head for both players and their retries; ``match_version`` names
that state),
``add_cosignature(session, …)`` and ``cosignatures(session, …)`` (a witness's signature of a
head it checked; listed by witness key and paged).

The tree is kept as the hashes of its complete subtrees (table ``log_nodes``): appending a leaf
stores its hash and the subtrees it completes (one more row per leaf on average); a root or a
proof reads its O(log n) subtrees in one query. The left siblings an append needs are the
tree's right edge (the roots of the complete subtrees that make up the tree, one per set bit of
its size), which each process remembers per database as the last append it *committed* left
it (:class:`_Edges`): an append whose index is that size takes them from memory, any other (after
a start, after another process appended, after a roll-back) reads the edge from ``log_nodes``
in one query. The index taken by the size row says which: sizes only grow, so a remembered edge
of size ``n`` is the tree's edge exactly when the next index taken is ``n``. Every row an append
writes still commits in its own transaction, as before; memory only saves the read.

The signing key (:class:`LogKey`) is an Ed25519 key in a PEM file outside the database
(setting ``BOARDGAMMON_LOG_KEY``), made at the server's first start with permissions 0600.

Refusals are :class:`~boardgammon.server.refusals.Refusal` kinds with the codes of
``docs/api.md``.
"""

from __future__ import annotations

import json
import math
import os
import stat
import threading
import weakref
from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar, cast

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from sqlalchemy import Table, and_, bindparam, event, func, insert, or_, select, tuple_, update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, SessionTransaction

from boardgammon.dice.transparency import (
    ANCHOR_EVENT,
    HEAD_FORMAT,
    LOG_FORMAT,
    MATCH_EVENT,
    PROOF_FORMAT,
    Subtree,
    anchor_leaf_bytes,
    consistency_path,
    cosigned_bytes,
    head_bytes,
    inclusion_path,
    leaf_bytes,
    leaf_hash,
    leaves_disagree,
    match_leaf_bytes,
    node_hash,
    root_of,
    split,
    verify_ed25519,
)
from boardgammon.dice.verify import (
    AUDIT_FORMAT_V2,
    LOG_MISMATCH,
    roll_leaves_problem,
    verify_document,
)
from boardgammon.server.proof_cache import ProofCache
from boardgammon.server.refusals import ErrorCode, Illegal, Invalid, NotFound
from boardgammon.server.tables import LogCosignature, LogEntry, LogHead, LogNode, LogSize, MatchRow

T = TypeVar("T")
Writing = Callable[[], AbstractContextManager[Session]]
"""A factory of write sessions (:meth:`.db.Database.writing`) for a caller holding a read one."""

_ENTRIES = cast(Table, LogEntry.__table__)
_NODES = cast(Table, LogNode.__table__)
_SIZE = cast(Table, LogSize.__table__)
_TAKE_INDICES = (
    update(_SIZE).where(_SIZE.c.id == 1).values(size=_SIZE.c.size + bindparam("count"))
    .returning(_SIZE.c.size)
)
_INSERT_ENTRY = insert(_ENTRIES)
_INSERT_NODES = insert(_NODES)
_READ_SIZE = select(_SIZE.c.size).where(_SIZE.c.id == 1)
_HEADS = cast(Table, LogHead.__table__)
_NEWEST_HEAD = select(_HEADS.c.tree_size, _HEADS.c.timestamp, _HEADS.c.root_hash,
                      _HEADS.c.signature).order_by(_HEADS.c.tree_size.desc()).limit(1)
_MATCH_VERSION = select(func.max(_ENTRIES.c.idx)).where(
    _ENTRIES.c.match_id == bindparam("match_id")
)
_ROLL_VERSION = _MATCH_VERSION.where(_ENTRIES.c.roll_id == bindparam("roll_id"))
_HOLD_SIZE = _READ_SIZE.with_for_update()
# Built once (building a statement costs more than running it on SQLite); the keys expand.
_READ_NODES = select(_NODES.c.level, _NODES.c.idx, _NODES.c.hash).where(
    tuple_(_NODES.c.level, _NODES.c.idx).in_(bindparam("keys", expanding=True))
)
MAX_ENTRIES = 1000  # entries per request of ``GET /api/log/entries``


class NoSuchEntry(NotFound):
    """An index or a tree size beyond the log's."""


class BadRange(Invalid):
    """A malformed index, size or range."""


class BadCosignature(Illegal):
    """A witness's co-signature that does not verify with its key."""

    code = ErrorCode.BAD_SIGNATURE


class LogKey:
    """The log's Ed25519 signing key, kept in a PEM file (PKCS #8, unencrypted, mode 0600)."""

    def __init__(self, private: Ed25519PrivateKey) -> None:
        self._private = private
        self.public_key = private.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw
        )

    @classmethod
    def load_or_create(cls, path: Path) -> LogKey:
        """The key in ``path``, made there first if there is none (its folder too).

        Raises:
            PermissionError: the file can be read by others than its owner (mode & 0o077).
            ValueError: the file holds no Ed25519 private key.
        """
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            pem = Ed25519PrivateKey.generate().private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            )
            # Written whole under another name, then linked: a second process starting at the
            # same moment reads either no file or the complete one, and the first link wins.
            draft = path.with_name(f".{path.name}.{os.getpid()}")
            descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(descriptor, "wb") as file:
                file.write(pem)
            try:
                os.link(draft, path)
            except FileExistsError:
                pass
            finally:
                draft.unlink()
        mode = stat.S_IMODE(path.stat().st_mode)
        if mode & 0o077:
            raise PermissionError(
                f"the log signing key {path} has mode {mode:o}; "
                "make it readable by its owner only (chmod 600)"
            )
        private: object
        try:
            private = serialization.load_pem_private_key(path.read_bytes(), password=None)
        except (ValueError, TypeError):  # not PEM, another format, or encrypted
            private = None
        if not isinstance(private, Ed25519PrivateKey):
            raise ValueError(
                f"{path} holds no unencrypted Ed25519 private key (PEM, PKCS #8); point "
                "BOARDGAMMON_LOG_KEY at the log's key, or at a file that does not exist yet "
                "to make a new one (every witness then reports another key)"
            )
        return cls(private)

    def sign(self, message: bytes) -> bytes:
        """The Ed25519 signature of ``message`` (64 bytes)."""
        return self._private.sign(message)


Edge = dict[int, bytes]
"""A tree's right edge: level -> hash of the complete subtree at that level, one per set bit of
the tree's size (the subtree at the highest level covers the first leaves)."""


class _Edges:
    """This process's right edge of the log's tree, per database (engine): the edge after the
    newest append it committed, with the tree size it belongs to. A transaction's own appends
    are kept in its session (``session.info``) until it commits; a roll-back forgets them."""

    PENDING = "boardgammon.dice_log.edge"

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._committed: weakref.WeakKeyDictionary[Engine, tuple[int, Edge]] = (
            weakref.WeakKeyDictionary())

    def get(self, session: Session, engine: Engine, size: int) -> Edge | None:
        """A copy of the edge of the tree of ``size`` leaves, if this transaction or the last
        committed append of this process left exactly that tree; else ``None``."""
        pending = session.info.get(self.PENDING)
        if pending is not None and pending[0] is engine and pending[1] == size:
            return dict(pending[2])
        with self._lock:
            known = self._committed.get(engine)
        return dict(known[1]) if known is not None and known[0] == size else None

    def put(self, session: Session, engine: Engine, size: int, edge: Edge) -> None:
        """The edge after an append of this transaction (remembered once it commits)."""
        session.info[self.PENDING] = (engine, size, edge)

    def committed(self, session: Session) -> None:
        pending = session.info.pop(self.PENDING, None)
        if pending is None:
            return
        engine, size, edge = pending
        with self._lock:
            known = self._committed.get(engine)
            if known is None or known[0] < size:
                self._committed[engine] = (size, edge)

    def ended(self, session: Session, transaction: SessionTransaction) -> None:
        # The end of the transaction or of a savepoint (a roll-back, or a commit that took
        # them first: ``after_commit`` comes before ``after_transaction_end``) forgets the
        # appends not committed, written or not; a flush's inner transaction is no end.
        if transaction.parent is None or transaction.nested:
            session.info.pop(self.PENDING, None)
            session.info.pop(_LEAVES, None)


_LEAVES = "boardgammon.dice_log.leaves"
"""``session.info`` key of the transaction's appended leaves not yet written:
``[(match_id, roll_id, leaf, at), …]``."""
_EDGES = _Edges()


def _flush_before_commit(session: Session) -> None:
    flush(session)


event.listen(Session, "before_commit", _flush_before_commit)
event.listen(Session, "after_commit", _EDGES.committed)
event.listen(Session, "after_transaction_end", _EDGES.ended)


def _edge_keys(size: int) -> list[tuple[int, int]]:
    """The (level, index) of each subtree of the right edge of a tree of ``size`` leaves."""
    keys, start = [], 0
    for level in reversed(range(size.bit_length())):
        if size >> level & 1:
            keys.append((level, start >> level))
            start += 1 << level
    return keys


def _edge(session: Session, connection: Connection, size: int) -> Edge:
    """The right edge of the tree of ``size`` leaves: remembered, or read in one query."""
    edge = _EDGES.get(session, connection.engine, size)
    if edge is None:
        nodes = _read_nodes(connection, _edge_keys(size))
        edge = {level: hashed for (level, _), hashed in nodes.items()}
    return edge


def hold(session: Session) -> None:
    """Lock the log's size row in the caller's transaction before it takes the dice nonce
    counter: every transaction takes the two server-wide rows in that order (size, then
    nonce), so that one that wrote leaves (size: a read of the log in the transaction flushes
    them, see :func:`flush`) and then commits a roll (nonce) never deadlocks with one that
    commits a roll (nonce, then size when it commits) on PostgreSQL. Nothing on SQLite,
    where every write transaction holds the whole database from its start (``BEGIN
    IMMEDIATE``, :mod:`.db`) and ``FOR UPDATE`` is no part of the language."""
    connection = session.connection()
    if connection.dialect.name != "sqlite":
        connection.execute(_HOLD_SIZE)


def append(session: Session, event: str, roll: Mapping[str, Any], at: datetime) -> None:
    """Append the leaf of a roll's change (``event`` the state it entered; ``roll`` its
    fields after the change, as in :func:`~boardgammon.dice.transparency.leaf_bytes`) inside
    the caller's transaction, written with the transaction's other leaves when it commits
    (:func:`flush`)."""
    leaf = leaf_bytes(event, roll, at.astimezone(UTC).isoformat())
    _defer(session, (roll["match_id"], roll["roll_id"], leaf, at))


def append_anchor(session: Session, match_id: str, seat: int, anchor: str, at: datetime) -> None:
    """Append the leaf of ``seat``'s accepted chain anchor (64 hex digits) for ``match_id``
    (:func:`~boardgammon.dice.transparency.anchor_leaf_bytes`) inside the caller's
    transaction, the one that stores the anchor (written as :func:`append`'s)."""
    leaf = anchor_leaf_bytes(match_id, seat, anchor, at.astimezone(UTC).isoformat())
    _defer(session, (match_id, None, leaf, at))


def append_match(session: Session, match_id: str, mode: str, at: datetime,
                 link_wait_ms: int | None = None) -> None:
    """Append the leaf that states how ``match_id`` is played (``mode``: ``live``,
    ``correspondence`` or ``computer``; ``link_wait_ms``: the server's wait for the
    opponent's link in whole milliseconds, ``None`` for a correspondence match, which waits
    for none; :func:`~boardgammon.dice.transparency.match_leaf_bytes`) inside the caller's
    transaction, the one that commits the match's first v2 roll (``at`` that roll's
    commitment time); written as :func:`append`'s.

    Raises:
        ValueError: another ``mode``; a ``link_wait_ms`` that is not an integer >= 0, or one
            for a correspondence match.
    """
    leaf = match_leaf_bytes(match_id, mode, at.astimezone(UTC).isoformat(), link_wait_ms)
    _defer(session, (match_id, None, leaf, at))


def _defer(session: Session, leaf: tuple[str, str | None, bytes, datetime]) -> None:
    """Keep ``leaf`` for the transaction's :func:`flush`, inside a transaction (begun now if
    the session has none), so that its roll-back forgets the leaf."""
    session.connection()
    session.info.setdefault(_LEAVES, []).append(leaf)


def flush(session: Session) -> int | None:
    """Write the leaves the transaction appended since its last flush, in the order appended;
    the index of the first (``None``: nothing to write). Committing does it (a
    ``before_commit`` hook), and so does every read of the log here, so that a transaction
    sees its own leaves.

    Three statements however many leaves: their indices (the size row, grown by their
    number), the leaves, and their hashes with the subtrees they complete; the left siblings
    come from the tree's right edge (see the module docstring). A leaf of no roll (an anchor)
    has ``roll_id`` ``NULL``."""
    leaves = session.info.pop(_LEAVES, None)
    if not leaves:
        return None
    connection = session.connection()  # once: cheaper than a Session.execute per statement
    first = connection.execute(_TAKE_INDICES, {"count": len(leaves)}).scalar_one() - len(leaves)
    connection.execute(
        _INSERT_ENTRY,
        [
            {"idx": first + k, "match_id": match_id, "roll_id": roll_id,
             "leaf": leaf.decode(), "created_at": at}
            for k, (match_id, roll_id, leaf, at) in enumerate(leaves)
        ],
    )
    edge = _edge(session, connection, first)
    rows = []
    for index, (_, _, leaf, _) in enumerate(leaves, start=first):
        hashed = leaf_hash(leaf)
        rows.append({"level": 0, "idx": index, "hash": hashed.hex()})
        # Leaf ``index`` completes one subtree per trailing 1 bit: their left halves are the
        # edge's lowest subtrees, and the new subtree takes their place on the edge.
        completes = (~index & (index + 1)).bit_length() - 1
        for level in range(completes):
            hashed = node_hash(edge.pop(level), hashed)
            rows.append({"level": level + 1, "idx": index >> (level + 1), "hash": hashed.hex()})
        edge[completes] = hashed
    connection.execute(_INSERT_NODES, rows)
    _EDGES.put(session, connection.engine, first + len(leaves), edge)
    return first


def _read_nodes(
    session: Session | Connection, keys: Iterable[tuple[int, int]]
) -> dict[tuple[int, int], bytes]:
    if isinstance(session, Session):
        flush(session)
    wanted = sorted(set(keys))
    if not wanted:
        return {}
    found = session.execute(_READ_NODES, {"keys": wanted}).all()  # one fetch, not row by row
    nodes = {(level, index): bytes.fromhex(hashed) for level, index, hashed in found}
    if len(nodes) != len(wanted):
        missing = sorted(set(wanted) - set(nodes))
        raise RuntimeError(f"the log's tree lacks the subtrees {missing[:5]}")
    return nodes


def _aligned(lo: int, hi: int) -> list[tuple[int, int]]:
    """The complete subtrees (level, index) whose hashes make MTH(D[lo:hi]) by RFC 9162's
    recursion (every range its proofs ask for splits into stored subtrees)."""
    n = hi - lo
    level = n.bit_length() - 1
    if n & (n - 1) == 0 and lo % n == 0:
        return [(level, lo >> level)]
    k = split(n)
    return _aligned(lo, lo + k) + _aligned(lo + k, hi)


def _with_tree(session: Session, build: Callable[[Subtree], T]) -> T:
    """``build(subtree)`` with the tree's stored subtrees: a first pass names the subtrees it
    needs, one query reads them, a second pass builds."""
    wanted: set[tuple[int, int]] = set()

    def name(lo: int, hi: int) -> bytes:
        wanted.update(_aligned(lo, hi))
        return b""

    build(name)
    nodes = _read_nodes(session, wanted)

    def subtree(lo: int, hi: int) -> bytes:
        if hi - lo == 1 or (hi - lo) & (hi - lo - 1) == 0 and lo % (hi - lo) == 0:
            level = (hi - lo).bit_length() - 1
            return nodes[level, lo >> level]
        k = split(hi - lo)
        return node_hash(subtree(lo, lo + k), subtree(lo + k, hi))

    return build(subtree)


def size(session: Session) -> int:
    """The number of leaves in the log (the transaction's own appends written first)."""
    flush(session)
    return int(session.execute(_READ_SIZE).scalar_one())


def root(session: Session, tree_size: int) -> bytes:
    """MTH of the first ``tree_size`` leaves (SHA-256 of nothing for 0)."""
    if tree_size == 0:
        return root_of([])
    return _with_tree(session, lambda subtree: subtree(0, tree_size))


def _head_json(row: LogHead) -> dict:
    return {
        "format": HEAD_FORMAT,
        "tree_size": row.tree_size,
        "timestamp": row.timestamp,
        "root_hash": row.root_hash,
        "signature": row.signature,
    }


def signed_head(
    session: Session,
    key: LogKey,
    now: datetime | None = None,
    *,
    interval_s: float = 0.0,
    covering: int = 0,
    writing: Writing | None = None,
) -> dict:
    """The newest signed tree head: ``{"format": "boardgammon-log-head-v1", "tree_size",
    "timestamp" (ms since 1970 UTC), "root_hash" (hex), "signature" (hex, Ed25519 of
    :func:`~boardgammon.dice.transparency.head_bytes`)}``.

    A new head of the whole log is signed and stored when the log has grown since the newest
    stored head and either that head is at least ``interval_s`` seconds old or it covers fewer
    than ``covering`` leaves (a caller that must show a head including a given leaf passes its
    index + 1; 0: the interval alone decides). So requests sign at most one head per
    ``interval_s`` per process (more only when two processes race, or for ``covering``);
    ``interval_s`` 0 signs whenever the log grew.

    Without ``writing`` the head is signed in ``session`` (committing it). With it (a read
    session's caller: :meth:`.db.Database.writing`), ``session``'s transaction is ended and
    the head signed in a session of ``writing`` (a read transaction on SQLite cannot become a
    write one once another connection committed), so ``session``'s next read starts a
    snapshot that holds the head's tree.
    """
    stamp = int((now or datetime.now(UTC)).timestamp() * 1000)
    due, newest = _head_due(session, stamp, interval_s, covering)
    if not due:
        return newest
    if writing is None:
        return _sign(session, key, stamp)
    session.commit()
    with writing() as writer:
        due, newest = _head_due(writer, stamp, interval_s, covering)
        return _sign(writer, key, stamp) if due else newest


def _head_due(session: Session, stamp: int, interval_s: float, covering: int
              ) -> tuple[bool, dict]:
    """Whether :func:`signed_head` signs a new head at ``stamp`` (ms), and the newest stored
    one as :func:`_head_json` (typed as present: it is, whenever no new head is due)."""
    newest = _newest_head(session)
    due = newest is None or (
        newest["tree_size"] < size(session)
        and (newest["tree_size"] < covering or stamp - newest["timestamp"] >= interval_s * 1000)
    )
    return due, cast(dict, newest)


def _sign(session: Session, key: LogKey, stamp: int) -> dict:
    """Sign, store and commit the head of the whole log at ``stamp`` (ms)."""
    current = size(session)
    hashed = root(session, current)
    row = LogHead(
        tree_size=current,
        timestamp=stamp,
        root_hash=hashed.hex(),
        signature=key.sign(head_bytes(current, stamp, hashed)).hex(),
    )
    session.add(row)
    try:
        session.commit()
    except IntegrityError:
        # Another request signed this size first: its head is the one.
        session.rollback()
        return _head_json(session.get_one(LogHead, current))
    return _head_json(row)


def _newest_head(session: Session) -> dict | None:
    """The newest stored head as :func:`_head_json`, read as columns: loading the ORM object
    cost a tenth of a roll's proof."""
    row = session.execute(_NEWEST_HEAD).first()
    return None if row is None else {"format": HEAD_FORMAT, **row._asdict()}


def _check_size(session: Session, tree_size: int) -> None:
    have = size(session)
    if tree_size > have:
        raise NoSuchEntry(f"the log has {have} entries, not {tree_size}")


def inclusion_proof(session: Session, index: int, tree_size: int) -> dict:
    """``{"index", "tree_size", "leaf", "leaf_hash", "inclusion_path": [hex …]}``: the leaf at
    ``index`` and its audit path (RFC 9162 §2.1.3) in the tree of ``tree_size`` leaves.

    Raises:
        BadRange: not 0 <= index < tree_size. NoSuchEntry: the log is smaller.
    """
    if not 0 <= index < tree_size:
        raise BadRange(
            f"leaf {index} is not in a tree of {tree_size} leaves (0 <= index < tree_size)"
        )
    _check_size(session, tree_size)  # flushes
    leaf = session.execute(select(_ENTRIES.c.leaf).where(_ENTRIES.c.idx == index)).scalar_one()
    path = _with_tree(session, lambda subtree: inclusion_path(index, tree_size, subtree))
    return {
        "index": index,
        "tree_size": tree_size,
        "leaf": leaf,
        "leaf_hash": leaf_hash(leaf.encode()).hex(),
        "inclusion_path": [p.hex() for p in path],
    }


def consistency_proof(session: Session, first: int, second: int) -> dict:
    """``{"first", "second", "consistency_path": [hex …]}`` (RFC 9162 §2.1.4).

    Raises:
        BadRange: not 1 <= first <= second. NoSuchEntry: the log is smaller than ``second``.
    """
    if not 1 <= first <= second:
        raise BadRange(
            f"no consistency proof from size {first} to size {second} (1 <= first <= second)"
        )
    _check_size(session, second)
    path = _with_tree(session, lambda subtree: consistency_path(first, second, subtree))
    return {"first": first, "second": second, "consistency_path": [p.hex() for p in path]}


def entries(session: Session, start: int, count: int) -> list[dict]:
    """Up to ``count`` (at most :data:`MAX_ENTRIES`) leaves from index ``start``:
    ``[{"index", "leaf"}, …]``.

    Raises:
        BadRange: a negative ``start`` or a ``count`` outside 1 … MAX_ENTRIES.
    """
    if start < 0 or not 1 <= count <= MAX_ENTRIES:
        raise BadRange(f"entries from a start >= 0, 1 to {MAX_ENTRIES} at a time")
    flush(session)
    rows = session.execute(
        select(_ENTRIES.c.idx, _ENTRIES.c.leaf)
        .where(_ENTRIES.c.idx >= start, _ENTRIES.c.idx < start + count)
        .order_by(_ENTRIES.c.idx)
    )
    return [{"index": index, "leaf": leaf} for index, leaf in rows]


def _proven(
    session: Session, rows: list[Any], tree_size: int
) -> dict[str | None, list[dict]]:
    """Log rows ``(idx, roll_id, leaf)`` (each below ``tree_size``) with their inclusion
    proofs in the tree of ``tree_size`` leaves, by roll (``None``: the match's anchors), in
    log order: ``{roll_id: [{"index", "event", "leaf", "inclusion_path": [hex …]}, …]}``."""
    paths = _with_tree(
        session, lambda subtree: [inclusion_path(index, tree_size, subtree) for index, _, _ in rows]
    )
    by_roll: dict[str | None, list[dict]] = {}
    for (index, roll_id, leaf), path in zip(rows, paths, strict=True):
        by_roll.setdefault(roll_id, []).append(
            {
                "index": index,
                "event": json.loads(leaf)["event"],
                "leaf": leaf,
                "inclusion_path": [p.hex() for p in path],
            }
        )
    return by_roll


def _match_rows(session: Session, match_id: str, roll_id: str | None = None) -> list[Any]:
    """The log rows ``(idx, roll_id, leaf)`` of a match (of one of its rolls), in log order."""
    query = select(_ENTRIES.c.idx, _ENTRIES.c.roll_id, _ENTRIES.c.leaf).where(
        _ENTRIES.c.match_id == match_id
    )
    if roll_id is not None:
        query = query.where(_ENTRIES.c.roll_id == roll_id)
    flush(session)
    return list(session.execute(query.order_by(_ENTRIES.c.idx)))


def _log_json(key: LogKey, head: dict) -> dict:
    return {"format": LOG_FORMAT, "public_key": key.public_key.hex(), "head": head}


def match_head(session: Session, key: LogKey, match_id: str, *,
               writing: Writing | None = None) -> dict | None:
    """The first signed tree head (as :func:`signed_head`) that includes every entry of
    ``match_id`` in the log so far: for a finished match, the head its result showed when it
    ended (``result.log_head`` of the ``match_end`` event, signed right after the last
    change) or, if another was signed first, the earliest one after it; one is signed now if
    no stored head covers the match's newest entry yet. ``None`` for a match with no entries
    in the log (none exists, or it was played before the log began). ``writing``: as in
    :func:`signed_head`."""
    flush(session)
    last = session.execute(_MATCH_VERSION, {"match_id": match_id}).scalar()
    if last is None:
        return None
    row = session.execute(
        select(_HEADS.c.tree_size, _HEADS.c.timestamp, _HEADS.c.root_hash, _HEADS.c.signature)
        .where(_HEADS.c.tree_size > last).order_by(_HEADS.c.tree_size).limit(1)).first()
    if row is not None:
        return {"format": HEAD_FORMAT, **row._asdict()}
    return signed_head(session, key, interval_s=float("inf"), covering=last + 1,
                       writing=writing)


def with_log(session: Session, key: LogKey, document: dict, *,
             writing: Writing | None = None) -> dict:
    """``document`` (a match's audit document) with the log added: ``document["log"]`` is
    ``{"format": "boardgammon-log-v1", "public_key" (hex), "head", "anchors", "match"}``
    (``anchors``: the leaves of the match's accepted chain anchors with their proofs, in log
    order, each as a roll's entries below; ``match``, v2 only: the leaf that states the
    match's mode, logged with its first roll, or ``None``), ``head`` :func:`signed_head`, one
    that includes every entry of the match: the newest stored head if it does, else one
    signed now whatever its age) and each roll's ``log`` its entries in log order,
    ``[{"index", "event" (the leaf's, for reading), "leaf", "inclusion_path": [hex …]}, …]``
    (empty for a roll committed before the log began). ``writing``: as in
    :func:`signed_head`.

    A record that verifies by its chain but not against these entries (a roll rewritten and
    its chain re-hashed, relabelled, or left out) gets ``verified`` false and the ``failure``
    ``log mismatch``, and one whose rolls skip a chain the log shows accepted ``chain
    skipped`` or ``anchor missing`` (:func:`_check_against_log`)."""
    rows = _match_rows(session, document["match_id"])
    covering = rows[-1][0] + 1 if rows else 0
    head = signed_head(session, key, interval_s=float("inf"), covering=covering,
                       writing=writing)
    by_roll = _proven(session, rows, head["tree_size"])  # the head covers every row read
    of_match = by_roll.get(None, [])  # the leaves of no roll: anchors, and the match's mode
    document["log"] = _log_json(key, head) | {
        "anchors": [e for e in of_match if e["event"] == ANCHOR_EVENT]}
    if document["format"] == AUDIT_FORMAT_V2:
        document["log"]["match"] = next((e for e in of_match if e["event"] == MATCH_EVENT),
                                        None)
    for roll in document["rolls"]:
        roll["log"] = by_roll.get(roll["roll_id"], [])
    _check_against_log(document, rows)
    return document


def _check_against_log(document: dict, rows: list[Any]) -> None:
    """Fail a ``document`` whose chain verifies but whose rolls the log's ``rows`` (the
    match's, all of them) contradict, or (v2) skip a chain whose anchor leaf it lists: the
    server holds the log, so its verdict does not say "intact" for a record that only
    ``transparency.py`` or ``verify.py`` with the leaves would catch (issue #25). The
    record's own failure, if any, comes first and stays."""
    if not document["verified"]:
        return
    v2 = document["format"] == AUDIT_FORMAT_V2
    judged = False  # whether verify_document read the rolls' leaves (roll_leaves_problem)
    if v2 and document["log"]["anchors"]:
        judged = True
        # The verdict judged the rolls without the log: a roll requested after an anchor's
        # leaf that took no link of it (chain skipped), or an anchor leaf that is not the
        # record's (anchor missing), shows only now.
        report = verify_document(document)
        failure = report.failure
        if failure is not None:
            # Every roll the log shows failing is marked (several rolls revealed before the
            # stated wait are each ``absent too early``), not only the first, which names the
            # document's failure.
            for check in report.checks:
                if check.failed and check.index < len(document["rolls"]):
                    roll = document["rolls"][check.index]
                    roll["verdict"], roll["verdict_detail"] = check.verdict, check.detail
            if failure.index < len(document["rolls"]):
                roll = document["rolls"][failure.index]
                roll["verdict"], roll["verdict_detail"] = failure.verdict, failure.detail
            document["verified"] = False
            document["failure"] = {"index": failure.index, "roll_id": failure.roll_id,
                                   "reason": failure.verdict, "detail": failure.detail}
            return
    for index, roll in enumerate(document["rolls"]):
        problem = leaves_disagree(roll, v2)
        if problem is None and v2 and not judged:
            # Each leaf's entry hash is the roll's as it stood after that change (some 0.1 ms
            # a roll: verify_document above, where it ran, has checked it already).
            leaves = [(entry["index"], json.loads(entry["leaf"])) for entry in roll["log"]]
            problem = roll_leaves_problem(document["match_id"], roll, leaves)
        if problem:
            roll["verdict"], roll["verdict_detail"] = LOG_MISMATCH, problem
            _fail(document, index, roll["roll_id"], problem)
            return
    shown = {roll["roll_id"] for roll in document["rolls"]}
    for idx, roll_id, leaf in rows:
        if roll_id is not None and roll_id not in shown:
            fields = json.loads(leaf)
            _fail(document, len(document["rolls"]), roll_id,
                  f"log entry {idx} ({fields.get('event')} of roll {roll_id}, seq "
                  f"{fields.get('seq')}) is not in the record")
            return


def _fail(document: dict, index: int, roll_id: str, detail: str) -> None:
    document["verified"] = False
    document["failure"] = {"index": index, "roll_id": roll_id, "reason": LOG_MISMATCH,
                           "detail": detail}


def anchor_proofs(session: Session, key: LogKey, match_id: str, *,
                  writing: Writing | None = None) -> dict:
    """The leaves of a match's accepted chain anchors with their inclusion proofs, what a
    device checks after registering its anchor (``GET /api/audit/{match_id}/anchors``):
    ``{"format": "boardgammon-log-v1", "public_key", "head" (one that covers them, signed now
    if none does), "anchors": [{"index", "event": "anchor", "leaf", "inclusion_path"}, …]}``
    in log order (empty: none accepted, or a match rolled with v1 dice). ``writing``: as in
    :func:`signed_head`.

    Raises:
        NotFound: no match ``match_id`` (neither a match of the server nor in the log).
    """
    rows = _leaf_rows(session, match_id, ANCHOR_EVENT)
    if not rows and session.get(MatchRow, match_id) is None:
        raise NotFound(f"no match {match_id!r}")
    covering = rows[-1][0] + 1 if rows else 0
    head = signed_head(session, key, interval_s=float("inf"), covering=covering,
                       writing=writing)
    proven = _proven(session, rows, head["tree_size"])
    return _log_json(key, head) | {"anchors": proven.get(None, [])}


def proven_anchors(session: Session, match_id: str, tree_size: int) -> list[dict]:
    """The leaves of the match's accepted chain anchors in the tree of ``tree_size`` leaves
    (those after it left out), with their inclusion proofs there, in log order:
    ``[{"index", "event": "anchor", "leaf", "inclusion_path"}, …]`` (what a roll's program
    checks beside the roll's own leaves, under the same head)."""
    rows = [row for row in _leaf_rows(session, match_id, ANCHOR_EVENT) if row[0] < tree_size]
    return _proven(session, rows, tree_size).get(None, [])


def proven_match_leaf(session: Session, match_id: str, tree_size: int) -> dict | None:
    """The leaf that states how the match is played (its first, ``docs/fair-dice.md`` §The
    public log, Match leaf) if the tree of ``tree_size`` leaves holds it, with its inclusion
    proof there: ``{"index", "event": "match", "leaf", "inclusion_path"}``, else ``None`` (a
    match from before the leaf, or none logged yet). A roll's program checks an ``absent``
    roll's wait against it."""
    rows = [row for row in _leaf_rows(session, match_id, MATCH_EVENT) if row[0] < tree_size]
    return _proven(session, rows[:1], tree_size)[None][0] if rows else None


def _leaf_rows(session: Session, match_id: str, event: str) -> list[Any]:
    """The log rows ``(idx, None, leaf)`` of the match's leaves of no roll whose ``event`` is
    ``event`` (:data:`ANCHOR_EVENT`: its accepted anchors; :data:`MATCH_EVENT`: its mode's),
    in log order."""
    query = select(_ENTRIES.c.idx, _ENTRIES.c.roll_id, _ENTRIES.c.leaf).where(
        _ENTRIES.c.match_id == match_id, _ENTRIES.c.roll_id.is_(None)
    )
    flush(session)
    rows = session.execute(query.order_by(_ENTRIES.c.idx))
    return [row for row in rows if json.loads(row[2]).get("event") == event]


def roll_proof(
    session: Session,
    key: LogKey,
    record_format: str,
    match_id: str,
    entry: dict,
    preceding: list[dict],
    interval_s: float,
    now: datetime | None = None,
    *,
    cover: bool = False,
    writing: Writing | None = None,
) -> dict:
    """One roll's audit entry (``entry``, of match ``match_id``'s record of ``record_format``)
    with its log entries proven against a signed head, what a player's device checks after
    each roll instead of the whole document (``GET /api/audit/{match_id}/rolls/{roll_id}/proof``):
    ``{"preceding" (audit entries before the roll, as given: for v2 those of
    :func:`.dice_record_v2.roll_window`), "format": "boardgammon-roll-proof-v1",
    "record_format", "match_id", "roll" (the entry with ``log`` as in :func:`with_log`),
    "log": {"format", "public_key", "head"}, "covered" (bool), "retry_after" (seconds, or
    None)}``.

    The head is :func:`signed_head` under ``interval_s``, so these requests sign at most one
    head per interval per process. ``covered`` is false when the roll's newest entry is not
    yet under that head: ``roll.log`` then holds only the entries that are, and
    ``retry_after`` says in how many whole seconds (at least 1) a request may get a newer
    head. ``cover``: the newest head that covers the roll's entries whatever its age, signed
    now if there is none (the roll's program, which must be complete). ``writing``: as in
    :func:`signed_head`.
    """
    roll_id = entry["roll_id"]
    moment = now or datetime.now(UTC)
    rows = _match_rows(session, match_id, roll_id)
    if cover:
        covering = rows[-1][0] + 1 if rows else 0
        head = signed_head(session, key, moment, interval_s=float("inf"), covering=covering,
                           writing=writing)
    else:
        head = signed_head(session, key, moment, interval_s=interval_s, writing=writing)
    tree_size = head["tree_size"]
    covered = all(index < tree_size for index, _, _ in rows)
    retry_after = None if covered else _retry_after(head, interval_s, moment)
    proven = _proven(session, [r for r in rows if r[0] < tree_size], tree_size)
    return {
        "preceding": preceding,
        "format": PROOF_FORMAT,
        "record_format": record_format,
        "match_id": match_id,
        "roll": {**entry, "log": proven.get(roll_id, [])},
        "log": _log_json(key, head),
        "covered": covered,
        "retry_after": retry_after,
    }


def _retry_after(head: dict, interval_s: float, moment: datetime) -> int:
    """Whole seconds (at least 1) until a request at ``moment`` may get a head newer than
    ``head`` (signed at most once per ``interval_s``)."""
    wait_ms = head["timestamp"] + interval_s * 1000 - moment.timestamp() * 1000
    return max(1, math.ceil(wait_ms / 1000))


def match_version(session: Session, match_id: str) -> int | None:
    """The index of the match's newest leaf in the log (``None``: it has none). Every change
    of a match's record appends a leaf of the match in its transaction, so the record of a
    match is the same wherever this is (what :class:`.proof_cache.ProofCache` keys on)."""
    flush(session)
    return session.execute(_MATCH_VERSION, {"match_id": match_id}).scalar()


def cached_roll_proof(
    session: Session,
    key: LogKey,
    cache: ProofCache,
    match_id: str,
    roll_id: str,
    after: int | None,
    entries: Callable[[], tuple[str, dict, list[dict]]],
    interval_s: float,
    now: datetime | None = None,
    *,
    hold_s: float = 0.0,
    writing: Writing | None = None,
) -> dict | float:
    """:func:`roll_proof` of the roll (``entries()``: its record's format, its audit entry and
    the entries before it), built once per match version and head and then taken from
    ``cache`` (the returned proof is shared: not to be changed): both players' devices ask for
    each roll's proof, and again after ``Retry-After`` while no signed head covers it.

    ``hold_s``: where no proof is kept, no signed head covers the roll's newest leaf yet and
    the next head is due within ``hold_s`` seconds, the seconds to wait before asking again
    (a float) instead of a proof, with ``session``'s transaction ended (its next read sees the
    head then signed): a caller that waits that long gets the proof covered, where an answer
    ``covered: false`` now would cost a build and a request more.

    A proof that is ``covered`` is served for as long as the match's record stands
    (:func:`match_version`, read before anything else, so that a proof is never stored under
    a version older than what it holds), under the head it was built with (newer heads may
    exist: that one still proves the roll). One that is not is served again, with its
    ``retry_after`` counted anew, while the newest signed head (signed now if due, as
    :func:`signed_head` with ``interval_s``) is still the one it was built with; then the
    proof is built again. Requests for the same proof at once build it one after the other
    (:meth:`.proof_cache.ProofCache.building`), so that the second takes the first's."""
    moment = now or datetime.now(UTC)
    version = match_version(session, match_id)
    proof_key = (match_id, roll_id, after)
    known = None if version is None else cache.get(proof_key, version)
    if known is not None and known["covered"]:
        return known
    if hold_s > 0:
        wait = _cover_wait(session, match_id, roll_id, interval_s, moment)
        if 0 < wait <= hold_s:
            session.commit()
            return wait
    if known is not None:
        head = signed_head(session, key, moment, interval_s=interval_s, writing=writing)
        if head["tree_size"] == known["log"]["head"]["tree_size"]:
            return {**known, "retry_after": _retry_after(head, interval_s, moment)}

    def build() -> dict:
        record_format, entry, preceding = entries()
        return roll_proof(session, key, record_format, match_id, entry, preceding, interval_s,
                          moment, writing=writing)

    if version is None:
        return build()
    # Waiting for the other build holds no connection: with the pool's taken by waiters, the
    # build could not get the one it signs a head in. A build's reads may then see a record
    # newer than ``version``: stored under it, it is served only while no change has come.
    session.commit()
    with cache.building(proof_key):
        known = cache.get(proof_key, version)  # built meanwhile by the other player's request
        if known is not None and known["covered"]:
            return known
        proof = build()
        cache.put(proof_key, version, proof)
    return proof


def _cover_wait(session: Session, match_id: str, roll_id: str, interval_s: float,
                moment: datetime) -> float:
    """Seconds from ``moment`` until a request may sign a head over the roll's newest leaf
    (just after :func:`signed_head` will, under ``interval_s``); 0 if the newest head covers
    it, one is due now, or the roll has no leaf (a build answers for it). Reads only."""
    flush(session)
    last = session.execute(_ROLL_VERSION, {"match_id": match_id, "roll_id": roll_id}).scalar()
    newest = _newest_head(session)
    if last is None or newest is None or last < newest["tree_size"]:
        return 0.0
    wait_ms = newest["timestamp"] + interval_s * 1000 - moment.timestamp() * 1000
    # A few ms over: the head's age is counted in whole ms, and it must be due on arrival.
    return wait_ms / 1000 + 0.005 if wait_ms > 0 else 0.0


def add_cosignature(
    session: Session, tree_size: int, witness_key: str, signature: str, now: datetime | None = None
) -> dict:
    """Store a witness's co-signature of the signed head of ``tree_size`` (commits):
    ``{"tree_size", "witness_key", "signature", "received_at"}``; the same one again is
    accepted and changes nothing.

    Raises:
        NoSuchEntry: no signed head of that size. BadRange: a key or signature not hex of
        32 or 64 bytes. BadCosignature: it does not verify.
    """
    try:
        public, signed = bytes.fromhex(witness_key), bytes.fromhex(signature)
    except ValueError:
        public = signed = b""
    if len(public) != 32 or len(signed) != 64:
        raise BadRange("a witness key is 64 hex characters and a signature 128")
    head = session.get(LogHead, tree_size)
    if head is None:
        raise NoSuchEntry(f"no signed tree head of size {tree_size}")
    if not verify_ed25519(public, signed, cosigned_bytes(_head_json(head))):
        raise BadCosignature(
            f"the signature does not verify with key {witness_key} over the "
            f"head of size {tree_size}"
        )
    row = session.get(LogCosignature, (tree_size, witness_key.lower()))
    if row is None:
        row = LogCosignature(
            tree_size=tree_size,
            witness_key=witness_key.lower(),
            signature=signature.lower(),
            received_at=now or datetime.now(UTC),
        )
        session.add(row)
        session.commit()
    return _cosignature_json(row)


def _cosignature_json(row: LogCosignature) -> dict:
    return {
        "tree_size": row.tree_size,
        "witness_key": row.witness_key,
        "signature": row.signature,
        "received_at": row.received_at.isoformat(),
    }


COSIGNATURES_PAGE = 50  # co-signatures per page of ``GET /api/log/witnesses`` by default
MAX_COSIGNATURES = 500  # and at most


def cosignatures(
    session: Session,
    limit: int = COSIGNATURES_PAGE,
    *,
    key: str | None = None,
    before: int | None = None,
    before_key: str | None = None,
) -> list[dict]:
    """Co-signatures, each with its head, largest heads first and, within a head, by witness
    key from the largest (hex order): ``[{"tree_size", "head", "witness_key", "signature",
    "received_at"}, …]``, at most ``limit`` (1 … :data:`MAX_COSIGNATURES`).

    ``key`` (64 hex digits): only that witness's. ``before`` (a tree size): the page that
    follows the row of that head and ``before_key`` in this order (with no ``before_key``, the
    heads below ``before``); pass the last row's ``tree_size`` and ``witness_key`` for the next
    page. There is at most one co-signature per witness key and head (a repeat stores nothing),
    so paging reaches every one however many others there are.

    Raises:
        BadRange: ``limit`` out of range, a ``key`` or ``before_key`` that is not 64 hex
            digits, or a ``before_key`` without ``before``.
    """
    if not 1 <= limit <= MAX_COSIGNATURES:
        raise BadRange(f"co-signatures 1 to {MAX_COSIGNATURES} at a time, not {limit}")
    for name, value in (("key", key), ("before_key", before_key)):
        if value is not None and not _is_key(value):
            raise BadRange(f"{name} is a witness's Ed25519 public key, 64 hex digits: {value!r}")
    if before_key is not None and before is None:
        raise BadRange("before_key pages from the row (before, before_key): give before too")
    query = select(LogCosignature, LogHead).join(
        LogHead, LogHead.tree_size == LogCosignature.tree_size
    )
    if key is not None:
        query = query.where(LogCosignature.witness_key == key.lower())
    if before is not None:
        below = LogCosignature.tree_size < before
        if before_key is not None:
            below = or_(below, and_(LogCosignature.tree_size == before,
                                    LogCosignature.witness_key < before_key.lower()))
        query = query.where(below)
    rows = session.execute(
        query.order_by(LogCosignature.tree_size.desc(), LogCosignature.witness_key.desc())
        .limit(limit)
    )
    return [{**_cosignature_json(cosigned), "head": _head_json(head)} for cosigned, head in rows]


def _is_key(value: str) -> bool:
    return len(value) == 64 and all(c in "0123456789abcdefABCDEF" for c in value)
