"""Per-decision analysis of a match: every checker play and cube decision of both players, and
the luck of every roll, at match score and cube state.

:func:`analyse_match` replays a match record (:class:`boardgammon.engine.Match`) and judges
each decision with an :class:`~.evaluator.Evaluator`:

* **Checker plays.** Every legal play of the roll is valued at 0-ply; with ``plies`` > 0 the
  best of that ranking (:data:`CANDIDATES`, :data:`FILTER`) and the play made are valued again
  at ``plies`` (gnubg's move filter works the same way: a deep search only for the plays a
  shallow one ranks near the top). The equity lost is the value of the best play minus the
  value of the play made. A roll with a single legal play (forced) or none (a dance) is
  recorded but is no decision.
* **Cube decisions.** Before each roll where the player on roll may double, the no-double /
  double-take / double-drop values of the position (outputs at ``plies``) decide what was
  right, with the cubeful models of :mod:`boardgammon.cube.cubeful` (Janowski for money play,
  the cube curves of :mod:`boardgammon.cube.met` for match play). An offered double is
  judged for the doubler, the answer for the taker. Not doubling is no decision where the cube
  is dead (:attr:`Context.cube_dead_for_me <boardgammon.cube.Context.cube_dead_for_me>`:
  the current cube already wins the match for the player on roll).
* **Luck** of every roll (see :mod:`.luck`).

Units (gnubg's convention for match play, ``mwc2eq`` in gnubg's ``eval.c``): values are
match-winning chances (MWC) and are reported as *normalised* equity (EMG, "equivalent to
money game"), ``e = (2·mwc − (W + L)) / (W − L)``, with ``W`` and ``L`` the mover's MWC after
winning and after losing a single game at the current cube; an MWC difference ``d`` is
``2·d / (W − L)`` EMG. In money play values are equity per unit of the current cube. Checker
plays are valued cubefully, as gnubg does: the resulting position with the opponent on roll
playing the cube right (:func:`~boardgammon.cube.cubeful.cubeful_play_values`: no double,
or double answered right, by the cube models above). Luck is cubeful too (see :mod:`.luck`).

Marks use the thresholds gnubg 1.07 applies to the equity lost (EMG; its ``show analysis``
prints them, ``arSkillLevel`` in its ``analysis.c``): doubtful "?!" ≥ 0.03, bad "?" ≥ 0.06, very
bad "??" ≥ 0.12 (:data:`MARKS`; the JSON keys ``doubtful`` / ``error`` / ``blunder`` name them).

**The judge.** The analysis names its evaluator and depth (:func:`judge_name`: "our network at
2-ply"). A player whose own engine is that judge (a bot level that ranks plays with the same
network at the same depth, :func:`engine_plies`) is judged against itself: its checker plays
lose nothing or next to nothing (hard searches a wider set of candidates than the analysis),
and :attr:`MatchAnalysis.self_judged` flags it.

Why one module of some 500 lines: one replay of the match walks every decision (checker plays,
doubles, takes, resignations) with the same judge and the same match facts; luck is in
:mod:`.luck`, the report's text and JSON in :mod:`.report`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TypedDict

import numpy as np

from boardgammon.bots import exact_cube
from boardgammon.bots.network import cubeless_equity
from boardgammon.bots.neural import NetworkEvaluator
from boardgammon.cube import Context, context_for, cubeful, met
from boardgammon.engine import Board, Match, Phase
from boardgammon.engine.record import Resigned

from . import luck as luck_mod
from .errors import UnavailableDepth
from .evaluator import Evaluator, terminal_outputs

ANALYSIS_VERSION = 17
"""Raised whenever a change alters what the analysis finds (its rules or the shipped weights),
so that stored analyses are made again: 1 the first; 2 no cube decision where the cube is
dead, match cube values from the position's own gammon chances, the 3,400,000-game network;
3 the published Kazaross-XG2 match equity table (:mod:`boardgammon.cube.met`) instead of the
computed one, take points from the position's own gammon shares, checker plays and luck valued
cubefully;
4 money-play cube efficiency 0.70 in races instead of 0.80; 5 post-Crawford games valued
with the trailer's cube live (was dead: missed doubles there cost two to three times gnubg's);
6 gnubg's cube efficiency by position, money and match
(:func:`boardgammon.cube.cubeful.cube_efficiency`); 7 Hypergammon valued by its own network;
8 the 7,025,000-game network; 9 at depths above 0 the alternatives after the plays searched
deeper are the next best by their 0-ply values (were in generation order); 10 gnubg 1.07's
marks (0.03 / 0.06 / 0.12 EMG instead of 0.04 / 0.08 / 0.16), the judge named and a player
judged by its own engine flagged; 11 the final score as the match's result shows it (a
backgammon in a 1-point match is 1–0, was 0–3); 12 the network fitted to the order of its own
2-ply values on 46,602 decisions (docs/neural.md, "The order of plays on 46,602 decisions");
13 the network of 227 inputs fitted on 146,655 decisions (docs/neural.md, "18 more inputs,
fitted on 146,655 decisions"); 14 the network of 235 inputs fitted on 154,780 decisions
(docs/neural.md, "8 more inputs: double hits, race lead, blocked checkers, a hit's cost"); 15
that network fitted again on 173,892 decisions, stopped on shards it had never seen
(docs/neural.md, "A held-out set the network has never seen"); 16 a cube decision losing less
than :data:`NEGLIGIBLE` is no error (it showed as "missed double (lost 0.000)"), plays of equal
value ordered by cubeless equity; 17 the network joined with a race network of its own
(docs/neural.md, "A race network of its own, at no cost in speed")."""
CANDIDATES = 5
FILTER = 0.16
"""With ``plies`` > 0, the plays re-valued at the analysis depth besides the play made: the best
``CANDIDATES`` of the 0-ply ranking within ``FILTER`` EMG of its best (gnubg's default move
filter keeps up to 8 within 0.16 at 0-ply)."""
SHOWN = 5
"""Best alternatives kept per checker decision for the per-move review."""
DOUBTFUL, ERROR, BLUNDER = 0.03, 0.06, 0.12
"""gnubg 1.07's thresholds (EMG) for doubtful, bad and very bad decisions (its ``show
analysis``; ``tests/analysis/test_marks_gnubg.py`` reads them from gnubg)."""
MARKS = {"doubtful": "?!", "error": "?", "blunder": "??"}
"""gnubg's mark of each skill label: doubtful "?!", bad "?" (``error``), very bad "??"
(``blunder``)."""
SKILL_NAMES = {"doubtful": "doubtful", "error": "bad", "blunder": "very bad"}
"""gnubg's word for each skill label, for texts."""
CLOSE_CUBE = 0.16
"""A no-double counts as a cube decision when doubling would lose less than this (EMG), or was
right: gnubg's ``isCloseCubedecision``; an actual double, take or drop always counts."""
HOPELESS = -1.0
"""A no-double whose equity (EMG) is at most this is never a close decision unless doubling
was right (issue 26: no-doubles at -3.2 were listed among the close ones)."""


