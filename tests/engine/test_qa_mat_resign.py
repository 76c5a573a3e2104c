"""A game resigned after a roll that was not played yet, through the ``.mat`` text and back.

gnubg writes such a roll alone (``31:``) before the ``Wins`` line and reads it back as dice
rolled, then a resignation; without it a game resigned right after the opening roll could not
be read at all (the opening roll must come before any resignation).
"""

from __future__ import annotations

import pytest

from boardgammon.engine import Match
from boardgammon.formats import read_mat, write_mat
from tests.helpers.gnubg import run_script


def _resigned_after_opening(die0: int, die1: int, resigner: int) -> Match:
    m = Match(3, players=("Ann", "Bob"))
    m.roll_opening(die0, die1)
    m.resign(resigner, 1)
    m.accept(1 - resigner)
    return m


def _resigned_after_a_roll(resigner: int) -> Match:
    m = Match(3, players=("Ann", "Bob"))
    m.roll_opening(3, 1)
    m.play(0, "8/5 6/5")
    m.roll(1, 6, 4)
    m.resign(resigner, 2)
    m.accept(1 - resigner)
    return m


CASES = [
    (_resigned_after_opening(3, 1, 1), "  1) 31:"),
    (_resigned_after_opening(1, 3, 0), "  1)                             31:"),
    (_resigned_after_opening(5, 2, 0), "  1) 52:"),
    (_resigned_after_a_roll(1), "                 64:"),
    (_resigned_after_a_roll(0), "                 64:"),
]


@pytest.mark.parametrize(("match", "roll_line"), CASES)
def test_unplayed_roll_before_a_resignation_round_trips(match, roll_line):
    text = write_mat(match)
    assert roll_line in text
    back = read_mat(text)
    assert back.score == match.score and back.results == match.results
    assert back.record == match.record
    assert write_mat(back) == text


@pytest.mark.gnubg
def test_gnubg_reads_the_unplayed_roll_and_the_resignation():
    texts = [write_mat(m) for m, _ in CASES]
    got = run_script(r'''
out = []
for i, text in enumerate(json.loads(os.environ["TEXTS"])):
    with open("in%d.mat" % i, "w") as f:
        f.write(text)
    gnubg.command("import mat in%d.mat" % i)
    g = gnubg.match(analysis=0, boards=0)["games"][0]
    out.append({"info": g["info"], "last": [g["game"][-2]["action"], g["game"][-1]["action"],
                                            g["game"][-2].get("dice")]})
emit(out)
''', env={"TEXTS": __import__("json").dumps(texts)})
    for (m, _), g in zip(CASES, got, strict=True):
        result = m.results[0]
        assert ("XO".index(g["info"]["winner"]), g["info"]["points-won"]) == \
            (result.winner, result.points)
        assert g["info"]["resigned"] is True
        rolled = [a.dice for a in m.record if a.kind in ("opening", "roll")][-1]
        assert g["last"][:2] == ["set", "resign"]
        assert sorted(g["last"][2]) == sorted(rolled)
