"""One game of backgammon as a state machine: opening roll, turns, cube, resignations, result.

Seats are 0 and 1 (seat 0 is the match's first-named player, as in gnubg and ``.mat`` files).
:attr:`Game.board` is always seen from the player on roll (``Game.on_roll``); use
:meth:`Game.board_for` for a given seat's view. Dice are passed in; the game rolls nothing.

Rules implemented (sources: the rules of backgammon as published by Boardgammon,
``shared/reference/published-figures.md``, and the gnubg manual):

* Opening roll: one die each; ties are re-rolled; the higher die moves first, playing both dice.
* A turn: the player on roll may double (before rolling only), then rolls and plays. A roll
  with no legal move is a dance, played as the empty play ``""`` and recorded like any other.
* Doubling: only with the cube centred or owned by the doubler, never past 64, never when the
  cube is disabled (Crawford game, 1-point match). A take gives the cube to the taker at twice
  its value; a drop ends the game and the doubler wins the cube's value before the double.
* Beavers (money play, only where the game allows them): a doubled player may take and at
  once redouble, keeping the cube (a *beaver*); the doubler then takes (the cube stays with
  the beaverer, the doubler rolls) or drops (losing the value just accepted). No raccoons:
  gnubg gives a raccoon's cube to the player doubled, against the usual rule that the
  raccooner keeps it, so no reference agrees on them.
* Resignation: either player may offer to resign a single game, a gammon or a backgammon at
  any time during the game; the opponent accepts (the game ends for that many times the cube)
  or declines (play continues where it was).
* Scoring on bearing off: single 1, gammon 2 (the loser bore off no checker), backgammon 3
  (no checker off and one still on the bar or in the winner's home board), times the cube.

Every action checks everything first and changes nothing when it raises.

>>> g = Game()
>>> g.roll_opening(3, 1)
>>> g.on_roll, g.phase.value, g.dice
(0, 'play', (3, 1))
>>> str(g.play(0, "8/5 6/5"))
'8/5 6/5'
>>> g.on_roll, g.phase.value
(1, 'roll')
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum, StrEnum

from .board import Board, Variant, check_dice
from .constants import MAX_CUBE
from .errors import (
    CubeUnavailable,
    IllegalAction,
    MatchOver,
    NotYourTurn,
    WrongPhase,
)
from .plays import Play
from .rules import DoubleRefusal, double_refusal, game_values

_CUBE_VALUES = tuple(1 << k for k in range(MAX_CUBE.bit_length()))  # 1, 2, 4 … MAX_CUBE


class Phase(StrEnum):
    """What a game is waiting for (names as in the server API's ``state.phase``)."""

    OPENING = "opening"
    """Waiting for the opening roll (one die each)."""
    ROLL = "roll"
    """The player on roll may double or roll."""
    PLAY = "play"
    """The dice are rolled; the player on roll must play them."""
    DOUBLE_OFFERED = "double_offered"
    """The player on roll doubled; the opponent must take or drop."""
    RESIGN_OFFERED = "resign_offered"
    """A resignation is offered; the other player must accept or decline."""
    GAME_OVER = "game_over"
    """The game has a result."""


class Outcome(IntEnum):
    """How much a game is worth before the cube: single, gammon, backgammon."""

    SINGLE = 1
    GAMMON = 2
    BACKGAMMON = 3


class EndReason(StrEnum):
    """How a game ended."""

    BEAR_OFF = "bear_off"
    DROP = "drop"
    RESIGN = "resign"


@dataclass(frozen=True)
class GameResult:
    """The result of a finished game.

    Attributes:
        winner: seat 0 or 1.
        points: points won = outcome × cube value (a drop: the cube value before the double).
        outcome: single, gammon or backgammon (always single for a drop).
        reason: bear-off, drop or accepted resignation.
        cube: the cube value the points were counted with.
    """

    winner: int
    points: int
    outcome: Outcome
    reason: EndReason
    cube: int

    @property
    def how(self) -> str:
        """``single``/``gammon``/``backgammon`` after a bear-off, else ``drop``/``resign``
        (the server API's ``games[].how``)."""
        if self.reason is EndReason.BEAR_OFF:
            return self.outcome.name.lower()
        return self.reason.value


@dataclass(frozen=True)
class Resignation:
    """A pending offer to resign: ``seat`` offers to lose ``outcome`` × cube."""

    seat: int
    outcome: Outcome


def _check_seat(seat: object) -> int:
    if isinstance(seat, bool) or seat not in (0, 1):
        raise IllegalAction(f"a seat is 0 or 1, got {seat!r}")
    return int(seat)


class Game:
    """The state of one game.

    Args:
        variant: ``standard``, ``nackgammon`` or ``hypergammon`` (the starting position).
        cube_enabled: False in the Crawford game and in 1-point matches (no doubling at all).
        crawford: this is the Crawford game of a match (reported in the Match ID).
        jacoby: money play under the Jacoby rule: gammons and backgammons (also resigned ones)
            count as single games while the cube has not been turned.
        beavers: money play: a doubled player may beaver (gnubg's ``set beavers 1``).

    Attributes (read them, do not assign):
        board: the position from the view of ``on_roll`` (before the opening roll: seat 0's).
        on_roll: seat whose turn it is, ``None`` before the opening roll.
        phase: a :class:`Phase`.
        dice: the roll to play in phase ``PLAY``, else ``None``.
        cube: cube value 1, 2, 4 … 64.
        cube_owner: seat owning the cube, ``None`` while centred.
        beavered: whether the pending double has been beavered (the doubler must answer).
        resignation: the pending :class:`Resignation` or ``None``.
        result: the :class:`GameResult` once the game is over.
    """

    def __init__(self, variant: Variant | str = Variant.STANDARD, *, cube_enabled: bool = True,
                 crawford: bool = False, jacoby: bool = False, beavers: bool = False) -> None:
        self.variant = Variant(variant)
        self.cube_enabled = cube_enabled and not crawford
        self.crawford = crawford
        self.jacoby = jacoby
        self.beavers = beavers
        self.beavered = False
        self.board = Board.initial(self.variant)
        self.on_roll: int | None = None
        self.phase = Phase.OPENING
        self.dice: tuple[int, int] | None = None
        self.cube = 1
        self.cube_owner: int | None = None
        self.resignation: Resignation | None = None
        self.result: GameResult | None = None
        self._phase_before_offer: Phase | None = None

    @classmethod
    def from_position(cls, board: Board, on_roll: int, *, cube: int = 1,
                      cube_owner: int | None = None, cube_enabled: bool = True,
                      crawford: bool = False, jacoby: bool = False,
                      beavers: bool = False) -> Game:
        """A game in progress at ``board`` (``on_roll``'s view), ``on_roll`` to double or roll:
        for set-up positions (problems, analysis, tests).

        Raises:
            IllegalAction: a bad seat, a cube value not a power of two up to 64, or a centred
                cube above 1.
        """
        on_roll = _check_seat(on_roll)
        if cube not in _CUBE_VALUES or (cube > 1) != (cube_owner is not None):
            raise IllegalAction(f"a cube of {cube} owned by {cube_owner} is impossible: the "
                                f"cube is 1 while centred, 2-64 once owned")
        game = cls(Variant.HYPERGAMMON if board.checkers == 3 else Variant.STANDARD,
                   cube_enabled=cube_enabled, crawford=crawford, jacoby=jacoby,
                   beavers=beavers)
        game.board, game.on_roll, game.phase = board, on_roll, Phase.ROLL
        game.cube = cube
        game.cube_owner = None if cube_owner is None else _check_seat(cube_owner)
        return game

    # Queries --------------------------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        """Whether the game has a result."""
        return self.result is not None

    @property
    def turn(self) -> int | None:
        """The seat that must act now: the player on roll, the doubler's opponent while a double
        is offered (the doubler again after a beaver), the offerer's opponent while
        a resignation is offered; ``None`` before the opening roll and after the game (gnubg's
        ``fTurn``)."""
        if self.phase is Phase.RESIGN_OFFERED:
            assert self.resignation is not None
            return 1 - self.resignation.seat
        if self.phase is Phase.DOUBLE_OFFERED:
            assert self.on_roll is not None
            return self.on_roll if self.beavered else 1 - self.on_roll
        if self.phase in (Phase.ROLL, Phase.PLAY):
            return self.on_roll
        return None

    @property
    def double_offered(self) -> bool:
        """Whether a double is waiting for an answer (also under a pending resignation)."""
        return Phase.DOUBLE_OFFERED in (self.phase, self._phase_before_offer)

    def board_for(self, seat: int) -> Board:
        """The position from ``seat``'s view (row 0 = that seat's checkers)."""
        seat = _check_seat(seat)
        if self.on_roll is None or seat == self.on_roll:
            return self.board
        return self.board.swapped()

    @property
    def offered(self) -> int | None:
        """The cube value a pending double (or beaver) offers, ``None`` without one."""
        return self.cube * 2 if self.double_offered else None

    def can_beaver(self, seat: int) -> bool:
        """Whether ``seat`` may beaver now (see :meth:`beaver`)."""
        try:
            self._check_beaver(seat)
        except IllegalAction:
            return False
        return True

    def can_double(self, seat: int) -> bool:
        """Whether ``seat`` may double now (its turn, before rolling, cube available)."""
        try:
            self._check_double(seat)
        except IllegalAction:
            return False
        return True

    def legal_plays(self) -> list[Play]:
        """The legal plays of the current roll (phase ``PLAY``), ``[]`` otherwise; a dance is
        one empty play."""
        if self.phase is not Phase.PLAY or self.dice is None:
            return []
        return self.board.legal_plays(*self.dice)

    # Checks ---------------------------------------------------------------------------------

    def _expect(self, seat: object, phases: tuple[Phase, ...], doing: str) -> int:
        """Check that the game is on, in one of ``phases``, and that ``seat`` must act."""
        seat = _check_seat(seat)
        if self.phase is Phase.GAME_OVER:
            raise MatchOver(f"cannot {doing}: the game is over")
        if self.phase not in phases:
            raise WrongPhase(f"cannot {doing} now: {_PHASE_TEXT[self.phase]}")
        if seat != self.turn:
            raise NotYourTurn(f"cannot {doing}: it is seat {self.turn}'s turn, not seat {seat}'s")
        return seat

    def _check_double(self, seat: object) -> int:
        seat = self._expect(seat, (Phase.ROLL,), "double")
        why = double_refusal(cube_enabled=self.cube_enabled, crawford=self.crawford,
                             cube=self.cube, owned_by_opponent=self.cube_owner not in (None, seat))
        if why is DoubleRefusal.CRAWFORD:
            raise CubeUnavailable("no doubling in the Crawford game")
        if why is DoubleRefusal.ONE_POINT_MATCH:
            raise CubeUnavailable("no doubling in a 1-point match")
        if why is DoubleRefusal.OWNED_BY_OPPONENT:
            raise CubeUnavailable(f"seat {seat} cannot double: seat {self.cube_owner} owns the "
                                  f"cube")
        if why is DoubleRefusal.AT_MAX:
            raise CubeUnavailable(f"the cube is at {self.cube}, it goes no higher than "
                                  f"{MAX_CUBE}")
        return seat

    def _check_beaver(self, seat: object) -> int:
        seat = self._expect(seat, (Phase.DOUBLE_OFFERED,), "beaver")
        if not self.beavers:
            raise CubeUnavailable("beavers are not played in this game (money play with "
                                  "beavers on only): take or drop")
        if self.beavered:
            raise CubeUnavailable("a beaver cannot be beavered back (no raccoons here): take "
                                  "or drop")
        if self.cube * 4 > MAX_CUBE:
            raise CubeUnavailable(f"a beaver would turn the cube to {self.cube * 4}, it goes "
                                  f"no higher than {MAX_CUBE}")
        return seat

    # Actions --------------------------------------------------------------------------------

    def roll_opening(self, die0: int, die1: int) -> None:
        """The opening roll: ``die0`` for seat 0, ``die1`` for seat 1.

        On a tie nothing changes (the players roll again); otherwise the higher die's seat is
        on roll and plays both dice (``dice`` = (its die, the other die)).

        Raises:
            InvalidDice: a die outside 1–6.
            MatchOver / WrongPhase: the game is over / already started.
        """
        die0, die1 = check_dice(die0, die1)
        if self.phase is Phase.GAME_OVER:
            raise MatchOver("cannot roll the opening roll: the game is over")
        if self.phase is not Phase.OPENING:
            raise WrongPhase(f"the opening roll is done: {_PHASE_TEXT[self.phase]}")
        if die0 == die1:
            return
        self.on_roll = 0 if die0 > die1 else 1
        self.dice = (die0, die1) if die0 > die1 else (die1, die0)
        self.phase = Phase.PLAY

    def roll(self, seat: int, d1: int, d2: int) -> None:
        """``seat`` rolls ``d1``-``d2`` (passed in) at the start of its turn.

        Raises:
            InvalidDice, MatchOver, WrongPhase (not before rolling, e.g. a double pending),
            NotYourTurn.
        """
        dice = check_dice(d1, d2)
        self._expect(seat, (Phase.ROLL,), "roll")
        self.dice = dice
        self.phase = Phase.PLAY

    def play(self, seat: int, play: Play | str) -> Play:
        """``seat`` plays the rolled dice: ``play`` in standard notation or a :class:`Play`
        (``""`` for a dance). Returns the validated legal play (with ``after``).

        If the play bears off the mover's last checker the game ends (single, gammon or
        backgammon times the cube); otherwise the turn passes and ``board`` turns round.

        Raises:
            InvalidNotation: text that is not standard notation.
            IllegalPlay: not a legal play of the dice; the message says why.
            MatchOver, WrongPhase (not rolled yet), NotYourTurn.
        """
        seat = self._expect(seat, (Phase.PLAY,), "play")  # the player on roll
        assert self.dice is not None
        legal = self.board.validate(play, self.dice)
        after = legal.board_after
        self.dice = None
        if after.borne_off(0) == after.checkers:
            self.board = after
            self._finish(seat, _outcome_of(after), EndReason.BEAR_OFF)
        else:
            self.board = after.swapped()
            self.on_roll = 1 - seat
            self.phase = Phase.ROLL
        return legal

    def double(self, seat: int) -> None:
        """``seat`` (on roll, before rolling) offers to double the cube.

        Raises:
            CubeUnavailable: Crawford game, 1-point match, cube owned by the opponent, or at 64.
            MatchOver, WrongPhase (after rolling), NotYourTurn.
        """
        self._check_double(seat)
        self.phase = Phase.DOUBLE_OFFERED

    def take(self, seat: int) -> None:
        """``seat`` takes the double: the cube doubles and goes to ``seat`` (after a beaver, to
        whoever redoubled last); the doubler rolls.

        Raises:
            MatchOver, WrongPhase (no double pending), NotYourTurn (the doubler cannot take).
        """
        seat = self._expect(seat, (Phase.DOUBLE_OFFERED,), "take")
        self.cube *= 2
        self.cube_owner = 1 - seat if self.beavered else seat
        self.beavered = False
        self.phase = Phase.ROLL

    def beaver(self, seat: int) -> None:
        """``seat``, just doubled, takes and at once redoubles while keeping the cube: the
        cube doubles and belongs to ``seat``, and twice that is offered back to the doubler,
        who takes (the cube stays with ``seat``) or drops (losing the value just accepted).
        Money play with :attr:`beavers` on only.

        Raises:
            CubeUnavailable: beavers not on, a beaver already made, or the cube past 64.
            MatchOver, WrongPhase (no double pending), NotYourTurn.
        """
        seat = self._check_beaver(seat)
        self.cube *= 2
        self.cube_owner = seat
        self.beavered = True

    def drop(self, seat: int) -> None:
        """``seat`` drops the double: the doubler wins the cube's current value (no gammon;
        after a beaver, the value the beaver accepted).

        Raises:
            MatchOver, WrongPhase (no double pending), NotYourTurn.
        """
        seat = self._expect(seat, (Phase.DOUBLE_OFFERED,), "drop")
        self.beavered = False
        self._finish(1 - seat, Outcome.SINGLE, EndReason.DROP)

    def resign(self, seat: int, points: Outcome | int) -> None:
        """``seat`` offers to resign ``points`` (1 single, 2 gammon, 3 backgammon) × cube.

        Allowed at any time in a game (either seat) while no other resignation is pending.

        Raises:
            IllegalAction: ``points`` not 1, 2 or 3.
            MatchOver, WrongPhase (before the opening roll, or a resignation already pending).
        """
        seat = _check_seat(seat)
        if isinstance(points, bool) or points not in (1, 2, 3):
            raise IllegalAction(f"a resignation is 1 (single), 2 (gammon) or 3 (backgammon), "
                                f"got {points!r}")
        if self.phase is Phase.GAME_OVER:
            raise MatchOver("cannot resign: the game is over")
        if self.phase in (Phase.OPENING, Phase.RESIGN_OFFERED):
            raise WrongPhase(f"cannot resign now: {_PHASE_TEXT[self.phase]}")
        self._phase_before_offer = self.phase
        self.resignation = Resignation(seat, Outcome(points))
        self.phase = Phase.RESIGN_OFFERED

    def accept(self, seat: int) -> None:
        """``seat`` accepts the opponent's resignation: the game ends for its value × cube.

        Raises:
            MatchOver, WrongPhase (no resignation pending), NotYourTurn (the resigner).
        """
        seat = self._expect(seat, (Phase.RESIGN_OFFERED,), "accept a resignation")
        assert self.resignation is not None
        self._finish(seat, self.resignation.outcome, EndReason.RESIGN)

    def decline(self, seat: int) -> None:
        """``seat`` declines the resignation; the game goes on where it was.

        Raises:
            MatchOver, WrongPhase (no resignation pending), NotYourTurn (the resigner).
        """
        self._expect(seat, (Phase.RESIGN_OFFERED,), "decline a resignation")
        assert self._phase_before_offer is not None
        self.phase = self._phase_before_offer
        self._phase_before_offer = None
        self.resignation = None

    def _finish(self, winner: int, outcome: Outcome, reason: EndReason) -> None:
        if self.jacoby and self.cube == 1:
            outcome = Outcome.SINGLE
        self.result = GameResult(winner, int(outcome) * self.cube, outcome, reason, self.cube)
        self.phase = Phase.GAME_OVER
        self.dice = None


def _outcome_of(after: Board) -> Outcome:
    """Single, gammon or backgammon for the mover who just bore off in ``after`` (mover's view):
    the rule of :func:`~boardgammon.engine.rules.game_values` on the loser's row."""
    return Outcome(int(game_values(after.array[1], after.checkers)))


_PHASE_TEXT = {
    Phase.OPENING: "waiting for the opening roll",
    Phase.ROLL: "the player on roll must double or roll first",
    Phase.PLAY: "the dice are rolled, the player on roll must play",
    Phase.DOUBLE_OFFERED: "a double is offered, take or drop it first",
    Phase.RESIGN_OFFERED: "a resignation is offered, accept or decline it first",
    Phase.GAME_OVER: "the game is over",
}
