"""The events of a match as the WebSocket sends them and the action answers list them
(``docs/api.md`` §WebSocket), typed: one ``TypedDict`` per ``type``, whose JSON is the wire
format as it is (events are also stored with the match log and sent again on a resend), and
one constructor each.
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict, cast

from boardgammon.server.dice_record_v2 import RollV2
from boardgammon.server.match_state import (
    AnyRoll,
    Clocks,
    GameEntry,
    RollEntry,
    roll_json,
    roller_entropy_sha256,
)


class CommitmentEvent(TypedDict):
    """A roll committed for ``seat``'s next turn (or opening roll)."""

    type: Literal["commitment"]
    seat: int
    roll_id: str
    nonce: int
    commitment: str


class RollRequestedEvent(TypedDict):
    """A v2 roll the roller asked for: the opponent's device answers with its link
    (``contribute``) without its player doing anything; the server reveals after it, or
    without it once the wait is over. ``roller_entropy_sha256`` fixes the roller's input
    before the link leaves (:func:`.match_state.roller_entropy_sha256`)."""

    type: Literal["roll_requested"]
    seat: int
    roll_id: str
    opponent_prev_link: str | None
    opponent_link_steps: int | None
    roller_entropy_sha256: str | None


class AnchorEvent(TypedDict):
    """``seat``'s device registered its hash-chain anchor for the match (v2 dice)."""

    type: Literal["anchor"]
    seat: int
    anchor: str


class RollEvent(RollEntry):
    """A roll revealed and applied: ``type`` and the fields of a ``state.rolls[]`` entry."""

    type: Literal["roll"]


class PlayEvent(TypedDict):
    """``seat`` played ``play``; ``position_id``: the position after it, from the opponent's
    view (``None`` once the game is over)."""

    type: Literal["play"]
    seat: int
    play: str
    position_id: str | None


class CubeEvent(TypedDict):
    """A cube action: ``double`` (``value`` offered), ``take`` (the new value) or ``drop``
    (the value lost)."""

    type: Literal["cube"]
    seat: int
    action: Literal["double", "take", "drop"]
    value: int


class ResignEvent(TypedDict):
    """A resignation ``offer`` of ``points``, or the answer to one (``accept``/``decline``,
    ``points`` of the offer)."""

    type: Literal["resign"]
    seat: int
    action: Literal["offer", "accept", "decline"]
    points: int | None


class ClockEvent(TypedDict):
    """The live clock after an action (as ``state.clocks``)."""

    type: Literal["clock"]
    clocks: Clocks | None


class GameEndEvent(TypedDict):
    """A game ended (as a ``state.games`` entry)."""

    type: Literal["game_end"]
    game: GameEntry


class MatchEndEvent(TypedDict):
    """The match ended: winner, score, the dice record's chain head and where to look."""

    type: Literal["match_end"]
    result: dict[str, Any]


Event = (CommitmentEvent | RollEvent | PlayEvent | CubeEvent | ResignEvent | ClockEvent
         | GameEndEvent | MatchEndEvent | RollRequestedEvent | AnchorEvent)


def commitment_event(roll: AnyRoll) -> CommitmentEvent:
    return {"type": "commitment", "seat": roll.seat, "roll_id": roll.roll_id,
            "nonce": roll.nonce, "commitment": roll.commitment}


def roll_event(roll: AnyRoll) -> RollEvent:
    return cast(RollEvent, {"type": "roll", **roll_json(roll)})


def roll_requested_event(roll: RollV2, opponent_link_steps: int | None) -> RollRequestedEvent:
    return {"type": "roll_requested", "seat": roll.seat, "roll_id": roll.roll_id,
            "opponent_prev_link": roll.opponent_prev_link,
            "opponent_link_steps": opponent_link_steps,
            "roller_entropy_sha256": roller_entropy_sha256(roll)}


def anchor_event(seat: int, anchor: str) -> AnchorEvent:
    return {"type": "anchor", "seat": seat, "anchor": anchor}


def play_event(seat: int, play: str, position_id: str | None) -> PlayEvent:
    return {"type": "play", "seat": seat, "play": play, "position_id": position_id}


def cube_event(seat: int, action: Literal["double", "take", "drop"], value: int) -> CubeEvent:
    return {"type": "cube", "seat": seat, "action": action, "value": value}


def resign_event(seat: int, action: Literal["offer", "accept", "decline"],
                 points: int | None) -> ResignEvent:
    return {"type": "resign", "seat": seat, "action": action, "points": points}


def clock_event(clocks: Clocks | None) -> ClockEvent:
    return {"type": "clock", "clocks": clocks}


def game_end_event(game: GameEntry) -> GameEndEvent:
    return {"type": "game_end", "game": game}


def match_end_event(winner: int | None, score: tuple[int, int], chain_head: str,
                    match_id: str, aborted: int | None = None) -> MatchEndEvent:
    """``aborted``: the seat that never made its first action (then ``winner`` is ``None``)."""
    return {"type": "match_end", "result": {
        "winner": winner, "aborted": aborted, "score": list(score), "chain_head": chain_head,
        "audit_url": f"/audit/{match_id}", "analysis_url": f"/match/{match_id}/analysis"}}
