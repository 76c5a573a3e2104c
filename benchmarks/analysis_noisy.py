"""Our match analysis beside GNU Backgammon's on matches gnubg plays itself (a report, not a test).

``python -m benchmarks.analysis_noisy [MATCHES] [--seed S] [--plies 0,2] [--weights W.npz]``:
issue #27's measure of the analysis. gnubg plays ``MATCHES`` matches (default 25; lengths 1,
3, 5, 7 in turn) between a **noisy** gnubg (Gaussian noise of standard deviation 0.02, 0.04,
0.06, 0.08 or 0.1 added to its 0-ply evaluations, in turn, for both checker play and cube; seat
0 and seat 1 in turn) and a **noise-free** gnubg 0-ply, dice from gnubg's Mersenne twister
seeded with ``S + k`` for the ``k``-th match (:data:`GNUBG_PLAY`). Neither player is one of
our engines, so the judge is never a player. Each match is written as ``.mat``, read back with
:func:`boardgammon.formats.read_mat`, and analysed by gnubg and by us at each depth of
``--plies`` (:func:`.analysis_vs_gnubg.gnubg_analysis`, :func:`.analysis_vs_gnubg.compare`).

``--weights`` analyses with another network file (``training``'s output) instead of the
shipped one, to judge a candidate network by this measure before shipping it.

Prints, per match and player, the checker error rate (millipoints of EMG per unforced move)
by gnubg and by us at each depth; then, per depth:

* how many noisy players' error rates are within 10 % of gnubg's at the same depth (target:
  at least 80 % of them), with the median of our rate over gnubg's;
* the noise-free players' median error rate by us and by gnubg (target at 0-ply: ours at most
  3 mEMG a move; gnubg 0-ply charges its own 0-ply play nothing);

and the cube: at every turn where the player on roll could double, whether our 0-ply analysis
and gnubg's give the same proper action, the doubler's (double or not) and the opponent's
(take or drop) together (target: at least 96 %), by
:func:`.cube_vs_gnubg.points_of`; beside it, how often gnubg 0-ply and gnubg 2-ply agree on it
(a yardstick: two depths of one engine), and the doubler's action alone.

A 25-match run takes some 15 minutes on one core of this machine (mostly the 2-ply analyses).
Results: ``docs/analysis.md``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from boardgammon.analysis.analysis import analyse_match
from boardgammon.bots.network import Network
from boardgammon.bots.neural import NetworkEvaluator
from boardgammon.engine import Match
from boardgammon.formats import read_mat
from tests.helpers.gnubg import run_script

from .analysis_vs_gnubg import compare, gnubg_analysis
from .cube_vs_gnubg import gnubg_cube, points_of, verdicts

LENGTHS = (1, 3, 5, 7)
NOISES = (0.02, 0.04, 0.06, 0.08, 0.10)
NAMES = ("Noisy", "Clean")
WITHIN = 0.10  # issue #27: a noisy player's error rate within 10 % of gnubg's
CLEAN_TARGET = 3.0  # issue #27: mEMG a move, our 0-ply median for the noise-free players
CUBE_TARGET = 0.96  # issue #27: the same proper cube action

GNUBG_PLAY = r'''
gnubg.command("set display off")
gnubg.command("set confirm new off")
gnubg.command("set rng mersenne")
for spec in json.loads(os.environ["SPECS"]):
    for p in (0, 1):
        gnubg.command(f"set player {p} gnubg")  # at 2-ply unless told otherwise
        for what in ("chequerplay", "cubedecision"):
            gnubg.command(f"set player {p} {what} evaluation plies 0")
            gnubg.command(f"set player {p} {what} evaluation noise {spec['noise'][p]}")
    gnubg.command(f"set seed {spec['seed']}")
    gnubg.command(f"new match {spec['length']}")  # played to its end
    for p in (0, 1):  # a new match takes the default names: named for the export
        gnubg.command(f"set player {p} name {spec['names'][p]}")
    gnubg.command(f"export match mat {spec['path']}")
emit(True)
'''
"""gnubg plays each spec's match (``SPECS``, JSON: ``names``, ``noise`` per player, ``seed``,
``length``, ``path``) to its end, both players gnubg at 0-ply, and exports it as ``.mat``. gnubg's
player 0 is the ``.mat`` file's left column, our seat 0."""


@dataclass(frozen=True)
class Played:
    """A match gnubg played: which seat had noise, how much, and the match itself."""

    noisy_seat: int
    noise: float
    match: Match
    mat: str


def play(matches: int, seed: int) -> list[Played]:
    """``matches`` matches gnubg plays against itself (:data:`GNUBG_PLAY`), the ``k``-th of
    ``LENGTHS[k % 4]`` points, noise ``NOISES[k % 5]`` on seat ``k % 2``, seed ``seed + k``.

    Raises:
        tests.helpers.gnubg.GnubgError: gnubg is missing or failed.
        boardgammon.formats.MatFormatError: gnubg wrote a match our rules do not replay.
    """
    with tempfile.TemporaryDirectory(prefix="boardgammon-noisy-") as tmp:
        specs = []
        for k in range(matches):
            seat, noise = k % 2, NOISES[k % len(NOISES)]
            names = NAMES if seat == 0 else NAMES[::-1]
            specs.append({"names": names, "noise": [noise if p == seat else 0.0 for p in (0, 1)],
                          "seed": seed + k, "length": LENGTHS[k % len(LENGTHS)],
                          "path": str(Path(tmp) / f"m{k}.mat"), "seat": seat})
        run_script(GNUBG_PLAY, env={"SPECS": json.dumps(specs)}, timeout=60 * (matches + 1))
        out = []
        for spec in specs:
            text = Path(spec["path"]).read_text()
            out.append(Played(spec["seat"], max(spec["noise"]), read_mat(text), text))
        return out


