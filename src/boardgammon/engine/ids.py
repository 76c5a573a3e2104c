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
from typing import NamedTuple

import numpy as np

from .constants import BOARD_SHAPE, ROW_LENGTH
from .errors import InvalidPosition

POSITION_ID_LENGTH = 14


def encode_position_id(board: np.ndarray) -> str:
    """Encode a position as a gnubg Position ID.

    Args:
        board: ``int8[2, 25]``, row 0 the player on roll, row 1 the opponent, each in its own
            numbering (index 0–23 = points 1–24, index 24 = bar).

    Returns:
        the 14-character Position ID.

    Raises:
        InvalidPosition: more than 15 checkers on one side.
    """
    return encode_position_ids(np.asarray(board)[None])[0]


def encode_position_ids(boards: np.ndarray) -> list[str]:
    """Encode many positions at once (vectorised; the one implementation of the encoding).

    Args:
        boards: ``int[N, 2, 25]``, each laid out as in :func:`encode_position_id`.

    Returns:
        ``N`` Position IDs.

    Raises:
        InvalidPosition: more than 15 checkers on one side of some position.
    """
    b = np.asarray(boards).reshape(-1, *BOARD_SHAPE)
    if (b.sum(axis=2) > 15).any():
        raise InvalidPosition("a side has more than 15 checkers: no Position ID")
    # Places in key order: the side not on roll first; each is its count of 1-bits and a 0-bit.
    counts = np.concatenate([b[:, 1], b[:, 0]], axis=1)
    zeros = np.cumsum(counts, axis=1, dtype=np.int32) + np.arange(50, dtype=np.int32)
    bits = np.arange(80) <= zeros[:, -1:]
    zeros += np.arange(0, 80 * len(b), 80, dtype=np.int32)[:, None]
    bits.reshape(-1)[zeros.ravel()] = False
    keys = np.packbits(bits, axis=1, bitorder="little")
    return [base64.b64encode(k.tobytes()).decode("ascii")[:POSITION_ID_LENGTH] for k in keys]


def decode_position_id(position_id: str) -> np.ndarray:
    """Decode a gnubg Position ID into an ``int8[2, 25]`` array (see :func:`encode_position_id`).

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
    board = np.zeros(BOARD_SHAPE, dtype=np.int8)
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
            if place == ROW_LENGTH:
                side, place = side - 1, 0
    if side >= 0:
        raise InvalidPosition(f"Position ID {position_id!r} does not describe both sides")
    return board


# Match ID -----------------------------------------------------------------------------------

MATCH_ID_LENGTH = 12

# (field, width in bits), least significant first, as in the gnubg manual's "Technical
# description of the Match ID": 66 bits packed LSB first into 9 bytes, base64: 12 characters.
# gnubg also writes a 67th bit the manual leaves out: 1 when the Jacoby rule is *off* (always
# in match play); its match IDs end in "E" for that reason.
_MATCH_ID_FIELDS = (
    ("cube_log2", 4),
    ("cube_owner", 2),
    ("on_roll", 1),
    ("crawford", 1),
    ("game_state", 3),
    ("turn", 1),
    ("doubled", 1),
    ("resigned", 2),
    ("die1", 3),
    ("die2", 3),
    ("length", 15),
    ("score0", 15),
    ("score1", 15),
    ("no_jacoby", 1),
)

GAME_NONE, GAME_PLAYING, GAME_OVER, GAME_RESIGNED, GAME_DROP = range(5)
"""gnubg's game states: no game, playing, over (borne off), ended by resignation, by a drop."""


