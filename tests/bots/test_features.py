"""The easy bot's features against hand-counted values and the classic shot table."""

from __future__ import annotations

import numpy as np
import pytest

from boardgammon.bots.features import (
    INDEX,
    NAMES,
    features,
    hit_rolls,
    pip_counts,
    rearmost_escapes,
)
from boardgammon.engine import Board

# Rolls of 36 that hit a lone blot at each distance from one checker with nothing in between:
# the classic table of direct (1-6) and indirect (7-24) shots.
SHOTS_BY_DISTANCE = {1: 11, 2: 12, 3: 14, 4: 15, 5: 15, 6: 17, 7: 6, 8: 6, 9: 5, 10: 3,
                     11: 2, 12: 3, 13: 0, 14: 0, 15: 1, 16: 1, 17: 0, 18: 1, 19: 0, 20: 1,
                     21: 0, 22: 0, 23: 0}


@pytest.mark.parametrize("distance", sorted(SHOTS_BY_DISTANCE))
def test_shots_on_a_lone_blot_match_the_classic_table(distance):
    # Their one checker on their 24-point (my 1-point); my blot `distance` pips in front of it.
    board = Board.from_points({distance + 1: 1}, {24: 1})
    shots, loss, per_point = hit_rolls(board.array)
    assert shots[0] == SHOTS_BY_DISTANCE[distance]
    assert per_point[0, distance] == SHOTS_BY_DISTANCE[distance]
    # A blot on my point p that is hit loses 25 - p pips.
    assert loss[0] == pytest.approx(SHOTS_BY_DISTANCE[distance] * (24 - distance) / 36)


def test_made_points_block_indirect_shots():
    # Blot 7 away: 6-1, 5-2, 4-3 (6 rolls) hit through an intermediate point.
    free = Board.from_points({8: 1}, {24: 1})
    assert hit_rolls(free.array)[0][0] == 6
    # Holding my 7- and 2-points closes both routes of 6-1.
    blocked = Board.from_points({8: 1, 7: 2, 2: 2}, {24: 1})
    assert hit_rolls(blocked.array)[0][0] == 4
    # A six-prime from my 2- to 7-point closes every route.
    primed = Board.from_points({8: 1, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 7: 2}, {24: 1})
    assert hit_rolls(primed.array)[0][0] == 0


def test_double_shots_need_every_step_open():
    # Blot 12 away is hit by 6-6, 4-4 and 3-3; holding my 7-point (6 away) stops 6-6 and
    # 3-3 (which lands on it after two steps), not 4-4 (5, 9, 13).
    assert hit_rolls(Board.from_points({13: 1}, {24: 1}).array)[0][0] == 3
    assert hit_rolls(Board.from_points({13: 1, 7: 2}, {24: 1}).array)[0][0] == 1


def test_two_blots_count_each_roll_once():
    # Blots 1 and 2 away: any roll with a 1 or a 2, or 1-1: 20 of 36.
    board = Board.from_points({2: 1, 3: 1}, {24: 1})
    shots, _, per_point = hit_rolls(board.array)
    assert shots[0] == 20
    assert per_point[0, 1] == 11 and per_point[0, 2] == 12


def test_checker_on_the_bar_must_hit_from_the_bar():
    # Their checker on the bar enters on my 1-6; my blot on my 3 is hit by any 3 (direct)
    # and 1-2 / 1-1 (entering on my 1 or 2 and moving on): 14 rolls. Their other checker on
    # their 24 could hit too, but not while one is on the bar.
    board = Board.from_points({3: 1, 9: 2}, {25: 1, 13: 1})
    assert hit_rolls(board.array)[0][0] == 14


def test_escapes():
    # A full prime on my 18-23 in front of my checker on the 24-point: no escape.
    primed = Board.from_points({24: 1, 6: 14}, {2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 7: 2, 13: 3})
    assert rearmost_escapes(primed.array)[0] == 0
    # Nothing made in front: every roll escapes.
    assert rearmost_escapes(Board.from_points({24: 1}, {24: 2}).array)[0] == 36
    # Starting position: their 6- and 8-points (my 19 and 17) block within 8 points; escaping
    # means landing on my 16 or lower through open points: 6-2, 5-3, 6-3, 5-4, 6-4, 6-5 (12),
    # 4-4, 3-3, 2-2 (3); 5-5 and 6-6 land on their made points.
    assert rearmost_escapes(Board.initial().array)[0] == 15


def test_features_of_the_starting_position():
    f = dict(zip(NAMES, features(Board.initial().array)[0], strict=True))
    assert f["pips_mine"] == f["pips_theirs"] == 167
    assert f["racing_lead"] == 0
    assert f["shots"] == 0 and f["hit_loss"] == 0
    assert f["home_points"] == 1 and f["five_point"] == 0 and f["bar_point"] == 0
    assert f["outfield_points"] == 1              # the 8-point
    assert f["anchor"] == 1 and f["advanced_anchor"] == 0
    assert f["prime"] == 1
    assert f["back_checkers"] == 2
    assert f["stacking"] == 4                     # 5 on the 13 and 5 on the 6
    assert f["trapped"] == pytest.approx(1 - 15 / 36)
    assert f["borne_off"] == 0


def test_prime_counts_only_in_front_of_their_rearmost_checker():
    six_prime = {4: 2, 5: 2, 6: 2, 7: 2, 8: 2, 9: 2}
    trapped = Board.from_points(six_prime, {24: 1})           # their checker on my 1-point
    escaped = Board.from_points(six_prime, {10: 1})           # their checker on my 15-point
    assert features(trapped.array)[0, INDEX["prime"]] == 6
    assert features(escaped.array)[0, INDEX["prime"]] == 0


def test_batch_matches_single_and_pip_counts_match_the_board():
    rng = np.random.default_rng(4)
    board = Board.initial()
    boards = []
    for _ in range(40):
        plays = board.legal_plays(int(rng.integers(1, 7)), int(rng.integers(1, 7)))
        board = plays[int(rng.integers(len(plays)))].after.swapped()
        if board.is_game_over():
            break
        boards.append(board)
    arrays = np.stack([b.array for b in boards])
    batch = features(arrays)
    for i, b in enumerate(boards):
        np.testing.assert_array_equal(batch[i], features(b.array)[0])
        assert tuple(pip_counts(b.array)[0]) == b.pip_counts()


def test_bad_shape_is_refused():
    with pytest.raises(ValueError, match="int8\\[N, 2, 25\\]"):
        features(np.zeros((2, 24), dtype=np.int8))
