"""Rollout-labelled positions: the training data of a stronger evaluator (see docs/neural.md).

Positions come from the shipped network's self-play with one play in five chosen at random
(:func:`make_benchmark.sample_positions`: every third position before the roll, game-over
excluded, contact and race alike), deduplicated within and across shards. Each is rolled out by
OUR network at 0-ply (never by gnubg: gnubg judges, it does not teach), by the kernel of
:mod:`boardgammon.bots.rollout`:

* ``trials`` games from the position, the first roll stratified over the 36 outcomes (trial
  ``i`` starts with outcome ``i mod 36``), later rolls from numba's generator seeded by the
  position and the trial, so a position's label depends only on the seed and its number;
* every play chosen greedily at 0-ply (:func:`boardgammon.bots.training.choose`, bear-off
  database included);
* variance reduction as gnubg's rollouts do it: at each ply the best play of all 21 rolls is
  found and valued at 0-ply; the roll's luck, the chosen roll's value minus the 21 rolls'
  average, is subtracted from the game's result. Luck has mean zero whatever the network's
  errors, so the estimate stays unbiased, and most of the dice's noise cancels;
* a game stops when it ends (its result), when it reaches a race valued exactly by the one-sided
  bear-off database (both sides bearing off, a checker off each), or at ``--truncate`` plies
  (0: never) with the network's 0-ply value there.

The labels are the five cubeless outputs (win, win gammon, win backgammon, lose gammon, lose
backgammon) from the view of the player on roll, averaged over the trials, with their standard
errors (standard deviation over trials / √trials).

    python -m training.rollouts generate --out training/data/rollouts --seed S
        [--positions N] [--trials 144] [--truncate 0] [--shard 200]

Output: shards ``OUT-SEED-NNNN.npz`` (``boards int8[n, 2, 25]``, ``outputs float32[n, 5]``,
``stderr float32[n, 5]``, ``trials``, ``truncate``, ``seed``, ``shard``, ``weights_sha256``),
each written to a temporary file and renamed, and one line per shard in ``OUT-log.jsonl``
(positions, race positions, seconds, positions/s, the load average beside it, time). An
unfinished shard is saved every 20 positions as ``OUT-SEED-NNNN.partial.npz`` (not data to
commit: it is replaced by the shard). A run resumes where the last one stopped and produces the
same shards as an uninterrupted one; it refuses to continue shards made with other settings or
weights. Without ``--positions`` it runs until stopped.

Labels are unbiased estimates and are not clipped: a rare output may fall a little outside
0–1 (e.g. a backgammon chance of −0.003); a trainer clips or weighs them as it sees fit.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any

import numpy as np

from boardgammon.bots.network import N_OUTPUTS, Network
from boardgammon.bots.rollout import label
from boardgammon.engine.rules import is_contact
from training.make_benchmark import sample_positions

PARTIAL = 20  # positions labelled between saves of an unfinished shard
WEIGHTS = Path(__file__).resolve().parents[1] / "src/boardgammon/bots/weights/neural.npz"


def weights_sha256(path: Path) -> str:
    """The weights file's SHA-256 (hex), stored in each shard: labels of other weights differ."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def position_seeds(seed: int, shard: int, n: int) -> np.ndarray:
    """Dice seeds of the ``n`` positions of shard ``shard`` (each trial adds its number; numba
    seeds are 32-bit)."""
    return np.random.default_rng([seed, shard, 1]).integers(0, 2**31 - 2**16, n)


def shard_positions(net: Network, seed: int, shard: int, n: int, seen: set[bytes]) -> np.ndarray:
    """``n`` positions of shard ``shard`` not in ``seen`` (which they are added to)."""
    found: list[np.ndarray] = []
    batch = 0
    while len(found) < n:
        for b in sample_positions(net, n, int(np.random.default_rng([seed, shard, 0, batch])
                                              .integers(2**63))):
            key = b.tobytes()
            if key not in seen and len(found) < n:
                seen.add(key)
                found.append(b)
        batch += 1
    return np.stack(found)


def _shard_path(out: str, seed: int, shard: int) -> Path:
    return Path(f"{out}-{seed}-{shard:04d}.npz")


def resume(out: str, seed: int, settings: dict[str, Any], seen_key: str,
           count_key: str = "boards") -> tuple[int, int, set[bytes]]:
    """``(shards, items, seen)`` of the finished shards ``OUT-SEED-NNNN.npz`` of a run: how
    many there are, the items they hold (the length of their ``count_key`` array, what the
    run counts towards its total) and every position of their ``seen_key`` array, so that a
    resumed run goes on where it stopped.

    Raises:
        SystemExit: a shard made with other ``settings`` (each a scalar stored in the shard).
    """
    seen: set[bytes] = set()
    shard = done = 0
    while (path := _shard_path(out, seed, shard)).exists():
        with np.load(path) as z:
            got = {k: type(v)(z[k]) for k, v in settings.items()}
            if got != settings:
                raise SystemExit(f"{path} was made with {got}, not {settings}: choose another "
                                 f"--out or --seed")
            seen.update(b.tobytes() for b in z[seen_key])
            done += len(z[count_key])
        shard += 1
    return shard, done, seen


