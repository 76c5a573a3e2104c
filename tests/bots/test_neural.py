"""The neural evaluator: encoding, forward pass, TD update, game results."""

from __future__ import annotations

import random

import numpy as np
import pytest

from boardgammon.bots.encoding import (
    N_INPUTS,
    double_hits,
    encode,
    escapes_at,
    pip_loss,
    shots,
)
from boardgammon.bots.network import RACE_INPUT, Network, cubeless_equity, equity, flip_into
from boardgammon.bots.neural import NetworkEvaluator
from boardgammon.bots.training import _result, _update, train_games
from boardgammon.engine import Board


def random_positions(n: int, seed: int) -> list[Board]:
    """Positions before the roll from games of random legal plays."""
    rng = random.Random(seed)
    out: list[Board] = []
    while len(out) < n:
        board = Board.initial()
        while not board.is_game_over() and len(out) < n:
            out.append(board)
            plays = board.legal_plays(rng.randint(1, 6), rng.randint(1, 6))
            board = rng.choice(plays).after.swapped()
    return out


def test_encoding_of_the_starting_position():
    x = encode(Board.initial().array)
    assert x.shape == (N_INPUTS,) and x.dtype == np.float32
    # Side 0, 6-point (index 5): five checkers -> 1, 1, 1, (5 - 3) / 2.
    assert x[4 * 5:4 * 5 + 4].tolist() == [1.0, 1.0, 1.0, 1.0]
    # 24-point (index 23): two checkers -> 1, 1, 0, 0; 8-point: three -> 1, 1, 1, 0.
    assert x[4 * 23:4 * 23 + 4].tolist() == [1.0, 1.0, 0.0, 0.0]
    assert x[4 * 7:4 * 7 + 4].tolist() == [1.0, 1.0, 1.0, 0.0]
    assert x[96] == 0.0 and x[97] == 0.0  # bar, off
    assert x[196] == pytest.approx(1.67) and x[197] == pytest.approx(1.67)
    assert x[198] == 0.0  # contact
    assert x[199] == 0.0  # no blots, no shots
    assert x[200] == pytest.approx(1 / 6) and x[201] == pytest.approx(1 / 6)
    # Back checkers on the 24-point face the opponent's 6, 8 and mid points 5, 7 and 12 pips
    # ahead: 36 rolls less those summing to 5, 7 or 12 (4 + 6 + 1 with 6-6), less 5-5, 4-4
    # (its third step lands 12 pips ahead) and 3-3 (its fourth does) = 22.
    assert x[202] == x[203] == pytest.approx(22 / 36)
    assert x[206] == x[207] == pytest.approx(24 / 25)
    assert x[208] == 0.0
    # Each side's home board has one closed point (its 6-point): a bar checker dances 1/36.
    assert x[209] == x[210] == pytest.approx(1 / 36)
    # Every checker is behind the opponent's 24-point checkers: 167 - 15 pips to reach it.
    assert x[211] == x[212] == pytest.approx(1.0) and x[213] == x[214] == 0.0
    # One anchor each (the 24-point, own index 23): no back game, forward anchor 1/7.
    assert x[215] == x[216] == 0.0 and x[217] == x[218] == 1.0
    assert x[219] == x[220] == pytest.approx(1 / 7)
    assert x[221] == pytest.approx((22 / 36) ** 2) and x[223] == pytest.approx(x[204] ** 2)
    assert x[225] == x[226] == 0.0  # no blots
    assert x[227] == x[228] == 0.0  # no blots, no double hits
    assert x[229] == x[230] == 0.0  # 167 pips each: level
    # Every checker is still behind the other side's 24-point checkers, held by its points.
    board = Board.initial().array
    held = sum(n * (1 - escapes_at(board, 0, i) / 36) for i, n in enumerate(board[0]) if n)
    assert x[231] == x[232] == pytest.approx(held / 15)
    assert x[233] == x[234] == 0.0  # no shots


def test_encoding_swaps_sides_with_the_perspective():
    for board in random_positions(60, seed=3):
        x, y = encode(board.array), encode(board.swapped().array)
        assert np.array_equal(x[:98], y[98:196]) and np.array_equal(x[98:196], y[:98])
        assert x[196] == y[197] and x[197] == y[196]
        assert x[198] == y[198] == (0.0 if board.is_contact() else 1.0)
        assert x[200] == y[201] and x[201] == y[200]
        assert x[202] == y[203] and x[203] == y[202]
        assert x[204] == y[205] and x[205] == y[204]
        assert x[206] == y[207] and x[207] == y[206]
        assert x[208] == y[199] and y[208] == x[199]
        for i in range(209, N_INPUTS, 2):
            assert x[i] == y[i + 1] and x[i + 1] == y[i]
        assert x[233] == pytest.approx(x[208] * x[209]) and x[234] == pytest.approx(x[199] * x[210])


