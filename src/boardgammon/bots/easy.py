"""The easy level: a hand-weighted feature model that plays like a human who missed the best play.

**Model.** Every legal play's resulting position is described by the features of
:mod:`boardgammon.bots.features` (the mover is "mine", the opponent is on roll) and turned
into the mover's game-winning chance:

* a finished game is worth its points (1, 2 or 3);
* a race (no contact) uses the race formula of :mod:`boardgammon.cube.heuristic` (Keith-adjusted
  counts in Kleinman's normal approximation), the opponent being on roll;
* a contact position counts everything in *pips*: the racing lead, minus 4 pips for the
  opponent being on roll, plus the positional terms below (each worth so many pips of race)
  for the mover minus the same terms for the opponent (their shot features excepted: it is
  the mover's blots that face the next roll), put through Kleinman's formula:
  ``p = Φ((lead - 4 + positional) / sqrt(2 (S - 4)))``, ``S`` the sum of the pip counts.
  Measuring positional assets in pips keeps contact and race estimates on one scale, so a
  play that breaks contact compares fairly with one that keeps it.

The equity of a play is ``2 p - 1`` (cubeless; the easy level ignores gammons when choosing
plays). Weights (pips), chosen by hand from standard backgammon priorities:

=====================  =======  ================================================================
feature                weight   why
=====================  =======  ================================================================
``hit_loss``           -1.0     the pips a hit costs on average are pips lost
``hit_exposure``       -3.0     a hit against a strong board can cost the game, not just pips
``shots``              -0.05    tie-break: fewer shots is safer at equal expected loss
``home_points``        +2.5     each home point blocks entry and closes the board
``five_point``         +4.0     the best point to make early (opening theory: 3-1 makes it)
``bar_point``          +3.0     the key blocking point in front of their back checkers
``outfield_points``    +1.0     help a prime, block little
``anchor``             +4.0     a safe landing spot against attacks and blitzes
``advanced_anchor``    +3.0     their 5- or 4-point anchor cannot be primed easily
``prime``              +0.6     × (length - 1)²: a prime's value grows faster than its length
``back_checkers``      -0.8     back checkers are exposed to priming and attack
``stacking``           -0.5     per checker beyond 3 on a point: wasted builders
``trapped``            -6.0     my rearmost checker cannot get out
``borne_off``          +0.5     fewer checkers left: fewer rolls wasted in the bear-off
``on_bar_vs_board``    -1.5     per checker on my bar per point of their home board: I may dance
=====================  =======  ================================================================

``pips_mine``, ``pips_theirs`` and ``racing_lead`` enter through the formula itself. The
model's best choices agree with the standard opening plays (3-1 8/5 6/5, 4-2 8/4 6/4, 6-1
13/7 8/7, 5-3 8/3 6/3, 6-5 24/13), and its plays, even the 2nd/3rd best, win about 9 games in
10 against random plays; the tests check both.

**Choice.** The bot ranks every legal play and, like a human who missed the best one, plays
the 2nd or 3rd best (at random); the best only when it is the only play, either of the two
when there are two. The choice is random but reproducible from the bot's seed.

**Cube and resignations.** Through :mod:`boardgammon.cube.heuristic`, with the race formula in races
and this model's estimate (calibrated, see ``CONTACT_SPREAD``) in contact. The bot offers to
resign only in races (where the estimate is reliable), when resigning for a single, gammon or
backgammon is within half a percent of the game's swing of what playing on is worth.
"""

from __future__ import annotations

import random

import numpy as np
from scipy.special import ndtr, ndtri

from boardgammon.cube import Context, heuristic
from boardgammon.engine import Board, Play
from boardgammon.engine.constants import BACKGAMMON_INDICES, HOME_POINTS, ROW_LENGTH
from boardgammon.engine.rules import game_values, is_contact, pip_counts

from .base import Bot, RankedPlay, register
from .features import INDEX, NAMES, features

