"""One game's state machine: opening roll, turns, cube, resignations, scoring, refusals."""

from __future__ import annotations

import pickle

import pytest

from boardgammon.engine import (
    Board,
    CubeUnavailable,
    Game,
    IllegalAction,
    IllegalPlay,
    InvalidDice,
    InvalidNotation,
    MatchOver,
    NotYourTurn,
    Outcome,
    Phase,
    WrongPhase,
)


def started(d0: int = 3, d1: int = 1, **kw) -> Game:
    g = Game(**kw)
    g.roll_opening(d0, d1)
    return g


def test_opening_tie_changes_nothing_then_higher_die_moves_with_both_dice():
    g = Game()
    before = pickle.dumps(g)
    g.roll_opening(4, 4)
    assert pickle.dumps(g) == before
    g.roll_opening(2, 5)
    assert (g.on_roll, g.dice, g.phase) == (1, (5, 2), Phase.PLAY)
    assert g.turn == 1 and g.board == Board.initial()


def test_turn_passes_and_board_turns_round():
    g = started()
    g.play(0, "8/5 6/5")
    assert (g.on_roll, g.phase, g.dice) == (1, Phase.ROLL, None)
    assert g.board_for(0).position_id == Board.initial().play("8/5 6/5", (3, 1)).position_id
    assert g.board == g.board_for(1) == g.board_for(0).swapped()


def test_dance_is_a_real_play_with_no_moves():
    # seat 0 on the bar against a closed board
    board = Board.from_points({25: 1, 8: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 24: 3})
    g = Game.from_position(board, 0)
    g.roll(0, 6, 6)
    assert [str(p) for p in g.legal_plays()] == [""]
    assert g.play(0, "").is_dance
    assert g.on_roll == 1 and g.board == board.swapped()


@pytest.mark.parametrize(("theirs", "outcome", "points"), [
    ({19: 14}, Outcome.SINGLE, 1),     # one checker off: single, even with 14 in winner's home
    ({12: 15}, Outcome.GAMMON, 2),     # loser bore off none, nothing in winner's home
    ({12: 14, 20: 1}, Outcome.BACKGAMMON, 3),  # a checker in the winner's home board
    ({12: 14, 25: 1}, Outcome.BACKGAMMON, 3),  # a checker on the bar
])
def test_scoring_when_the_last_checker_is_borne_off(theirs, outcome, points):
    board = Board.from_points({1: 1}, theirs)
    g = Game.from_position(board, 0, cube=2, cube_owner=1)
    g.roll(0, 2, 1)
    g.play(0, "1/off")
    r = g.result
    assert (r.winner, r.outcome, r.points, r.how) == (0, outcome, points * 2, outcome.name.lower())
    assert g.phase is Phase.GAME_OVER and g.turn is None


def test_double_take_redouble_and_drop():
    g = started()
    g.play(0, "8/5 6/5")
    assert g.can_double(1) and not g.can_double(0)
    g.double(1)
    assert (g.phase, g.turn) == (Phase.DOUBLE_OFFERED, 0)
    g.take(0)
    assert (g.cube, g.cube_owner, g.phase, g.turn) == (2, 0, Phase.ROLL, 1)
    assert not g.can_double(1)  # the taker owns the cube now
    g.roll(1, 6, 5)
    g.play(1, "24/13")
    g.double(0)
    g.drop(1)
    r = g.result
    assert (r.winner, r.points, r.outcome, r.how) == (0, 2, Outcome.SINGLE, "drop")


def test_cube_never_goes_past_64():
    g = Game.from_position(Board.initial(), 0, cube=32, cube_owner=0)
    g.double(0)
    g.take(1)
    assert g.cube == 64
    g.roll(0, 3, 1)
    g.play(0, "8/5 6/5")
    with pytest.raises(CubeUnavailable, match="64"):
        g.double(1)


@pytest.mark.parametrize(("kw", "why"), [({"crawford": True}, "Crawford"),
                                         ({"cube_enabled": False}, "1-point")])
def test_no_doubling_in_the_crawford_game_or_a_one_point_match(kw, why):
    g = started(**kw)
    g.play(0, "8/5 6/5")
    with pytest.raises(CubeUnavailable, match=why):
        g.double(1)


@pytest.mark.parametrize("phase_setup", ["roll", "play", "double"])
def test_resignation_declined_returns_to_the_same_point(phase_setup):
    g = started()
    g.play(0, "8/5 6/5")
    if phase_setup == "play":
        g.roll(1, 6, 4)
    elif phase_setup == "double":
        g.double(1)
    before = (g.phase, g.dice, g.turn)
    g.resign(0, Outcome.GAMMON)
    assert (g.phase, g.turn, g.resignation.outcome) == (Phase.RESIGN_OFFERED, 1, Outcome.GAMMON)
    g.decline(1)
    assert (g.phase, g.dice, g.turn, g.resignation) == (*before, None)


