"""``boardgammon rollout POSITION_ID [--match-id ID] [--trials N] [--ply 0|1] [--truncate N]
[--seed S]``: the position before the roll rolled out by our network
(:mod:`boardgammon.bots.rollout`: plays at 0-ply, or 1-ply with ``--ply 1``, luck-adjusted
results, quasi-random dice: the first two rolls stratified by a Latin
square, or with ``--stratify 1`` the first roll only), with a progress bar showing the running
cubeless equity and its standard error; then the outputs with their standard errors, the
equities and the cube decision as ``boardgammon eval`` prints them.

With ``--dice D1 D2`` the best ``--plays`` plays of that roll (by the network at 0-ply) are
rolled out instead, each from its resulting position with the same trials, and listed best
first with their equities and standard errors (the mover's view); the progress bar counts the
trials of all of them, showing the play under way, and ``--save``/``--resume`` keep and go on
from each play's trials as below.

Trials run in batches of 36 (a whole set of first rolls); the result of a batched rollout is
that of one run of as many trials. Ctrl-C stops at the end of the batch under way and prints the
result of the trials done. ``--json`` prints one JSON object.

``--save FILE`` keeps a checkpoint of the trials done, rewritten after every batch (JSON: the
settings and each trial's luck-adjusted outputs); ``--resume FILE`` goes on from one to
``--trials`` (saving to it again unless ``--save`` names another file). As a trial depends only
on the seed and its number, a resumed rollout is the rollout of one run.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import typer

from boardgammon.engine import Board

from .evaluate import fail, judge, position_and_match, text
from .interrupt import deferred_interrupt

T = TypeVar("T")

MAX_TRIALS = 10_000_000
"""The most trials a rollout takes (weeks at 0-ply; the seeds of its trials must fit 31 bits)."""

BATCH = 36
"""Trials per kernel call: the 36 first rolls, so that every batch is stratified alike."""


def roll_out(board: Board, trials: int, truncate: int = 0, seed: int = 1,
             progress: Callable[[np.ndarray], None] | None = None,
             interrupted: Callable[[], bool] = lambda: False,
             earlier: np.ndarray | None = None, stratify: int = 1, plies: int = 0) -> np.ndarray:
    """Luck-adjusted results ``float64[n, 5]`` (player on roll's view) of ``n`` trials of
    ``board``: ``trials``, or fewer when ``interrupted()`` turns true between two batches.

    Args:
        truncate: plies after which a trial is valued at 0-ply (0: played to the end).
        seed: trial ``i`` draws its dice after the first roll from seed ``seed + i``.
        progress: called with the results so far after each batch.
        earlier: ``float64[k, 5]``, the results of trials 0 to k - 1 of this rollout (a
            checkpoint); the trials from k on are played. ``k`` is a multiple of the batch (36)
            or at least ``trials``, so that every trial has its first roll as in one run.
        stratify: 1, the first roll stratified; 2, the first two by a Latin square whose
            starting row is ``seed mod 36`` (:func:`boardgammon.bots.rollout.rollout`).
        plies: the depth of every play in the trials, 0 or 1.

    Raises:
        ValueError: ``earlier`` has a part batch and fewer than ``trials`` trials, or
            ``plies`` is not 0 or 1.
    """
    from boardgammon.bots import bearoff
    from boardgammon.bots.neural import shipped_network
    from boardgammon.bots.rollout import ROLL_INDEX, rollout

    if plies not in (0, 1):
        raise ValueError(f"rollouts play their trials at 0-ply or 1-ply, not {plies}-ply")
    net = shipped_network("hypergammon" if board.checkers == 3 else "standard")
    done = 0 if earlier is None else len(earlier)
    if done % BATCH and done < trials:
        raise ValueError(f"the checkpoint holds {done} trials, not a multiple of {BATCH} (a "
                         f"whole number of first-roll sets), so it cannot be extended to "
                         f"{trials}: trial {done} would not get its first roll")
    results = np.empty((max(trials, done), 5), dtype=np.float64)
    if earlier is not None:
        results[:done] = earlier
    plain = np.empty((BATCH, 5), dtype=np.float64)
    while done < trials and not interrupted():
        n = min(BATCH, trials - done)
        rollout(np.ascontiguousarray(board.array), board.checkers, *net.weights,
                bearoff.table(), bearoff.ROLLS, bearoff.ROLL_WEIGHTS, ROLL_INDEX, n, truncate,
                seed + done, plain[:n], results[done:done + n],
                (seed + done // BATCH) % 36 if stratify == 2 else -1, plies)
        done += n
        if progress is not None:
            progress(results[:done])
    return results[:done]


CHECKPOINT_FORMAT = "boardgammon-rollout"


def save_checkpoint(path: Path, settings: dict[str, Any], results: np.ndarray) -> None:
    """Write ``settings`` (position, match, truncation, seed) and ``results`` ``float64[n, 5]``
    to ``path`` as JSON, replacing the file whole (written beside it, then renamed) so that
    Ctrl-C never leaves half a checkpoint.

    Raises:
        OSError: the file cannot be written.
    """
    _write(path, {"format": CHECKPOINT_FORMAT, "version": 1, **settings,
                  "results": results.tolist()})


def save_plays_checkpoint(path: Path, settings: dict[str, Any],
                          ranked: list[tuple[str, np.ndarray]]) -> None:
    """Write ``settings`` (position, match, dice, plays, truncation, seed) and the results so
    far of each play (the mover's view, :func:`roll_out_plays`) to ``path``, whole, as
    :func:`save_checkpoint` does.

    Raises:
        OSError: the file cannot be written.
    """
    _write(path, {"format": CHECKPOINT_FORMAT, "version": 1, **settings,
                  "plays_done": [[play, results.tolist()] for play, results in ranked]})


def _write(path: Path, data: dict[str, Any]) -> None:
    part = path.with_name(f".{path.name}.part")
    part.write_text(json.dumps(data))
    os.replace(part, path)


def load_checkpoint(path: Path, settings: dict[str, Any]) -> np.ndarray:
    """The results ``float64[n, 5]`` kept in ``path`` by :func:`save_checkpoint`.

    Raises:
        OSError: the file cannot be read.
        ValueError: not a rollout checkpoint, or one of other settings than ``settings``
            (the message names the first that differs).
    """
    data = _read(path, settings)
    if "plays_done" in data:
        raise ValueError(f"{path} is the rollout of the plays of a roll: resume it with "
                         f"--dice {' '.join(map(str, data.get('dice') or []))}")
    return _rows(path, data.get("results"))


def load_plays_checkpoint(path: Path, settings: dict[str, Any]) -> dict[str, np.ndarray]:
    """The results so far of each play (the mover's view) kept in ``path`` by
    :func:`save_plays_checkpoint`.

    Raises:
        OSError: the file cannot be read.
        ValueError: as :func:`load_checkpoint`.
    """
    data = _read(path, settings)
    done = data.get("plays_done")
    if not isinstance(done, list) or not all(isinstance(d, list) and len(d) == 2
                                             and isinstance(d[0], str) for d in done):
        raise ValueError(f"{path} is not the rollout of the plays of a roll (--dice)")
    return {play: _rows(path, rows) for play, rows in done}


def _read(path: Path, settings: dict[str, Any]) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except (ValueError, RecursionError) as exc:
        raise ValueError(f"{path} is not a rollout checkpoint (not JSON: {exc})") from exc
    if not isinstance(data, dict) or data.get("format") != CHECKPOINT_FORMAT:
        raise ValueError(f"{path} is not a rollout checkpoint")
    for name, value in settings.items():
        if data.get(name) != value:
            raise ValueError(f"{path} is a rollout with {name} {data.get(name)!r}, not "
                             f"{value!r}: resume it with the same settings")
    return data


def _rows(path: Path, rows: object) -> np.ndarray:
    try:
        return np.array(rows, dtype=np.float64).reshape(-1, 5)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{path}: its results are not rows of five outputs") from exc


def _mover_view(results: np.ndarray) -> np.ndarray:
    """Results of trials from the opponent's view (on roll after a play) in the mover's."""
    return np.stack([1.0 - results[:, 0], results[:, 3], results[:, 4], results[:, 1],
                     results[:, 2]], axis=-1)


def roll_out_plays(board: Board, dice: tuple[int, int], plays: int, trials: int,
                   truncate: int = 0, seed: int = 1,
                   interrupted: Callable[[], bool] = lambda: False, stratify: int = 1,
                   plies: int = 0,
                   progress: Callable[[list[tuple[str, np.ndarray]]], None] | None = None,
                   earlier: dict[str, np.ndarray] | None = None
                   ) -> list[tuple[str, np.ndarray]]:
    """The best ``plays`` plays of ``dice`` in ``board`` (player on roll's view) by the
    network at 0-ply, each with the luck-adjusted results ``float64[n, 5]`` (the mover's view)
    of ``trials`` trials from its resulting position (fewer, or none for the plays not
    reached, after ``interrupted()``); a play that ends the game has its result, once.
    ``stratify`` and ``plies`` (the trials' depth): as for :func:`roll_out`.

    Args:
        progress: called after every batch with the plays so far, the one under way last
            with its results so far.
        earlier: a checkpoint: results (the mover's view) of the first trials of some plays,
            by play; each goes on from there as :func:`roll_out` does.

    Raises:
        ValueError: an ``earlier`` result with a part batch and fewer than ``trials``
            trials."""
    from boardgammon.analysis.evaluator import terminal_outputs
    from boardgammon.bots.network import cubeless_equity
    from boardgammon.bots.neural import NetworkEvaluator

    legal = board.legal_plays(*dice)
    afters = np.stack([p.board_after.array for p in legal])
    theirs = NetworkEvaluator().evaluate(np.ascontiguousarray(afters[:, ::-1]),
                                         board.checkers, 0).astype(np.float64)
    # Best for the mover: worst for the opponent, on roll after it.
    order = np.argsort(np.asarray(cubeless_equity(theirs)), kind="stable")[:plays]
    ranked: list[tuple[str, np.ndarray]] = []
    for k in order:
        play = legal[int(k)]
        name = str(play)
        done = terminal_outputs(afters[k], board.checkers)
        if done is not None:
            ranked.append((name, np.asarray(done, dtype=np.float64)[None]))
            continue
        kept = (earlier or {}).get(name)
        if interrupted() and kept is None:
            continue  # not reached; a later play's kept trials still count
        before = list(ranked)

        def show(results: np.ndarray, name: str = name,
                 before: list[tuple[str, np.ndarray]] = before) -> None:
            if progress is not None:
                progress([*before, (name, _mover_view(results))])

        results = roll_out(play.board_after.swapped(), trials, truncate, seed, show,
                           interrupted, None if kept is None else _mover_view(kept),
                           stratify, plies)
        ranked.append((name, _mover_view(results)))
    return ranked


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
    ply: int = typer.Option(0, "--ply", help=(
        "Depth of the plays in the trials: 0, or 1 (about 30 times slower: the best plays at "
        "0-ply, at most 8 within 0.16, searched one ply deeper).")),
    truncate: int = typer.Option(0, "--truncate", help=(
        "Plies after which a trial is valued by the network (0: played to the end).")),
    seed: int = typer.Option(1, "--seed", help="Seed of the dice (0 to 2^31 - 2^16)."),
    stratify: int = typer.Option(2, "--stratify", help=(
        "Quasi-random dice: 2 stratifies the first two rolls (a Latin square: every 1296 trials "
        "have each pair of first and second rolls once), 1 the first roll only.")),
    dice: tuple[int, int] | None = typer.Option(None, "--dice", help=(
        "Roll out the best plays of this roll (two dice, e.g. --dice 3 1) instead.")),
    plays: int = typer.Option(3, "--plays", help="With --dice: how many plays (1 or more)."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
    progress: bool = typer.Option(True, help="Show a progress bar."),
    save: Path | None = typer.Option(None, "--save", metavar="FILE", help=(
        "Keep a checkpoint of the trials done in FILE, rewritten after every batch of 36 "
        "(with --dice: of every play's trials).")),
    resume: Path | None = typer.Option(None, "--resume", metavar="FILE", help=(
        "Go on from the checkpoint in FILE (same position and settings) to --trials; saved "
        "there again unless --save names another file.")),
) -> None:
    """Roll a position out: the outputs and equities with their standard errors, and the cube
    decision."""
    from tqdm import tqdm

    board, fields = position_and_match(position_id, match_id)
    if ply not in (0, 1):
        raise fail(f"--ply is 0 or 1 (the depth of the plays in the trials), not {ply}")
    if not 1 <= trials <= MAX_TRIALS:
        raise fail(f"--trials is 1 to {MAX_TRIALS:,}, not {trials}")
    if stratify not in (1, 2):
        raise fail(f"--stratify is 1 (the first roll) or 2 (the first two rolls), not "
                   f"{stratify}")
    if truncate < 0:
        raise fail(f"--truncate is 0 (play to the end) or a number of plies, not {truncate}")
    if not 0 <= seed <= 2**31 - 2**16 - trials:
        raise fail(f"--seed is 0 to {2**31 - 2**16 - trials} for {trials} trials, not {seed}")
    settings = {"position_id": position_id, "match_id": match_id, "truncate": truncate,
                "seed": seed, "stratify": stratify, **({"ply": ply} if ply else {})}
    if dice is not None:
        _roll_out_plays(board, dice, plays, trials, truncate, seed, as_json, stratify, ply,
                        progress, settings, save, resume)
        return
    earlier = _resumed(load_checkpoint, resume, settings)
    save = save or resume
    with tqdm(total=trials, unit="trial", disable=not progress or as_json,
              leave=False) as bar, deferred_interrupt() as interrupted:

        def show(results: np.ndarray) -> None:
            if save is not None:
                save_checkpoint(save, settings, results)
            equity, error = _equity_and_error(results)
            bar.update(len(results) - bar.n)
            bar.set_postfix_str(f"equity {equity:+.3f} ± {error:.3f}")

        try:
            results = roll_out(board, trials, truncate, seed, show, interrupted, earlier,
                               stratify, ply)
        except ValueError as exc:
            raise fail(f"--resume: {exc}") from None
        except OSError as exc:
            raise fail(f"--save: cannot write {save}: {exc.strerror or exc}") from None
    if not len(results):
        typer.echo("Interrupted (Ctrl-C) before the first batch of trials: no result.")
        raise typer.Exit(130)
    mean = results.mean(axis=0)
    errors = (results.std(axis=0, ddof=1) / np.sqrt(len(results)) if len(results) > 1
              else np.zeros(5))
    equity_error = _equity_and_error(results)[1]
    result = judge(board, mean, fields)
    if len(results) < trials:
        kept = f"; kept in {save}: go on with --resume {save}" if save is not None else ""
        typer.echo(f"Interrupted (Ctrl-C) after {len(results)} of {trials} trials: the result "
                   f"of those{kept}.", err=as_json)
    if as_json:
        typer.echo(json.dumps({"position_id": position_id, "match_id": match_id,
                               "trials": len(results), "ply": ply, "truncate": truncate,
                               "seed": seed, "stratify": stratify,
                               **result.__dict__, "stderr": errors.tolist(),
                               "cubeless_stderr": equity_error}))
    else:
        how = (f"a rollout of {len(results)} trials, {ply}-ply, "
               + (f"truncated at {truncate} plies" if truncate else "played to the end"))
        typer.echo(text(result, fields, how, (*errors.tolist(), equity_error)))
    if len(results) < trials:
        raise typer.Exit(130)



def _resumed(load: Callable[[Path, dict[str, Any]], T], resume: Path | None,
             settings: dict[str, Any]) -> T | None:
    """What ``load`` reads from the ``--resume`` file (None without one), its errors as the
    command's messages."""
    if resume is None:
        return None
    try:
        return load(resume, settings)
    except OSError as exc:
        raise fail(f"--resume: cannot read {resume}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise fail(f"--resume: {exc}") from None


def _roll_out_plays(board: Board, dice: tuple[int, int], plays: int, trials: int,
                    truncate: int, seed: int, as_json: bool, stratify: int, ply: int,
                    progress: bool, settings: dict[str, Any], save: Path | None,
                    resume: Path | None) -> None:
    from tqdm import tqdm

    from boardgammon.engine import EngineError
    from boardgammon.engine.board import check_dice

    try:
        d1, d2 = check_dice(*dice)
    except (EngineError, ValueError) as exc:
        raise fail(f"--dice: {exc}") from None
    if plays < 1:
        raise fail(f"--plays is 1 or more, not {plays}")
    settings = {**settings, "dice": [d1, d2], "plays": plays}
    earlier = _resumed(load_plays_checkpoint, resume, settings)
    save = save or resume
    # Every play that does not end the game is rolled out with the same trials.
    total = trials * min(plays, len(board.legal_plays(d1, d2)))
    with tqdm(total=total, unit="trial", disable=not progress or as_json,
              leave=False) as bar, deferred_interrupt() as interrupted:

        def show(ranked: list[tuple[str, np.ndarray]]) -> None:
            if save is not None:
                save_plays_checkpoint(save, settings, ranked)
            play, results = ranked[-1]
            equity, error = _equity_and_error(results)
            bar.update(sum(len(r) for _, r in ranked) - bar.n)
            bar.set_postfix_str(f"{play}: equity {equity:+.3f} ± {error:.3f}")

        try:
            ranked = roll_out_plays(board, (d1, d2), plays, trials, truncate, seed, interrupted,
                                    stratify, ply, show, earlier)
        except ValueError as exc:
            raise fail(f"--resume: {exc}") from None
        except OSError as exc:
            raise fail(f"--save: cannot write {save}: {exc.strerror or exc}") from None
    if save is not None and ranked:
        try:
            save_plays_checkpoint(save, settings, ranked)
        except OSError as exc:
            raise fail(f"--save: cannot write {save}: {exc.strerror or exc}") from None
    rows = []
    for play, results in ranked:
        equity, error = _equity_and_error(results)
        errors = (results.std(axis=0, ddof=1) / np.sqrt(len(results)) if len(results) > 1
                  else np.zeros(5))
        rows.append({"play": play or "(no move)", "trials": len(results),
                     "outputs": results.mean(axis=0).tolist(), "stderr": errors.tolist(),
                     "cubeless": equity, "cubeless_stderr": error})
    rows.sort(key=lambda r: -r["cubeless"])
    cut = interrupted() and (len(ranked) < min(plays, len(board.legal_plays(d1, d2)))
                             or any(r["trials"] < trials for r in rows))
    if cut:
        kept = f"; kept in {save}: go on with --resume {save}" if save is not None else ""
        typer.echo(f"Interrupted (Ctrl-C): the plays and trials done so far{kept}.",
                   err=as_json)
    if as_json:
        typer.echo(json.dumps({"dice": [d1, d2], "ply": ply, "truncate": truncate, "seed": seed,
                               "stratify": stratify, "plays": rows}))
    else:
        depth = f"truncated at {truncate} plies" if truncate else "played to the end"
        # Within 80 columns (it was 112 wide): a table under a heading of two lines.
        typer.echo(f"Rollout of the best {len(rows)} plays of {d1}-{d2} ({ply}-ply, {depth}):\n"
                   f"the mover's cubeless equity ± standard error, chances in %\n"
                   f"    {'play':<22}  equity   s.e.    win gammon | lose g.  trials")
        for i, r in enumerate(rows, start=1):
            w, wg, wbg, lg, lbg = r["outputs"]
            typer.echo(f"{i:>2}. {r['play']:<22}  {r['cubeless']:+.3f} ± "
                       f"{r['cubeless_stderr']:.3f}  {100 * w:5.1f}  {100 * wg:5.1f} | "
                       f"{100 * lg:7.1f}  {r['trials']:>6}")
    if cut:
        raise typer.Exit(130)
