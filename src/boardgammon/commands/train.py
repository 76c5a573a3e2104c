"""``boardgammon train``: TD(λ) self-play training of the neural evaluator, resumable.

``boardgammon train`` reproduces the shipped weights (7,025,000 games, seed 1, the defaults below;
α's floor drops from 0.01 to 0.003 at game 1,600,000); ``boardgammon train --variant hypergammon
--games 300000`` the shipped Hypergammon weights.
The run directory holds ``state.npz`` (weights, games done, settings), rewritten atomically every
``--checkpoint-every`` games, and ``train.log`` (one JSON line per checkpoint: games, games/s,
training loss, and the mean squared error against gnubg's evaluations of the benchmark positions
when a benchmark file is given). Rerunning the same command continues from ``state.npz``; since
each game's dice and learning rate depend only on the seed and the game's number, the resumed
run gives the same weights as an uninterrupted one. Ctrl-C stops the run at the end of the
chunk of games under way (at most 500), saves ``state.npz`` there and says so (exit status 130).
"""

from __future__ import annotations

import json
import os
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import typer

from boardgammon.bots.encoding import N_INPUTS
from boardgammon.bots.network import Network
from boardgammon.bots.training import learning_rate, train_games
from boardgammon.engine import Board, Variant

from .interrupt import deferred_interrupt

DEFAULTS = {"hidden": 128, "lam": 0.7, "alpha0": 0.1, "half_life": 100_000.0, "alpha_min": 0.01,
            "anneal_at": 1_600_000.0, "alpha_late": 0.003, "checkers": 15.0}
"""The run's settings, stored in its state: λ; α = ``alpha0`` halving every ``half_life`` games,
at least ``alpha_min`` before game ``anneal_at`` and at least ``alpha_late`` from it on (a lower
floor late in the run: less checkpoint-to-checkpoint wander, see docs/neural.md); ``checkers``
per side, 15 (standard games) or 3 (Hypergammon)."""
TRAINED_VARIANTS = (Variant.STANDARD, Variant.HYPERGAMMON)
"""The games a network is trained for (Nackgammon uses the standard one)."""


