"""Bridges to external programs (GNU Backgammon), used as references by tests and benchmarks."""
