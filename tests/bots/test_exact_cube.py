"""Exact cubeful values of short bear-offs (:mod:`boardgammon.bots.exact_cube`): positions worked
out by hand, and gnubg's two-sided bear-off database."""

from __future__ import annotations

import pytest

from boardgammon.bots import exact_cube
from boardgammon.cube import Context, CubeOwner, met
from boardgammon.engine import Board
from tests.helpers.gnubg import cube_equities, run_commands

# The side on roll bears its checker off the 6-point with 27 of 36 rolls (all but 2-1, 3-1,
# 4-1, 3-2 and 1-1); the opponent is off next turn for sure.
LAST_ROLL = Board.from_points({6: 1}, {1: 1})
P = 27 / 36


def test_last_roll_money():
    # No double: win 1 with P, else lose 1. Double/take: the same at cube 2 (the taker never
    # gets to redouble). Double/pass: 1. The cube is dead, so no cube efficiency enters.
    nd, dt, dp = exact_cube.cube_values(LAST_ROLL, Context())
    assert (nd, dt, dp) == pytest.approx((2 * P - 1, 2 * (2 * P - 1), 1.0), abs=1e-12)
    assert (nd, dt, dp) == pytest.approx((0.5, 1.0, 1.0), abs=1e-12)
    assert exact_cube.on_roll_value(LAST_ROLL, Context()) == pytest.approx(1.0)
    # The opponent owns the cube: no double to make, the game played out.
    owned = Context(cube_owner=CubeOwner.OPPONENT, cube_value=2)
    assert exact_cube.on_roll_value(LAST_ROLL, owned) == pytest.approx(0.5)


def test_both_on_the_six_point_money():
    # A miss (9/36) leaves the side on roll's checker low enough to be off next turn for sure,
    # so the opponent then has the last-roll position: it doubles (1.0 per cube) if it may.
    # Centred: ND = P − (1 − P)·1 = 0.5; after double/take the taker redoubles a miss and the
    # doubler's take is worth the same as its drop: DT = 2·(P − (1 − P)·1) = 1.0.
    # Cube owned by the side on roll: after a miss the opponent cannot double and plays on:
    # ND = P − (1 − P)·(P − (1 − P)) = 0.625.
    board = Board.from_points({6: 1}, {6: 1})
    assert exact_cube.cube_values(board, Context()) == pytest.approx((0.5, 1.0, 1.0))
    assert exact_cube.cube_values(board, Context(cube_owner=CubeOwner.ME))[0] == pytest.approx(
        P - (1 - P) * (2 * P - 1))
    # The values are per current cube: the same at a cube of 4 owned by the side on roll.
    assert exact_cube.cube_values(board, Context(cube_owner=CubeOwner.ME, cube_value=4)
                                  ) == pytest.approx((0.625, 1.0, 1.0))


def test_cube_at_its_highest_cannot_be_doubled():
    # At 32 a double to 64 is the last: the taker cannot redouble after a miss, so double/take
    # is worth twice the owned-cube value 0.625 (instead of 1.0 with the cube free); at 64 the
    # side on roll has no double to make, and its value is the game played out.
    board = Board.from_points({6: 1}, {6: 1})
    at_32 = exact_cube.cube_values(board, Context(cube_value=32))
    assert at_32 == pytest.approx((0.5, 2 * (P - (1 - P) * (2 * P - 1)), 1.0))
    at_64 = Context(cube_value=64, cube_owner=CubeOwner.ME)
    assert exact_cube.on_roll_value(board, at_64) == pytest.approx(P - (1 - P) * (2 * P - 1))


def test_last_roll_match():
    # 5-point match at 0-0 (5-away each), cube 1: the game ends as a single at the cube.
    context = Context(length=5)
    nd, dt, dp = exact_cube.cube_values(LAST_ROLL, context)
    assert nd == pytest.approx(P * met.match_equity(4, 5) + (1 - P) * met.match_equity(5, 4))
    assert dt == pytest.approx(P * met.match_equity(3, 5) + (1 - P) * met.match_equity(5, 3))
    assert dp == pytest.approx(met.match_equity(4, 5))
    # The Crawford game at 1-away (side on roll) against 3-away: no cube, the game played out.
    crawford = Context(length=5, my_score=4, opponent_score=2, crawford=True)
    assert exact_cube.on_roll_value(LAST_ROLL, crawford) == pytest.approx(
        P + (1 - P) * met.match_equity(1, 2, post_crawford=True))


def test_where_it_applies():
    assert exact_cube.applies(Board.from_points({6: 4}, {5: 2, 6: 2}))  # four checkers a side
    assert exact_cube.applies(Board.from_points({1: 6, 2: 6}, {1: 6, 2: 6}))
    assert not exact_cube.applies(Board.from_points({6: 5}, {6: 5}))  # too many boards
    assert not exact_cube.applies(Board.from_points({7: 1}, {1: 1}))  # a checker outside
    assert not exact_cube.applies(Board.from_points({6: 15}, {1: 1}))  # a gammon is possible
    assert exact_cube.cube_values(Board.from_points({7: 1}, {1: 1}), Context()) is None


SHORT_BEAR_OFFS = [({6: 1}, {6: 1}), ({6: 2}, {5: 2}), ({1: 2, 2: 2, 3: 2}, {1: 3, 2: 3}),
                   ({6: 3}, {6: 3}), ({4: 1, 5: 1}, {3: 1, 6: 1}), ({6: 2, 5: 2}, {6: 2, 5: 2}),
                   ({6: 4}, {6: 4}), ({2: 1, 5: 1}, {1: 1, 4: 1, 6: 1})]


@pytest.mark.gnubg
def test_money_values_agree_with_gnubg_two_sided_database():
    boards = [Board.from_points(mine, theirs) for mine, theirs in SHORT_BEAR_OFFS]
    commands = ["set jacoby off", "new game"]
    for board in boards:
        commands += [f"set board {board.position_id}", "eval"]
    theirs = cube_equities(run_commands(commands))
    assert len(theirs) == len(boards)
    for board, gnubg in zip(boards, theirs, strict=True):
        ours = exact_cube.cube_values(board, Context())
        assert ours == pytest.approx(gnubg, abs=6e-4), board.position_id  # gnubg prints 3 places


def test_the_analysis_judges_a_last_roll_double_exactly():
    from boardgammon.analysis.analysis import analyse_match
    from boardgammon.engine.match import Match, Setup

    m = Match(0, setup=Setup(position_id=LAST_ROLL.position_id))
    m.double(0)
    m.take(1)
    m.roll(0, 6, 5)
    m.play(0, "6/off")
    double, take = analyse_match(m, plies=0).cube
    assert (double.nd, double.dt, double.dp) == pytest.approx((0.5, 1.0, 1.0), abs=1e-9)
    assert double.loss == 0 and double.best == "double, take"
    assert take.action == "take" and take.loss == 0  # taking costs what passing does
