"""The versions of each rule in :mod:`boardgammon.engine.rules` agree: numpy over a batch, numpy
on one position, the numba kernel, the :class:`Board` method, and a reference written straight
from the rule's wording, over positions sampled so that every case is common."""

from __future__ import annotations

import numpy as np
import pytest

from boardgammon.engine import Board, Game, Outcome
from boardgammon.engine.constants import BAR_INDEX, MAX_CUBE, POINTS, ROW_LENGTH
from boardgammon.engine.rules import (
    DoubleRefusal,
    double_refusal,
    game_value_kernel,
    game_values,
    is_contact,
    is_contact_kernel,
    pip_counts,
)


def sampled_rows(rng: np.random.Generator, count: int, checkers: int = 15) -> np.ndarray:
    """``int8[count, 25]`` rows whose rearmost index is uniform over none (-1) to the bar, the
    other checkers spread behind it; some rows have every checker on the board."""
    rows = np.zeros((count, ROW_LENGTH), dtype=np.int8)
    for row in rows:
        rear = int(rng.integers(-1, ROW_LENGTH))
        if rear < 0:
            continue
        on_board = checkers if rng.random() < 0.3 else int(rng.integers(1, checkers + 1))
        row[rear] = 1
        np.add.at(row, rng.integers(0, rear + 1, size=on_board - 1), 1)
    return rows


@pytest.fixture(scope="module")
def positions() -> np.ndarray:
    rng = np.random.default_rng(20261202)
    return np.stack([sampled_rows(rng, 5000), sampled_rows(rng, 5000)], axis=1)


def contact_by_the_words(a: np.ndarray) -> bool:
    """Some checker of one side is behind one of the other: the mover's index i (point i + 1)
    faces the opponent's checker at index j, which stands on the mover's point 24 - j."""
    return any(i + 1 > POINTS - j for i in np.nonzero(a[0])[0] for j in np.nonzero(a[1])[0])


def test_contact_versions_agree(positions):
    batch = is_contact(positions)
    assert batch.shape == (len(positions),)
    assert 0.2 < batch.mean() < 0.8  # both cases well sampled
    for k, a in enumerate(positions[:2000]):
        expected = contact_by_the_words(a)
        assert bool(batch[k]) == expected
        assert bool(is_contact(a)) == expected
        assert is_contact_kernel(a) == expected
        if not ((a[0, :POINTS] > 0) & (a[1, POINTS - 1::-1] > 0)).any():  # a Board can hold it
            assert Board(a).is_contact() == expected
    assert [is_contact_kernel(a) for a in positions] == batch.tolist()


def value_by_the_words(loser: np.ndarray, checkers: int) -> int:
    if loser.sum() < checkers:
        return 1  # the loser bore off a checker: a single game
    in_winners_home = loser[POINTS - 6:POINTS].any()
    return 3 if in_winners_home or loser[BAR_INDEX] else 2


@pytest.mark.parametrize("checkers", [15, 3])
def test_game_value_versions_agree(checkers):
    rows = sampled_rows(np.random.default_rng(checkers), 5000, checkers)
    batch = game_values(rows, checkers)
    assert set(batch.tolist()) == {1, 2, 3}
    for k, row in enumerate(rows):
        expected = value_by_the_words(row, checkers)
        assert batch[k] == expected
        assert int(game_values(row, checkers)) == expected
        assert game_value_kernel(row, checkers) == expected


@pytest.mark.parametrize(("loser", "outcome"), [
    ({6: 14}, Outcome.SINGLE), ({6: 14, 18: 1}, Outcome.GAMMON),
    ({6: 14, 19: 1}, Outcome.BACKGAMMON), ({6: 14, 25: 1}, Outcome.BACKGAMMON),
])
def test_a_game_ends_with_the_value_of_the_rule(loser, outcome):
    game = Game.from_position(Board.from_points({1: 1}, loser), 0)
    game.roll(0, 2, 1)
    game.play(0, "1/off")
    assert game.result is not None and game.result.outcome is outcome


CUBE_STATES = [(1, None)] + [(1 << k, seat) for k in range(1, MAX_CUBE.bit_length())
                              for seat in (0, 1)]
"""Every cube a game can have: centred at 1, or owned by a seat at 2 … 64."""


@pytest.mark.parametrize("crawford", [False, True])
@pytest.mark.parametrize("cube_enabled", [False, True])
@pytest.mark.parametrize(("cube", "owner"), CUBE_STATES)
def test_the_game_doubles_exactly_when_the_rule_allows(crawford, cube_enabled, cube, owner):
    game = Game.from_position(Board.initial(), 0, cube=cube, cube_owner=owner,
                              cube_enabled=cube_enabled, crawford=crawford)
    why = double_refusal(cube_enabled=cube_enabled and not crawford, crawford=crawford,
                         cube=cube, owned_by_opponent=owner == 1)
    assert game.can_double(0) == (why is None)
    if crawford:
        assert why is DoubleRefusal.CRAWFORD
    elif cube == MAX_CUBE and cube_enabled and owner == 0:
        assert why is DoubleRefusal.AT_MAX


def test_pip_counts_are_the_pips_to_bear_off(positions):
    batch = pip_counts(positions)
    assert batch.shape == (len(positions), 2)
    for k, a in enumerate(positions[:500]):
        by_checker = [sum((i + 1) * int(a[side, i]) for i in range(ROW_LENGTH))
                      for side in (0, 1)]
        assert batch[k].tolist() == by_checker == pip_counts(a).tolist()
