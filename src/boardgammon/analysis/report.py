"""Per-player and whole-match figures from a :class:`~.analysis.MatchAnalysis`, as JSON-ready
dicts and as text.

Conventions (all equity in normalised equity, EMG, see :mod:`.analysis`):

* **Decisions** are the unforced checker plays (more than one legal play) and the cube
  decisions that count (an actual double, take or drop, or a close no-double: see
  :data:`~.analysis.CLOSE_CUBE`).
* **PR** (performance rating, the convention of eXtreme Gammon): mean equity lost per decision
  × 500. Lower is better; 0 is perfect play by the analysing model. The match PR takes both
  players' decisions together.
* **Error rate** (gnubg's figure, for comparison with ``show statistics match``): equity lost
  per decision in millipoints (× 1000), overall and for checker plays alone (per unforced
  move). For the same decisions it is twice the PR.
* **Doubtful / bad / very bad** (``doubtful`` / ``error`` / ``blunder`` in the JSON; marked
  "?!" / "?" / "??"): a decision losing at least 0.03 / 0.06 / 0.12 EMG (the thresholds gnubg
  1.07 applies, :data:`~.analysis.MARKS`), checker plays and cube decisions together.
* **The judge**: ``judge`` names the evaluator and depth ("our network at 2-ply"); a player
  whose own engine is the judge is flagged ``self_judged`` with :data:`SELF_JUDGED_WARNING`.
* **Cube errors** by kind: missed double, wrong double, wrong take, wrong drop (any loss > 0).
* **Luck**: see :mod:`.luck`.
* **Resignations**: each offer, and its acceptance or refusal, judged by the game played on
  (right or wrong, and the EMG lost); not part of the PR.
* **Rating** (a verbal skill band) and **luck rating**: gnubg's. The rating bands bound the
  error per decision (EMG) at 0.002 Supernatural, 0.005 World class, 0.008 Expert, 0.012
  Advanced, 0.018 Intermediate, 0.026 Casual player, 0.035 Beginner, beyond Awful! (the GNU
  Backgammon manual, "All About GNU Backgammon", on the analysis ratings); as PR (× 500): 1,
  2.5, 4, 6, 9, 13, 17.5. The luck rating is gnubg's ``getLuckRating``: the luck per roll
  (EMG) times 10 judged by the levels of a single roll (:mod:`.luck`: 0.3, 0.6): Go to bed,
  Bad dice, man!, None, Good dice, man!, Go to Las Vegas.
"""

from __future__ import annotations

import textwrap
from collections import Counter
from dataclasses import asdict, dataclass

from . import luck as luck_mod
from .analysis import (
    BLUNDER,
    CUBE_ERRORS,
    DOUBTFUL,
    ERROR,
    MARKS,
    SKILL_NAMES,
    CheckerDecision,
    CubeDecision,
    MatchAnalysis,
)

_THRESHOLDS = (("doubtful", DOUBTFUL), ("error", ERROR), ("blunder", BLUNDER))
PR_FACTOR = 500.0
ERROR_RATE_FACTOR = 1000.0
LUCK_LABELS = ("very lucky", "lucky", "unlucky", "very unlucky")
RATINGS = ((1.0, "Supernatural"), (2.5, "World class"), (4.0, "Expert"), (6.0, "Advanced"),
           (9.0, "Intermediate"), (13.0, "Casual player"), (17.5, "Beginner"))
"""gnubg's rating bands as upper bounds of PR (module docstring); beyond the last: Awful!"""
RATING_SOURCE = "gnubg's bands (GNU Backgammon manual)"
SELF_JUDGED_WARNING = ("judged by its own engine ({judge}): it plays by the judge's own "
                       "evaluations, so this PR measures its agreement with itself, not its "
                       "skill")
"""The warning beside a player whose engine is the judge (``{judge}``: the judge's name)."""
LUCK_RATINGS = {"very lucky": "Go to Las Vegas", "lucky": "Good dice, man!", None: "None",
                "unlucky": "Bad dice, man!", "very unlucky": "Go to bed"}


