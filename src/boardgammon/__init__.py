"""Boardgammon: international backgammon with exact rules, provably fair dice, bots and analysis."""

__version__ = "0.1.0"
