"""Match and roll IDs: a prefix and 120 random bits, so that no one can guess one.

``mat_`` + 24 lowercase base32 characters for a match, ``rol_`` + 24 for a roll (15 bytes from
:mod:`secrets`). The dice derivation hashes the IDs as UTF-8 text, so any ID a record holds
(e.g. the test vectors' ``mat_TESTVECTOR0001``) works; the server accepts in URLs
and records what :data:`MATCH_ID_PATTERN` and :data:`ROLL_ID_PATTERN` allow.
"""

from __future__ import annotations

import base64
import re
import secrets

MATCH_PREFIX = "mat_"
ROLL_PREFIX = "rol_"
RANDOM_BYTES = 15  # 120 bits: base32 encodes 15 bytes as exactly 24 characters, no padding
MATCH_ID_PATTERN = r"^mat_[A-Za-z0-9]{1,64}$"
ROLL_ID_PATTERN = r"^rol_[A-Za-z0-9]{1,64}$"


def _random_id(prefix: str) -> str:
    return prefix + base64.b32encode(secrets.token_bytes(RANDOM_BYTES)).decode("ascii").lower()


def new_match_id() -> str:
    """A fresh match ID, e.g. ``mat_3q7kz…`` (28 characters)."""
    return _random_id(MATCH_PREFIX)


def new_roll_id() -> str:
    """A fresh roll ID, e.g. ``rol_x2bq…`` (28 characters)."""
    return _random_id(ROLL_PREFIX)


def is_match_id(text: str) -> bool:
    """Whether ``text`` has the form of a match ID (``mat_`` and 1–64 ASCII letters or digits)."""
    return re.fullmatch(MATCH_ID_PATTERN, text) is not None


def is_roll_id(text: str) -> bool:
    """Whether ``text`` has the form of a roll ID (``rol_`` and 1–64 ASCII letters or digits)."""
    return re.fullmatch(ROLL_ID_PATTERN, text) is not None
