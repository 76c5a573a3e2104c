"""The neural evaluator: one hidden layer of sigmoid units, five sigmoid outputs (numba).

Outputs, from the view of the player on roll who is about to roll, as gnubg defines them:
``win``, ``win gammon`` (incl. backgammons), ``win backgammon``, ``lose gammon`` (incl.
backgammons), ``lose backgammon``. Cubeless equity in points per unit cube:
``2·win − 1 + wg − lg + wbg − lbg`` (each gammon counts once more, each backgammon once more
again).

The forward pass :func:`forward` is the only implementation: self-play training
(:mod:`boardgammon.bots.training`), the bots and the benchmarks all call it. It skips zero inputs,
which makes it about five times faster on the sparse raw-board encoding.

A *joined* network is two networks of ``K`` hidden units each in one set of arrays, each
array the contact network's stacked on the race network's along its first axis (so that each
half's are contiguous): ``w1`` of ``2·N_INPUTS`` rows, ``b1`` of ``2K``, ``w2`` of 10 rows,
``b2`` of 10. :func:`forward` reads the encoding's race flag (:data:`RACE_INPUT`) and computes
only the half it picks, so a joined network costs what one of its halves does, and every kernel
that evaluates with ``w1, b1, w2, b2`` takes either kind (self-play training,
:func:`~boardgammon.bots.training.train_games`, refuses a joined one). The race network learns
bearing in and off without moving the units the contact positions use (issue #27;
docs/neural.md, "A race network of its own"). ``training/split.py`` makes one out of two
networks.
"""

from __future__ import annotations

import math
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from boardgammon._numba_cache import njit

from .encoding import N_INPUTS, as_positions, encode_into

N_OUTPUTS = 5
RACE_INPUT = 198
"""The encoding's race flag: 1.0 in a pure race, else 0.0 (:mod:`boardgammon.bots.encoding`)."""
WIN, WIN_GAMMON, WIN_BACKGAMMON, LOSE_GAMMON, LOSE_BACKGAMMON = range(N_OUTPUTS)
DEFAULT_WEIGHTS = "neural.npz"
SHIPPED_WEIGHTS = {"standard": DEFAULT_WEIGHTS, "hypergammon": "hypergammon.npz"}
"""The shipped weights by game: 15-checker games (standard and Nackgammon) and Hypergammon's
3-checker games, each trained by its own self-play (``boardgammon train [--variant]``)."""


@njit(cache=True, fastmath=True)
def _layers(x, w1, b1, w2, b2, h, o):
    """:func:`forward` of a single network (the arrays of one half of a joined one)."""
    nh = b1.shape[0]
    for j in range(nh):
        h[j] = b1[j]
    for i in range(x.shape[0]):
        xi = x[i]
        if xi != 0.0:
            for j in range(nh):
                h[j] += xi * w1[i, j]
    for j in range(nh):
        h[j] = 1.0 / (1.0 + math.exp(-h[j]))
    for k in range(N_OUTPUTS):
        s = b2[k]
        for j in range(nh):
            s += w2[k, j] * h[j]
        o[k] = 1.0 / (1.0 + math.exp(-s))


@njit(cache=True, fastmath=True)
def forward(x, w1, b1, w2, b2, h, o):
    """Evaluate one encoded position.

    Args:
        x: ``float32[N_INPUTS]`` encoding (:func:`~boardgammon.bots.encoding.encode_into`).
        w1: ``float32[N_INPUTS, H]``; b1: ``float32[H]``; w2: ``float32[5, H]``; b2:
            ``float32[5]``; or a joined network's ``float32[2·N_INPUTS, K]``, ``[2K]``,
            ``[10, K]``, ``[10]`` (module docstring), of which only the half the race flag
            picks is computed.
        h: ``float32[H]`` receives the hidden activations (kept for back-propagation; of a
            joined network only the half computed).
        o: ``float32[5]`` receives the five output probabilities.
    """
    if b2.shape[0] == 2 * N_OUTPUTS:  # a joined network: each half's arrays contiguous
        n, k = x.shape[0], b1.shape[0] // 2
        if x[RACE_INPUT] != 0.0:
            _layers(x, w1[n:], b1[k:], w2[N_OUTPUTS:], b2[N_OUTPUTS:], h[k:], o)
        else:
            _layers(x, w1[:n], b1[:k], w2[:N_OUTPUTS], b2[:N_OUTPUTS], h[:k], o)
    else:
        _layers(x, w1, b1, w2, b2, h, o)


