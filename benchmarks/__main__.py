"""``python -m benchmarks [NAME ...]``: run every ``benchmarks/bench_*.py`` (or those named)."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    here = Path(__file__).parent
    names = sorted(m.name for m in pkgutil.iter_modules([str(here)]) if m.name.startswith("bench_"))
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description="Run the speed benchmarks, each beside its reference measured in the same "
                    "run (all of them without NAME: minutes). The reports against gnubg are "
                    "modules of their own: benchmarks.strength, benchmarks.analysis_noisy, "
                    "benchmarks.analysis_vs_gnubg, "
                    "benchmarks.cube_vs_gnubg (each with --help).",
        epilog="known: " + ", ".join(n.removeprefix("bench_") for n in names))
    parser.add_argument("name", nargs="*", metavar="NAME", help="benchmarks to run, e.g. movegen")
    argv = parser.parse_args(argv).name
    wanted = [n if n.startswith("bench_") else f"bench_{n}" for n in argv] or names
    unknown = sorted(set(wanted) - set(names))
    if unknown:
        print(f"unknown benchmark(s): {', '.join(unknown)}; known: {', '.join(names)}")
        return 2
    for name in wanted:
        print(f"== {name}", flush=True)
        importlib.import_module(f"benchmarks.{name}").main()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
