"""Cube decisions against gnubg's on the same match (``benchmarks.cube_vs_gnubg`` in small).

* The turns where ours sees a cube decision are exactly those gnubg analyses (the dead-cube
  rule, the Crawford game, cube ownership), in the same positions.
* gnubg's MET is ours: the MWC our tables give equal the ones gnubg reports.
* Given gnubg 2-ply's own cubeless probabilities, our cube model (the one the bots and the
  analysis decide by) reaches gnubg 2-ply's doubling and take verdicts in nearly every turn.
* Money play: given gnubg 0-ply's probabilities, our model gives gnubg 0-ply's cubeful
  equities exactly in contact positions; so does match play after the Crawford game.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from benchmarks.analysis_vs_gnubg import bot_match
from benchmarks.cube_vs_gnubg import (
    PLAYERS,
    efficiency,
    gnubg_cube,
    gnubg_mwc,
    judge,
    points_of,
)
from boardgammon.bots import Context, create
from boardgammon.commands.selfplay import bot_act, opening
from boardgammon.cube import met
from boardgammon.cube.cubeful import cube_values
from boardgammon.engine import Match

pytestmark = pytest.mark.gnubg


@pytest.fixture(scope="module")
def analysed():
    matches = [bot_match(11, length=5), bot_match(12, length=3, levels=("medium", "easy"))]
    return matches, gnubg_cube(matches)


def test_same_cube_decision_turns_as_gnubg(analysed):
    matches, theirs = analysed
    total = 0
    for m, g in zip(matches, theirs, strict=True):
        points, unmatched = points_of(m, g)
        assert unmatched == 0
        assert len(points) == len(g["ply0"]) > 10
        total += len(points)
    assert total > 40


def test_gnubgs_match_equity_table_is_ours(analysed):
    _, theirs = analysed
    table = theirs[0]["met"]
    n = len(table[0])
    for a in range(1, n + 1):
        for b in range(1, n + 1):
            for post in (False, True):
                if post and a != 1 and b != 1:
                    continue
                assert gnubg_mwc(table, a, b, post) == pytest.approx(
                    met.match_equity(a, b, post), abs=1e-6), (a, b, post)


def test_cube_model_on_gnubg_probabilities_agrees_with_gnubg(analysed):
    matches, theirs = analysed
    points = [p for m, g in zip(matches, theirs, strict=True) for p in points_of(m, g)[0]]
    ours = judge(points, PLAYERS["our cube model on gnubg 2-ply's probabilities"])
    gnubg0 = judge(points, PLAYERS["gnubg 0-ply"])
    assert len(ours["double"]) > 20
    wrong = ours["missed double"] + ours["wrong double"]
    assert wrong <= 0.1 * len(ours["double"])
    # Equity lost per doubling decision, gnubg 2-ply judging: within a few millipoints of
    # gnubg 0-ply's own (measured over 90 matches: 0.6 against 1.1).
    assert np.mean(ours["double"]) < np.mean(gnubg0["double"]) + 0.01


def test_money_session_cube_decisions_as_gnubg():
    """Money play (``--money``): the same turns, gnubg's equities per current cube, and our
    cube model on gnubg 2-ply's probabilities reaching gnubg 2-ply's doubling verdicts."""
    session = bot_match(249, length=0, levels=("medium", "easy"), games=4)
    assert sum(g.is_over for g in session.games) == 4
    (theirs,) = gnubg_cube([session])
    points, unmatched = points_of(session, theirs)
    # This session's third game reaches the cube at 64, where gnubg's money cube goes on
    # (the seed is chosen for it: another network plays other sessions).
    assert max(x["cube"] for x in theirs["ply0"]) == 64
    assert unmatched == 0 and len(points) == sum(x["cube"] < 64 for x in theirs["ply0"]) > 20
    assert {(p.dp, p.lose) for p in points} == {(1.0, -1.0)}
    # Our money cube model (Janowski, with gnubg's cube efficiencies) given gnubg 0-ply's
    # cubeless probabilities gives gnubg 0-ply's own cubeful equities for no double and
    # double/take, to float32 precision.
    assert sum(p.contact for p in points) > 50
    for p in points:
        nd, dt, dp = cube_values(p.probs0, p.context, efficiency(p))
        assert (nd, dt, dp) == pytest.approx((p.nd0, p.dt0, 1.0), abs=1e-4), p
    ours = judge(points, PLAYERS["our cube model on gnubg 2-ply's probabilities"])
    assert len(ours["double"]) > 5
    assert ours["missed double"] + ours["wrong double"] <= 0.15 * len(ours["double"])


def _holding_match(seed: int) -> Match:
    """A 3-point match of easy bots that never double once a side is 1 away, so that every
    turn of the trailer after the Crawford game is a cube decision (bots double at once)."""
    class Holds(type(create("easy", 0))):
        def double(self, board, context: Context) -> bool:
            if 1 in (context.length - context.my_score, context.length - context.opponent_score):
                return False
            return super().double(board, context)

    rng = random.Random(seed)
    bots, m = (Holds(seed), Holds(seed + 1)), Match(3)
    while not m.is_over:
        opening(m, lambda: (rng.randint(1, 6), rng.randint(1, 6)))
        if not m.is_over:
            bot_act(m, m.game.turn, bots[m.game.turn],
                    lambda: (rng.randint(1, 6), rng.randint(1, 6)))
    return m


def test_post_crawford_cube_as_gnubg():
    """After the Crawford game the trailer's cube is live: not doubling now keeps it for the
    next roll. A fresh user's match showed no double valued with the cube dead (a trailer who
    waited a roll at 2-away/1-away lost 0.68 EMG by our analysis, 0.22 by gnubg 0-ply's).
    Given gnubg 0-ply's cubeless probabilities, our no double and double/take now equal gnubg
    0-ply's own, in contact and in races (with gnubg's race cube efficiency by pip count:
    with 0.68 they were up to 0.05 EMG apart)."""
    matches = [_holding_match(seed) for seed in (3, 6, 8, 14)]
    assert all(len(m.results) == 3 for m in matches)  # 2-0, the Crawford game, post-Crawford
    theirs = gnubg_cube(matches)
    post = []
    for m, g in zip(matches, theirs, strict=True):
        points, unmatched = points_of(m, g)
        assert unmatched == 0
        post += [p for p in points if p.game == 2]
    assert len(post) > 30 and {(p.context.my_score, p.context.opponent_score)
                               for p in post} == {(1, 2)}  # only the trailer may double

    def emg(p, mwc: float) -> float:
        return 2 * (mwc - p.lose) / (p.dp - p.lose) - 1

    assert sum(p.contact for p in post) > 20 and sum(not p.contact for p in post) > 10
    for p in post:
        nd, dt, _ = cube_values(p.probs0, p.context, efficiency(p))
        assert emg(p, nd) == pytest.approx(emg(p, p.nd0), abs=1e-3), p
        assert emg(p, dt) == pytest.approx(emg(p, p.dt0), abs=1e-3), p
