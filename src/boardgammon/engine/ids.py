"""gnubg's Position ID, encoded and decoded exactly as GNU Backgammon does.

Source: the gnubg manual, "Technical description of the Position ID". For each side, first the
side *not* on roll, then the side on roll, and for each of its 25 places in its own numbering
(points 1–24, then the bar) write as many 1-bits as there are checkers, then one 0-bit. The
(at most 80) bits are packed least-significant bit first into 10 bytes and written in base64
without padding: 14 characters. The standard starting position is ``4HPwATDgc/ABMA``.
"""

from __future__ import annotations

import base64
import binascii

import numpy as np

from .errors import InvalidPosition

POSITION_ID_LENGTH = 14


def encode_position_id(board: np.ndarray) -> str:
    """Encode a position as a gnubg Position ID.

    Args:
        board: ``int8[2, 25]``, row 0 the player on roll, row 1 the opponent, each in its own
            numbering (index 0–23 = points 1–24, index 24 = bar).

    Returns:
        the 14-character Position ID.
    """
    key = bytearray(10)
    bit = 0
    for side in (1, 0):
        for i in range(25):
            for _ in range(int(board[side, i])):
                key[bit >> 3] |= 1 << (bit & 7)
                bit += 1
            bit += 1
    return base64.b64encode(bytes(key)).decode("ascii")[:POSITION_ID_LENGTH]


def decode_position_id(position_id: str) -> np.ndarray:
    """Decode a gnubg Position ID into an ``int8[2, 25]`` array (layout of :func:`encode_position_id`).

    Raises:
        InvalidPosition: the text is not 14 base64 characters, or its bits do not describe 25
            places per side with at most 15 checkers each.
    """
    if not isinstance(position_id, str) or len(position_id) != POSITION_ID_LENGTH:
        raise InvalidPosition(
            f"a Position ID has {POSITION_ID_LENGTH} base64 characters, got {position_id!r}"
        )
    try:
        key = base64.b64decode(position_id + "==", validate=True)
    except (binascii.Error, ValueError) as exc:
        raise InvalidPosition(f"Position ID {position_id!r} is not valid base64") from exc
    board = np.zeros((2, 25), dtype=np.int8)
    side, place = 1, 0
    for bit in range(80):
        if side < 0:
            break
        if key[bit >> 3] >> (bit & 7) & 1:
            board[side, place] += 1
            if board[side, place] > 15:
                raise InvalidPosition(f"Position ID {position_id!r} has too many checkers")
        else:
            place += 1
            if place == 25:
                side, place = side - 1, 0
    if side >= 0:
        raise InvalidPosition(f"Position ID {position_id!r} does not describe both sides")
    return board
