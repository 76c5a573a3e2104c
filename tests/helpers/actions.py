"""The action a match waits for, as a test's player sends it: for tests that drive a match over
HTTP or a WebSocket to a real server (``docs/api.md`` §Actions), whatever client they hold."""

from __future__ import annotations

import os


def next_action(state: dict, action_id: str) -> dict:
    """The action body that ``state`` (a match state seen by the seat on turn) waits for: the
    pending roll with 16 fresh bytes of entropy in the opening and roll phases, else the first
    legal play. Raises ``KeyError``/``TypeError`` where the state waits for neither (no
    ``pending_roll`` or no legal play)."""
    if state["phase"] in ("opening", "roll"):
        pending = state["pending_roll"]
        return {"type": "roll", "action_id": action_id, "roll_id": pending["roll_id"],
                "commitment": pending["commitment"], "entropy": os.urandom(16).hex()}
    return {"type": "play", "action_id": action_id, "play": state["legal_plays"][0]["notation"]}
