"""Beavers in money play: take and redouble keeping the cube; the doubler takes or drops."""

from __future__ import annotations

import pickle

import pytest

from boardgammon.engine import (
    Board,
    CubeUnavailable,
    Game,
    InvalidRecord,
    Match,
    NotYourTurn,
    Outcome,
    Phase,
    WrongPhase,
)


def doubled(**kw) -> Game:
    """Seat 1 has doubled (cube 1 → 2) after seat 0's opening 3-1."""
    g = Game(beavers=True, **kw)
    g.roll_opening(3, 1)
    g.play(0, "8/5 6/5")
    g.double(1)
    return g


def test_beaver_turns_the_cube_for_the_beaverer_and_the_doubler_answers():
    g = doubled()
    assert g.can_beaver(0) and not g.can_beaver(1)
    g.beaver(0)
    # Taken at 2 and owned by the beaverer; 4 offered back to the doubler, who is still on roll.
    assert (g.phase, g.cube, g.cube_owner, g.turn, g.on_roll) == (
        Phase.DOUBLE_OFFERED, 2, 0, 1, 1)
    g.take(1)
    assert (g.phase, g.cube, g.cube_owner, g.turn, g.beavered) == (Phase.ROLL, 4, 0, 1, False)
    assert not g.can_double(1)  # the beaverer keeps the cube
    g.roll(1, 6, 5)
    g.play(1, "24/13")
    assert g.can_double(0)


def test_dropping_a_beaver_loses_the_value_the_beaver_accepted():
    g = doubled()
    g.beaver(0)
    g.drop(1)
    r = g.result
    assert (r.winner, r.points, r.outcome, r.how, r.cube) == (0, 2, Outcome.SINGLE, "drop", 2)


def test_a_beavered_game_scores_gammons_at_four_times():
    g = Game.from_position(Board.initial(), 1, beavers=True)
    g.double(1)
    g.beaver(0)
    g.take(1)
    g.resign(1, 2)
    g.accept(0)
    assert (g.result.winner, g.result.points) == (0, 8)


def test_jacoby_counts_the_gammon_once_beavered():
    g = doubled(jacoby=True)
    g.beaver(0)
    g.take(1)
    g.resign(1, Outcome.GAMMON)
    g.accept(0)
    assert g.result.points == 8


REFUSALS = [
    ("beavers off", lambda: (g := Game(), g.roll_opening(3, 1), g.play(0, "8/5 6/5"),
                             g.double(1))[0], lambda g: g.beaver(0), CubeUnavailable, "not played"),
    ("the doubler beavers", doubled, lambda g: g.beaver(1), NotYourTurn, "seat 0's turn"),
    ("a raccoon", lambda: (g := doubled(), g.beaver(0))[0], lambda g: g.beaver(1),
     CubeUnavailable, "raccoons"),
    ("beaver with no double", lambda: Game(beavers=True), lambda g: g.beaver(0), WrongPhase,
     "opening"),
    ("beaver past 64", lambda: (g := Game.from_position(Board.initial(), 0, cube=32,
                                                        cube_owner=0, beavers=True),
                                g.double(0))[0], lambda g: g.beaver(1), CubeUnavailable, "64"),
    ("the beaverer takes its own beaver", lambda: (g := doubled(), g.beaver(0))[0],
     lambda g: g.take(0), NotYourTurn, "seat 1's turn"),
]


@pytest.mark.parametrize(("name", "make", "act", "error", "says"), REFUSALS,
                         ids=[r[0] for r in REFUSALS])
def test_refused_beavers_raise_and_change_nothing(name, make, act, error, says):
    g = make()
    before = pickle.dumps(g)
    with pytest.raises(error, match=says):
        act(g)
    assert pickle.dumps(g) == before


def test_beavers_are_money_play_only():
    with pytest.raises(ValueError, match="money play"):
        Match(5, beavers=True)


def test_the_record_keeps_the_beaver_and_replays_it():
    m = Match(0, beavers=True)
    m.roll_opening(3, 1)
    m.play(0, "8/5 6/5")
    m.double(1)
    m.beaver(0)
    m.take(1)
    data = m.to_dict()
    assert data["beavers"] is True
    assert [a for a in data["actions"] if a["kind"] in ("double", "beaver", "take")] == [
        {"kind": "double", "game": 0, "seat": 1, "value": 2},
        {"kind": "beaver", "game": 0, "seat": 0, "value": 4},
        {"kind": "take", "game": 0, "seat": 1}]
    again = Match.from_dict(data)
    assert (again.game.cube, again.game.cube_owner) == (4, 0)
    data["actions"][3]["value"] = 8
    with pytest.raises(InvalidRecord, match="beaver names a cube of 8"):
        Match.from_dict(data)
    del data["beavers"]
    data["actions"][3]["value"] = 4
    with pytest.raises(InvalidRecord, match="not played"):
        Match.from_dict(data)
