"""The doubling cube: the match equity table (:mod:`~boardgammon.cube.met`), cube efficiency
(:mod:`~boardgammon.cube.efficiency`), cubeful equities and decisions from a model's outcome
probabilities (:mod:`~boardgammon.cube.cubeful`), and the heuristic decisions from a winning
chance alone (:mod:`~boardgammon.cube.heuristic`).

Below the bots and the analysis, which both decide or judge cube actions with it; it depends on
the engine only.
"""

from .context import Context, CubeOwner, context_for

__all__ = ["Context", "CubeOwner", "context_for"]