def load_benchmark(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """Benchmark positions ``int8[P, 2, 25]`` and gnubg's outputs ``float32[P, 5]`` from an
    ``.npz`` with keys ``boards`` and ``outputs``.

    Raises:
        OSError, KeyError, ValueError: unreadable, a key missing, or other shapes.
    """
    with np.load(path) as z:
        boards, outputs = z["boards"], z["outputs"]
    if boards.ndim != 3 or boards.shape[1:] != (2, 25) or outputs.shape != (len(boards), 5):
        raise ValueError(f"boards {boards.shape} and outputs {outputs.shape}, not (P, 2, 25) "
                         f"and (P, 5)")
    return boards, outputs


_UNREADABLE = (OSError, ValueError, TypeError, KeyError, EOFError, zipfile.BadZipFile)
"""What ``np.load`` and the checks raise for a file that is not the ``.npz`` expected."""


def floor_at(done: int, settings: dict) -> float:
    """α's floor for game number ``done`` (0-based) of a run with ``settings``."""
    return settings["alpha_min"] if done < settings["anneal_at"] else settings["alpha_late"]


def benchmark_error(net: Network, boards: np.ndarray, outputs: np.ndarray) -> float:
    """Mean squared error of ``net``'s five outputs against reference outputs."""
    return float(np.mean((net.evaluate(boards) - outputs) ** 2))


def _check_state(done: int, settings: dict, net: Network) -> None:
    """Refuse a state whose numbers no run writes (``ValueError``): negative or absurd games,
    λ outside [0, 1], a learning rate outside (0, 1], a half-life that is not a positive finite
    number, no hidden units, a joined contact and race network (which the ranking fits make,
    ``training/split.py``; self-play trains one network), weights that are not finite."""
    if not 0 <= done <= 10**12:
        raise ValueError(f"games {done} is not between 0 and 10^12")
    if not 0 <= settings["lam"] <= 1:
        raise ValueError(f"lam {settings['lam']:g} is outside [0, 1]")
    for key in ("alpha0", "alpha_min", "alpha_late"):
        if not 0 < settings[key] <= 1:
            raise ValueError(f"{key} {settings[key]:g} is outside (0, 1]")
    if not 0 < settings["half_life"] < np.inf or not settings["anneal_at"] >= 0:
        raise ValueError("half_life must be positive and finite, anneal_at at least 0")
    if net.hidden < 1:
        raise ValueError("the network has no hidden units")
    if net.joined:
        raise ValueError("a joined contact and race network; self-play trains a single one")
    if settings["checkers"] not in {v.checkers for v in TRAINED_VARIANTS}:
        raise ValueError(f"checkers {settings['checkers']:g} is neither 15 nor 3")
    if not all(np.isfinite(w).all() for w in net.weights):
        raise ValueError("the weights are not all finite")


def _save_state(path: Path, net: Network, games: int, seed: int, settings: dict) -> None:
    tmp = path.with_suffix(".tmp.npz")
    net.save(tmp, games=games, seed=seed, **{k: np.float64(v) for k, v in settings.items()})
    os.replace(tmp, path)


def train(games: int = typer.Option(7_025_000, help="total self-play games of the run"),
          seed: int | None = typer.Option(None, help="seeds the initial weights and every "
                                                     "game's dice [new runs: 1; a resumed run "
                                                     "keeps its own]"),
          out: Path = typer.Option(Path("checkpoints/train"), help="run directory"),
          checkpoint_every: int = typer.Option(5_000, help="games between checkpoints"),
          export: Path | None = typer.Option(None, help="also copy the weights here at each "
                                                        "checkpoint (e.g. a tracked file)"),
          benchmark: Path | None = typer.Option(None, help="npz of positions with gnubg's "
                                                           "outputs, for the benchmark error"),
          hidden: int | None = typer.Option(None, min=1, help=(
              f"hidden units [new runs: {DEFAULTS['hidden']}; a resumed run keeps its own]")),
          anneal_at: int | None = typer.Option(None, help=(
              f"game from which α's floor is --alpha-late [new runs: "
              f"{int(DEFAULTS['anneal_at'])}; a resumed run keeps its own]")),
          alpha_late: float | None = typer.Option(None, help=(
              f"α's floor from --anneal-at on [new runs: {DEFAULTS['alpha_late']}; a resumed "
              f"run keeps its own]")),
          variant: str | None = typer.Option(None, help=(
              "standard (15 checkers; Nackgammon uses it too) or hypergammon [new runs: "
              "standard; a resumed run keeps its own]")),
          progress: bool = typer.Option(True, help="show a progress bar")) -> None:
    """Train the evaluator by TD(λ) self-play, resuming from OUT/state.npz if present.

    A resumed run keeps the seed and settings stored in its state; an option given that
    differs from them is refused (so is one that a new run would take by default).
    """
    from tqdm import tqdm

    if variant is not None and variant not in TRAINED_VARIANTS:
        raise typer.BadParameter(f"--variant is standard or hypergammon, not {variant!r}")
    if games <= 0 or checkpoint_every <= 0:
        raise typer.BadParameter("--games and --checkpoint-every must be positive")
    if (anneal_at is not None and anneal_at < 0) or (alpha_late is not None
                                                     and not 0 < alpha_late <= 1):
        raise typer.BadParameter("--anneal-at must be at least 0 and --alpha-late in (0, 1]")
    if out.exists() and not out.is_dir():
        raise typer.BadParameter(f"{out} is a file, not a run directory", param_hint="--out")
    state = out / "state.npz"
    widened: dict | None = None
    asked = {"hidden": hidden, "anneal_at": anneal_at, "alpha_late": alpha_late,
             "checkers": None if variant is None else Variant(variant).checkers}
    if state.exists():
        try:
            with np.load(state) as z:
                done = int(z["games"])
                run_seed = int(z["seed"])
                # states written before the late floor existed run on with its defaults
                settings = {k: float(z[k]) if k in z else v for k, v in DEFAULTS.items()}
                if not all(np.isrealobj(z[k]) for k in ("w1", "b1", "w2", "b2")):
                    raise ValueError("the weights are not all real numbers")
            inputs = Network.inputs_of(state)
            net = Network.load(state, widen=True)
            _check_state(done, settings, net)
        except _UNREADABLE as e:
            raise typer.BadParameter(f"{state} is not a training state: "
                                     f"{e or type(e).__name__}") from None
        if seed is not None and run_seed != seed:
            raise typer.BadParameter(f"{state} is a run with seed {run_seed}, not {seed}")
        seed = run_seed
        settings["hidden"] = float(net.hidden)
        if hidden is not None and hidden != net.hidden:
            raise typer.BadParameter(f"{state} is a run with {net.hidden} hidden units, "
                                     f"not {hidden}")
        for name in ("anneal_at", "alpha_late"):
            if asked[name] is not None and asked[name] != settings[name]:
                raise typer.BadParameter(f"{state} is a run with {name} {settings[name]:g}, "
                                         f"not {asked[name]:g}")
        if asked["checkers"] is not None and settings["checkers"] != asked["checkers"]:
            raise typer.BadParameter(f"{state} is a run of {int(settings['checkers'])}-checker "
                                     f"games, not {variant}")
        if done >= games:
            typer.echo(f"{state} is already at {done} games (asked for {games}): nothing to do")
            return
        if inputs < N_INPUTS:
            typer.echo(f"{state}: a run of {inputs} inputs, continued with this encoding's "
                       f"{N_INPUTS} (the new inputs start at weight 0)")
            widened = {"games": done, "widened": [inputs, N_INPUTS]}
    else:
        seed = 1 if seed is None else seed
        settings = dict(DEFAULTS, **{k: float(v) for k, v in asked.items() if v is not None})
        done = 0
        net = Network.random(int(settings["hidden"]), seed)
    checkers = int(settings["checkers"])
    variant = Variant.HYPERGAMMON if checkers == 3 else Variant.STANDARD
    if benchmark is not None and checkers != 15:
        raise typer.BadParameter("the benchmark positions are 15-checker ones: no --benchmark "
                                 "with --variant hypergammon", param_hint="--benchmark")
    try:
        bench = load_benchmark(benchmark) if benchmark else None
    except _UNREADABLE as e:
        raise typer.BadParameter(f"{benchmark} is not a benchmark file (an .npz with boards "
                                 f"and outputs): {e or type(e).__name__}",
                                 param_hint="--benchmark") from None
    if export is not None and export.exists() and not export.is_file():
        raise typer.BadParameter(f"{export} exists and is not a file", param_hint="--export")
    try:
        # The export is tried first, so that a bad --export leaves no empty run folder behind.
        if export is not None:  # written at every checkpoint: found unwritable now, not then
            export.parent.mkdir(parents=True, exist_ok=True)
            probe = export.with_suffix(".tmp.npz")
            probe.write_bytes(b"")
            probe.unlink()
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise typer.BadParameter(f"cannot create {e.filename}: {e.strerror}") from None
    start = Board.initial(variant).array.copy()
    log = (out / "train.log").open("a")
    if widened is not None:
        log.write(json.dumps(widened) + "\n")
    bar = tqdm(total=games, initial=done, unit="game", disable=not progress, smoothing=0.05)
    # Compile (or load numba's cache) with a call of no games, so that the first checkpoint's
    # games/s counts games only (it read 65 instead of about 450).
    train_games(*net.weights, start, checkers, seed, done, 0, settings["lam"], settings["alpha0"],
                settings["half_life"], floor_at(done, settings))
    with deferred_interrupt() as interrupted:
        done = _train(net, start, checkers, seed, done, games, checkpoint_every, settings,
                      state, export, bench, log, bar, interrupted)
    bar.close()
    log.close()
    if interrupted():
        # Saved at a whole chunk of games: each game depends only on the seed and its number,
        # so the resumed run ends with the weights an uninterrupted one would have.
        _save_state(state, net, done, seed, settings)
        typer.echo(f"Interrupted (Ctrl-C): saved {state} at {done} games; rerun the same "
                   f"command to continue from there.")
        raise typer.Exit(130)
    typer.echo(f"{out}: {done} games")


def _train(net: Network, start: np.ndarray, checkers: int, seed: int, done: int, games: int,
           checkpoint_every: int, settings: dict, state: Path, export: Path | None,
           bench: tuple[np.ndarray, np.ndarray] | None, log, bar,
           interrupted: Callable[[], bool]) -> int:
    """Train from game ``done`` to ``games`` (or to the chunk at which ``interrupted()``),
    checkpointing as it goes; returns the games done."""
    chunk = 500
    window_games, window_sq, window_plies, t0 = 0, 0.0, 0, time.perf_counter()
    while done < games and not interrupted():
        n = min(chunk, games - done, checkpoint_every - done % checkpoint_every)
        if done < settings["anneal_at"]:
            n = min(n, int(settings["anneal_at"]) - done)  # one floor per call
        plies, sq = train_games(*net.weights, start, checkers, seed, done, n, settings["lam"],
                                settings["alpha0"], settings["half_life"],
                                floor_at(done, settings))
        done += n
        window_games += n
        window_plies += plies
        window_sq += sq
        bar.update(n)
        if done % checkpoint_every == 0 or done == games:
            elapsed = time.perf_counter() - t0
            _save_state(state, net, done, seed, settings)
            if export is not None:  # its folder was made (and tried) at the start
                _save_state(export, net, done, seed, settings)  # a state another run resumes
            entry = {"games": done, "games_per_s": round(window_games / elapsed, 1),
                     "loss": round(window_sq / max(window_plies, 1), 5),
                     "plies_per_game": round(window_plies / window_games, 1),
                     "alpha": round(float(learning_rate(done, settings["alpha0"],
                                                        settings["half_life"],
                                                        floor_at(done, settings))), 5),
                     "time": time.strftime("%Y-%m-%dT%H:%M:%S")}
            if bench is not None:
                entry["benchmark_mse"] = round(benchmark_error(net, *bench), 5)
            log.write(json.dumps(entry) + "\n")
            log.flush()
            bar.set_postfix(loss=entry["loss"], gps=entry["games_per_s"])
            window_games, window_sq, window_plies, t0 = 0, 0.0, 0, time.perf_counter()
    return done
