"""Hand-made rule cases: each test is named after the rule of backgammon it checks.

Positions are built with ``Board.from_points(mine, theirs)``, each side in its own numbering
(the opponent's point ``p`` is the mover's ``25 - p``); checkers not listed are borne off.
"""

from __future__ import annotations

import numpy as np
import pytest

from boardgammon.engine import Board, IllegalPlay, InvalidNotation, InvalidPosition, Play

ALL_ROLLS = [(d1, d2) for d1 in range(1, 7) for d2 in range(1, d1 + 1)]


def notations(board: Board, d1: int, d2: int) -> set[str]:
    return {str(p) for p in board.legal_plays(d1, d2)}


# Setups ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("variant", "position_id", "pips", "checkers"),
    [
        ("standard", "4HPwATDgc/ABMA", 167, 15),
        ("nackgammon", Board.from_points({24: 2, 23: 2, 13: 4, 8: 3, 6: 4},
                                         {24: 2, 23: 2, 13: 4, 8: 3, 6: 4}).position_id, 194, 15),
        ("hypergammon", Board.from_points({24: 1, 23: 1, 22: 1}, {24: 1, 23: 1, 22: 1},
                                          checkers=3).position_id, 69, 3),
    ],
)
def test_setup_of_each_variant(variant, position_id, pips, checkers):
    board = Board.initial(variant)
    assert board.position_id == position_id
    assert board.pip_counts() == (pips, pips)
    assert board.checkers == checkers
    assert board.borne_off(0) == board.borne_off(1) == 0


# Bearing off -------------------------------------------------------------------------------------


def test_bear_off_die_larger_than_highest_point_bears_off_from_it():
    board = Board.from_points({4: 1, 2: 1}, {6: 2})
    assert notations(board, 6, 5) == {"4/off 2/off"}
    assert board.play("4/off 2/off", (6, 5)).borne_off(0) == 15


def test_bear_off_larger_die_must_move_inside_when_a_checker_stands_higher():
    board = Board.from_points({5: 1, 3: 1}, {6: 2})
    # The 4 cannot bear off the checker on 3 while one stands on 5: it must play 5/1.
    assert notations(board, 4, 1) == {"5/off", "5/1 3/2"}
    with pytest.raises(IllegalPlay, match="not a legal play of 4-1"):
        board.validate("5/4 3/off", (4, 1))


def test_bear_off_only_with_every_checker_in_the_home_board():
    board = Board.from_points({7: 1, 6: 1}, {6: 2})
    # 6/off only after the checker on 7 is home: 7/6 6/off, the same position as 7/1/off.
    assert notations(board, 6, 1) == {"7/1 6/5", "7/off"}
    assert str(board.validate("6/off 7/6", (6, 1))) == "7/off"
    with pytest.raises(IllegalPlay, match="not a legal play of 6-1"):
        board.validate("6/off 6/5", (6, 1))


def test_bear_off_exact_die_bears_off_from_its_point():
    board = Board.from_points({6: 2, 1: 1}, {6: 2})
    assert notations(board, 6, 6) == {"6/off(2) 1/off"}


# One die, larger die --------------------------------------------------------------------------


def test_either_die_alone_playable_but_not_both_the_larger_must_be_played():
    # 13/7 then 7/2, or 13/8 then 8/2: the opponent holds the 2-point (their 23).
    board = Board.from_points({13: 1}, {23: 2})
    assert notations(board, 6, 5) == {"13/7"}
    with pytest.raises(IllegalPlay, match=r"must be the larger \(6\)"):
        board.validate("13/8", (6, 5))


def test_only_the_larger_die_playable_it_is_played():
    board = Board.from_points({13: 1}, {17: 2, 23: 2})  # the 8- and 2-points closed
    assert notations(board, 5, 6) == {"13/7"}


def test_only_the_smaller_die_playable_it_is_played():
    board = Board.from_points({13: 1}, {18: 2, 23: 2})  # the 7- and 2-points closed
    assert notations(board, 6, 5) == {"13/8"}
    with pytest.raises(IllegalPlay, match="not a legal play"):
        board.validate("13/7", (6, 5))