def test_borne_off_and_bar_units():
    board = Board.from_points({1: 2, 25: 1}, {6: 3})
    x = encode(board.array)
    assert x[96] == pytest.approx(0.5) and x[97] == pytest.approx(12 / 15)
    assert x[98 + 97] == pytest.approx(12 / 15)


def _shots_by_plays(board: Board) -> float:
    n = 0
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            if any(m.hit for p in board.legal_plays(d1, d2) for m in p.moves):
                n += 1
    return n / 36


def test_shots_of_a_blot_three_pips_away():
    # The opponent's blot on our 5-point, our checker on the 8-point: any 3 (11), 1-2 (2),
    # 1-1 (1) hit.
    board = Board.from_points({8: 2, 3: 2}, {20: 1, 1: 14})
    assert shots(board.array) == pytest.approx(14 / 36) == _shots_by_plays(board)


def test_shots_agree_with_legal_plays_on_random_positions():
    boards = [b for b in random_positions(300, seed=11) if b.array[0, 24] == 0]
    diffs = [abs(shots(b.array) - _shots_by_plays(b)) for b in boards[:120]]
    # The feature ignores the rare plays where a hit leaves the other die unplayable.
    assert np.mean(np.array(diffs) == 0) >= 0.95
    assert max(diffs) <= 3 / 36


def _pip_loss_by_plays(board: Board) -> float:
    """Mean over the 36 rolls of the largest point (mover's numbering) a legal play hits on,
    which is the pips the hit checker loses, / 24."""
    n = 0
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            n += max((m.dest for p in board.legal_plays(d1, d2) for m in p.moves if m.hit),
                     default=0)
    return n / 36 / 24


def test_pip_loss_of_a_blot_three_pips_away():
    # The opponent's blot on our 5-point goes back 5 pips when hit by the 14 rolls that hit it.
    board = Board.from_points({8: 2, 3: 2}, {20: 1, 1: 14})
    assert pip_loss(board.array) == pytest.approx(14 * 5 / 36 / 24) == _pip_loss_by_plays(board)
    # A blot on our 1-point (the opponent's 24-point) loses 1 pip, however many rolls hit it.
    back = Board.from_points({8: 2, 3: 2}, {24: 1, 1: 14})
    assert pip_loss(back.array) == pytest.approx(_pip_loss_by_plays(back))
    assert pip_loss(back.array) == pytest.approx(shots(back.array) * 1 / 24)


def test_pip_loss_agrees_with_legal_plays_on_random_positions():
    boards = [b for b in random_positions(300, seed=13) if b.array[0, 24] == 0]
    diffs = [abs(pip_loss(b.array) - _pip_loss_by_plays(b)) for b in boards[:120]]
    # As with shots: a hit that leaves the other die unplayable is, rarely, not a legal play.
    assert np.mean(np.array(diffs) < 1e-9) >= 0.95
    assert max(diffs) <= 3 / 36
    assert sum(pip_loss(b.array) > 0 for b in boards[:120]) >= 30  # hits are common


def _double_hits_by_plays(board: Board) -> float:
    """Fraction of the 36 rolls with a legal play that hits two or more blots."""
    return sum(
        any(sum(m.hit for m in p.moves) >= 2 for p in board.legal_plays(d1, d2))
        for d1 in range(1, 7) for d2 in range(1, 7)) / 36


def test_double_hits_of_two_blots():
    # Blots on our 4- and 5-point (the opponent's 21 and 20), our checkers on the 8 and 9:
    # 4-3 and 5-4, among others, hit both.
    board = Board.from_points({9: 1, 8: 2, 6: 5}, {21: 1, 20: 1, 1: 13})
    assert double_hits(board.array) == pytest.approx(_double_hits_by_plays(board))
    assert double_hits(board.array) > 0
    # One blot: no double hit, however many shots.
    single = Board.from_points({9: 1, 8: 2, 6: 5}, {21: 1, 1: 14})
    assert double_hits(single.array) == 0.0 < shots(single.array)


def test_double_hits_agree_with_legal_plays_on_random_positions():
    boards = random_positions(400, seed=21)
    diffs = [abs(double_hits(b.array) - _double_hits_by_plays(b)) for b in boards[:250]]
    # Checked the same way as shots: here every one agreed (a hit that leaves a die
    # unplayable elsewhere is not a legal play, and could part them).
    assert np.mean(np.array(diffs) < 1e-9) >= 0.95
    assert sum(_double_hits_by_plays(b) > 0 for b in boards[:250]) >= 100  # often met
    assert max(diffs) <= 2 / 36


