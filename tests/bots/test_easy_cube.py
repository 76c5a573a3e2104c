"""Cube and resignation decisions: the heuristic's figures and legality in every match state."""

from __future__ import annotations

import random

import pytest

from boardgammon.bots import Context, CubeOwner, create
from boardgammon.cube.heuristic import (
    keith_counts,
    race_estimate,
    race_win_probability,
    should_accept_resignation,
    should_double,
    should_take,
    take_point,
)
from boardgammon.cube.met import match_equity
from boardgammon.engine import Board

from .test_easy import random_positions


def test_kleinman_examples():
    # Øystein Johansen's worked examples of the Kleinman count (rec.games.backgammon, 2001),
    # which use fitted curves for K > 1 and K < 1; the normal form is within half a percent.
    assert float(race_win_probability(100, 113)) == pytest.approx(0.797, abs=0.005)
    assert float(race_win_probability(100, 106)) == pytest.approx(0.688, abs=0.005)
    # Equal counts: being on roll is worth 4 pips.
    assert float(race_win_probability(80, 80)) > 0.5


def test_keith_adjustments():
    # Pips 1*3 + 2*2 + 3*4 = 19; +2*2 (1-point) +1 (2-point) +1 (3-point) +3 (4, 5, 6 empty).
    assert keith_counts(Board.from_points({1: 3, 2: 2, 3: 4}, {6: 2}).array).tolist() == [
        [28, 14]]


def test_race_estimate_uses_the_side_on_roll():
    board = Board.from_points({6: 5, 5: 5, 4: 5}, {6: 5, 5: 5, 4: 5})
    assert race_estimate(board.array) > 0.5


def test_take_points():
    assert take_point(Context()) == 0.25
    assert take_point(Context(), race=True) == 0.22
    # 2-away 2-away: a drop leaves us 2-away against 1-away (Crawford); a take is for the match.
    assert take_point(Context(length=5, my_score=3, opponent_score=3)) == pytest.approx(
        match_equity(2, 1))
    # 4-away 2-away at cube 1: drop to 4-away 1-away (Crawford next); take and win 2-away
    # 2-away, take and lose: the match.
    tp = take_point(Context(length=7, my_score=3, opponent_score=5))
    assert tp == pytest.approx(match_equity(4, 1) / match_equity(2, 2))
    # The doubler wins the match with any win anyway (we need 3, they need 1 post-Crawford):
    # taking costs nothing.
    assert take_point(Context(length=5, my_score=2, opponent_score=4)) == 0.0


def test_double_rules_at_special_scores():
    hopeless, strong = 0.05, 0.75
    assert not should_double(strong, Context(length=5, my_score=4, crawford=True))
    assert not should_double(strong, Context(length=1))
    assert not should_double(strong, Context(cube_owner=CubeOwner.OPPONENT, cube_value=2))
    assert not should_double(strong, Context(cube_value=64, cube_owner=CubeOwner.ME))
    # Post-Crawford the trailer doubles at once, whatever the position; the leader never
    # (its cube is dead: one point wins the match).
    assert should_double(hopeless, Context(length=5, my_score=2, opponent_score=4))
    assert not should_double(strong, Context(length=5, my_score=4, opponent_score=2))
    # Money: double from 65 %, not at 55 %; too good with many gammons.
    assert should_double(0.70, Context())
    assert not should_double(0.55, Context())
    assert not should_double(0.90, Context(), gammon=0.5)
    assert should_double(0.90, Context(), gammon=0.0)


def test_take_decisions():
    assert should_take(0.30, Context())
    assert not should_take(0.20, Context())
    assert should_take(0.23, Context(), race=True)


def test_accept_resignation_weighs_gammons():
    # Winning 95 % with no gammons: a single is what the game is worth; accept it.
    assert should_accept_resignation(0.95, 0.0, Context(), 1)
    # Winning 95 % with half the wins gammons: a single is too little, a gammon is enough.
    assert not should_accept_resignation(0.95, 0.5, Context(), 1)
    assert should_accept_resignation(0.95, 0.5, Context(), 2)
    # Needing one point to win the match, any resignation wins it.
    assert should_accept_resignation(0.3, 0.0, Context(length=5, my_score=4, opponent_score=3,
                                                       crawford=True), 1)


ALL_STATES = [
    Context(),
    Context(cube_value=2, cube_owner=CubeOwner.ME),
    Context(cube_value=4, cube_owner=CubeOwner.OPPONENT),
    Context(length=1),
    Context(length=5),
    Context(length=5, my_score=4, opponent_score=1, crawford=True),
    Context(length=5, my_score=1, opponent_score=4, crawford=True),
    Context(length=5, my_score=4, opponent_score=2),                   # post-Crawford leader
    Context(length=5, my_score=2, opponent_score=4),                   # post-Crawford trailer
    Context(length=5, my_score=4, opponent_score=4),                   # DMP
    Context(length=7, my_score=3, opponent_score=5, cube_value=2, cube_owner=CubeOwner.ME),
    Context(length=7, my_score=5, opponent_score=3, cube_value=2,
            cube_owner=CubeOwner.OPPONENT),
    Context(length=3, my_score=0, opponent_score=0, cube_value=64, cube_owner=CubeOwner.ME),
]


