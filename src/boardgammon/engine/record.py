"""The entries of a match's record (:attr:`boardgammon.engine.match.Match.record`): one frozen
type per kind of action, in the past tense (what happened, not a request), and their JSON
form (:meth:`to_dict` / :func:`action_from_dict`), which stored records keep.

Every entry has ``kind`` (its JSON name, one of :data:`ACTION_KINDS`), ``game`` (the game's
index in the match, 0-based), ``seat`` (the acting seat; for a flag the seat whose reserve ran
out, for an abort the seat that never made its first action; ``None`` for the opening roll,
which belongs to both) and ``t`` (seconds on the caller's
time scale when the match has a clock, else ``None``). A roll or a flag that came after a wait
for the device of the seat not on roll (v2 dice, :meth:`~boardgammon.engine.match.Match.
await_device`) has ``asked``: when the roll was asked for, on the same scale; the wait from
``asked`` to ``t`` was charged to that other seat, or only from ``charged_from`` where the
entry has one (a later time: the server restarted during the wait, and neither seat's reserve
ran until then).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any, ClassVar, Literal

from .errors import InvalidRecord

ACTION_KINDS = ("opening", "roll", "play", "double", "beaver", "take", "drop", "resign",
                "accept", "decline", "flag", "forfeit", "abort")

_JSON_FIELDS = ("seat", "dice", "play", "value", "t", "asked", "charged_from")
"""The JSON fields after ``kind`` and ``game``, in the order records have always had them."""

_TIMES = ("t", "asked", "charged_from")
"""The fields that are times: finite numbers of seconds."""


class _Entry:
    """What every record entry can do (the fields are each kind's own)."""

    kind: ClassVar[str]
    game: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict without the fields that are ``None`` (a resignation's ``points``
        is stored as ``value``)."""
        out: dict[str, Any] = {"kind": self.kind, "game": self.game}
        for name in _JSON_FIELDS:
            v = getattr(self, "points" if name == "value" and self.kind == "resign" else name,
                        None)
            if v is not None:
                out[name] = list(v) if isinstance(v, tuple) else v
        return out


@dataclass(frozen=True, kw_only=True)
class OpeningRolled(_Entry):
    """The opening roll: ``dice`` = (seat 0's die, seat 1's die), ties included."""

    kind: ClassVar[Literal["opening"]] = "opening"
    seat: ClassVar[None] = None
    game: int
    dice: tuple[int, int]
    t: float | None = None
    asked: float | None = None
    charged_from: float | None = None


@dataclass(frozen=True, kw_only=True)
class Rolled(_Entry):
    """``seat`` rolled ``dice``."""

    kind: ClassVar[Literal["roll"]] = "roll"
    game: int
    seat: int
    dice: tuple[int, int]
    t: float | None = None
    asked: float | None = None
    charged_from: float | None = None


@dataclass(frozen=True, kw_only=True)
class Played(_Entry):
    """``seat`` played ``dice`` as ``play`` (standard notation of the legal play, ``""`` for a
    dance)."""

    kind: ClassVar[Literal["play"]] = "play"
    game: int
    seat: int
    dice: tuple[int, int]
    play: str
    t: float | None = None


@dataclass(frozen=True, kw_only=True)
class Doubled(_Entry):
    """``seat`` offered to double; ``value``: the cube value offered."""

    kind: ClassVar[Literal["double"]] = "double"
    game: int
    seat: int
    value: int
    t: float | None = None


@dataclass(frozen=True, kw_only=True)
class Beavered(_Entry):
    """``seat``, just doubled, took and at once redoubled keeping the cube (a beaver; a
    raccoon when the doubler does it back); ``value``: the cube value now offered."""

    kind: ClassVar[Literal["beaver"]] = "beaver"
    game: int
    seat: int
    value: int
    t: float | None = None


@dataclass(frozen=True, kw_only=True)
class Took(_Entry):
    """``seat`` took the double."""

    kind: ClassVar[Literal["take"]] = "take"
    game: int
    seat: int
    t: float | None = None


@dataclass(frozen=True, kw_only=True)
class Dropped(_Entry):
    """``seat`` dropped the double."""

    kind: ClassVar[Literal["drop"]] = "drop"
    game: int
    seat: int
    t: float | None = None


@dataclass(frozen=True, kw_only=True)
class Resigned(_Entry):
    """``seat`` offered to resign ``points`` (1 single, 2 gammon, 3 backgammon) × cube."""

    kind: ClassVar[Literal["resign"]] = "resign"
    game: int
    seat: int
    points: int
    t: float | None = None


@dataclass(frozen=True, kw_only=True)
class Accepted(_Entry):
    """``seat`` accepted the resignation offered."""

    kind: ClassVar[Literal["accept"]] = "accept"
    game: int
    seat: int
    t: float | None = None


@dataclass(frozen=True, kw_only=True)
class Declined(_Entry):
    """``seat`` declined the resignation offered."""

    kind: ClassVar[Literal["decline"]] = "decline"
    game: int
    seat: int
    t: float | None = None


@dataclass(frozen=True, kw_only=True)
class Flagged(_Entry):
    """``seat``'s reserve ran out at ``t``: it lost the match on time."""

    kind: ClassVar[Literal["flag"]] = "flag"
    game: int
    seat: int
    t: float
    asked: float | None = None
    charged_from: float | None = None


@dataclass(frozen=True, kw_only=True)
class Forfeited(_Entry):
    """``seat`` forfeited the match (its player's account was deleted while it was played):
    the opponent wins it, as after a flag. ``t``: when, where the match has a clock."""

    kind: ClassVar[Literal["forfeit"]] = "forfeit"
    game: int
    seat: int
    t: float | None = None


@dataclass(frozen=True, kw_only=True)
class Aborted(_Entry):
    """The match was aborted at ``t``: ``seat`` had not made its first action of the match
    within :data:`~boardgammon.engine.match.NO_SHOW_AFTER` seconds of its clock starting (or
    its reserve ran out first). Nobody wins; the score stays as played. ``asked``,
    ``charged_from``: as for a flag, where it came during a wait for ``seat``'s device."""

    kind: ClassVar[Literal["abort"]] = "abort"
    game: int
    seat: int
    t: float
    asked: float | None = None
    charged_from: float | None = None


Action = (OpeningRolled | Rolled | Played | Doubled | Beavered | Took | Dropped | Resigned
          | Accepted | Declined | Flagged | Forfeited | Aborted)
"""One entry of the match record."""

_TYPES: dict[str, type[Action]] = {
    cls.kind: cls for cls in (OpeningRolled, Rolled, Played, Doubled, Beavered, Took, Dropped,
                              Resigned, Accepted, Declined, Flagged, Forfeited, Aborted)}
_NEEDS = {"seat": "its seat", "dice": "two dice", "play": "its play", "value": "its value",
          "t": "its time"}


def _finite(v: float) -> bool:
    try:
        return math.isfinite(v)
    except OverflowError:  # an integer past a float's range
        return False


def action_from_dict(d: dict[str, Any]) -> Action:
    """The inverse of ``to_dict``.

    Raises:
        InvalidRecord: unknown kind, a field the kind does not have, a field it needs
            missing, or a field of the wrong type.
    """
    if not isinstance(d, dict) or d.get("kind") not in ACTION_KINDS:
        raise InvalidRecord(f"not a record action: {d!r}"[:300])
    kind = d["kind"]
    for name, types in (("game", int), ("seat", int), ("value", int), ("t", (int, float)),
                        ("asked", (int, float)), ("charged_from", (int, float))):
        v = d.get(name)
        if v is not None and (isinstance(v, bool) or not isinstance(v, types)
                              or (name in _TIMES and not _finite(v))):
            what = "a finite number" if name in _TIMES else "an integer"
            raise InvalidRecord(f"record action field {name!r} is {v!r}, not {what}"[:300])
    charged_from, asked = d.get("charged_from"), d.get("asked")
    if charged_from is not None and (asked is None or not charged_from > asked):
        raise InvalidRecord(f"record action {d!r}: charged_from must come after asked, the "
                            f"time the roll was asked for"[:300])
    dice = d.get("dice")
    if dice is not None and not (isinstance(dice, list) and len(dice) == 2 and all(
            isinstance(x, int) and not isinstance(x, bool) for x in dice)):
        raise InvalidRecord(f"record action dice are {dice!r}, not two integers"[:300])
    play = d.get("play")
    if play is not None and not isinstance(play, str):
        raise InvalidRecord(f"a play is text such as '24/18 13/11', got {play!r}"[:300])
    cls = _TYPES[kind]
    stored = {("value" if f.name == "points" else f.name) for f in fields(cls)}
    present = {k for k, v in d.items() if v is not None and k != "kind"}
    if present - stored:
        extra = ", ".join(sorted(present - stored))
        raise InvalidRecord(f"bad record action {d!r}: a {kind} action has no {extra}"[:300])
    if "game" not in present:
        raise InvalidRecord(f"bad record action {d!r}: it needs its game"[:300])
    missing = [name for name in _JSON_FIELDS if name in stored and name not in present
               and not (name == "t" and kind not in ("flag", "abort"))
               and name not in ("asked", "charged_from")]
    if missing:
        raise InvalidRecord(f"a {kind} action needs {_NEEDS[missing[0]]}")
    values = {("points" if name == "value" and kind == "resign" else name): d[name]
              for name in present}
    if dice is not None:
        values["dice"] = (dice[0], dice[1])
    return cls(**values)