def test_one_die_bearing_off_with_either_die_counts_as_the_larger():
    # 5/off with the 5 or with the 6 reaches the same position; the play is legal either way.
    board = Board.from_points({5: 1}, {6: 2})
    assert notations(board, 5, 6) == {"5/off"}
    assert notations(board, 6, 5) == {"5/off"}


# Both dice, judged over the whole play -----------------------------------------------------------


def test_both_dice_must_be_played_when_a_sequence_allows_it():
    # Entering with the 6 (bar/19) leaves no 2 to play (19/17 and 13/11 are closed), but
    # entering with the 2 lets the 6 be played: the play must use both dice.
    board = Board.from_points({25: 1, 13: 14}, {14: 2, 8: 2})
    assert notations(board, 6, 2) == {"bar/23 13/7"}
    with pytest.raises(IllegalPlay, match="both dice can be played"):
        board.validate("bar/19", (6, 2))


def test_larger_die_blocked_first_is_played_second():
    board = Board.from_points({13: 1}, {17: 2})  # 13/8 closed, 13/11/6 open
    assert notations(board, 5, 2) == {"13/6"}


def test_incomplete_play_is_refused_with_both_dice_playable():
    with pytest.raises(IllegalPlay, match="incomplete: both dice can be played with 3-1"):
        Board.initial().validate("8/5", (3, 1))


def test_a_dance_with_a_legal_play_is_refused_saying_the_roll_can_be_played():
    message = "^you can play {}: a dance is only for a roll with no legal play$"
    with pytest.raises(IllegalPlay, match=message.format("3-1")):
        Board.initial().validate("", (3, 1))
    with pytest.raises(IllegalPlay, match=message.format("6-6")):
        Board.initial().validate("", (6, 6))
    # One die playable only: still no dance.
    board = Board.from_points({13: 1}, {17: 2, 11: 2, 6: 2})
    assert notations(board, 5, 2) != {""}
    with pytest.raises(IllegalPlay, match=message.format("5-2")):
        board.validate("", (5, 2))


# Doubles -----------------------------------------------------------------------------------------


def test_doubles_move_four_times():
    plays = Board.initial().legal_plays(4, 4)
    assert all(sum(abs(m.source - m.dest) for m in p.moves) == 16 for p in plays)
    assert "24/20(2) 13/9(2)" in {str(p) for p in plays}


def test_partial_doubles_only_two_moves_playable():
    board = Board.from_points({13: 1}, {24: 2})  # the 1-point closed
    assert notations(board, 4, 4) == {"13/5"}


def test_partial_doubles_only_three_moves_playable():
    board = Board.from_points({13: 1}, {24: 2})
    assert notations(board, 3, 3) == {"13/4"}
    with pytest.raises(IllegalPlay, match="incomplete: 3 moves of 3 can be played with 3-3"):
        board.validate("13/10", (3, 3))


def test_partial_doubles_entering_blocks_the_rest():
    # Two on the bar, 5-5: both enter on the 20-point, then 20/15 is closed.
    board = Board.from_points({25: 2, 6: 13}, {10: 2, 24: 2})  # the 15- and 1-points closed
    assert notations(board, 5, 5) == {"bar/20(2)"}


# The bar -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("roll", [r for r in ALL_ROLLS if 6 not in r])
def test_entering_against_a_five_point_board_dances_without_a_six(roll):
    board = Board.from_points({25: 1, 13: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 13: 5})
    plays = board.legal_plays(*roll)
    assert plays == [Play()]
    assert plays[0].is_dance and str(plays[0]) == "" and plays[0].after == board


def test_entering_against_a_five_point_board_with_a_six():
    board = Board.from_points({25: 1, 13: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 13: 5})
    assert notations(board, 6, 1) == {"bar/18"}  # 13/12 is closed too
    # The 12-point is closed, so the 6s go bar/19/13/7/1 and 13/7/1; bar/13 13/7(2) is the
    # same position as bar/7 13/7.
    assert notations(board, 6, 6) == {"bar/1", "bar/7 13/7", "bar/19 13/7(3)", "bar/19 13/1 13/7"}
    assert str(board.validate("bar/13 13/7(2)", (6, 6))) == "bar/7 13/7"


