"""The roll proofs this process built, kept for the next request of the same proof: after each
revealed roll both players' pages ask for the same roll's proof, each again after
``Retry-After`` while no signed head covers it (:func:`.dice_log.cached_roll_proof`).

A proof is asked for by ``(match_id, roll_id, after)`` and stored with the match's
*version*: the index of the match's newest leaf in the public log. Every change of a match's
record (a roll's commitment, request, reveal, play or voiding, an accepted anchor) appends a
leaf of that match in the same transaction, so a proof built from the record as of a version
is the proof of that record for as long as the version stands; a proof built under a signed
head stays a proof under that head (the log only grows). Bounded: the least recently used
proof goes first.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

ProofKey = tuple[str, str, int | None]
"""``(match_id, roll_id, after)`` of ``GET /api/audit/{match_id}/rolls/{roll_id}/proof``."""

CAPACITY = 1024
"""Proofs kept (a few KB each): some seconds of live play of a few hundred matches, the span in
which both players and their retries ask for a roll's proof."""

STRIPES = 64
"""Build locks: proofs of different keys are built side by side unless their keys share one."""


class ProofCache:
    """Built proofs by :data:`ProofKey`, each with the match version it was built at
    (thread-safe). The proofs are shared: whoever gets one must not change it."""

    def __init__(self, capacity: int = CAPACITY) -> None:
        if capacity < 1:
            raise ValueError(f"a proof cache holds at least 1 proof, not {capacity}")
        self._capacity = capacity
        self._lock = threading.Lock()
        self._proofs: OrderedDict[ProofKey, tuple[int, dict]] = OrderedDict()
        self._builds = [threading.Lock() for _ in range(STRIPES)]

    def building(self, key: ProofKey) -> threading.Lock:
        """The lock to build ``key``'s proof under (one of :data:`STRIPES`, by the key's
        hash): both players' requests come at once and would otherwise both build it; the
        second finds it stored once the first is done."""
        return self._builds[hash(key) % STRIPES]

    def get(self, key: ProofKey, version: int) -> dict | None:
        """The proof stored for ``key`` if it was built at ``version``, else ``None`` (one
        built at another version is dropped)."""
        with self._lock:
            stored = self._proofs.get(key)
            if stored is None:
                return None
            if stored[0] != version:
                del self._proofs[key]
                return None
            self._proofs.move_to_end(key)
            return stored[1]

    def put(self, key: ProofKey, version: int, proof: dict) -> None:
        """Keep ``proof`` for ``key``, built at ``version``."""
        with self._lock:
            self._proofs[key] = (version, proof)
            self._proofs.move_to_end(key)
            while len(self._proofs) > self._capacity:
                self._proofs.popitem(last=False)

    def __len__(self) -> int:
        with self._lock:
            return len(self._proofs)
