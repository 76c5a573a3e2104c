"""The analysis names its judge and flags a player judged by its own engine (issue 27: ``analyze
--ply 2`` gave hard a PR of 0.0 in a match hard played, without saying why); gnubg 1.07's marks
on every decision."""

from __future__ import annotations

import itertools
import json

import pytest
from typer.testing import CliRunner

from boardgammon.analysis import report as rep
from boardgammon.analysis.analysis import (
    BLUNDER,
    DOUBTFUL,
    ERROR,
    analyse_match,
    engine_plies,
    judge_name,
    mark,
)
from boardgammon.cli import app
from boardgammon.commands.analyze import engine_of
from boardgammon.commands.selfplay import bot_act, opening
from boardgammon.engine import Match
from tests.helpers.fake import PipEvaluator
from tests.helpers.random_match import play_random_match


def test_marks_are_gnubgs_at_its_thresholds():
    assert (DOUBTFUL, ERROR, BLUNDER) == (0.03, 0.06, 0.12)
    losses = (0.0, 0.0299, 0.03, 0.0599, 0.06, 0.1199, 0.12, 0.5)
    assert [mark(x) for x in losses] == ["", "", "?!", "?!", "?", "?", "??", "??"]


def test_engine_depths_and_names():
    assert [engine_plies(x) for x in ("medium", "hard", "easy", None, "Ann")] == [
        0,
        2,
        None,
        None,
        None,
    ]
    names = (
        "hard",
        "white-hard",
        "black-medium",
        "Computer-easy",
        "Computer (hard)",
        "Ann",
        "You",
        "Mary-Jane",
        "Bob (Berlin)",
    )
    assert [engine_of(n) for n in names] == [
        "hard",
        "hard",
        "medium",
        "easy",
        "hard",
        None,
        None,
        None,
        None,
    ]
    assert judge_name(2) == "our network at 2-ply"
    assert judge_name(0, PipEvaluator()) == "PipEvaluator at 0-ply"


@pytest.fixture(scope="module")
def medium_match() -> Match:
    """A 1-point match, medium (seat 0) against easy, seeded."""
    from boardgammon.bots import create

    m = Match(1, players=("white-medium", "black-easy"))
    bots = (create("medium", 1), create("easy", 2))
    rng = __import__("random").Random(3)

    def dice():
        return rng.randint(1, 6), rng.randint(1, 6)

    opening(m, dice)
    while not m.is_over:
        seat = m.waiting_for
        bot_act(m, seat, bots[seat], dice)
    return m


def test_a_player_judged_by_its_own_engine_is_flagged(medium_match):
    m = medium_match
    own = analyse_match(m, plies=0, engines=("medium", "easy"))
    assert own.judge == "our network at 0-ply" and own.self_judged == (True, False)
    # Why the flag: medium plays the judge's own best play every time.
    medium = [c for c in own.checker if c.seat == 0 and not c.forced]
    assert len(medium) > 3 and all(c.loss == 0.0 for c in medium)
    data = rep.to_dict(own, moves=False)
    assert data["judge"] == "our network at 0-ply"
    assert [p["self_judged"] for p in data["players"]] == [True, False]
    text = rep.format_text(own)
    warning = "  WARNING: " + rep.SELF_JUDGED_WARNING.format(judge="our network at 0-ply")
    lines = text.splitlines()
    at = lines.index("white-medium (seat 0)") + 1
    # The warning wrapped within 80 columns, its continuations indented four more.
    rest = list(itertools.takewhile(lambda line: line.startswith("      "), lines[at + 1:]))
    assert " ".join(" ".join([lines[at], *rest]).split()) == " ".join(warning.split())
    assert lines[at].startswith("  WARNING: ")
    assert text.count("WARNING") == 1
    # At another depth the judge is not medium's engine; hard would be judged by itself.
    assert analyse_match(m, plies=1, engines=("medium", "easy")).self_judged == (False, False)
    assert analyse_match(m, plies=2, engines=("hard", None)).self_judged == (True, False)
    # Another evaluator is never the bots' engine.
    assert analyse_match(m, PipEvaluator(), 0, engines=("medium", None)).self_judged == (
        False,
        False,
    )


def test_the_analyze_command_names_its_judge_and_warns(medium_match, tmp_path):
    path = tmp_path / "m.json"
    path.write_text(medium_match.to_json())
    runner = CliRunner()
    text = runner.invoke(app, ["analyze", str(path)])
    assert text.exit_code == 0, text.output
    assert "judged by our network at 0-ply" in text.output
    assert "WARNING: judged by its own engine (our network at 0-ply)" in text.output
    out = runner.invoke(app, ["analyze", str(path), "--json", "--moves"])
    data = json.loads(out.output)
    assert data["judge"] == "our network at 0-ply"
    assert [p["self_judged"] for p in data["players"]] == [True, False]
    for d in data["moves"]:
        assert d["mark"] == mark(d["loss"])
        assert d["mark"] == {None: "", "doubtful": "?!", "error": "?", "blunder": "??"}[d["skill"]]


def test_text_report_marks_and_thresholds():
    m = play_random_match(11, length=3)
    a = analyse_match(m, PipEvaluator())
    text = rep.format_text(a, moves=True)
    assert "judged by PipEvaluator at 0-ply" in text
    assert (
        "Marks, gnubg 1.07's thresholds: doubtful ?! ≥ 0.03, bad ? ≥ 0.06, very bad ?? ≥ "
        "0.12 EMG lost"
    ) in " ".join(text.split())  # the words, wrapped within 80 columns
    s = rep.summarise(a)
    p = s.players[0]
    assert (
        f"  doubtful ?! {p.skill['doubtful']}  bad ? {p.skill['error']}  very bad ?? "
        f"{p.skill['blunder']} (checker plays and cube decisions)"
    ) in text
    marked = [c for c in a.checker if c.skill]
    assert marked, "the random players make marked plays"
    names = {"doubtful": "?! doubtful", "error": "? bad", "blunder": "?? very bad"}
    for c in marked:
        assert f"loss {c.loss:.3f}  {names[c.skill]}  best " in text
