"""training/split.py: two networks joined into one that is the contact network in contact and
the race network in a race, switched by the encoding's race input; the CLI's refusals."""

from __future__ import annotations

import numpy as np
import pytest

from boardgammon.bots.encoding import encode
from boardgammon.bots.network import Network
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


def test_the_joined_network_is_each_network_where_it_belongs(tmp_path):
    contact, race = Network.random(hidden=12, seed=1), Network.random(hidden=7, seed=2)
    joined = split.join(contact, race)
    assert joined.hidden == 12 + 7 + 1
    mixed = sample_positions(contact, 60, 3)
    in_contact = np.array([Board(b).is_contact() for b in mixed])
    assert in_contact.any()
    races = _races(40, 4)
    assert not any(Board(b).is_contact() for b in races)
    assert np.all(encode(races)[:, split.RACE_INPUT] == 1.0)
    assert np.allclose(joined.evaluate(mixed[in_contact]), contact.evaluate(mixed[in_contact]),
                       atol=1e-6)
    assert np.allclose(joined.evaluate(races), race.evaluate(races), atol=1e-5)
    # The two networks differ there, so the switch is what makes the joined one agree.
    assert not np.allclose(contact.evaluate(races), race.evaluate(races), atol=1e-3)

    a, b, out = tmp_path / "c.npz", tmp_path / "r.npz", tmp_path / "j.npz"
    contact.save(a, games=np.int64(5))
    race.save(b)
    split.main(["--contact", str(a), "--race", str(b), "--out", str(out)])
    saved = Network.load(out)
    assert np.array_equal(saved.w1, joined.w1) and np.array_equal(saved.b2, contact.b2)
    with np.load(out) as z:
        assert int(z["games"]) == 5 and '"gate": 60.0' in str(z["split"])


def test_the_cli_refuses_a_missing_file_and_overwriting_a_part(tmp_path, capsys):
    a = tmp_path / "c.npz"
    Network.random(hidden=4, seed=1).save(a)
    with pytest.raises(SystemExit) as e:
        split.main(["--contact", str(a), "--race", str(tmp_path / "no.npz"), "--out",
                    str(tmp_path / "j.npz")])
    assert e.value.code == 2 and "no such weights file" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        split.main(["--contact", str(a), "--race", str(a), "--out", str(a)])
    assert e.value.code == 2 and "--out must differ" in capsys.readouterr().err
