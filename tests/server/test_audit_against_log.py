"""The server's own verdict reads the public log it holds (issue #25: "the tampered server's
page, JSON and chain head all said intact"): a roll rewritten in the database and its chain
re-hashed, a roll relabelled, or the match's last roll deleted, all pass the chain check, and
the audit document said ``verified`` for them while the roll's leaves said otherwise. Now
the document's ``verified`` is false with ``log mismatch``, and the page says so."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import delete, update

from boardgammon.dice.verify import LOG_MISMATCH, entry_hash_v2, verify_document
from boardgammon.server import dice_record_v2 as v2
from boardgammon.server.services import services
from boardgammon.server.tables import DiceRollV2
from tests.helpers.dice_v2 import Device, play_match
from tests.server.test_audit_pages import client_for  # noqa: F401 (the fixture)
from tests.server.test_dice_v2_anchors import audit, whole_log


def rewrite(db, match_id: str, index: int, **fields) -> None:
    """Change the fields of roll ``index`` in the database (JSON values: times as the audit
    entry writes them) and re-hash the chain from it on, as a forger with the database would."""
    with db.sessions() as s:
        rolls = v2.audit_document(s, match_id)["rolls"]
        rolls[index].update(fields)
        columns = {}
        for key, value in fields.items():
            if key.endswith("_at") and value is not None:
                value = datetime.strptime(value, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
            columns[key] = value
        prev = rolls[index - 1]["entry_hash"] if index else "0" * 64
        for n, entry in enumerate(rolls[index:]):
            entry["prev_hash"] = prev
            prev = entry["entry_hash"] = entry_hash_v2(match_id, entry)
            s.execute(update(DiceRollV2).where(DiceRollV2.roll_id == entry["roll_id"]).values(
                prev_hash=entry["prev_hash"], entry_hash=entry["entry_hash"],
                **(columns if n == 0 else {})))
        s.commit()


def failure(db, match_id: str) -> tuple[bool, dict | None]:
    document = audit(db, match_id)
    return document["verified"], document["failure"]


def test_an_honest_match_verifies_against_its_log(database):
    match_id = play_match(database, 6, (Device(), Device()))
    assert failure(database, match_id) == (True, None)


def test_a_rewritten_time_with_its_chain_rehashed_fails_against_the_log(database):
    match_id = play_match(database, 6, (Device(), Device()))
    revealed = audit(database, match_id)["rolls"][2]["revealed_at"]
    rewrite(database, match_id, 2, played_at=revealed)
    verified, failed = failure(database, match_id)
    assert not verified
    assert (failed["index"], failed["reason"]) == (2, LOG_MISMATCH)
    # Its leaves were written at the times the record held then.
    assert "the record's played_at is" in failed["detail"]
    assert audit(database, match_id)["rolls"][2]["verdict"] == LOG_MISMATCH


def test_a_relabelled_last_roll_fails_against_the_log(database):
    match_id = play_match(database, 6, (Device(), Device()))
    rewrite(database, match_id, 5, state="revealed", played_at=None)
    verified, failed = failure(database, match_id)
    assert not verified and (failed["index"], failed["reason"]) == (5, LOG_MISMATCH)


def test_a_deleted_last_roll_fails_against_the_log(database):
    match_id = play_match(database, 6, (Device(), Device()))
    last = audit(database, match_id)["rolls"][-1]["roll_id"]
    with database.sessions() as s:
        s.execute(delete(DiceRollV2).where(DiceRollV2.roll_id == last))
        s.commit()
    verified, failed = failure(database, match_id)
    assert not verified
    assert failed["reason"] == LOG_MISMATCH and failed["roll_id"] == last
    assert "not in the record" in failed["detail"]


def test_the_page_and_json_of_a_rewritten_record_say_so(client_for, database_url):  # noqa: F811
    client = client_for(database_url)
    database = services(client.app).db
    match_id = play_match(database, 4, (Device(), Device()))
    assert 'class="ok" id="summary"' in client.get(f"/audit/{match_id}?lang=de").text
    rewrite(database, match_id, 3, state="revealed", played_at=None)
    document = client.get(f"/api/audit/{match_id}").json()
    assert not document["verified"] and document["failure"]["reason"] == LOG_MISMATCH
    page = client.get(f"/audit/{match_id}?lang=de").text
    assert 'class="fail" id="summary"' in page
    assert "stimmt nicht mit dem öffentlichen Protokoll überein" in page


def test_verify_py_with_the_log_catches_a_rewritten_roll(database):
    # verify.py --log reads every leaf up to the head: a roll its last leaf contradicts fails
    # there too, not only in transparency.py (it said OK before).
    match_id = play_match(database, 6, (Device(), Device()))
    revealed = audit(database, match_id)["rolls"][2]["revealed_at"]
    rewrite(database, match_id, 2, played_at=revealed)
    document = audit(database, match_id)
    chain_only = {k: v for k, v in document.items() if k != "log"}
    chain_only["rolls"] = [{k: v for k, v in r.items() if k != "log"} for r in document["rolls"]]
    assert verify_document(chain_only).ok  # the chain alone cannot tell
    # The leaves the document lists for the roll can (as the document's word).
    assert verify_document(document).failure.verdict == LOG_MISMATCH
    report = verify_document(document, log_leaves=whole_log(database, document))
    assert not report.ok
    assert (report.failure.index, report.failure.verdict) == (2, LOG_MISMATCH)


def test_verify_py_with_the_log_catches_a_deleted_last_roll(database):
    match_id = play_match(database, 6, (Device(), Device()))
    last = audit(database, match_id)["rolls"][-1]["roll_id"]
    with database.sessions() as s:
        s.execute(delete(DiceRollV2).where(DiceRollV2.roll_id == last))
        s.commit()
    document = audit(database, match_id)
    report = verify_document(document, log_leaves=whole_log(database, document))
    assert not report.ok and report.failure.verdict == LOG_MISMATCH
    assert f"of roll {last}, seq 5) is not in the record" in report.failure.detail
