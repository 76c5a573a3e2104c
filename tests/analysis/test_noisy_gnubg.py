"""The matches of ``benchmarks.analysis_noisy`` (issue #27's measure of the analysis): gnubg plays
them against itself, one seat with noise, and our rules replay them."""

from __future__ import annotations

import re

import pytest

from benchmarks.analysis_noisy import NAMES, NOISES, play
from benchmarks.analysis_vs_gnubg import compare, gnubg_analysis
from boardgammon.analysis.analysis import analyse_match

pytestmark = pytest.mark.gnubg


def _undated(mat: str) -> str:
    return re.sub(r"EventDate \"[^\"]*\"", "", mat)


def test_gnubg_plays_the_noisy_matches_and_charges_only_the_noisy_seat():
    played = play(2, seed=11)
    # The first match is 1 point, noise 0.02 on seat 0; the second 3 points, 0.04 on seat 1.
    assert [p.match.length for p in played] == [1, 3]
    assert [(p.noisy_seat, p.noise) for p in played] == [(0, NOISES[0]), (1, NOISES[1])]
    assert played[0].match.players == NAMES and played[1].match.players == NAMES[::-1]
    for p in played:
        assert p.match.is_over  # played to the end, and replayed under our rules
        theirs, _ = gnubg_analysis(p.match, 0)
        c = compare(analyse_match(p.match, plies=0), theirs)  # the same plays, in order
        rates = {seat: r["gnubg"] for seat, r in c["players"].items()}
        # gnubg 0-ply judges its own noise-free 0-ply play perfect, and the noisy one not:
        # the seats are the ones the benchmark says.
        assert rates[1 - p.noisy_seat] == 0.0
        assert rates[p.noisy_seat] > 0.0
    # Reproducible from the seed (gnubg's noise is a function of the position).
    again = play(1, seed=11)
    assert _undated(again[0].mat) == _undated(played[0].mat)