def rating(pr_value: float | None) -> str | None:
    """gnubg's verbal rating of a PR (``None`` for no decision)."""
    if pr_value is None:
        return None
    return next((name for bound, name in RATINGS if pr_value < bound), "Awful!")


def luck_rating(luck: float, rolls: int) -> str | None:
    """gnubg's luck rating of ``luck`` (EMG) over ``rolls`` rolls (``None`` for none)."""
    return LUCK_RATINGS[luck_mod.label(10 * luck / rolls)] if rolls else None


@dataclass(frozen=True)
class PlayerSummary:
    """One player's figures (see the module docstring for the definitions).

    Attributes:
        unforced, forced: checker plays with more than one legal play / with one or none;
        dances: of the forced, the rolls with no legal play at all.
        cube_decisions: cube decisions that count; checker_loss, cube_loss: EMG lost in each.
        pr, error_rate, checker_error_rate: ``None`` when there is no decision.
        skill: counts of ``doubtful``, ``error``, ``blunder`` (checker and cube together).
        cube_errors: counts by kind (:data:`~.analysis.CUBE_ERRORS`).
        luck, luck_mwc: total luck (EMG; MWC in a match, points × cube in money play).
        luck_rolls: counts of rolls by luck label.
        luck_adjusted: the luck-adjusted result (:func:`.luck.luck_adjusted`; MWC in a match,
            points in money play), ``None`` for an unfinished match.
        rating, luck_rating: gnubg's verbal bands of ``pr`` and of the luck per roll
            (:func:`rating`, :func:`luck_rating`), ``None`` without decisions or rolls.
        self_judged: the player's engine is the judge (:attr:`MatchAnalysis.self_judged
            <.analysis.MatchAnalysis.self_judged>`).
    """

    seat: int
    name: str
    unforced: int
    forced: int
    dances: int
    cube_decisions: int
    checker_loss: float
    cube_loss: float
    pr: float | None
    error_rate: float | None
    checker_error_rate: float | None
    skill: dict[str, int]
    cube_errors: dict[str, int]
    luck: float
    luck_mwc: float
    luck_rolls: dict[str, int]
    luck_adjusted: float | None
    rating: str | None
    luck_rating: str | None
    self_judged: bool

    @property
    def decisions(self) -> int:
        return self.unforced + self.cube_decisions


@dataclass(frozen=True)
class AnalysisSummary:
    """Both players' figures and the match's: ``pr`` over every decision of both players,
    ``blunders`` of both together (the result screen's count)."""

    players: tuple[PlayerSummary, PlayerSummary]
    pr: float | None
    blunders: int
    length: int
    score: tuple[int, int]
    winner: int | None
    plies: int
    judge: str


def _counted_cube(analysis: MatchAnalysis, seat: int | None = None) -> list[CubeDecision]:
    return [c for c in analysis.cube if c.close and (seat is None or c.seat == seat)]


def _unforced(analysis: MatchAnalysis, seat: int | None = None) -> list[CheckerDecision]:
    return [c for c in analysis.checker if not c.forced and (seat is None or c.seat == seat)]


def pr(losses: list[float]) -> float | None:
    """PR of decisions that lost ``losses`` (EMG each): mean × 500, ``None`` for none."""
    return PR_FACTOR * sum(losses) / len(losses) if losses else None


