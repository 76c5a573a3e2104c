"""Rollouts of a decision's candidate plays where our network's depths rank them differently:
the data for the ordering of close plays (issue #27, docs/neural.md).

More labels of positions' values did not lower the network's checker-play error (docs/neural.md,
"Almost four times the labels"): a play is chosen by the order of its candidates' values, and a
squared error over positions spread across backgammon does not pin that order down. This
collects the order itself, where the network gets it wrong most often:

* decisions (a position before the roll and a roll) from the shipped network's self-play, as
  :mod:`training.rollouts` samples them (:func:`training.rollouts.shard_positions`, one play in
  five at random, deduplicated within and across this seed's shards), each with a roll drawn
  from the seed;
* a decision is kept where the network's best play at 0-ply is not its best at 2-ply (our own
  2-ply, :class:`boardgammon.bots.neural.NetworkEvaluator`); its candidates are the ``top``
  best plays at either depth (each result once);
* each candidate's result, the opponent on roll, is rolled out by OUR network at 0-ply with the
  kernel :mod:`training.rollouts` uses (:func:`boardgammon.bots.rollout.label`: ``trials``
  games, the first roll stratified, luck-adjusted, the bear-off database where exact); all the
  candidates of one decision with the same dice (common random numbers: their differences carry
  less of the dice's noise than their values). gnubg never teaches.

    python -m training.candidates generate --out training/data/candidates --seed S
        [--decisions N] [--trials 144] [--truncate 0] [--shard 20] [--top 3]

Output: shards ``OUT-SEED-NNNN.npz``: ``boards int8[n, 2, 25]`` (each decision's position, the
mover on roll), ``dice int8[n, 2]``, and for the ``m`` candidates of the shard ``decision
int32[m]`` (the index of its decision), ``after int8[m, 2, 25]`` (its result from the
opponent's view, the opponent on roll), ``outputs float32[m, 5]`` and ``stderr float32[m, 5]``
(the rollout's five cubeless outputs of ``after`` and their standard errors, the opponent's
view), ``equity0`` and ``equity2 float32[m]`` (the mover's cubeless equity of the candidate by
the network at 0-ply and at 2-ply); then ``trials``, ``truncate``, ``top``, ``seed``,
``shard``, ``weights_sha256``. The mover's rollout equity of a candidate is minus the cubeless
equity of its ``outputs``. One line per shard in ``OUT-log.jsonl``; an unfinished shard is
saved every :data:`PARTIAL` decisions as ``OUT-SEED-NNNN.partial.npz`` (not data to commit);
a run resumes where the last one stopped, produces the same shards as an uninterrupted one, and
refuses to continue shards made with other settings or weights. Without ``--decisions`` it runs
until stopped.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from boardgammon.bots.network import N_OUTPUTS, Network, cubeless_equity
from boardgammon.bots.neural import NetworkEvaluator
from boardgammon.engine import Board
from training.rollouts import (
    WEIGHTS,
    _save,
    _shard_path,
    generate_parser,
    label,
    log_shard,
    position_seeds,
    resume,
    shard_positions,
    weights_sha256,
)

PARTIAL = 2  # decisions rolled out between saves of an unfinished shard
SCREEN = 8  # positions looked at per decision wanted, per batch (about one in five is kept)


@dataclass(frozen=True)
class Decision:
    """A kept decision: the position (mover on roll), the roll, its candidates' results (the
    opponent on roll) and the mover's equity of each at 0-ply and at 2-ply."""

    board: np.ndarray
    dice: tuple[int, int]
    after: np.ndarray
    equity0: np.ndarray
    equity2: np.ndarray


def screen(evaluator: NetworkEvaluator, board: np.ndarray, dice: tuple[int, int],
           top: int) -> Decision | None:
    """The decision of ``board`` and ``dice`` if the network's best play at 0-ply is not its
    best at 2-ply, with the ``top`` best plays at either depth as candidates (best at 2-ply
    first); ``None`` otherwise (or with fewer than two distinct results)."""
    plays = Board(board).legal_plays(*dice)
    afters = np.unique(np.stack([p.after.swapped().array for p in plays]), axis=0)
    if len(afters) < 2:
        return None
    equity0 = -cubeless_equity(evaluator.evaluate(afters, plies=0))
    best0 = int(np.argmax(equity0))
    equity2 = -cubeless_equity(evaluator.evaluate(afters, plies=2))
    if best0 == int(np.argmax(equity2)):
        return None
    order2 = np.argsort(-equity2, kind="stable")
    chosen = list(dict.fromkeys([*order2[:top], *np.argsort(-equity0, kind="stable")[:top]]))
    index = np.array(chosen)
    return Decision(board, dice, afters[index], equity0[index].astype(np.float32),
                    equity2[index].astype(np.float32))


