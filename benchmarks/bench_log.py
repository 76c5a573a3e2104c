"""The public log's cost per roll (``docs/fair-dice.md`` §The public log).

1. Durable rolls (commit + reveal + played, three transactions) per second with the log, each
   change appending its leaf and subtree hashes in its own transaction, beside the reference in
   the same run: the same rolls with the log's append switched off (the v1 record alone). On
   SQLite (WAL, ``synchronous=NORMAL`` as the server runs it) and, when it answers, on the
   PostgreSQL of ``BOARDGAMMON_BENCH_POSTGRES`` (default the local test database, in a
   schema of its own dropped afterwards).
2. The time of an inclusion proof and of a consistency proof against the tree the rolls made,
   as the API computes them (one query for the subtrees), beside the reference: reading one
   roll by its primary key.
3. SQL statements per v2 roll (commit, request, the opponent's link and reveal, played) with
   the log, beside the same rolls without it: the log's statements per change (a count, not a
   time: the same on any machine).
4. What a player's device fetches to check each roll in the log over a 60-roll v2 match: the
   roll's own proof (``GET /api/audit/{match_id}/rolls/{roll_id}/proof``, O(log n) bytes),
   beside the reference it replaced: the match's whole audit document after each roll (O(n)
   bytes per roll, O(n²) per match); and the proof with ``?after=`` (the entries after the
   newest one the device checked), in a match where both devices send links and in one where
   one never does (its ``preceding`` then reaches back to the start without ``after``). A
   count of bytes, the same on any machine. And the server's time to build one roll's proof
   entries from its window (with ``after``, and from the start) beside the reference: the
   whole audit document, which the endpoint built for every roll before.
5. Heads signed per second under load (a roll change, then four devices asking for a proof,
   again and again) with ``BOARDGAMMON_LOG_HEAD_INTERVAL``'s default of 1 s, beside the
   reference in the same run: interval 0, a head whenever the log grew (the old rule).
6. The audit page of a 60-roll v2 match (``GET /audit/{match_id}?lang=en``, both seats with a
   device), raw and gzipped, beside the reference: the match's audit JSON, which holds every
   value the page shows or links. A count of bytes, the same on any machine.

``BENCH_SCALE`` (default 1) multiplies every count: ``BENCH_SCALE=0.05`` is a smoke run.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import secrets
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from sqlalchemy import event

from boardgammon.dice import new_match_id
from boardgammon.dice.verify import AUDIT_FORMAT_V2
from boardgammon.server import dice_log
from boardgammon.server import dice_record as record
from boardgammon.server import dice_record_v2 as record_v2
from boardgammon.server.db import open_database
from boardgammon.server.tables import LogHead

SCALE = float(os.environ.get("BENCH_SCALE", "1"))
ROLLS = max(4, int(200 * SCALE))
PROOFS = max(4, int(200 * SCALE))
ENTROPY = bytes(range(0xA0, 0xB0))
POSTGRES = os.environ.get(
    "BOARDGAMMON_BENCH_POSTGRES", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)


def _match_with_chains(session, rolls: int) -> tuple[str, list[list[bytes]]]:
    """A new match whose two seats registered hash chains of ``rolls`` links past the anchor:
    (match_id, [seat 0's chain, seat 1's chain]), each chain [x_0 (anchor), x_1, …]."""
    match_id = new_match_id()
    chains = []
    for seat in (0, 1):
        links = [secrets.token_bytes(32)]
        for _ in range(rolls):
            links.append(hashlib.sha256(links[-1]).digest())
        chains.append(links[::-1])
        record_v2.register_anchor(session, match_id, seat, chains[seat][0])
    return match_id, chains


def _revealed_roll(session, match_id: str, chains: list[list[bytes]], k: int,
                   withhold: bool = False, kind: str = "normal"):
    """Roll ``k`` of the match (seats alternating): committed, requested with :data:`ENTROPY`,
    then revealed with the opponent's next link, or without it (``absent``) where ``withhold``."""
    seat = k % 2
    roll = record_v2.commit_roll(session, match_id, seat, kind)
    record_v2.request_roll(session, roll.roll_id, roll.commitment, ENTROPY)
    if withhold:
        return record_v2.reveal_without_opponent(session, roll.roll_id)
    return record_v2.contribute(session, roll.roll_id, chains[1 - seat][k // 2 + 1])


def _rolls_per_second(url: str) -> float:
    db = open_database(url)
    try:
        match_id = new_match_id()
        with db.sessions() as session:
            start = time.perf_counter()
            for k in range(ROLLS):
                roll = record.commit_roll(session, match_id, k % 2)
                record.reveal_roll(session, roll.roll_id, roll.commitment, ENTROPY)
                record.mark_played(session, roll.roll_id)
            return ROLLS / (time.perf_counter() - start)
    finally:
        db.dispose()


@contextmanager
def _without_log() -> Iterator[None]:
    """The v1 record alone: the log's one hook does nothing."""
    append = dice_log.append
    dice_log.append = lambda *args, **kwargs: 0  # type: ignore[assignment]
    try:
        yield
    finally:
        dice_log.append = append  # type: ignore[assignment]


def _per_call_ms(call: Callable[[int], object], count: int) -> float:
    start = time.perf_counter()
    for k in range(count):
        call(k)
    return (time.perf_counter() - start) / count * 1000


def _proof_times(url: str) -> tuple[int, float, float, float]:
    """The log's size, and ms per inclusion proof, consistency proof and one roll's read."""
    db = open_database(url)
    try:
        with db.sessions() as session:
            size = dice_log.size(session)
            roll_ids = [r.roll_id for r in record.match_rolls(session, _some_match(session))]
            inclusion = _per_call_ms(
                lambda k: dice_log.inclusion_proof(session, (k * 7919) % size, size), PROOFS
            )
            consistency = _per_call_ms(
                lambda k: dice_log.consistency_proof(session, 1 + (k * 7919) % size, size), PROOFS
            )
            read = _per_call_ms(
                lambda k: record.get_roll(session, roll_ids[k % len(roll_ids)]), PROOFS
            )
            return size, inclusion, consistency, read
    finally:
        db.dispose()


def _some_match(session) -> str:
    from sqlalchemy import select

    from boardgammon.server.tables import DiceRoll

    return session.execute(select(DiceRoll.match_id).limit(1)).scalar_one()


@contextmanager
def postgres_schema(prefix: str = "bench_log", indent: str = "") -> Iterator[str | None]:
    """A fresh schema on the local PostgreSQL (its URL), dropped afterwards; ``None`` (saying
    why, after ``indent``) if PostgreSQL cannot be reached."""
    try:
        import psycopg

        conninfo = POSTGRES.replace("postgresql+psycopg://", "postgresql://")
        schema = f"{prefix}_{secrets.token_hex(4)}"
        with psycopg.connect(conninfo, autocommit=True, connect_timeout=3) as conn:
            conn.execute(f"CREATE SCHEMA {schema}")
    except Exception as exc:  # noqa: BLE001 - any failure to reach it skips PostgreSQL
        print(f"{indent}PostgreSQL skipped: {exc}")
        yield None
        return
    try:
        yield f"{POSTGRES}?options=-csearch_path%3D{schema}"
    finally:
        with psycopg.connect(conninfo, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")


def _statements_per_v2_roll(url: str) -> float:
    """SQL statements sent per v2 roll (four changes, each its own transaction)."""
    db = open_database(url)
    sent = 0

    def count(*_args: object) -> None:
        nonlocal sent
        sent += 1

    try:
        with db.sessions() as session:
            match_id, chains = _match_with_chains(session, ROLLS)
            event.listen(db.engine, "before_cursor_execute", count)
            for k in range(ROLLS):
                roll = _revealed_roll(session, match_id, chains, k)
                record_v2.mark_played(session, roll.roll_id)
            return sent / ROLLS
    finally:
        event.remove(db.engine, "before_cursor_execute", count)
        db.dispose()


def _report(name: str, with_log: str, without: str) -> None:
    logged = _rolls_per_second(with_log)
    with _without_log():
        bare = _rolls_per_second(without)
    append_ms = (1000 / logged - 1000 / bare) / 3
    print(f"{name}: durable rolls with the log: {logged:,.0f}/s")
    print(f"  reference: the same rolls without the log (v1 record alone): {bare:,.0f}/s")
    print(
        f"  ratio with / without: {logged / bare:.3f}; the log's append: "
        f"{append_ms:.3f} ms per change (3 changes per roll)"
    )
    size, inclusion, consistency, read = _proof_times(with_log)
    print(
        f"  proofs in a log of {size} leaves: inclusion {inclusion:.3f} ms, "
        f"consistency {consistency:.3f} ms"
    )
    print(
        f"  reference: one roll read by its key: {read:.3f} ms; ratio inclusion / read: "
        f"{inclusion / read:.2f}"
    )
    statements = _statements_per_v2_roll(with_log)
    with _without_log():
        alone = _statements_per_v2_roll(without)
    print(
        f"  SQL statements per v2 roll with the log: {statements:.2f}; reference: without it "
        f"{alone:.2f}; the log's share: {(statements - alone) / 4:.2f} per change"
    )


MATCH_ROLLS = 60
KEY = dice_log.LogKey(Ed25519PrivateKey.generate())


def _bytes_per_roll(url: str, withheld: bool) -> tuple[float, float, float]:
    """Bytes a device fetches per roll of a 60-roll v2 match: (its proof, its proof with
    ``after``, the whole document). ``withheld``: seat 1's device never sends a link (every
    roll of seat 0 ``absent``, as for a correspondence opponent), so without ``after`` each
    of seat 0's proofs carries the record back to its start. With ``after`` the device asks
    for the entries after the newest one it checked (the last of the previous ``preceding``).
    Each roll is proven under a head signed after it (interval 0: what a device gets once
    the interval has passed)."""
    db = open_database(url)
    proofs = bounded = documents = 0
    after = -1
    try:
        with db.sessions() as session:
            match_id, chains = _match_with_chains(session, MATCH_ROLLS)
            for k in range(MATCH_ROLLS):
                roll = _revealed_roll(session, match_id, chains, k, withheld and k % 2 == 0)
                for since in (None, after):
                    window = record_v2.roll_window(session, match_id, roll.roll_id, since)
                    assert window is not None
                    entry, preceding = window
                    proof = dice_log.roll_proof(session, KEY, AUDIT_FORMAT_V2, match_id, entry,
                                                preceding, 0.0)
                    size = len(json.dumps(proof))
                    if since is None:
                        proofs += size
                    else:
                        bounded += size
                after = preceding[-1]["seq"] if preceding else after
                document = record_v2.audit_document(session, match_id)
                documents += len(json.dumps(dice_log.with_log(session, KEY, document)))
                record_v2.mark_played(session, roll.roll_id)
        return proofs / MATCH_ROLLS, bounded / MATCH_ROLLS, documents / MATCH_ROLLS
    finally:
        db.dispose()


def _proof_build_ms(url: str, rolls: int) -> tuple[float, float, float]:
    """Server time to build one roll's proof entries, ms, for the last roll of a
    ``rolls``-roll match where seat 1's device never sends a link: (``roll_window`` as the
    endpoint does now, with ``after`` the roll before it, a device's steady state; the same
    from the start, ``after=-1``, a page's first roll; the whole audit document and the
    roll's entry in it, as it did before for every roll)."""
    db = open_database(url)
    try:
        with db.sessions() as session:
            match_id, chains = _match_with_chains(session, rolls)
            for k in range(rolls):
                roll = _revealed_roll(session, match_id, chains, k, withhold=k % 2 == 0)
                record_v2.mark_played(session, roll.roll_id)
            runs = 20

            def timed(build: Callable[[], object]) -> float:
                start = time.perf_counter()
                for _ in range(runs):
                    build()
                return (time.perf_counter() - start) * 1000 / runs

            last = rolls - 1
            window = timed(lambda: record_v2.roll_window(session, match_id, roll.roll_id,
                                                         last - 1))
            start = timed(lambda: record_v2.roll_window(session, match_id, roll.roll_id, -1))
            whole = timed(lambda: next(
                r for r in record_v2.audit_document(session, match_id)["rolls"]
                if r["roll_id"] == roll.roll_id))
            return window, start, whole
    finally:
        db.dispose()


def _heads_per_second(url: str, interval_s: float, seconds: float) -> tuple[float, float]:
    """(heads signed, roll changes) per second while, for ``seconds``, every roll change (a
    roll committed, then voided: two leaves) is followed by four devices asking for a proof."""
    db = open_database(url)
    try:
        with db.sessions() as session:
            match_id = new_match_id()
            heads_before = session.query(LogHead).count()
            changes = 0
            start = time.perf_counter()
            while time.perf_counter() - start < seconds:
                roll = record.commit_roll(session, match_id, changes % 2)
                record.void_roll(session, roll.roll_id)
                changes += 1
                for _ in range(4):
                    dice_log.signed_head(session, KEY, interval_s=interval_s)
            took = time.perf_counter() - start
            signed = session.query(LogHead).count() - heads_before
            return signed / took, changes / took
    finally:
        db.dispose()


def _report_client(folder: str) -> None:
    for withheld, match in ((False, "both devices sending links"),
                            (True, "one device never sending a link")):
        proof, bounded, document = _bytes_per_roll(
            f"sqlite:///{folder}/client-{int(withheld)}.sqlite3", withheld)
        print(
            f"bytes a device fetches per roll over a {MATCH_ROLLS}-roll v2 match, {match}: "
            f"its proof {proof:,.0f}, with ?after= {bounded:,.0f}; reference: the whole audit "
            f"document {document:,.0f} (ratio {document / bounded:.1f}); per match "
            f"{bounded * MATCH_ROLLS / 1e6:.2f} MB with after, {proof * MATCH_ROLLS / 1e6:.2f} "
            f"MB without, {document * MATCH_ROLLS / 1e6:.2f} MB whole"
        )
    rolls = max(60, int(600 * SCALE))
    window, start, whole = _proof_build_ms(f"sqlite:///{folder}/build.sqlite3", rolls)
    print(
        f"a roll's proof entries built on the server, the last of a {rolls}-roll match whose "
        f"opponent never sent a link: with ?after= the roll before {window:.2f} ms, from the "
        f"start (after=-1, all {rolls - 1} entries) {start:.2f} ms; reference: the whole audit "
        f"document {whole:.2f} ms (ratio {whole / window:.1f})"
    )
    seconds = max(2.0, 20 * SCALE)
    url = f"sqlite:///{folder}/heads.sqlite3"
    bounded, changes = _heads_per_second(url, 1.0, seconds)
    unbounded, reference_changes = _heads_per_second(url, 0.0, seconds)
    print(
        f"heads signed per second under load (four proof requests per roll change): "
        f"{bounded:.2f} with the 1 s interval ({changes:,.0f} changes/s); reference: interval "
        f"0 {unbounded:.1f} ({reference_changes:,.0f} changes/s)"
    )


def _report_page(folder: str) -> None:
    from fastapi.testclient import TestClient

    from boardgammon.server.app import create_app
    from boardgammon.server.services import services
    from boardgammon.server.settings import Settings

    settings = Settings(database_url=f"sqlite:///{folder}/page.sqlite3",
                        log_key_path=f"{folder}/log-key.pem")
    with TestClient(create_app(settings)) as client:
        with services(client.app).db.sessions() as session:
            match_id, chains = _match_with_chains(session, MATCH_ROLLS)
            for k in range(MATCH_ROLLS):
                roll = _revealed_roll(session, match_id, chains, k,
                                      kind="opening" if k == 0 else "normal")
                record_v2.mark_played(session, roll.roll_id)
        page = client.get(f"/audit/{match_id}?lang=en").content
        document = client.get(f"/api/audit/{match_id}").content
    packed = len(gzip.compress(page))
    print(
        f"audit page of a {MATCH_ROLLS}-roll v2 match: {len(page):,} bytes, {packed:,} gzipped; "
        f"reference: its audit JSON {len(document):,} bytes (ratio page / JSON "
        f"{len(page) / len(document):.3f})"
    )


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="bench-log-") as folder:
        _report("SQLite", f"sqlite:///{folder}/log.sqlite3", f"sqlite:///{folder}/bare.sqlite3")
        _report_client(folder)
        _report_page(folder)
    with postgres_schema() as logged, postgres_schema() as bare:
        if logged is not None and bare is not None:
            _report("PostgreSQL", logged, bare)


if __name__ == "__main__":
    main()
