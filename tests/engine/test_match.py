"""Matches: score, Crawford, match end, money play, clocks and flags, the JSON record."""

from __future__ import annotations

import json
import pickle

import pytest

from boardgammon.engine import (
    ClockError,
    CubeUnavailable,
    IllegalAction,
    InvalidRecord,
    Match,
    MatchOver,
    NotYourTurn,
    TimeExpired,
)
from tests.helpers.random_match import play_random_match


def win_by_drop(m: Match, winner: int) -> None:
    """Play one game in which the loser wins the opening roll, then ``winner`` doubles and the
    loser drops."""
    loser = 1 - winner
    m.roll_opening(*((6, 1) if loser == 0 else (1, 6)))
    m.play(loser, "13/7 8/7")
    m.double(winner)
    m.drop(loser)


def resign_game(m: Match, loser: int) -> None:
    """Play one game that ``loser`` resigns (single) right after the opening roll."""
    m.roll_opening(6, 1)
    m.resign(loser, 1)
    m.accept(1 - loser)


def test_crawford_game_then_post_crawford():
    m = Match(5)
    for _ in range(4):
        win_by_drop(m, 1)
    assert m.score == (0, 4) and m.crawford and not m.post_crawford
    m.roll_opening(6, 1)
    m.play(0, "13/7 8/7")
    with pytest.raises(CubeUnavailable, match="Crawford"):
        m.double(1)
    m.resign(1, 1)
    m.accept(0)
    assert (m.score, m.crawford, m.post_crawford) == ((1, 4), False, True)
    win_by_drop(m, 0)  # doubling is back after the Crawford game
    assert m.score == (2, 4) and not m.crawford
    assert [g.crawford for g in m.games] == [False] * 4 + [True, False, False]


def test_crawford_game_won_by_the_leader_ends_the_match():
    m = Match(3)
    win_by_drop(m, 0)
    win_by_drop(m, 0)
    assert m.crawford
    resign_game(m, 1)
    assert m.is_over and m.winner == 0 and m.score == (3, 0)


def test_one_point_match_has_no_cube_and_points_are_not_capped():
    m = Match(1)
    m.roll_opening(6, 1)
    m.play(0, "13/7 8/7")
    with pytest.raises(CubeUnavailable, match="1-point"):
        m.double(1)
    m.resign(1, 3)
    m.accept(0)
    assert m.score == (3, 0) and m.winner == 0 and m.phase == "match_over"


def test_money_play_goes_on_and_keeps_the_cube():
    m = play_random_match(5, length=0, max_games=3)
    assert not m.is_over and len(m.results) == 3 and not any(g.crawford for g in m.games)
    assert sum(m.score) == sum(r.points for r in m.results)


def test_record_lists_every_action_and_the_json_replays_exactly():
    for seed in range(6):
        m = play_random_match(seed, length=(1, 3, 5, 7)[seed % 4],
                              variant=("standard", "nackgammon", "hypergammon")[seed % 3],
                              time_control="blitz" if seed % 2 else None, p_resign=0.03)
        text = m.to_json()
        back = Match.from_json(text)
        assert back.to_json() == text
        assert pickle.dumps(back) == pickle.dumps(m)


def test_json_that_does_not_replay_is_refused():
    m = Match(3)
    win_by_drop(m, 0)
    data = json.loads(m.to_json())
    with pytest.raises(InvalidRecord, match=r"^the replay ends at 1-0, no winner, the "
                                            r"record says 0-1, no winner$"):
        Match.from_dict({**data, "score": [0, 1]})
    bad = {**data, "actions": data["actions"][:1] + [{"kind": "double", "game": 0, "seat": 0}]}
    with pytest.raises(InvalidRecord, match=r"^action 1 \(double\): "):
        Match.from_dict(bad)
    with pytest.raises(InvalidRecord):
        Match.from_json("{not json")
    with pytest.raises(InvalidRecord, match="version"):
        Match.from_dict({**data, "version": 99})


