"""The API's match actions and WebSocket client messages as pydantic models
(``docs/api.md`` §``action`` and §WebSocket), and the parser of WebSocket text frames.

Models forbid unknown fields, so a client cannot smuggle in server-only fields (such as a
request for server entropy).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
)

from boardgammon.dice.ids import ROLL_ID_PATTERN
from boardgammon.dice.verify import ENTROPY_BYTES, LINK_BYTES
from boardgammon.server.bodies import Text, lone_surrogate, one_of, problem, text_first
from boardgammon.server.refusals import ErrorCode, Invalid, StateConflict

if TYPE_CHECKING:
    # one_of builds its type at run time, which mypy cannot follow: statically a choice is
    # the whole number it holds.
    ResignPoints = int
else:
    ResignPoints = one_of(1, 2, 3)

ActionId = Annotated[Text, Field(min_length=1, max_length=100,
                                description="client-chosen, unique per match")]
RollId = Annotated[str, Field(max_length=100, pattern=ROLL_ID_PATTERN,
                              description="rol_… roll ID, as the state shows it"),
                   BeforeValidator(text_first)]
Commitment = Annotated[str, Field(max_length=200, pattern=r"^[0-9a-fA-F]{64}$",
                                  description="the commitment as shown (64 hex characters, "
                                              "either case)"),
                       AfterValidator(str.lower), BeforeValidator(text_first)]
"""A roll's commitment: SHA-256 in hex; compared in lower case, as the record holds it."""


