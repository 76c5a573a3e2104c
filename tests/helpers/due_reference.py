"""The reference for ``MatchRepository.due_ids``: the query the server's background round ran
before migration 0020, word for word: the live v2 matches still waiting for their first roll
found by an anti-join of every active match against ``dice_rolls_v2``. The differential test
(tests/server/test_due_ids.py) and the benchmark (benchmarks/bench_due.py) compare the
indexed query with it."""

from __future__ import annotations

from datetime import datetime
from typing import cast

from sqlalchemy import Table, select

from boardgammon.server.db import Database
from boardgammon.server.tables import DiceRollV2, MatchRow

_MATCHES = cast(Table, MatchRow.__table__)
_ROLLS_V2 = cast(Table, DiceRollV2.__table__)


def due_ids_anti_join(db: Database, now: float, link_due: datetime | None = None) -> list[str]:
    """What ``due_ids(now, link_due)`` answered before migration 0020."""
    with db.read_sessions() as s:
        due = list(s.execute(
            select(MatchRow.id).where(MatchRow.status == "active",
                                      MatchRow.deadline_t < now)
        ).scalars())
        if link_due is not None:
            late = s.execute(
                select(_ROLLS_V2.c.match_id).where(_ROLLS_V2.c.state == "requested",
                                                   _ROLLS_V2.c.requested_at < link_due)
            ).scalars().all()
            unanchored = s.execute(
                select(_MATCHES.c.id).where(
                    _MATCHES.c.status == "active", _MATCHES.c.dice == "v2",
                    _MATCHES.c.mode == "live", _MATCHES.c.created_at < link_due,
                    ~select(_ROLLS_V2.c.roll_id)
                    .where(_ROLLS_V2.c.match_id == _MATCHES.c.id).exists())
            ).scalars().all()
            due += [match_id for match_id in (*late, *unanchored) if match_id not in due]
        return due