def test_blocked_checkers_and_race_lead():
    # Our last checker behind the opponent's full prime on its 2- to 7-points: none of its
    # rolls escapes, and it is our only checker still behind the opponent's rearmost.
    prime = {p: 2 for p in range(2, 8)}
    board = Board.from_points({24: 1, 6: 8, 5: 6}, {**prime, 12: 3})
    x = encode(board.array)
    assert escapes_at(board.array, 0, 23) == 0
    assert x[231] == pytest.approx(1 / 15)
    # A race: 60 pips against 66, the lead a tenth of ours; in a race no blocked checkers.
    race = Board.from_points({6: 10}, {6: 11})
    y = encode(race.array)
    assert y[198] == 1.0 and y[231] == y[232] == y[227] == 0.0
    assert y[229] == pytest.approx(6 / 60) and y[230] == pytest.approx(-6 / 66)


def test_forward_pass_matches_a_numpy_reference():
    net = Network.random(hidden=16, seed=4)
    boards = np.stack([b.array for b in random_positions(40, seed=5)])
    x = encode(boards).astype(np.float64)

    def sigmoid(z):
        return 1.0 / (1.0 + np.exp(-z))

    ref = sigmoid(sigmoid(x @ net.w1 + net.b1) @ net.w2.T + net.b2)
    assert np.allclose(net.evaluate(boards), ref, atol=1e-5)


def test_flip_and_equity():
    o = np.array([0.6, 0.2, 0.05, 0.1, 0.01], dtype=np.float32)
    f = np.empty(5, dtype=np.float32)
    flip_into(o, f)
    assert f.tolist() == pytest.approx([0.4, 0.1, 0.01, 0.2, 0.05])
    assert equity(o) == pytest.approx(2 * 0.6 - 1 + 0.2 - 0.1 + 0.05 - 0.01)
    assert equity(f) == pytest.approx(-equity(o))
    assert cubeless_equity(o) == pytest.approx(equity(o))


def test_game_results_score_gammons_and_backgammons():
    o = np.empty(5, dtype=np.float32)
    # Final positions from the loser's view.
    _result(Board.from_points({1: 3}, {}).array, 15, o)  # 12 of the loser's checkers off
    assert o.tolist() == [1, 0, 0, 0, 0]
    _result(Board.from_points({1: 15}, {}).array, 15, o)
    assert o.tolist() == [1, 1, 0, 0, 0]
    _result(Board.from_points({1: 14, 20: 1}, {}).array, 15, o)  # one in the winner's home
    assert o.tolist() == [1, 1, 1, 0, 0]
    _result(Board.from_points({1: 14, 25: 1}, {}).array, 15, o)  # one on the bar
    assert o.tolist() == [1, 1, 1, 0, 0]


def test_td_update_moves_outputs_towards_the_target():
    net = Network.random(hidden=16, seed=6)
    x = encode(Board.initial().array)
    target = np.array([0.9, 0.3, 0.02, 0.05, 0.0], dtype=np.float32)
    h = np.empty(16, dtype=np.float32)
    dh = np.empty(16, dtype=np.float32)
    o = np.empty(5, dtype=np.float32)
    errors = [_update(x, target, *net.weights, h, o, dh, 0.5) for _ in range(200)]
    assert errors[-1] < 0.01 * errors[0]
    assert all(b <= a + 1e-9 for a, b in zip(errors, errors[1:], strict=False))


def test_training_is_reproducible_and_resumable():
    start = Board.initial().array.copy()
    a, b = Network.random(hidden=8, seed=1), Network.random(hidden=8, seed=1)
    train_games(*a.weights, start, 15, 7, 0, 6, 0.7, 0.1, 1e5, 0.01)
    train_games(*b.weights, start, 15, 7, 0, 2, 0.7, 0.1, 1e5, 0.01)
    train_games(*b.weights, start, 15, 7, 2, 4, 0.7, 0.1, 1e5, 0.01)
    for u, v in zip(a.weights, b.weights, strict=True):
        assert np.array_equal(u, v)
    assert not np.array_equal(a.w1, Network.random(hidden=8, seed=1).w1)


