"""The easy bot: only legal plays, its 2nd/3rd-best choice, reproducibility, sane rankings."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from boardgammon.bots import Context, create, levels
from boardgammon.bots.easy import EasyBot, choice_index, equities, win_probability
from boardgammon.commands.selfplay import run
from boardgammon.engine import Board, Play, Variant


def random_positions(seed: int, count: int, variant: str = "standard") -> list[Board]:
    """Positions from random games (random legal plays), player on roll's view."""
    rng = random.Random(seed)
    out: list[Board] = []
    board = Board.initial(variant)
    while len(out) < count:
        plays = board.legal_plays(rng.randint(1, 6), rng.randint(1, 6))
        after = rng.choice(plays).after
        board = Board.initial(variant) if after.is_game_over() else after.swapped()
        out.append(board)
    return out


def scattered_positions(seed: int, count: int) -> list[Board]:
    """Positions with checkers scattered at random (bar and borne-off checkers included)."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        a = np.zeros((2, 25), dtype=np.int8)
        for side in (0, 1):
            for _ in range(int(rng.integers(1, 16))):
                a[side, int(rng.integers(0, 25))] += 1
        clash = (a[0, :24] > 0) & (a[1, 23::-1] > 0)
        a[1, 23::-1][clash] = 0
        if a[1].sum() == 0:
            continue
        out.append(Board(a))
    return out


def test_easy_is_registered():
    assert "easy" in levels()
    assert isinstance(create("easy", seed=1), EasyBot)


@pytest.mark.slow
@pytest.mark.parametrize("variant", [v.value for v in Variant])
def test_only_legal_plays_over_thousands_of_positions(variant):
    bot = create("easy", seed=7)
    rng = random.Random(11)
    n = {"standard": 1000, "nackgammon": 300, "hypergammon": 300}[variant]
    boards = random_positions(3, n, variant)
    if variant == "standard":
        boards += scattered_positions(5, 300)
    context = Context(variant=variant)
    for i, board in enumerate(boards):
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        legal = board.legal_plays(*dice)
        chosen = bot.choose_play(board, dice, context)
        assert chosen in legal
        # The notation it prints reads back as the same legal play.
        parsed = Play.parse(str(chosen))
        assert legal[legal.index(parsed)].after == chosen.after
        if i % 10 == 0:
            ranking = bot.rank_plays(board, dice, context)
            assert sorted(map(str, (r.play for r in ranking))) == sorted(map(str, legal))
            eq = [r.equity for r in ranking]
            assert eq == sorted(eq, reverse=True)


def test_choice_is_second_or_third_best_of_its_own_ranking():
    bot = create("easy", seed=3)
    rng = random.Random(2)
    picks: Counter[tuple[int, int]] = Counter()
    for board in random_positions(8, 600):
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        ranking = bot.rank_plays(board, dice, Context())
        chosen = bot.choose_play(board, dice, Context())
        index = [r.play for r in ranking].index(chosen)
        n = min(len(ranking), 3)
        picks[(n, index)] += 1
        if n == 1:
            assert index == 0
        elif n == 2:
            assert index in (0, 1)
        else:
            assert index in (1, 2)
    # Both options of each case occur, each about half the time (within 3.3 standard
    # deviations of a fair coin).
    for n, options in ((2, (0, 1)), (3, (1, 2))):
        total = sum(picks[(n, i)] for i in options)
        assert total > 15
        for i in options:
            assert abs(picks[(n, i)] - total / 2) <= 3.3 * (total ** 0.5) / 2


def test_choice_index():
    rng = random.Random(0)
    assert {choice_index(1, rng) for _ in range(50)} == {0}
    assert {choice_index(2, rng) for _ in range(50)} == {0, 1}
    assert {choice_index(30, rng) for _ in range(50)} == {1, 2}
    with pytest.raises(ValueError, match="at least one play"):
        choice_index(0, rng)


def test_choices_are_reproducible_from_the_seed():
    boards = random_positions(21, 150)
    rng = random.Random(9)
    dice = [(rng.randint(1, 6), rng.randint(1, 6)) for _ in boards]

    def choices(seed):
        bot = create("easy", seed=seed)
        return [str(bot.choose_play(b, d, Context())) for b, d in zip(boards, dice, strict=True)]

    assert choices(42) == choices(42)
    assert choices(42) != choices(43)


@pytest.mark.parametrize("dice, best", [
    ((3, 1), "8/5 6/5"), ((4, 2), "8/4 6/4"), ((6, 1), "13/7 8/7"), ((5, 3), "8/3 6/3"),
    ((6, 5), "24/13"),
])
def test_best_opening_plays_are_the_standard_ones(dice, best):
    ranking = create("easy", seed=0).rank_plays(Board.initial(), dice, Context())
    assert ranking[0].play == Play.parse(best)


def test_hitting_a_blot_in_its_home_board_beats_leaving_one_open():
    # 6-4 with their blot on my 20-point... pick a clear case: their blot on my 5-point,
    # my checkers on 11 and 9 can point on it (11/5* 9/5): the best play makes the point.
    board = Board.from_points({11: 1, 9: 1, 6: 5, 8: 3, 13: 5}, {20: 1, 24: 2, 13: 5, 8: 3,
                                                                 6: 4})
    ranking = create("easy").rank_plays(board, (6, 4), Context())
    assert ranking[0].play == Play.parse("11/5* 9/5")


def test_win_probability_and_equity_of_finished_and_racing_positions():
    # Bearing off the last checker wins: single, gammon (loser has none off) or backgammon.
    single = Board.from_points({}, {1: 5})
    gammon = Board.from_points({}, {6: 15})
    backgammon = Board.from_points({}, {20: 1, 6: 14})
    arrays = np.stack([single.array, gammon.array, backgammon.array])
    assert equities(arrays).tolist() == [1.0, 2.0, 3.0]
    # A race: the mover far ahead is a big favourite, far behind a big underdog.
    ahead = Board.from_points({1: 2}, {6: 5, 5: 5})
    behind = Board.from_points({6: 5, 5: 5}, {1: 2})
    p = win_probability(np.stack([ahead.array, behind.array]))
    assert p[0] > 0.99 and p[1] < 0.01


class _RandomPlays(EasyBot):
    """Easy's cube handling with uniformly random plays: what the easy model's plays beat."""

    def choose_play(self, board, dice, context):
        return self._rng.choice(board.legal_plays(*dice))


@pytest.mark.slow
def test_easy_plays_beat_random_plays():
    summary = run(create("easy", 1), _RandomPlays(2), games=24, length=0, rng=random.Random(3))
    # Even playing its 2nd or 3rd choice the model wins most games and most points.
    assert summary.wins[0] >= 17
    assert summary.points[0] > 2 * summary.points[1]
