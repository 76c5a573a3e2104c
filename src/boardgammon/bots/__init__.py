"""Computer opponents: the Bot interface and its levels (each module registers its level)."""

from . import easy, neural  # noqa: F401  (register the "easy", "medium" and "hard" levels)
from .base import Bot, Context, CubeOwner, RankedPlay, create, levels, register

__all__ = ["Bot", "Context", "CubeOwner", "RankedPlay", "create", "levels", "register"]