def _player(analysis: MatchAnalysis, seat: int) -> PlayerSummary:
    plays = _unforced(analysis, seat)
    cubes = _counted_cube(analysis, seat)
    forced = [c for c in analysis.checker if c.forced and c.seat == seat]
    checker_loss = sum(c.loss for c in plays)
    cube_loss = sum(c.loss for c in cubes)
    losses = [c.loss for c in plays] + [c.loss for c in cubes]
    skills = Counter([c.skill for c in plays if c.skill] + [c.skill for c in cubes if c.skill])
    errors = Counter(c.error for c in cubes if c.error)
    rolls = [r for r in analysis.luck if r.seat == seat]
    own = sum(r.luck for r in rolls)
    match_play = analysis.length > 0
    # Luck in the unit of the result: MWC in a match, points (EMG × cube) in money play.
    own_units = sum(r.luck_mwc if match_play else r.luck * r.cube for r in rolls)
    theirs_units = sum(r.luck_mwc if match_play else r.luck * r.cube
                       for r in analysis.luck if r.seat != seat)
    result = _result(analysis, seat)
    labels = Counter(r.label for r in rolls if r.label)
    return PlayerSummary(
        seat=seat, name=analysis.players[seat], unforced=len(plays), forced=len(forced),
        dances=sum(1 for c in forced if not c.play),
        cube_decisions=len(cubes), checker_loss=checker_loss, cube_loss=cube_loss,
        pr=pr(losses),
        error_rate=ERROR_RATE_FACTOR * sum(losses) / len(losses) if losses else None,
        checker_error_rate=ERROR_RATE_FACTOR * checker_loss / len(plays) if plays else None,
        skill={k: skills.get(k, 0) for k in ("doubtful", "error", "blunder")},
        cube_errors={k: errors.get(k, 0) for k in CUBE_ERRORS},
        luck=own, luck_mwc=own_units,
        luck_rolls={k: labels.get(k, 0) for k in LUCK_LABELS},
        luck_adjusted=(None if result is None
                       else luck_mod.luck_adjusted(result, own_units, theirs_units)),
        rating=rating(pr(losses)), luck_rating=luck_rating(own, len(rolls)),
        self_judged=analysis.self_judged[seat])


def _result(analysis: MatchAnalysis, seat: int) -> float | None:
    """The actual result for ``seat``: ±0.5 MWC for a finished match (against the 0.5 at the
    start), net points in money play, ``None`` for an unfinished match."""
    if analysis.length == 0:
        return float(analysis.score[seat] - analysis.score[1 - seat])
    if analysis.winner is None:
        return None
    return 0.5 if analysis.winner == seat else -0.5


def summarise(analysis: MatchAnalysis) -> AnalysisSummary:
    """The :class:`AnalysisSummary` of an analysis."""
    players = (_player(analysis, 0), _player(analysis, 1))
    losses = [c.loss for c in _unforced(analysis)] + [c.loss for c in _counted_cube(analysis)]
    return AnalysisSummary(players, pr(losses), sum(p.skill["blunder"] for p in players),
                        analysis.length, analysis.score, analysis.winner, analysis.plies,
                        analysis.judge)


def _checker_dict(c: CheckerDecision) -> dict:
    d = asdict(c)
    d.update(type="checker", forced=c.forced, skill=c.skill, mark=c.mark, dice=list(c.dice),
             best=[asdict(b) for b in c.best], score=list(c.score))
    return d


def _cube_dict(c: CubeDecision) -> dict:
    d = asdict(c)
    d.update(type="cube", best_action=c.best, skill=c.skill, mark=c.mark,
             score=list(c.score))
    return d


def decisions(analysis: MatchAnalysis) -> list[dict]:
    """Every decision as a JSON-ready dict in match order (``type`` ``checker`` or ``cube``;
    a checker decision carries its roll's ``luck`` and ``luck_label``)."""
    luck = {(r.game, r.turn): r for r in analysis.luck}
    items: list[tuple[tuple, dict]] = []
    for c in analysis.checker:
        d = _checker_dict(c)
        r = luck.get((c.game, c.turn))
        d.update(luck=r.luck if r else None, luck_label=r.label if r else None)
        items.append(((c.game, c.turn, 1), d))
    for k in analysis.cube:
        items.append(((k.game, k.turn, 0), _cube_dict(k)))
    return [d for _, d in sorted(items, key=lambda x: x[0])]