@njit(cache=True, inline="always")
def equity(o):
    """Cubeless equity of five outputs (player on roll's view), points per unit cube."""
    return 2.0 * o[0] - 1.0 + o[1] - o[3] + o[2] - o[4]


@njit(cache=True, inline="always")
def flip_into(o, out):
    """The outputs seen from the other side: win ↔ lose, own gammons ↔ opponent's."""
    out[0] = 1.0 - o[0]
    out[1] = o[3]
    out[2] = o[4]
    out[3] = o[1]
    out[4] = o[2]


@njit(cache=True)
def evaluate_boards(boards, checkers, w1, b1, w2, b2):
    """Outputs ``float32[P, 5]`` for positions ``int8[P, 2, 25]`` (player on roll's view)."""
    p = boards.shape[0]
    out = np.empty((p, N_OUTPUTS), dtype=np.float32)
    x = np.empty(N_INPUTS, dtype=np.float32)
    h = np.empty(b1.shape[0], dtype=np.float32)
    for i in range(p):
        encode_into(boards[i], checkers, x)
        forward(x, w1, b1, w2, b2, h, out[i])
    return out


class Network:
    """Weights of the evaluator plus convenience methods around the numba kernels.

    Args:
        w1: ``float32[N_INPUTS, H]``; b1: ``float32[H]``; w2: ``float32[5, H]``;
            b2: ``float32[5]``; or a joined network's ``float32[2·N_INPUTS, K]``,
            ``[2K]``, ``[10, K]``, ``[10]`` (the contact half first; module docstring).

    Raises:
        ValueError: inconsistent shapes.
    """

    def __init__(self, w1: np.ndarray, b1: np.ndarray, w2: np.ndarray, b2: np.ndarray) -> None:
        self.w1 = np.ascontiguousarray(w1, dtype=np.float32)
        self.b1 = np.ascontiguousarray(b1, dtype=np.float32)
        self.w2 = np.ascontiguousarray(w2, dtype=np.float32)
        self.b2 = np.ascontiguousarray(b2, dtype=np.float32)
        hidden = self.b1.shape[0]
        single = (self.w1.shape == (N_INPUTS, hidden) and self.w2.shape == (N_OUTPUTS, hidden)
                  and self.b2.shape == (N_OUTPUTS,))
        k = hidden // 2
        joined = (hidden % 2 == 0 and self.w1.shape == (2 * N_INPUTS, k)
                  and self.w2.shape == (2 * N_OUTPUTS, k) and self.b2.shape == (2 * N_OUTPUTS,))
        if not (single or joined):
            raise ValueError(f"weight shapes {self.w1.shape}, {self.b1.shape}, {self.w2.shape}, "
                             f"{self.b2.shape} do not form a {N_INPUTS}-H-{N_OUTPUTS} network "
                             f"(nor a joined one: (2·{N_INPUTS}, K), (2K), (10, K), (10))")

    @property
    def hidden(self) -> int:
        """Number of hidden units (of a joined network, both halves')."""
        return self.b1.shape[0]

    @property
    def joined(self) -> bool:
        """Whether this is a joined contact and race network (module docstring)."""
        return self.b2.shape[0] == 2 * N_OUTPUTS

    def halves(self) -> tuple[Network, Network]:
        """A joined network's contact and race networks, each of ``hidden // 2`` units; copies,
        so that training one half in place leaves this network as it is.

        Raises:
            ValueError: not a joined network.
        """
        if not self.joined:
            raise ValueError("not a joined network: it has no halves")
        k = self.hidden // 2
        return (Network(self.w1[:N_INPUTS].copy(), self.b1[:k].copy(),
                        self.w2[:N_OUTPUTS].copy(), self.b2[:N_OUTPUTS].copy()),
                Network(self.w1[N_INPUTS:].copy(), self.b1[k:].copy(),
                        self.w2[N_OUTPUTS:].copy(), self.b2[N_OUTPUTS:].copy()))

    @classmethod
    def join(cls, contact: Network, race: Network) -> Network:
        """The joined network of ``contact`` (used in contact positions) and ``race`` (in pure
        races), of ``2 · hidden`` units.

        Raises:
            ValueError: the two differ in size, or either is joined itself.
        """
        if contact.joined or race.joined or contact.hidden != race.hidden:
            raise ValueError(f"join takes two single networks of one size, got "
                             f"{contact.hidden} and {race.hidden} hidden units")
        return cls(np.vstack([contact.w1, race.w1]), np.concatenate([contact.b1, race.b1]),
                   np.vstack([contact.w2, race.w2]), np.concatenate([contact.b2, race.b2]))

    @property
    def weights(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(w1, b1, w2, b2)``, the arrays the numba kernels take."""
        return self.w1, self.b1, self.w2, self.b2

    @classmethod
    def random(cls, hidden: int = 80, seed: int = 0) -> Network:
        """Small uniform random weights (±0.1), reproducible from ``seed``."""
        rng = np.random.default_rng(seed)
        return cls(rng.uniform(-0.1, 0.1, (N_INPUTS, hidden)), np.zeros(hidden),
                   rng.uniform(-0.1, 0.1, (N_OUTPUTS, hidden)), np.zeros(N_OUTPUTS))

    @classmethod
    def load(cls, path: str | Path | None = None, game: str = "standard",
             widen: bool = False) -> Network:
        """Load weights from an ``.npz`` file (keys ``w1 b1 w2 b2``); ``None`` loads the weights
        shipped with the package for ``game`` (``standard``: 15-checker games, or
        ``hypergammon``; :data:`SHIPPED_WEIGHTS`). ``widen``: weights of an encoding with
        fewer inputs (the hand inputs are appended, never reordered) get zero weights for the
        inputs they lack, so the network's outputs are unchanged until training moves them.

        Raises:
            FileNotFoundError: no such file; KeyError: a weight array is missing or ``game``
                unknown; ValueError: the shapes do not form a network of this encoding.
        """
        if path is None:
            ref = resources.files("boardgammon.bots") / "weights" / SHIPPED_WEIGHTS[game]
            with resources.as_file(ref) as p, np.load(p) as z:
                w1, b1, w2, b2 = z["w1"], z["b1"], z["w2"], z["b2"]
        else:
            with np.load(path) as z:
                w1, b1, w2, b2 = z["w1"], z["b1"], z["w2"], z["b2"]
        if widen and b2.shape == (2 * N_OUTPUTS,) and w1.ndim == 2 and w1.shape[0] < 2 * N_INPUTS:
            half = w1.shape[0] // 2  # a joined network: each half widened
            pad = np.zeros((N_INPUTS - half, w1.shape[1]), w1.dtype)
            w1 = np.concatenate([w1[:half], pad, w1[half:], pad])
        elif widen and w1.ndim == 2 and w1.shape[0] < N_INPUTS:
            w1 = np.concatenate([w1, np.zeros((N_INPUTS - w1.shape[0], w1.shape[1]), w1.dtype)])
        return cls(w1, b1, w2, b2)

    @staticmethod
    def inputs_of(path: str | Path) -> int:
        """The number of inputs of the weights in an ``.npz`` file (rows of ``w1``; of a joined
        network's, half).

        Raises:
            FileNotFoundError, KeyError: as :meth:`load`.
        """
        with np.load(path) as z:
            joined = z["b2"].shape == (2 * N_OUTPUTS,)
            return int(z["w1"].shape[0]) // (2 if joined else 1)

    def save(self, path: str | Path, **extra: Any) -> None:
        """Write the weights (and any ``extra`` metadata: arrays, numbers, strings) to an
        ``.npz`` file."""
        np.savez(path, w1=self.w1, b1=self.b1, w2=self.w2, b2=self.b2, **extra)

    def evaluate(self, boards: np.ndarray, checkers: int = 15) -> np.ndarray:
        """The five outputs of positions ``int8[2, 25]`` or ``int8[P, 2, 25]`` (player on roll's
        view): ``float32[5]`` or ``float32[P, 5]``.

        Raises:
            ValueError: wrong shape.
        """
        a, single = as_positions(boards)
        out = evaluate_boards(a, checkers, *self.weights)
        return out[0] if single else out


def cubeless_equity(outputs: np.ndarray) -> np.ndarray | float:
    """Cubeless equity of outputs ``[..., 5]``: ``2·win − 1 + wg − lg + wbg − lbg``."""
    o = np.asarray(outputs, dtype=np.float64)
    e = 2.0 * o[..., 0] - 1.0 + o[..., 1] - o[..., 3] + o[..., 2] - o[..., 4]
    return float(e) if np.ndim(e) == 0 else e