class MatchIdFields(NamedTuple):
    """The contents of a gnubg Match ID.

    Attributes:
        cube: cube value 1, 2, 4 … (stored as its log2).
        cube_owner: seat owning the cube, ``None`` when centred (stored as 3).
        on_roll: seat whose move it is (gnubg's ``fMove``, the dice owner).
        crawford: this is the Crawford game.
        game_state: one of ``GAME_NONE`` … ``GAME_DROP``.
        turn: seat that must act now (gnubg's ``fTurn``; differs from ``on_roll`` while a double
            or a resignation awaits an answer).
        doubled: a double is offered.
        resigned: the pending resignation, 0 none, 1 single, 2 gammon, 3 backgammon.
        dice: the rolled dice, ``(0, 0)`` when not rolled; gnubg stores the higher die first,
            so the dice decode in that order.
        length: match length in points, 0 for money play.
        score: points of seat 0 and seat 1.
        jacoby: money play under the Jacoby rule (gammons count only once the cube is turned).
    """

    cube: int = 1
    cube_owner: int | None = None
    on_roll: int = 0
    crawford: bool = False
    game_state: int = GAME_PLAYING
    turn: int = 0
    doubled: bool = False
    resigned: int = 0
    dice: tuple[int, int] = (0, 0)
    length: int = 0
    score: tuple[int, int] = (0, 0)
    jacoby: bool = False


def encode_match_id(fields: MatchIdFields) -> str:
    """Encode a gnubg Match ID (12 base64 characters).

    Raises:
        ValueError: a field out of its range (cube not a power of two up to 2^15, scores or
            length beyond 15 bits, dice outside 0–6).
    """
    cube_log2 = fields.cube.bit_length() - 1
    if fields.cube < 1 or 1 << cube_log2 != fields.cube or cube_log2 > 15:
        raise ValueError(f"the cube is a power of two, got {fields.cube}")
    values = {
        "cube_log2": cube_log2,
        "cube_owner": 3 if fields.cube_owner is None else fields.cube_owner,
        "on_roll": fields.on_roll,
        "crawford": int(fields.crawford),
        "game_state": fields.game_state,
        "turn": fields.turn,
        "doubled": int(fields.doubled),
        "resigned": fields.resigned,
        "die1": max(fields.dice),
        "die2": min(fields.dice),
        "length": fields.length,
        "score0": fields.score[0],
        "score1": fields.score[1],
        "no_jacoby": int(not fields.jacoby),
    }
    key, shift = 0, 0
    for name, width in _MATCH_ID_FIELDS:
        value = int(values[name])
        if not 0 <= value < 1 << width or (name.startswith("die") and value > 6):
            raise ValueError(f"Match ID field {name} = {value} is out of range")
        key |= value << shift
        shift += width
    return base64.b64encode(key.to_bytes(9, "little")).decode("ascii")


def decode_match_id(match_id: str) -> MatchIdFields:
    """Decode a gnubg Match ID into its :class:`MatchIdFields`.

    Raises:
        InvalidPosition: not 12 base64 characters, or a field out of range (cube owner 2, game
            state above 4, a die above 6).
    """
    if not isinstance(match_id, str) or len(match_id) != MATCH_ID_LENGTH:
        raise InvalidPosition(f"a Match ID has {MATCH_ID_LENGTH} base64 characters, got "
                              f"{match_id!r}")
    try:
        key = int.from_bytes(base64.b64decode(match_id, validate=True), "little")
    except (binascii.Error, ValueError) as exc:
        raise InvalidPosition(f"Match ID {match_id!r} is not valid base64") from exc
    v: dict[str, int] = {}
    for name, width in _MATCH_ID_FIELDS:
        v[name] = key & ((1 << width) - 1)
        key >>= width
    if v["cube_owner"] == 2 or v["game_state"] > GAME_DROP or v["die1"] > 6 or v["die2"] > 6:
        raise InvalidPosition(f"Match ID {match_id!r} has a field out of range: {v}")
    return MatchIdFields(
        cube=1 << v["cube_log2"],
        cube_owner=None if v["cube_owner"] == 3 else v["cube_owner"],
        on_roll=v["on_roll"],
        crawford=bool(v["crawford"]),
        game_state=v["game_state"],
        turn=v["turn"],
        doubled=bool(v["doubled"]),
        resigned=v["resigned"],
        dice=(v["die1"], v["die2"]),
        length=v["length"],
        score=(v["score0"], v["score1"]),
        jacoby=not v["no_jacoby"],
    )
