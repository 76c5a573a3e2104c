"""What holds memory after the server's analysis worker has run (issue 21, finding 8): the
resident set (RSS) and, by tracemalloc, the Python allocations still alive after analysing
``N`` bot matches at 0-ply as the worker does, largest sources first, with the sizes of the
caches that analysis fills. Reported in ``docs/server.md`` §Memory.

Run: ``python -m benchmarks.mem_analysis [N]`` (default 8 matches of 7 points).
"""

from __future__ import annotations

import argparse
import gc
import resource
import tracemalloc

from benchmarks.analysis_vs_gnubg import bot_match
from boardgammon.analysis.analysis import analyse_match
from boardgammon.bots.neural import NetworkEvaluator
from boardgammon.cube import met


def rss_mb() -> float:
    """The resident set now (Linux ``/proc/self/statm``), in MB."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 1e6


def main(n: int = 8) -> None:
    matches = [bot_match(100 + i) for i in range(n)]
    evaluator = NetworkEvaluator()
    analyse_match(bot_match(99, length=1), evaluator, 0)  # warm-up: weights, numba kernels
    gc.collect()
    base = rss_mb()
    print(f"after warm-up: RSS {base:.0f} MB")
    tracemalloc.start(8)
    before = tracemalloc.take_snapshot()
    for i, match in enumerate(matches, 1):
        analyse_match(match, evaluator, 0)
        gc.collect()
        print(
            f"{i} matches analysed: RSS {rss_mb():.0f} MB (+{rss_mb() - base:.0f}), "
            f"traced {tracemalloc.get_traced_memory()[0] / 1e6:.1f} MB, "
            f"_cube_model cache {met._cube_model.cache_info().currsize} entries",
            flush=True,
        )
    after = tracemalloc.take_snapshot()
    print("largest sources of memory still allocated since the warm-up:")
    for stat in after.compare_to(before, "filename")[:8]:
        print(
            f"  {stat.size_diff / 1e6:8.2f} MB  {stat.count_diff:+7d} blocks  "
            f"{stat.traceback[0].filename}"
        )


def _count(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"N is a number of matches, 1 or more, not {text!r}")
    return int(text)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "n", nargs="?", type=_count, default=8, metavar="N", help="matches to analyse (default 8)"
    )
    main(parser.parse_args().n)