@pytest.mark.parametrize("roll", ALL_ROLLS)
def test_entering_against_a_closed_board_is_a_dance(roll):
    board = Board.from_points({25: 2, 13: 13}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3})
    assert board.legal_plays(*roll) == [Play()]
    assert board.legal_plays(*roll)[0].after == board
    with pytest.raises(IllegalPlay, match="no legal play \\(a dance\\)"):
        board.validate("bar/24", roll)
    assert board.validate("", roll).is_dance


def test_checker_on_the_bar_enters_before_any_other_moves():
    board = Board.from_points({25: 1, 13: 14}, {13: 2})
    plays = board.legal_plays(4, 2)
    assert all(p.moves and any(m.source == 25 for m in p.moves) for p in plays)
    with pytest.raises(IllegalPlay):
        board.validate("13/9 13/11", (4, 2))


def test_hitting_from_the_bar():
    board = Board.from_points({25: 1, 13: 14}, {3: 1, 6: 5, 8: 3, 13: 5, 24: 1})
    assert notations(board, 3, 1) == {"bar/22*/21", "bar/21", "bar/24 13/10"}
    play = board.validate("bar/22* 22/21", (3, 1))
    assert str(play) == "bar/22*/21"
    assert play.after.checkers_on(25, side=1) == 1
    # Landing on the blot hits it, marked or not; passing it by does not.
    assert board.validate("bar/22/21", (3, 1)) == play
    assert board.validate("bar/21", (3, 1)).after.checkers_on(25, side=1) == 0


# Hits and blocks ---------------------------------------------------------------------------------


def test_a_point_held_by_two_is_closed_and_a_blot_is_hit():
    board = Board.from_points({13: 2}, {18: 1, 17: 2})  # a blot on the 7, the 8 closed
    assert notations(board, 6, 5) == {"13/7*/2"}
    after = board.play("13/2", (6, 5))
    assert after.checkers_on(25, side=1) == 1 and after.checkers_on(7, side=1) == 0


def test_hit_on_a_point_passed_through_is_written():
    board = Board.from_points({13: 1}, {18: 1})  # a blot on the 7-point
    assert notations(board, 6, 2) == {"13/7*/5", "13/5"}
    hit = board.validate("13/7*/5", (6, 2))
    assert hit.hits == frozenset({7}) and hit.after.checkers_on(25, side=1) == 1
    assert board.validate("13/5", (6, 2)).hits == frozenset()


def test_journey_with_a_hit_on_one_path_and_not_the_other_is_ambiguous():
    board = Board.from_points({13: 1}, {18: 1, 14: 1})  # blots on the 7- and 11-points
    assert notations(board, 6, 2) == {"13/7*/5", "13/11*/5"}
    with pytest.raises(IllegalPlay, match="ambiguous with 6-2: write the hits, one of 13/"):
        board.validate("13/5", (6, 2))


def test_unmarked_journey_through_the_only_path_is_accepted():
    board = Board.from_points({13: 1}, {18: 1, 14: 2})  # 13/11 closed: 13/5 must hit on 7
    assert notations(board, 6, 2) == {"13/7*/5"}
    assert str(board.validate("13/5", (6, 2))) == "13/7*/5"


def test_star_where_no_blot_stands_is_refused():
    with pytest.raises(IllegalPlay, match="no blot to hit on the 5-point"):
        Board.initial().validate("8/5* 6/5", (3, 1))


# Distinct plays ----------------------------------------------------------------------------------


@pytest.mark.parametrize("roll", ALL_ROLLS)
def test_plays_are_distinct_by_resulting_position(roll):
    plays = Board.initial().legal_plays(*roll)
    assert len({p.after for p in plays}) == len(plays) == len(set(plays))


def test_different_orders_reaching_one_position_are_one_play():
    plays = Board.initial().legal_plays(3, 2)
    assert [str(p) for p in plays].count("13/8") == 1
    assert Play.parse("13/10 10/8") == Play.parse("13/11/8") == Play.parse("13/8")