def skill(loss: float) -> str | None:
    """``"blunder"``, ``"error"``, ``"doubtful"`` or ``None`` for an equity loss in EMG."""
    if loss >= BLUNDER:
        return "blunder"
    if loss >= ERROR:
        return "error"
    if loss >= DOUBTFUL:
        return "doubtful"
    return None


def mark(loss: float) -> str:
    """gnubg's mark of an equity loss in EMG: ``"??"``, ``"?"``, ``"?!"`` or ``""``."""
    label = skill(loss)
    return MARKS[label] if label else ""


def judge_name(plies: int, evaluator: Evaluator | None = None) -> str:
    """The judge of an analysis at ``plies`` in words: ``"our network at 2-ply"`` for the
    network (``evaluator`` ``None`` or a :class:`~boardgammon.bots.neural.NetworkEvaluator`),
    else the evaluator's class name (``"PipEvaluator at 0-ply"``)."""
    if evaluator is None or isinstance(evaluator, NetworkEvaluator):
        return f"our network at {plies}-ply"
    return f"{type(evaluator).__name__} at {plies}-ply"


def engine_plies(level: str | None) -> int | None:
    """The depth at which bot level ``level`` ranks plays with the analysis's network (medium
    0, hard 2), ``None`` for a level that does not play by it (easy), a human (``None``) or an
    unknown name."""
    from boardgammon.bots import create, levels
    from boardgammon.bots.neural import NeuralBot

    if level not in levels():
        return None
    bot = create(level)
    return bot.rank_plies if isinstance(bot, NeuralBot) else None


