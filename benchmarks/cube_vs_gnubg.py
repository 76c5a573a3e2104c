"""Cube decisions beside GNU Backgammon's, judged by gnubg 2-ply (a report, not a test).

``python -m benchmarks.cube_vs_gnubg [MATCHES] [--seed S] [--money]`` plays ``MATCHES`` bot
matches of 3, 5 and 7 points in turn (with ``--money``: money sessions of ``--games`` games
each, no Jacoby rule, cube equities per current cube), easy against medium and medium against
hard, alternately (so that positions are both lopsided and even), has gnubg analyse every
cube decision of both players at 0-ply and at 2-ply (``analyse match`` through
:func:`tests.helpers.gnubg.run_script`; checker plays at 0-ply, they are not used), and
judges at every turn where the player on roll
could double (the cube live: see :attr:`Context.cube_dead_for_me
<boardgammon.cube.Context.cube_dead_for_me>`):

* the doubling verdict (double / no double) and the answer the opponent would give (take /
  drop) of each player below, by gnubg 2-ply's cubeful MWC for no double and double/take and
  the MWC of double/drop from gnubg's MET, converted to EMG (gnubg's normalisation: winning a
  single game at the current cube is +1, losing it −1; in money play gnubg's cubeful equities
  per current cube are already that, double/drop +1);
* players: gnubg 0-ply; our analysis at 0-ply (our network and cube model, the numbers
  medium decides by); our cube model on the network's 2-ply outputs (hard's); our cube model
  given gnubg 2-ply's own cubeless probabilities (the cube model alone, the network's errors
  taken out).

Prints, per player, the equity lost per decision (millipoints of EMG) over doubling decisions
and over take decisions, and the counts of missed doubles, wrong doubles, wrong takes and wrong
drops. A take decision is counted wherever the doubler's 2-ply double/take and double/drop are
within ``TAKE_WINDOW`` EMG (elsewhere the answer is obvious); a doubling decision wherever
no double and the better of double/take and double/drop are within ``DOUBLE_WINDOW``.
"""

from __future__ import annotations

import argparse
import os
import pickle
import tempfile
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from boardgammon.analysis.analysis import analyse_match
from boardgammon.bots import Context, CubeOwner
from boardgammon.bots.neural import NetworkEvaluator
from boardgammon.cube.cubeful import cube_values
from boardgammon.cube.efficiency import cube_efficiency
from boardgammon.engine import Board, Match
from boardgammon.engine.constants import MAX_CUBE
from boardgammon.formats import write_mat
from tests.helpers.gnubg import run_script

from .analysis_vs_gnubg import bot_match

DOUBLE_WINDOW = 0.5  # EMG
TAKE_WINDOW = 0.5  # EMG

GNUBG_CUBE = r'''
gnubg.command("set jacoby off")  # money sessions are played without it (matches: no effect)
out = []
for path in os.environ["MATS"].split(os.pathsep):
    per_ply = []
    for plies in (0, 2):
        gnubg.command("set analysis chequerplay evaluation plies 0")
        gnubg.command(f"set analysis cubedecision evaluation plies {plies}")
        gnubg.command("import mat " + path)
        gnubg.command("analyse match")
        m = gnubg.match(analysis=True, boards=True, statistics=False, verbose=False)
        points = []
        for k, g in enumerate(m["games"]):
            cube = 1
            for a in g["game"]:
                an = a.get("analysis", {})
                if a["action"] in ("move", "double") and "nd-cubeful-eq" in an:
                    points.append({"game": k, "player": a["player"], "board": a.get("board"),
                                   "probs": an["probs"], "nd": an["nd-cubeful-eq"],
                                   "dt": an["dt-cubeful-eq"], "cube": cube})
                if a["action"] == "take":
                    cube *= 2
        per_ply.append(points)
    out.append({"ply0": per_ply[0], "ply2": per_ply[1], "met": gnubg.met()})
emit(out)
'''


def gnubg_cube(matches: list[Match], timeout: float = 600) -> list[dict]:
    """gnubg's cube analysis of each of ``matches`` (:data:`GNUBG_CUBE`, through ``.mat``
    files), in order: ``{"ply0": [...], "ply2": [...], "met": ...}`` per match."""
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for k, m in enumerate(matches):
            path = Path(tmp) / f"m{k}.mat"
            path.write_text(write_mat(m))
            paths.append(str(path))
        return run_script(GNUBG_CUBE, env={"MATS": os.pathsep.join(paths)}, timeout=timeout)


