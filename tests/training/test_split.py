"""The joined contact and race network (``Network.join``, its forward pass computing only the
half a position's race flag picks) and training/split.py: its gated form for the fits, the way
back, the CLI's refusals."""

from __future__ import annotations

import numpy as np
import pytest

from boardgammon.bots.encoding import encode
from boardgammon.bots.network import RACE_INPUT, Network
from boardgammon.engine import Board
from training import split
from training.make_benchmark import sample_positions


def _races(n: int, seed: int) -> np.ndarray:
    """``n`` pure races: each side's checkers spread over its own home board."""
    rng = np.random.default_rng(seed)
    boards = np.zeros((n, 2, 25), dtype=np.int8)
    for board in boards:
        for side in (0, 1):
            for _ in range(15):
                board[side, rng.integers(0, 6)] += 1
    return boards


@pytest.fixture(scope="module")
def nets():
    contact, race = Network.random(hidden=12, seed=1), Network.random(hidden=12, seed=2)
    mixed = sample_positions(contact, 60, 3)
    in_contact = mixed[[Board(b).is_contact() for b in mixed]]
    races = _races(40, 4)
    assert len(in_contact) > 20 and not any(Board(b).is_contact() for b in races)
    assert np.all(encode(races)[:, RACE_INPUT] == 1.0)
    assert not encode(in_contact)[:, RACE_INPUT].any()
    # The two networks differ there, so the switch is what makes a joined one agree.
    assert not np.allclose(contact.evaluate(races), race.evaluate(races), atol=1e-3)
    return contact, race, in_contact, races


def test_the_joined_network_computes_the_half_each_position_belongs_to(nets):
    contact, race, in_contact, races = nets
    joined = split.join(contact, race)
    assert joined.joined and joined.hidden == 24 and joined.b2.shape == (10,)
    assert np.array_equal(joined.evaluate(in_contact), contact.evaluate(in_contact))
    assert np.array_equal(joined.evaluate(races), race.evaluate(races))
    c, r = joined.halves()
    assert np.array_equal(c.w1, contact.w1) and np.array_equal(r.b2, race.b2)
    before = joined.evaluate(in_contact)
    c.w1 += 1.0  # a half trained in place leaves the joined network as it was
    r.b2 -= 1.0
    assert np.array_equal(joined.evaluate(in_contact), before)
    assert np.array_equal(joined.evaluate(races), race.evaluate(races))
    assert not contact.joined
    with pytest.raises(ValueError, match="not a joined network"):
        contact.halves()
    with pytest.raises(ValueError, match="two single networks of one size, got 12 and 7"):
        split.join(contact, Network.random(hidden=7, seed=3))
    with pytest.raises(ValueError, match="nor a joined one"):
        Network(np.zeros((2 * contact.w1.shape[0], 5)), np.zeros(5), np.zeros((10, 5)),
                np.zeros(10))  # an odd number of units cannot be two halves


def test_the_gated_form_is_the_joined_network_and_comes_back(nets):
    contact, race, in_contact, races = nets
    joined = split.join(contact, race)
    g = split.gated(joined)
    assert not g.joined and g.hidden == 25
    assert np.allclose(g.evaluate(in_contact), contact.evaluate(in_contact), atol=1e-6)
    assert np.allclose(g.evaluate(races), race.evaluate(races), atol=1e-5)
    back = split.native(g)
    assert back.joined
    for a, b in zip(back.weights, joined.weights, strict=True):
        assert np.allclose(a, b, atol=1e-5)  # the gates' ±60 in float32
    assert np.allclose(back.evaluate(races), race.evaluate(races), atol=1e-5)
    with pytest.raises(ValueError, match="2K \\+ 1 units, not 12"):
        split.native(contact)
    for unit_weight, bias in (((5, 0.01), 0.0), ((split.RACE_INPUT, -1.0), 0.0),
                              ((0, 0.0), 0.5)):
        moved = Network(g.w1.copy(), g.b1.copy(), g.w2, g.b2)
        moved.w1[unit_weight[0], -1] += unit_weight[1]
        moved.b1[-1] += bias
        with pytest.raises(ValueError, match="the switch unit moved by"):
            split.native(moved)  # dropping it would change the network's outputs
    with pytest.raises(ValueError, match="not a joined network"):
        split.gated(contact)


def test_a_joined_network_of_fewer_inputs_loads_widened_half_by_half(nets, tmp_path):
    contact, race, in_contact, races = nets
    joined = split.join(contact, race)
    n = contact.w1.shape[0]
    old = tmp_path / "old.npz"
    np.savez(old, w1=np.vstack([joined.w1[:n - 8], joined.w1[n:2 * n - 8]]), b1=joined.b1,
             w2=joined.w2, b2=joined.b2)  # an encoding of 8 inputs fewer, each half
    wide = Network.load(old, widen=True)
    assert wide.joined and Network.inputs_of(old) == n - 8
    c, r = wide.halves()
    assert np.array_equal(c.w1[:n - 8], contact.w1[:n - 8]) and not c.w1[n - 8:].any()
    assert np.array_equal(r.w1[:n - 8], race.w1[:n - 8]) and not r.w1[n - 8:].any()


def test_the_cli_writes_a_joined_network(nets, tmp_path):
    contact, race, in_contact, races = nets
    a, b, out = tmp_path / "c.npz", tmp_path / "r.npz", tmp_path / "j.npz"
    contact.save(a, games=np.int64(5))
    race.save(b)
    split.main(["--contact", str(a), "--race", str(b), "--out", str(out)])
    saved = Network.load(out)
    assert saved.joined and np.array_equal(saved.w1, split.join(contact, race).w1)
    assert np.array_equal(saved.evaluate(races), race.evaluate(races))
    with np.load(out) as z:
        assert int(z["games"]) == 5 and str(b) in str(z["split"])


def test_the_cli_refuses_a_missing_file_a_mismatch_and_overwriting_a_part(tmp_path, capsys):
    a, small, j = tmp_path / "c.npz", tmp_path / "s.npz", tmp_path / "j.npz"
    Network.random(hidden=4, seed=1).save(a)
    Network.random(hidden=3, seed=1).save(small)
    with pytest.raises(SystemExit) as e:
        split.main(["--contact", str(a), "--race", str(tmp_path / "no.npz"), "--out", str(j)])
    assert e.value.code == 2 and "no such weights file" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        split.main(["--contact", str(a), "--race", str(a), "--out", str(a)])
    assert e.value.code == 2 and "--out must differ" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        split.main(["--contact", str(a), "--race", str(small), "--out", str(j)])
    assert e.value.code == 2 and "not 4 and 3 hidden units" in capsys.readouterr().err
    split.main(["--contact", str(a), "--race", str(a), "--out", str(j)])
    with pytest.raises(SystemExit) as e:
        split.main(["--contact", str(j), "--race", str(a), "--out", str(tmp_path / "k.npz")])
    assert e.value.code == 2 and "not 8 joined and 4 hidden units" in capsys.readouterr().err
