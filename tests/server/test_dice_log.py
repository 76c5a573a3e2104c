"""The log's stored tree against RFC 9162's recursion, on SQLite and PostgreSQL: after each of
37 appends, the root from the stored subtrees is the root of the leaves, and (at sizes 1-9 and
around 16 and 32) every inclusion and consistency proof is the one the RFC's definitions give
over the same leaves; an append rolled
back with its transaction leaves no leaf, no subtree and no gap."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from boardgammon.dice.transparency import (
    consistency_path,
    inclusion_path,
    leaf_bytes,
    leaf_hash,
    root_of,
)
from boardgammon.server import dice_log

START = datetime(2026, 12, 2, 13, 0, tzinfo=UTC)
# Every proof at these sizes: each small shape, and around the powers of two.
PROOF_SIZES = {*range(1, 10), 15, 16, 17, 31, 32, 33, 37}


def change(k: int) -> tuple[str, dict, datetime]:
    roll = {
        "match_id": f"mat_m{k % 3}",
        "roll_id": f"rol_r{k // 3}",
        "seq": k // 3,
        "nonce": k,
        "seat": k % 2,
        "commitment": f"{k:064x}",
        "entry_hash": f"{k + 1:064x}",
    }
    return ("committed", "revealed", "played")[k % 3], roll, START + timedelta(seconds=k)


def test_stored_tree_is_the_rfc_tree_at_every_size(database):
    leaves: list[bytes] = []
    with database.sessions() as session:
        for k in range(37):
            event, roll, at = change(k)
            dice_log.append(session, event, roll, at)
            assert dice_log.flush(session) == k
            assert dice_log.flush(session) is None  # written once
            session.commit()
            leaves.append(leaf_bytes(event, roll, at.isoformat()))
            hashes = [leaf_hash(leaf) for leaf in leaves]
            size = k + 1
            assert dice_log.size(session) == size
            assert dice_log.root(session, size) == root_of(hashes)
            if size not in PROOF_SIZES:
                continue

            def reference(lo, hi, hashes=hashes):
                return root_of(hashes[lo:hi])

            for index in range(size):
                proof = dice_log.inclusion_proof(session, index, size)
                assert proof["leaf"] == leaves[index].decode()
                assert proof["inclusion_path"] == [
                    p.hex() for p in inclusion_path(index, size, reference)
                ]
            for first in range(1, size + 1):
                assert dice_log.consistency_proof(session, first, size)["consistency_path"] == [
                    p.hex() for p in consistency_path(first, size, reference)
                ]
        # Older sizes keep their roots: the tree only grows.
        for size in (1, 2, 3, 8, 16, 31, 32, 33):
            assert dice_log.root(session, size) == root_of(
                [leaf_hash(leaf) for leaf in leaves[:size]]
            )


def test_an_append_rolled_back_leaves_nothing(database):
    with database.sessions() as session:
        for k in range(3):
            dice_log.append(session, *change(k))
        session.commit()
        dice_log.append(session, *change(3))
        session.rollback()
        assert dice_log.size(session) == 3
        assert dice_log.entries(session, 0, 10) == [
            {"index": k, "leaf": leaf_bytes(*change(k)[:2], change(k)[2].isoformat()).decode()}
            for k in range(3)
        ]
        dice_log.append(session, *change(4))
        session.commit()
        assert dice_log.entries(session, 3, 10)[0]["leaf"] == leaf_bytes(
            *change(4)[:2], change(4)[2].isoformat()).decode()
        assert dice_log.size(session) == 4


def test_concurrent_appends_take_every_index_once(database):
    # Eight writers at once (PostgreSQL: truly concurrent; SQLite: one at a time by its lock):
    # the size row hands out each index once, in commit order, and the tree stays whole.
    from concurrent.futures import ThreadPoolExecutor

    def write(k: int) -> int:
        with database.sessions() as session:
            dice_log.append(session, *change(k))
            index = dice_log.flush(session)
            session.commit()
            assert index is not None
            return index

    with ThreadPoolExecutor(8) as pool:
        indices = list(pool.map(write, range(40)))
    assert sorted(indices) == list(range(40))
    with database.sessions() as session:
        leaves = [e["leaf"].encode() for e in dice_log.entries(session, 0, 100)]
        assert len(leaves) == 40
        assert dice_log.root(session, 40) == root_of([leaf_hash(leaf) for leaf in leaves])


def test_playing_and_committing_in_two_matches_at_once_never_deadlocks(database):
    # One transaction marks a roll played (the log's size row) and then commits the match's
    # next roll (the nonce counter); another commits a roll in another match meanwhile. Taken
    # in opposite orders the two server-wide rows deadlock on PostgreSQL; both must finish.
    import threading

    from boardgammon.dice import new_match_id
    from boardgammon.server import dice_record

    first, second = new_match_id(), new_match_id()
    with database.sessions() as session:
        roll = dice_record.commit_roll(session, first, 0)
        dice_record.reveal_roll(session, roll.roll_id, roll.commitment, bytes(16))
    played = threading.Event()
    errors: list[BaseException] = []

    def play_then_commit() -> None:
        try:
            with database.sessions() as session:
                dice_record.mark_played(session, roll.roll_id, commit=False)
                played.set()
                threading.Event().wait(0.5)  # the other transaction goes for its nonce now
                dice_record.commit_roll(session, first, 1, commit=False)
                session.commit()
        except BaseException as exc:  # noqa: BLE001 - reported by the test below
            errors.append(exc)
            played.set()

    def commit_elsewhere() -> None:
        played.wait(10)
        try:
            with database.sessions() as session:
                dice_record.commit_roll(session, second, 0)
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=play_then_commit), threading.Thread(target=commit_elsewhere)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert errors == []
    with database.sessions() as session:
        assert dice_log.size(session) == 5  # committed, revealed, played, and two commitments
        assert len(dice_record.match_rolls(session, first)) == 2
        assert len(dice_record.match_rolls(session, second)) == 1


def test_two_processes_appending_with_roll_backs_keep_the_rfc_tree(database, database_url):
    # Each process remembers the tree's right edge after its last committed append and takes
    # the left siblings from it when the next index is that size: here two processes (two
    # engines on one database) append in turns, several leaves in a transaction, some
    # transactions rolled back (a remembered edge of a rolled-back append would put a wrong
    # subtree into the tree once the other process took that index). After every commit the
    # stored tree is the RFC tree of the committed leaves.
    import random

    from boardgammon.server.db import open_database

    other = open_database(database_url)
    try:
        chooser = random.Random(25)
        committed: list[bytes] = []
        k = 0
        for _ in range(60):
            db = chooser.choice((database, other))
            with db.sessions() as session:
                pending: list[bytes] = []
                written = 0  # of ``pending``, flushed before the commit
                for _ in range(chooser.choice((1, 1, 2, 3))):
                    event, roll, at = change(k)
                    k += 1
                    dice_log.append(session, event, roll, at)
                    pending.append(leaf_bytes(event, roll, at.isoformat()))
                    if chooser.random() < 0.5:  # written now, or with the next ones
                        assert dice_log.flush(session) == len(committed) + written
                        written = len(pending)
                if chooser.random() < 0.3:
                    session.rollback()
                    continue
                session.commit()
                committed += pending
                size = len(committed)
                hashes = [leaf_hash(leaf) for leaf in committed]
                assert dice_log.root(session, size) == root_of(hashes)
                index = chooser.randrange(size)
                assert dice_log.inclusion_proof(session, index, size)["inclusion_path"] == [
                    p.hex()
                    for p in inclusion_path(index, size, lambda lo, hi, h=hashes: root_of(h[lo:hi]))
                ]
        assert len(committed) > 40
    finally:
        other.dispose()
