"""A seeded random driver for whole matches: random dice, random legal plays and cube actions.

Used by the game, match, Match ID and ``.mat`` tests to reach many real states (doubles, takes,
drops, resignations, dances, gammons, Crawford games) reproducibly.
"""

from __future__ import annotations

import random

from boardgammon.engine import Match, Phase


def play_random_match(seed: int, length: int = 5, variant: str = "standard",
                      time_control: str | None = None, *, max_games: int = 4,
                      p_double: float = 0.08, p_take: float = 0.6,
                      p_resign: float = 0.01, dead_cube_doubles: bool = True,
                      beavers: bool = False, p_beaver: float = 0.3) -> Match:
    """Play a match to its end (or ``max_games`` games for money play) with random choices.

    With a time control, actions are ``0``–``4`` s apart, so nobody flags in a blitz match.
    ``dead_cube_doubles=False`` avoids doubles by a player whose cube already wins the match
    (legal, but gnubg refuses them). ``beavers`` (money play): beavers on; a doubled player
    who may beaver does so with probability ``p_beaver``.
    """
    rng = random.Random(seed)
    m = Match(length, variant, ("Ann", "Bob"), time_control, beavers=beavers)
    now = 0.0
    while not m.is_over and (length or len(m.results) < max_games):
        now += rng.uniform(0.0, 4.0)
        t = now if time_control else None
        g = m.game
        if g.phase is Phase.OPENING:
            m.roll_opening(rng.randint(1, 6), rng.randint(1, 6), now=t)
        elif g.phase is Phase.ROLL:
            needed = length - m.score[g.on_roll]
            live = dead_cube_doubles or not length or g.cube < needed
            if g.can_double(g.on_roll) and live and rng.random() < p_double:
                m.double(g.on_roll, now=t)
            elif rng.random() < p_resign:
                m.resign(g.on_roll, rng.randint(1, 3), now=t)
            else:
                m.roll(g.on_roll, rng.randint(1, 6), rng.randint(1, 6), now=t)
        elif g.phase is Phase.DOUBLE_OFFERED:
            assert g.turn is not None
            if g.can_beaver(g.turn) and rng.random() < p_beaver:
                m.beaver(g.turn, now=t)
                continue
            (m.take if rng.random() < p_take else m.drop)(g.turn, now=t)
        elif g.phase is Phase.RESIGN_OFFERED:
            (m.accept if rng.random() < 0.5 else m.decline)(g.turn, now=t)
        else:
            m.play(g.on_roll, rng.choice(g.legal_plays()), now=t)
    return m
