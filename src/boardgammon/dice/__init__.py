"""Provably fair dice: commit, reveal, derive, verify.

The derivation and the verifier (:mod:`boardgammon.dice.verify`) use only the standard library;
the persisted record lives in the server (:mod:`boardgammon.server.dice_record`). The
specification with test vectors is ``docs/fair-dice.md``.
"""

from boardgammon.dice.ids import is_match_id, is_roll_id, new_match_id, new_roll_id
from boardgammon.dice.verify import (
    DICE_SPEC,
    ENTROPY_BYTES,
    SEED_BYTES,
    commitment,
    derive_dice,
    entry_hash,
    verify_document,
)

__all__ = [
    "DICE_SPEC",
    "ENTROPY_BYTES",
    "SEED_BYTES",
    "commitment",
    "derive_dice",
    "entry_hash",
    "is_match_id",
    "is_roll_id",
    "new_match_id",
    "new_roll_id",
    "verify_document",
]
