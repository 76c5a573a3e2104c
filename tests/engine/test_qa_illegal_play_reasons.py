"""An illegal play's message says which rule it breaks, not only that it is not legal (the
issue: "refused with an IllegalPlay whose message says why")."""

from __future__ import annotations

import pytest

from boardgammon.engine import Board, IllegalPlay

START = Board.initial()
ON_BAR = Board.from_points({25: 1, 13: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 8: 1, 10: 4})
NOT_HOME = Board.from_points({7: 1, 6: 12, 1: 2}, {1: 15})


@pytest.mark.parametrize(("board", "play", "dice", "why"), [
    (START, "20/14 13/11", (6, 2), "no checker of yours on the 20-point"),
    (START, "8/5(4)", (3, 3), "it moves 4 checkers from the 8-point, where you have 3"),
    (ON_BAR, "13/7 13/11", (6, 2), "checkers on the bar must enter before any other move"),
    (START, "24/18 13/10", (6, 2), "13/10 moves 3 pips: 6-2 moves 6, 2 or 8"),
    (START, "24/18 6/5", (6, 2), "6/5 moves 1 pip: 6-2 moves 6, 2 or 8"),
    (START, "13/9(2)", (3, 3), "13/9 moves 4 pips: 3-3 moves 3, 6, 9 or 12"),
    (START, "24/18 13/11 8/6", (6, 2), "3 moves: 6-2 plays at most 2"),
    (START, "13/7 13/12", (6, 1), "the 12-point is held by the opponent"),
    (NOT_HOME, "6/off 6/4", (6, 2), "bearing off needs all your checkers in the home board"),
])
def test_illegal_play_message_names_the_broken_rule(board, play, dice, why):
    with pytest.raises(IllegalPlay, match=why):
        board.validate(play, dice)


def test_plays_that_only_combine_badly_keep_the_general_message():
    # Each move on its own is possible; two sixes are not a play of 6-2.
    with pytest.raises(IllegalPlay, match=r"^24/18\(2\) is not a legal play of 6-2 in this"):
        START.validate("24/18 24/18", (6, 2))


ONE_ON_EIGHT = Board.from_points({8: 1, 6: 5, 13: 5, 24: 2}, {6: 5, 8: 3, 13: 5, 24: 2})
# The opponent holds the 19-point (their 6-point); the 20-point is open.
BLOCKED_19 = Board.from_points({25: 1, 13: 5, 6: 5, 8: 3, 24: 1},
                               {6: 2, 8: 3, 13: 5, 23: 2, 2: 3})


@pytest.mark.parametrize(("board", "play", "dice", "message"), [
    # Issue 26: these said "no checker of yours on the 8-point" and "no blot to hit".
    (ONE_ON_EIGHT, "8/5(2)", (3, 1),
     "8/5(2) is not a legal play of 3-1: it moves 2 checkers from the 8-point, where you "
     "have 1"),
    (START, "bar/22*", (3, 1),
     "bar/22* is not a legal play of 3-1: there is no checker of yours on the bar to move"),
    # Issue 26: this was accepted and rewritten as bar/14.
    (BLOCKED_19, "bar/19 19/14", (6, 5),
     "bar/19 19/14 is not a legal play of 6-5: the 19-point is held by the opponent "
     "(2 checkers); play it by the open points: bar/20/14"),
])
def test_refusal_messages_word_for_word(board, play, dice, message):
    with pytest.raises(IllegalPlay) as refused:
        board.validate(play, dice)
    assert str(refused.value) == message


def test_the_same_journey_through_open_points_is_accepted():
    assert str(BLOCKED_19.validate("bar/20 20/14", (6, 5))) == "bar/14"
    assert str(BLOCKED_19.validate("bar/14", (6, 5))) == "bar/14"
