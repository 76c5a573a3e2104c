"""The match context of a cube or resignation decision, from the deciding side's view.

It lives below the bots and the analysis because both decide with it: the bots for their own
moves, the analysis for the decisions it judges.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from boardgammon.engine.rules import cube_enabled, double_refusal

if TYPE_CHECKING:
    from boardgammon.engine import Match


class CubeOwner(StrEnum):
    """Who owns the cube, from the deciding side's view."""

    CENTRE = "centre"
    ME = "me"
    OPPONENT = "opponent"


@dataclass(frozen=True)
class Context:
    """Match context of a decision, from the deciding side's view (for a bot: the bot's).

    Attributes:
        length: match length in points; 0 means a money game (unlimited, cube free).
        my_score, opponent_score: points already won in this match.
        crawford: this game is the Crawford game (no doubling).
        cube_value: 1, 2, 4 … 64.
        cube_owner: centred, owned by the deciding side, or owned by the opponent.
        variant: ``standard``, ``nackgammon`` or ``hypergammon``.
        jacoby: money games only: gammons count only once the cube has been turned.
    """

    length: int = 0
    my_score: int = 0
    opponent_score: int = 0
    crawford: bool = False
    cube_value: int = 1
    cube_owner: CubeOwner = CubeOwner.CENTRE
    variant: str = "standard"
    jacoby: bool = False

    @property
    def cube_available_to_me(self) -> bool:
        """Whether the rules let the deciding side double now
        (:func:`~boardgammon.engine.rules.double_refusal`): not the Crawford game, not a
        1-point match, cube centred or its own, and below the highest cube."""
        return double_refusal(cube_enabled=cube_enabled(self.length), crawford=self.crawford,
                              cube=self.cube_value,
                              owned_by_opponent=self.cube_owner is CubeOwner.OPPONENT) is None

    @property
    def away(self) -> tuple[int, int, bool]:
        """``(a, b, post_crawford)`` of a match: the points the deciding side needs, the
        points its opponent needs, and whether the games after this one (or this one, for a
        resignation in the Crawford game) are post-Crawford. Cube decisions never happen in
        the Crawford game; before a side is 1-away it still lies ahead, after it it is done.
        Meaningless in money play (``length`` 0)."""
        a = self.length - self.my_score
        b = self.length - self.opponent_score
        return a, b, self.crawford or a == 1 or b == 1

    @property
    def cube_dead_for_me(self) -> bool:
        """Whether doubling is pointless for the deciding side in match play: a win at the
        current cube already takes the match (points needed ≤ cube value), so a double only
        risks more. gnubg's ``GetDPEq`` rule; it covers both sides 1-away and the leader
        holding the cube after the Crawford game."""
        return self.length > 0 and self.length - self.my_score <= self.cube_value


def context_for(match: Match, seat: int) -> Context:
    """The :class:`Context` of ``seat`` (0 or 1) in the match's current game: the one mapping
    of a match's state to a decision's context, for the bots' turns and for the analysis."""
    game = match.game
    if game.cube_owner is None:
        owner = CubeOwner.CENTRE
    else:
        owner = CubeOwner.ME if game.cube_owner == seat else CubeOwner.OPPONENT
    return Context(length=match.length, my_score=match.score[seat],
                   opponent_score=match.score[1 - seat], crawford=game.crawford,
                   cube_value=game.cube, cube_owner=owner, variant=match.variant.value,
                   jacoby=match.jacoby)