@dataclass(frozen=True)
class Point:
    """One turn where the player on roll (``seat``) could double, with gnubg's values (MWC of
    the doubler) and the match situation."""

    game: int
    seat: int
    position_id: str
    context: Context
    contact: bool
    probs0: np.ndarray
    probs2: np.ndarray
    nd0: float
    dt0: float
    nd2: float
    dt2: float
    dp: float  # gnubg MET: MWC after the opponent drops
    lose: float  # gnubg MET: MWC after losing a single game at the current cube
    ours: tuple[float, float, float]  # our analysis: nd, dt, dp in EMG


def gnubg_mwc(met: list, a: int, b: int, post: bool) -> float:
    """MWC of the side ``a`` away against ``b`` away at the start of a game, from gnubg's MET
    (``gnubg.met()``: pre-Crawford table, then the post-Crawford trailer's MWC by points away);
    ``post``: any game at 1-away is post-Crawford."""
    if a <= 0:
        return 1.0
    if b <= 0:
        return 0.0
    if post and (a == 1 or b == 1):
        if a == b:
            return 0.5
        return 1.0 - met[1][b - 1] if a == 1 else met[1][a - 1]
    return met[0][a - 1][b - 1]


def verdicts(nd: float, dt: float, dp: float) -> tuple[bool, bool]:
    """(the doubler should double, the opponent should take) from the doubler's values."""
    return min(dt, dp) > nd, dt <= dp


def points_of(match: Match, gnubg: dict, evaluator: NetworkEvaluator | None = None
              ) -> tuple[list[Point], int]:
    """Our 0-ply analysis of ``match`` (with ``evaluator``, default the shipped network) beside
    gnubg's cube decision points, matched in order of play by game, player and position;
    returns the matched points and the number left unmatched."""
    ours = [d for d in analyse_match(match, evaluator, plies=0).cube if d.kind == "double"]
    # Our cube stops at 64 (the rules of this project, and gnubg's in a match); in money play
    # gnubg's goes on, so its turns with the cube at 64 are none of ours.
    theirs = [(g0, g2) for g0, g2 in zip(gnubg["ply0"], gnubg["ply2"], strict=True)
              if g0.get("cube", 1) < MAX_CUBE]
    met = gnubg["met"]
    points, unmatched, j = [], 0, 0
    for d in ours:
        while j < len(theirs) and theirs[j][0]["game"] < d.game:
            j += 1
        hit = next((k for k in range(j, min(j + 3, len(theirs)))
                    if theirs[k][0]["game"] == d.game and theirs[k][0]["board"] == d.position_id
                    and theirs[k][0]["player"] == "XO"[d.seat]), None)
        if hit is None:
            unmatched += 1
            continue
        g0, g2 = theirs[hit]
        j = hit + 1
        me, opp = d.score[d.seat], d.score[1 - d.seat]
        owner = (CubeOwner.CENTRE if d.cube_owner is None
                 else CubeOwner.ME if d.cube_owner == d.seat else CubeOwner.OPPONENT)
        if not match.length:  # money: equities per current cube; drop +1, a single loss −1
            me = opp = 0
        ctx = Context(length=match.length, my_score=me, opponent_score=opp, cube_value=d.cube,
                      cube_owner=owner)
        a, b = match.length - me, match.length - opp
        post = a == 1 or b == 1
        if match.length:
            dp, lose = gnubg_mwc(met, a - d.cube, b, post), gnubg_mwc(met, a, b - d.cube, post)
        else:
            dp, lose = 1.0, -1.0
        points.append(Point(
            game=d.game, seat=d.seat, position_id=d.position_id, context=ctx,
            contact=Board.from_position_id(d.position_id).is_contact(),
            probs0=np.array(g0["probs"]), probs2=np.array(g2["probs"]),
            nd0=g0["nd"], dt0=g0["dt"], nd2=g2["nd"], dt2=g2["dt"],
            dp=dp, lose=lose,
            ours=(d.nd, d.dt, d.dp)))
    unmatched += len(theirs) - len(points)
    return points, unmatched


def judge(points: list[Point], player) -> dict:
    """Equity lost by ``player(point) -> (double, take)`` as gnubg 2-ply judges, in EMG."""
    double_loss, take_loss = [], []
    counts = {"missed double": 0, "wrong double": 0, "wrong take": 0, "wrong drop": 0}
    for p in points:
        def emg(x: float, p: Point = p) -> float:
            return (2 * x - p.dp - p.lose) / (p.dp - p.lose)
        nd, dt, dp = emg(p.nd2), emg(p.dt2), emg(p.dp)
        double, take = player(p)
        right = min(dt, dp)
        if abs(nd - right) < DOUBLE_WINDOW:
            loss = max(nd, right) - (right if double else nd)
            double_loss.append(loss)
            if loss > 0:
                counts["wrong double" if double else "missed double"] += 1
        if abs(dt - dp) < TAKE_WINDOW:
            loss = max(0.0, dt - dp) if take else max(0.0, dp - dt)
            take_loss.append(loss)
            if loss > 0:
                counts["wrong take" if take else "wrong drop"] += 1
    return {"double": double_loss, "take": take_loss, **counts}


