"""The match record's entries: one type per kind, JSON as records have always had it, and
entries that do not fit their kind refused as invalid records."""

from __future__ import annotations

import pytest

from boardgammon.engine.errors import InvalidRecord
from boardgammon.engine.match import Match
from boardgammon.engine.record import Doubled, OpeningRolled, Played, Resigned, action_from_dict


def test_json_keeps_its_keys_and_order():
    m = Match(3)
    m.roll_opening(3, 1)
    m.play(0, "8/5 6/5")
    m.double(1)
    m.take(0)
    m.roll(1, 6, 5)
    m.play(1, "24/13")
    m.resign(0, 2)
    assert [a.to_dict() for a in m.record] == [
        {"kind": "opening", "game": 0, "dice": [3, 1]},
        {"kind": "play", "game": 0, "seat": 0, "dice": [3, 1], "play": "8/5 6/5"},
        {"kind": "double", "game": 0, "seat": 1, "value": 2},
        {"kind": "take", "game": 0, "seat": 0},
        {"kind": "roll", "game": 0, "seat": 1, "dice": [6, 5]},
        {"kind": "play", "game": 0, "seat": 1, "dice": [6, 5], "play": "24/13"},
        {"kind": "resign", "game": 0, "seat": 0, "value": 2},
    ]
    assert [action_from_dict(a.to_dict()) for a in m.record] == list(m.record)
    assert isinstance(m.record[0], OpeningRolled) and m.record[0].seat is None
    assert isinstance(m.record[1], Played) and isinstance(m.record[2], Doubled)
    assert m.record[-1] == Resigned(game=0, seat=0, points=2)


@pytest.mark.parametrize(("entry", "message"), [
    ({"kind": "take", "game": 0, "seat": 0, "value": 2}, "a take action has no value"),
    ({"kind": "opening", "game": 0, "seat": 0, "dice": [3, 1]}, "has no seat"),
    ({"kind": "roll", "game": 0, "seat": 0}, "a roll action needs two dice"),
    ({"kind": "play", "game": 0, "seat": 0, "dice": [3, 1]}, "a play action needs its play"),
    ({"kind": "double", "game": 0, "seat": 0}, "a double action needs its value"),
    ({"kind": "flag", "game": 0, "seat": 0}, "a flag action needs its time"),
    ({"kind": "drop", "seat": 0}, "needs its game"),
    ({"kind": "drop", "game": 0, "seat": 0, "colour": "red"}, "has no colour"),
    ({"kind": "castle", "game": 0}, "not a record action"),
])
def test_entries_that_do_not_fit_their_kind_are_refused(entry, message):
    with pytest.raises(InvalidRecord, match=message):
        action_from_dict(entry)
