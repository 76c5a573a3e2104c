"""Our match analysis beside GNU Backgammon's on the same matches (a report, not a test).

``python -m benchmarks.analysis_vs_gnubg [MATCHES] [--ply N]`` plays ``MATCHES`` 7-point matches
between the easy and the medium bot (the easy bot plays the 2nd or 3rd best play, so there are
real errors to find), writes each as ``.mat``, has gnubg ``import mat`` / ``analyse match`` at
the same depth (its ``gnubg.match()`` analysis fields through
:func:`tests.helpers.gnubg.run_script`), analyses it with ours, and prints:

* per player: the checker error rate (millipoints per unforced move) and the number of
  unforced moves, ours beside gnubg's, and the relative difference;
* the correlation of per-decision equity losses over every unforced checker play;
* the share of unforced checker plays where both name the same best play, overall and by how
  far gnubg's best play leads its second (:data:`MARGINS`), and how often our best play is
  within 0.01 or 0.02 EMG of gnubg's by gnubg's own values (:data:`NEAR`);
* the correlation and mean difference of the luck of every roll (opening rolls aside: ours
  judges them against the 15 non-double rolls, gnubg against all 36), both at 0-ply;
* at ``--ply`` above 0, a yardstick: how often gnubg's own 0-ply analysis names the best play
  of its analysis at that depth, on the same plays (two analyses of one engine, one net).

Targets (issue 9): error rates within 10 % of gnubg's, the same best play in at least 90 % of
unforced decisions. Both value checker plays cubefully at the match score, gnubg with its
default MET (Kazaross-XG2), ours with the same published table (:mod:`boardgammon.cube.met`).
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np

from boardgammon.analysis.analysis import MatchAnalysis, analyse_match
from boardgammon.analysis.report import summarise
from boardgammon.bots import create
from boardgammon.commands.selfplay import bot_act, opening
from boardgammon.engine import Match, Play
from boardgammon.formats import write_mat
from tests.helpers.gnubg import run_script

GNUBG_ANALYSE = r'''
plies = os.environ["PLIES"]
for what in ("chequerplay", "cubedecision"):
    gnubg.command(f"set analysis {what} evaluation plies {plies}")
gnubg.command("set analysis luckanalysis plies 0")  # ours: always 0-ply
gnubg.command("import mat " + os.environ["MAT"])
gnubg.command("analyse match")
m = gnubg.match(analysis=True, boards=False, statistics=True, verbose=False)
moves = []
for g in m["games"]:
    for a in g["game"]:
        if a["action"] != "move":
            continue
        an = a.get("analysis", {})
        cands = an.get("moves") or []
        i = an.get("imove")
        moves.append({"player": a["player"], "move": [list(p) for p in a.get("move", ())],
                      "best": [list(p) for p in cands[0]["move"]] if cands else None,
                      "loss": (cands[0]["score"] - cands[i]["score"]) if cands and i is not None
                      else None,
                      "margin": (cands[0]["score"] - cands[1]["score"]) if len(cands) > 1
                      else None,
                      "n": len(cands), "luck": an.get("luck-value"),
                      "scores": [[[list(p) for p in c["move"]], c["score"]] for c in cands]})
stats = {side: {"unforced": s["moves"]["unforced-moves"], "error": s["moves"]["error-skill"],
                "luck": s["dice"]["luck"]} for side, s in m["stats"].items()}
emit({"moves": moves, "stats": stats})
'''


def bot_match(seed: int, length: int = 7, levels: tuple[str, str] = ("easy", "medium"),
              games: int = 6) -> Match:
    """A ``length``-point match of the bot ``levels[0]`` (seat 0; default easy) against
    ``levels[1]`` (seat 1; default medium), dice from ``random.Random(seed)``; ``length`` 0:
    a money session (no Jacoby rule) of ``games`` games."""
    rng = random.Random(seed)
    bots = (create(levels[0], seed), create(levels[1], seed + 1))
    m = Match(length, players=levels)

    def dice() -> tuple[int, int]:
        return rng.randint(1, 6), rng.randint(1, 6)

    def done() -> bool:
        return m.is_over if length else sum(g.is_over for g in m.games) >= games

    while not done():
        opening(m, dice)
        if m.is_over:
            break
        seat = m.game.turn
        bot_act(m, seat, bots[seat], dice)
    return m


def gnubg_analysis(match: Match, plies: int) -> tuple[dict, float]:
    """gnubg's per-move analysis and statistics of ``match`` at ``plies``, and the seconds its
    run took (start-up included)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "match.mat"
        path.write_text(write_mat(match))
        t = time.perf_counter()
        out = run_script(GNUBG_ANALYSE, env={"MAT": str(path), "PLIES": str(plies)})
        return out, time.perf_counter() - t