# Distinct plays of each opening roll, as GNU Backgammon 1.07 lists them (``hint``).
GNUBG_OPENING_COUNTS = {
    (1, 1): 42, (2, 1): 15, (2, 2): 75, (3, 1): 16, (3, 2): 17, (3, 3): 73, (4, 1): 14,
    (4, 2): 18, (4, 3): 17, (4, 4): 52, (5, 1): 8, (5, 2): 8, (5, 3): 9, (5, 4): 9, (5, 5): 4,
    (6, 1): 10, (6, 2): 14, (6, 3): 14, (6, 4): 14, (6, 5): 7, (6, 6): 11,
}


@pytest.mark.parametrize(("roll", "count"), GNUBG_OPENING_COUNTS.items())
def test_opening_play_counts_match_gnubg(roll, count):
    assert len(Board.initial().legal_plays(*roll)) == count
    assert len(Board.initial().legal_plays(*reversed(roll))) == count


# Notation ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "moves"),
    [
        ("24/18 13/11", [(24, 18, False), (13, 11, False)]),
        ("bar/22*", [(25, 22, True)]),
        ("6/off", [(6, 0, False)]),
        ("8/5(2)", [(8, 5, False), (8, 5, False)]),
        ("13/7*/5", [(13, 7, True), (7, 5, False)]),
        ("24/20(2) 13/9(2)", [(24, 20, False)] * 2 + [(13, 9, False)] * 2),
        ("9/7*(4)", [(9, 7, True)] * 4),
    ],
)
def test_standard_notation_parses_and_prints(text, moves):
    play = Play.parse(text)
    assert sorted(play.moves) == sorted(moves)
    assert str(play) == text
    assert Play.parse(str(play)) == play


def test_notation_examples_appear_in_legal_sets():
    assert "24/18 13/11" in notations(Board.initial(), 6, 2)
    assert "8/5(2) 6/3(2)" in notations(Board.initial(), 3, 3)
    assert "6/off" in " ".join(notations(Board.from_points({6: 1, 2: 1}, {6: 2}), 6, 1))
    assert "13/7*/5" in notations(Board.from_points({13: 1}, {18: 1}), 6, 2)
    # A repeated journey whose first checker hits is written as gnubg writes it (was
    # "9/7* 9/7(3)", a fresh user's report), and reads back as the same play.
    board = Board.from_points({9: 4}, {18: 1})
    assert "9/7*(4)" in notations(board, 2, 2)
    assert "bar/22*(2) 6/3(2)" in notations(Board.from_points({25: 2, 6: 5}, {3: 1}), 3, 3)
    assert board.validate("9/7*(4)", (2, 2)).notation() == "9/7*(4)"


def test_notation_is_forgiving_about_case_order_and_spacing():
    assert Play.parse("  13/11   24/18 ") == Play.parse("24/18 13/11")
    assert Play.parse("BAR/22*") == Play.parse("bar/22*")
    assert Play.parse("6/OFF") == Play.parse("6/off")
    assert str(Play.parse("13/11 24/18")) == "24/18 13/11"


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("hello", "not a move in standard notation"),
        ("24-18", "not a move in standard notation"),
        ("13/14", "from higher to lower points"),
        ("off/5", "not a move in standard notation"),
        ("6/off/3", "nothing can move on after bearing off"),
        ("8/5(5)", "repeats 1-4 times"),
        ("8/5(0)", "repeats 1-4 times"),
        ("30/24", "not on the board"),
        ("6/off*", "bearing off cannot hit"),
        ("24/18 13/", "not a move in standard notation"),
    ],
)
def test_invalid_notation_is_refused(text, why):
    with pytest.raises(InvalidNotation, match=why):
        Play.parse(text)


def test_play_must_be_text_to_parse():
    with pytest.raises(InvalidNotation, match="a play is text"):
        Play.parse(None)  # type: ignore[arg-type]


# Refusals ----------------------------------------------------------------------------------------


def test_illegal_play_message_names_the_roll():
    with pytest.raises(IllegalPlay, match="24/18 13/11 is not a legal play of 3-1"):
        Board.initial().validate("24/18 13/11", (3, 1))