def timed() -> Match:
    m = Match(1, time_control="bullet")  # 5 s delay, 30 s reserve
    m.roll_opening(6, 1, now=0.0)
    return m


def test_clock_runs_for_whoever_must_act():
    m = timed()
    assert m.clock.running == 0 and m.deadline() == 35.0
    m.play(0, "13/7 8/7", now=12.0)  # 7 s charged
    assert m.clock.reserve == (23.0, 30.0) and m.clock.running == 1
    m.roll(1, 3, 1, now=13.0)
    m.play(1, "8/5 6/5", now=20.0)  # roll and play are one turn, one window: 8 s, 3 charged
    assert m.clock.reserve == (23.0, 27.0)


def test_flag_loses_the_match_and_is_recorded():
    m = timed()
    with pytest.raises(IllegalAction, match="no flag"):
        m.claim_flag(35.0)
    before = pickle.dumps(m)
    with pytest.raises(TimeExpired):
        m.play(0, "13/7 8/7", now=35.5)
    assert pickle.dumps(m) == before
    assert m.claim_flag(35.5) == 0
    assert (m.winner, m.flagged, m.score, m.record[-1].kind) == (1, 0, (0, 0), "flag")
    assert Match.from_json(m.to_json()).winner == 1
    with pytest.raises(MatchOver, match="on time"):
        m.roll(1, 3, 1, now=40.0)


def test_forfeit_gives_the_match_to_the_opponent_and_replays():
    m = Match(5)
    win_by_drop(m, 1)
    m.roll_opening(4, 2)
    m.play(0, "8/4 6/4")
    m.double(1)  # a double on offer lapses with the forfeit
    m.forfeit(0)
    assert (m.winner, m.forfeited, m.flagged, m.score, m.final_score) == (1, 0, None, (0, 1),
                                                                          (0, 5))
    assert m.record[-1].to_dict() == {"kind": "forfeit", "game": 1, "seat": 0}
    again = Match.from_json(m.to_json())
    assert (again.winner, again.forfeited, again.final_score) == (1, 0, (0, 5))
    with pytest.raises(MatchOver, match="by forfeit"):
        m.forfeit(1)


def test_forfeit_stops_a_running_clock():
    m = timed()
    m.forfeit(1, now=10.0)
    assert (m.winner, m.clock.running, m.clock.reserve) == (0, None, (25.0, 30.0))
    assert Match.from_json(m.to_json()).clock.reserve == (25.0, 30.0)
    with pytest.raises(ClockError):
        timed().forfeit(0)


def _over() -> Match:
    m = Match(1)
    m.roll_opening(6, 1)
    m.resign(1, 1)
    m.accept(0)
    return m


MATCH_REFUSALS = [
    ("action after the match", _over, lambda m: m.roll_opening(3, 1), MatchOver),
    ("no time given with a clock", timed, lambda m: m.play(0, "13/7 8/7"), ClockError),
    ("time going backwards", timed, lambda m: m.play(0, "13/7 8/7", now=-1.0), ClockError),
    ("not your turn, clocked", timed, lambda m: m.play(1, "24/18", now=2.0), NotYourTurn),
]


@pytest.mark.parametrize(("name", "make", "act", "error"), MATCH_REFUSALS,
                         ids=[r[0] for r in MATCH_REFUSALS])
def test_refused_match_actions_change_nothing(name, make, act, error):
    m = make()
    before = pickle.dumps(m)
    with pytest.raises(error):
        act(m)
    assert pickle.dumps(m) == before


def test_bad_match_settings():
    for kwargs in ({"length": -1}, {"length": 0, "time_control": "blitz"},
                   {"length": 5, "jacoby": True}, {"time_control": "glacial"},
                   {"variant": "plakoto"}):
        with pytest.raises(ValueError):
            Match(**kwargs)


# A match set up from a position -----------------------------------------------------------------