def _net(pairs) -> Counter:
    """The net movement of a play given as (from, to) pairs (25 bar, 0 off)."""
    delta: Counter = Counter()
    for src, dst in pairs:
        delta[src] -= 1
        delta[dst] += 1
    return Counter({k: v for k, v in delta.items() if v})


def gnubg_loss(move: dict, play: Counter) -> float:
    """EMG that gnubg's analysis ``move`` (an entry of :func:`gnubg_analysis`'s ``moves``)
    says ``play`` (a net movement, :func:`_net`) loses against its best play; ``inf`` where the
    play is not among the plays gnubg lists. Values of plays gnubg searched less deep are
    compared as they stand, as gnubg's own error figures do."""
    for pairs, score in move["scores"]:
        if _net(pairs) == play:
            return move["scores"][0][1] - score
    return float("inf")


def compare(ours: MatchAnalysis, theirs: dict) -> dict:
    """Per-decision pairs of the two analyses, matched in the order of play.

    Returns:
        ``{"ours": [...], "gnubg": [...], "same_best": [bool, ...], "margins": [...],
        "players": {seat: {...}}, "luck": [(ours, gnubg), ...]}`` over the unforced checker
        plays both analysed (``margins``: gnubg's equity between its best and second-best
        play; ``best_loss``: what gnubg's analysis says our best play loses against its own
        best, :func:`gnubg_loss`; luck: every roll but the games' opening rolls; all EMG).

    Raises:
        ValueError: the two analyses do not list the same number of plays.
    """
    moves = theirs["moves"]
    if len(moves) != len(ours.checker):
        raise ValueError(f"gnubg lists {len(moves)} plays, ours {len(ours.checker)}")
    a, b, same, margins, their_loss = [], [], [], [], []
    for mine, g in zip(ours.checker, moves, strict=True):
        if mine.forced or g["loss"] is None or g["n"] < 2:
            continue
        a.append(mine.loss)
        b.append(g["loss"])
        margins.append(g["margin"])
        best = _net((m.source, m.dest) for m in Play.parse(mine.best[0].play).moves)
        same.append(best == _net(g["best"]))
        their_loss.append(gnubg_loss(g, best))
    luck = [(r.luck, g["luck"]) for r, g in zip(ours.luck, moves, strict=True)
            if r.turn > 0 and g["luck"] is not None]
    s = summarise(ours)
    # gnubg's "X" is the .mat file's left column, seat 0.
    players = {seat: {"ours": s.players[seat].checker_error_rate,
                      "ours_unforced": s.players[seat].unforced,
                      "gnubg": 1000 * theirs["stats"][side]["error"]
                      / max(1, theirs["stats"][side]["unforced"]),
                      "gnubg_unforced": theirs["stats"][side]["unforced"]}
               for seat, side in ((0, "X"), (1, "O"))}
    return {"ours": a, "gnubg": b, "same_best": same, "margins": margins,
            "best_loss": their_loss, "players": players, "luck": luck}


MARGINS = ((0.0, 0.01), (0.01, 0.03), (0.03, 0.1), (0.1, float("inf")))
"""Bands of gnubg's lead of its best play over its second (EMG) for the agreement split: two
engines differ most where the best play is barely best."""
NEAR = (0.01, 0.02)
"""EMG: the report also gives how often the best play named loses at most this by gnubg."""


def gnubg_same_best(shallow: dict, deep: dict) -> list[tuple[bool, float, float]]:
    """For each unforced play analysed by both of gnubg's runs of one match (``shallow`` and
    ``deep``, from :func:`gnubg_analysis`): whether they name the same best play, the deep
    run's lead of its best play over its second, and what the deep run says the shallow run's
    best play loses (:func:`gnubg_loss`), both EMG.

    Raises:
        ValueError: the two runs do not list the same number of plays.
    """
    if len(shallow["moves"]) != len(deep["moves"]):
        raise ValueError(f"gnubg's runs list {len(shallow['moves'])} and "
                         f"{len(deep['moves'])} plays")
    return [(_net(a["best"]) == _net(b["best"]), b["margin"], gnubg_loss(b, _net(a["best"])))
            for a, b in zip(shallow["moves"], deep["moves"], strict=True)
            if a["best"] and b["best"] and a["n"] >= 2 and b["n"] >= 2]


def _by_margin(rows: list[tuple[bool, float, float]]) -> str:
    """The share of ``(same, margin, loss)`` rows that agree in each band of :data:`MARGINS`."""
    parts = []
    for lo, hi in MARGINS:
        pick = [row[0] for row in rows if lo <= row[1] < hi]
        if pick:
            parts.append(f"{lo:.2f}-{hi:.2f}: {100 * sum(pick) / len(pick):.1f} % of "
                         f"{len(pick)}")
    return "; ".join(parts)