@dataclass(frozen=True)
class Stakes:
    """How values are measured for one side at one score and cube (its ``context``).

    ``value`` maps outputs to MWC (match) or equity per cube (money); ``emg`` turns a value
    difference into normalised equity and ``equity`` an absolute value (see the module
    docstring).
    """

    context: Context

    @property
    def match(self) -> bool:
        return self.context.length > 0

    def _ends(self) -> tuple[float, float]:
        """(W, L): the side's MWC after winning / losing a single game at the current cube."""
        c = self.context
        a, b, post = c.away
        return (met.match_equity(a - c.cube_value, b, post),
                met.match_equity(a, b - c.cube_value, post))

    @property
    def value_per_emg(self) -> float:
        """Value units in one EMG: ``(W − L) / 2`` in a match, 1 in money play."""
        if not self.match:
            return 1.0
        w, lose = self._ends()
        return (w - lose) / 2.0

    def value(self, outputs: np.ndarray, afters: np.ndarray | None = None) -> np.ndarray:
        """Values ``float64[P]`` of positions right after the side's play, from their outputs
        ``[P, 5]`` (the side's view): cubeful (the opponent on roll then plays the cube
        right, :func:`~boardgammon.cube.cubeful.cubeful_play_values`) when the positions
        ``afters`` (``int8[P, 2, 25]``, the side's view) are given, else with the cube dead at
        its level."""
        if afters is None:
            return np.asarray(cubeful.play_utility(outputs, self.context), dtype=np.float64)
        return cubeful.cubeful_play_values(outputs, self.context, afters)

    def emg(self, delta: float) -> float:
        """A value difference in normalised equity (EMG)."""
        return float(delta) / self.value_per_emg

    def equity(self, value: float) -> float:
        """An absolute value as normalised equity (EMG)."""
        if not self.match:
            return float(value)
        w, lose = self._ends()
        return (2.0 * float(value) - (w + lose)) / (w - lose)


@dataclass(frozen=True)
class Candidate:
    """One legal play with its value: ``equity`` in EMG for the mover, ``plies`` the depth it
    was valued at."""

    play: str
    equity: float
    plies: int


@dataclass(frozen=True)
class CheckerDecision:
    """A roll played by ``seat`` in game ``game`` (0-based), the ``turn``-th roll of that game.

    Attributes:
        position_id: gnubg Position ID before the roll (``seat``'s view).
        dice: the roll; play: the play made (standard notation, ``""`` a dance).
        legal: number of legal plays (1 = forced, no decision).
        best: the best plays, best first (at most :data:`SHOWN`, plus the play made if it
            ranks lower).
        loss: equity lost by the play made, EMG (0 for the best play and forced plays).
        loss_mwc: the same in MWC (match play; in money play equity per cube, = ``loss``).
        score, cube, cube_owner: the match score (seat 0, seat 1) and cube before the roll.
    """

    game: int
    turn: int
    seat: int
    position_id: str
    dice: tuple[int, int]
    play: str
    legal: int
    best: tuple[Candidate, ...]
    loss: float
    loss_mwc: float
    score: tuple[int, int]
    cube: int
    cube_owner: int | None

    @property
    def forced(self) -> bool:
        """A single legal play or a dance: no decision."""
        return self.legal <= 1

    @property
    def skill(self) -> str | None:
        return skill(self.loss)

    @property
    def mark(self) -> str:
        return mark(self.loss)


NEGLIGIBLE = 0.0005
"""EMG below which a loss is rounding, not an error (it prints as 0.000): resignations and cube
decisions."""

CUBE_ERRORS = ("missed double", "wrong double", "wrong take", "wrong drop")