def test_a_joined_network_computes_its_contact_half_in_contact_and_its_race_half_in_races():
    contact, race = Network.random(hidden=16, seed=4), Network.random(hidden=16, seed=6)
    joined = Network.join(contact, race)
    rng = np.random.default_rng(7)
    races = np.zeros((30, 2, 25), dtype=np.int8)
    for board in races:  # each side's checkers in its own home board
        for side in (0, 1):
            np.add.at(board[side], rng.integers(0, 6, 15), 1)
    boards = np.concatenate([np.stack([b.array for b in random_positions(40, seed=5)]), races])
    x = encode(boards).astype(np.float64)
    is_race = x[:, RACE_INPUT] == 1.0
    assert is_race.sum() >= 30 and (~is_race).sum() >= 20

    def sigmoid(z):
        return 1.0 / (1.0 + np.exp(-z))

    def ref(net):
        return sigmoid(sigmoid(x @ net.w1 + net.b1) @ net.w2.T + net.b2)

    want = np.where(is_race[:, None], ref(race), ref(contact))
    assert np.allclose(joined.evaluate(boards), want, atol=1e-5)
    assert not np.allclose(ref(contact)[is_race], ref(race)[is_race], atol=1e-3)
    # Every depth of the levels goes through the same forward pass: a network joined with
    # itself (the shipped one's contact half) is that network at 0 and 1 ply, to the bit.
    shipped = Network.load()
    single = shipped.halves()[0] if shipped.joined else shipped
    both = NetworkEvaluator(Network.join(single, single))
    one = NetworkEvaluator(single)
    for plies, some in ((0, boards), (1, boards[::10])):
        assert np.array_equal(both.evaluate(some, plies=plies), one.evaluate(some, plies=plies))
    # Self-play's update would write a joined network's wrong rows: it is refused.
    with pytest.raises(ValueError, match="self-play trains a single network"):
        train_games(*joined.weights, Board.initial().array.copy(), 15, 1, 0, 1, 0.7, 0.1,
                    1e5, 0.01)


def test_shipped_weights_load_from_package_data():
    net = Network.load()
    assert net.w1.shape[0] == N_INPUTS * (2 if net.joined else 1) and net.hidden >= 40
    o = net.evaluate(Board.initial().array)
    # The side on roll at the start (before its roll, as after an opening move) is close to
    # even; gnubg 0-ply gives 0.52.
    assert 0.4 < o[0] < 0.65
    assert (o >= 0).all() and (o <= 1).all()


def test_a_deep_evaluation_lets_other_threads_run():
    """A 2-ply evaluation releases the GIL (the server's event loop runs while the computer
    thinks in a worker): another thread keeps waking up every millisecond meanwhile. Holding
    the GIL, each call of about 70 ms here allowed one wake-up per call."""
    import threading
    import time

    from boardgammon.bots.neural import NetworkEvaluator

    evaluator = NetworkEvaluator()
    boards = np.stack([p.after.swapped().array for p in Board.initial().legal_plays(3, 1)][:5])
    evaluator.evaluate(boards[:1], plies=2)  # compiled before the measurement
    finished = threading.Event()

    def think() -> None:
        for _ in range(3):
            evaluator.evaluate(boards, plies=2)
        finished.set()

    worker = threading.Thread(target=think)
    worker.start()
    wakeups = 0
    while not finished.is_set():
        time.sleep(0.001)
        wakeups += 1
    worker.join()
    assert wakeups >= 20


def _escapes_by_walking(board: Board, side: int, point: int) -> int:
    """Escapes counted by walking each roll's steps over the opponent's points (module
    docstring's definition), independently of the lookup table."""
    a = board.array if side == 0 else board.swapped().array

    def is_open(dist: int) -> bool:
        dest = point - dist
        return dist > 12 or dest < 0 or a[1, 23 - dest] < 2

    n = 0
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            if d1 == d2:
                n += all(is_open(k * d1) for k in range(1, 5))
            else:
                n += is_open(d1 + d2) and (is_open(d1) or is_open(d2))
    return n


def test_escapes_agree_with_walking_the_rolls():
    for board in random_positions(150, seed=5):
        for side in (0, 1):
            for point in range(25):
                assert escapes_at(board.array, side, point) == _escapes_by_walking(board, side,
                                                                               point)


def test_blocking_features_of_a_full_prime():
    # Our prime from the 4- to the 9-point holds the opponent's checker on its 22-point (our
    # 3-point) right behind it: no escape, and our containment is complete.
    board = Board.from_points({4: 2, 5: 2, 6: 2, 7: 2, 8: 2, 9: 2, 24: 3},
                              {22: 1, 6: 4, 8: 4, 13: 4, 2: 2})
    x = encode(board.array)
    assert x[203] == 0.0  # the opponent's rearmost checker (its 22-point) cannot get out
    assert x[204] == 1.0  # we contain the opponent completely
    assert x[207] == pytest.approx(22 / 25)
    assert x[202] == pytest.approx(_escapes_by_walking(board, 0, 23) / 36)
    race = Board.from_points({1: 5, 2: 5, 3: 5}, {1: 5, 2: 5, 3: 5})
    y = encode(race.array)
    assert y[198] == 1.0 and y[202] == y[203] == 1.0 and y[204] == y[205] == 0.0