def _near(rows: list[tuple[bool, float, float]]) -> str:
    """The shares of rows whose best play loses at most each of :data:`NEAR` by gnubg."""
    return ", ".join(f"{100 * sum(r[2] <= near + 1e-9 for r in rows) / len(rows):.1f} % within "
                     f"{near}" for near in NEAR)


def report(matches: int = 3, plies: int = 0, seed: int = 1) -> dict:
    """Analyse ``matches`` bot matches both ways and print the comparison; returns totals."""
    ours_all, gnubg_all, same_all, luck_all, margin_all, loss_all = [], [], [], [], [], []
    rates: dict[str, list[float]] = {"ours": [], "gnubg": []}
    own: list[tuple[bool, float, float]] = []  # gnubg 0-ply's best against gnubg at ``plies``
    for k in range(matches):
        m = bot_match(seed + k)
        t = time.perf_counter()
        ours = analyse_match(m, plies=plies)
        ours_s = time.perf_counter() - t
        theirs, gnubg_s = gnubg_analysis(m, plies)
        c = compare(ours, theirs)
        if plies:
            shallow, _ = gnubg_analysis(m, 0)
            own += gnubg_same_best(shallow, theirs)
        ours_all += c["ours"]
        gnubg_all += c["gnubg"]
        same_all += c["same_best"]
        margin_all += c["margins"]
        loss_all += c["best_loss"]
        luck_all += c["luck"]
        print(f"match {k + 1}: score {m.score[0]}-{m.score[1]}, {len(c['ours'])} unforced plays "
              f"compared; ours {ours_s:.1f} s, gnubg {gnubg_s:.1f} s")
        for seat, p in c["players"].items():
            rates["ours"].append(p["ours"] or 0.0)
            rates["gnubg"].append(p["gnubg"])
            rel = (p["ours"] - p["gnubg"]) / p["gnubg"] if p["gnubg"] and p["ours"] else None
            print(f"  {m.players[seat]:<7} error rate ours {p['ours'] or 0:7.1f} "
                  f"({p['ours_unforced']} moves)  gnubg {p['gnubg']:7.1f} "
                  f"({p['gnubg_unforced']} moves)  "
                  f"difference {'—' if rel is None else f'{100 * rel:+.0f} %'}")
    corr = float(np.corrcoef(ours_all, gnubg_all)[0, 1]) if len(ours_all) > 2 else float("nan")
    share = sum(same_all) / len(same_all) if same_all else float("nan")
    within = [abs(o - g) / g <= 0.10 for o, g in zip(rates["ours"], rates["gnubg"], strict=True)
              if g]
    print(f"{plies}-ply, {len(ours_all)} unforced plays: correlation of equity losses "
          f"{corr:.3f}; same best play {100 * share:.1f} % (target ≥ 90 %); per-player error "
          f"rates within 10 % of gnubg's: {sum(within)}/{len(within)}")
    rows = list(zip(same_all, margin_all, loss_all, strict=True))
    print(f"  by gnubg's lead of its best play over its second (EMG): {_by_margin(rows)}")
    if rows:
        print(f"  our best play loses by gnubg's {plies}-ply values: {_near(rows)}")
    if own:
        print(f"yardstick: gnubg 0-ply names gnubg {plies}-ply's best play in "
              f"{100 * sum(r[0] for r in own) / len(own):.1f} % of {len(own)} unforced plays; "
              f"by lead {_by_margin(own)}; its best play loses by gnubg's {plies}-ply values: "
              f"{_near(own)}")
    lo, lg = np.array(luck_all).T if luck_all else (np.zeros(0), np.zeros(0))
    luck_corr = float(np.corrcoef(lo, lg)[0, 1]) if len(lo) > 2 else float("nan")
    print(f"luck of {len(lo)} rolls (0-ply both): correlation {luck_corr:.3f}, mean difference "
          f"{np.abs(lo - lg).mean() if len(lo) else float('nan'):.3f} EMG")
    return {"correlation": corr, "same_best": share, "within_10pct": sum(within),
            "gnubg_own_same_best": sum(r[0] for r in own) / len(own) if own else None,
            "players": len(within), "decisions": len(ours_all), "luck_correlation": luck_corr}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("matches", nargs="?", type=int, default=3,
                        help="7-point matches of easy against medium to analyse both ways")
    parser.add_argument("--ply", type=int, default=0, choices=(0, 1, 2),
                        help="analysis depth of both engines")
    parser.add_argument("--seed", type=int, default=1, help="seeds the first match")
    args = parser.parse_args()
    if args.matches < 1:
        parser.error("MATCHES is at least 1")
    report(args.matches, args.ply, args.seed)


if __name__ == "__main__":
    main()
