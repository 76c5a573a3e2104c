"""Boardgammon: international backgammon with exact rules, provably fair dice, bots and analysis.

Importing the package does nothing else: numba's cache is set up by the first compiled module
(see :mod:`boardgammon._numba_cache`).
"""

__version__ = "0.1.0"
