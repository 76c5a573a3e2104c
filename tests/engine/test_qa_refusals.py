"""Bad input found by QA: each is refused with the engine's own clear error, never a traceback
from deep inside, and a record that was tampered with does not replay silently."""

from __future__ import annotations

import json

import pytest

from boardgammon.engine import (
    Board,
    Game,
    InvalidDice,
    InvalidNotation,
    InvalidRecord,
    Match,
    TimeControl,
)


def _opened_match() -> Match:
    m = Match(3)
    m.roll_opening(3, 1)
    return m


@pytest.mark.parametrize("play", [None, 5, ["8/5 6/5"]])
def test_a_play_that_is_neither_text_nor_a_play_is_invalid_notation(play):
    g = Game()
    g.roll_opening(3, 1)
    with pytest.raises(InvalidNotation, match="a play is text"):
        g.play(0, play)
    assert (g.phase.value, g.dice, g.on_roll) == ("play", (3, 1), 0)


@pytest.mark.parametrize("players", [("Ann",), ("Ann", "Bob", "Cy"), "AB", None])
def test_players_are_two_names(players):
    with pytest.raises(ValueError, match="two player names"):
        Match(3, players=players)


@pytest.mark.parametrize("text", ["1" * 5000, "[" * 100_000])
def test_json_the_parser_cannot_read_is_an_invalid_record(text):
    with pytest.raises(InvalidRecord, match="not JSON"):
        Match.from_json(text)


def test_record_with_a_play_that_is_not_text_is_an_invalid_record():
    data = _opened_match().to_dict()
    data["actions"].append({"kind": "play", "game": 0, "seat": 0, "dice": [3, 1], "play": 5})
    with pytest.raises(InvalidRecord, match="a play is text"):
        Match.from_dict(data)


def test_record_whose_play_names_other_dice_than_the_roll_does_not_replay():
    m = _opened_match()
    m.play(0, "8/5 6/5")
    data = m.to_dict()
    data["actions"][-1]["dice"] = [6, 5]
    with pytest.raises(InvalidRecord, match="6-5.*3-1"):
        Match.from_dict(data)


def test_record_whose_double_names_another_cube_value_does_not_replay():
    m = _opened_match()
    m.play(0, "8/5 6/5")
    m.double(1)
    data = m.to_dict()
    assert data["actions"][-1]["value"] == 2
    data["actions"][-1]["value"] = 16
    with pytest.raises(InvalidRecord, match="16.*2"):
        Match.from_dict(data)


@pytest.mark.parametrize(("delay", "reserve"), [(float("nan"), 60.0), (5.0, float("inf")),
                                                ("5", 60.0), (5.0, None)])
def test_time_control_needs_finite_numbers(delay, reserve):
    with pytest.raises(ValueError, match="time control"):
        TimeControl("mine", delay, reserve)


def test_record_with_a_nan_time_control_does_not_replay():
    data = json.loads(Match(3, time_control="blitz").to_json())
    data["time_control"]["delay"] = float("nan")
    with pytest.raises(InvalidRecord, match="time control"):
        Match.from_dict(data)


def test_record_with_an_illegal_play_is_an_invalid_record():
    data = _opened_match().to_dict()
    data["actions"].append({"kind": "play", "game": 0, "seat": 0, "dice": [3, 1],
                            "play": "24/18"})
    with pytest.raises(InvalidRecord, match=r"^action \d+ \(play\): 24/18 is not a legal play"):
        Match.from_dict(data)


@pytest.mark.parametrize("dice", [(3,), (3, 1, 2), 5, None, "315"])
def test_validate_refuses_dice_that_are_not_a_pair(dice):
    board = Board.initial()
    with pytest.raises(InvalidDice, match="pair"):
        board.validate("8/5 6/5", dice)


@pytest.mark.parametrize("die", [0, 7, True, 2.0, "3"])
def test_legal_plays_refuse_a_die_that_is_not_1_to_6(die):
    with pytest.raises(InvalidDice, match="whole number from 1 to 6"):
        Board.initial().legal_plays(die, 3)


@pytest.mark.parametrize(("field", "value", "message"), [
    ("game", True, "'game' is True, not an integer"),
    ("seat", "0", "'seat' is '0', not an integer"),
    ("t", "soon", "'t' is 'soon', not a finite number"),
    ("t", float("inf"), "'t' is inf, not a finite number"),
    ("asked", float("-inf"), "'asked' is -inf, not a finite number"),
    ("dice", [3], r"dice are \[3\], not two integers"),
    ("dice", [3, True], "not two integers"),
])
def test_record_action_fields_of_the_wrong_type_are_named(field, value, message):
    data = _opened_match().to_dict()
    data["actions"][0][field] = value
    with pytest.raises(InvalidRecord, match=message):
        Match.from_dict(data)


@pytest.mark.parametrize("tc", [5, "blitz", [5, 60]])
def test_record_whose_time_control_is_not_an_object_is_refused(tc):
    data = json.loads(Match(3, time_control="blitz").to_json())
    data["time_control"] = tc
    with pytest.raises(InvalidRecord, match="time_control is .* not an object"):
        Match.from_dict(data)


from boardgammon.engine.plays import Play  # noqa: E402


@pytest.mark.parametrize("text", ["x" * 5_000, "8/5 " + "9" * 5_000 + "/5", "13/" + "1" * 5_000])
def test_a_long_token_is_named_in_a_short_message(text):
    with pytest.raises(InvalidNotation) as refused:
        Play.parse(text)
    message = str(refused.value)
    assert len(message) < 200 and "…" in message and "is not a move in standard notation" in message