@dataclass(frozen=True)
class CubeDecision:
    """A cube decision: ``kind`` ``"double"`` (the player on roll, ``seat``, doubled or not) or
    ``"take"`` (``seat`` answered a double).

    Attributes:
        action: ``no double``, ``double``, ``take`` or ``drop``.
        nd, dt, dp: no double, double/take, double/drop in EMG for the *doubler*.
        loss: equity the decision lost, EMG (≥ 0); loss_mwc in MWC.
        close: counts as a decision (see :data:`CLOSE_CUBE`).
        error: one of :data:`CUBE_ERRORS` when the decision lost equity, else ``None``.
    """

    game: int
    turn: int
    seat: int
    kind: str
    position_id: str
    action: str
    nd: float
    dt: float
    dp: float
    loss: float
    loss_mwc: float
    close: bool
    error: str | None
    score: tuple[int, int]
    cube: int
    cube_owner: int | None

    @property
    def best(self) -> str:
        """The right action: for the doubler ``double, take`` / ``double, drop`` / ``no
        double`` (``too good`` when not doubling because the game is worth more than the drop);
        for the taker ``take`` or ``drop``."""
        if self.kind == "take":
            return "take" if self.dt <= self.dp else "drop"
        if min(self.dt, self.dp) > self.nd:
            return "double, take" if self.dt <= self.dp else "double, drop"
        return "too good" if self.nd > self.dp and self.dt > self.dp else "no double"

    @property
    def skill(self) -> str | None:
        return skill(self.loss)

    @property
    def mark(self) -> str:
        return mark(self.loss)


@dataclass(frozen=True)
class ResignationDecision:
    """A resignation offered, or the answer to one, judged by the game played on (a dead cube,
    as the bots judge resignations: :func:`~boardgammon.cube.cubeful.resignation_values`).

    Attributes:
        seat: the side deciding (the resigner for ``offer``, the other for ``accept`` and
            ``decline``); kind: ``offer``, ``accept`` or ``decline``.
        points: points offered (1 single, 2 gammon, 3 backgammon; times the cube).
        accepted, played_on: EMG of the offered side for accepting and for playing on.
        loss: EMG the decision lost (≥ 0): an offer of more than the game is worth, an
            accepted resignation worth less than playing on, a declined one worth more.
        error: ``resigned too much``, ``wrong accept``, ``wrong decline`` or ``None``.
    """

    game: int
    turn: int
    seat: int
    kind: str
    points: int
    cube: int
    position_id: str
    accepted: float
    played_on: float
    loss: float
    error: str | None


@dataclass
class MatchAnalysis:
    """Everything :func:`analyse_match` found, in the order of the match.

    Attributes:
        players: names of seat 0 and seat 1; length: match length (0 money play).
        score, winner: the final score (:attr:`.Match.final_score`: a finished match's winner
            at the length, as its result shows it) and the winner's seat (``None`` if
            unfinished).
        plies: analysis depth; checker, cube, luck: the decisions and rolls, in order.
        points: points each seat won in the match (money play: per seat totals).
        self_judged: per seat, whether its engine is the judge (:func:`engine_plies` equal to
            ``plies``): its PR measures agreement with itself, not skill.
        judge: the evaluator and depth in words (:func:`judge_name` for the network).
    """

    players: tuple[str, str]
    length: int
    score: tuple[int, int]
    winner: int | None
    plies: int
    checker: list[CheckerDecision] = field(default_factory=list)
    cube: list[CubeDecision] = field(default_factory=list)
    luck: list[luck_mod.RollLuck] = field(default_factory=list)
    resignations: list[ResignationDecision] = field(default_factory=list)
    self_judged: tuple[bool, bool] = (False, False)
    judge: str = ""


@dataclass(frozen=True)
class Ranking:
    """The legal plays of a roll as :meth:`_Judge.rank` values them, index by index.

    Attributes:
        plays: the plays in standard notation (generation order).
        outputs: ``float64[P, 5]`` outcome chances after each play, the mover's view.
        values: ``float64[P]`` cubeful value for the mover (MWC in a match, equity per cube in
            money play, :class:`Stakes`).
        depth: the depth each play was valued at; order: indices best first.
    """

    plays: tuple[str, ...]
    outputs: np.ndarray
    values: np.ndarray
    depth: np.ndarray
    order: np.ndarray


