"""``boardgammon eval``: chances, equities and the cube decision, on positions whose values are
exact (bear-offs from the one-sided database, Janowski's formula for the cube)."""

from __future__ import annotations

import json
import random

import pytest
from typer.testing import CliRunner

from boardgammon.analysis.analysis import Stakes
from boardgammon.bots import bearoff
from boardgammon.cli import app
from boardgammon.commands.evaluate import cube_action
from boardgammon.cube import Context, met
from boardgammon.engine import Board
from boardgammon.engine.ids import MatchIdFields, encode_match_id

runner = CliRunner()
LAST_ROLL = Board.from_points({6: 1}, {1: 1})  # the opponent is off next turn


def _eval(*args: str) -> dict:
    result = runner.invoke(app, ["eval", *args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_last_roll_is_exact():
    # 27 of 36 rolls bear a checker off from the 6-point (every roll but 2-1, 3-1, 4-1, 3-2
    # and 1-1): 75 %, cubeless +0.5. The cube is dead: no double 0.75 − 0.25 = +0.500,
    # double/take twice that, +1.000 (the cube model's efficiency gave +0.700 and +0.850).
    out = _eval(LAST_ROLL.position_id)
    assert out["outputs"] == pytest.approx([0.75, 0, 0, 0, 0], abs=1e-6)
    assert out["cubeless"] == pytest.approx(0.5, abs=1e-6)
    assert out["cube"] == pytest.approx([0.500, 1.000, 1.0], abs=1e-6)
    assert out["cubeful"] == pytest.approx(1.000, abs=1e-6)
    assert out["action"] == "Double, take"
    assert out["exact_cube"] is True
    text = runner.invoke(app, ["eval", LAST_ROLL.position_id]).stdout
    assert "  on roll       75.0%     0.0%     0.0%" in text
    assert "Cubeful values exact: the bear-off solved over every roll" in text
    assert "  No double     +0.500  (-0.500)" in text
    assert "Proper cube action: Double, take" in text


def test_last_roll_in_a_match_is_exact():
    # 5-point match, 0-0: the game is a single at the cube, valued on the match equity table.
    match_id = encode_match_id(MatchIdFields(length=5))
    out = _eval(LAST_ROLL.position_id, "--match-id", match_id)
    win, lose = met.match_equity(4, 5), met.match_equity(5, 4)
    assert out["mwc"] == pytest.approx(0.75 * met.match_equity(3, 5)
                                       + 0.25 * met.match_equity(5, 3), abs=1e-9)
    assert out["exact_cube"] is True
    assert out["action"] == "Double, take"
    assert out["cube"][0] == pytest.approx(
        Stakes(Context(length=5)).equity(0.75 * win + 0.25 * lose), abs=1e-9)


def test_bear_off_races_match_the_one_sided_database():
    rng = random.Random(3)
    for _ in range(8):
        sides = []
        for _side in range(2):
            counts = [0] * 6
            for _checker in range(rng.randint(1, 14)):
                counts[rng.randrange(6)] += 1
            sides.append(counts)
        board = Board.from_points({p + 1: n for p, n in enumerate(sides[0]) if n},
                                  {p + 1: n for p, n in enumerate(sides[1]) if n})
        out = _eval(board.position_id)
        p = bearoff.win_probability(*sides)
        assert out["outputs"][0] == pytest.approx(p, abs=1e-6)
        assert out["cubeless"] == pytest.approx(2 * p - 1, abs=1e-5)


def test_match_score_and_crawford():
    crawford = encode_match_id(MatchIdFields(length=5, score=(4, 2), crawford=True))
    out = _eval(Board.initial().position_id, "--match-id", crawford)
    assert out["cube"] is None and out["action"] == "no cube decision: the Crawford game"
    assert 0 < out["mwc"] < 1
    owned = encode_match_id(MatchIdFields(length=7, score=(1, 3), cube=2, cube_owner=1))
    out = _eval(Board.initial().position_id, "--match-id", owned)
    assert out["action"] == "no cube decision: the cube is the opponent's"


@pytest.mark.parametrize(("values", "action"), [
    ((0.1, -0.2, 1.0), "No double, take"),
    ((0.8, 0.9, 1.0), "Double, take"),
    ((0.8, 1.2, 1.0), "Double, pass"),
    ((1.2, 1.6, 1.0), "Too good to double, pass"),
])
def test_cube_action(values, action):
    assert cube_action(*values) == action


@pytest.mark.parametrize(("args", "message"), [
    (["4HPwATDgc/AB"], "error: "),
    (["4HPwATDgc/ABMA", "--ply", "3"], "error: --ply is 0, 1 or 2, not 3"),
    (["4HPwATDgc/ABMA", "--match-id", "nonsense"], "error: "),
    # 7-0 in a 5-point match: over (it crashed in the cube's match equity)
    (["4HPwATDgc/ABMA", "--match-id", "MAGgAHAAAAAE"],
     "error: the Match ID MAGgAHAAAAAE has the score 7-0 in a 5-point match: the match is over"),
])
def test_bad_input_exits_2_with_a_message(args, message):
    result = runner.invoke(app, ["eval", *args])
    assert result.exit_code == 2 and result.stdout == ""
    assert message in result.stderr


def test_a_match_id_with_dice_rolled_evaluates_the_plays_of_that_roll():
    rolled = encode_match_id(MatchIdFields(dice=(3, 1)))
    out = _eval(Board.initial().position_id, "--match-id", rolled)
    assert out["dice"] == [3, 1] and out["unit"] == "equity"
    plays = [p["play"] for p in out["plays"]]
    assert plays[0] == "8/5 6/5"
    assert sorted(plays) == sorted(str(p) for p in Board.initial().legal_plays(3, 1))
    values = [p["value"] for p in out["plays"]]
    assert values == sorted(values, reverse=True)
    shown = runner.invoke(app, ["eval", Board.initial().position_id, "--match-id", rolled])
    assert shown.exit_code == 0, shown.output
    assert shown.stdout.startswith("The Match ID has the roll 3-1 to play: its plays, not the "
                                   "position before the\nroll (give a Match ID without dice for "
                                   "that).\n")
    assert " 1. 8/5 6/5 " in shown.stdout


def test_a_match_id_with_a_double_offered_evaluates_take_and_pass():
    # Two checkers on the 6-point against two on the 5-point, solved exactly (gnubg's
    # two-sided database agrees): double/take +0.647 for the doubler, so the player doubled
    # takes at −0.647 rather than pass at −1.
    board = Board.from_points({6: 2}, {5: 2})
    doubled = encode_match_id(MatchIdFields(doubled=True, turn=1))
    out = _eval(board.position_id, "--match-id", doubled)
    assert out["answer"]["action"] == "take"
    assert out["answer"]["take"] == pytest.approx(-0.6469891530762587, abs=1e-9)
    assert out["answer"]["pass"] == -1.0
    shown = runner.invoke(app, ["eval", board.position_id, "--match-id", doubled]).stdout
    assert shown.endswith("A double is offered (the Match ID): for the player doubled, take "
                          "-0.647, pass -1.000 (per cube); proper answer: take\n")
    pending = encode_match_id(MatchIdFields(resigned=1, turn=1))
    refused = runner.invoke(app, ["eval", board.position_id, "--match-id", pending])
    assert refused.exit_code == 2
    assert (f"error: the Match ID {pending} has a resignation waiting for its answer: eval "
            f"values positions before the roll, a roll's plays or a double; give the Match ID "
            f"of the position before the offer") in refused.stderr


def test_every_line_fits_an_80_column_terminal():
    # Issue 26 review: the heading of an evaluation in a match (93 characters) and the line of
    # a Match ID with dice (129) wrapped on an 80-column terminal, as the hint's header did.
    five = encode_match_id(MatchIdFields(length=5))
    rolled = encode_match_id(MatchIdFields(dice=(3, 1)))
    for args in ([], ["--match-id", five], ["--match-id", rolled]):
        shown = runner.invoke(app, ["eval", Board.initial().position_id, *args])
        assert shown.exit_code == 0, shown.output
        assert max(len(line) for line in shown.stdout.splitlines()) <= 80, shown.stdout
    assert runner.invoke(app, ["eval", Board.initial().position_id, "--match-id", five]
                         ).stdout.startswith("Evaluation by the network at 0-ply,\n  5-point "
                                             "match, score 0-0 (player on roll first), cube 1:\n")
