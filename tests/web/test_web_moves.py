"""Building a play tap by tap (web/moves.js), in Chromium, against the rules engine.

For positions from random play and hand-picked bear-offs, the engine's legal plays are given to
the client in the API's form (single-die steps); a depth-first walk over every step the client
offers must reach every legal play, never get stuck before a play is complete, and end in the
engine's resulting position."""

from __future__ import annotations

import numpy as np
import pytest
from webstate import api_points, mirror

from boardgammon.engine import Board
from tests.helpers.positions import random_play_positions

pytestmark = pytest.mark.browser


def case(board: Board, dice: tuple[int, int]) -> dict:
    plays = board.legal_plays(*dice)
    n = board.checkers
    return {
        "dice": list(dice),
        "mine": api_points(board.array[0], n),
        "theirs": mirror(api_points(board.array[1], n)),
        "plays": [
            {"notation": str(p), "moves": [[m.source, m.dest] for m in p.moves]} for p in plays
        ],
        "after": {
            str(p): {
                "mine": api_points(p.after.array[0], n),
                "theirs": mirror(api_points(p.after.array[1], n)),
            }
            for p in plays
        },
    }


WALK = """async (cases) => {
  const { PlayBuilder } = await import('/static/moves.js');
  return cases.map((c) => {
    const b = new PlayBuilder(c.plays, c.dice, c.mine, c.theirs);
    const found = {};
    let stuck = 0;
    const walk = () => {
      const steps = b.nextSteps();
      if (steps.length === 0) {
        const play = b.complete();
        if (play) found[play.notation] = b.position(); else stuck += 1;
        return;
      }
      for (const [from, to] of steps) {
        if (b.complete()) stuck += 1;  // complete plays must not offer more steps
        b.move(from, to);
        walk();
        b.undo();
      }
    };
    walk();
    return { found, stuck, dance: b.dance };
  });
}"""


def corpus() -> list[dict]:
    rng = np.random.default_rng(7)
    boards = random_play_positions(rng, 2400)[::30]
    cases = [case(b, tuple(int(d) for d in rng.integers(1, 7, size=2))) for b in boards]
    bear_offs = [
        # 6-5 with checkers on 4 and 3: both dice bear off (larger dice, nothing higher).
        (Board.from_points({4: 1, 3: 1}, {24: 2}), (6, 5)),
        # 5-4 with a checker still on 8: 8/3 must come before the bear-off from 4.
        (Board.from_points({8: 1, 4: 1, 2: 3}, {24: 2}), (5, 4)),
        # 6-1 from the 2 point: bear off with the 6, or 2/1 1/off.
        (Board.from_points({2: 1, 6: 1}, {20: 2}), (6, 1)),
        # 2-2 from a closed home board with a checker on the bar of the opponent.
        (Board.from_points({6: 3, 5: 3, 4: 3, 3: 3, 2: 2, 1: 1}, {25: 1, 12: 2}), (2, 2)),
        # On the bar against a five-point board: enter then move, or a dance.
        (Board.from_points({25: 2, 13: 13}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 5}), (6, 3)),
        (Board.from_points({25: 1, 13: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 7: 5}), (6, 4)),
        # Hit on the way: 13/7*/4 passes a blot.
        (Board.from_points({13: 2, 6: 5}, {18: 1, 24: 2}), (6, 3)),
    ]
    return cases + [case(b, d) for b, d in bear_offs]


def test_every_legal_play_reachable_step_by_step(module_page):
    cases = corpus()
    results = module_page.evaluate(WALK, cases)
    for c, r in zip(cases, results, strict=True):
        assert r["stuck"] == 0, c
        assert sorted(r["found"]) == sorted(c["after"]), c
        assert r["found"] == c["after"], c
        assert r["dance"] == (c["plays"] == [{"notation": "", "moves": []}])
    assert any(r["dance"] for r in results)


def test_dice_used_and_undo(module_page):
    c = case(Board.initial(), (6, 5))
    got = module_page.evaluate(
        """async (c) => {
          const { PlayBuilder } = await import('/static/moves.js');
          const b = new PlayBuilder(c.plays, c.dice, c.mine, c.theirs);
          const out = {sources: b.sources().sort((x, y) => x - y),
                       from24: b.destinations(24).sort((x, y) => x - y)};
          b.move(24, 18);
          out.afterOne = {used: b.usedDice(), left: b.stepsLeft(), complete: b.complete(),
                          from18: b.destinations(18)};
          b.move(18, 13);
          out.done = b.complete().notation;
          out.undone = b.undo();
          out.afterUndo = {complete: b.complete(), left: b.stepsLeft()};
          try { b.move(6, 5); out.bad = 'accepted'; } catch (e) { out.bad = e.message; }
          return out;
        }""",
        c,
    )
    assert got["sources"] == [8, 13, 24]  # 6/1 is blocked by the 2 back checkers
    assert got["from24"] == [18]  # 24/19 is blocked: their 6 point
    assert got["afterOne"] == {"used": [6], "left": 1, "complete": None, "from18": [13]}
    assert got["done"] == "24/13"
    assert got["undone"] == [18, 13]
    assert got["afterUndo"] == {"complete": None, "left": 1}
    assert got["bad"] == "6/5 is not a legal next step"
