"""Decisions whose candidate plays are valued by our network's own 2-ply search: data for the
order of close plays at a hundred times the rate of rollouts (issue #27, docs/neural.md).

Rollouts of candidate plays (:mod:`training.candidates`) label about 70 decisions an hour on
one core here, and the fit on their order (:mod:`training.ranking`) memorised the few hundred
it had. The network's 2-ply search is the cheaper teacher the issue names ("search-bootstrapped
targets"): on gnubg's judged decisions our 2-ply loses about a third of what our 0-ply loses,
and it labels a decision in a quarter of a second. So this collects, for the order fit:

* decisions (a position before the roll and a roll) from the network's self-play, as
  :mod:`training.rollouts` samples them (:func:`training.rollouts.shard_positions`, one play in
  five at random, deduplicated within and across this seed's shards), each with a roll drawn
  from the seed; every decision with two or more distinct results is kept (not only those
  where the depths disagree: the order of the plays the depths agree on is data too);
* its candidates: the ``top`` best results at 0-ply (as the hard level screens them), each
  valued at 2-ply by the same network (:class:`boardgammon.bots.neural.NetworkEvaluator`, the
  bear-off database included). gnubg never teaches.

    python -m training.twoply generate --out training/data/twoply --seed S
        [--decisions N] [--shard 500] [--top 8] [--weights W.npz]
    python -m training.twoply relabel --source training/data/twoply --out training/data/relabel
        --seed S [--top 8] [--weights W.npz] [--shards N]

``relabel`` values the decisions of an earlier run's shards again with another network
(:func:`relabel`).

Output: shards ``OUT-SEED-NNNN.npz`` that :func:`training.ranking.load_candidates` reads, the
2-ply values standing where the rollouts' stand: ``boards int8[n, 2, 25]``, ``dice int8[n, 2]``,
``decision int32[m]``, ``after int8[m, 2, 25]`` (each candidate's result, the opponent on
roll), ``outputs float32[m, 5]`` (its 2-ply outputs, the opponent's view), ``equity0`` and
``equity2 float32[m]`` (the mover's cubeless equity at 0-ply and at 2-ply), ``screened``
(every position looked at), then ``top``, ``seed``, ``shard``, ``weights_sha256``. One line per
shard in ``OUT-log.jsonl``. A run resumes after its last whole shard, makes the same shards as
an uninterrupted one (unless ``--decisions`` ended it inside a shard, whose shorter last shard
moves the ones after it), and refuses to continue shards made with other settings or weights.
Without ``--decisions`` it runs until stopped.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import numpy as np

from boardgammon.bots.network import Network, cubeless_equity
from boardgammon.bots.neural import NetworkEvaluator
from boardgammon.engine import Board
from training.rollouts import (
    WEIGHTS,
    _save,
    _shard_path,
    data_parser,
    log_shard,
    resume,
    shard_positions,
    weights_sha256,
)


def label(evaluator: NetworkEvaluator, board: np.ndarray, dice: tuple[int, int], top: int
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """``(after, outputs2, equity0, equity2)`` of the ``top`` best results of ``board`` and
    ``dice`` at 0-ply (best first): results from the opponent's view, their 2-ply outputs (the
    opponent's view), the mover's cubeless equity at 0-ply and at 2-ply; ``None`` with fewer
    than two distinct results."""
    plays = Board(board).legal_plays(*dice)
    afters = np.unique(np.stack([p.after.swapped().array for p in plays]), axis=0)
    if len(afters) < 2:
        return None
    equity0 = -cubeless_equity(evaluator.evaluate(afters, plies=0))
    best = np.argsort(-equity0, kind="stable")[:top]
    outputs2 = evaluator.evaluate(afters[best], plies=2)
    return (afters[best], outputs2.astype(np.float32), equity0[best].astype(np.float32),
            (-cubeless_equity(outputs2)).astype(np.float32))


def label_all(evaluator: NetworkEvaluator, boards: np.ndarray, dice: np.ndarray, top: int
              ) -> dict[str, np.ndarray]:
    """The shard arrays of the decisions ``boards`` (``[n, 2, 25]``) with ``dice``
    (``[n, 2]``) labelled by :func:`label`: ``boards``, ``dice`` (those with two or more distinct
    results), ``decision``, ``after``, ``outputs``, ``equity0``, ``equity2`` (see the module's
    docstring)."""
    kept_boards, kept_dice, decision = [], [], []
    after, outputs, equity0, equity2 = [], [], [], []
    for board, (d1, d2) in zip(boards, dice, strict=True):
        got = label(evaluator, board, (int(d1), int(d2)), top)
        if got is None:
            continue
        decision.append(np.full(len(got[0]), len(kept_boards), dtype=np.int32))
        kept_boards.append(board)
        kept_dice.append((d1, d2))
        for lst, arr in zip((after, outputs, equity0, equity2), got, strict=True):
            lst.append(arr)
    return {"boards": np.stack(kept_boards).astype(np.int8),
            "dice": np.array(kept_dice, dtype=np.int8), "decision": np.concatenate(decision),
            "after": np.concatenate(after), "outputs": np.concatenate(outputs),
            "equity0": np.concatenate(equity0), "equity2": np.concatenate(equity2)}


def generate(out: str, seed: int, decisions: int | None, shard_size: int, top: int,
             weights: Path = WEIGHTS) -> None:
    net = Network.load(weights)
    evaluator = NetworkEvaluator(net)
    sha = weights_sha256(weights)
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    shard, done, seen = resume(out, seed, {"top": top, "shard_size": shard_size,
                                           "weights_sha256": sha}, "screened", "screened")
    if shard:
        print(f"resuming after {shard} shards ({done} positions looked at)", flush=True)
    while decisions is None or done < decisions:
        n = shard_size if decisions is None else min(shard_size, decisions - done)
        t0 = time.perf_counter()
        before = set(seen)
        boards = shard_positions(net, seed * 1000, shard, n, seen)
        rolls = np.random.default_rng([seed, shard, 2]).integers(1, 7, (len(boards), 2))
        labelled = label_all(evaluator, boards, rolls, top)
        screened = np.stack([np.frombuffer(k, dtype=np.int8).reshape(2, 25)
                             for k in sorted(seen - before)])
        path = _shard_path(out, seed, shard)
        _save(path, **labelled, screened=screened, top=top, seed=seed, shard=shard,
              shard_size=shard_size, weights_sha256=sha)
        seconds = time.perf_counter() - t0
        log_shard(out, {"shard": path.name, "decisions": len(labelled["boards"]),
                        "candidates": len(labelled["after"]), "top": top,
                        "seconds": round(seconds, 1),
                        "decisions_per_s": round(len(labelled["boards"]) / seconds, 3)})
        done += n
        shard += 1


def relabel(source: str, out: str, seed: int, top: int, weights: Path = WEIGHTS,
            shards: int | None = None) -> None:
    """Value the decisions of the shards ``SOURCE-SEED-NNNN.npz`` again with ``weights`` and
    write them as ``OUT-SEED-NNNN.npz`` (same shard numbers, same arrays, ``source_weights_sha256``
    added): each decision's ``top`` best results at 0-ply and their 2-ply values by the new
    network. Older shards were labelled by weaker networks (the TD network's 2-ply loses 3.09
    mp a judged decision where the one shipped on 2026-12-06 loses 2.27); a search by a better
    network is a better teacher. The same positions and rolls, so the fit can put the relabelled
    shards first and let :func:`training.ranking.load_candidates` drop the old labels of the
    same decisions. Resumes: a finished shard is skipped; ``shards`` ends the run after that
    many new ones.

    Raises:
        SystemExit: no source shard, or a finished shard made with other weights or ``top``.
    """
    net = Network.load(weights)
    evaluator = NetworkEvaluator(net)
    sha = weights_sha256(weights)
    prefix = Path(source)
    pattern = re.compile(rf"{re.escape(prefix.name)}-{seed}-(\d{{4,}})\.npz")
    sources = sorted((p for p in prefix.parent.glob(f"{prefix.name}-{seed}-*.npz")
                      if pattern.fullmatch(p.name)), key=lambda p: int(p.stem.rsplit("-", 1)[1]))
    if not sources:
        raise SystemExit(f"no shards {source}-{seed}-NNNN.npz")
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    made = 0
    for src in sources:
        if shards is not None and made >= shards:
            break
        number = int(src.stem.rsplit("-", 1)[1])
        path = _shard_path(out, seed, number)
        with np.load(src) as z:
            boards, dice, screened = z["boards"], z["dice"], z["screened"]
            old_sha, shard_size = str(z["weights_sha256"]), int(z["shard_size"])
        if path.exists():
            with np.load(path) as z:
                if (str(z["weights_sha256"]) != sha or int(z["top"]) != top
                        or str(z["source_weights_sha256"]) != old_sha
                        or not np.array_equal(z["screened"], screened)):
                    raise SystemExit(f"{path} was made from another source or with other "
                                     f"weights or --top: choose another --out")
            continue
        t0 = time.perf_counter()
        labelled = label_all(evaluator, boards, dice, top)
        _save(path, **labelled, screened=screened, top=top, seed=seed, shard=number,
              shard_size=shard_size, weights_sha256=sha, source_weights_sha256=old_sha)
        seconds = time.perf_counter() - t0
        log_shard(out, {"shard": path.name, "source": src.name,
                        "decisions": len(labelled["boards"]),
                        "candidates": len(labelled["after"]), "top": top,
                        "seconds": round(seconds, 1),
                        "decisions_per_s": round(len(labelled["boards"]) / seconds, 3)})
        made += 1


def main(argv: list[str] | None = None) -> None:
    ap, commands = data_parser(__doc__, "generate", "relabel")
    g, r = commands["generate"], commands["relabel"]
    g.add_argument("--decisions", type=int, default=None, help="positions looked at in all "
                                                               "(default: no end)")
    g.add_argument("--shard", type=int, default=500, help="positions per shard")
    g.add_argument("--top", type=int, default=8, help="best plays at 0-ply valued at 2-ply")
    g.add_argument("--weights", type=Path, default=WEIGHTS)
    r.add_argument("--source", required=True, help="path prefix of the shards to relabel")
    r.add_argument("--top", type=int, default=8, help="best plays at 0-ply valued at 2-ply")
    r.add_argument("--weights", type=Path, default=WEIGHTS)
    r.add_argument("--shards", type=int, default=None, help="new shards to make (default: all)")
    args = ap.parse_args(argv)
    if args.cmd == "relabel":
        if args.top < 2 or (args.shards is not None and args.shards < 1):
            ap.error("--top must be at least 2, --shards at least 1")
        if not args.weights.is_file():
            ap.error(f"no such weights file: {args.weights}")
        relabel(args.source, args.out, args.seed, args.top, args.weights, args.shards)
        return
    if args.shard < 1 or args.top < 2 or (args.decisions is not None and args.decisions < 1):
        ap.error("--shard and --decisions must be at least 1, --top at least 2 (a decision "
                 "needs two plays to order)")
    if not args.weights.is_file():
        ap.error(f"no such weights file: {args.weights}")
    generate(args.out, args.seed, args.decisions, args.shard, args.top, args.weights)


if __name__ == "__main__":
    main()