class _Action(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    action_id: ActionId


class RollAction(_Action):
    """Reveal the pending roll with the device's entropy (32 hex characters)."""

    type: Literal["roll"]
    roll_id: RollId
    commitment: Commitment
    # Not Text: entropy_bytes refuses anything but 32 hex digits, with its own code.
    entropy: str = Field(max_length=200, description="32 hex characters = 16 bytes")


class AnchorAction(_Action):
    """Register this device's hash-chain anchor ``x_0`` for the match (v2 dice, 64 hex
    characters); the same anchor again is accepted and changes nothing."""

    type: Literal["anchor"]
    # Not Text: link_bytes refuses anything but 64 hex digits, with its own code.
    anchor: str = Field(max_length=200, description="64 hex characters = 32 bytes")


class ContributeAction(_Action):
    """The opponent's device reveals its next chain link for the requested roll ``roll_id``
    (v2 dice, 64 hex characters)."""

    type: Literal["contribute"]
    roll_id: RollId
    link: str = Field(max_length=200, description="64 hex characters = 32 bytes")


class PlayAction(_Action):
    """Play the rolled dice in standard notation (``""`` for a dance)."""

    type: Literal["play"]
    play: Text = Field(max_length=200)


class ResignAction(_Action):
    """Offer to resign a single (1), gammon (2) or backgammon (3)."""

    type: Literal["resign"]
    points: ResignPoints


class DoubleAction(_Action):
    """Offer to double before rolling."""

    type: Literal["double"]


class TakeAction(_Action):
    """Take the double offered."""

    type: Literal["take"]


class DropAction(_Action):
    """Drop the double offered (lose the game at the cube's value)."""

    type: Literal["drop"]


class AcceptResignAction(_Action):
    """Accept the resignation offered."""

    type: Literal["accept_resign"]


class DeclineResignAction(_Action):
    """Decline the resignation offered."""

    type: Literal["decline_resign"]


ClientAction = Annotated[RollAction | PlayAction | ResignAction | DoubleAction | TakeAction
                         | DropAction | AcceptResignAction | DeclineResignAction
                         | AnchorAction | ContributeAction,
                         Field(discriminator="type")]
"""A player's action, one frozen model per ``type``; it reaches the service as it is."""


class ActionMessage(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: Literal["action"]
    action: ClientAction


class PingMessage(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: Literal["ping"]


class AuthMessage(BaseModel):
    """Sign the socket in with a session token, for clients that cannot send the cookie or an
    ``Authorization`` header with the handshake (a token in the URL ends up in logs)."""

    model_config = ConfigDict(extra="forbid")
    type: Literal["auth"]
    token: Text = Field(max_length=200)


ClientMessage = Annotated[ActionMessage | PingMessage | AuthMessage, Field(discriminator="type")]
_client_message = TypeAdapter(ClientMessage)

MAX_FRAME = 4096


def parse_client_message(text: str | bytes) -> ActionMessage | PingMessage | AuthMessage:
    """Parse one WebSocket frame from a client.

    Raises:
        Invalid: ``invalid_request`` for anything that is not a valid message (not JSON,
            too long, unknown type, missing or extra fields), with the reason.
    """
    if len(text) > MAX_FRAME:
        raise Invalid(f"a message is at most {MAX_FRAME} bytes")
    try:
        data: Any = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise Invalid(f"not JSON: {exc}") from None
    if (found := lone_surrogate(text)) is not None:
        raise Invalid(f"the message holds a lone surrogate ({found}), which is no character")
    try:
        return _client_message.validate_python(data)
    except ValidationError as exc:
        problems = "; ".join(problem(e, data, "message") for e in exc.errors()[:5])
        raise Invalid(problems) from None


def action_id_of(text: str | bytes) -> str | None:
    """The ``action.action_id`` of a frame if it has an ID's length (1–100 characters) and can
    be sent back (to label an error), else None: not an empty or longer one, which no action
    can have, nor one holding a lone surrogate, which no text frame can carry."""
    try:
        value = json.loads(text)["action"]["action_id"]
        if isinstance(value, str) and 0 < len(value) <= 100:
            value.encode()
            return value
    except Exception:  # any shape at all may arrive here; UnicodeEncodeError for a surrogate
        pass
    return None


_ENTROPY = re.compile(rf"[0-9a-fA-F]{{{2 * ENTROPY_BYTES}}}")
_LINK = re.compile(rf"[0-9a-fA-F]{{{2 * LINK_BYTES}}}")


def entropy_bytes(text: object) -> bytes:
    """The 16 bytes of a roll's ``entropy``: exactly 32 hex characters, nothing else (no
    spaces, no ``0x``; ``bytes.fromhex`` alone would accept whitespace between digits).

    Raises:
        Invalid: ``bad_entropy``.
    """
    if not isinstance(text, str) or not _ENTROPY.fullmatch(text):
        shown = repr(text)[:60]
        raise Invalid(f"entropy must be exactly 32 hex characters (16 bytes from the device), "
                      f"nothing else; got {shown}", ErrorCode.BAD_ENTROPY)
    return bytes.fromhex(text)


def link_bytes(text: object) -> bytes:
    """The 32 bytes of a chain ``anchor`` or ``link``: exactly 64 hex characters.

    Raises:
        Invalid: ``bad_entropy``.
    """
    if not isinstance(text, str) or not _LINK.fullmatch(text):
        raise Invalid(f"a chain anchor or link must be exactly 64 hex characters (32 bytes), "
                      f"nothing else; got {repr(text)[:80]}", ErrorCode.BAD_ENTROPY)
    return bytes.fromhex(text)


_HEX_FIELDS = ("anchor", "commitment", "entropy", "link")
"""Fields of hex digits, taken in either case: a resend in the other case is the same action."""


def request_key(action: ClientAction) -> str:
    """A client's action as canonical JSON (sorted keys, hex fields in lower case), to tell a
    resend from another action sent under the same ``action_id``."""
    fields = {k: v.lower() if k in _HEX_FIELDS and isinstance(v, str) else v
              for k, v in action.model_dump().items()}
    return json.dumps(fields, sort_keys=True, separators=(",", ":"))


def check_roll_resend(action: RollAction, rolled: Mapping[str, Any] | None) -> None:
    """Refuse a roll action sent again for dice already rolled unless it is the same action:
    same roll, the commitment as issued and the same entropy (``rolled``: the roll as
    :func:`~boardgammon.server.match_state.roll_json` gives it, ``None`` if the earlier action
    was no roll).

    Raises:
        StateConflict: ``already_rolled``.
    """
    # The roller's entropy: v1's client_entropy, v2's roller_entropy.
    entropy = rolled and rolled.get("client_entropy", rolled.get("roller_entropy"))
    same = (rolled is not None
            and action.roll_id == rolled["roll_id"]
            and action.commitment == rolled["commitment"]
            and entropy is not None
            and action.entropy.lower() == entropy)
    if not same:
        raise StateConflict("this roll is already rolled (or, v2, asked for): only the same "
                            "roll action (same roll_id, commitment and entropy) may be sent "
                            "again", ErrorCode.ALREADY_ROLLED)
