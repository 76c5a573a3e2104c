"""Exact chances of a Kniffel (Yahtzee: all dice showing one face) within a turn of rolls.

A turn is up to ``rolls`` rolls of ``dice`` fair dice with ``sides`` faces; before each re-roll
the player keeps any sub-multiset of the dice showing and rolls the rest. Three strategies:

* **optimal**: maximise the chance of any Kniffel. Dynamic programme over (kept multiset, rolls
  left), every sub-multiset of the dice showing considered at every step, so the target face may
  change. The chance of a Kniffel depends on a multiset only through its counts per face, not on
  which faces they are, so states are stored as partitions (counts sorted, largest first); this
  is the same programme as over multisets of faces, with the states that differ only by a
  relabelling of the faces merged.
* **always re-roll**: roll all dice every time: 1 − (1 − p1)^r with p1 = sides / sides**dice.
* **fixed target**: keep the largest group after the first roll and only ever add dice of that
  face; each of the ``dice − g`` missing dice then hits within ``r − 1`` rolls independently.

Values are exact fractions. Internally they are integers over ``sides**(dice·t)`` for ``t``
rolls, which keeps the programme free of fraction arithmetic. With the defaults (5 dice, 6 sides,
3 rolls) the one-roll chance is 6/7776 = 1/1296 (``shared/reference/published-figures.md``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import product
from math import factorial, prod

from .errors import InvalidQuery

Partition = tuple[int, ...]
"""Counts of the faces present, largest first, e.g. ``(3, 1, 1)`` for 4-4-4-2-6."""

MAX_DICE = 12
MAX_SIDES = 100
MAX_ROLLS = 100


def _canonical(counts: tuple[int, ...] | list[int]) -> Partition:
    return tuple(sorted((c for c in counts if c), reverse=True))


def _partitions(total: int, most: int, parts: int) -> list[Partition]:
    """Partitions of ``total`` into at most ``parts`` parts, each at most ``most``."""
    if total == 0:
        return [()]
    if parts == 0:
        return []
    out: list[tuple[int, ...]] = []
    for first in range(min(total, most), 0, -1):
        out.extend((first, *rest) for rest in _partitions(total - first, first, parts - 1))
    return out


def _compositions(total: int, parts: int):
    """All tuples of ``parts`` non-negative integers summing to ``total``."""
    if parts == 0:
        if total == 0:
            yield ()
        return
    for first in range(total + 1):
        for rest in _compositions(total - first, parts - 1):
            yield (first, *rest)


def _sub_partitions(hand: Partition) -> set[Partition]:
    """Every sub-multiset of a hand, as partitions."""
    return {_canonical(kept) for kept in product(*(range(c + 1) for c in hand))}


class _Game:
    """The dynamic programme for one (dice, sides): roll outcomes per kept state, cached."""

    def __init__(self, dice: int, sides: int) -> None:
        self.dice, self.sides = dice, sides
        self.kniffel: Partition = (dice,)
        self._outcomes: dict[Partition, list[tuple[Partition, int]]] = {}
        self._subs: dict[Partition, list[Partition]] = {}

    def outcomes(self, kept: Partition) -> list[tuple[Partition, int]]:
        """Hands reachable by rolling the dice not kept, each with its number of ordered roll
        sequences (they sum to ``sides**rolled``)."""
        if kept in self._outcomes:
            return self._outcomes[kept]
        rolled = self.dice - sum(kept)
        free_faces = self.sides - len(kept)
        found: Counter[Partition] = Counter()
        for on_kept in range(rolled + 1):
            for to_kept in _compositions(on_kept, len(kept)):
                for new in _partitions(rolled - on_kept, rolled, free_faces):
                    # Ways to put the new group sizes on distinct unseen faces.
                    placements = factorial(free_faces) // (
                        factorial(free_faces - len(new))
                        * prod(map(factorial, Counter(new).values()))
                    )
                    orders = factorial(rolled) // prod(map(factorial, (*to_kept, *new)))
                    hand = _canonical([*map(sum, zip(kept, to_kept, strict=True)), *new])
                    found[hand] += placements * orders
        self._outcomes[kept] = sorted(found.items())
        return self._outcomes[kept]

    def subs(self, hand: Partition) -> list[Partition]:
        if hand not in self._subs:
            self._subs[hand] = sorted(_sub_partitions(hand))
        return self._subs[hand]

    def optimal(self, rolls: int) -> list[dict[Partition, int]]:
        """``keep[t][kept]``: numerator over ``sides**(dice·t)`` of the best chance of a Kniffel
        when ``kept`` is held and ``t`` rolls remain (``t`` = 1…rolls; index 0 unused)."""
        kept_states = [p for j in range(self.dice + 1) for p in _partitions(j, j, self.sides)]
        keep: list[dict[Partition, int]] = [{}]
        for t in range(1, rolls + 1):
            level = {}
            for kept in kept_states:
                rolled = self.dice - sum(kept)
                total = sum(
                    n * self.hand_value(hand, t - 1, keep) for hand, n in self.outcomes(kept)
                )
                level[kept] = total * self.sides ** (self.dice - rolled)
            keep.append(level)
        return keep

    def hand_value(self, hand: Partition, t: int, keep: list[dict[Partition, int]]) -> int:
        """Numerator over ``sides**(dice·t)`` of the best chance from ``hand`` with ``t`` rolls
        left: 1 for a Kniffel, 0 with no rolls left, else the best sub-multiset to keep."""
        if hand == self.kniffel:
            return self.sides ** (self.dice * t)
        if t == 0:
            return 0
        level = keep[t]
        return max(level[kept] for kept in self.subs(hand))


@lru_cache(maxsize=32)
def _game(dice: int, sides: int) -> _Game:
    return _Game(dice, sides)


def _check(dice: int, sides: int, rolls: int) -> None:
    for name, value, high in (
        ("dice", dice, MAX_DICE),
        ("sides", sides, MAX_SIDES),
        ("rolls", rolls, MAX_ROLLS),
    ):
        if not isinstance(value, int) or not 1 <= value <= high:
            raise InvalidQuery(f"{name} must be an integer from 1 to {high}, got {value!r}")


@dataclass(frozen=True)
class GroupRow:
    """One row of the first-roll table: hands whose largest group is ``largest_group`` dice."""

    largest_group: int
    outcomes: int
    """How many of the ``sides**dice`` ordered first rolls have this largest group."""
    p_finish: Fraction
    """Chance to complete a Kniffel from such a hand with the remaining rolls, playing optimally
    (averaged over those hands; a Kniffel already made counts as 1)."""


@dataclass(frozen=True)
class KniffelOdds:
    """Exact chances of a Kniffel within 1…``rolls`` rolls for each strategy (index r − 1)."""

    dice: int
    sides: int
    rolls: int
    optimal: tuple[Fraction, ...]
    always_reroll: tuple[Fraction, ...]
    fixed_target: tuple[Fraction, ...]
    first_roll_groups: tuple[GroupRow, ...]


def kniffel_odds(dice: int = 5, sides: int = 6, rolls: int = 3) -> KniffelOdds:
    """Exact Kniffel chances for at most 1, 2, …, ``rolls`` rolls under the three strategies.

    Args:
        dice: dice in the turn, 1…:data:`MAX_DICE` (default 5).
        sides: faces per die, 1…:data:`MAX_SIDES` (default 6).
        rolls: most rolls in a turn, 1…:data:`MAX_ROLLS` (default 3).

    Raises:
        InvalidQuery: a parameter out of range.
    """
    _check(dice, sides, rolls)
    game = _game(dice, sides)
    keep = game.optimal(rolls)
    scale = sides**dice
    optimal = tuple(Fraction(keep[t][()], scale**t) for t in range(1, rolls + 1))
    p1 = Fraction(sides, scale)
    always = tuple(1 - (1 - p1) ** t for t in range(1, rolls + 1))

    first = game.outcomes(())
    by_group: Counter[int] = Counter()
    finish: Counter[int] = Counter()
    for hand, n in first:
        by_group[hand[0]] += n
        finish[hand[0]] += n * game.hand_value(hand, rolls - 1, keep)
    miss = Fraction(sides - 1, sides)
    fixed = tuple(
        sum(
            (Fraction(n, scale) * (1 - miss ** (t - 1)) ** (dice - g) for g, n in by_group.items()),
            Fraction(0),
        )
        for t in range(1, rolls + 1)
    )
    groups = tuple(
        GroupRow(g, by_group[g], Fraction(finish[g], by_group[g] * scale ** (rolls - 1)))
        for g in sorted(by_group)
    )
    return KniffelOdds(dice, sides, rolls, optimal, always, fixed, groups)
