"""Dice: durable rolls per second through the dice record, and the raw derivation rate.

1. Rolls committed + revealed + marked played per second on SQLite with durable writes (WAL,
   ``synchronous=FULL``: three fsync'd transactions per roll), beside the reference: bare
   ``sqlite3`` one-row transactions per second with the same settings on the same disk.
2. ``derive_dice`` calls per second beside hashlib/hmac's bare HMAC-SHA256 on a message of the
   same length (the derivation's floor: one HMAC per roll almost always).
"""

from __future__ import annotations

import hmac
import sqlite3
import tempfile
import time
from pathlib import Path

from boardgammon.dice import derive_dice, new_match_id
from boardgammon.dice.verify import dice_prefix
from boardgammon.server import dice_record as record
from boardgammon.server.db import open_database

ROLLS = 300
RAW_TRANSACTIONS = 900
DERIVATIONS = 200_000
SEED = bytes(range(32))
ENTROPY = bytes(range(0xA0, 0xB0))


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
    derived = derivations_per_second()
    bare = bare_hmac_per_second()
    print(f"derive_dice: {derived:,.0f}/s")
    print(f"  reference: hmac.digest HMAC-SHA256, same message length: {bare:,.0f}/s")
    print(f"  ratio derive_dice / bare HMAC: {derived / bare:.3f}")


if __name__ == "__main__":
    main()
