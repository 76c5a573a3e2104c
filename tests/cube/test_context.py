"""A decision's context follows the match, and offers the cube exactly when the game does."""

from __future__ import annotations

import pytest

from boardgammon.cube import Context, CubeOwner, context_for
from boardgammon.engine import Board, Game, Match
from boardgammon.engine.constants import MAX_CUBE

CUBE_STATES = [(1, None)] + [(1 << k, seat) for k in range(1, MAX_CUBE.bit_length())
                              for seat in (0, 1)]


@pytest.mark.parametrize("length", [0, 1, 5])
@pytest.mark.parametrize("crawford", [False, True])
@pytest.mark.parametrize(("cube", "owner"), CUBE_STATES)
def test_cube_available_to_me_is_the_games_rule(length, crawford, cube, owner):
    game = Game.from_position(Board.initial(), 0, cube=cube, cube_owner=owner,
                              cube_enabled=length != 1, crawford=crawford)
    mine = (CubeOwner.CENTRE if owner is None
            else CubeOwner.ME if owner == 0 else CubeOwner.OPPONENT)
    context = Context(length=length, crawford=crawford, cube_value=cube, cube_owner=mine)
    assert context.cube_available_to_me == game.can_double(0)


def test_context_for_reads_the_match_from_each_seat():
    match = Match(5)
    match.roll_opening(3, 1)
    match.play(0, "8/5 6/5")
    match.double(1)
    match.take(0)
    assert context_for(match, 0) == Context(length=5, cube_value=2, cube_owner=CubeOwner.ME)
    assert context_for(match, 1) == Context(length=5, cube_value=2,
                                            cube_owner=CubeOwner.OPPONENT)