@pytest.mark.parametrize("context", ALL_STATES, ids=lambda c: repr(c)[8:60])
def test_bot_cube_decisions_are_legal_in_every_match_state(context):
    bot = create("easy", seed=1)
    boards = random_positions(17, 50)
    for board in boards:
        doubles = bot.double(board, context)
        assert isinstance(doubles, bool)
        if not context.cube_available_to_me:
            assert not doubles
        if context.length and context.length - context.my_score <= context.cube_value:
            assert not doubles        # dead cube
        assert isinstance(bot.take(board, context), bool)
        for points in (1, 2, 3):
            assert isinstance(bot.accept_resignation(board, context, points), bool)
        assert bot.resign(board, context) in (None, 1, 2, 3)


def test_race_cube_follows_kleinman():
    bot = create("easy")
    # 5, 5, 5 on our 6-, 5- and 4-points (75 pips, no Keith wastage) against 10 and 5 on
    # their 6- and 5-points (85 pips, +1 for the empty 4-point): K = 15^2 / 157 = 1.43, about
    # 80 %: a double, and a drop in money play.
    ahead = Board.from_points({6: 5, 5: 5, 4: 5}, {6: 10, 5: 5})
    assert 0.79 < race_estimate(ahead.array) < 0.81
    assert bot.double(ahead, Context())
    equal = Board.from_points({6: 5, 5: 5, 4: 5}, {6: 5, 5: 5, 4: 5})
    assert not bot.double(equal, Context())
    assert bot.take(equal, Context())


def test_resigns_only_hopeless_races_and_for_the_right_amount():
    bot = create("easy")
    # Their last checker is on their 1-point: they win next roll. We have borne off: single.
    single = Board.from_points({6: 4, 5: 3}, {1: 1})
    assert bot.resign(single, Context()) == 1
    # No checker off and all still on our 13-point: a certain gammon.
    gammon = Board.from_points({13: 15}, {1: 2})
    assert bot.resign(gammon, Context()) == 2
    # In a 5-point match where they need 1 point, a gammon costs no more than a single.
    assert bot.resign(gammon, Context(length=5, my_score=0, opponent_score=4,
                                      crawford=True)) == 1
    # Not hopeless, or not a race: play on.
    assert bot.resign(Board.from_points({6: 2}, {6: 2}), Context()) is None
    assert bot.resign(Board.initial(), Context()) is None


def test_accepts_resignations_worth_at_least_playing_on():
    bot = create("easy")
    # The resigner's view: they have two checkers left on their 6-point and have borne off;
    # we (row 1) have one checker on our 1-point and are far ahead.
    board = Board.from_points({6: 2}, {1: 1})
    assert bot.accept_resignation(board, Context(), 1)
    # Early in a game any resignation is worth more than playing on.
    assert bot.accept_resignation(Board.initial(), Context(), 1)
    # All 15 of theirs on their 13-point, we bear off next roll: a gammon, not a single.
    gammon = Board.from_points({13: 15}, {1: 2})
    assert not bot.accept_resignation(gammon, Context(), 1)
    assert bot.accept_resignation(gammon, Context(), 2)


def test_decisions_do_not_depend_on_the_seed():
    boards = random_positions(5, 60)
    rng = random.Random(1)
    contexts = [rng.choice(ALL_STATES) for _ in boards]
    a, b = create("easy", seed=1), create("easy", seed=2)
    for board, context in zip(boards, contexts, strict=True):
        assert a.double(board, context) == b.double(board, context)
        assert a.take(board, context) == b.take(board, context)


def test_jacoby_rule_makes_gammons_count_single_while_the_cube_is_centred():
    # Too good to double without Jacoby; with it gammons do not count, so double (and cash).
    assert not should_double(0.90, Context(), gammon=0.5)
    assert should_double(0.90, Context(jacoby=True), gammon=0.5)
    # A single resignation is all a centred-cube game is worth under Jacoby.
    assert should_accept_resignation(0.95, 0.5, Context(jacoby=True), 1)
    assert not should_accept_resignation(0.95, 0.5, Context(jacoby=True, cube_value=2,
                                                            cube_owner=CubeOwner.ME), 1)


# Positions where the uncalibrated easy bot doubled in money self-play on its second or third
# move, with the doubler's cubeless winning chance by gnubg 0-ply: none is near a double, and
# the bot's opponent dropped the last one.
EARLY_DOUBLES = {"xGfwATDgc+EBMA": 0.56, "xGfwATDgc/AFIA": 0.59, "4OvBATDI5+ABMA": 0.54,
                 "xPPgATDgc8oBMA": 0.56, "4Dn4gDDg8+ABKA": 0.55}


@pytest.mark.parametrize("pid", sorted(EARLY_DOUBLES))
def test_no_double_and_a_take_in_early_near_even_positions(pid):
    from boardgammon.bots.easy import on_roll_probability

    board = Board.from_position_id(pid)
    bot = create("easy", seed=1)
    assert on_roll_probability(board) == pytest.approx(EARLY_DOUBLES[pid], abs=0.08)
    for context in (Context(), Context(length=3)):
        assert not bot.double(board, context)
        assert bot.take(board, context)


def test_opening_position_is_near_even_for_the_cube():
    from boardgammon.bots.easy import on_roll_probability

    assert 0.5 <= on_roll_probability(Board.initial("standard")) <= 0.55
