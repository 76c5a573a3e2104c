"""The API's match actions and WebSocket client messages as pydantic models
(``docs/api.md`` §``action`` and §WebSocket), and the parser of WebSocket text frames.

Models forbid unknown fields, so a client cannot smuggle in server-only fields (such as a
request for server entropy).
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from boardgammon.server.bodies import one_of
from boardgammon.server.refusals import Invalid

ActionId = Annotated[str, Field(min_length=1, max_length=100,
                                description="client-chosen, unique per match")]


class _Action(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    action_id: ActionId


class RollAction(_Action):
    """Reveal the pending roll with the device's entropy (32 hex characters)."""

    type: Literal["roll"]
    roll_id: str = Field(max_length=100)
    commitment: str = Field(max_length=200, description="the commitment as shown")
    entropy: str = Field(max_length=200, description="32 hex characters = 16 bytes")


class PlayAction(_Action):
    """Play the rolled dice in standard notation (``""`` for a dance)."""

    type: Literal["play"]
    play: str = Field(max_length=200)


class ResignAction(_Action):
    """Offer to resign a single (1), gammon (2) or backgammon (3)."""

    type: Literal["resign"]
    points: one_of(1, 2, 3)


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
                         | DropAction | AcceptResignAction | DeclineResignAction,
                         Field(discriminator="type")]
"""A player's action, one frozen model per ``type``; it reaches the service as it is."""


class ActionMessage(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: Literal["action"]
    action: ClientAction


class PingMessage(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: Literal["ping"]


ClientMessage = Annotated[ActionMessage | PingMessage, Field(discriminator="type")]
_client_message = TypeAdapter(ClientMessage)

MAX_FRAME = 4096


def parse_client_message(text: str | bytes) -> ActionMessage | PingMessage:
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
    try:
        return _client_message.validate_python(data)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}"
                             for e in exc.errors()[:5])
        raise Invalid(problems) from None


def action_id_of(text: str | bytes) -> str | None:
    """The ``action.action_id`` of a frame if one can be read (to label an error), else None."""
    try:
        value = json.loads(text)["action"]["action_id"]
    except Exception:  # any shape at all may arrive here
        return None
    return value if isinstance(value, str) and len(value) <= 100 else None
