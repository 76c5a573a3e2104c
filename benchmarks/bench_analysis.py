"""Match analysis speed: one 7-point match (easy bot against medium bot, fixed dice) analysed
at 0-ply and at 2-ply, beside gnubg analysing the same match at the same depth in the same run.

Targets (issue 9): under 5 s at 0-ply and under a minute at 2-ply on this machine. gnubg's time
includes its start-up and ``import mat`` (about a second), ours the analysis alone after a
warm-up (weights loaded, numba kernels compiled).
"""

from __future__ import annotations

import time

from benchmarks.analysis_vs_gnubg import bot_match, gnubg_analysis
from boardgammon.analysis.analysis import analyse_match
from boardgammon.bots.neural import NetworkEvaluator
from tests.helpers.gnubg import gnubg_path

SEED = 7
TARGETS = {0: 5.0, 2: 60.0}


def main() -> None:
    match = bot_match(SEED)
    evaluator = NetworkEvaluator()
    analyse_match(bot_match(SEED + 100, length=1), evaluator, 2)  # warm-up: compile, load
    decisions = sum(1 for a in match.record if a.kind == "play")
    print(f"7-point match, score {match.score[0]}-{match.score[1]}, {decisions} plays")
    for plies in (0, 2):
        t = time.perf_counter()
        analyse_match(match, evaluator, plies)
        ours = time.perf_counter() - t
        line = (f"{plies}-ply: ours {ours:6.2f} s (target < {TARGETS[plies]:.0f} s: "
                f"{'met' if ours < TARGETS[plies] else 'NOT met'})")
        if gnubg_path():
            _, theirs = gnubg_analysis(match, plies)
            line += f", gnubg {theirs:6.2f} s, ours/gnubg {ours / theirs:.2f}"
        else:
            line += ", gnubg not installed: no reference"
        print(line, flush=True)


if __name__ == "__main__":
    main()
