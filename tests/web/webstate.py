"""API `state` documents (docs/api.md) built from the rules engine, for browser tests that
stand in for the server."""

from __future__ import annotations

from typing import Any

from boardgammon.dice.verify import commitment, derive_dice
from boardgammon.engine import Board

MATCH_ID = "mat_WEBTEST0001"


def api_points(row, checkers: int = 15) -> list[int]:
    """One side's row of Board.array as the API's 26 numbers ([0] off, [1..24], [25] bar)."""
    row = [int(x) for x in row]
    return [checkers - sum(row), *row[:24], row[24]]


def mirror(points: list[int]) -> list[int]:
    """The other seat's numbering: point i becomes 25 - i, the bar and the tray stay."""
    return [points[0], *reversed(points[1:25]), points[25]]


def legal_plays(board: Board, dice: tuple[int, int]) -> list[dict[str, Any]]:
    return [{"notation": str(p), "moves": [[m.source, m.dest] for m in p.moves],
             "position_id": p.after.swapped().position_id} for p in board.legal_plays(*dice)]


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
    """A state with `board` seen from seat `on_roll`; legal plays when `you` are to play."""
    rows = [api_points(board.array[0]), api_points(board.array[1])]
    if on_roll == 1:
        rows.reverse()
    pips = board.pip_counts()
    state = {
        "match_id": MATCH_ID, "length": 1, "variant": "standard", "mode": "live",
        "players": [{"seat": 0, "username": "ann", "bot": None},
                    {"seat": 1, "username": "bob", "bot": None}],
        "you": you, "score": [0, 0], "crawford": False, "post_crawford": False,
        "game_number": 1, "cube": {"value": 1, "owner": None, "available": False},
        "turn": on_roll, "on_roll": on_roll, "phase": phase,
        "dice": list(dice) if dice else None,
        "board": {"points": rows}, "position_id": board.position_id,
        "pip_counts": list(pips) if on_roll == 0 else [pips[1], pips[0]],
        "legal_plays": legal_plays(board, dice) if phase == "play" and you == on_roll else [],
        "pending_roll": None, "rolls": [], "resignation": None,
        "clocks": {"delay": 12.0, "reserve": [120.0, 95.5], "running": on_roll,
                   "delay_left": 12.0, "as_of": 0.0},
        "deadline": None, "games": [], "result": None,
    }
    state.update(extra)
    return state