@cache
def _evaluator() -> NetworkEvaluator:
    return NetworkEvaluator()


def efficiency(p: Point) -> float:
    """The cube efficiency of the turn's position (the doubler on roll), as ours and gnubg's
    cube models use it."""
    return float(cube_efficiency(Board.from_position_id(p.position_id).array,
                                 p.context.variant))


def ours_at(plies: int):
    """Our verdicts from the network's outputs at ``plies`` (hard decides the cube at 2)."""
    def player(p: Point) -> tuple[bool, bool]:
        board = Board.from_position_id(p.position_id)
        o = _evaluator().evaluate(board.array[None], board.checkers, plies)[0]
        return verdicts(*cube_values(o, p.context, efficiency(p)))
    return player


PLAYERS = {
    "gnubg 0-ply": lambda p: verdicts(p.nd0, p.dt0, p.dp),
    "ours, 0-ply (medium; the analysis at 0-ply)": lambda p: verdicts(*p.ours),
    "ours, 2-ply (hard)": ours_at(2),
    "our cube model on gnubg 2-ply's probabilities":
        lambda p: verdicts(*cube_values(p.probs2, p.context, efficiency(p))),
}


def _mp(xs: list[float]) -> str:
    if not xs:
        return "—"
    a = 1000 * np.asarray(xs)
    half = 1.96 * a.std(ddof=1) / np.sqrt(len(a)) if len(a) > 1 else float("nan")
    return f"{a.mean():6.1f} ± {half:4.1f}"


def report(matches: int = 12, seed: int = 1, save: Path | None = None, money: bool = False,
           games: int = 6) -> dict:
    """Play and analyse ``matches`` matches (``money``: money sessions of ``games`` games),
    print the comparison; returns per-player results. ``save``: also pickle the matched
    :class:`Point` list there (for studying the cube model)."""
    t0 = time.perf_counter()
    played = []
    for k in range(matches):
        levels = ("easy", "medium") if k % 2 == 0 else ("medium", "hard")
        length = 0 if money else (3, 5, 7)[k % 3]
        played.append(bot_match(seed + k, length=length, levels=levels, games=games))
    what = f"money sessions of {games} games" if money else "matches"
    print(f"{matches} {what} played ({time.perf_counter() - t0:.0f} s)", flush=True)
    t0 = time.perf_counter()
    theirs = gnubg_cube(played, timeout=3600)
    print(f"gnubg analysed them at 0 and 2 plies ({time.perf_counter() - t0:.0f} s)", flush=True)
    points, unmatched = [], 0
    for m, g in zip(played, theirs, strict=True):
        p, u = points_of(m, g)
        points += p
        unmatched += u
    if save is not None:
        save.write_bytes(pickle.dumps(points))
    print(f"{len(points)} turns with the cube live ({unmatched} not matched to gnubg's); "
          f"doubling decisions within {DOUBLE_WINDOW} EMG of the other choice, take decisions "
          f"within {TAKE_WINDOW} EMG; loss in millipoints (EMG) per decision, 95 % intervals")
    results = {}
    for name, player in PLAYERS.items():
        r = judge(points, player)
        results[name] = r
        print(f"  {name}:\n    doubling {_mp(r['double'])} over {len(r['double'])} "
              f"(missed {r['missed double']}, wrong {r['wrong double']}); "
              f"take {_mp(r['take'])} over {len(r['take'])} "
              f"(wrong takes {r['wrong take']}, wrong drops {r['wrong drop']})")
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("matches", nargs="?", type=int, default=12,
                        help="bot matches (or, with --money, sessions) to play and judge")
    parser.add_argument("--seed", type=int, default=1, help="seeds the bots and the dice")
    parser.add_argument("--save", type=Path,
                        help="pickle the matched decision points to this file")
    parser.add_argument("--money", action="store_true",
                        help="money sessions instead of matches")
    parser.add_argument("--games", type=int, default=6,
                        help="games per money session (with --money only)")
    args = parser.parse_args()
    if args.matches < 1 or args.games < 1:
        parser.error("MATCHES and --games are at least 1")
    if args.games != 6 and not args.money:
        parser.error("--games is the length of a money session: give --money too")
    if args.save is not None and (args.save.is_dir() or not args.save.parent.is_dir()):
        # Found now, not after the games and gnubg's analyses (it crashed at the very end).
        parser.error(f"--save {args.save}: a file in an existing folder is needed")
    report(args.matches, args.seed, args.save, args.money, args.games)


if __name__ == "__main__":
    main()