class _Judge:
    """Values positions for one analysis run (one evaluator, one depth)."""

    def __init__(self, evaluator: Evaluator, plies: int, checkers: int) -> None:
        self.evaluator, self.plies, self.checkers = evaluator, plies, checkers

    def after_outputs(self, afters: np.ndarray, plies: int) -> np.ndarray:
        """Outputs ``[P, 5]`` from the mover's view of positions right after the mover's play
        (``int8[P, 2, 25]``, mover's view): exact for finished games, else the evaluator on the
        opponent's view, flipped."""
        out = np.empty((len(afters), 5), dtype=np.float64)
        live = []
        for i, a in enumerate(afters):
            done = terminal_outputs(a, self.checkers)
            if done is None:
                live.append(i)
            else:
                out[i] = done
        if live:
            theirs = np.asarray(self.evaluator.evaluate(
                np.ascontiguousarray(afters[live][:, ::-1]), self.checkers, plies),
                dtype=np.float64)
            out[live] = np.stack([1.0 - theirs[:, 0], theirs[:, 3], theirs[:, 4], theirs[:, 1],
                                  theirs[:, 2]], axis=-1)
        return out

    def rank(self, board: Board, dice: tuple[int, int], stakes: Stakes,
             made: int | None = None, candidates: int = CANDIDATES, window: float = FILTER
             ) -> Ranking:
        """Every legal play of ``dice`` ranked for the player on roll: all at 0-ply, then the
        best ``candidates`` of that ranking within ``window`` EMG of its best (by default
        :data:`CANDIDATES` within :data:`FILTER`) and the play at index ``made`` again at the
        judge's depth. Plays of equal value (say, each as good as a drop of the double it
        leaves the opponent) are ordered by their cubeless equity."""
        plays = board.legal_plays(*dice)
        afters = np.stack([p.board_after.array for p in plays])
        outputs = self.after_outputs(afters, 0)
        values = stakes.value(outputs, afters)
        depth = np.zeros(len(plays), dtype=int)
        if self.plies and len(plays) > 1:
            order = np.argsort(-values, kind="stable")[:candidates]
            near = order[values[order] >= values[order[0]] - window * stakes.value_per_emg]
            deep = sorted(set(near.tolist()) | ({made} if made is not None else set()))
            outputs[deep] = self.after_outputs(afters[deep], self.plies)
            values[deep] = stakes.value(outputs[deep], afters[deep])
            depth[deep] = self.plies
        # Plays searched deeper come first, compared only with each other (a 0-ply value is not
        # on the same scale, and the best play is among the searched ones by construction);
        # the others follow in their 0-ply order, so the review's alternatives are the next
        # best plays. np.lexsort is stable and sorts by its last key first; ties of value go
        # to the better cubeless equity (a hint's rows at the same capped value read best
        # first, as gnubg's cubeful equities, which are not capped, would order them).
        order = np.lexsort((-np.asarray(cubeless_equity(outputs)), -values, -depth))
        return Ranking(tuple(str(p) for p in plays), outputs, values, depth, order)

    def checker(self, board: Board, dice: tuple[int, int], made: str, stakes: Stakes
                ) -> tuple[int, tuple[Candidate, ...], float, float]:
        """(legal count, best candidates, loss EMG, loss in value units) of playing ``made``."""
        names = [str(p) for p in board.legal_plays(*dice)]
        index = names.index(made)
        if len(names) <= 1:
            return len(names), (), 0.0, 0.0
        r = self.rank(board, dice, stakes, index)
        best = int(r.order[0])
        loss_value = max(0.0, float(r.values[best] - r.values[index]))
        shown = [int(i) for i in r.order[:SHOWN]]
        if index not in shown:
            shown.append(index)
        cands = tuple(Candidate(names[i], stakes.equity(r.values[i]), int(r.depth[i]))
                      for i in shown)
        return len(names), cands, stakes.emg(loss_value), loss_value

    def pre_roll(self, board: Board) -> np.ndarray:
        """Outputs of ``board`` (player on roll's view, before the roll) at the depth."""
        return np.asarray(self.evaluator.evaluate(np.ascontiguousarray(board.array[None]),
                                                  self.checkers, self.plies)[0],
                          dtype=np.float64)