def test_refused_play_leaves_the_board_unchanged():
    board = Board.initial()
    with pytest.raises(IllegalPlay):
        board.play("24/18 13/11", (3, 1))
    assert board == Board.initial() and board.position_id == "4HPwATDgc/ABMA"


@pytest.mark.parametrize("dice", [(0, 3), (7, 1), (3, -1)])
def test_dice_outside_one_to_six_are_refused(dice):
    with pytest.raises(ValueError, match="a die shows a whole number from 1 to 6"):
        Board.initial().legal_plays(*dice)


def test_board_and_game_take_the_same_dice():
    """numpy integers are dice for a board and for a game alike (a bot's rolls often are);
    booleans are dice for neither."""
    import numpy as np

    from boardgammon.engine.errors import InvalidDice
    from boardgammon.engine.game import Game

    dice = (np.int64(3), np.int8(1))
    plays = [str(p) for p in Board.initial().legal_plays(*dice)]
    assert "8/5 6/5" in plays and plays == [str(p) for p in Board.initial().legal_plays(3, 1)]
    game = Game()
    game.roll_opening(4, 2)
    game.play(0, "13/9 13/11")
    game.roll(1, *dice)
    assert game.dice == (3, 1) and all(type(d) is int for d in game.dice)
    for refuse in (lambda: Board.initial().legal_plays(True, 2), lambda: game.roll(1, 2, True)):
        with pytest.raises(InvalidDice, match="whole number from 1 to 6"):
            refuse()


# Positions and Position IDs ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("position_id", "why"),
    [
        ("4HPwATDgc/AB", "14 base64 characters"),
        ("4HPwATDgc/AB!A", "not valid base64"),
        ("//////////////", "too many checkers"),
        ("AAAAAAAAAAAAAA", None),
    ],
)
def test_bad_position_ids_are_refused(position_id, why):
    if why is None:
        board = Board.from_position_id(position_id)  # every checker borne off: a valid ID
        assert board.is_game_over()
        return
    with pytest.raises(InvalidPosition, match=why):
        Board.from_position_id(position_id)


@pytest.mark.parametrize(
    ("mine", "theirs", "why"),
    [
        ({6: 16}, {}, "16 checkers on the board, at most 15"),
        ({6: 2}, {19: 1}, "both sides have checkers on point 6"),
        ({26: 1}, {}, "outside 1-24"),
        ({6: -1}, {}, "negative"),
    ],
)
def test_impossible_positions_are_refused(mine, theirs, why):
    with pytest.raises(InvalidPosition, match=why):
        Board.from_points(mine, theirs)


@pytest.mark.parametrize(
    ("array", "why"),
    [
        (np.zeros((2, 24), dtype=np.int8), r"shape \(2, 25\)"),
        (np.zeros((2, 25)), "checker counts are integers"),
        (np.full((2, 25), 200), "at most 15"),
    ],
)
def test_bad_arrays_are_refused(array, why):
    with pytest.raises(InvalidPosition, match=why):
        Board(array)


def test_pip_counts_and_borne_off():
    board = Board.from_points({25: 1, 6: 2, 1: 1}, {20: 2, 3: 1})
    assert board.pip_counts() == (25 + 12 + 1, 40 + 3)
    assert board.borne_off(0) == 11 and board.borne_off(1) == 12
    assert board.checkers_on(25) == 1 and board.checkers_on(0, side=1) == 12


@pytest.mark.parametrize(("point", "side", "why"), [(26, 0, "a point is"), (-1, 0, "a point is"),
                                                   (6, 2, "a side is"), (0, 5, "a side is")])
def test_bad_point_or_side_is_refused(point, side, why):
    with pytest.raises(ValueError, match=why):
        Board.initial().checkers_on(point, side)


def test_swapped_is_the_opponents_view():
    board = Board.from_points({25: 1, 6: 2}, {24: 2, 3: 1})
    assert board.swapped().pip_counts() == tuple(reversed(board.pip_counts()))
    assert board.swapped().swapped() == board
    assert board.swapped().checkers_on(24) == 2
