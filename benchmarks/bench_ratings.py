"""Rating systems on simulated players of known strength (``make bench-ratings``; minutes,
not CI): Boardgammon's Glicko-2 adapted to match length beside the plain FIBS formula.

1. **Measured strengths.** Six computer players, weakest to strongest: easy with Gaussian
   noise of σ = 0.6 and 0.3 (cubeless equity) added to every play's evaluation, easy, medium
   with noise 0.3 and 0.1, medium; with ``--hard N``, hard as a seventh (left out by default:
   one hard game takes about 15 s on a loaded 2-core machine, so its pairs play only ``N``
   sequences). Every other pair plays ``--sequences`` dice sequences twice with the sides
   swapped (cubeless money games, gammons and backgammons count, as
   :mod:`benchmarks.strength` plays them); the points of each game are kept.
2. **Simulated matches.** ``--players`` simulated players per strength play matches of mixed
   lengths (1, 3, 5, 7, 11) between random opponents; a match is simulated game by game, each
   game's points drawn from the measured games of that pair, until one side reaches the length
   (no cube, no Crawford rule: a simplification that keeps it fast; the measured gammon rate is
   kept). Both systems rate the same matches in the same order.
3. **Report**: the final ratings' order (Spearman's ρ between a player's rating and true
   strength, and each strength's mean rating), how fast a newcomer settles (players of each
   strength joining after the field has settled: the mean absolute distance of their rating
   from their strength's settled mean after k matches), and how well the predicted match-win
   probabilities fit the results after a burn-in (Brier score, log loss, a calibration table).

    python -m benchmarks ratings          (defaults)
    python -m benchmarks.bench_ratings [--sequences 40] [--players 8] [--matches 6000] [--seed 1]
        [--measured games.json] [--hard 2]
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr

from benchmarks.strength import dice_sequence, play_game
from boardgammon.bots import Bot, Context, RankedPlay, create
from boardgammon.engine import Board, Play
from boardgammon.ratings import FibsRating, GlickoRating, fibs, glicko

LENGTHS = (1, 3, 5, 7, 11)
STRENGTHS = (
    ("easy", 0.6),
    ("easy", 0.3),
    ("easy", 0.0),
    ("medium", 0.3),
    ("medium", 0.1),
    ("medium", 0.0),
)
"""The simulated strengths, weakest first: (level, σ of the noise added to its evaluations)."""
HARD = ("hard", 0.0)
"""The seventh strength, with ``--hard``: the strongest level, slow to measure."""
NEWCOMER_CHECKS = (5, 10, 20, 40)


class NoisyBot(Bot):
    """A level whose every play's equity gets Gaussian noise of ``sigma`` before it chooses:
    strengths between the levels."""

    def __init__(self, level: str, sigma: float, seed: int) -> None:
        super().__init__(seed)
        self.inner = create(level, seed)
        self.sigma = sigma
        self.name = f"{level}+{sigma}" if sigma else level
        self._rng = random.Random(seed)

    def rank_plays(self, board: Board, dice: tuple[int, int], context: Context) -> list[RankedPlay]:
        ranked = [
            RankedPlay(r.play, r.equity + self._rng.gauss(0.0, self.sigma))
            for r in self.inner.rank_plays(board, dice, context)
        ]
        return sorted(ranked, key=lambda r: -r.equity)

    def choose_play(self, board: Board, dice: tuple[int, int], context: Context) -> Play:
        if not self.sigma:
            return self.inner.choose_play(board, dice, context)
        return self.rank_plays(board, dice, context)[0].play

    # The measured games are cubeless, without resignations: the cube calls are the level's.
    def double(self, board: Board, context: Context) -> bool:
        return self.inner.double(board, context)

    def take(self, board: Board, context: Context) -> bool:
        return self.inner.take(board, context)

    def accept_resignation(self, board: Board, context: Context, points: int) -> bool:
        return self.inner.accept_resignation(board, context, points)

    def resign(self, board: Board, context: Context) -> int | None:
        return self.inner.resign(board, context)


def measure(sequences: int, seed: int, strengths: Sequence[tuple[str, float]] = STRENGTHS,
            hard_sequences: int = 0) -> dict[tuple[int, int], list[int]]:
    """``{(i, j): points of strength i in each measured game against j}`` for every pair
    ``i < j`` of ``strengths``: each dice sequence played twice, the sides swapped (duplicate
    dice); ``sequences`` per pair, ``hard_sequences`` for a pair with the hard level."""
    games: dict[tuple[int, int], list[int]] = {}
    for i, j in itertools.combinations(range(len(strengths)), 2):
        a, b = NoisyBot(*strengths[i], seed=seed + i), NoisyBot(*strengths[j], seed=seed + 50 + j)
        hard = HARD in (strengths[i], strengths[j])
        points: list[int] = []
        for g in range(hard_sequences if hard else sequences):
            dice = dice_sequence(seed * 1_000_003 + g)
            points += [play_game((a, b), dice), -play_game((b, a), dice)]
        games[i, j] = points
    return games


@dataclass
class SimPlayer:
    strength: int
    joined: int  # the match number before which the player plays no match


class System:
    """One rating system over the simulated field: ``predict(a, b, n)`` and ``record``."""

    def __init__(
        self,
        name: str,
        start: object,
        predict: Callable[[object, object, int], float],
        update: Callable[[object, object, int], tuple[object, object]],
        value: Callable[[object], float],
    ) -> None:
        self.name, self.start, self._predict, self._update, self.value = (
            name,
            start,
            predict,
            update,
            value,
        )
        self.ratings: dict[int, object] = {}

    def rating(self, who: int) -> object:
        return self.ratings.get(who, self.start)

    def predict(self, a: int, b: int, length: int) -> float:
        return self._predict(self.rating(a), self.rating(b), length)

    def record(self, winner: int, loser: int, length: int) -> None:
        self.ratings[winner], self.ratings[loser] = self._update(
            self.rating(winner), self.rating(loser), length
        )


def systems() -> list[System]:
    return [
        System(
            "Glicko-2 (match length)",
            GlickoRating(),
            glicko.win_probability,
            glicko.update,
            lambda r: r.rating,
        ),
        System(
            "FIBS",
            FibsRating(),
            lambda a, b, n: fibs.win_probability(a.rating, b.rating, n),
            fibs.update,
            lambda r: r.rating,
        ),
    ]


def game_points(games: dict[tuple[int, int], list[int]], a: int, b: int, rng: random.Random) -> int:
    """Points strength ``a`` wins in one game against ``b`` (negative: ``b`` wins), drawn from
    the measured games of the pair (equal strengths: from a pair's games with a random
    sign, which keeps the measured gammon rate)."""
    if a == b:
        return rng.choice((1, -1)) * abs(rng.choice(games[0, 1]))
    key, sign = ((a, b), 1) if a < b else ((b, a), -1)
    return sign * rng.choice(games[key])


def play_match(
    games: dict[tuple[int, int], list[int]], a: int, b: int, length: int, rng: random.Random
) -> bool:
    """Whether strength ``a`` wins a ``length``-point match against ``b`` (no cube)."""
    score = [0, 0]
    while max(score) < length:
        p = game_points(games, a, b, rng)
        score[0 if p > 0 else 1] += abs(p)
    return score[0] >= length


def calibration(pairs: Sequence[tuple[float, bool]]) -> list[tuple[str, int, float, float]]:
    """Deciles of the predicted probability: (range, matches, mean predicted, share won)."""
    rows = []
    for k in range(10):
        lo, hi = k / 10, (k + 1) / 10
        inside = [(p, w) for p, w in pairs if lo <= p < hi or (k == 9 and p == 1.0)]
        if inside:
            rows.append(
                (
                    f"{lo:.1f}–{hi:.1f}",
                    len(inside),
                    sum(p for p, _ in inside) / len(inside),
                    sum(w for _, w in inside) / len(inside),
                )
            )
    return rows


def main(argv: Sequence[str] = ()) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_ratings")
    parser.add_argument(
        "--sequences", type=int, default=40, help="duplicate dice sequences per pair of strengths"
    )
    parser.add_argument("--players", type=int, default=8, help="simulated players per strength")
    parser.add_argument("--matches", type=int, default=6000, help="simulated matches")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--measured",
        type=Path,
        help="a JSON file of measured games: read "
        "if it exists (the simulation again without playing), else written",
    )
    parser.add_argument(
        "--hard",
        type=int,
        default=0,
        metavar="SEQUENCES",
        help="add the hard level as a seventh strength, its pairs measured with this many "
        "duplicate dice sequences (about 15 s a hard game here: keep it small; 0: left out)",
    )
    args = parser.parse_args(list(argv))
    for name, least in (("sequences", 1), ("players", 1), ("matches", 20), ("hard", 0)):
        if getattr(args, name) < least:
            parser.error(f"--{name} is at least {least}")
    strengths: tuple[tuple[str, float], ...] = (*STRENGTHS, HARD) if args.hard else STRENGTHS
    rng = random.Random(args.seed)

    started = time.perf_counter()
    if args.measured is not None and args.measured.exists():
        games = {
            (int(k.split("-")[0]), int(k.split("-")[1])): v
            for k, v in json.loads(args.measured.read_text()).items()
        }
        # A file measured with --hard has a seventh strength.
        strengths = (*STRENGTHS, HARD) if max(j for _, j in games) == len(STRENGTHS) else STRENGTHS
        print(f"measured games read from {args.measured}")
    else:
        games = measure(args.sequences, args.seed, strengths, args.hard)
        hard = f" ({2 * args.hard} per pair with hard)" if args.hard else ""
        print(
            f"measured {2 * args.sequences} games per pair of {len(strengths)} strengths{hard} "
            f"in {time.perf_counter() - started:.0f} s"
        )
        if args.measured is not None:
            args.measured.write_text(json.dumps({f"{i}-{j}": v for (i, j), v in games.items()}))
    names = [NoisyBot(level, sigma, 0).name for level, sigma in strengths]
    print("points per game of the row against the column (cubeless money, duplicate dice):")
    print("| | " + " | ".join(names) + " |\n|---|" + "---|" * len(names))
    for i in range(len(strengths)):
        cells = []
        for j in range(len(strengths)):
            if i == j:
                cells.append("–")
            else:
                pts = games[min(i, j), max(i, j)]
                cells.append(f"{(1 if i < j else -1) * np.mean(pts):+.2f}")
        print(f"| {names[i]} | " + " | ".join(cells) + " |")

    field = [SimPlayer(s, 0) for s in range(len(strengths)) for _ in range(args.players)]
    settle = args.matches // 2
    newcomers = list(range(len(field), len(field) + len(strengths)))
    field += [SimPlayer(s, settle) for s in range(len(strengths))]
    rated = systems()
    predictions: dict[str, list[tuple[float, bool]]] = {s.name: [] for s in rated}
    played = [0] * len(field)
    trail: dict[str, dict[int, list[float]]] = {s.name: {w: [] for w in newcomers} for s in rated}
    for m in range(args.matches):
        eligible = [k for k, p in enumerate(field) if p.joined <= m]
        # A newcomer plays often, as a new account does, so that it has a history to measure.
        fresh = [k for k in newcomers if field[k].joined <= m]
        a = rng.choice(fresh) if fresh and rng.random() < 0.1 else rng.choice(eligible)
        b = rng.choice([k for k in eligible if k != a])
        length = rng.choice(LENGTHS)
        a_won = play_match(games, field[a].strength, field[b].strength, length, rng)
        winner, loser = (a, b) if a_won else (b, a)
        for system in rated:
            if m >= args.matches // 4:
                predictions[system.name].append((system.predict(a, b, length), a_won))
            system.record(winner, loser, length)
            for k in (a, b):
                if k in newcomers:
                    trail[system.name][k].append(system.value(system.rating(k)))
        played[a] += 1
        played[b] += 1

    true_order = [p.strength for p in field[: -len(strengths)]]
    for system in rated:
        values = [system.value(system.rating(k)) for k in range(len(field) - len(strengths))]
        rho = spearmanr(true_order, values).statistic
        means = [
            np.mean([v for v, s in zip(values, true_order, strict=True) if s == k])
            for k in range(len(strengths))
        ]
        pairs = predictions[system.name]
        brier = np.mean([(p - w) ** 2 for p, w in pairs])
        logloss = -np.mean([math.log(p if w else 1 - p) for p, w in pairs])
        print(f"\n### {system.name}\n")
        print(
            f"Spearman ρ (rating vs strength, {len(values)} players): {rho:.3f}; "
            f"strength means in order: {all(x < y for x, y in itertools.pairwise(means))}"
        )
        print(
            "mean rating per strength: "
            + ", ".join(f"{n} {v:.0f}" for n, v in zip(names, means, strict=True))
        )
        print(
            f"Brier score {brier:.4f}, log loss {logloss:.4f} over {len(pairs)} matches "
            "(after the first quarter)"
        )
        print("\n| predicted | matches | mean predicted | won |\n|---|---|---|---|")
        for span, count, mean, won in calibration(pairs):
            print(f"| {span} | {count} | {mean:.3f} | {won:.3f} |")
        # Each system spreads the field differently: the gap is also given in steps between
        # neighbouring strengths (the mean distance between their settled means).
        step = (means[-1] - means[0]) / (len(means) - 1)
        print(
            "\nnewcomer: mean |rating − settled mean of its strength| after k matches, in "
            f"rating points and in strength steps ({step:.0f} points):"
        )
        cells = []
        for k in NEWCOMER_CHECKS:
            gaps = [
                abs(trail[system.name][w][k - 1] - means[field[w].strength])
                for w in newcomers
                if len(trail[system.name][w]) >= k
            ]
            cells.append(
                f"k={k}: {np.mean(gaps):.0f} ({np.mean(gaps) / step:.2f})" if gaps else f"k={k}: –"
            )
        print(", ".join(cells))
    print(
        f"\n(brier of always 0.5: 0.2500; {args.matches} matches, seed {args.seed}, "
        f"{time.perf_counter() - started:.0f} s in all)"
    )


if __name__ == "__main__":
    main(sys.argv[1:])
