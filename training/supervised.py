"""Supervised fine-tuning of a network on rollout labels (issue #27; results in docs/neural.md).

The labels are the five cubeless outputs of ``training/data/rollouts-*.npz`` (see
:mod:`training.rollouts`: positions from the player on roll's view, rolled out by our own
network; gnubg never teaches). 3,600 labels are few for 27,525 weights, so the fit is guarded:

* a validation split, drawn from ``--seed`` and disjoint from the training rows, on which the
  mean squared error (per output, race and contact apart) is reported before and after, and
  on which training stops early (the best epoch's weights are kept; ``--patience`` epochs
  without a better validation error end the run);
* each rollout row weighted by ``1 / (s² + floor²)``, ``s²`` the mean of its five squared
  standard errors, normalised to mean 1 (``--stderr-floor``; labels are clipped to 0–1);
* anchors: ``--anchors`` fresh positions of the start network's self-play (one play in five at
  random), each with the start network's own 0-ply outputs as its target, so that the net stays
  near what it was wherever the rollouts say nothing (distillation towards itself); together
  they weigh ``--anchor-weight`` times the rollout rows;
* optionally search targets: ``--search N`` more self-play positions valued by the start network
  at 0-ply and at 2-ply, of which the ``--search-keep`` share where the two equities differ most
  get the 2-ply outputs as targets (together weighing ``--search-weight`` times the rollout rows);
* Adam at a small learning rate (``--lr``) on minibatches, float64 arithmetic, float32 weights.

Everything random (split, anchors, order) follows ``--seed``; a run takes a minute or two.

    python -m training.supervised fit --out NEW.npz [--data training/data/rollouts-1-*.npz]
        [--weights src/boardgammon/bots/weights/neural.npz] [--seed 1] [--val-share 0.2]
        [--lr 1e-4] [--epochs 200] [--patience 15] [--batch 256] [--stderr-floor 0.005]
        [--anchors 20000] [--anchor-weight 1.0] [--search 0] [--search-keep 0.25]
        [--search-weight 1.0] [--cache DIR]
    python -m training.supervised report WEIGHTS.npz [WEIGHTS.npz …] [--data …] [--seed 1]
        [--val-share 0.2] [--plies 0]

Output: the start file's arrays (a whole training state: ``games`` and the TD settings kept)
with the new ``w1 b1 w2 b2`` and ``supervised``, a JSON string of the settings and the
validation errors. Each epoch prints one line: training loss, validation MSE.
"""

from __future__ import annotations

import argparse
import glob
import json
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from boardgammon.bots.encoding import encode
from boardgammon.bots.network import N_OUTPUTS, Network, cubeless_equity
from boardgammon.bots.neural import NetworkEvaluator
from boardgammon.engine.rules import is_contact
from training.make_benchmark import sample_positions

ROOT = Path(__file__).resolve().parents[1]
WEIGHTS = ROOT / "src/boardgammon/bots/weights/neural.npz"
DATA = str(ROOT / "training/data/rollouts-[0-9]*-[0-9][0-9][0-9][0-9].npz")
"""Every seed's finished shards (each seed is one background process: the work splits by seed)."""


@dataclass(frozen=True)
class Settings:
    """One run's settings (stored in the output as JSON)."""

    seed: int = 1
    val_share: float = 0.2
    lr: float = 1e-4
    epochs: int = 200
    patience: int = 15
    batch: int = 256
    stderr_floor: float = 0.005
    anchors: int = 20_000
    anchor_weight: float = 1.0
    search: int = 0
    search_keep: float = 0.25
    search_weight: float = 1.0

    def check(self) -> None:
        """Raises ValueError naming the first setting out of range."""
        if not 0.0 < self.val_share < 1.0:
            raise ValueError(f"--val-share is a share strictly between 0 and 1, got "
                             f"{self.val_share}")
        if not self.lr > 0.0:
            raise ValueError(f"--lr must be positive, got {self.lr}")
        for name in ("epochs", "patience", "batch"):
            if getattr(self, name) < 1:
                raise ValueError(f"--{name} must be at least 1, got {getattr(self, name)}")
        for name in ("anchors", "search"):
            if getattr(self, name) < 0:
                raise ValueError(f"--{name} is a count of positions (≥ 0), got "
                                 f"{getattr(self, name)}")
        for name in ("stderr_floor", "anchor_weight", "search_weight"):
            if getattr(self, name) < 0.0:
                raise ValueError(f"--{name.replace('_', '-')} must be ≥ 0, got "
                                 f"{getattr(self, name)}")
        if not 0.0 < self.search_keep <= 1.0:
            raise ValueError(f"--search-keep is a share in (0, 1], got {self.search_keep}")


