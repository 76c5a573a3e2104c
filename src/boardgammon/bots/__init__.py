"""Computer opponents: the Bot interface and its levels (each module registers its level)."""

from . import easy  # noqa: F401  (registers the "easy" level)
from .base import Bot, Context, CubeOwner, RankedPlay, create, levels, register

__all__ = ["Bot", "Context", "CubeOwner", "RankedPlay", "create", "levels", "register"]
