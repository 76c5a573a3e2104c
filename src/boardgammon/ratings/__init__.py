"""Player ratings for backgammon matches: the FIBS formula (:mod:`.fibs`) and Glicko-2
adapted to match length (:mod:`.glicko`), the one Boardgammon keeps (why: ``docs/ratings.md``,
from ``benchmarks/bench_ratings.py``).

Pure computation on floats; depends on nothing else of Boardgammon's.
"""

from . import fibs, glicko
from .errors import RatingError
from .fibs import FibsRating
from .glicko import GlickoRating

__all__ = ["FibsRating", "GlickoRating", "RatingError", "fibs", "glicko"]
