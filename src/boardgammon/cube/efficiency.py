"""Janowski's cube efficiency of a position, as gnubg sets it.

The efficiency ``x`` weighs the live-cube line against the dead-cube one in the cubeful models
(:mod:`boardgammon.cube.cubeful`): ``x · live + (1 − x) · dead``. gnubg's values (``eval.c``,
``EvalEfficiency``; ``show cubeefficiency``): 0.68 in contact positions (Janowski's typical
value), 0.6 once both sides are in their home boards, ``0.55 + 0.00125 · pips`` of the side on
roll, within 0.6–0.7, in other races.
"""

from __future__ import annotations

import numpy as np

from boardgammon.engine.constants import HOME_POINTS
from boardgammon.engine.rules import is_contact, pip_counts

X_CONTACT = 0.68
X_BEAROFF = 0.60
RACE_EFFICIENCY = (0.55, 0.00125, 0.60, 0.70)
"""gnubg's race cube efficiency: ``0.55 + 0.00125 · pips``, kept within 0.60–0.70."""


def cube_efficiency(boards: np.ndarray, variant: str = "standard") -> np.ndarray:
    """Janowski's cube efficiency ``x`` of positions ``boards`` (``int8[..., 2, 25]``, the
    side on roll in row 0) as gnubg sets it (``eval.c``, ``EvalEfficiency``; ``show
    cubeefficiency``): :data:`X_CONTACT` with contact, :data:`X_BEAROFF` once both sides have
    every checker in their home boards (gnubg's bear-off classes) and in every Hypergammon
    position, else ``0.55 + 0.00125 ·`` the on-roll side's pip count, within 0.60–0.70.
    Returns ``float64[...]``."""
    boards = np.asarray(boards)
    if variant == "hypergammon":
        return np.full(boards.shape[:-2], X_BEAROFF)
    base, per_pip, low, high = RACE_EFFICIENCY
    pips = pip_counts(boards)[..., 0]
    race = np.clip(base + per_pip * pips, low, high)
    home = (boards[..., :, HOME_POINTS:] == 0).all(axis=(-2, -1))
    return np.where(is_contact(boards), X_CONTACT, np.where(home, X_BEAROFF, race))
