"""The dice record service on SQLite and PostgreSQL: lifecycle, durability, the nonce counter,
idempotent and concurrent reveals, the seed's unique constraint, and tampering in the database
caught by the recomputed verdicts."""

from __future__ import annotations

import hashlib
import logging
import threading
import traceback
from concurrent.futures import ThreadPoolExecutor

import pytest
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import delete, select, text, update
from sqlalchemy.exc import IntegrityError

from boardgammon.dice import new_match_id
from boardgammon.dice.verify import GENESIS, derive_dice, entry_hash
from boardgammon.server import dice_record as record
from boardgammon.server.db import MIGRATIONS, open_database
from boardgammon.server.tables import DiceRoll

ENTROPY = bytes(range(0xA0, 0xB0))


def stored_seed(db, roll_id: str) -> bytes:
    with db.sessions() as session:
        return bytes.fromhex(session.get(DiceRoll, roll_id).server_seed)


def play_roll(db, match_id: str, seat: int, entropy: bytes = ENTROPY):
    with db.sessions() as session:
        roll = record.commit_roll(session, match_id, seat)
        roll = record.reveal_roll(session, roll.roll_id, roll.commitment, entropy)
        return record.mark_played(session, roll.roll_id)


def test_commit_is_durable_and_keeps_the_seed_secret(database, database_url):
    match_id = new_match_id()
    with database.sessions() as session:
        roll = record.commit_roll(session, match_id, 0)
    assert (roll.state, roll.seq, roll.seat, roll.prev_hash) == ("committed", 0, 0, GENESIS)
    assert roll.server_seed is None and roll.dice is None and roll.client_entropy is None
    assert roll.to_json()["server_seed"] is None
    # Another engine (another process, in effect) sees the roll as soon as commit_roll returned.
    other = open_database(database_url)
    try:
        seed = stored_seed(other, roll.roll_id)
    finally:
        other.dispose()
    assert hashlib.sha256(seed).hexdigest() == roll.commitment
    assert roll.entry_hash == entry_hash(
        GENESIS, match_id, roll.roll_id, roll.nonce, 0, roll.commitment, None, None, None, None
    )


def test_full_lifecycle_and_chain(database):
    match_id = new_match_id()
    first = play_roll(database, match_id, 0)
    assert first.state == "played" and first.played_at >= first.revealed_at >= first.committed_at
    seed = stored_seed(database, first.roll_id)
    assert first.server_seed == seed
    assert first.dice == derive_dice(seed, match_id, first.roll_id, first.nonce, ENTROPY)
    assert first.entropy_source == "client" and first.client_entropy == ENTROPY
    with database.sessions() as session:
        second = record.commit_roll(session, match_id, 1)
        assert second.prev_hash == first.entry_hash and second.seq == 1
        assert record.chain_head(session, match_id) == second.entry_hash
        assert record.current_roll(session, match_id) == second
        voided = record.void_roll(session, second.roll_id)
        assert voided.state == "void" and voided.server_seed is None
        assert voided.entry_hash == second.entry_hash  # nothing revealed, nothing to hash anew
        third = record.commit_roll(session, match_id, 1)
        assert third.prev_hash == second.entry_hash
        assert [r.roll_id for r in record.match_rolls(session, match_id)] == [
            first.roll_id, second.roll_id, third.roll_id
        ]
        assert record.chain_head(session, new_match_id()) == GENESIS


def test_nonce_is_server_wide_and_rises(database):
    nonces = []
    for _ in range(3):
        for match_id in (new_match_id(), new_match_id()):
            with database.sessions() as session:
                nonces.append(record.commit_roll(session, match_id, 0).nonce)
    assert nonces == sorted(nonces) and len(set(nonces)) == 6
    assert nonces[0] == 0  # the counter starts at 0 on a fresh database


def test_no_new_roll_while_one_is_pending_or_unplayed(database):
    match_id = new_match_id()
    with database.sessions() as session:
        roll = record.commit_roll(session, match_id, 0)
        with pytest.raises(record.RollPending, match="still pending"):
            record.commit_roll(session, match_id, 1)
        record.reveal_roll(session, roll.roll_id, roll.commitment, ENTROPY)
        with pytest.raises(record.WrongRollState, match="revealed but not played"):
            record.commit_roll(session, match_id, 1)
        with pytest.raises(record.WrongRollState, match="only a committed roll can become void"):
            record.void_roll(session, roll.roll_id)
        record.mark_played(session, roll.roll_id)
        with pytest.raises(record.WrongRollState, match="already played"):
            record.mark_played(session, roll.roll_id)
        assert len(record.match_rolls(session, match_id)) == 1
        assert record.commit_roll(session, match_id, 1).seq == 1