WEIGHTS: dict[str, float] = {
    "hit_loss": -1.0, "hit_exposure": -3.0, "shots": -0.05, "home_points": 2.5,
    "five_point": 4.0, "bar_point": 3.0, "outfield_points": 1.0, "anchor": 4.0,
    "advanced_anchor": 3.0, "prime": 0.6, "back_checkers": -0.8, "stacking": -0.5,
    "trapped": -6.0, "borne_off": 0.5, "on_bar_vs_board": -1.5,
}
_SQUARED = ("prime",)
_W = np.array([WEIGHTS.get(name, 0.0) for name in NAMES])
_ON_ROLL_PIPS = 4.0      # Kleinman: being on roll is worth about 4 pips
_AVERAGE_ROLL = 8.17     # pips per roll on average (49/6), the race's unit of time
_RESIGN_TOLERANCE = 0.005
# The contact model's positional terms in pips spread its winning chances about 4.5 times too
# wide: uncalibrated, it gave 56 % to the opening position and 74 % on average where it
# doubled in money self-play, against 57 % by gnubg 0-ply, so that it doubled on its first or
# second move and dropped even games. Dividing its normal deviate by 4.5 is the least-squares
# fit to gnubg 0-ply winning chances over 474 contact positions from easy-bot self-play
# (mean error -0.3 %; 24 % of them above 65 % by both).
CONTACT_SPREAD = 4.5


def positional(feats: np.ndarray) -> np.ndarray:
    """The positional term, in pips, of each row of a :func:`features` matrix (``float[N]``)."""
    f = feats.copy()
    for name in _SQUARED:
        f[:, INDEX[name]] = np.maximum(f[:, INDEX[name]] - 1, 0) ** 2
    return f @ _W


def win_probability(arrays: np.ndarray, checkers: int = 15) -> np.ndarray:
    """The game-winning chance of row 0, the side that has just moved (row 1 on roll).

    Args:
        arrays: ``int8[N, 2, 25]`` positions (layout of ``Board.array``).
        checkers: checkers per side in the variant.

    Returns:
        ``float[N]`` in 0-1; 1 where row 0 has borne off every checker.
    """
    a = np.asarray(arrays)
    if a.ndim == 2:
        a = a[None]
    feats = features(a, checkers)
    theirs_feats = features(a[:, ::-1], checkers, shots=False)
    mine, theirs = feats[:, INDEX["pips_mine"]], feats[:, INDEX["pips_theirs"]]
    s = np.maximum(mine + theirs - _ON_ROLL_PIPS, 1.0)
    contact_p = ndtr((theirs - mine - _ON_ROLL_PIPS + positional(feats)
                     - positional(theirs_feats)) / np.sqrt(2.0 * s))
    keith = heuristic.keith_counts(a)
    race_p = 1.0 - heuristic.race_win_probability(keith[:, 1], keith[:, 0])
    p = np.where(is_contact(a), contact_p, race_p)
    return np.where(mine == 0, 1.0, p)


def equities(arrays: np.ndarray, checkers: int = 15) -> np.ndarray:
    """Cubeless equity of row 0 after its move: ``2 p - 1``, or the points of a finished game
    (2 for a gammon, 3 for a backgammon). ``float[N]``."""
    a = np.asarray(arrays)
    if a.ndim == 2:
        a = a[None]
    p = win_probability(a, checkers)
    done = a[:, 0].sum(axis=1) == 0
    return np.where(done, game_values(a[:, 1], checkers), 2.0 * p - 1.0)


def on_roll_probability(board: Board) -> float:
    """Winning chance of the player on roll, before rolling: the race formula in a race, the
    model's estimate (of the position as if the opponent had just moved) in contact, with its
    normal deviate divided by ``CONTACT_SPREAD`` so that it is a usable probability for the
    cube (ranking plays needs only its order, the cube needs its level)."""
    if not board.is_contact():
        return heuristic.race_estimate(board.array)
    p = 1.0 - float(win_probability(board.swapped().array, board.checkers)[0])
    return float(ndtr(ndtri(min(max(p, 1e-12), 1.0 - 1e-12)) / CONTACT_SPREAD))


