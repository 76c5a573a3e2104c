"""``boardgammon rollout POSITION_ID [--match-id ID] [--trials N] [--truncate N] [--seed S]``:
the position before the roll rolled out by our network (:mod:`boardgammon.bots.rollout`: 0-ply
plays, luck-adjusted results, the first roll stratified over the 36 outcomes), with a progress
bar showing the running cubeless equity and its standard error; then the outputs with their
standard errors, the equities and the cube decision as ``boardgammon eval`` prints them.

Trials run in batches of 36 (a whole set of first rolls); the result of a batched rollout is
that of one run of as many trials. Ctrl-C stops at the end of the batch under way and prints the
result of the trials done. ``--json`` prints one JSON object.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import numpy as np
import typer

from boardgammon.engine import Board

from .evaluate import fail, judge, position_and_match, text
from .interrupt import deferred_interrupt

BATCH = 36
"""Trials per kernel call: the 36 first rolls, so that every batch is stratified alike."""


def roll_out(board: Board, trials: int, truncate: int = 0, seed: int = 1,
             progress: Callable[[np.ndarray], None] | None = None,
             interrupted: Callable[[], bool] = lambda: False) -> np.ndarray:
    """Luck-adjusted results ``float64[n, 5]`` (player on roll's view) of ``n`` trials of
    ``board``: ``trials``, or fewer when ``interrupted()`` turns true between two batches.

    Args:
        truncate: plies after which a trial is valued at 0-ply (0: played to the end).
        seed: trial ``i`` draws its dice after the first roll from seed ``seed + i``.
        progress: called with the results so far after each batch.
    """
    from boardgammon.bots import bearoff
    from boardgammon.bots.neural import shipped_network
    from boardgammon.bots.rollout import ROLL_INDEX, rollout

    net = shipped_network("hypergammon" if board.checkers == 3 else "standard")
    results = np.empty((trials, 5), dtype=np.float64)
    plain = np.empty((BATCH, 5), dtype=np.float64)
    done = 0
    while done < trials and not interrupted():
        n = min(BATCH, trials - done)
        rollout(np.ascontiguousarray(board.array), board.checkers, *net.weights,
                bearoff.table(), bearoff.ROLLS, bearoff.ROLL_WEIGHTS, ROLL_INDEX, n, truncate,
                seed + done, plain[:n], results[done:done + n])
        done += n
        if progress is not None:
            progress(results[:done])
    return results[:done]


def _equity_and_error(results: np.ndarray) -> tuple[float, float]:
    """The cubeless equity of the mean of ``results`` and its standard error."""
    from boardgammon.bots.network import cubeless_equity

    equities = np.asarray(cubeless_equity(results))
    error = float(equities.std(ddof=1) / np.sqrt(len(equities))) if len(equities) > 1 else 0.0
    return float(equities.mean()), error


def rollout_command(
    position_id: str = typer.Argument(..., help="gnubg Position ID, player on roll's view."),
    match_id: str | None = typer.Option(None, "--match-id", help=(
        "gnubg Match ID: score, cube, player on roll (default: money play, cube 1 centred).")),
    trials: int = typer.Option(1296, "--trials", help="Games to play out (1 or more)."),
    ply: int = typer.Option(0, "--ply", help="Depth of the plays in the trials (0)."),
    truncate: int = typer.Option(0, "--truncate", help=(
        "Plies after which a trial is valued by the network (0: played to the end).")),
    seed: int = typer.Option(1, "--seed", help="Seed of the dice (0 to 2^31 - 2^16)."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
    progress: bool = typer.Option(True, help="Show a progress bar."),
) -> None:
    """Roll a position out: the outputs and equities with their standard errors, and the cube
    decision."""
    from tqdm import tqdm

    board, fields = position_and_match(position_id, match_id)
    if ply != 0:
        raise fail(f"--ply {ply}: rollouts play their trials at 0-ply only (give --ply 0)")
    if trials < 1:
        raise fail(f"--trials is 1 or more, not {trials}")
    if truncate < 0:
        raise fail(f"--truncate is 0 (play to the end) or a number of plies, not {truncate}")
    if not 0 <= seed <= 2**31 - 2**16 - trials:
        raise fail(f"--seed is 0 to {2**31 - 2**16 - trials} for {trials} trials, not {seed}")
    with tqdm(total=trials, unit="trial", disable=not progress or as_json,
              leave=False) as bar, deferred_interrupt() as interrupted:

        def show(results: np.ndarray) -> None:
            equity, error = _equity_and_error(results)
            bar.update(len(results) - bar.n)
            bar.set_postfix_str(f"equity {equity:+.3f} ± {error:.3f}")

        results = roll_out(board, trials, truncate, seed, show, interrupted)
    if not len(results):
        typer.echo("Interrupted (Ctrl-C) before the first batch of trials: no result.")
        raise typer.Exit(130)
    mean = results.mean(axis=0)
    errors = (results.std(axis=0, ddof=1) / np.sqrt(len(results)) if len(results) > 1
              else np.zeros(5))
    equity_error = _equity_and_error(results)[1]
    result = judge(board, mean, fields)
    if len(results) < trials:
        typer.echo(f"Interrupted (Ctrl-C) after {len(results)} of {trials} trials: the result "
                   f"of those.", err=as_json)
    if as_json:
        typer.echo(json.dumps({"position_id": position_id, "match_id": match_id,
                               "trials": len(results), "truncate": truncate, "seed": seed,
                               **result.__dict__, "stderr": errors.tolist(),
                               "cubeless_stderr": equity_error}))
    else:
        how = (f"a rollout of {len(results)} trials, 0-ply, "
               + (f"truncated at {truncate} plies" if truncate else "played to the end"))
        typer.echo(text(result, fields, how, (*errors.tolist(), equity_error)))
    if len(results) < trials:
        raise typer.Exit(130)