def analyse_match(match: Match, evaluator: Evaluator | None = None, plies: int = 0,
                  progress: Callable[[int, int], None] | None = None,
                  engines: tuple[str | None, str | None] = (None, None)) -> MatchAnalysis:
    """Analyse every decision and roll of ``match`` (finished or not).

    Args:
        match: the match; its record is replayed from the start (clocks and flags are not
            analysed; resignations are, apart from the PR).
        evaluator: the model (default: :class:`~boardgammon.bots.neural.NetworkEvaluator`).
        plies: search depth, 0 up to ``evaluator.max_plies``.
        progress: called as ``progress(done, total)`` after each record action.
        engines: the bot level of each seat (``None`` for a human), to flag a seat whose
            engine is the judge (:attr:`MatchAnalysis.self_judged`); only for the shipped
            network (``evaluator`` ``None``).

    Raises:
        UnavailableDepth: (a ``ValueError``) ``plies`` outside what the evaluator offers.
    """
    self_judged = (False, False)
    if evaluator is None:
        evaluator = NetworkEvaluator()
        depths = [engine_plies(level) for level in engines]
        self_judged = (depths[0] == plies, depths[1] == plies)
    if not isinstance(plies, int) or not 0 <= plies <= evaluator.max_plies:
        raise UnavailableDepth(f"the search depth is 0 to {evaluator.max_plies} plies for this "
                               f"evaluator, got {plies!r}")
    replay = Match(match.length, match.variant, match.players, None, match.jacoby,
                   setup=match.setup, beavers=match.beavers)
    judge = _Judge(evaluator, plies, replay.game.board.checkers)
    result = MatchAnalysis(match.players, match.length, match.final_score, match.winner, plies,
                           self_judged=self_judged, judge=judge_name(plies, evaluator))
    record = match.record
    turns: dict[int, int] = {}
    doubled: tuple[CubeDecision, np.ndarray] | None = None
    offer: ResignationDecision | None = None
    for n, action in enumerate(record):
        if action.kind == "flag" or action.kind == "forfeit" or action.kind == "abort":
            break
        g = replay.game
        seat = action.seat
        where = _Where(game=action.game, score=replay.score, cube=g.cube,
                       cube_owner=g.cube_owner)
        if seat is None:
            pass  # the opening roll: both seats', no decision of either
        elif (action.kind in ("roll", "double") and g.phase is Phase.ROLL and g.can_double(seat)
                and (action.kind == "double"
                     or not context_for(replay, seat).cube_dead_for_me)):
            decision, outputs = _double(judge, replay, seat, action.kind == "double",
                                        turns.get(action.game, 0), where)
            result.cube.append(decision)
            doubled = (decision, outputs) if action.kind == "double" else None
        elif action.kind in ("take", "drop", "beaver") and doubled is not None:
            result.cube.append(_answer(doubled[0], replay, seat, action.kind, where))
            doubled = None  # after a beaver, the doubler's answer is not judged
        elif isinstance(action, Resigned):
            offer = _resignation(judge, replay, action.seat, action.points,
                                 turns.get(action.game, 0), where)
            result.resignations.append(offer)
        elif action.kind in ("accept", "decline") and offer is not None:
            result.resignations.append(_answer_resignation(offer, action.kind))
            offer = None
        elif action.kind == "play":
            turn = turns.get(action.game, 0)
            turns[action.game] = turn + 1
            stakes = Stakes(context_for(replay, seat))
            board, dice = g.board, g.dice
            if dice is None:
                raise ValueError(f"record action {n}: a play without dice rolled")
            legal, cands, loss, loss_value = judge.checker(board, dice, action.play, stakes)
            result.checker.append(CheckerDecision(
                turn=turn, seat=seat, position_id=board.position_id,
                dice=dice, play=action.play, legal=legal, best=cands, loss=loss,
                loss_mwc=loss_value, **where))
            result.luck.append(luck_mod.roll_luck(judge, board, dice, stakes, action.game,
                                                  turn, seat, opening=turn == 0))
        replay.apply(replace(action, t=None))
        if progress is not None:
            progress(n + 1, len(record))
    return result


class _Where(TypedDict):
    """The fields every decision of an action takes from the match before it."""

    game: int
    score: tuple[int, int]
    cube: int
    cube_owner: int | None


