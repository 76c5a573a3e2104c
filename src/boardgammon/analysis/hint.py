"""Hints for the player on roll, from the strongest evaluator whatever the opponent's level: the
analysis's own judge (our network at :data:`HINT_PLIES`), so that a hint and the later analysis
of the same decision agree.

* :func:`play_hint`: every legal play of the roll, best first, ranked and shown by the same
  quantity: cubeful match-winning chance (MWC, 0…1) in a match, cubeful equity per unit of the
  current cube in money play (:class:`~.analysis.Stakes`), with the outcome chances after each
  play. Plays are first valued at 0-ply; the best (as many as hard searches:
  :data:`HINT_CANDIDATES` within :data:`HINT_WINDOW` EMG, wider than the analysis's filter)
  again at ``plies``, and those rank first (gnubg's move filter), ties of value by cubeless
  equity.
* :func:`cube_hint`: the no double / double-take / double-drop equities (EMG for the player on
  roll, the doubler) and the proper action, by the cubeful models of
  :mod:`boardgammon.cube.cubeful`, as the analysis judges the same decision.
"""

from __future__ import annotations

from dataclasses import dataclass

from boardgammon.bots.neural import HARD_CANDIDATES, HARD_WINDOW, NetworkEvaluator
from boardgammon.cube import context_for
from boardgammon.engine import Match, Phase

from .analysis import Stakes, _answer, _double, _Judge, _Where, judge_name
from .evaluator import Evaluator

HINT_PLIES = NetworkEvaluator.max_plies
"""The hint's depth: the deepest the network offers (2-ply, about a second a roll)."""
HINT_CANDIDATES, HINT_WINDOW = HARD_CANDIDATES, HARD_WINDOW
"""The plays a hint searches at :data:`HINT_PLIES`: as many as the hard level searches (8 within
0.24 EMG of the 0-ply best by the value the hint ranks by; hard's 0.24 is cubeless equity).
With the analysis's 5 within 0.16 a hint missed the play hard made in about 4 of 264
decisions, one the same judge at 2-ply valued better (a fresh user's test)."""


@dataclass(frozen=True)
class PlayHint:
    """One legal play as the hint values it.

    Attributes:
        play: standard notation (``""`` for no legal play).
        plies: the depth it was valued at (0, or the hint's depth for the best few).
        outputs: ``(win, win gammon, win backgammon, lose gammon, lose backgammon)`` after the
            play, the mover's chances (0…1; gammons include backgammons).
        value: what the ranking orders by: cubeful MWC in a match, cubeful equity per cube in
            money play.
    """

    play: str
    plies: int
    outputs: tuple[float, float, float, float, float]
    value: float


@dataclass(frozen=True)
class PlaysHint:
    """The plays of a roll, best first; ``unit`` ``"MWC"`` (a match) or ``"equity"`` (money
    play) names :attr:`PlayHint.value`; ``judge`` the evaluator (:func:`~.analysis.judge_name`)."""

    judge: str
    unit: str
    plays: tuple[PlayHint, ...]


@dataclass(frozen=True)
class CubeHint:
    """The cube decision before the roll, for the player on roll (the doubler) in EMG (equity
    per cube in money play): ``nd`` no double, ``dt`` double/take, ``dp`` double/drop.
    ``action`` is the proper one: for the doubler ``no double``, ``double, take``, ``double,
    drop`` or ``too good``; when a double has been offered, the taker's ``take`` or ``drop``.
    ``outputs`` are the doubler's chances before the roll at the hint's depth."""

    judge: str
    nd: float
    dt: float
    dp: float
    action: str
    outputs: tuple[float, float, float, float, float]


def _judge(match: Match, evaluator: Evaluator | None, plies: int) -> _Judge:
    return _Judge(evaluator or NetworkEvaluator(), plies, match.game.board.checkers)


def play_hint(
    match: Match, evaluator: Evaluator | None = None, plies: int = HINT_PLIES
) -> PlaysHint:
    """Every legal play of the roll in ``match`` (its game waiting for a play), best first.

    Raises:
        ValueError: the game is not waiting for a play.
    """
    game = match.game
    if game.phase is not Phase.PLAY or game.dice is None or game.on_roll is None:
        raise ValueError(f"no roll to play: the game is in phase {game.phase.name.lower()}")
    stakes = Stakes(context_for(match, game.on_roll))
    ranking = _judge(match, evaluator, plies).rank(game.board, game.dice, stakes,
                                                   candidates=HINT_CANDIDATES, window=HINT_WINDOW)
    plays = tuple(
        PlayHint(
            ranking.plays[i],
            int(ranking.depth[i]),
            tuple(float(x) for x in ranking.outputs[i]),  # type: ignore[arg-type]
            float(ranking.values[i]),
        )
        for i in ranking.order
    )
    return PlaysHint(judge_name(plies, evaluator), "MWC" if stakes.match else "equity", plays)


def cube_hint(
    match: Match, evaluator: Evaluator | None = None, plies: int = HINT_PLIES
) -> CubeHint:
    """The cube decision of the player on roll in ``match``: before their roll, or (a double
    offered) the answer of the player doubled.

    Raises:
        ValueError: the game is at neither of those decisions, or the cube cannot be turned.
    """
    game = match.game
    doubler = game.on_roll
    if (
        game.phase not in (Phase.ROLL, Phase.DOUBLE_OFFERED)
        or not game.cube_enabled
        or doubler is None
    ):
        raise ValueError(f"no cube decision: the game is in phase {game.phase.name.lower()}")
    if game.phase is Phase.ROLL and not game.can_double(doubler):
        raise ValueError("the player on roll cannot double now")
    # A hint is no record entry: game and turn only label the decision the analysis would make.
    where = _Where(game=0, score=match.score, cube=game.cube, cube_owner=game.cube_owner)
    judge = _judge(match, evaluator, plies)
    decision, outputs = _double(judge, match, doubler, False, 0, where)
    if game.phase is Phase.DOUBLE_OFFERED:
        decision = _answer(decision, match, 1 - doubler, "take", where)
    return CubeHint(
        judge_name(plies, evaluator),
        decision.nd,
        decision.dt,
        decision.dp,
        decision.best,
        tuple(float(x) for x in outputs),  # type: ignore[arg-type]
    )