def log_shard(out: str, line: dict[str, Any]) -> None:
    """Append a finished shard's line (with the load average and the time added) to
    ``OUT-log.jsonl`` and print it."""
    line = {**line, "load_average": round(os.getloadavg()[0], 2),
            "time": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")}
    with open(f"{out}-log.jsonl", "a") as f:
        f.write(json.dumps(line) + "\n")
    print(json.dumps(line), flush=True)


def generate(out: str, seed: int, positions: int | None, trials: int, truncate: int,
             shard_size: int, weights: Path = WEIGHTS) -> None:
    net = Network.load(weights)
    sha = weights_sha256(weights)
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    shard, done, seen = resume(out, seed, {"trials": trials, "truncate": truncate,
                                           "weights_sha256": sha}, "boards")
    if shard:
        print(f"resuming after {shard} shards ({done} positions)", flush=True)
    print("compiling the rollout kernel (a minute the first time)…", flush=True)
    while positions is None or done < positions:
        n = shard_size if positions is None else min(shard_size, positions - done)
        t0 = time.perf_counter()
        boards = shard_positions(net, seed, shard, n, seen)
        seeds = position_seeds(seed, shard, n)
        path = _shard_path(out, seed, shard)
        partial = path.with_suffix(".partial.npz")
        outputs = np.empty((0, N_OUTPUTS), dtype=np.float32)
        stderr = outputs
        if partial.exists():  # a shard interrupted part-way: keep what it had labelled
            with np.load(partial) as z:
                if np.array_equal(z["boards"], boards) and int(z["trials"]) == trials \
                        and int(z["truncate"]) == truncate and str(z["weights_sha256"]) == sha:
                    outputs, stderr = z["outputs"], z["stderr"]
        resumed = len(outputs)
        while len(outputs) < n:
            lo = len(outputs)
            o, e, _, _ = label(net, boards[lo:lo + PARTIAL], trials, truncate,
                               seeds[lo:lo + PARTIAL])
            outputs, stderr = np.concatenate([outputs, o]), np.concatenate([stderr, e])
            _save(partial if len(outputs) < n else path, boards=boards, outputs=outputs,
                  stderr=stderr, trials=trials, truncate=truncate, seed=seed, shard=shard,
                  weights_sha256=sha)
        partial.unlink(missing_ok=True)
        seconds = time.perf_counter() - t0
        race = int((~is_contact(boards)).sum())
        log_shard(out, {"shard": path.name, "positions": n, "race": race, "trials": trials,
                        "truncate": truncate, "seconds": round(seconds, 1),
                        "positions_per_s": round((n - resumed) / seconds, 3),
                        "mean_stderr_equity": round(float(_equity_stderr(stderr).mean()), 4)})
        done += n
        shard += 1


def _save(path: Path, **arrays) -> None:
    """``np.savez_compressed`` to a temporary file renamed over ``path``: a reader (or a
    resumed run) sees the old file or the new one, never half of one."""
    tmp = path.with_suffix(".tmp.npz")
    np.savez_compressed(tmp, **arrays)
    os.replace(tmp, path)


def _equity_stderr(stderr: np.ndarray) -> np.ndarray:
    """A rough standard error of the cubeless equity (outputs' errors as if independent)."""
    weight = np.array([2.0, 1.0, 1.0, 1.0, 1.0])
    return np.sqrt(((stderr * weight) ** 2).sum(axis=1))


def generate_parser(doc: str) -> tuple[argparse.ArgumentParser, argparse.ArgumentParser]:
    """``(parser, its generate command)`` of a data job whose module docstring is ``doc``,
    with the options every such job takes: ``--out`` (the shards' and log's path prefix) and
    ``--seed``."""
    ap, commands = data_parser(doc, "generate")
    return ap, commands["generate"]


def data_parser(doc: str, *names: str
                ) -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """``(parser, {name: its command})`` of a data job whose module docstring is ``doc``, each
    command taking ``--out`` (the shards' and log's path prefix) and ``--seed``."""
    ap = argparse.ArgumentParser(description=" ".join(doc.split("\n\n")[0].split()))
    sub = ap.add_subparsers(dest="cmd", required=True)
    commands = {}
    for name in names:
        g = commands[name] = sub.add_parser(name)
        g.add_argument("--out", required=True, help="path prefix of the shards and the log")
        g.add_argument("--seed", type=int, required=True)
    return ap, commands


def main() -> None:
    ap, g = generate_parser(__doc__)
    g.add_argument("--positions", type=int, default=None, help="total (default: no end)")
    g.add_argument("--trials", type=int, default=144)
    g.add_argument("--truncate", type=int, default=0, help="plies (0: play games out)")
    g.add_argument("--shard", type=int, default=200, help="positions per shard")
    args = ap.parse_args()
    generate(args.out, args.seed, args.positions, args.trials, args.truncate, args.shard)


if __name__ == "__main__":
    main()
