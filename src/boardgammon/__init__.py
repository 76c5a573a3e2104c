"""Boardgammon: international backgammon with exact rules, provably fair dice, bots and analysis."""

__version__ = "0.1.0"

from ._numba_cache import configure as _configure_numba_cache

_configure_numba_cache()
