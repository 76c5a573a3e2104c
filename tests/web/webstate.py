"""API `state` documents built by the server's own state builder, for browser tests that stand
in for the server."""

from __future__ import annotations

from typing import Any

from boardgammon.dice.verify import commitment, derive_dice
from boardgammon.engine import Board, Game, Match
from boardgammon.server.match_state import MatchInfo, Seat, build_state

MATCH_ID = "mat_WEBTEST0001"


def api_points(row, checkers: int = 15) -> list[int]:
    """One side's row of Board.array as the API's 26 numbers ([0] off, [1..24], [25] bar)."""
    row = [int(x) for x in row]
    return [checkers - sum(row), *row[:24], row[24]]


def mirror(points: list[int]) -> list[int]:
    """The other seat's numbering: point i becomes 25 - i, the bar and the tray stay."""
    return [points[0], *reversed(points[1:25]), points[25]]


def revealed_roll(roll_id: str, seat: int, nonce: int, seed: bytes, entropy: bytes,
                  source: str = "client", dice: list[int] | None = None) -> dict[str, Any]:
    """A `rolls[]` entry whose dice follow from the recipe (unless `dice` overrides them)."""
    return {
        "roll_id": roll_id, "seat": seat, "nonce": nonce, "commitment": commitment(seed),
        "server_seed": seed.hex(), "client_entropy": entropy.hex(), "entropy_source": source,
        "dice": dice or list(derive_dice(seed, MATCH_ID, roll_id, nonce, entropy)),
    }


def make_state(board: Board, *, on_roll: int = 0, you: int | None = 0, phase: str = "play",
               dice: tuple[int, int] | None = None, **extra: Any) -> dict[str, Any]:
    """The server's own state (:func:`boardgammon.server.match_state.build_state`) of a live
    1-point match between ann (seat 0) and bob (seat 1) at ``board`` seen from seat
    ``on_roll``, from ``you``'s seat: rolling (``phase="roll"``), playing ``dice``
    (``"play"``), or won by ann on bob's resignation (``"match_over"``, chain head ``ab…``).
    Any other ``phase`` is set over a rolling state, and ``extra`` fields over everything (a
    stand-in clock unless ``clocks`` is given)."""
    match = Match(1, players=("ann", "bob"))
    match.games[-1] = Game.from_position(board, on_roll, cube_enabled=False)
    if phase == "play":
        assert dice is not None
        match.roll(on_roll, *dice)
    elif phase == "match_over":
        match.resign(1, 1)
        match.accept(0)
    info = MatchInfo(MATCH_ID, (Seat(1, "ann"), Seat(2, "bob")), 1, "standard", "live", None,
                     None)
    state = dict(build_state(info, match, [], you, 0.0, lambda t: t,
                             {"chain_head": "ab" * 32}))
    if phase not in ("play", "roll", "match_over"):
        state["phase"] = phase
    state["clocks"] = {"delay": 12.0, "reserve": [120.0, 95.5], "running": on_roll,
                       "delay_left": 12.0, "as_of": 0.0}
    state.update(extra)
    return state
