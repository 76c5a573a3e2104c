"""Refine a self-play network on its own 2-ply values (an experiment; see docs/neural.md).

``label`` samples positions from the network's self-play (one play in ten at random), values
each at 2-ply with the same network (:class:`boardgammon.bots.neural.NetworkEvaluator`, bear-off
database included) and saves ``boards`` and ``targets`` (five outputs, player on roll's view),
appending in chunks so that an interrupted run resumes. ``fit`` moves the network's 0-ply outputs
towards those targets by the squared-error gradient of the TD trainer
(:func:`boardgammon.bots.training._update`), in shuffled passes.

    python -m training.distill label WEIGHTS.npz OUT.npz [--positions 50000] [--seed 1]
    python -m training.distill fit WEIGHTS.npz DATA.npz [DATA.npz …] --out NEW.npz
        [--epochs 3] [--alpha 0.01]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from numba import njit

from boardgammon.bots.encoding import N_INPUTS, encode_into
from boardgammon.bots.network import N_OUTPUTS, Network
from boardgammon.bots.neural import NetworkEvaluator
from boardgammon.bots.training import _update
from training.make_benchmark import sample_positions

CHUNK = 250


def sample(net: Network, count: int, seed: int) -> np.ndarray:
    """Half the positions of self-play with one play in ten at random."""
    return sample_positions(net, count, seed, random_share=0.1,
                            keep=lambda rng, ply: rng.random() < 0.5)


def label(weights: str, out: str, positions: int, seed: int) -> None:
    net = Network.load(weights)
    boards = sample(net, positions, seed)
    targets = np.zeros((0, N_OUTPUTS), dtype=np.float32)
    if os.path.exists(out):
        with np.load(out) as z:
            if np.array_equal(z["boards"], boards):
                targets = z["targets"]
    ev = NetworkEvaluator(net)
    t0 = time.perf_counter()
    done0 = len(targets)
    while len(targets) < positions:
        lo = len(targets)
        chunk = ev.evaluate(boards[lo:lo + CHUNK], 15, 2)
        targets = np.concatenate([targets, chunk])
        np.savez(out + ".tmp.npz", boards=boards, targets=targets)
        os.replace(out + ".tmp.npz", out)
        rate = (len(targets) - done0) / (time.perf_counter() - t0)
        print(f"{len(targets)}/{positions} positions, {rate:.1f}/s", flush=True)


@njit(cache=False)
def _fit(boards, targets, order, w1, b1, w2, b2, alpha):
    x = np.empty(N_INPUTS, dtype=np.float32)
    h = np.empty(b1.shape[0], dtype=np.float32)
    dh = np.empty(b1.shape[0], dtype=np.float32)
    o = np.empty(N_OUTPUTS, dtype=np.float32)
    sq = 0.0
    for i in order:
        encode_into(boards[i], 15, x)
        sq += _update(x, targets[i], w1, b1, w2, b2, h, o, dh, alpha)
    return sq / len(order)


def fit(weights: str, data: list[str], out: str, epochs: int, alpha: float) -> None:
    net = Network.load(weights)
    if net.joined:
        raise ValueError(f"{weights} is a joined network; this fit takes a single one")
    boards, targets = [], []
    for path in data:
        with np.load(path) as z:
            n = len(z["targets"])
            boards.append(z["boards"][:n])
            targets.append(z["targets"])
    b, t = np.concatenate(boards), np.concatenate(targets).astype(np.float32)
    rng = np.random.default_rng(0)
    for epoch in range(epochs):
        mse = _fit(b, t, rng.permutation(len(b)), *net.weights, np.float32(alpha))
        print(f"epoch {epoch + 1}: mean squared error {mse / N_OUTPUTS:.5f} over {len(b)}",
              flush=True)
    net.save(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    lab = sub.add_parser("label")
    lab.add_argument("weights")
    lab.add_argument("out")
    lab.add_argument("--positions", type=int, default=50_000)
    lab.add_argument("--seed", type=int, default=1)
    f = sub.add_parser("fit")
    f.add_argument("weights")
    f.add_argument("data", nargs="+")
    f.add_argument("--out", required=True)
    f.add_argument("--epochs", type=int, default=3)
    f.add_argument("--alpha", type=float, default=0.01)
    args = ap.parse_args()
    if args.cmd == "label":
        label(args.weights, args.out, args.positions, args.seed)
    else:
        fit(args.weights, args.data, args.out, args.epochs, args.alpha)


if __name__ == "__main__":
    main()