def load_rollouts(paths: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(boards int8[n, 2, 25], outputs float32[n, 5], stderr float32[n, 5])`` of rollout
    shards, in the order given, each position once: a board that an earlier row has already
    (two seeds' processes, each deduplicating only its own shards, can meet the same
    position) keeps its first label, so that no position is both trained on and held out.

    Raises:
        ValueError: no file, or a file without those arrays or with inconsistent shapes.
    """
    if not paths:
        raise ValueError("no rollout data: give --data files (training/data/rollouts-*.npz)")
    boards, outputs, stderr = [], [], []
    for p in paths:
        with np.load(p) as z:
            missing = {"boards", "outputs", "stderr"} - set(z.files)
            if missing:
                raise ValueError(f"{p} is not a rollout shard: it lacks {sorted(missing)}")
            b, o, s = z["boards"], z["outputs"], z["stderr"]
        n = len(b)
        if b.shape != (n, 2, 25) or o.shape != (n, N_OUTPUTS) or s.shape != (n, N_OUTPUTS):
            raise ValueError(f"{p}: shapes {b.shape}, {o.shape}, {s.shape}, expected "
                             f"(n, 2, 25), (n, 5), (n, 5)")
        boards.append(b)
        outputs.append(o)
        stderr.append(s)
    every = np.concatenate(boards).astype(np.int8)
    _, first = np.unique(every.reshape(len(every), -1), axis=0, return_index=True)
    keep = np.sort(first)
    return (every[keep], np.concatenate(outputs).astype(np.float32)[keep],
            np.concatenate(stderr).astype(np.float32)[keep])


def split(n: int, val_share: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``(training rows, validation rows)`` of ``n`` rows, disjoint, sorted, from ``seed``; at
    least one row each.

    Raises:
        ValueError: fewer than two rows.
    """
    if n < 2:
        raise ValueError(f"need at least two labelled positions to hold some out, got {n}")
    perm = np.random.default_rng([seed, 27]).permutation(n)
    k = min(n - 1, max(1, round(n * val_share)))
    return np.sort(perm[k:]), np.sort(perm[:k])


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-z))


