"""Money cube decisions under the Jacoby rule against gnubg's: given gnubg 0-ply's cubeless
probabilities, our Janowski no double and double/take are gnubg 0-ply's own, Jacoby on and off.

With Jacoby on and the cube centred, a game played out scores no gammons but a game where the
cube is turned does: gnubg keeps the take and cash points of the position's gammons and counts
the played-out game (the dead cube, the ends of the live line) as single. Before 2026-12-02
ours took the gammonless take and cash points too, and its no double in the third position
below was 0.735 where gnubg's is 0.842: no double too low in gammonish positions, so that ours
doubled where gnubg holds (the review's finding).
"""

from __future__ import annotations

import numpy as np
import pytest

from boardgammon.cube import Context, cubeful
from boardgammon.engine import Board
from tests.helpers.gnubg import cube_analyses, run_commands

pytestmark = pytest.mark.gnubg

POSITIONS = [
    Board.from_points({6: 3, 5: 3, 4: 3, 3: 2, 2: 2, 8: 2}, {25: 2, 13: 5, 12: 3, 11: 2, 6: 3}),
    Board.from_points({6: 3, 5: 3, 4: 3, 3: 2, 8: 2, 14: 2}, {25: 1, 13: 5, 12: 3, 10: 3, 6: 3}),
    Board.from_points({6: 4, 5: 3, 4: 2, 8: 3, 13: 3}, {25: 1, 24: 2, 11: 5, 8: 3, 6: 4}),
    Board.initial(),
    Board.from_points({6: 5, 8: 3, 13: 5, 24: 2}, {6: 4, 8: 3, 13: 5, 24: 2, 25: 1}),
]


@pytest.mark.parametrize("jacoby", [True, False])
def test_money_cube_values_on_gnubg_probabilities_are_gnubgs(jacoby):
    commands = [f"set jacoby {'on' if jacoby else 'off'}",
                "set evaluation cubedecision evaluation plies 0",
                "set evaluation chequerplay evaluation plies 0", "new game"]
    for board in POSITIONS:
        commands += [f"set board {board.position_id}", "eval"]
    theirs = cube_analyses(run_commands(commands))
    assert len(theirs) == len(POSITIONS)
    for board, (probs, (nd, dt, dp)) in zip(POSITIONS, theirs, strict=True):
        x = float(cubeful.cube_efficiency(board.array, "standard"))
        ours = cubeful.cube_values(np.array(probs), Context(jacoby=jacoby), x)
        # gnubg prints three places of probabilities and equities.
        assert ours == pytest.approx((nd, dt, dp), abs=4e-3), board.position_id
    if jacoby:  # the third position, worked by hand: p 0.753, W 1.615, L 1.053, cash point
        # 0.648 < p, so the live line is at the cash, 1.0: 0.68·1.0 + 0.32·(2p − 1) = 0.842.
        probs, _ = theirs[2]
        ours = cubeful.cube_values(np.array(probs), Context(jacoby=True), 0.68)
        assert ours[0] == pytest.approx(0.68 + 0.32 * (2 * probs[0] - 1), abs=1e-9)
        assert ours[0] == pytest.approx(0.842, abs=2e-3)
