"""``boardgammon eval POSITION_ID [--match-id MATCH_ID] [--ply N] [--json]``: the network's
view of a position before the roll, as gnubg's ``eval`` shows it.

The Position ID is gnubg's, from the view of the player on roll; the Match ID (gnubg's too,
default: money play, cube 1 in the middle, no Jacoby rule) gives the score, the cube and the
player on roll. Printed: the chances of winning, winning a gammon and a backgammon for both
sides, the cubeless equity, the cubeful equity (money: per cube; match: match-winning chance
and normalised equity, EMG), and, where the player on roll may double, the cube decision with
its three values (no double, double/take, double/pass) and the proper action. Bear-off races
where neither side can be gammoned have exact cubeless chances (the one-sided database,
:mod:`boardgammon.bots.bearoff`); short ones (up to four checkers a side) exact cubeful values
too, solved over every roll (:mod:`boardgammon.bots.exact_cube`).

A Match ID with the dice rolled evaluates the plays of that roll instead (best first, as the
terminal game's hint ranks them); one with a double offered adds the doubled player's take and
pass and its proper answer; one with a resignation waiting is refused.

Bad input (a malformed ID, a finished game, a depth outside 0–2) exits with code 2 and a
message on standard error.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import numpy as np
import typer

from boardgammon.engine import Board, EngineError
from boardgammon.engine.ids import GAME_PLAYING, MatchIdFields, decode_match_id


@dataclass(frozen=True)
class Evaluation:
    """What ``eval`` prints, for the player on roll.

    Attributes:
        outputs: ``(win, win gammon, win backgammon, lose gammon, lose backgammon)``.
        cubeless: cubeless equity (points per cube, −3…+3).
        cubeful: cubeful equity (money: per cube; match: EMG).
        mwc: match-winning chance (match play), else ``None``.
        cube: ``(no double, double/take, double/pass)`` in the unit of ``cubeful``, or
            ``None`` where the player on roll may not double.
        action: the proper cube action ("No double, take", "Double, take", "Double, pass",
            "Too good to double, pass"), or why there is none.
        exact_cube: the cubeful values are exact, solved over every roll
            (:mod:`boardgammon.bots.exact_cube`: short bear-offs), not the cube model's.
    """

    outputs: tuple[float, float, float, float, float]
    cubeless: float
    cubeful: float
    mwc: float | None
    cube: tuple[float, float, float] | None
    action: str
    exact_cube: bool = False


def cube_action(nd: float, dt: float, dp: float) -> str:
    """The proper action of a cube decision from the doubler's three values: double where
    doubling (answered right) is worth at least holding, take where taking costs the taker no
    more than passing."""
    take = dt <= dp
    if min(dt, dp) >= nd:
        return "Double, take" if take else "Double, pass"
    return "No double, take" if take else "Too good to double, pass"


def evaluate(board: Board, fields: MatchIdFields, plies: int = 0) -> Evaluation:
    """The :class:`Evaluation` of ``board`` (player on roll's view) before the roll, at the
    score and cube of ``fields`` (a decoded Match ID), by the network at ``plies`` (0–2).

    Raises:
        ValueError: ``plies`` outside 0–2.
    """
    from boardgammon.bots.neural import NetworkEvaluator

    return judge(board, NetworkEvaluator().evaluate(board.array[None], board.checkers,
                                                     plies)[0], fields)


def judge(board: Board, outputs: np.ndarray, fields: MatchIdFields) -> Evaluation:
    """The :class:`Evaluation` of ``board`` (player on roll's view) with cubeless ``outputs``
    ``float[5]`` (the network's or a rollout's), at the score and cube of ``fields``."""
    from boardgammon.analysis.analysis import Stakes
    from boardgammon.bots import exact_cube
    from boardgammon.bots.network import cubeless_equity
    from boardgammon.cube import Context, CubeOwner

    seat = fields.on_roll
    owner = (CubeOwner.CENTRE if fields.cube_owner is None
             else CubeOwner.ME if fields.cube_owner == seat else CubeOwner.OPPONENT)
    variant = "hypergammon" if board.checkers == 3 else "standard"
    context = Context(length=fields.length, my_score=fields.score[seat],
                      opponent_score=fields.score[1 - seat], crawford=fields.crawford,
                      cube_value=fields.cube, cube_owner=owner, variant=variant,
                      jacoby=fields.jacoby)
    o = np.asarray(outputs, dtype=np.float64)
    stakes = Stakes(context)
    value = exact_cube.position_value(board, o, context)
    cube = None
    if not context.cube_available_to_me:
        action = ("no cube decision: the Crawford game" if context.crawford
                  else "no cube decision: a 1-point match has no cube" if context.length == 1
                  else "no cube decision: the cube is the opponent's"
                  if owner is CubeOwner.OPPONENT else "no cube decision: the cube is at 64")
    elif context.cube_dead_for_me:
        action = "no cube decision: a win at this cube already takes the match"
    else:
        nd, dt, dp = exact_cube.decision_values(board, o, context)
        cube = (stakes.equity(nd), stakes.equity(dt), stakes.equity(dp))
        action = cube_action(nd, dt, dp)
    w, wg, wbg, lg, lbg = (float(v) for v in o)
    return Evaluation(outputs=(w, wg, wbg, lg, lbg), cubeless=float(cubeless_equity(o)),
                      cubeful=stakes.equity(value),
                      mwc=float(value) if fields.length else None, cube=cube, action=action,
                      exact_cube=exact_cube.applies(board))


def position_and_match(position_id: str, match_id: str | None) -> tuple[Board, MatchIdFields]:
    """The position and the decoded Match ID of a command's arguments (default: money play,
    cube 1 centred), checked: a game under way.

    Raises:
        typer.Exit: (code 2, after a message on standard error) a malformed ID, a finished
            game, a Match ID of no game under way.
    """
    try:
        board = Board.from_position_id(position_id)
        fields = decode_match_id(match_id) if match_id is not None else MatchIdFields()
    except (EngineError, ValueError) as exc:
        raise fail(str(exc)) from None
    if board.is_game_over():
        raise fail(f"{position_id} is a finished game: nothing to evaluate")
    if fields.game_state != GAME_PLAYING:
        raise fail(f"the Match ID {match_id} is of no game under way (state "
                   f"{fields.game_state}): give one of a game being played")
    if fields.length and max(fields.score) >= fields.length:
        raise fail(f"the Match ID {match_id} has the score {fields.score[0]}-"
                   f"{fields.score[1]} in a {fields.length}-point match: the match is over")
    return board, fields


def fail(message: str) -> typer.Exit:
    """Say ``message`` on standard error; the exit (code 2) to raise."""
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code=2)


def eval_command(
    position_id: str = typer.Argument(..., help="gnubg Position ID, player on roll's view."),
    match_id: str | None = typer.Option(None, "--match-id", help=(
        "gnubg Match ID: score, cube, player on roll (default: money play, cube 1 centred).")),
    ply: int = typer.Option(0, "--ply", help="Search depth: 0 (the network), 1 or 2."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """Win, gammon and backgammon chances, cubeless and cubeful equity and the cube decision
    of a position before the roll."""
    board, fields = position_and_match(position_id, match_id)
    if ply not in (0, 1, 2):
        raise fail(f"--ply is 0, 1 or 2, not {ply}")
    if fields.resigned:
        raise fail(f"the Match ID {match_id} has a resignation waiting for its answer: eval "
                   f"values positions before the roll, a roll's plays or a double; give the "
                   f"Match ID of the position before the offer")
    if fields.dice != (0, 0) and not fields.doubled:
        _plays_of_roll(position_id, board, fields, ply, as_json, match_id)
        return
    result = evaluate(board, fields, ply)
    answer = _answer(result, fields) if fields.doubled else None
    if as_json:
        typer.echo(json.dumps({"position_id": position_id, "match_id": match_id, "ply": ply,
                               **result.__dict__,
                               **({"answer": answer} if answer is not None else {})}))
        return
    typer.echo(text(result, fields, f"the network at {ply}-ply"))
    if answer is not None:
        unit = "EMG" if fields.length else "per cube"
        typer.echo(f"A double is offered (the Match ID): for the player doubled, take "
                   f"{answer['take']:+.3f}, pass {answer['pass']:+.3f} ({unit}); proper "
                   f"answer: {answer['action']}")


def _answer(e: Evaluation, fields: MatchIdFields) -> dict[str, Any]:
    """The doubled player's take and pass values (its view: the doubler's, negated, in EMG or
    per cube) and its proper answer, from an evaluation at the cube before the double."""
    if e.cube is None:
        raise fail(f"the Match ID has a double offered, but the player on roll may not double "
                   f"here ({e.action.removeprefix('no cube decision: ')})")
    _, dt, dp = e.cube
    return {"take": -dt, "pass": -dp, "action": "take" if dt <= dp else "pass"}


def _plays_of_roll(position_id: str, board: Board, fields: MatchIdFields, ply: int,
                   as_json: bool, match_id: str | None) -> None:
    """``eval`` of a Match ID with the dice rolled: the plays of that roll, best first, as the
    hint ranks them (cubeful, the best few searched at ``ply``)."""
    from boardgammon.analysis.hint import play_hint
    from boardgammon.engine.match import Match, Setup

    from .play import format_play_hint

    d1, d2 = fields.dice
    setup = Setup(position_id=position_id, on_roll=fields.on_roll, score=fields.score,
                  cube=fields.cube, cube_owner=fields.cube_owner, crawford=fields.crawford,
                  dice=(d1, d2))
    variant = "hypergammon" if board.checkers == 3 else "standard"
    try:
        match = Match(fields.length, variant, jacoby=fields.jacoby, setup=setup)
    except (ValueError, EngineError) as exc:
        raise fail(f"cannot play {d1}-{d2} from {position_id}: {exc}") from None
    hint = play_hint(match, plies=ply)
    if as_json:
        typer.echo(json.dumps({"position_id": position_id, "match_id": match_id, "ply": ply,
                               "dice": [d1, d2], "unit": hint.unit,
                               "plays": [p.__dict__ for p in hint.plays]}))
        return
    typer.echo(f"The Match ID has the roll {d1}-{d2} to play: its plays, not the position "
               f"before the\nroll (give a Match ID without dice for that).")
    typer.echo(format_play_hint(hint))


def text(e: Evaluation, fields: MatchIdFields, how: str,
         errors: tuple[float, ...] | None = None) -> str:
    """``e`` as ``eval`` prints it, ``how`` naming the method ("the network at 0-ply", "a
    rollout of 1296 trials"); ``errors``: standard errors of the five outputs and of the
    cubeless equity."""
    w, wg, wbg, lg, lbg = e.outputs
    unit = "EMG" if fields.length else "per cube"
    where = (f"{fields.length}-point match, score {fields.score[fields.on_roll]}-"
             f"{fields.score[1 - fields.on_roll]} (player on roll first)" if fields.length
             else "money play" + (", Jacoby rule" if fields.jacoby else ""))
    # Every line within 80 columns (a terminal's width, gnubg's too): a long heading (a
    # truncated rollout, a match score) goes on two lines.
    heading = f"Evaluation by {how}, {where}, cube {fields.cube}:"
    if len(heading) > 80:
        heading = f"Evaluation by {how},\n  {where}, cube {fields.cube}:"
    lines = [heading,
             "                 win   gammon  backgammon",
             f"  on roll     {w:7.1%}  {wg:7.1%}  {wbg:7.1%}",
             f"  opponent    {1 - w:7.1%}  {lg:7.1%}  {lbg:7.1%}"]
    if errors is not None:
        lines += [f"  std. error  {errors[0]:7.2%}  {errors[1]:7.2%}  {errors[2]:7.2%}"
                  f"  (on roll)",
                  f"  std. error  {errors[0]:7.2%}  {errors[3]:7.2%}  {errors[4]:7.2%}"
                  f"  (opponent)"]
    lines += [f"Cubeless equity {e.cubeless:+.3f}"
              + (f" ± {errors[5]:.3f} (standard error)" if errors is not None else ""),
              f"Cubeful equity  {e.cubeful:+.3f} ({unit})"
              + (f", match-winning chance {e.mwc:.1%}" if e.mwc is not None else "")]
    if e.exact_cube:
        lines.append("Cubeful values exact: the bear-off solved over every roll")
    if e.cube is None:
        lines.append(f"Cube: {e.action}")
    else:
        nd, dt, dp = e.cube
        best = max(nd, min(dt, dp))
        lines.append(f"Cube decision ({unit}):")
        for name, v in (("No double", nd), ("Double, take", dt), ("Double, pass", dp)):
            lines.append(f"  {name:<14}{v:+.3f}  ({v - best:+.3f})")
        lines.append(f"Proper cube action: {e.action}")
    return "\n".join(lines)
