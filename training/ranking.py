"""Fine-tuning a network on the ORDER of a decision's candidate plays (issue #27; results in
docs/neural.md, "A fit on the order of candidate plays").

Squared error on positions' values (:mod:`training.supervised`) lowered the held-out error and
not the checker-play error. A play is chosen by the differences between its candidates' values,
so this fits those differences: the data are :mod:`training.candidates`' decisions (a position,
a roll, two to six candidate results rolled out on common dice by our own network; gnubg never
teaches), and the loss of a decision ``d`` with candidates ``i`` is

    L_d = (1 / n_d) · Σ_i ((e_i − mean_d e) − (r_i − mean_d r))²

where ``e_i`` is the mover's cubeless equity of candidate ``i`` by the network at 0-ply (minus
the equity of its outputs, the opponent on roll) and ``r_i`` its rollout's: the squared error of
each candidate's value relative to its decision's mean, indifferent to an offset the whole
decision shares (which changes no choice). ``--loss listwise`` fits instead the divergence of
the network's softmax over a decision's candidates from the target's (:func:`listwise_loss`,
temperature ``--tau`` in equity), which weighs the candidates near the top. The targets ``r``
may be :mod:`training.twoply`'s instead: the network's own 2-ply values, stored where the
rollouts' are, for a hundred times as many decisions. Guards, as in :mod:`training.supervised`:

* held-out decisions (``--val-share``, drawn from ``--seed``; all of a decision's candidates on
  one side; or, with ``--held-out FILES``, those shards' decisions that ``--data`` lacks, all of
  ``--data`` then trained on: a start network fitted before may have seen any share drawn from
  the data it was fitted on, and then keeps its start), on which training stops early
  (``--patience`` epochs without a lower mean of the loss fitted; the best epoch's weights
  are kept) and on which are reported: the mean ``L_d``, the rollout equity lost by the
  network's choice among the candidates (``r_best − r_chosen``, millipoints per decision) and
  the share of decisions where it chooses the rollouts' best, beside the same figures for the
  start network at 2-ply (its stored ``equity2``);
* anchors: :func:`training.supervised.extra_targets`' self-play positions with the start
  network's own outputs as targets, their mean squared error weighing ``--anchor-weight`` times
  the ranking loss, so that the net stays where it was wherever the candidates say nothing;
* Adam at a small learning rate on minibatches of ``--batch`` decisions (and as many anchors
  each step as spread them over one epoch).

Decisions met by both seeds' processes are kept once (the first shard's). Everything random
follows ``--seed``.

    python -m training.ranking fit --out NEW.npz [--data training/data/candidates-*.npz]
        [--weights src/boardgammon/bots/weights/neural.npz] [--seed 1] [--val-share 0.2]
        [--lr 3e-5] [--epochs 300] [--patience 20] [--batch 16] [--anchors 20000]
        [--anchor-weight 1.0] [--loss squared|listwise] [--tau 0.02] [--hidden N]
        [--race fit|skip] [--cache DIR] [--held-out FILES]

``--race skip`` leaves out the decisions whose position is a race (:func:`without_races`):
each fit on the 2-ply data made race plays worse on the judged decisions, which then only the
anchors hold where the start network was.
A start network of an older encoding, with fewer inputs (the hand inputs are appended, never
reordered), gets zero weights for those it lacks (``Network.load(widen=True)``): its outputs
are unchanged until the fit moves them.
``--hidden N`` widens the start network to ``N`` hidden units first (:func:`widen`: the outputs
unchanged, the new units free to learn what the old ones could not); 0 keeps its size.
A joined start network (a contact half and a race half, :mod:`training.split`) is fitted in
its gated form, each half moved only by the positions it values, and written joined.

Output: the start file's arrays with the new ``w1 b1 w2 b2`` and ``ranking``, a JSON string of
the settings and the held-out figures before and after.
"""

from __future__ import annotations

import argparse
import glob
import json
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from boardgammon.bots.encoding import encode
from boardgammon.bots.network import N_OUTPUTS, Network, cubeless_equity
from boardgammon.engine.rules import is_contact
from training import split, supervised

ROOT = Path(__file__).resolve().parents[1]
DATA = str(ROOT / "training/data/candidates-[0-9]*-[0-9][0-9][0-9][0-9].npz")
"""Every seed's finished candidate shards."""

EQUITY = np.array([2.0, 1.0, 1.0, -1.0, -1.0])
"""d(cubeless equity)/d(outputs): win, win gammon, win backgammon, lose gammon, lose bg."""


