"""The move list and last play of the match screen (server.move_list, state.last_play) agree
with the match's ``.mat`` export, and the final score is right for every ending."""

from __future__ import annotations

import re

import pytest

from boardgammon.engine import Match, Play
from boardgammon.formats import write_mat
from boardgammon.server.match_state import games_json, last_play
from boardgammon.server.move_list import move_list
from tests.helpers.endings import ENDINGS, ended
from tests.helpers.random_match import play_random_match


def _as_mat(entry) -> str:
    """A move-list entry written as the ``.mat`` export writes a column."""
    if entry is None:
        return ""
    if entry["kind"] in ("play", "roll"):
        play = f"{entry['play']} " if entry["play"] else ""  # the move list's own text
        return f"{entry['dice'][0]}{entry['dice'][1]}: {play}"
    if entry["kind"] == "double":
        return f" Doubles => {entry['value']}"
    return " " + entry["kind"].capitalize() + "s"


def _mat_lines(text: str) -> list[list[str]]:
    """Each game's numbered lines of a ``.mat`` text, a ``Wins`` at the end taken off."""
    games: list[list[str]] = []
    for line in text.splitlines():
        if re.match(r"^ Game \d+$", line):
            games.append([])
        elif re.match(r"^\s*\d+\)", line):
            games[-1].append(re.sub(r"\s*Wins \d+ points?$", "", line))
    return games


@pytest.mark.parametrize("seed", range(16))
def test_move_list_equals_the_mat_export_line_for_line(seed):
    m = play_random_match(seed, length=(1, 3, 5, 7)[seed % 4], p_resign=0.03, p_double=0.15)
    games = move_list(m)
    ours = [
        [
            f"{n:3d}) {_as_mat(left):<28}{_as_mat(right)}".rstrip()
            for n, (left, right) in enumerate(g["lines"], start=1)
        ]
        for g in games
    ]
    assert ours == _mat_lines(write_mat(m))
    assert [g["result"] for g in games] == [
        {"game_number": i + 1, "winner": r.winner, "points": r.points, "how": r.how}
        for i, r in enumerate(m.results)
    ]
    for g in games:
        for entry in (e for line in g["lines"] for e in line if e and e["kind"] == "play"):
            # standard notation of the same steps
            assert (
                Play.parse(entry["play"]) == Play([tuple(s) for s in entry["moves"]])
                if entry["play"]
                else entry["moves"] == []
            )


def test_the_opening_tie_the_rolls_and_a_resignation_are_told():
    m = Match(3, players=("Ann", "Bob"))
    m.roll_opening(4, 4)
    m.roll_opening(3, 5)
    m.play(1, "24/21 13/8")
    assert last_play(m) == {
        "seat": 1,
        "dice": [5, 3],
        "play": "24/21 13/8",
        "moves": [[24, 21, 0], [13, 8, 0]],
    }
    m.roll(0, 6, 4)
    m.play(0, "24/18 8/4*")
    assert last_play(m) == {
        "seat": 0,
        "dice": [6, 4],
        "play": "24/18 8/4*",
        "moves": [[24, 18, 0], [8, 4, 1]],
    }
    m.resign(1, 1)
    m.accept(0)
    (game,) = move_list(m)
    assert game["opening"] == [[4, 4], [3, 5]]
    left, right = game["lines"][0]
    assert left is None and right is not None
    assert (right["dice"], right["play"], right["roll"]) == ([5, 3], "24/21 13/8", 1)
    assert game["lines"][1][0]["play"] == "24/18 8/4*"
    assert game["lines"][1][0]["roll"] == 2
    assert game["resignations"] == [
        {"seat": 1, "action": "offer", "points": 1},
        {"seat": 0, "action": "accept", "points": 1},
    ]
    assert game["result"] == {"game_number": 1, "winner": 0, "points": 1, "how": "resign"}
    assert last_play(m) is None  # the next game has no play yet
    # the board after a play, both seats' points as state.board.points (off, 1..24, bar)
    after = game["lines"][1][0]["board"]
    assert after[1][25] == 1 and after[0][4] == 1 and after[0][18] == 1


def _won_by(m: Match, winner: int, points: int) -> None:
    m.roll_opening(*((6, 1) if winner == 0 else (1, 6)))
    m.play(winner, "13/7 8/7")
    m.resign(1 - winner, points)
    m.accept(winner)


@pytest.mark.parametrize(
    ("length", "points", "final"),
    [
        (1, 1, (1, 0)),
        (1, 2, (1, 0)),
        (1, 3, (1, 0)),
        (3, 2, (2, 0)),
        (3, 3, (3, 0)),
        (5, 3, (3, 0)),
    ],
)
def test_final_score_caps_gammons_and_backgammons_at_the_length(length, points, final):
    m = Match(length)
    _won_by(m, 0, points)
    assert m.final_score == final
    assert m.score == (points, 0)  # the points won are kept as gnubg's record keeps them


def test_final_score_after_a_flag_gives_the_winner_the_match():
    m = Match(5, time_control="blitz", start=0.0)
    m.roll_opening(6, 1, now=1.0)
    m.play(0, "13/7 8/7", now=2.0)
    m.roll(1, 2, 1, now=3.0)  # seat 1 has acted, so its flag loses the match
    m.claim_flag(10_000.0)
    assert (m.winner, m.score, m.final_score) == (0, (0, 0), (5, 0))


@pytest.mark.parametrize(("how", "length", "score", "final"), ENDINGS)
def test_final_score_of_every_ending(how, length, score, final):
    m = ended(how, length, score)
    assert m.winner == 0 and m.final_score == final
    assert games_json(m)[-1]["how"] == how