def _median(xs: list[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


def report(matches: int = 25, seed: int = 1, plies: tuple[int, ...] = (0, 2),
           weights: Path | None = None) -> dict:
    """Play, analyse both ways and print (module docstring); returns the figures by depth.
    ``weights``: a network file to analyse with (default: the shipped network)."""
    evaluator = NetworkEvaluator(Network.load(weights)) if weights else NetworkEvaluator()
    t = time.perf_counter()
    played = play(matches, seed)
    print(f"gnubg played {matches} matches in {time.perf_counter() - t:.0f} s")
    results: dict = {}
    for depth in plies:
        noisy: list[tuple[float, float]] = []  # (ours, gnubg) error rates
        clean: list[tuple[float, float]] = []
        for k, p in enumerate(played):
            ours = analyse_match(p.match, evaluator, plies=depth)
            theirs, _ = gnubg_analysis(p.match, depth)
            c = compare(ours, theirs)
            parts = []
            for seat, r in c["players"].items():
                pair = (r["ours"] or 0.0, r["gnubg"])
                (noisy if seat == p.noisy_seat else clean).append(pair)
                who = f"noise {p.noise:.2f}" if seat == p.noisy_seat else "noise-free"
                parts.append(f"{who}: ours {pair[0]:5.1f} gnubg {pair[1]:5.1f} "
                             f"({r['ours_unforced']}/{r['gnubg_unforced']} moves)")
            print(f"{depth}-ply match {k + 1} ({p.match.length} pt): " + "; ".join(parts),
                  flush=True)
        within = [g > 0 and abs(o - g) <= WITHIN * g for o, g in noisy]
        ratio = _median([o / g for o, g in noisy if g > 0])
        clean_ours = _median([o for o, _ in clean])
        clean_gnubg = _median([g for _, g in clean])
        print(f"{depth}-ply: noisy players within {WITHIN:.0%} of gnubg's error rate: "
              f"{sum(within)} of {len(within)} ({sum(within) / len(within):.0%}; target ≥ 80 %), "
              f"median ours/gnubg {ratio:.2f}; noise-free players' median error rate: ours "
              f"{clean_ours:.2f}, gnubg {clean_gnubg:.2f} mEMG a move"
              + (f" (target ours ≤ {CLEAN_TARGET:g} at 0-ply)" if depth == 0 else ""))
        results[depth] = {"within": sum(within), "noisy": len(within), "median_ratio": ratio,
                          "clean_ours": clean_ours, "clean_gnubg": clean_gnubg}
    cube = cube_agreement([p.match for p in played], evaluator)
    print(f"cube: the same proper action as gnubg 0-ply at {cube['same0']} of {cube['points']} "
          f"turns where the player on roll could double ({cube['same0'] / cube['points']:.1%}; "
          f"target ≥ {CUBE_TARGET:.0%}); as gnubg 2-ply {cube['same2'] / cube['points']:.1%}; "
          f"gnubg 0-ply as gnubg 2-ply {cube['gnubg02'] / cube['points']:.1%}; the doubler's "
          f"action alone as gnubg 0-ply {cube['double0'] / cube['points']:.1%}"
          f" ({cube['unmatched']} turns unmatched)")
    results["cube"] = cube
    return results


def cube_agreement(matches: list[Match], evaluator: NetworkEvaluator | None = None) -> dict:
    """How often our 0-ply analysis gives the same proper cube action (:func:`verdicts`: double
    or not, take or drop) as gnubg's analysis at 0-ply and at 2-ply, and gnubg's two depths
    each other, and the doubler's action alone (``double0``) as gnubg 0-ply's, at every turn of
    ``matches`` where the player on roll could double; gnubg's
    values are MWC, its drop from its own MET (:func:`.cube_vs_gnubg.points_of`)."""
    counts = {"points": 0, "same0": 0, "same2": 0, "gnubg02": 0, "double0": 0, "unmatched": 0}
    for match, theirs in zip(matches, gnubg_cube(matches), strict=True):
        points, unmatched = points_of(match, theirs, evaluator)
        counts["unmatched"] += unmatched
        for p in points:
            ours = verdicts(*p.ours)
            g0, g2 = verdicts(p.nd0, p.dt0, p.dp), verdicts(p.nd2, p.dt2, p.dp)
            counts["points"] += 1
            counts["same0"] += ours == g0
            counts["same2"] += ours == g2
            counts["gnubg02"] += g0 == g2
            counts["double0"] += ours[0] == g0[0]
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("matches", nargs="?", type=int, default=25,
                        help="matches gnubg plays against itself (default 25)")
    parser.add_argument("--seed", type=int, default=1, help="gnubg's dice seed of the first match")
    parser.add_argument("--plies", default="0,2",
                        help="analysis depths, comma-separated (default 0,2)")
    parser.add_argument("--weights", type=Path, default=None,
                        help="a network file to analyse with (default: the shipped network)")
    args = parser.parse_args()
    if args.matches < 1:
        parser.error("MATCHES is at least 1")
    if args.weights is not None and not args.weights.is_file():
        parser.error(f"--weights: no file {args.weights}")
    try:
        plies = tuple(int(x) for x in args.plies.split(","))
    except ValueError:
        parser.error(f"--plies takes depths such as 0,2, got {args.plies!r}")
    if any(p not in (0, 1, 2) for p in plies):
        parser.error(f"--plies: each depth is 0, 1 or 2, got {args.plies!r}")
    report(args.matches, args.seed, plies, args.weights)


if __name__ == "__main__":
    main()