# A race: the player on roll bears off its last two checkers (on the 1- and 2-points) with any
# roll; the other has one checker left, on its 6-point.
RACE = "IAAAFAAAAAAAAA"


def test_a_set_up_match_starts_at_its_position_score_and_cube_and_replays_exactly():
    from boardgammon.engine.ids import decode_match_id
    from boardgammon.engine.match import Setup
    from boardgammon.formats import write_mat
    from boardgammon.formats.mat import MatFormatError

    setup = Setup(position_id="4HPwATDgc/ABMA", on_roll=1, score=(2, 3), cube=2, cube_owner=0)
    m = Match(5, players=("ann", "bob"), setup=setup)
    assert (m.score, m.game.cube, m.game.cube_owner, m.game.on_roll) == ((2, 3), 2, 0, 1)
    assert m.game.board.position_id == "4HPwATDgc/ABMA"
    fields = decode_match_id(m.match_id_gnubg)
    assert (fields.score, fields.cube, fields.cube_owner, fields.on_roll, fields.length) == \
        ((2, 3), 2, 0, 1, 5)
    m.roll(1, 3, 1)
    m.play(1, "8/5 6/5")
    m.double(0)
    m.drop(1)
    # 4-3 to a 5-point match: the next game is the Crawford game, from the opening.
    assert m.score == (4, 3) and m.game.crawford and m.game.phase.value == "opening"
    text = m.to_json()
    assert json.loads(text)["setup"] == {"position_id": "4HPwATDgc/ABMA", "on_roll": 1,
                                         "score": [2, 3], "cube": 2, "cube_owner": 0,
                                         "crawford": False, "dice": None}
    again = Match.from_json(text)
    assert again.record == m.record and again.score == (4, 3) and again.to_json() == text
    with pytest.raises(MatFormatError, match="has no .mat form: gnubg's .mat starts every game "
                                             "from the opening position"):
        write_mat(m)


def test_a_set_up_position_with_dice_rolled_and_money_play():
    from boardgammon.engine.match import Setup

    m = Match(0, jacoby=True, setup=Setup(position_id=RACE, on_roll=1, dice=(6, 5)))
    assert m.game.phase.value == "play" and m.game.dice == (6, 5) and m.game.jacoby
    assert str(m.play(1, "2/off 1/off")) == "2/off 1/off"
    # Jacoby, cube centred: a single game.
    assert m.score == (0, 1) and m.results[0].points == 1
    assert Match.from_json(m.to_json()).score == (0, 1)


@pytest.mark.parametrize(("length", "setup", "message"), [
    (5, dict(score=(5, 0)), "a set-up score is below the match length (5) for both players, "
                            "got 5-0"),
    (5, dict(crawford=True), "the Crawford game needs a player at 4 in a 5-point match, the "
                             "score is 0-0"),
    (5, dict(score=(4, 0), crawford=True, cube=2, cube_owner=0), "a cube of 2 where there is "
                                                                 "no doubling"),
    (1, dict(cube=2, cube_owner=1), "a cube of 2 where there is no doubling"),
])
def test_impossible_set_ups_are_refused(length, setup, message):
    from boardgammon.engine.match import Setup

    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Match(length, setup=Setup(position_id="4HPwATDgc/ABMA", **setup))
    with pytest.raises(ValueError, match="a match set up from a position has no match clock"):
        Match(5, time_control="rapid", setup=Setup(position_id="4HPwATDgc/ABMA"))


def test_a_record_whose_setup_is_malformed_is_refused():
    from boardgammon.engine.match import Setup

    data = Match(3, setup=Setup(position_id=RACE, on_roll=1)).to_dict()
    for bad in ({**data["setup"], "cube": "2"}, {**data["setup"], "board": 1}, [1]):
        with pytest.raises(InvalidRecord, match="the record's setup is"):
            Match.from_dict({**data, "setup": bad})
    with pytest.raises(InvalidRecord, match="the record does not replay: .*Position ID"):
        Match.from_dict({**data, "setup": {**data["setup"], "position_id": "x"}})
