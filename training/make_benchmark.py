"""Build ``training/benchmark.npz``: positions with gnubg 0-ply's five outputs, the yardstick of
the training log's ``benchmark_mse``.

Positions come from games of a given network against itself where one play in five is chosen
uniformly at random (so the set is not only the network's own style), taking every third
position before the roll, race and contact alike, game-over positions excluded. gnubg evaluates
each (cubeless, 0-ply) from the view of the player on roll.

    python -m training.make_benchmark WEIGHTS.npz [--positions 1000] [--seed 5]
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections.abc import Callable

import numpy as np

from boardgammon.bots.network import Network, cubeless_equity
from boardgammon.engine import Board
from tests.helpers.gnubg import run_script

_EVAL = """
boards = json.load(open(os.environ["BOARDS_FILE"]))
ci = gnubg.cubeinfo()
ec = gnubg.evalcontext(0, 0, 0, 1, 0.0)
emit([list(gnubg.evaluate(b, ci, ec))[:5] for b in boards])
"""


def every_third(rng: np.random.Generator, ply: int) -> bool:
    return ply % 3 == 2


def sample_positions(net: Network, count: int, seed: int, random_share: float = 0.2,
                     keep: Callable[[np.random.Generator, int], bool] = every_third
                     ) -> np.ndarray:
    """``count`` positions before the roll, ``int8[count, 2, 25]``, from ``net``'s self-play
    with a share of plays chosen at random; ``keep(rng, ply)`` picks which ones."""
    rng = np.random.default_rng(seed)
    found: list[np.ndarray] = []
    while len(found) < count:
        board = Board.initial()
        ply = 0
        while not board.is_game_over():
            if keep(rng, ply):
                found.append(board.array.copy())
            d1, d2 = (int(d) for d in rng.integers(1, 7, 2))
            plays = board.legal_plays(d1, d2)
            if rng.random() < random_share:
                play = plays[rng.integers(len(plays))]
            else:
                afters = np.stack([p.after.swapped().array for p in plays])
                play = plays[int(np.argmin(cubeless_equity(net.evaluate(afters))))]
            board = play.after.swapped()
            ply += 1
    return np.stack(found[:count])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("weights")
    ap.add_argument("--positions", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--out", default="training/benchmark.npz")
    args = ap.parse_args()
    boards = sample_positions(Network.load(args.weights), args.positions, args.seed)
    gnubg_boards = [[b[1].tolist(), b[0].tolist()] for b in boards]  # gnubg: (opponent, on roll)
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:  # too long for a variable
        json.dump(gnubg_boards, f)
        f.flush()
        outputs = run_script(_EVAL, setup=True, env={"BOARDS_FILE": f.name})
    np.savez_compressed(args.out, boards=boards, outputs=np.asarray(outputs, dtype=np.float32))
    print(f"{len(boards)} positions written to {args.out}")


if __name__ == "__main__":
    main()
