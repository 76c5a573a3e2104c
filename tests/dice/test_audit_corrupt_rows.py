"""The audit routes on a record corrupted in the database: a verdict for the bad row, never a 500;
and the state times the audit JSON shows (a void roll's ``voided_at``).

The audit page recomputes verdicts on every load to expose exactly this kind of tampering, so a
row whose stored text cannot be decoded must be reported as ``malformed`` like any other failure.
"""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text as sql
from sqlalchemy import update

from boardgammon.dice import new_match_id, verify
from boardgammon.server import dice_record as record
from boardgammon.server.app import create_app
from boardgammon.server.services import services
from boardgammon.server.settings import Settings
from boardgammon.server.tables import DiceRoll

ENTROPY = bytes(range(0xA0, 0xB0))


@pytest.fixture
def client(tmp_path):
    url = f"sqlite:///{tmp_path}/audit.sqlite3"
    with TestClient(create_app(Settings(database_url=url))) as started:
        yield started


def played_match(client: TestClient, rolls: int = 3) -> tuple[str, list[record.Roll]]:
    match_id, played = new_match_id(), []
    with services(client.app).db.sessions() as session:
        for i in range(rolls):
            roll = record.commit_roll(session, match_id, i % 2)
            record.reveal_roll(session, roll.roll_id, roll.commitment, ENTROPY)
            played.append(record.mark_played(session, roll.roll_id))
    return match_id, played


def corrupt(client: TestClient, roll_id: str, **values) -> None:
    with services(client.app).db.sessions() as session:
        session.execute(update(DiceRoll).where(DiceRoll.roll_id == roll_id).values(**values))
        session.commit()


@pytest.mark.parametrize(
    ("index", "values", "detail"),
    [
        (1, {"server_seed": "zz" * 32}, "non-hexadecimal"),
        (1, {"client_entropy": "zz" * 16}, "non-hexadecimal"),
        (0, {"client_entropy": "ab"}, "client_entropy must be 16 bytes of hex, got 1"),
        (0, {"die2": None}, "dice must be two integers, got [3, None]"),
    ],
    ids=["seed-not-hex", "entropy-not-hex", "first-roll-entropy-short", "first-roll-die-null"],
)
def test_a_row_that_cannot_be_decoded_is_malformed_not_a_server_error(
    client, index, values, detail
):
    # Before: bytes.fromhex on the stored text raised inside the route (JSON and page 500), and a
    # malformed first revealed roll broke the page's "Verify it yourself" program (page 500).
    match_id, rolls = played_match(client)
    if "die2" in values:
        detail = detail.replace("3", str(rolls[index].dice[0]))
    corrupt(client, rolls[index].roll_id, **values)
    answer = client.get(f"/api/audit/{match_id}")
    assert answer.status_code == 200
    body = answer.json()
    assert body["verified"] is False
    failure = body["failure"]
    assert (failure["index"], failure["roll_id"], failure["reason"]) == (
        index, rolls[index].roll_id, verify.MALFORMED
    )
    assert detail in failure["detail"]
    page = client.get(f"/audit/{match_id}")
    assert page.status_code == 200 and rolls[index].roll_id in page.text
    # The program is filled in with the first roll that can be read.
    usable = rolls[1] if index == 0 else rolls[0]
    assert f'roll_id = "{usable.roll_id}"' in page.text.replace("&#34;", '"')


@pytest.mark.parametrize("stored", ["feedface" * 8, "not hex at all"], ids=["hex", "not-hex"])
def test_the_stored_seed_of_a_pending_roll_never_reaches_the_audit(client, stored):
    # The audit now reads the stored text of each row: the seed must still stay out until the
    # roll is revealed, whatever the column holds.
    match_id, _ = played_match(client, rolls=1)
    with services(client.app).db.sessions() as session:
        pending = record.commit_roll(session, match_id, 1)
    corrupt(client, pending.roll_id, server_seed=stored)
    answer = client.get(f"/api/audit/{match_id}")
    entry = answer.json()["rolls"][-1]
    assert (entry["server_seed"], entry["verdict"]) == (None, "pending")
    for text in (answer.text, client.get(f"/audit/{match_id}").text):
        assert stored not in text


def test_a_void_roll_records_when_it_was_voided(client):
    # void_roll set row.void_at (no such column) instead of voided_at: the time was never saved.
    match_id, _ = played_match(client, rolls=1)
    with services(client.app).db.sessions() as session:
        pending = record.commit_roll(session, match_id, 1)
        voided = record.void_roll(session, pending.roll_id)
    assert voided.voided_at is not None and voided.played_at is None
    with services(client.app).db.sessions() as session:
        stored = session.get(DiceRoll, pending.roll_id)
        assert stored.voided_at == voided.voided_at
    entry = client.get(f"/api/audit/{match_id}").json()["rolls"][-1]
    assert (entry["state"], entry["voided_at"]) == ("void", voided.voided_at.isoformat())


def test_a_time_that_cannot_be_read_is_shown_as_stored_not_a_server_error(client):
    # SQLAlchemy's SQLite DateTime reader raised ValueError inside the routes (JSON and page
    # 500). v1 does not hash its times: the verdicts stand, the text is shown as stored.
    match_id, rolls = played_match(client)
    garbage = "2026-12-03 07:57:23000001"
    with services(client.app).db.sessions() as session:
        session.execute(sql("UPDATE dice_rolls SET played_at = :t WHERE roll_id = :r"),
                        {"t": garbage, "r": rolls[1].roll_id})
        session.commit()
    answer = client.get(f"/api/audit/{match_id}")
    assert answer.status_code == 200
    assert answer.json()["rolls"][1]["played_at"] == garbage
    assert client.get(f"/audit/{match_id}").status_code == 200


def test_a_roll_left_open_before_the_last_is_named_not_a_server_error(client):
    """A record whose middle roll is still revealed (never played) with a roll after it fails
    as ``left unresolved`` (v1 hashes no state, so the chain holds), on the page too, in each
    language (the page looked the verdict's text up and had none: a 500)."""
    match_id, rolls = played_match(client)
    corrupt(client, rolls[1].roll_id, state="revealed", played_at=None)
    body = client.get(f"/api/audit/{match_id}").json()
    assert (body["failure"]["index"], body["failure"]["reason"]) == (1, verify.LEFT_UNRESOLVED)
    assert f"yet roll {rolls[2].roll_id} (#2) follows it" in body["failure"]["detail"]
    assert [r["verdict"] for r in body["rolls"]] == ["ok", verify.LEFT_UNRESOLVED, "ok"]
    for lang, words in (("en", "left open while the match rolled again"),
                        ("de", "offen gelassen, während das Match neu würfelte"),
                        ("ja", "未解決のまま次のロールが振られた")):
        page = client.get(f"/audit/{match_id}?lang={lang}")
        assert page.status_code == 200 and words in page.text
