"""Benchmarks: each ``bench_*.py`` prints a figure beside a reference measured in the same run."""
