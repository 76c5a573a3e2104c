"""A match: games to a length, score, Crawford, clocks, and the record of every action.

API summary (seats 0 and 1; seat 0 is the first-named player, as in gnubg and ``.mat`` files)::

    m = Match(length=5, variant="standard", players=("ann", "bob"), time_control=None,
              jacoby=False)     # length 0 = money play (jacoby only there); time_control: a
                                # TimeControl or a clock.PRESETS name ("rapid" = 120 s/point)
    m.roll_opening(d0, d1)      # one die each (d0 for seat 0); a tie is recorded, roll again
    m.double(seat) · m.take(seat) · m.drop(seat)
    m.beaver(seat)              # money play with Match(0, beavers=True): take and redouble
    m.roll(seat, d1, d2)        # dice are passed in; the engine rolls nothing
    m.play(seat, "24/18 13/11") # or a Play; "" is a dance; returns the legal Play
    m.resign(seat, 1|2|3) · m.accept(seat) · m.decline(seat)
    m.claim_flag(now)           # the running clock's reserve ran out: that seat loses the match
    m.claim_abort(now)          # a seat never made its first action in time: nobody wins
    m.await_device(seat, now)   # the roll asked for waits for seat's device (v2 dice): its
                                # reserve runs, the roller's clock stands still, until the roll
    m.forfeit(seat)             # the seat gives up the whole match (its account was deleted)

    m.game                      # the current Game: board (view of game.on_roll), phase, dice,
                                # cube, cube_owner, turn, legal_plays(), board_for(seat)
    m.score, m.is_over, m.winner, m.crawford, m.post_crawford, m.results
    m.match_id_gnubg            # gnubg's Match ID of the current state
    m.record                    # tuple of record entries (boardgammon.engine.record), in
                                # order: every roll, play, cube action, resignation and flag
    m.to_json() / Match.from_json(text)   # persistence: from_json replays every action
    m.apply(action)             # replay one record entry
    m.deadline()                # when the running clock flags or the match aborts (None
                                # without a clock)
    boardgammon.formats.write_mat(m) / read_mat(text)   # Jellyfish .mat text, as gnubg
    Game(...) / Game.from_position(board, on_roll, cube=…, cube_owner=…)   # one game alone
    Match(5, setup=Setup(position_id=…, on_roll=1, score=(2, 3), cube=2, cube_owner=0))
                                # a match whose first game starts at a set-up position; its
                                # JSON record keeps the setup, .mat cannot (write_mat refuses)
    m.clock                     # a Clock when a time control is set (then pass now=… to
                                # every action: seconds on any monotonic scale)

Every refused action raises a subclass of :class:`~boardgammon.engine.errors.IllegalAction`
(``NotYourTurn``, ``WrongPhase``, ``CubeUnavailable``, ``MatchOver``, ``TimeExpired``),
:class:`~boardgammon.engine.errors.IllegalPlay`, ``InvalidNotation``, ``InvalidDice`` or
``ClockError``, and leaves the match exactly as it was.

Rules (Boardgammon's published rules, ``shared/reference/published-figures.md``): the match
ends when a player reaches ``length`` points (no cap on the last game's points). The game after
a player first reaches ``length - 1`` is the Crawford game: no doubling; doubling returns in the
games after it (post-Crawford). A 1-point match has no cube at all. ``length = 0`` is money
play: games go on without end and the cube is always in use.

A match whose clock runs from its start (``start``, as the server's live matches) is aborted,
not lost, when a seat does not make its first action of the match (an opening roll, a roll, a
play, a cube action…) within :data:`NO_SHOW_AFTER` seconds of its clock starting (with a move's
free delay longer than that, a correspondence move's days: all its time), or its reserve runs
out first: a player who posted a seek and left must not lose the match, nor their opponent wait
out a whole reserve (lichess aborts a game whose first moves are not made, too). The abort is
claimed as a flag is (:meth:`Match.claim_abort`); nobody wins, and the score stays as played.

>>> m = Match(3, players=("ann", "bob"))
>>> m.roll_opening(6, 1)
>>> str(m.play(0, "13/7 8/7"))
'13/7 8/7'
>>> m.double(1); m.drop(0)
>>> m.score, m.results[0].how
((0, 1), 'drop')

Why one module of some 900 lines: every action of a match checks the same state (the seat on
turn, the score, Crawford, the clock) and appends to the same record, under one rule that a
refused action leaves the match as it was; the record's entries are in :mod:`.record`, a
game's own rules in :mod:`.game`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from .board import Board, Variant
from .clock import PRESETS, Clock, TimeControl
from .errors import (
    ClockError,
    EngineError,
    IllegalAction,
    InvalidRecord,
    MatchOver,
    TimeExpired,
    WrongPhase,
)
from .game import Game, GameResult, Outcome, Phase
from .ids import (
    GAME_DROP,
    GAME_NONE,
    GAME_OVER,
    GAME_PLAYING,
    GAME_RESIGNED,
    MatchIdFields,
    decode_position_id,
    encode_match_id,
)
from .plays import Play
from .record import (
    Aborted,
    Accepted,
    Action,
    Beavered,
    Declined,
    Doubled,
    Dropped,
    Flagged,
    Forfeited,
    OpeningRolled,
    Played,
    Resigned,
    Rolled,
    Took,
    action_from_dict,
)
from .rules import cube_enabled

RECORD_VERSION = 1

OFFERED_LENGTHS = (1, 3, 5, 7, 11)
"""Match lengths offered to players; any length from 1 to :data:`MAX_LENGTH` works, 0 is money
play."""
DEFAULT_LENGTH = 5
MAX_LENGTH = 64
"""The longest match (points): gnubg's ``MAXSCORE``, the reach of its Match ID and of the match
equity table (:mod:`boardgammon.cube.met`), which longer matches would only slow down."""
NO_SHOW_AFTER = 60.0
"""Seconds a seat has for its first action of a match whose clock runs from the start before the
match is aborted (:meth:`Match.claim_abort`); its reserve running out first aborts it too, and
is the only limit where a move's free delay is longer than this (a correspondence clock's days
per move)."""


@dataclass(frozen=True, kw_only=True)
class Setup:
    """Where a match set up from a position starts, instead of its variant's opening: the
    first game is in progress at ``position_id`` with ``on_roll`` to double or roll (or to play
    ``dice`` when given), at ``score``, with the cube as stated; ``crawford``: that game is the
    Crawford game. Games after it start from the opening as usual.

    gnubg's ``.mat`` format has no way to write such a start, so
    :func:`boardgammon.formats.write_mat` refuses a set-up match; its JSON record
    (:meth:`Match.to_dict`, key ``setup``) keeps and replays it exactly.
    """

    position_id: str
    on_roll: int = 0
    score: tuple[int, int] = (0, 0)
    cube: int = 1
    cube_owner: int | None = None
    crawford: bool = False
    dice: tuple[int, int] | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (tuples as lists)."""
        out = asdict(self)
        out["score"] = list(self.score)
        out["dice"] = None if self.dice is None else list(self.dice)
        return out

    @classmethod
    def from_dict(cls, data: Any) -> Setup:
        """The inverse of :meth:`to_dict`.

        Raises:
            InvalidRecord: not an object with these fields of these types.
        """
        if not isinstance(data, dict) or set(data) - set(cls.__dataclass_fields__):
            raise InvalidRecord(f"the record's setup is {data!r}, not an object with "
                                f"{', '.join(cls.__dataclass_fields__)}"[:300])
        try:
            score, dice = data.get("score", [0, 0]), data.get("dice")
            setup = cls(**{**data, "score": tuple(score),
                           "dice": None if dice is None else tuple(dice)})
        except TypeError as exc:
            raise InvalidRecord(f"the record's setup is {data!r}: {exc}"[:300]) from exc
        ints = [setup.on_roll, *setup.score, setup.cube,
                *(setup.dice or ()), *([] if setup.cube_owner is None else [setup.cube_owner])]
        if (not isinstance(setup.position_id, str) or not isinstance(setup.crawford, bool)
                or len(setup.score) != 2 or (setup.dice is not None and len(setup.dice) != 2)
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in ints)):
            raise InvalidRecord(f"the record's setup is {data!r}: a Position ID, seats, scores, "
                                f"cube and dice as whole numbers, crawford true or false"[:300])
        return setup


