"""Computer opponents: the Bot interface and its levels (each module registers its level).

:class:`Context` and :class:`CubeOwner` (from :mod:`boardgammon.cube`) are exported here too:
every Bot method takes a context.
"""

from boardgammon.cube import Context, CubeOwner

from . import easy, neural  # noqa: F401  (register the "easy", "medium" and "hard" levels)
from .base import Bot, RankedPlay, create, levels, register

__all__ = ["Bot", "Context", "CubeOwner", "RankedPlay", "create", "levels", "register"]