def gammon_share(board: Board, p_win: float) -> float:
    """Rough share of row 0's wins that are gammons (``board`` in any side's view; ``p_win``
    row 0's winning chance).

    None once row 1 has borne off a checker. In a race: whether row 1 can bring every checker
    home and bear one off before row 0 finishes, counting average rolls (8.17 pips each, and
    at most two checkers borne off per roll). In contact: grows with row 1's checkers on the
    bar or in row 0's home board (a blitz or a closed-out checker), up to 60 % of wins.
    """
    a = board.array
    if board.borne_off(1) > 0 or p_win <= 0:
        return 0.0
    if board.is_contact():
        back = int(a[1, BACKGAMMON_INDICES].sum())
        return min(0.6, 0.1 + 0.1 * back) * p_win
    outside = np.arange(1, ROW_LENGTH + 1) - HOME_POINTS
    save_pips = float((a[1] * np.maximum(outside, 0)).sum()) + 1.0
    winner_rolls = max(float(pip_counts(a)[0]) / _AVERAGE_ROLL, a[0].sum() / 2.0)
    loser_rolls = save_pips / _AVERAGE_ROLL
    return min(1.0, float(ndtr(loser_rolls - winner_rolls)) / p_win)


@register("easy")
class EasyBot(Bot):
    """The easy level (see the module docstring).

    Args:
        seed: seeds the choice between the 2nd and 3rd best plays.
    """

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self._rng = random.Random(seed)

    def rank_plays(self, board: Board, dice: tuple[int, int],
                   context: Context) -> list[RankedPlay]:
        """Every legal play, best first by the model's cubeless equity (ties keep the
        generator's order). A roll with no legal play gives the one empty play."""
        plays = board.legal_plays(*dice)
        eq = equities(np.stack([p.board_after.array for p in plays]), board.checkers)
        order = np.argsort(-eq, kind="stable")
        return [RankedPlay(plays[i], float(eq[i])) for i in order]

    def choose_play(self, board: Board, dice: tuple[int, int], context: Context) -> Play:
        """The 2nd or 3rd best play at random; the only play, or one of two at random."""
        ranking = self.rank_plays(board, dice, context)
        return ranking[choice_index(len(ranking), self._rng)].play

    def double(self, board: Board, context: Context) -> bool:
        if not context.cube_available_to_me:
            return False
        p = on_roll_probability(board)
        return heuristic.should_double(p, context, race=not board.is_contact(),
                                  gammon=gammon_share(board, p))

    def take(self, board: Board, context: Context) -> bool:
        p = 1.0 - on_roll_probability(board)
        return heuristic.should_take(p, context, race=not board.is_contact())

    def beaver(self, board: Board, context: Context) -> bool:
        """Beaver in money play when the model gives the bot more than half the games."""
        return context.length == 0 and 1.0 - on_roll_probability(board) > 0.5

    def take_beaver(self, board: Board, context: Context) -> bool:
        """Take the beaver when its winning chance reaches the money take point."""
        return heuristic.should_take(on_roll_probability(board), context,
                                     race=not board.is_contact())

    def accept_resignation(self, board: Board, context: Context, points: int) -> bool:
        """``board``: the resigner's view. Accepts when the offer is worth at least playing on
        by this model (:func:`boardgammon.cube.heuristic.should_accept_resignation`)."""
        mine = board.swapped()
        p = 1.0 - on_roll_probability(board)
        return heuristic.should_accept_resignation(p, gammon_share(mine, p), context, points)

    def resign(self, board: Board, context: Context) -> int | None:
        """In a race only: the resignation (single, gammon, backgammon) within half a percent
        of the game's swing of what playing on is worth by the race formula, so that it costs
        the bot nothing and the opponent should accept it; ``None`` when there is none."""
        if board.is_contact():
            return None
        p = heuristic.race_estimate(board.array)
        lost_gammons = gammon_share(board.swapped(), 1.0 - p)
        keep = heuristic.playing_on_value(p, 0.0, context, lost_gammons)
        v = context.cube_value
        swing = heuristic.outcome_value(context, v) - heuristic.outcome_value(context, -v)
        for points in (1, 2, 3):
            loss = heuristic.outcome_value(context, -points * v)
            if abs(loss - keep) <= _RESIGN_TOLERANCE * swing:
                return points
        return None


def choice_index(n: int, rng: random.Random) -> int:
    """Index into a ranking of ``n`` plays that the easy bot plays: 0 when ``n == 1``, 0 or 1
    when ``n == 2``, else 1 or 2 (each with equal chance).

    Raises:
        ValueError: ``n < 1`` (a ranking always has at least the empty play).
    """
    if n < 1:
        raise ValueError("a ranking holds at least one play (a dance is the empty play)")
    if n == 1:
        return 0
    if n == 2:
        return rng.randrange(2)
    return 1 + rng.randrange(2)
