"""The server's background round's look for due matches (``MatchRepository.due_ids``, every
0.25 s; ``docs/fair-dice.md`` §Cost) against the history it must not grow with.

A database with the live play of ``bench_server`` going on (200 active live v2 matches, each
with its rolls so far; 5 new ones still waiting for their players' anchors, 5 with a roll
requested and the opponent's link awaited) and 200, 2,000, then 20,000 finished v2 matches of
20 rolls each behind them. At each size: the time of one ``due_ids`` call (a read session and
its statement, as the round makes it), median of the calls, beside the reference in the same
run: the query it replaced, whose anti-join of every active match against the v2 rolls
(:func:`tests.helpers.due_reference.due_ids_anti_join`); both must find the same matches. On
SQLite (WAL, as the server runs it) and, when it answers, on the PostgreSQL of
``BOARDGAMMON_BENCH_POSTGRES`` (default the local test database, in a schema of its own,
dropped afterwards).

The active matches and their rolls are made by the server's own code (the repository's
``add``, the v2 record's ``commit_roll`` and ``request_roll``); the finished history is
inserted in bulk, as rows a finished match leaves (its ``awaiting_first_roll_since`` empty).

``BENCH_SCALE`` (default 1) multiplies the history's sizes and the calls: ``BENCH_SCALE=0.05``
is a smoke run.
"""

from __future__ import annotations

import os
import secrets
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from sqlalchemy import insert

from benchmarks.bench_log import postgres_schema
from boardgammon.dice import new_match_id
from boardgammon.server import dice_record_v2 as record_v2
from boardgammon.server.db import Database, open_database
from boardgammon.server.locks import MatchLocks
from boardgammon.server.match_repository import MatchRepository
from boardgammon.server.tables import DiceRollV2, MatchRow
from tests.helpers.due_reference import due_ids_anti_join

SCALE = float(os.environ.get("BENCH_SCALE", "1"))
SIZES = [max(2, int(n * SCALE)) for n in (200, 2_000, 20_000)]
ACTIVE, WAITING, REQUESTED = 200, 5, 5
ROLLS_PER_MATCH = 20
CALLS = max(20, int(300 * SCALE))
NOW = datetime.now(UTC)
LINK_DUE = NOW - timedelta(seconds=3)


def _match_row(match_id: str, status: str, created: datetime) -> MatchRow:
    return MatchRow(id=match_id, length=5, variant="standard", mode="live", clock="blitz",
                    status=status, version=0, turn_seat=0, score0=0, score1=0,
                    deadline_t=1e12 if status == "active" else None, created_at=created,
                    updated_at=created, dice="v2")


def _live_play(db: Database, repository: MatchRepository) -> None:
    """The active matches of live play, through the server's own code."""
    long_ago = NOW - timedelta(minutes=5)
    for k in range(ACTIVE + WAITING + REQUESTED):
        match_id = new_match_id()
        with db.sessions() as s:
            repository.add(s, _match_row(match_id, "active", long_ago))
            if k >= ACTIVE + WAITING or k < ACTIVE:
                for seq in range(k % 7 + 1):
                    roll = record_v2.commit_roll(s, match_id, seq % 2, now=long_ago)
                    if k >= ACTIVE + WAITING and seq == k % 7:
                        record_v2.request_roll(s, roll.roll_id, roll.commitment,
                                               secrets.token_bytes(16), now=long_ago)
                        break
                    record_v2.void_roll(s, roll.roll_id, now=long_ago)


def _history(db: Database, first: int, last: int) -> None:
    """Finished matches ``first`` … ``last - 1`` with their rolls, in bulk."""
    created = NOW - timedelta(days=1)
    for lo in range(first, last, 1_000):
        matches, rolls = [], []
        for i in range(lo, min(last, lo + 1_000)):
            match_id = f"mat_history{i:08d}"
            matches.append({"id": match_id, "length": 5, "variant": "standard",
                            "mode": "live", "clock": "blitz", "status": "finished",
                            "version": 60, "turn_seat": 0, "score0": 5, "score1": 2,
                            "winner": 0, "created_at": created, "updated_at": created,
                            "dice": "v2"})
            for seq in range(ROLLS_PER_MATCH):
                n = i * ROLLS_PER_MATCH + seq
                rolls.append({"roll_id": f"rol_history{n:010d}", "match_id": match_id,
                              "seq": seq, "nonce": 10**9 + n, "seat": seq % 2,
                              "kind": "normal", "state": "played",
                              "commitment": f"c{n:063x}", "server_seed": f"s{n:063x}",
                              "prev_hash": "0" * 64, "entry_hash": "0" * 64,
                              "committed_at": created})
        with db.sessions() as s:
            s.execute(insert(MatchRow), matches)
            s.execute(insert(DiceRollV2), rolls)
            s.commit()


def _median_ms(calls: dict[str, Callable[[], list[str]]]) -> dict[str, float]:
    """Each call's median time in ms, the calls taken in turn so that both meet the same
    moments of the machine."""
    times: dict[str, list[float]] = {name: [] for name in calls}
    for call in calls.values():  # warm: statement caches, the pool's connection
        call()
    for _ in range(CALLS):
        for name, call in calls.items():
            started = time.perf_counter()
            call()
            times[name].append(time.perf_counter() - started)
    return {name: 1000 * statistics.median(t) for name, t in times.items()}


def run(url: str, label: str) -> None:
    db = open_database(url)
    try:
        repository = MatchRepository(db, MatchLocks(), 16, [], lambda wall: wall)
        _live_play(db, repository)
        calls = {
            "due_ids (indexed)": lambda: repository.due_ids(0.0, LINK_DUE),
            "reference: anti-join": lambda: due_ids_anti_join(db, 0.0, LINK_DUE),
        }
        found = sorted(calls["due_ids (indexed)"]())
        assert found == sorted(calls["reference: anti-join"]()), "the two queries disagree"
        assert len(found) == WAITING + REQUESTED, found
        done = 0
        for size in SIZES:
            _history(db, done, size)
            done = size
            ms = _median_ms(calls)
            new, old = ms["due_ids (indexed)"], ms["reference: anti-join"]
            print(f"  {label}, {size:>6,} finished matches ({size * ROLLS_PER_MATCH:,} rolls) "
                  f"+ {ACTIVE + WAITING + REQUESTED} active: due_ids {new:.3f} ms, reference "
                  f"(anti-join) {old:.3f} ms: {old / new:.2f}x", flush=True)
    finally:
        db.dispose()


def main() -> None:
    print(f"due_ids: median of {CALLS} calls each, {ACTIVE} active live matches, {WAITING} "
          f"waiting for anchors, {REQUESTED} with a link awaited, and a growing history")
    with tempfile.TemporaryDirectory() as tmp:
        run(f"sqlite:///{tmp}/bench_due.sqlite3", "SQLite")
    with postgres_schema("bench_due", "  ") as url:
        if url is not None:
            run(url, "PostgreSQL")


if __name__ == "__main__":
    main()
