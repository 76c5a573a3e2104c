"""A match's move list as the match screen shows it (``GET /api/matches/{id}/moves``,
``docs/api.md`` §A match), replayed from the match record through the engine. Pure: no
database.

The numbered lines are the ``.mat`` export's (:func:`boardgammon.formats.mat.pair_columns`
pairs them, so both agree line for line): seat 0's entry on the left, seat 1's on the right;
a play is in standard notation (``24/18 13/11``, ``bar/22*``, ``8/5(2)``) with its single-die
steps as ``moves`` (``[from, to, hit]``, the mover's numbering, 25 the bar, 0 off). What the
``.mat`` format cannot say (the opening roll with its ties, a resignation offer and its answer,
the way a game ended) is told beside the lines: ``opening``, ``resignations`` and ``result``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Literal, TypedDict

from boardgammon.engine.match import Match
from boardgammon.engine.record import Action, Played
from boardgammon.formats.mat import pair_columns
from boardgammon.server.match_state import GameEntry, games_json, moves_json, points

EntryKind = Literal["play", "roll", "double", "take", "drop"]


class TurnEntry(TypedDict):
    """One column of a numbered line.

    ``kind``: ``play`` (a dance has ``play`` ``""``), ``roll`` (dice a resignation left
    unplayed), ``double`` (``value`` offered), ``take`` or ``drop``. ``roll``: the index of the
    roll in the match's revealed rolls (``state.rolls``), for its verdict and audit row.
    ``board``: after a play, both seats' points as ``state.board.points``."""

    seat: int
    kind: EntryKind
    dice: list[int] | None
    play: str | None
    moves: list[list[int]] | None
    value: int | None
    roll: int | None
    board: list[list[int]] | None


class GameMoves(TypedDict):
    """One game: the score before it, its opening rolls (seat 0's die, seat 1's; ties first),
    its numbered lines (``[left, right]``, either ``None``), the resignation offers and answers
    in it, and how it ended (``None`` while it runs)."""

    game_number: int
    score: list[int]
    opening: list[list[int]]
    lines: list[list[TurnEntry | None]]
    resignations: list[dict[str, int | str]]
    result: GameEntry | None


def move_list(match: Match) -> list[GameMoves]:
    """The move list of ``match``, game by game (a game not begun is left out)."""
    replay = Match(match.length, match.variant, match.players, jacoby=match.jacoby)
    games: list[GameMoves] = []
    entries: list[list[tuple[int, TurnEntry]]] = []
    unplayed: dict[int, tuple[int, TurnEntry]] = {}  # game -> its last roll, not played yet
    rolls = 0
    for action in match.record:
        while len(games) <= action.game:
            games.append(
                {
                    "game_number": len(games) + 1,
                    "score": list(replay.score),
                    "opening": [],
                    "lines": [],
                    "resignations": [],
                    "result": None,
                }
            )
            entries.append([])
        if action.kind == "flag" or action.kind == "forfeit" or action.kind == "abort":
            continue
        if action.kind in ("opening", "roll"):
            assert action.dice is not None
            d0, d1 = action.dice
            seat = action.seat
            if action.kind == "opening":
                games[action.game]["opening"].append([d0, d1])
                seat, d0, d1 = (0, d0, d1) if d0 > d1 else (1, d1, d0)
            if action.kind == "roll" or d0 != d1:
                assert seat is not None
                unplayed[action.game] = (seat, _entry(seat, "roll", dice=[d0, d1], roll=rolls))
            rolls += 1
        if isinstance(action, Played):
            roll = unplayed.pop(action.game)[1]["roll"]
            legal = replay.play(action.seat, action.play)
            board = replay.games[action.game]
            entries[action.game].append(
                (
                    action.seat,
                    _entry(
                        action.seat,
                        "play",
                        dice=list(action.dice),
                        play=str(legal),
                        moves=moves_json(legal),
                        roll=roll,
                        board=[points(board.board_for(s)) for s in (0, 1)],
                    ),
                )
            )
            continue
        replay.apply(replace(action, t=None))
        _note(action, entries[action.game], games[action.game])
    for index, entry in unplayed.items():
        if index < len(match.results):  # the game ended (by a resignation) before the play
            entries[index].append(entry)
    for game, result in zip(games, games_json(match), strict=False):
        game["result"] = result
    for game, game_entries in zip(games, entries, strict=True):
        game["lines"] = [list(pair) for pair in pair_columns(game_entries)]
    return games


def _entry(
    seat: int,
    kind: EntryKind,
    *,
    dice: list[int] | None = None,
    play: str | None = None,
    moves: list[list[int]] | None = None,
    value: int | None = None,
    roll: int | None = None,
    board: list[list[int]] | None = None,
) -> TurnEntry:
    return {
        "seat": seat,
        "kind": kind,
        "dice": dice,
        "play": play,
        "moves": moves,
        "value": value,
        "roll": roll,
        "board": board,
    }


def _note(action: Action, entries: list[tuple[int, TurnEntry]], game: GameMoves) -> None:
    """A cube action as a column entry; a resignation offer or answer beside the lines."""
    seat = action.seat
    if seat is None:  # the opening roll, told in "opening"
        return
    if action.kind == "double":
        entries.append((seat, _entry(seat, "double", value=action.value)))
    elif action.kind in ("take", "drop"):
        entries.append((seat, _entry(seat, "take" if action.kind == "take" else "drop")))
    elif action.kind == "resign":
        game["resignations"].append({"seat": seat, "action": "offer", "points": action.points})
    elif action.kind in ("accept", "decline"):
        offer = game["resignations"][-1]["points"]
        game["resignations"].append({"seat": seat, "action": action.kind, "points": offer})