class _Params:
    """float64 copies of the weights with Adam's moments."""

    def __init__(self, net: Network) -> None:
        if net.joined:
            raise ValueError("a joined network is fitted in its gated form "
                             "(training.split.gated), not as it is")
        self.p = [a.astype(np.float64) for a in net.weights]
        self.m = [np.zeros_like(a) for a in self.p]
        self.v = [np.zeros_like(a) for a in self.p]
        self.t = 0

    def forward(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        w1, b1, w2, b2 = self.p
        h = _sigmoid(x @ w1 + b1)
        return h, _sigmoid(h @ w2.T + b2)

    def step(self, x: np.ndarray, y: np.ndarray, c: np.ndarray, lr: float) -> float:
        """One Adam step on ``sum(c · Σ_k (o − y)²) / (5 · rows)``; returns that loss."""
        h, o = self.forward(x)
        err = o - y
        loss = float((c[:, None] * err * err).sum() / (N_OUTPUTS * len(x)))
        self.descend(x, h, o, (2.0 / (N_OUTPUTS * len(x))) * c[:, None] * err, lr)
        return loss

    def descend(self, x: np.ndarray, h: np.ndarray, o: np.ndarray, grad: np.ndarray,
                lr: float) -> None:
        """One Adam step given ``grad float64[rows, 5]``, a loss's gradient with respect to
        the outputs ``o`` that :meth:`forward` gave for ``x`` (with its hidden layer ``h``)."""
        w2 = self.p[2]
        dz2 = grad * o * (1.0 - o)
        dz1 = (dz2 @ w2) * h * (1.0 - h)
        grads = [x.T @ dz1, dz1.sum(0), dz2.T @ h, dz2.sum(0)]
        self.t += 1
        b1c, b2c = 1.0 - 0.9 ** self.t, 1.0 - 0.999 ** self.t
        for p, m, v, g in zip(self.p, self.m, self.v, grads, strict=True):
            m *= 0.9
            m += 0.1 * g
            v *= 0.999
            v += 0.001 * g * g
            p -= lr * (m / b1c) / (np.sqrt(v / b2c) + 1e-8)

    def network(self) -> Network:
        return Network(*self.p)


def validation_errors(outputs: np.ndarray, labels: np.ndarray, contact: np.ndarray
                      ) -> dict[str, float]:
    """Mean squared error per output (all, contact, race) and of the cubeless equity."""
    sq = (outputs.astype(np.float64) - labels) ** 2
    eq = (cubeless_equity(outputs) - cubeless_equity(labels)) ** 2
    res = {"mse": float(sq.mean()), "equity_mse": float(eq.mean())}
    for name, rows in (("contact", contact), ("race", ~contact)):
        res[f"mse_{name}"] = float(sq[rows].mean()) if rows.any() else float("nan")
    return res


def _fmt(e: dict[str, float]) -> str:
    return (f"MSE {e['mse']:.6f} (contact {e['mse_contact']:.6f}, race {e['mse_race']:.6f}), "
            f"equity MSE {e['equity_mse']:.5f}")


def _fresh_positions(net: Network, count: int, seed: int, exclude: set[bytes]) -> np.ndarray:
    """``count`` self-play positions (one play in five at random) not in ``exclude``."""
    found: list[np.ndarray] = []
    batch = 0
    while len(found) < count:
        for b in sample_positions(net, count, int(np.random.default_rng([seed, 27, batch])
                                                   .integers(2**63))):
            key = b.tobytes()
            if key not in exclude:
                exclude.add(key)
                found.append(b)
        batch += 1
    return np.stack(found[:count]) if found else np.zeros((0, 2, 25), dtype=np.int8)


def extra_targets(net: Network, st: Settings, exclude: set[bytes], cache: Path | None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(anchor boards, their 0-ply outputs, search boards, their 2-ply outputs)`` of ``net``,
    none of them in ``exclude``; read from ``cache`` when a file there was made with the same
    counts and seed (less those in ``exclude``, which an earlier run may not have left out)."""
    name = f"extra-{st.seed}-{st.anchors}-{st.search}-{st.search_keep}.npz"
    if cache is not None and (cache / name).exists():
        with np.load(cache / name) as z:
            a, at, s, stg = z["anchors"], z["anchor_targets"], z["search"], z["search_targets"]
        keep_a = np.array([b.tobytes() not in exclude for b in a], dtype=bool)
        keep_s = np.array([b.tobytes() not in exclude for b in s], dtype=bool)
        return a[keep_a], at[keep_a], s[keep_s], stg[keep_s]
    t0 = time.perf_counter()
    anchors = _fresh_positions(net, st.anchors, st.seed, exclude)
    anchor_targets = net.evaluate(anchors) if len(anchors) else np.zeros((0, N_OUTPUTS),
                                                                         np.float32)
    search = _fresh_positions(net, st.search, st.seed + 1_000_003, exclude)
    search_targets = np.zeros((0, N_OUTPUTS), dtype=np.float32)
    if len(search):
        ev = NetworkEvaluator(net)
        zero, two = ev.evaluate(search, 15, 0), ev.evaluate(search, 15, 2)
        gap = np.abs(cubeless_equity(zero) - cubeless_equity(two))
        keep = np.sort(np.argsort(-gap, kind="stable")[:max(1, round(len(search)
                                                                     * st.search_keep))])
        print(f"search targets: 0-ply and 2-ply equities differ by {gap.mean():.4f} on "
              f"average, {gap[keep].mean():.4f} on the {len(keep)} kept", flush=True)
        search, search_targets = search[keep], two[keep]
    print(f"{len(anchors)} anchors, {len(search)} search targets "
          f"({time.perf_counter() - t0:.0f} s)", flush=True)
    if cache is not None:
        cache.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(cache / name, anchors=anchors, anchor_targets=anchor_targets,
                            search=search, search_targets=search_targets)
    return anchors, anchor_targets, search, search_targets


def fit(weights: Path, data: list[str], out: Path, st: Settings, cache: Path | None = None
        ) -> dict[str, object]:
    """Fine-tune ``weights`` on the rollout labels of ``data``, write ``out``; returns the
    validation errors before and after and the epoch kept.

    Raises:
        ValueError: bad settings or data (nothing is written).
    """
    st.check()
    boards, labels, stderr = load_rollouts(data)
    labels = np.clip(labels, 0.0, 1.0)
    tr, va = split(len(boards), st.val_share, st.seed)
    start = Network.load(weights)
    if start.joined:
        raise ValueError(f"{weights} is a joined network; this fit takes a single one "
                         f"(training.ranking fits a joined one)")
    contact = is_contact(boards)
    x_all = encode(boards).astype(np.float64)
    before = validation_errors(start.evaluate(boards[va]), labels[va], contact[va])
    print(f"{len(tr)} training, {len(va)} validation positions "
          f"({int((~contact[va]).sum())} races held out)", flush=True)
    print(f"before: validation {_fmt(before)}", flush=True)

    w = 1.0 / (np.mean(stderr[tr].astype(np.float64) ** 2, axis=1) + st.stderr_floor ** 2)
    xs, ys, cs = [x_all[tr]], [labels[tr].astype(np.float64)], [w / w.mean()]
    anchors, anchor_y, search, search_y = extra_targets(
        start, st, {b.tobytes() for b in boards}, cache)
    for extra, target, weight in ((anchors, anchor_y, st.anchor_weight),
                                  (search, search_y, st.search_weight)):
        if len(extra) and weight > 0:
            xs.append(encode(extra).astype(np.float64))
            ys.append(target.astype(np.float64))
            cs.append(np.full(len(extra), weight * len(tr) / len(extra)))
    x, y, c = np.concatenate(xs), np.concatenate(ys), np.concatenate(cs)

    params = _Params(start)
    rng = np.random.default_rng([st.seed, 27, 1])
    best, best_epoch, best_weights = before["mse"], 0, [a.copy() for a in params.p]
    for epoch in range(1, st.epochs + 1):
        order = rng.permutation(len(x))
        loss = 0.0
        for lo in range(0, len(x), st.batch):
            rows = order[lo:lo + st.batch]
            loss += params.step(x[rows], y[rows], c[rows], st.lr) * len(rows)
        _, o = params.forward(x_all[va])
        now = validation_errors(o, labels[va], contact[va])
        print(f"epoch {epoch}: training loss {loss / len(x):.6f}, validation {_fmt(now)}",
              flush=True)
        if now["mse"] < best:
            best, best_epoch, best_weights = now["mse"], epoch, [a.copy() for a in params.p]
        elif epoch - best_epoch >= st.patience:
            break
    net = Network(*best_weights)
    after = validation_errors(net.evaluate(boards[va]), labels[va], contact[va])
    print(f"after (epoch {best_epoch}): validation {_fmt(after)}", flush=True)
    result: dict[str, object] = {"settings": asdict(st), "epoch": best_epoch, "before": before,
                                 "after": after, "data": len(boards), "start": str(weights)}
    with np.load(weights) as z:
        keep = {k: z[k] for k in z.files if k not in ("w1", "b1", "w2", "b2", "supervised")}
    out.parent.mkdir(parents=True, exist_ok=True)
    net.save(out, supervised=json.dumps(result), **keep)
    return result


def report(weights: list[str], data: list[str], seed: int, val_share: float, plies: int = 0
           ) -> None:
    """Print each network's validation errors at ``plies`` (0–2) on the held-out rows of
    ``split``."""
    boards, labels, _ = load_rollouts(data)
    labels = np.clip(labels, 0.0, 1.0)
    _, va = split(len(boards), val_share, seed)
    contact = is_contact(boards[va])
    for w in weights:
        outputs = NetworkEvaluator(Network.load(w)).evaluate(boards[va], 15, plies)
        print(f"{w} at {plies}-ply: {_fmt(validation_errors(outputs, labels[va], contact))}")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("fit", help="fine-tune a network on rollout labels")
    f.add_argument("--out", required=True, type=Path)
    f.add_argument("--weights", type=Path, default=WEIGHTS)
    f.add_argument("--data", nargs="+", default=None)
    f.add_argument("--cache", type=Path, default=None,
                   help="directory keeping the anchors and search targets between runs")
    for field, default in asdict(Settings()).items():
        f.add_argument(f"--{field.replace('_', '-')}", type=type(default), default=default)
    r = sub.add_parser("report", help="validation errors of networks on the held-out rows")
    r.add_argument("weights", nargs="+")
    r.add_argument("--data", nargs="+", default=None)
    r.add_argument("--seed", type=int, default=1)
    r.add_argument("--val-share", type=float, default=0.2)
    r.add_argument("--plies", type=int, choices=(0, 1, 2), default=0)
    args = ap.parse_args(argv)
    data = args.data if args.data is not None else sorted(glob.glob(DATA))
    missing = [p for p in data if not Path(p).is_file()]
    if missing:
        ap.error(f"no such data file: {missing[0]}")
    try:
        if args.cmd == "fit":
            if not args.weights.is_file():
                ap.error(f"no such weights file: {args.weights}")
            if args.out.resolve() == args.weights.resolve():
                ap.error("--out must differ from --weights: write a candidate, then judge it")
            st = Settings(**{k: getattr(args, k) for k in asdict(Settings())})
            fit(args.weights, data, args.out, st, args.cache)
        else:
            if not 0.0 < args.val_share < 1.0:
                ap.error(f"--val-share is a share strictly between 0 and 1, got "
                         f"{args.val_share}")
            report(args.weights, data, args.seed, args.val_share, args.plies)
    except ValueError as e:
        print(f"supervised: error: {e}", file=sys.stderr)
        raise SystemExit(2) from None


if __name__ == "__main__":
    main()