def test_resignation_accepted_scores_value_times_cube():
    g = Game.from_position(Board.initial(), 1, cube=4, cube_owner=1)
    g.resign(0, 3)
    g.accept(1)
    assert (g.result.winner, g.result.points, g.result.how) == (1, 12, "resign")


def test_jacoby_counts_gammons_only_after_the_cube_is_turned():
    g = Game.from_position(Board.from_points({1: 1}, {12: 15}), 0)
    g.jacoby = True
    g.roll(0, 2, 1)
    g.play(0, "1/off")
    assert (g.result.outcome, g.result.points) == (Outcome.SINGLE, 1)


def _over() -> Game:
    g = started()
    g.resign(1, 1)
    g.accept(0)
    return g


def _doubled() -> Game:
    g = started()
    g.play(0, "8/5 6/5")
    g.double(1)
    return g


def _rolled() -> Game:
    g = started()
    g.play(0, "8/5 6/5")
    g.roll(1, 6, 4)
    return g


def _resigned() -> Game:
    g = started()
    g.resign(0, 1)
    return g


def _owned_by_1() -> Game:
    g = Game.from_position(Board.initial(), 0, cube=2, cube_owner=1)
    return g


REFUSALS = [
    ("not your turn to play", started, lambda g: g.play(1, "24/21 24/23"), NotYourTurn),
    ("play before the opening roll", Game, lambda g: g.play(0, "8/5 6/5"), WrongPhase),
    ("roll before the opening roll", Game, lambda g: g.roll(0, 3, 1), WrongPhase),
    ("opening roll twice", started, lambda g: g.roll_opening(5, 2), WrongPhase),
    ("double after rolling", _rolled, lambda g: g.double(1), WrongPhase),
    ("double on the opponent's turn", _rolled, lambda g: g.double(0), WrongPhase),
    ("double with the opponent's cube", _owned_by_1, lambda g: g.double(0), CubeUnavailable),
    ("roll while a double is pending", _doubled, lambda g: g.roll(1, 3, 1), WrongPhase),
    ("the doubler takes", _doubled, lambda g: g.take(1), NotYourTurn),
    ("take with no double pending", _rolled, lambda g: g.take(0), WrongPhase),
    ("drop with no double pending", started, lambda g: g.drop(1), WrongPhase),
    ("play with the wrong dice", _rolled, lambda g: g.play(1, "8/5 6/5"), IllegalPlay),
    ("incomplete play", _rolled, lambda g: g.play(1, "24/18"), IllegalPlay),
    ("bad notation", _rolled, lambda g: g.play(1, "24-18"), InvalidNotation),
    ("a die of 7", _doubled, lambda g: g.roll(1, 7, 1), InvalidDice),
    ("a die of 0 at the opening", Game, lambda g: g.roll_opening(0, 3), InvalidDice),
    ("a seat 2", _rolled, lambda g: g.play(2, "24/18 13/9"), IllegalAction),
    ("resign before the game starts", Game, lambda g: g.resign(0, 1), WrongPhase),
    ("resign for 4", started, lambda g: g.resign(0, 4), IllegalAction),
    ("second resignation", _resigned, lambda g: g.resign(1, 1), WrongPhase),
    ("play while a resignation is pending", _resigned, lambda g: g.play(0, "8/5 6/5"),
     WrongPhase),
    ("the resigner accepts", _resigned, lambda g: g.accept(0), NotYourTurn),
    ("accept with nothing offered", started, lambda g: g.accept(1), WrongPhase),
    ("play after the game", _over, lambda g: g.play(0, "8/5 6/5"), MatchOver),
    ("double after the game", _over, lambda g: g.double(1), MatchOver),
    ("resign after the game", _over, lambda g: g.resign(1, 1), MatchOver),
]


@pytest.mark.parametrize(("name", "make", "act", "error"), REFUSALS,
                         ids=[r[0] for r in REFUSALS])
def test_refused_actions_raise_and_change_nothing(name, make, act, error):
    g = make()
    before = pickle.dumps(g)
    with pytest.raises(error) as info:
        act(g)
    assert str(info.value)  # every refusal says why
    assert pickle.dumps(g) == before


def test_from_position_refuses_impossible_cubes():
    with pytest.raises(IllegalAction):
        Game.from_position(Board.initial(), 0, cube=2)
    with pytest.raises(IllegalAction):
        Game.from_position(Board.initial(), 0, cube=3, cube_owner=0)