@dataclass(frozen=True)
class Candidates:
    """Decisions and their candidates, flattened: ``after int8[m, 2, 25]`` (each candidate's
    result, the opponent on roll), ``rollout float64[m]`` (the mover's rollout equity),
    ``equity2 float64[m]`` (the start network's 2-ply equity, mover's view), ``decision
    int64[m]`` (0 … n−1, candidates of one decision contiguous), ``boards int8[n, 2, 25]`` and
    ``dice int8[n, 2]`` of the decisions."""

    after: np.ndarray
    rollout: np.ndarray
    equity2: np.ndarray
    decision: np.ndarray
    boards: np.ndarray
    dice: np.ndarray

    def subset(self, decisions: np.ndarray) -> Candidates:
        """The given decisions (sorted indices), renumbered 0 … k−1."""
        keep = np.isin(self.decision, decisions)
        renumber = np.full(len(self.boards), -1, dtype=np.int64)
        renumber[decisions] = np.arange(len(decisions))
        return Candidates(self.after[keep], self.rollout[keep], self.equity2[keep],
                          renumber[self.decision[keep]], self.boards[decisions],
                          self.dice[decisions])


def _key(board: np.ndarray, dice: np.ndarray) -> bytes:
    """A decision's identity: its position and roll, the dice in either order."""
    return board.tobytes() + bytes(sorted(dice.tolist()))


def load_candidates(paths: list[str]) -> Candidates:
    """The candidate shards of ``paths`` in the order given, each decision (position and roll)
    once: a decision an earlier shard already holds is dropped with its candidates.

    Raises:
        ValueError: no file, or a file that is not a candidate shard (see
            :mod:`training.candidates` for the arrays) or has inconsistent shapes.
    """
    if not paths:
        raise ValueError("no candidate data: give --data files (training/data/candidates-*.npz)")
    seen: set[bytes] = set()
    after, rollout, equity2, decision, boards, dice = [], [], [], [], [], []
    for p in paths:
        with np.load(p) as z:
            need = {"boards", "dice", "decision", "after", "outputs", "equity2"}
            missing = need - set(z.files)
            if missing:
                raise ValueError(f"{p} is not a candidate shard: it lacks {sorted(missing)}")
            b, d, dec, a, o, e2 = (z[k] for k in ("boards", "dice", "decision", "after",
                                                   "outputs", "equity2"))
        n, m = len(b), len(dec)
        if (b.shape != (n, 2, 25) or d.shape != (n, 2) or a.shape != (m, 2, 25)
                or o.shape != (m, N_OUTPUTS) or e2.shape != (m,)
                or (m and (dec.min() < 0 or dec.max() >= n or np.any(np.diff(dec) < 0)))):
            raise ValueError(f"{p}: inconsistent shapes or decision indices")
        for i in range(n):
            key = _key(b[i], d[i])
            rows = dec == i
            if key in seen or rows.sum() < 2:
                continue
            seen.add(key)
            decision.append(np.full(int(rows.sum()), len(boards), dtype=np.int64))
            boards.append(b[i])
            dice.append(d[i])
            after.append(a[rows])
            rollout.append(-cubeless_equity(o[rows].astype(np.float64)))
            equity2.append(e2[rows].astype(np.float64))
    if not boards:
        raise ValueError("the data hold no decision with two or more candidates")
    return Candidates(np.concatenate(after).astype(np.int8), np.concatenate(rollout),
                      np.concatenate(equity2), np.concatenate(decision),
                      np.stack(boards).astype(np.int8), np.stack(dice).astype(np.int8))


def mover_equity(outputs: np.ndarray) -> np.ndarray:
    """The mover's cubeless equity ``float64[m]`` of candidates whose outputs ``[m, 5]`` are
    from the opponent's view (the opponent on roll)."""
    return -np.asarray(cubeless_equity(outputs.astype(np.float64)), dtype=np.float64)


def _centered(values: np.ndarray, decision: np.ndarray, n: int) -> np.ndarray:
    counts = np.bincount(decision, minlength=n)
    return values - (np.bincount(decision, values, minlength=n) / counts)[decision]


