"""Differential test against GNU Backgammon: the sets of legal resulting positions must match.

The reference (``fixtures/gnubg_plays.jsonl.gz``, made by ``fixtures/gnubg_reference.py``) holds
gnubg's play sets for 1,400 positions (random play, bar, bear-off, Hypergammon, Nackgammon) x 21
rolls. Every pair is compared with :func:`generate_batch`; a sample is also asked of a live gnubg,
so the fixture is checked to be gnubg's answer and not a copy of ours.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import numpy as np
import pytest

from boardgammon.engine import Board
from boardgammon.engine.ids import decode_position_id, encode_position_ids
from boardgammon.engine.movegen import generate_batch
from tests.helpers.gnubg import run_script
from tests.helpers.gnubg_reference import ROLLS, gnubg_play_sets, load

REFERENCE = load()


def our_play_sets(position_ids: list[str]) -> list[dict[str, list[str]]]:
    """Our sorted resulting Position IDs per roll key ``"d1d2"``, through ``generate_batch``."""
    boards = np.repeat(np.array([decode_position_id(p) for p in position_ids]), len(ROLLS), 0)
    dice = np.array(ROLLS * len(position_ids), dtype=np.int64)
    out = np.empty((len(boards) * 200, 2, 25), dtype=np.int8)
    offsets = np.empty(len(boards) + 1, dtype=np.int64)
    total = generate_batch(boards, dice, out, offsets)
    assert total >= 0
    ids = encode_position_ids(out[:total])
    sets = []
    for i in range(len(position_ids)):
        per_roll = {}
        for j, (d1, d2) in enumerate(ROLLS):
            k = i * len(ROLLS) + j
            per_roll[f"{d1}{d2}"] = sorted(ids[offsets[k]:offsets[k + 1]])
        sets.append(per_roll)
    return sets


def test_reference_covers_the_required_corpus():
    kinds = Counter(row["kind"] for row in REFERENCE)
    assert kinds == {"random": 1000, "bar": 100, "bearoff": 150, "hypergammon": 100,
                     "nackgammon": 50}
    assert len({row["position_id"] for row in REFERENCE}) == len(REFERENCE)
    assert all(len(row["plays"]) == 21 for row in REFERENCE)
    boards = [Board.from_position_id(row["position_id"]) for row in REFERENCE]
    assert all(b.array[0, 24] > 0 for b, row in zip(boards, REFERENCE, strict=True)
               if row["kind"] == "bar")
    assert all(b.array[0, 6:].sum() == 0 for b, row in zip(boards, REFERENCE, strict=True)
               if row["kind"] == "bearoff")


def test_legal_sets_equal_gnubgs_reference():
    ours = our_play_sets([row["position_id"] for row in REFERENCE])
    mismatches = [
        (row["position_id"], roll, sorted(set(row["plays"][roll]) ^ set(mine[roll])))
        for row, mine in zip(REFERENCE, ours, strict=True)
        for roll in row["plays"]
        if row["plays"][roll] != mine[roll]
    ]
    assert mismatches == []
    assert sum(len(v) for row in REFERENCE for v in row["plays"].values()) > 400_000


def test_legal_plays_api_agrees_with_the_reference_sample():
    for row in random.Random(7).sample(REFERENCE, 40):
        board = Board.from_position_id(row["position_id"])
        for roll, ids in row["plays"].items():
            plays = board.legal_plays(int(roll[0]), int(roll[1]))
            assert sorted(p.after.position_id for p in plays) == ids


@pytest.mark.gnubg
def test_live_gnubg_agrees_on_a_random_sample():
    sample = random.Random().sample(REFERENCE, 30)  # a new sample each run
    pids = [row["position_id"] for row in sample]
    live = gnubg_play_sets(pids)
    assert live == [row["plays"] for row in sample]
    assert live == our_play_sets(pids)


@pytest.mark.gnubg
def test_position_id_coding_matches_gnubg():
    sample = random.Random().sample(REFERENCE, 200)
    boards = [Board.from_position_id(row["position_id"]) for row in sample]
    # gnubg's board is (side not on roll, side on roll); ours is the other way round.
    got = run_script(
        "emit([[gnubg.positionid(b), [list(r) for r in gnubg.positionfromid(pid)]]"
        " for pid, b in json.loads(os.environ['BOARDS'])])",
        env={"BOARDS": json.dumps(
            [[b.position_id, b.array[::-1].tolist()] for b in boards])},
    )
    for board, (pid, decoded) in zip(boards, got, strict=True):
        assert pid == board.position_id
        assert decoded == board.array[::-1].tolist()