def shard_decisions(net: Network, evaluator: NetworkEvaluator, seed: int, shard: int, n: int,
                    seen: set[bytes], top: int) -> list[Decision]:
    """``n`` kept decisions of shard ``shard``; every position looked at joins ``seen``."""
    found: list[Decision] = []
    batch = 0
    while len(found) < n:
        boards = shard_positions(net, seed * 1000 + batch, shard, SCREEN * n, seen)
        rolls = np.random.default_rng([seed, shard, 2, batch]).integers(1, 7, (len(boards), 2))
        for board, (d1, d2) in zip(boards, rolls, strict=True):
            decision = screen(evaluator, board, (int(d1), int(d2)), top)
            if decision is not None and len(found) < n:
                found.append(decision)
        batch += 1
    return found


def generate(out: str, seed: int, decisions: int | None, trials: int, truncate: int,
             shard_size: int, top: int, weights: Path = WEIGHTS) -> None:
    net = Network.load(weights)
    evaluator = NetworkEvaluator(net)
    sha = weights_sha256(weights)
    settings = (trials, truncate, top, sha)
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    shard, done, seen = resume(out, seed, {"trials": trials, "truncate": truncate, "top": top,
                                           "weights_sha256": sha}, "screened")
    if shard:
        print(f"resuming after {shard} shards ({done} decisions)", flush=True)
    while decisions is None or done < decisions:
        n = shard_size if decisions is None else min(shard_size, decisions - done)
        t0 = time.perf_counter()
        before = set(seen)
        kept = shard_decisions(net, evaluator, seed, shard, n, seen, top)
        screened = np.stack([np.frombuffer(k, dtype=np.int8).reshape(2, 25)
                             for k in sorted(seen - before)])
        path = _shard_path(out, seed, shard)
        partial = path.with_suffix(".partial.npz")
        boards = np.stack([d.board for d in kept])
        dice = np.array([d.dice for d in kept], dtype=np.int8)
        counts = [len(d.after) for d in kept]
        outputs = np.empty((0, N_OUTPUTS), dtype=np.float32)
        stderr = outputs
        if partial.exists():  # interrupted part-way: keep the candidates rolled out already
            with np.load(partial) as z:
                if np.array_equal(z["boards"], boards) and np.array_equal(z["dice"], dice) \
                        and (int(z["trials"]), int(z["truncate"]), int(z["top"]),
                             str(z["weights_sha256"])) == settings:
                    outputs, stderr = z["outputs"], z["stderr"]
        resumed = len(outputs)
        seeds = position_seeds(seed, shard, n)
        rolled = int(np.searchsorted(np.cumsum(counts), len(outputs), side="right"))
        for i in range(rolled, n):
            d = kept[i]
            # One dice seed for all of a decision's candidates: common random numbers.
            o, e, _, _ = label(net, d.after, trials, truncate, np.full(len(d.after), seeds[i]))
            outputs, stderr = np.concatenate([outputs, o]), np.concatenate([stderr, e])
            if i + 1 < n and (i + 1) % PARTIAL:
                continue
            _save(partial if i + 1 < n else path, boards=boards, dice=dice,
                  decision=np.repeat(np.arange(n, dtype=np.int32), counts),
                  after=np.concatenate([d.after for d in kept]), outputs=outputs,
                  stderr=stderr, equity0=np.concatenate([d.equity0 for d in kept]),
                  equity2=np.concatenate([d.equity2 for d in kept]), screened=screened,
                  trials=trials, truncate=truncate, top=top, seed=seed, shard=shard,
                  weights_sha256=sha)
        partial.unlink(missing_ok=True)
        seconds = time.perf_counter() - t0
        log_shard(out, {"shard": path.name, "decisions": n, "candidates": sum(counts),
                        "screened": len(screened), "trials": trials, "truncate": truncate,
                        "top": top, "seconds": round(seconds, 1),
                        "candidates_per_s": round((sum(counts) - resumed) / seconds, 3)})
        done += n
        shard += 1


def main() -> None:
    ap, g = generate_parser(__doc__)
    g.add_argument("--decisions", type=int, default=None, help="total (default: no end)")
    g.add_argument("--trials", type=int, default=144)
    g.add_argument("--truncate", type=int, default=0, help="plies (0: play games out)")
    g.add_argument("--shard", type=int, default=20, help="decisions per shard")
    g.add_argument("--top", type=int, default=3, help="best plays at each depth kept")
    args = ap.parse_args()
    generate(args.out, args.seed, args.decisions, args.trials, args.truncate, args.shard,
             args.top)


if __name__ == "__main__":
    main()