def _resignation(judge: _Judge, m: Match, seat: int, points: int, turn: int, where: _Where
                 ) -> ResignationDecision:
    """``seat``'s offer to resign ``points``, valued for the side offered it."""
    g = m.game
    other = 1 - seat
    outputs = judge.pre_roll(g.board)  # the player on roll's view
    if g.on_roll != other:
        outputs = np.array([1.0 - outputs[0], outputs[3], outputs[4], outputs[1], outputs[2]])
    stakes = Stakes(context_for(m, other))
    accepted, played_on = cubeful.resignation_values(outputs, stakes.context, points)
    loss = max(0.0, stakes.emg(accepted - played_on))
    return ResignationDecision(
        game=where["game"], turn=turn, seat=seat, kind="offer", points=points, cube=g.cube,
        position_id=g.board.position_id, accepted=stakes.equity(accepted),
        played_on=stakes.equity(played_on), loss=loss,
        error="resigned too much" if loss >= NEGLIGIBLE else None)


def _answer_resignation(offer: ResignationDecision, answer: str) -> ResignationDecision:
    """The offered side's ``accept`` or ``decline`` of ``offer``."""
    gain = offer.accepted - offer.played_on  # EMG, > 0: accepting is right
    loss = max(0.0, -gain) if answer == "accept" else max(0.0, gain)
    return replace(offer, seat=1 - offer.seat, kind=answer, loss=loss,
                   error=f"wrong {answer}" if loss >= NEGLIGIBLE else None)


def _double(judge: _Judge, m: Match, seat: int, doubled: bool, turn: int, where: _Where
            ) -> tuple[CubeDecision, np.ndarray]:
    """The doubler's decision (``doubled`` or not) before a roll."""
    board = m.game.board
    stakes = Stakes(context_for(m, seat))
    outputs = judge.pre_roll(board)
    nd, dt, dp = exact_cube.decision_values(board, outputs, stakes.context)
    right = min(dt, dp)
    if doubled:
        loss_value = max(0.0, nd - right)
        kind = "wrong double"
    else:
        loss_value = max(0.0, right - nd)
        kind = "missed double"
    loss = stakes.emg(loss_value)
    # An error needs a loss a report shows (a fresh user saw "missed double (lost 0.000)").
    error = kind if loss >= NEGLIGIBLE else None
    # A no-double no better than losing a single game for sure is hopeless, however little
    # doubling would cost (a dead cube at a lost score): not a decision anyone weighed.
    hopeless = stakes.equity(nd) <= HOPELESS
    close = doubled or loss > 0 or (not hopeless and stakes.emg(nd - right) < CLOSE_CUBE)
    decision = CubeDecision(
        game=where["game"], turn=turn, seat=seat, kind="double",
        position_id=board.position_id, action="double" if doubled else "no double",
        nd=stakes.equity(nd), dt=stakes.equity(dt), dp=stakes.equity(dp), loss=loss,
        loss_mwc=loss_value, close=close, error=error, score=where["score"], cube=where["cube"],
        cube_owner=where["cube_owner"])
    return decision, outputs


def _answer(double: CubeDecision, m: Match, seat: int, action: str, where: _Where
            ) -> CubeDecision:
    """The taker's answer to ``double``: ``take``, ``drop`` or, where the game plays them,
    ``beaver``. Values are in the doubler's EMG, so the taker's loss is how much more its
    answer gives the doubler than the best answer. A beaver gives the doubler twice
    double/take, or twice the drop's loss if the doubler then drops (it picks the better);
    a wrong beaver counts as a wrong take (a beaver is a take that redoubles at once)."""
    stakes = Stakes(context_for(m, 1 - seat))
    values = {"take": double.dt, "drop": double.dp}
    if m.game.beavers:
        values["beaver"] = max(2.0 * double.dt, -2.0 * double.dp)
    loss = max(0.0, values[action] - min(values.values()))
    error = None if loss < NEGLIGIBLE else "wrong drop" if action == "drop" else "wrong take"
    return replace(double, seat=seat, kind="take", action=action, loss=loss,
                   loss_mwc=loss * stakes.value_per_emg, close=True, error=error, **where)