def to_dict(analysis: MatchAnalysis, moves: bool = True) -> dict:
    """The summary (and with ``moves`` every decision) as a JSON-ready dict, floats rounded
    to 6 decimals::

        {"length", "score", "winner", "plies", "judge", "pr", "blunders",
         "players": [{"seat", "name", "pr", "error_rate", ...}, ...],
         "moves": [...]}           # only with moves=True, see :func:`decisions`
    """
    s = summarise(analysis)
    out = {"length": s.length, "score": list(s.score), "winner": s.winner, "plies": s.plies,
           "judge": s.judge, "pr": s.pr, "blunders": s.blunders,
           "players": [{**asdict(p), "decisions": p.decisions} for p in s.players]}
    out["resignations"] = [asdict(r) for r in analysis.resignations]
    if moves:
        out["moves"] = decisions(analysis)
    return _rounded(out)


def _rounded(x):
    """``x`` with every float rounded to 6 decimals (a millionth of an EMG or of a MWC, far
    below any reported difference), so that 1 − 3e-16 reads 1.0."""
    if isinstance(x, float):
        return round(x, 6)
    if isinstance(x, dict):
        return {k: _rounded(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_rounded(v) for v in x]
    return x


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _fmt(x: float | None, spec: str = ".1f") -> str:
    return "—" if x is None else format(x, spec)


def _fit(line: str, width: int = 80) -> list[str]:
    """``line`` wrapped at spaces to ``width`` columns, its continuations indented four more
    than it; an empty line stays one."""
    indent = line[:len(line) - len(line.lstrip())]
    return textwrap.wrap(line, width, subsequent_indent=indent + "    ", break_long_words=False,
                         break_on_hyphens=False) or [line]


def _luck_rating_text(name: str) -> str:
    """gnubg's luck band quoted, as a name: its neutral band is called "None", which unquoted
    read as a value missing (issue 26 review: "luck rating None")."""
    return f'luck rating "{name}"' + (" (gnubg's band for neither lucky nor unlucky)"
                                      if name == LUCK_RATINGS[None] else "")


def _resignation_lines(analysis: MatchAnalysis, seat: int) -> list[str]:
    """One line per resignation ``seat`` offered or answered: right or wrong, by how much."""
    names = {1: "a single", 2: "a gammon", 3: "a backgammon"}
    lines = []
    for r in analysis.resignations:
        if r.seat != seat:
            continue
        what = {"offer": "offered to resign", "accept": "accepted a resignation of",
                "decline": "declined a resignation of"}[r.kind]
        verdict = (f"wrong ({r.error}), lost {r.loss:.3f} EMG" if r.error else "right")
        lines.append(f"  game {r.game + 1}: {what} {names[r.points]} at cube {r.cube}: "
                     f"{verdict} (accepting {r.accepted:+.3f}, playing on {r.played_on:+.3f} "
                     f"EMG for the side offered it)")
    return lines


def format_text(analysis: MatchAnalysis, moves: bool = False) -> str:
    """A readable report: one block per player, the match PR, and with ``moves`` one line per
    decision (the turns where not doubling was clearly right are counted at the end, not
    listed: they are no decision)."""
    s = summarise(analysis)
    kind = f"{s.length}-point match" if s.length else "money play"
    if not s.length:  # a money session has no end: the points each side has won so far
        score = f"points won {s.score[0]}-{s.score[1]}"
    elif s.winner is not None:
        score = f"final score {s.score[0]}-{s.score[1]}"
    else:
        score = f"score {s.score[0]}-{s.score[1]}, unfinished"
    depth = f"judged by {s.judge}" + (", luck at 0-ply" if s.plies else "")
    lines = [f"{kind}, {score}, {depth}",
             f"Match PR {_fmt(s.pr)} (both players), very bad {s.blunders}",
             "PR = 500 × mean equity lost (EMG) per unforced decision; error rates in mEMG",
             f"Ratings, {RATING_SOURCE}: PR under "
             + ", ".join(f"{bound:g} {name}" for bound, name in RATINGS) + ", else Awful!",
             "Marks, gnubg 1.07's thresholds: " + ", ".join(
                 f"{SKILL_NAMES[k]} {MARKS[k]} ≥ {v:.2f}" for k, v in _THRESHOLDS) + " EMG lost",
             ""]
    unit = "MWC" if s.length else "points"
    for p in s.players:
        lines += [
            f"{p.name} (seat {p.seat})",
            *([f"  WARNING: {SELF_JUDGED_WARNING.format(judge=s.judge)}"]
              if p.self_judged else []),
            f"  PR {_fmt(p.pr)} ({p.rating or 'no decision'})   error rate "
            f"{_fmt(p.error_rate)} mEMG/decision   checker {_fmt(p.checker_error_rate)} "
            f"mEMG/move",
            f"  decisions {p.decisions} ({p.unforced} checker, {p.cube_decisions} cube), "
            f"forced {p.forced} ({_plural(p.dances, 'dance')}; not counted)",
            "  " + "  ".join(f"{SKILL_NAMES[k]} {MARKS[k]} {p.skill[k]}" for k in MARKS)
            + " (checker plays and cube decisions)",
            "  cube errors: " + ", ".join(f"{k} {v}" for k, v in p.cube_errors.items()),
            f"  luck {p.luck:+.3f} EMG ({p.luck_mwc:+.3f} {unit}), "
            + (_luck_rating_text(p.luck_rating) if p.luck_rating is not None
               else "no luck rating (no roll of this player's was judged)") + "; "
            + ", ".join(f"{k} {v}" for k, v in p.luck_rolls.items()),
            f"  luck-adjusted result {p.luck_adjusted:+.3f} {unit}"
            if p.luck_adjusted is not None
            else "  no luck-adjusted result: the match is unfinished (it needs the final "
                 "result)",
            *_resignation_lines(analysis, p.seat), ""]
    # The summary within 80 columns (a terminal's width): a long line goes on under a hanging
    # indent (issue 26 review: the ratings, luck and resignation lines were 86-112 wide).
    lines = [wrapped for line in lines for wrapped in _fit(line)]
    if moves:
        clear = 0
        width = max(12, *(len(n) for n in analysis.players))  # names line up however long
        for d in decisions(analysis):
            if d["type"] == "cube" and not d["close"]:
                clear += 1  # not doubling was clearly right: not a decision, not listed
                continue
            who = analysis.players[d["seat"]]
            head = f"game {d['game'] + 1} #{d['turn'] + 1:<3} {who:<{width}}"
            if d["type"] == "checker":
                roll = f"{d['dice'][0]}{d['dice'][1]}"
                # Every roll's luck counts, a forced play's and a dance's too.
                luck = f"luck {d['luck']:+.3f}" + (f" ({d['luck_label']})"
                                                   if d["luck_label"] else "")
                if d["forced"]:
                    lines.append(f"{head} {roll} {d['play'] or '(dance)':<22} forced"
                                 f"  {luck}")
                    continue
                best = d["best"][0]
                mark = f"  {d['mark']} {SKILL_NAMES[d['skill']]}" if d["skill"] else ""
                lines.append(f"{head} {roll} {d['play']:<22} loss {d['loss']:.3f}{mark}"
                             f"  best {best['play']} ({best['equity']:+.3f})  {luck}")
            else:
                mark = f"  {d['mark']} {d['error']}" if d["error"] else ""
                lines.append(f"{head} {d['action']:<22} loss {d['loss']:.3f}{mark}  "
                             f"ND {d['nd']:+.3f} D/T {d['dt']:+.3f} D/P {d['dp']:+.3f} "
                             f"-> {d['best_action']}")
        if clear:
            lines.append(f"({_plural(clear, 'turn')} where not doubling was clearly right "
                         f"not listed; the JSON report has them)")
    return "\n".join(lines).rstrip() + "\n"