def test_refusals_change_nothing(database):
    match_id = new_match_id()
    with database.sessions() as session:
        roll = record.commit_roll(session, match_id, 0)
        with pytest.raises(record.BadEntropy, match="16 bytes, got 15"):
            record.reveal_roll(session, roll.roll_id, roll.commitment, ENTROPY[:15])
        with pytest.raises(record.BadEntropy):
            record.reveal_roll(session, roll.roll_id, roll.commitment, ENTROPY.hex())
        with pytest.raises(record.RollNotFound):
            record.reveal_roll(session, "rol_unknown", roll.commitment, ENTROPY)
        with pytest.raises(record.WrongRollState, match="only a revealed roll can become played"):
            record.mark_played(session, roll.roll_id)
        with pytest.raises(record.InvalidRollRequest, match="seat must be 0 or 1"):
            record.commit_roll(session, new_match_id(), 2)
        with pytest.raises(record.InvalidRollRequest, match="not a match ID"):
            record.commit_roll(session, "match 1", 0)
        assert record.get_roll(session, roll.roll_id) == roll


def test_commitment_mismatch_is_refused_and_logged(database, caplog):
    match_id = new_match_id()
    with database.sessions() as session:
        roll = record.commit_roll(session, match_id, 0)
        wrong = "f" * 64
        with caplog.at_level(logging.WARNING, logger="boardgammon.dice"):
            with pytest.raises(record.CommitmentMismatch) as refused:
                record.reveal_roll(session, roll.roll_id, wrong, ENTROPY)
        assert refused.value.code == "commitment_mismatch"
        assert roll.roll_id in str(refused.value) and roll.commitment in str(refused.value)
        warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
        assert any("refused reveal" in m and roll.roll_id in m and wrong in m for m in warnings)
        assert record.get_roll(session, roll.roll_id).state == "committed"
        # The right commitment still reveals it afterwards.
        assert record.reveal_roll(session, roll.roll_id, roll.commitment, ENTROPY).dice


def test_reveal_is_idempotent(database):
    match_id = new_match_id()
    with database.sessions() as session:
        roll = record.commit_roll(session, match_id, 0)
        first = record.reveal_roll(session, roll.roll_id, roll.commitment, ENTROPY)
        again = record.reveal_roll(session, roll.roll_id, roll.commitment, bytes(16))
        assert again == first and again.client_entropy == ENTROPY
        assert record.auto_reveal_roll(session, roll.roll_id) == first
        with pytest.raises(record.CommitmentMismatch):
            record.reveal_roll(session, roll.roll_id, "0" * 64, ENTROPY)


def test_auto_reveal_marks_server_entropy(database):
    match_id = new_match_id()
    with database.sessions() as session:
        roll = record.commit_roll(session, match_id, 1)
        revealed = record.auto_reveal_roll(session, roll.roll_id)
    assert revealed.entropy_source == "server" and len(revealed.client_entropy) == 16
    assert revealed.dice == derive_dice(
        revealed.server_seed, match_id, roll.roll_id, roll.nonce, revealed.client_entropy
    )


def test_void_roll_can_never_be_revealed(database):
    with database.sessions() as session:
        roll = record.commit_roll(session, new_match_id(), 0)
        record.void_roll(session, roll.roll_id)
        with pytest.raises(record.WrongRollState, match="void and can no longer be revealed"):
            record.reveal_roll(session, roll.roll_id, roll.commitment, ENTROPY)
        with pytest.raises(record.WrongRollState, match="already void"):
            record.void_roll(session, roll.roll_id)


def test_concurrent_reveals_produce_one_roll(database):
    match_id = new_match_id()
    with database.sessions() as session:
        roll = record.commit_roll(session, match_id, 0)
    workers = 8
    barrier = threading.Barrier(workers)

    def reveal(k: int):
        entropy = hashlib.sha256(b"device %d" % k).digest()[:16]
        with database.sessions() as session:
            barrier.wait()
            return record.reveal_roll(session, roll.roll_id, roll.commitment, entropy)

    with ThreadPoolExecutor(workers) as pool:
        results = list(pool.map(reveal, range(workers)))
    assert len(set(results)) == 1
    winner = results[0]
    with database.sessions() as session:
        row = session.get(DiceRoll, roll.roll_id)
        assert (row.client_entropy, row.die1, row.die2) == (
            winner.client_entropy.hex(), *winner.dice
        )
    assert winner.dice == derive_dice(
        winner.server_seed, match_id, roll.roll_id, roll.nonce, winner.client_entropy
    )


def test_concurrent_commits_in_one_match_start_one_roll(database):
    match_id = new_match_id()
    workers = 6
    barrier = threading.Barrier(workers)

    def commit(_):
        with database.sessions() as session:
            barrier.wait()
            try:
                return record.commit_roll(session, match_id, 0)
            except record.RollPending as refused:
                return refused

    with ThreadPoolExecutor(workers) as pool:
        results = list(pool.map(commit, range(workers)))
    rolls = [r for r in results if isinstance(r, record.Roll)]
    assert len(rolls) == 1 and rolls[0].seq == 0
    assert all(isinstance(r, record.RollPending) for r in results if r is not rolls[0])
    with database.sessions() as session:
        assert len(record.match_rolls(session, match_id)) == 1


