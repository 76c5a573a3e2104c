"""Provably fair dice: commit, reveal, derive, verify.

The derivation and the verifier (:mod:`boardgammon.dice.verify`) use only the standard library;
the persisted record lives in the server (:mod:`boardgammon.server.dice_record`). The
specification with test vectors is ``docs/fair-dice.md``.

The package gives the IDs (:mod:`boardgammon.dice.ids`); the derivation and the checks are
imported from :mod:`boardgammon.dice.verify` itself. The package does not import the verifier:
``python -m boardgammon.dice.verify`` imports the package first, and a verifier already loaded
by it made :mod:`runpy` warn that the module it runs was in ``sys.modules`` before it ran.
"""

from boardgammon.dice.ids import is_match_id, is_roll_id, new_match_id, new_roll_id

__all__ = ["is_match_id", "is_roll_id", "new_match_id", "new_roll_id"]
