"""``boardgammon plays``: every legal play of a position and roll. A contract other tools call.

* ``boardgammon plays POSITION_ID D1 D2`` prints one line per legal play: the play in standard
  notation, a tab, the gnubg Position ID of the resulting position (still from the mover's
  view, not swapped to the opponent). A dance is one play with empty notation.
* ``--json`` prints ``{"position_id": ..., "dice": [d1, d2], "plays": [{"notation": ...,
  "position_id": ...}, ...]}``.
* ``--batch FILE`` (``-`` for standard input) reads JSON lines ``{"position_id": ...,
  "dice": [d1, d2]}`` and writes one such JSON object per good line, in order, all in one
  process; each bad line is reported on standard error by its line number, and the command
  then exits with code 2.

Bad input (a malformed Position ID, an impossible position, dice outside 1–6, a file that
cannot be read) exits with code 2 and a message on standard error, before anything is printed.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import typer

from boardgammon.engine import Board, Play
from boardgammon.engine.board import check_dice
from boardgammon.engine.errors import InvalidDice, InvalidPosition
from boardgammon.engine.ids import encode_position_ids
from boardgammon.engine.movegen import MAX_MOVES, generate_batch_with_moves

_CHUNK = 4096  # requests per generator call: bounds memory on large batches


class BadRequest(ValueError):
    """A request names an invalid position or dice."""


def _dice(value: object) -> tuple[int, int]:
    """Two dice from a request, checked by the engine's one dice check."""
    try:
        if not isinstance(value, Sequence) or isinstance(value, str) or len(value) != 2:
            raise InvalidDice
        return check_dice(*value)
    except InvalidDice:
        raise BadRequest(f"dice are two whole numbers 1-6, got {value!r}") from None


def _die_text(text: str) -> int | str:
    """A die from the command line: the number, or the text itself (refused by :func:`_dice`
    with the same message as any other bad die)."""
    return int(text) if text.strip().lstrip("+-").isdigit() else text


def _board(position_id: object) -> np.ndarray:
    if not isinstance(position_id, str):
        raise BadRequest(f"a Position ID is a string, got {position_id!r}")
    try:
        board = Board.from_position_id(position_id)
    except InvalidPosition as exc:
        raise BadRequest(str(exc)) from None
    if board.is_game_over():
        side = "the player on roll" if board.borne_off(0) == board.checkers else "the opponent"
        raise BadRequest(f"{position_id} is a finished game ({side} has no checker left): "
                         "nothing to play")
    return board.array


def list_plays(requests: Sequence[tuple[str, object]]) -> Iterator[dict]:
    """The answer object of each ``(position_id, (d1, d2))`` request, in order; the dice as
    given (checked here, so a request may carry text from a command line).

    Raises:
        BadRequest: an invalid Position ID, a finished game, or dice (checked for all requests
            first).
    """
    boards, rolls = [], []
    for pid, dice in requests:
        boards.append(_board(pid))
        rolls.append(_dice(dice))
    for start in range(0, len(requests), _CHUNK):
        stop = min(start + _CHUNK, len(requests))
        yield from _chunk(requests[start:stop], np.array(boards[start:stop]),
                          np.array(rolls[start:stop], dtype=np.int64))


def _chunk(requests, boards: np.ndarray, dice: np.ndarray) -> Iterator[dict]:
    capacity = 64 * len(boards)
    while True:
        out_b = np.empty((capacity, 2, 25), dtype=np.int8)
        out_m = np.empty((capacity, MAX_MOVES, 3), dtype=np.int8)
        out_n = np.empty(capacity, dtype=np.int8)
        offsets = np.empty(len(boards) + 1, dtype=np.int64)
        total = generate_batch_with_moves(boards, dice, out_b, out_m, out_n, offsets)
        if total >= 0:
            break
        capacity *= 4
    ids = encode_position_ids(out_b[:total])
    for i, (pid, (d1, d2)) in enumerate(requests):
        plays = [{"notation": Play._from_kernel(out_m[k], int(out_n[k]), None).notation(),
                  "position_id": ids[k]} for k in range(offsets[i], offsets[i + 1])]
        yield {"position_id": pid, "dice": [int(d1), int(d2)], "plays": plays}


def _read_batch(path: Path) -> tuple[list[tuple[str, object]], list[str]]:
    """The good requests of a batch file and the message of each bad line ("line 3: …"), in
    the order of the file.

    Raises:
        BadRequest: the file cannot be read as text.
    """
    name = "standard input" if str(path) == "-" else f"batch file {path}"
    try:
        text = sys.stdin.read() if str(path) == "-" else path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise BadRequest(f"cannot read {name}: not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise BadRequest(f"cannot read {name}: {exc.strerror or exc}") from None
    requests: list[tuple[str, object]] = []
    bad: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            bad.append(f"line {number}: not JSON ({exc.msg})")
            continue
        if not isinstance(item, dict) or set(item) != {"position_id", "dice"}:
            bad.append(f'line {number}: expected {{"position_id": ..., "dice": [d1, d2]}}')
            continue
        try:
            _board(item["position_id"])
            _dice(item["dice"])
        except BadRequest as exc:
            bad.append(f"line {number}: {exc}")
            continue
        requests.append((item["position_id"], item["dice"]))
    return requests, bad


def plays(
    position_id: str | None = typer.Argument(None, help="gnubg Position ID, player on roll."),
    d1: str | None = typer.Argument(None, help="First die, 1-6."),
    d2: str | None = typer.Argument(None, help="Second die, 1-6."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
    batch: Path | None = typer.Option(
        None, "--batch", help="JSON lines {position_id, dice} in ('-' = stdin); JSON lines out."),
) -> None:
    """Every legal play of a position and roll: notation, tab, resulting Position ID."""
    try:
        if batch is not None:
            if position_id is not None:
                raise BadRequest("give either --batch FILE or POSITION_ID D1 D2, not both")
            if str(batch) != "-" and not batch.is_file():
                raise BadRequest(f"no such batch file: {batch}")
            requests, bad = _read_batch(batch)
            for answer in list_plays(requests):
                sys.stdout.write(json.dumps(answer, separators=(",", ":")) + "\n")
            if bad:
                raise BadRequest(f"{len(bad)} bad line{'s' if len(bad) > 1 else ''} "
                                 f"(the others answered):\n" + "\n".join(bad))
            return
        if position_id is None or d1 is None or d2 is None:
            raise BadRequest("usage: boardgammon plays POSITION_ID D1 D2 (or --batch FILE)")
        (answer,) = list_plays([(position_id, (_die_text(d1), _die_text(d2)))])
    except BadRequest as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(code=2) from None
    if as_json:
        typer.echo(json.dumps(answer))
    else:
        for p in answer["plays"]:
            typer.echo(f"{p['notation']}\t{p['position_id']}")