def rank_loss(equity: np.ndarray, rollout: np.ndarray, decision: np.ndarray
              ) -> tuple[float, np.ndarray]:
    """``(mean over decisions of L_d, its gradient float64[m] with respect to equity)``.

    ``L_d`` is the module docstring's; ``decision`` numbers the decisions 0 … n−1.
    """
    n = int(decision.max()) + 1
    counts = np.bincount(decision, minlength=n).astype(np.float64)
    u = _centered(equity, decision, n) - _centered(rollout, decision, n)
    loss = float((np.bincount(decision, u * u, minlength=n) / counts).mean())
    return loss, 2.0 * u / counts[decision] / n


def listwise_loss(equity: np.ndarray, target: np.ndarray, decision: np.ndarray, tau: float
                  ) -> tuple[float, np.ndarray]:
    """``(mean over decisions of K_d, its gradient float64[m] with respect to equity)``: the
    listwise loss ``K_d = Σ_i p_i · (log p_i − log q_i)``, the Kullback–Leibler divergence
    of the network's softmax ``q = softmax(e / tau)`` over a decision's candidates from the
    target's ``p = softmax(r / tau)`` (Cao et al., "Learning to rank: from pairwise approach
    to listwise approach", ICML 2007). Unlike the squared error of centred values it weighs
    the candidates near the top, which decide the play, and hardly those ``tau`` or more
    behind; an offset the whole decision shares changes nothing either.
    """
    n = int(decision.max()) + 1

    def softmax(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        top = np.full(n, -np.inf)
        np.maximum.at(top, decision, v / tau)
        z = np.exp(v / tau - top[decision])
        total = np.bincount(decision, z, minlength=n)
        return z / total[decision], v / tau - top[decision] - np.log(total)[decision]

    p, log_p = softmax(target)
    q, log_q = softmax(equity)
    loss = float(np.bincount(decision, p * (log_p - log_q), minlength=n).mean())
    return loss, (q - p) / tau / n


def choice_figures(equity: np.ndarray, rollout: np.ndarray, decision: np.ndarray
                   ) -> dict[str, float]:
    """How a ranking ``equity`` chooses among each decision's candidates, judged by the
    rollouts: ``loss_mp`` (mean ``r_best − r_chosen``, millipoints per decision) and
    ``agree`` (share of decisions whose choice is the rollouts' best), and ``rank_loss``."""
    n = int(decision.max()) + 1
    lost = np.zeros(n)
    for d in range(n):
        rows = np.flatnonzero(decision == d)
        lost[d] = rollout[rows].max() - rollout[rows[np.argmax(equity[rows])]]
    return {"rank_loss": rank_loss(equity, rollout, decision)[0],
            "loss_mp": float(1000.0 * lost.mean()), "agree": float((lost == 0.0).mean())}


def _fmt(f: dict[str, float]) -> str:
    return (f"rank loss {f['rank_loss']:.6f}, choice loses {f['loss_mp']:.2f} mp, "
            f"best in {100 * f['agree']:.1f} %")


@dataclass(frozen=True)
class Settings:
    """One run's settings (stored in the output as JSON)."""

    seed: int = 1
    val_share: float = 0.2
    lr: float = 3e-5
    epochs: int = 300
    patience: int = 20
    batch: int = 16
    anchors: int = 20_000
    anchor_weight: float = 1.0
    loss: str = "squared"
    tau: float = 0.02
    hidden: int = 0
    race: str = "fit"

    def check(self) -> None:
        """Raises ValueError naming the first setting out of range."""
        if not 0.0 < self.val_share < 1.0:
            raise ValueError(f"--val-share is a share strictly between 0 and 1, got "
                             f"{self.val_share}")
        for name in ("lr", "epochs", "patience", "batch"):
            if not getattr(self, name) > 0:
                raise ValueError(f"--{name} must be positive, got {getattr(self, name)}")
        if self.loss not in ("squared", "listwise"):
            raise ValueError(f"--loss is squared or listwise, got {self.loss!r}")
        if not self.tau > 0:
            raise ValueError(f"--tau must be positive, got {self.tau}")
        if self.anchors < 0 or self.anchor_weight < 0:
            raise ValueError("--anchors and --anchor-weight must not be negative")
        if self.hidden < 0:
            raise ValueError(f"--hidden must not be negative, got {self.hidden}")
        if self.race not in ("fit", "skip"):
            raise ValueError(f"--race is fit or skip, got {self.race!r}")


def without_races(cands: Candidates) -> Candidates:
    """``cands`` less the decisions whose position is a race (no contact,
    :func:`boardgammon.engine.rules.is_contact`), renumbered."""
    return cands.subset(np.flatnonzero(is_contact(cands.boards)))


def widen(net: Network, hidden: int, seed: int) -> Network:
    """``net`` with ``hidden`` hidden units: the new units' input weights uniform in ±0.1
    (drawn from ``seed``), their biases and output weights zero, so the outputs are unchanged.

    Raises:
        ValueError: ``hidden`` is fewer units than ``net`` has.
    """
    extra = hidden - net.hidden
    if extra < 0:
        raise ValueError(f"--hidden {hidden} is fewer than the start network's {net.hidden}")
    rng = np.random.default_rng([seed, 27, 3])
    return Network(np.hstack([net.w1, rng.uniform(-0.1, 0.1, (net.w1.shape[0], extra))]),
                   np.concatenate([net.b1, np.zeros(extra)]),
                   np.hstack([net.w2, np.zeros((N_OUTPUTS, extra))]), net.b2)


def _keys(cands: Candidates) -> list[bytes]:
    """Each decision's identity (:func:`_key`)."""
    return [_key(b, d) for b, d in zip(cands.boards, cands.dice, strict=True)]


def fit(weights: Path, data: list[str], out: Path, st: Settings, cache: Path | None = None,
        held_out: list[str] | None = None) -> dict[str, object]:
    """Fine-tune ``weights`` on the order of the candidates of ``data``, write ``out``; returns
    the held-out figures before and after and the epoch kept. ``held_out``: shards whose
    decisions (those ``data`` lacks) are the held-out set, instead of a share of ``data``.

    Raises:
        ValueError: bad settings or data (nothing is written).
    """
    st.check()
    held_paths = [str(p) for p in held_out or []]
    cands = load_candidates(data)
    held = load_candidates(held_paths) if held_paths else None
    if st.race == "skip":
        contact = without_races(cands)
        print(f"--race skip: {len(cands.boards) - len(contact.boards)} race decisions left "
              f"out (the anchors alone hold the race)", flush=True)
        cands = contact
        held = without_races(held) if held is not None else None
        if held is not None and not len(held.boards):
            raise ValueError("--held-out holds only race decisions, which --race skip leaves out")
    if held is not None:
        known = set(_keys(cands))
        fresh = np.array([i for i, k in enumerate(_keys(held)) if k not in known], dtype=np.int64)
        if not len(fresh):
            raise ValueError("--held-out holds no decision that --data lacks")
        train, val = cands, held.subset(fresh)
    else:
        tr_d, va_d = supervised.split(len(cands.boards), st.val_share, st.seed)
        train, val = cands.subset(tr_d), cands.subset(va_d)
    start = Network.load(weights, widen=True)  # a network of fewer inputs: zero weights
    joined = start.joined
    if joined and st.hidden:
        raise ValueError("--hidden widens a single network, not a joined one")
    if joined:  # fitted in its gated form, whose halves each value their own positions
        start = split.gated(start)
    if st.hidden:
        start = widen(start, st.hidden, st.seed)
    x_tr = encode(train.after).astype(np.float64)
    x_va = encode(val.after).astype(np.float64)
    before = choice_figures(mover_equity(start.evaluate(val.after)), val.rollout, val.decision)
    two = choice_figures(val.equity2, val.rollout, val.decision)
    print(f"{len(train.boards)} training decisions ({len(train.after)} candidates), "
          f"{len(val.boards)} held out ({len(val.after)})", flush=True)
    print(f"before: held out {_fmt(before)}", flush=True)
    print(f"(the start network at 2-ply: {_fmt(two)})", flush=True)

    anchors = np.zeros((0, 2, 25), dtype=np.int8)
    anchor_y = np.zeros((0, N_OUTPUTS))
    if st.anchors and st.anchor_weight > 0:
        anchors, anchor_y, _, _ = supervised.extra_targets(
            start, supervised.Settings(seed=st.seed, anchors=st.anchors, search=0),
            {b.tobytes() for b in np.concatenate([train.after, val.after])}, cache)
    x_an = encode(anchors).astype(np.float64)
    y_an = anchor_y.astype(np.float64)

    params = supervised._Params(start)
    rng = np.random.default_rng([st.seed, 27, 2])
    n_tr = len(train.boards)
    steps = max(1, -(-n_tr // st.batch))
    per_step = -(-len(anchors) // steps) if len(anchors) else 0

    def objective(e: np.ndarray, r: np.ndarray, d: np.ndarray) -> tuple[float, np.ndarray]:
        if st.loss == "listwise":
            return listwise_loss(e, r, d, st.tau)
        return rank_loss(e, r, d)

    def val_score(net_equity: np.ndarray) -> float:
        return objective(net_equity, val.rollout, val.decision)[0]

    best = val_score(mover_equity(start.evaluate(val.after)))
    best_epoch, best_weights = 0, [a.copy() for a in params.p]
    for epoch in range(1, st.epochs + 1):
        order = rng.permutation(n_tr)
        anchor_order = rng.permutation(len(anchors))
        total = 0.0
        for k in range(steps):
            ds = np.sort(order[k * st.batch:(k + 1) * st.batch])
            rows = np.flatnonzero(np.isin(train.decision, ds))
            renumber = np.searchsorted(ds, train.decision[rows])
            h, o = params.forward(x_tr[rows])
            loss, g_eq = objective(mover_equity(o), train.rollout[rows], renumber)
            grad = -g_eq[:, None] * EQUITY[None, :]
            xs, hs, os_, gs = [x_tr[rows]], [h], [o], [grad]
            a = anchor_order[k * per_step:(k + 1) * per_step]
            if len(a):  # the last steps of an epoch may have no anchors left
                ha, oa = params.forward(x_an[a])
                err = oa - y_an[a]
                loss += st.anchor_weight * float((err * err).mean())
                xs.append(x_an[a])
                hs.append(ha)
                os_.append(oa)
                gs.append(st.anchor_weight * 2.0 * err / err.size)
            params.descend(np.concatenate(xs), np.concatenate(hs), np.concatenate(os_),
                           np.concatenate(gs), st.lr)
            total += loss
        _, o = params.forward(x_va)
        now = choice_figures(mover_equity(o), val.rollout, val.decision)
        print(f"epoch {epoch}: training loss {total / steps:.6f}, held out {_fmt(now)}",
              flush=True)
        if (score := val_score(mover_equity(o))) < best:
            best, best_epoch, best_weights = score, epoch, [a.copy() for a in params.p]
        elif epoch - best_epoch >= st.patience:
            break
    net = Network(*best_weights)
    if joined:
        net = split.native(net)
    after = choice_figures(mover_equity(net.evaluate(val.after)), val.rollout, val.decision)
    print(f"after (epoch {best_epoch}): held out {_fmt(after)}", flush=True)
    result: dict[str, object] = {"settings": asdict(st), "epoch": best_epoch, "before": before,
                                 "after": after, "two_ply": two,
                                 "decisions": len(cands.boards), "start": str(weights),
                                 "trained": len(train.boards), "held": len(val.boards),
                                 "held_out": held_paths}
    with np.load(weights) as z:
        keep = {k: z[k] for k in z.files if k not in ("w1", "b1", "w2", "b2", "ranking")}
    if "hidden" in keep:  # the TD run's setting, which a widened network no longer has
        keep["hidden"] = np.array(float(net.hidden))
    out.parent.mkdir(parents=True, exist_ok=True)
    net.save(out, ranking=json.dumps(result), **keep)
    return result


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("fit", help="fine-tune a network on the order of candidate plays")
    f.add_argument("--out", required=True, type=Path)
    f.add_argument("--weights", type=Path, default=supervised.WEIGHTS)
    f.add_argument("--data", nargs="+", default=None)
    f.add_argument("--held-out", nargs="+", default=None,
                   help="shards held out instead of --val-share of --data")
    f.add_argument("--cache", type=Path, default=None,
                   help="directory keeping the anchors between runs")
    for field, default in asdict(Settings()).items():
        f.add_argument(f"--{field.replace('_', '-')}", type=type(default), default=default)
    args = ap.parse_args(argv)
    held = {str(Path(p).resolve()) for p in args.held_out or []}
    data = args.data if args.data is not None else [
        p for p in sorted(glob.glob(DATA)) if str(Path(p).resolve()) not in held]
    missing = [p for p in data + (args.held_out or []) if not Path(p).is_file()]
    if missing:
        ap.error(f"no such data file: {missing[0]}")
    if not args.weights.is_file():
        ap.error(f"no such weights file: {args.weights}")
    if args.out.resolve() == args.weights.resolve():
        ap.error("--out must differ from --weights: write a candidate, then judge it")
    try:
        fit(args.weights, data, args.out, Settings(**{k: getattr(args, k)
                                                      for k in asdict(Settings())}), args.cache,
            args.held_out)
    except ValueError as e:
        print(f"ranking: error: {e}", file=sys.stderr)
        raise SystemExit(2) from None


if __name__ == "__main__":
    main()