class Match:
    """A match between seats 0 and 1 (see the module docstring for the API and rules).

    Args:
        length: points to win (1, 3, 5, 7, 11 offered; 1 to :data:`MAX_LENGTH`), 0 for money
            play.
        variant: ``standard``, ``nackgammon`` or ``hypergammon``.
        players: names of seat 0 and seat 1 (used in exports).
        time_control: a :class:`TimeControl`, a preset name (:data:`PRESETS`) or ``None``.
        jacoby: money play only: the Jacoby rule (gammons count only once the cube is turned).
        start: with a clock, when the match starts (seconds, the caller's time scale): the
            opening roller's clock (:attr:`opening_roller`) runs from then, and a seat's first
            action of the match not made in time aborts it (:meth:`no_show`). ``None``: no
            clock runs until the first action (the behaviour of records without a start), and
            no match is aborted.
        setup: start from a position instead of the opening (see :class:`Setup`); no clock.
        beavers: money play only: a doubled player may beaver (no raccoons; see
            :class:`~boardgammon.engine.game.Game`).

    Raises:
        ValueError: a length outside 0–:data:`MAX_LENGTH`, unknown variant or preset, a clock,
            Jacoby or beavers outside money play, a start
            without a clock, a clock with a setup, a setup's score at or past the length, or
            Crawford where no one is at length - 1.
        ClockError: ``start`` is not a finite number.
        EngineError: a setup's position, cube or dice the rules refuse (``InvalidPosition``,
            ``IllegalAction``, ``InvalidDice``).
    """

    def __init__(self, length: int = DEFAULT_LENGTH, variant: Variant | str = Variant.STANDARD,
                 players: tuple[str, str] = ("Player 0", "Player 1"),
                 time_control: TimeControl | str | None = None, jacoby: bool = False,
                 start: float | None = None, setup: Setup | None = None,
                 beavers: bool = False) -> None:
        if (isinstance(length, bool) or not isinstance(length, int)
                or not 0 <= length <= MAX_LENGTH):
            raise ValueError(f"a match length is a whole number of points from 1 to "
                             f"{MAX_LENGTH} (0 for money play), got {length!r}")
        self.length = length
        self.variant = Variant(variant)
        if not isinstance(players, (tuple, list)) or len(players) != 2:
            raise ValueError(f"a match has two player names (seat 0, seat 1), got {players!r}")
        self.players = (str(players[0]), str(players[1]))
        if isinstance(time_control, str):
            if time_control not in PRESETS:
                raise ValueError(f"unknown clock preset {time_control!r}; presets: "
                                 f"{', '.join(PRESETS)}")
            time_control = PRESETS[time_control]
        self.time_control = time_control
        if time_control is not None and length == 0:
            raise ValueError("money play has no match clock (the reserve is per match point)")
        self.clock = Clock(time_control, length) if time_control is not None else None
        if jacoby and length:
            raise ValueError("the Jacoby rule is for money play (length 0) only")
        self.jacoby = bool(jacoby)
        if beavers and length:
            raise ValueError("beavers are for money play (length 0) only")
        self.beavers = bool(beavers)
        self._score = [0, 0]
        self._record: list[Action] = []
        self.results: list[GameResult] = []
        self.winner: int | None = None
        self.flagged: int | None = None
        self.forfeited: int | None = None
        self.aborted: int | None = None
        """The seat that did not make its first action in time (:meth:`claim_abort`), or
        ``None``."""
        self._acted = [False, False]  # whether each seat made an action of its own yet
        self._replaying = False  # in apply(): the record, not the clock, says what was in time
        self._crawford_played = False
        self.games: list[Game] = []
        self.setup = setup
        if setup is None:
            self._new_game()
        else:
            self._set_up(setup)
        self.start: float | None = None
        if start is not None:
            if self.clock is None:
                raise ValueError("a start time is for a match with a clock")
            self.start = Clock.check_number(start)
            self.clock.start_turn(self.opening_roller, self.start)

    # Queries --------------------------------------------------------------------------------

    @property
    def game(self) -> Game:
        """The current game (the last one once the match is over)."""
        return self.games[-1]

    @property
    def opening_roller(self) -> int:
        """The seat that rolls the next opening roll (both dice, one for each seat): seats 0
        and 1 in turn over the match, seat 0 first, re-rolls after a tie included. With a clock,
        that seat's clock runs while the game waits for its opening roll."""
        return sum(1 for a in self._record if a.kind == "opening") % 2

    @property
    def waiting_for(self) -> int | None:
        """The seat whose move it is, the one whose clock runs: the opening roller before the
        opening roll, then the game's ``turn``; ``None`` once the match is over."""
        if self.is_over:
            return None
        if self.game.phase is Phase.OPENING:
            return self.opening_roller
        return self.game.turn

    @property
    def score(self) -> tuple[int, int]:
        """Points won by seat 0 and seat 1."""
        return self._score[0], self._score[1]

    @property
    def final_score(self) -> tuple[int, int]:
        """The score as the match's result shows it: while it runs, :attr:`score`; once over,
        the winner's score capped at the length (a gammon in a 1-point match is 1–0, as gnubg
        shows a match won) and, after a flag, the length for the winner (the flagged seat
        keeps its points)."""
        if self.winner is None or self.length == 0:
            return self.score
        final = list(self._score)
        final[self.winner] = self.length
        return final[0], final[1]

    @property
    def is_over(self) -> bool:
        """Whether the match has ended: it has a winner (by score, a flag or a forfeit) or was
        aborted (:attr:`aborted`, no winner); never for money play."""
        return self.winner is not None or self.aborted is not None

    @property
    def record(self) -> tuple[Action, ...]:
        """Every action in order (see :mod:`boardgammon.engine.record`)."""
        return tuple(self._record)

    @property
    def crawford(self) -> bool:
        """Whether the current game is the Crawford game (no doubling)."""
        return self.game.crawford

    @property
    def post_crawford(self) -> bool:
        """Whether the Crawford game has been played (doubling is back)."""
        return self._crawford_played and not self.game.crawford

    @property
    def phase(self) -> str:
        """The current game's phase value, or ``match_over`` (the server API's phases)."""
        return "match_over" if self.is_over else self.game.phase.value

    @property
    def match_id_gnubg(self) -> str:
        """gnubg's Match ID of the current state (see :mod:`boardgammon.engine.ids`), not a
        server's ``mat_…`` match ID."""
        g = self.game
        if g.phase is Phase.OPENING:
            state = GAME_NONE
        elif g.result is None:
            state = GAME_PLAYING
        else:
            state = {"bear_off": GAME_OVER, "drop": GAME_DROP,
                     "resign": GAME_RESIGNED}[g.result.reason.value]
        on_roll = g.on_roll if g.on_roll is not None else 0
        turn = g.turn if g.turn is not None else on_roll
        return encode_match_id(MatchIdFields(
            cube=g.cube, cube_owner=g.cube_owner, on_roll=on_roll, crawford=g.crawford,
            game_state=state, turn=turn, doubled=g.double_offered,
            resigned=int(g.resignation.outcome) if g.resignation else 0,
            dice=g.dice or (0, 0), length=self.length, score=self.score, jacoby=self.jacoby))

    def deadline(self) -> float | None:
        """When the running clock's reserve runs out or, sooner, the match is aborted
        (:meth:`no_show`), on the caller's time scale; ``None`` (no clock, no clock running,
        or the match is over)."""
        if self.clock is None or self.is_over:
            return None
        flag = self.clock.deadline()
        waited = self._first_wait()
        if waited is None or flag is None:
            return flag
        return min(flag, waited[1] + self._no_show_window())

    def _no_show_window(self) -> float:
        """Seconds a first action is waited for: :data:`NO_SHOW_AFTER`; with a move's free delay
        longer than that (a correspondence clock's days per move), all of the seat's time
        (its reserve running out aborts)."""
        assert self.clock is not None
        return NO_SHOW_AFTER if self.clock.control.delay <= NO_SHOW_AFTER else math.inf

    def _first_wait(self) -> tuple[int, float] | None:
        """(the seat whose reserve runs, since when its first action is waited for) while that
        seat has made no action of its own in a match whose clock ran from the start; ``None``
        otherwise. The wait counts from the seat's clock starting, or from the wait for its
        device, and starts again where the server resumed after an outage."""
        clock = self.clock
        if clock is None or self.start is None or self.is_over:
            return None
        seat = clock.ticking
        if seat is None or self._acted[seat]:
            return None
        if clock.held is not None:
            since = clock.held[1]
            if clock.charged_from is not None:
                since = max(since, clock.charged_from)
        else:
            assert clock.started_at is not None
            since = clock.started_at
        return seat, max([since, *(r for r in clock.resumes if r > since)])

    def first_move_deadline(self) -> float | None:
        """When the match is aborted unless the seat whose reserve runs makes its first action
        of the match (its reserve running out aborts it sooner: :meth:`deadline`), on the
        caller's time scale; ``None`` when no first action is waited for, or when only the
        reserve bounds the wait (a move's free delay longer than :data:`NO_SHOW_AFTER`)."""
        waited = self._first_wait()
        if waited is None:
            return None
        window = self._no_show_window()
        return waited[1] + window if math.isfinite(window) else None

    def no_show(self, now: float) -> int | None:
        """The seat that has not made its first action within :data:`NO_SHOW_AFTER` seconds of its
        clock starting (no limit where a move's free delay is longer: a correspondence move's
        days), or whose reserve ran out before it did, at ``now``: the match is to be aborted
        (:meth:`claim_abort`). ``None`` otherwise, and always for a match whose clock did not
        run from the start (no ``start``).

        Raises:
            ClockError: ``now`` is not a time or goes backwards.
        """
        waited = self._first_wait()
        if waited is None:
            return None
        assert self.clock is not None
        seat, since = waited
        now = self.clock.check_time(now)
        return (seat if now >= since + self._no_show_window() or self.clock.flagged(seat, now)
                else None)

    # Actions --------------------------------------------------------------------------------

    def roll_opening(self, die0: int, die1: int, now: float | None = None) -> None:
        """The opening roll of the current game: ``die0`` for seat 0, ``die1`` for seat 1.

        A tie is recorded and changes nothing else: roll again. Otherwise the higher die's
        seat is on roll with both dice and its clock starts.

        Raises:
            InvalidDice, WrongPhase (game already started), MatchOver, ClockError.
        """
        asked, charged_from = self._asked()
        self._act(None, now, lambda: self.game.roll_opening(die0, die1),
                  lambda _: OpeningRolled(game=self._index, dice=(int(die0), int(die1)), t=now,
                                          asked=asked, charged_from=charged_from), rolls=True)

    def roll(self, seat: int, d1: int, d2: int, now: float | None = None) -> None:
        """``seat`` rolls ``d1``-``d2`` (see :meth:`Game.roll`)."""
        asked, charged_from = self._asked()
        self._act(seat, now, lambda: self.game.roll(seat, d1, d2),
                  lambda _: Rolled(game=self._index, seat=seat, dice=(int(d1), int(d2)), t=now,
                                   asked=asked, charged_from=charged_from), rolls=True)

    def restart(self, now: float) -> None:
        """Start the match's clock again at ``now``, before its first action: the first
        opening roll could not be made before ``now`` (v2 dice: the server waited for the
        players' devices, ``docs/fair-dice.md``), and that wait is nobody's time. The opening
        roller's clock then runs from ``now`` with a fresh delay window, and :attr:`start`
        becomes ``now``.

        Raises:
            IllegalAction: no clock or no start; WrongPhase: the match has an action already;
                ClockError: ``now`` is before the start, or not a finite number.
        """
        clock = self.clock
        if clock is None or self.start is None:
            raise IllegalAction("no clock started with the match, so none to start again")
        if self.record:
            raise WrongPhase("the match has begun: its clock cannot start again")
        now = Clock.check_number(now)
        if now < self.start:
            raise ClockError(f"a restart at {now} s is before the start at {self.start} s")
        clock.running, clock.started_at, clock.held, clock.charged_from = None, None, None, None
        clock.start_turn(self.opening_roller, now)
        self.start = now

    def await_device(self, seat: int, now: float, charged_from: float | None = None) -> None:
        """The roll the running seat asked for at ``now`` waits for ``seat``'s device (v2 dice:
        the opponent's link, ``docs/fair-dice.md``): from ``now`` until the roll
        (:meth:`roll`, :meth:`roll_opening`) ``seat``'s reserve runs, with no delay window,
        and the roller's clock stands still (:meth:`Clock.hold`). ``charged_from``: a later
        time from which ``seat``'s reserve runs (the server restarted during the wait and gave
        the devices time to reconnect); until then neither reserve runs. The roll's record
        entry keeps ``asked`` = ``now`` and ``charged_from`` (when later); a flag during the
        wait is ``seat``'s. Nothing else can be done until the roll or the flag.

        Raises:
            MatchOver; IllegalAction: no clock, or not the time to roll (a roll is asked for
                in the opening or roll phase by the seat whose clock runs); TimeExpired: the
                roller's reserve has run out, or its first action is overdue (:meth:`no_show`);
                ClockError: ``seat`` is not the other seat, a wait is on already, or time went
                backwards.
        """
        self._check_open()
        clock = self.clock
        if clock is None:
            raise IllegalAction("no clock, so no wait to charge")
        if self.game.phase not in (Phase.OPENING, Phase.ROLL) or clock.running is None \
                or clock.running != self.waiting_for:
            raise WrongPhase(f"no roll to wait for: the game is in phase "
                             f"{self.game.phase.value}")
        if not self._replaying:
            absent = self.no_show(now)
            if absent is not None:
                raise TimeExpired(f"seat {absent} did not make its first move in time: the "
                                  f"match is aborted (claim the abort)")
            if clock.flagged(clock.running, now):
                raise TimeExpired(f"seat {clock.running}'s reserve ran out at "
                                  f"{clock.deadline()} s; the flag must be claimed")
        clock.hold(seat, now, charged_from)

    def _asked(self) -> tuple[float | None, float | None]:
        """(when the roll now being made was asked for, if it waited for a device; when that
        wait began to be charged, if later: :meth:`await_device`)."""
        clock = self.clock
        if clock is None or clock.held is None:
            return None, None
        return clock.held[1], clock.charged_from

    def play(self, seat: int, play: Play | str, now: float | None = None) -> Play:
        """``seat`` plays the rolled dice (see :meth:`Game.play`); returns the legal play."""
        dice = self.game.dice

        def entry(legal: Play) -> Played:
            assert dice is not None  # the game accepted a play: the dice were rolled
            return Played(game=self._index, seat=seat, dice=dice, play=str(legal), t=now)

        return self._act(seat, now, lambda: self.game.play(seat, play), entry)

    def double(self, seat: int, now: float | None = None) -> None:
        """``seat`` offers to double (see :meth:`Game.double`)."""
        value = self.game.cube * 2
        self._act(seat, now, lambda: self.game.double(seat),
                  lambda _: Doubled(game=self._index, seat=seat, value=value, t=now))

    def take(self, seat: int, now: float | None = None) -> None:
        """``seat`` takes the double (see :meth:`Game.take`)."""
        self._act(seat, now, lambda: self.game.take(seat),
                  lambda _: Took(game=self._index, seat=seat, t=now))

    def beaver(self, seat: int, now: float | None = None) -> None:
        """``seat`` beavers the double offered (see :meth:`Game.beaver`)."""
        value = self.game.cube * 4
        self._act(seat, now, lambda: self.game.beaver(seat),
                  lambda _: Beavered(game=self._index, seat=seat, value=value, t=now))

    def drop(self, seat: int, now: float | None = None) -> None:
        """``seat`` drops the double (see :meth:`Game.drop`)."""
        self._act(seat, now, lambda: self.game.drop(seat),
                  lambda _: Dropped(game=self._index, seat=seat, t=now))

    def resign(self, seat: int, points: Outcome | int, now: float | None = None) -> None:
        """``seat`` offers to resign ``points``: 1 (single), 2 (gammon) or 3 (backgammon) × cube."""
        self._act(seat, now, lambda: self.game.resign(seat, points),
                  lambda _: Resigned(game=self._index, seat=seat, points=int(points), t=now))

    def accept(self, seat: int, now: float | None = None) -> None:
        """``seat`` accepts the opponent's resignation (see :meth:`Game.accept`)."""
        self._act(seat, now, lambda: self.game.accept(seat),
                  lambda _: Accepted(game=self._index, seat=seat, t=now))

    def decline(self, seat: int, now: float | None = None) -> None:
        """``seat`` declines the opponent's resignation (see :meth:`Game.decline`)."""
        self._act(seat, now, lambda: self.game.decline(seat),
                  lambda _: Declined(game=self._index, seat=seat, t=now))

    def claim_flag(self, now: float) -> int:
        """Record that the running clock's reserve has run out at ``now``: that seat loses the
        match. Returns the flagged seat.

        Raises:
            MatchOver: the match is already over.
            IllegalAction: no clock, no clock running, or time is left.
            ClockError: ``now`` is not a time or goes backwards.
        """
        return self._flag(now, None)

    def _flag(self, now: float, recorded: int | None) -> int:
        """:meth:`claim_flag`; ``recorded``: the seat a replayed flag entry names, which falls
        if its reserve is the one running, whatever time it has left (:meth:`apply`)."""
        self._check_open()
        clock = self.clock
        if clock is None or clock.running is None:
            raise IllegalAction("no clock is running, so no flag can fall")
        absent = None if recorded is not None else self.no_show(now)
        if absent is not None:
            raise IllegalAction(f"seat {absent} never made its first move: the match is "
                                f"aborted, not lost on time (claim the abort)")
        seat = clock.out_of_time(now)
        if seat is None:
            seat = clock.ticking
            assert seat is not None
            if recorded != seat:
                raise IllegalAction(f"seat {seat} has {clock.remaining(seat, now):.3f} s of "
                                    f"reserve left at {now} s; no flag")
        asked, charged_from = self._asked()
        if asked is not None:
            clock.release(now)  # a flag during a wait for a device falls for that device's seat
        clock.stop(clock.running, now)
        self._record.append(Flagged(game=self._index, seat=seat, t=float(now), asked=asked,
                                    charged_from=charged_from))
        self.flagged = seat
        self.winner = 1 - seat
        return seat

    def claim_abort(self, now: float) -> int:
        """Record that the match is aborted at ``now``: a seat did not make its first action in
        time (:meth:`no_show`). Nobody wins; the score stays as played. Returns that seat.

        Raises:
            MatchOver: the match is already over.
            IllegalAction: no seat's first action is overdue at ``now``.
            ClockError: ``now`` is not a time or goes backwards.
        """
        return self._abort(now, None)

    def _abort(self, now: float, recorded: int | None) -> int:
        """:meth:`claim_abort`; ``recorded``: the seat a replayed abort entry names, which
        stands if that seat's first action was still waited for, whatever the time
        (:meth:`apply`)."""
        self._check_open()
        waited = self._first_wait()
        seat = self.no_show(now)
        if seat is None:
            if waited is None or recorded != waited[0]:
                raise IllegalAction("no seat's first action is overdue: the match cannot be "
                                    "aborted")
            seat = waited[0]
        clock = self.clock
        assert clock is not None
        asked, charged_from = self._asked()
        if asked is not None:
            clock.release(now)
        if clock.running is not None:
            clock.stop(clock.running, now)
        self._record.append(Aborted(game=self._index, seat=seat, t=float(now), asked=asked,
                                    charged_from=charged_from))
        self.aborted = seat
        return seat

    def forfeit(self, seat: int, now: float | None = None) -> None:
        """``seat`` forfeits the match: the opponent wins it, whatever the score, the turn or
        the phase (a resignation or double on offer lapses). The server records it when a
        player's account is deleted while the match is played (``docs/api.md`` §Deleting an
        account). The score stays as played; :attr:`final_score` gives the winner the length,
        as after a flag.

        Raises:
            MatchOver: the match is already over.
            ValueError: ``seat`` is not 0 or 1.
            ClockError: a match with a clock and no ``now``, or ``now`` not a time or going
                backwards.
        """
        self._check_open()
        if seat not in (0, 1):
            raise ValueError(f"a seat is 0 or 1, got {seat!r}")
        clock = self.clock
        if clock is not None:
            if now is None:
                raise ClockError("this match has a clock: pass the time of the forfeit (now=…)")
            clock.check_time(now)
            if clock.held is not None:
                clock.release(now)  # a forfeit during a wait for a device ends the wait
            if clock.running is not None:
                clock.stop(clock.running, now)
        elif now is not None:
            now = Clock.check_number(now)
        self._record.append(Forfeited(game=self._index, seat=seat,
                                      t=None if now is None else float(now)))
        self.forfeited = seat
        self.winner = 1 - seat

    # Machinery ------------------------------------------------------------------------------

    def _set_up(self, setup: Setup) -> None:
        if self.clock is not None:
            raise ValueError("a match set up from a position has no match clock")
        length, (s0, s1) = self.length, setup.score
        if length and not (0 <= s0 < length and 0 <= s1 < length):
            raise ValueError(f"a set-up score is below the match length ({length}) for both "
                             f"players, got {s0}-{s1}")
        if min(s0, s1) < 0:
            raise ValueError(f"a score is 0 or more points each, got {s0}-{s1}")
        at_crawford = length > 1 and max(s0, s1) == length - 1
        if setup.crawford and not at_crawford:
            raise ValueError(f"the Crawford game needs a player at {length - 1} in a "
                             f"{length}-point match, the score is {s0}-{s1}")
        enabled = cube_enabled(length)
        if setup.cube > 1 and (setup.crawford or not enabled):
            raise ValueError(f"a cube of {setup.cube} where there is no doubling (the Crawford "
                             f"game or a 1-point match): the cube is 1 there")
        board = Board(decode_position_id(setup.position_id), self.variant.checkers)
        game = Game.from_position(board, setup.on_roll, cube=setup.cube,
                                  cube_owner=setup.cube_owner, cube_enabled=enabled,
                                  crawford=setup.crawford, jacoby=self.jacoby,
                                  beavers=self.beavers)
        # from_position knows a variant only by its checkers (nackgammon has 15, as standard).
        game.variant = self.variant
        if setup.dice is not None:
            game.roll(setup.on_roll, *setup.dice)
        self._score = [s0, s1]
        self._crawford_played = at_crawford
        self.games.append(game)

    @property
    def _index(self) -> int:
        return len(self.games) - 1

    def _check_open(self) -> None:
        if self.aborted is not None:
            raise MatchOver(f"the match was aborted: seat {self.aborted} did not make its first "
                            f"move in time")
        if self.winner is not None:
            how = ("on time" if self.flagged is not None else "by forfeit"
                   if self.forfeited is not None else f"{self.score[0]}-{self.score[1]}")
            raise MatchOver(f"the match is over: seat {self.winner} won {how}")

    def _act(self, seat: int | None, now: float | None, action: Callable[[], Any],
             entry: Callable[[Any], Action], rolls: bool = False) -> Any:
        """Run a game action with the clock and the record: every check first (match over,
        clock, the game's own checks), then the changes, which cannot fail. ``rolls``: the
        action is a roll, the only one that ends a wait for a device (:meth:`await_device`)."""
        self._check_open()
        clock = self.clock
        if clock is not None:
            if now is None:
                raise ClockError("this match has a clock: pass the time of the action (now=…)")
            absent = self.no_show(now)
            if absent is not None and not self._replaying:
                raise TimeExpired(f"seat {absent} did not make its first move in time: the "
                                  f"match is aborted (claim the abort)")
            late = clock.out_of_time(now)
            if late is not None and not self._replaying:
                raise TimeExpired(f"seat {late}'s reserve ran out at {clock.deadline()} s; "
                                  f"the flag must be claimed")
            if clock.held is not None and not rolls:
                raise WrongPhase(f"the dice are being rolled (waiting for seat "
                                 f"{clock.held[0]}'s device): roll first")
            clock.check_time(now)
        elif now is not None:
            now = Clock.check_number(now)
        actor = seat if seat is not None else self.opening_roller
        result = action()
        self._record.append(entry(result))
        self._acted[actor] = True
        ended = self.game.result
        if ended is not None:
            self._end_game(ended)
        if clock is not None and now is not None:
            if clock.held is not None:
                clock.release(now)  # the wait is over: the roller's period goes on
            decider = self.waiting_for  # the next opening roller once a game has ended
            # A game's end ends the running move; the next game starts with a fresh delay.
            if clock.running is not None and (ended is not None or clock.running != decider):
                clock.stop(clock.running, now)
            if decider is not None and clock.running is None:
                clock.start_turn(decider, now)
        return result

    def _end_game(self, result: GameResult) -> None:
        self.results.append(result)
        self._score[result.winner] += result.points
        if self.length and self._score[result.winner] >= self.length:
            self.winner = result.winner
        else:
            self._new_game()

    def _new_game(self) -> None:
        crawford = (self.length > 1 and not self._crawford_played
                    and max(self._score) == self.length - 1)
        self._crawford_played = self._crawford_played or crawford
        self.games.append(Game(self.variant, cube_enabled=cube_enabled(self.length),
                               crawford=crawford, jacoby=self.jacoby, beavers=self.beavers))

    # Persistence ----------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The record as a JSON-ready dict: header, actions, and the score and winner for a
        consistency check when reading it back."""
        tc = self.time_control
        return {
            "format": "boardgammon-match",
            "version": RECORD_VERSION,
            "length": self.length,
            "variant": self.variant.value,
            "players": list(self.players),
            "time_control": asdict(tc) if tc is not None else None,
            "jacoby": self.jacoby,
            **({"beavers": True} if self.beavers else {}),
            "start": self.start,
            **({"setup": self.setup.to_dict()} if self.setup is not None else {}),
            "actions": [a.to_dict() for a in self._record],
            "score": list(self.score),
            "winner": self.winner,
        }

    def to_json(self, indent: int | None = None) -> str:
        """The record as JSON text (:meth:`to_dict`)."""
        return json.dumps(self.to_dict(), indent=indent)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Match:
        """Rebuild a match by replaying a record made by :meth:`to_dict`.

        Raises:
            InvalidRecord: wrong format, an action the rules refuse, or a final score or
                winner different from the stored one.
        """
        if not isinstance(data, dict) or data.get("format") != "boardgammon-match":
            raise InvalidRecord("not a boardgammon match record")
        if data.get("version") != RECORD_VERSION:
            raise InvalidRecord(f"record version {data.get('version')!r} is not supported "
                                f"(this is version {RECORD_VERSION})")
        players, actions = data.get("players"), data.get("actions")
        if (not isinstance(players, list) or len(players) != 2
                or not all(isinstance(n, str) and n.strip() and n.isprintable() for n in players)):
            raise InvalidRecord(f"the record's players are not two names (one line of text "
                                f"each): {players!r}"[:300])
        if not isinstance(actions, list):
            raise InvalidRecord(f"the record's actions are not a list: {actions!r}"[:300])
        tc = data.get("time_control")
        if tc is not None and not isinstance(tc, dict):
            raise InvalidRecord(f"the record's time_control is {tc!r}, not an object with "
                                f"delay and reserve_per_point (seconds)"[:300])
        setup = data.get("setup")
        try:
            match = cls(data["length"], data["variant"], tuple(data["players"]),
                        TimeControl(**tc) if tc else None, bool(data.get("jacoby", False)),
                        data.get("start"), Setup.from_dict(setup) if setup is not None else None,
                        bool(data.get("beavers", False)))
        except InvalidRecord:
            raise
        except (KeyError, TypeError, ValueError, EngineError) as exc:
            raise InvalidRecord(f"the record does not replay: {exc}") from exc
        for i, raw in enumerate(data["actions"]):
            try:
                action = action_from_dict(raw)
                if action.game != match._index:
                    raise InvalidRecord(f"it belongs to game {action.game}, but the match is "
                                        f"in game {match._index}")
                match.apply(action)
            except (KeyError, TypeError, ValueError, EngineError) as exc:
                # Which action breaks, for someone editing the file by hand.
                kind = raw.get("kind") if isinstance(raw, dict) else None
                what = f"action {i}" + (f" ({kind})" if isinstance(kind, str) else "")
                raise InvalidRecord(f"{what[:60]}: {exc}") from exc
        if list(match.score) != data.get("score") or match.winner != data.get("winner"):
            raise InvalidRecord(f"the replay ends at {_score_text(match.score, match.winner)}, "
                                f"the record says "
                                f"{_score_text(data.get('score'), data.get('winner'))}"[:300])
        return match

    @classmethod
    def from_json(cls, text: str) -> Match:
        """Rebuild a match from :meth:`to_json` text (see :meth:`from_dict`)."""
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as exc:  # incl. numbers past Python's digit limit
            raise InvalidRecord(f"the record is not JSON: {exc}") from exc
        return cls.from_dict(data)

    def apply(self, action: Action) -> None:
        """Apply one record entry (replay); raises as the matching method would, except for
        the clock: an entry is not refused for a reserve run out before its time, and a flag
        entry falls for the seat whose reserve was running even with time left. The record
        says what was made in time; replayed under a clock rule that charges a little more or
        less than when it was played (a fix of the rule), a stored match must still load.

        Raises:
            InvalidRecord, and the refusals of the matching method (see above).
        """
        self._replaying = True
        try:
            self._apply(action)
        finally:
            self._replaying = False

    def _apply(self, action: Action) -> None:
        t = action.t
        asked = getattr(action, "asked", None)
        if asked is not None and self.clock is not None:
            # The roll (or flag) came after a wait for the device of the seat not running; a
            # replay without the clock (an export, an analysis) has no time to charge.
            running = self.clock.running
            self.await_device(1 - running if running is not None else 0, asked,
                              getattr(action, "charged_from", None))
        match action:
            case OpeningRolled(dice=dice):
                self.roll_opening(*dice, now=t)
            case Rolled(seat=seat, dice=dice):
                self.roll(seat, *dice, now=t)
            case Played(seat=seat, dice=dice, play=play):
                # The record states the dice and the cube value; a record that disagrees with
                # the game it replays was altered, so it must not replay silently.
                rolled = self.game.dice
                if rolled is not None and dice != rolled:
                    raise InvalidRecord(f"the play names the roll {_roll_text(dice)}, but "
                                        f"the dice rolled are {_roll_text(rolled)}")
                self.play(seat, play, now=t)
            case Doubled(seat=seat, value=value):
                if value != self.game.cube * 2:
                    raise InvalidRecord(f"the double names a cube of {value}, but doubling "
                                        f"now turns the cube to {self.game.cube * 2}")
                self.double(seat, now=t)
            case Beavered(seat=seat, value=value):
                if value != self.game.cube * 4:
                    raise InvalidRecord(f"the beaver names a cube of {value}, but a beaver now "
                                        f"offers {self.game.cube * 4}")
                self.beaver(seat, now=t)
            case Took(seat=seat):
                self.take(seat, now=t)
            case Dropped(seat=seat):
                self.drop(seat, now=t)
            case Resigned(seat=seat, points=points):
                self.resign(seat, points, now=t)
            case Accepted(seat=seat):
                self.accept(seat, now=t)
            case Declined(seat=seat):
                self.decline(seat, now=t)
            case Flagged(seat=seat, t=when):
                if self._flag(when, seat) != seat:
                    raise InvalidRecord(f"the flag fell for seat {1 - seat}, not seat {seat}")
            case Forfeited(seat=seat):
                self.forfeit(seat, now=t)
            case Aborted(seat=seat, t=when):
                if self._abort(when, seat) != seat:
                    raise InvalidRecord(f"the abort was for seat {1 - seat}, not seat {seat}")


def _score_text(score: Any, winner: Any) -> str:
    """A score and winner for a message: ``3-1, won by seat 0`` (as stored when malformed)."""
    if isinstance(score, (list, tuple)) and len(score) == 2:
        text = f"{score[0]}-{score[1]}"
    else:
        text = f"score {json.dumps(score, default=repr)}"
    if winner is None:
        return f"{text}, no winner"
    return f"{text}, won by seat {winner}" if winner in (0, 1) else f"{text}, winner {winner!r}"


def _roll_text(dice: tuple[int, int]) -> str:
    return "-".join(str(d) for d in dice)