def test_concurrent_commits_across_matches_get_distinct_nonces(database):
    def commit(_):
        with database.sessions() as session:
            return record.commit_roll(session, new_match_id(), 0).nonce

    with ThreadPoolExecutor(6) as pool:
        nonces = list(pool.map(commit, range(24)))
    assert len(set(nonces)) == 24


def test_server_seed_unique_constraint(database):
    with database.sessions() as session:
        roll = record.commit_roll(session, new_match_id(), 0)
        original = session.get(DiceRoll, roll.roll_id)
        clone = DiceRoll(
            **{c.key: getattr(original, c.key) for c in DiceRoll.__table__.columns}
            | {"roll_id": "rol_clone", "match_id": new_match_id(), "nonce": 10**9,
               "commitment": "0" * 64}
        )
        session.add(clone)
        with pytest.raises(IntegrityError) as caught:
            session.flush()
        session.rollback()
        # The constraint on the seed itself refused it (the commitment was made unique too).
        assert "server_seed" in str(caught.value)


def test_seed_collision_is_retried_then_refused_without_leaking(database, monkeypatch, caplog):
    fixed = bytes(range(32))
    real = record.secrets.token_bytes
    # Only seeds (32 bytes) repeat; IDs (15 bytes) stay random.
    monkeypatch.setattr(record.secrets, "token_bytes", lambda n: fixed if n == 32 else real(n))
    match_id = new_match_id()
    with database.sessions() as session:
        first = record.commit_roll(session, match_id, 0)
        with caplog.at_level(logging.DEBUG):
            with pytest.raises(record.RecordUnavailable) as refused:
                record.commit_roll(session, new_match_id(), 0)
        # PostgreSQL's unique violation quotes the duplicate value, so no database error may
        # escape or be chained: the whole traceback and every log line must be free of it.
        assert fixed.hex() not in "".join(traceback.format_exception(refused.value))
        assert fixed.hex() not in caplog.text
        assert len(session.execute(select(DiceRoll)).all()) == 1
        assert record.get_roll(session, first.roll_id) == first


def _tampered_verdicts(database, match_id, statement):
    with database.sessions() as session:
        session.execute(statement)
        session.commit()
        document = record.audit_document(session, match_id)
    return document["failure"], [r["verdict"] for r in document["rolls"]]


def _three_played_and_pending(database):
    match_id = new_match_id()
    rolls = [play_roll(database, match_id, k % 2) for k in range(3)]
    with database.sessions() as session:
        rolls.append(record.commit_roll(session, match_id, 1))
        document = record.audit_document(session, match_id)
    assert document["verified"] and document["failure"] is None
    assert [r["verdict"] for r in document["rolls"]] == ["ok", "ok", "ok", "pending"]
    assert document["chain_head"] == rolls[-1].entry_hash
    return match_id, rolls


def test_deleted_roll_in_the_database_breaks_the_chain(database):
    match_id, rolls = _three_played_and_pending(database)
    failure, verdicts = _tampered_verdicts(
        database, match_id, delete(DiceRoll).where(DiceRoll.roll_id == rolls[1].roll_id)
    )
    assert (failure["roll_id"], failure["reason"]) == (rolls[2].roll_id, "chain broken")
    assert verdicts == ["ok", "chain broken", "pending"]


def test_rewritten_dice_in_the_database_are_caught(database):
    match_id, rolls = _three_played_and_pending(database)
    d1, d2 = rolls[0].dice
    failure, _ = _tampered_verdicts(
        database, match_id,
        update(DiceRoll).where(DiceRoll.roll_id == rolls[0].roll_id).values(die1=d1 % 6 + 1),
    )
    assert (failure["roll_id"], failure["reason"]) == (rolls[0].roll_id, "dice mismatch")


def test_swapped_seed_in_the_database_is_caught(database):
    match_id, rolls = _three_played_and_pending(database)
    failure, _ = _tampered_verdicts(
        database, match_id,
        update(DiceRoll).where(DiceRoll.roll_id == rolls[2].roll_id).values(server_seed="ab" * 32),
    )
    assert (failure["roll_id"], failure["reason"]) == (rolls[2].roll_id, "commitment mismatch")


def test_reordered_rolls_in_the_database_are_caught(database):
    match_id, rolls = _three_played_and_pending(database)
    with database.sessions() as session:
        for roll, seq in ((rolls[0], 100), (rolls[1], 0), (rolls[0], 1)):
            session.execute(
                update(DiceRoll).where(DiceRoll.roll_id == roll.roll_id).values(seq=seq)
            )
        session.commit()
        document = record.audit_document(session, match_id)
    assert document["failure"]["reason"] == "chain broken"
    assert document["failure"]["roll_id"] == rolls[1].roll_id


def test_migrations_are_idempotent(database_url):
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    head = ScriptDirectory.from_config(config).get_current_head()
    for _ in range(2):
        db = open_database(database_url)
        with db.sessions() as session:
            version = session.execute(text("SELECT version_num FROM alembic_version")).scalar()
        db.dispose()
        assert version == head
