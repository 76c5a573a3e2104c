"""Dice: durable rolls per second through the dice record, and the raw derivation rate.

1. Rolls committed + revealed + marked played per second on SQLite with durable writes (WAL,
   ``synchronous=FULL``: three fsync'd transactions per roll), beside the reference: bare
   ``sqlite3`` one-row transactions per second with the same settings on the same disk; and
   v2 rolls (commit, the roller's request, the opponent's link and reveal, played: four
   transactions) beside v1's in the same run, on SQLite and, when it answers at
   127.0.0.1:5432 db ``test``, PostgreSQL (in a schema of its own, dropped afterwards).
2. ``derive_dice`` calls per second beside hashlib/hmac's bare HMAC-SHA256 on a message of the
   same length (the derivation's floor: one HMAC per roll almost always).
3. The GIL convoy (``docs/server.md`` §Threads and the GIL): v2 rolls per second on SQLite
   while another thread of the process computes without pause, as the server's event loop
   does under load (serialising and compressing states), at Python's default switch interval
   (5 ms, the server's ``BOARDGAMMON_SWITCH_INTERVAL``) and at 0.5 ms, beside the same rolls
   with no other thread in the same run. Every SQLite statement releases the GIL and must win
   it back from the busy thread, which yields it only after the switch interval.

``BENCH_SCALE`` (default 1) multiplies every count: ``BENCH_SCALE=0.05`` is a smoke run whose
figures say only that the benchmark runs.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import sqlite3
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from sqlalchemy.orm import Session

from boardgammon.dice import new_match_id
from boardgammon.dice.verify import derive_dice, dice_prefix
from boardgammon.server import dice_record as record
from boardgammon.server import dice_record_v2 as record_v2
from boardgammon.server.db import open_database
from boardgammon.server.settings import DEFAULT_SWITCH_INTERVAL

SCALE = float(os.environ.get("BENCH_SCALE", "1"))
ROLLS = max(2, int(300 * SCALE))
RAW_TRANSACTIONS = max(2, int(900 * SCALE))
DERIVATIONS = max(2, int(200_000 * SCALE))
SEED = bytes(range(32))
ENTROPY = bytes(range(0xA0, 0xB0))
SHORT_INTERVAL = 0.0005  # the shorter switch interval measured beside the default


def _rate(count: int, seconds: float) -> float:
    return count / seconds if seconds > 0 else float("inf")


def durable_rolls_per_second(folder: Path) -> float:
    db = open_database(f"sqlite:///{folder}/bench.sqlite3")
    try:
        match_id = new_match_id()
        with db.sessions() as session:
            start = time.perf_counter()
            for k in range(ROLLS):
                roll = record.commit_roll(session, match_id, k % 2)
                record.reveal_roll(session, roll.roll_id, roll.commitment, ENTROPY)
                record.mark_played(session, roll.roll_id)
            return _rate(ROLLS, time.perf_counter() - start)
    finally:
        db.dispose()


def _chain(length: int) -> list[bytes]:
    """A hash chain x_0 … x_length (x_(i-1) = SHA-256(x_i)), anchor first."""
    links = [bytes(range(32))]
    for _ in range(length):
        links.append(hashlib.sha256(links[-1]).digest())
    return links[::-1]


def _v2_rolls_per_second(session: Session, rolls: int) -> float:
    """``rolls`` v2 rolls of a new match (commit, request, the opponent's link, played),
    alternating seats, both seats with a chain; per second."""
    match_id = new_match_id()
    chains = (_chain(rolls), _chain(rolls))
    for seat in (0, 1):
        record_v2.register_anchor(session, match_id, seat, chains[seat][0])
    start = time.perf_counter()
    for k in range(rolls):
        seat = k % 2
        roll = record_v2.commit_roll(session, match_id, seat)
        record_v2.request_roll(session, roll.roll_id, roll.commitment, ENTROPY)
        record_v2.contribute(session, roll.roll_id, chains[1 - seat][k // 2 + 1])
        record_v2.mark_played(session, roll.roll_id)
    return _rate(rolls, time.perf_counter() - start)


def v1_v2_rolls_per_second(url: str) -> tuple[float, float]:
    """Durable rolls per second through the v1 and the v2 record on the database at ``url``,
    alternating seats; the v2 opponent reveals its link every roll."""
    db = open_database(url)
    try:
        with db.sessions() as session:
            match_id = new_match_id()
            start = time.perf_counter()
            for k in range(ROLLS):
                roll = record.commit_roll(session, match_id, k % 2)
                record.reveal_roll(session, roll.roll_id, roll.commitment, ENTROPY)
                record.mark_played(session, roll.roll_id)
            v1 = _rate(ROLLS, time.perf_counter() - start)
            v2 = _v2_rolls_per_second(session, ROLLS)
        return v1, v2
    finally:
        db.dispose()


def v2_rolls_beside_a_busy_thread(url: str, interval: float | None) -> float:
    """v2 rolls per second (as :func:`v1_v2_rolls_per_second`'s) while another thread spins
    in pure Python (``interval``: the switch interval then; ``None``: no such thread)."""
    db = open_database(url)
    stop = threading.Event()

    def spin() -> None:
        while not stop.is_set():
            sum(range(1000))  # holds the GIL until the interpreter asks it to switch

    before = sys.getswitchinterval()
    busy = threading.Thread(target=spin, daemon=True) if interval is not None else None
    try:
        if interval is not None:
            sys.setswitchinterval(interval)
        if busy is not None:
            busy.start()
        with db.sessions() as session:
            return _v2_rolls_per_second(session, max(2, ROLLS // 3))
    finally:
        stop.set()
        if busy is not None:
            busy.join()
        sys.setswitchinterval(before)
        db.dispose()


def postgres_url() -> tuple[str, Callable[[], None]] | None:
    """A fresh schema on the local PostgreSQL and its cleanup, or ``None`` if it is not there."""
    try:
        import psycopg
    except ImportError:
        return None
    conninfo = "host=127.0.0.1 port=5432 dbname=test user=postgres connect_timeout=3"
    schema = f"bench_dice_{secrets.token_hex(6)}"
    try:
        with psycopg.connect(conninfo, autocommit=True) as conn:
            conn.execute(f"CREATE SCHEMA {schema}")
    except psycopg.OperationalError:
        return None

    def drop() -> None:
        with psycopg.connect(conninfo, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")

    url = f"postgresql+psycopg://postgres@127.0.0.1:5432/test?options=-csearch_path%3D{schema}"
    return url, drop


def raw_sqlite_transactions_per_second(folder: Path) -> float:
    connection = sqlite3.connect(folder / "raw.sqlite3", isolation_level=None)
    try:
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=FULL")
        connection.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, payload TEXT)")
        start = time.perf_counter()
        for k in range(RAW_TRANSACTIONS):
            connection.execute("BEGIN IMMEDIATE")
            connection.execute("INSERT INTO t (payload) VALUES (?)", (f"{k:064x}",))
            connection.execute("COMMIT")
        return _rate(RAW_TRANSACTIONS, time.perf_counter() - start)
    finally:
        connection.close()


def derivations_per_second() -> float:
    start = time.perf_counter()
    for nonce in range(DERIVATIONS):
        derive_dice(SEED, "mat_TESTVECTOR0001", "rol_0001", nonce, ENTROPY)
    return _rate(DERIVATIONS, time.perf_counter() - start)


def bare_hmac_per_second() -> float:
    message = dice_prefix("mat_TESTVECTOR0001", "rol_0001", 0, ENTROPY) + bytes(4)
    start = time.perf_counter()
    for _ in range(DERIVATIONS):
        hmac.digest(SEED, message, "sha256")
    return _rate(DERIVATIONS, time.perf_counter() - start)


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="bench-dice-") as folder:
        raw = raw_sqlite_transactions_per_second(Path(folder))
        rolls = durable_rolls_per_second(Path(folder))
    print(f"durable rolls (commit+reveal+played, SQLite WAL synchronous=FULL): {rolls:,.0f}/s")
    print(f"  reference: bare sqlite3 durable one-row transactions: {raw:,.0f}/s")
    print(f"  ratio rolls / raw transactions: {rolls / raw:.3f} (3 transactions per roll: "
          f"at most ~0.333)")
    with tempfile.TemporaryDirectory(prefix="bench-dice-") as folder:
        v1, v2 = v1_v2_rolls_per_second(f"sqlite:///{folder}/v1v2.sqlite3")
    print(f"durable v2 rolls (commit+request+link+played) on SQLite: {v2:,.0f}/s")
    print(f"  reference: v1 rolls in the same run: {v1:,.0f}/s; ratio v2 / v1: {v2 / v1:.3f} "
          "(4 transactions per v2 roll against 3: at least ~0.75 expected)")
    postgres = postgres_url()
    if postgres is None:
        print("PostgreSQL: not reachable at 127.0.0.1:5432 db test; skipped")
    else:
        url, drop = postgres
        try:
            v1, v2 = v1_v2_rolls_per_second(url)
        finally:
            drop()
        print(f"durable v2 rolls on PostgreSQL: {v2:,.0f}/s")
        print(f"  reference: v1 rolls in the same run: {v1:,.0f}/s; ratio v2 / v1: {v2 / v1:.3f}")
    with tempfile.TemporaryDirectory(prefix="bench-dice-") as folder:
        url = f"sqlite:///{folder}/convoy.sqlite3"
        alone = v2_rolls_beside_a_busy_thread(url, None)
        default = v2_rolls_beside_a_busy_thread(url, DEFAULT_SWITCH_INTERVAL)
        short = v2_rolls_beside_a_busy_thread(url, SHORT_INTERVAL)
    print("v2 rolls on SQLite beside a busy thread (the GIL convoy):")
    print(f"  switch interval {DEFAULT_SWITCH_INTERVAL * 1000:g} ms (Python's default, the "
          f"server's): {default:,.0f}/s; {SHORT_INTERVAL * 1000:g} ms: {short:,.0f}/s")
    print(f"  reference: no other thread, same run: {alone:,.0f}/s; ratios "
          f"{default / alone:.3f} and {short / alone:.3f}")
    derived = derivations_per_second()
    bare = bare_hmac_per_second()
    print(f"derive_dice: {derived:,.0f}/s")
    print(f"  reference: hmac.digest HMAC-SHA256, same message length: {bare:,.0f}/s")
    print(f"  ratio derive_dice / bare HMAC: {derived / bare:.3f}")


if __name__ == "__main__":
    main()
