"""The FIBS rating formula (First Internet Backgammon Server, 1990s), as its ``help formula``
page gives it.

Source: the FIBS ``help formula`` text, quoted by Patti Beadles on rec.games.backgammon
(https://www.bkgm.com/rgb/rgb.cgi?view+1093) and in the Backgammon FAQ
(https://stason.org/TULARC/games/backgammon/14-FIBS-RATINGS-First-Internet-Backgammon-Server.html):

* ``D = |r1 − r2|``; the underdog wins an ``n``-point match with
  ``P_upset = 1 / (10^(D·√n/2000) + 1)``;
* ``P = 1 − P_upset`` if the underdog wins, ``P_upset`` if the favourite wins;
* each player's factor ``K = max(1, 5 − experience/100)``, experience being the sum of the
  lengths of the matches they finished before this one;
* the winner gains ``4·K·√n·P`` and the loser loses ``4·K·√n·P`` (each with their own ``K``).

Everyone starts at 1500 with experience 0. (MacFIBS's glossary writes the factor with the
current match added, ``5 − (E + n)/100``; we follow the server's own help text.)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .errors import RatingError

START = 1500.0
"""Everyone's first rating."""


def _check_length(length: int) -> None:
    if length < 1:
        raise RatingError(f"a match is at least 1 point long, not {length}")


def win_probability(rating: float, opponent: float, length: int) -> float:
    """The probability (0…1) that the player rated ``rating`` wins an ``length``-point match
    against one rated ``opponent``: the FIBS upset formula, read from either side.

    Raises:
        RatingError: ``length`` < 1.
    """
    _check_length(length)
    return 1.0 / (1.0 + 10.0 ** ((opponent - rating) * math.sqrt(length) / 2000.0))


def experience_factor(experience: int) -> float:
    """FIBS's ``K = max(1, 5 − experience/100)``: 5 for a new player, 1 from 400 points of
    experience on."""
    return max(1.0, 5.0 - experience / 100.0)


@dataclass(frozen=True)
class FibsRating:
    """A player's FIBS rating and experience (the sum of the lengths of their finished rated
    matches)."""

    rating: float = START
    experience: int = 0


def update(winner: FibsRating, loser: FibsRating, length: int) -> tuple[FibsRating, FibsRating]:
    """Both players after ``winner`` beat ``loser`` in a ``length``-point match: the winner
    gains ``4·K_w·√n·(1 − P_w)``, the loser loses ``4·K_l·√n·(1 − P_w)``, ``P_w`` being the
    winner's win probability before the match (equal to the help text's ``P``).

    Raises:
        RatingError: ``length`` < 1.
    """
    surprise = 1.0 - win_probability(winner.rating, loser.rating, length)
    step = 4.0 * math.sqrt(length) * surprise
    return (
        FibsRating(
            winner.rating + experience_factor(winner.experience) * step, winner.experience + length
        ),
        FibsRating(
            loser.rating - experience_factor(loser.experience) * step, loser.experience + length
        ),
    )
