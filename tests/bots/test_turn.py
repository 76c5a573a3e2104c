"""The computer's turn (bots.turn.decide): what it decides in each phase, and that a bot
offers to resign at most once per game, read from the match record for each seat."""

from __future__ import annotations

from boardgammon.bots import create
from boardgammon.bots.turn import (
    AcceptResign,
    Beaver,
    MakePlay,
    Resign,
    RollDice,
    Take,
    decide,
    offered_resignation,
)
from boardgammon.engine.match import Match


class Resigns(type(create("easy", 0))):
    """An easy bot that always offers to resign a single and always accepts an offer."""

    def resign(self, board, context):
        return 1

    def accept_resignation(self, board, context, points):
        return True


def test_each_phase_has_its_decision():
    m = Match(3)
    bot = create("easy", 1)
    assert decide(m, m.waiting_for, bot) == RollDice()
    m.roll_opening(3, 1)
    assert isinstance(decide(m, 0, bot), MakePlay)
    m.play(0, "8/5 6/5")
    assert isinstance(decide(m, 1, bot), RollDice)


def test_a_declined_offer_is_not_made_again_in_that_game():
    m = Match(3)
    m.roll_opening(3, 1)
    m.play(0, "8/5 6/5")
    bot = Resigns(2)
    assert decide(m, 1, bot) == Resign(1)
    m.resign(1, 1)
    assert decide(m, 0, bot) == AcceptResign()
    m.decline(0)
    assert offered_resignation(m, 1) and not offered_resignation(m, 0)
    assert decide(m, 1, bot) == RollDice()  # plays the game out


def test_the_other_seats_offer_does_not_count():
    m = Match(3)
    m.roll_opening(3, 1)
    m.play(0, "8/5 6/5")
    m.resign(1, 1)
    m.decline(0)
    m.roll(1, 6, 5)
    m.play(1, "24/13")
    assert decide(m, 0, Resigns(3)) == Resign(1)


def test_bots_beaver_a_double_made_behind_and_the_doubler_answers():
    for level in ("easy", "medium"):
        m = Match(0, beavers=True)
        m.roll_opening(3, 1)
        m.play(0, "8/5 6/5")
        m.double(1)  # behind after the opponent's 3-1 point
        assert decide(m, 0, create(level, 1)) == Beaver()
        m.beaver(0)
        assert decide(m, 1, create(level, 1)) == Take()  # losing 2 for sure is worse
        no_beavers = Match(0)
        no_beavers.roll_opening(3, 1)
        no_beavers.play(0, "8/5 6/5")
        no_beavers.double(1)
        assert decide(no_beavers, 0, create(level, 1)) == Take()
