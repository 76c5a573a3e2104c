"""A v2 row whose hex column is not hex (a row changed by hand, or corrupt): the audit JSON,
the audit page and the roll's proof give the row's verdict ``malformed``, never a 500
(``RollV2.from_row`` decoded every hex column with ``bytes.fromhex`` inside the routes); the
stored seed of a roll not yet revealed still never reaches the audit."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from boardgammon.dice import verify
from boardgammon.server import dice_record_v2 as v2
from boardgammon.server.app import create_app
from boardgammon.server.services import services
from boardgammon.server.settings import Settings
from tests.helpers.dice_v2 import Device, play_match


@pytest.fixture
def client(sqlite_url, tmp_path, monkeypatch) -> Iterator[TestClient]:
    monkeypatch.chdir(tmp_path)  # the log key's default place
    with TestClient(create_app(Settings(database_url=sqlite_url))) as c:
        yield c


def corrupt(client: TestClient, roll_id: str, column: str, value: str) -> None:
    with services(client.app).db.sessions() as s:
        s.execute(text(f"UPDATE dice_rolls_v2 SET {column} = :v WHERE roll_id = :r"),
                  {"v": value, "r": roll_id})
        s.commit()


@pytest.mark.parametrize(
    ("column", "value", "detail"),
    [
        ("server_seed", "zz" * 32, "non-hexadecimal"),
        ("roller_entropy", "zz" * 16, "non-hexadecimal"),
        ("opponent_entropy", "not hex at all", "non-hexadecimal"),
        ("opponent_prev_link", "q" * 64, "non-hexadecimal"),
        ("server_seed", "abc", "non-hexadecimal"),
        ("roller_entropy", "ab", "roller_entropy must be 16 bytes of hex, got 1"),
    ],
    ids=["seed", "roller-entropy", "opponent-link", "prev-link", "seed-odd", "entropy-short"],
)
def test_a_hex_column_that_is_not_hex_is_malformed_not_a_server_error(
    client, column, value, detail
):
    db = services(client.app).db
    match_id = play_match(db, 3, (Device(), Device()))
    rolls = client.get(f"/api/audit/{match_id}").json()["rolls"]
    bad = rolls[1]["roll_id"]
    corrupt(client, bad, column, value)
    answer = client.get(f"/api/audit/{match_id}")
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["verified"] is False
    assert (body["failure"]["roll_id"], body["failure"]["reason"]) == (bad, verify.MALFORMED)
    assert detail in body["failure"]["detail"]
    assert body["rolls"][1][column] == value  # shown as stored
    assert [r["verdict"] for r in body["rolls"][:2]] == ["ok", verify.MALFORMED]
    page = client.get(f"/audit/{match_id}")
    assert page.status_code == 200 and bad in page.text
    proof = client.get(f"/api/audit/{match_id}/rolls/{bad}/proof")
    assert proof.status_code == 200, proof.text
    assert proof.json()["roll"]["verdict"] == verify.MALFORMED
    assert proof.json()["roll"][column] == value
    program = client.get(f"/api/audit/{match_id}/rolls/{bad}/verify.py")
    assert program.status_code == 404  # a malformed roll has no program, as documented
    later = rolls[2]["roll_id"]  # its proof carries the bad entry before it
    carried = client.get(f"/api/audit/{match_id}/rolls/{later}/proof?after=-1")
    assert carried.status_code == 200, carried.text
    assert [e["verdict"] for e in carried.json()["preceding"]] == ["ok", verify.MALFORMED]


@pytest.mark.parametrize("stored", ["feedface" * 8, "not hex at all"], ids=["hex", "not-hex"])
def test_the_stored_seed_of_a_pending_roll_never_reaches_the_audit(client, stored):
    db = services(client.app).db
    match_id = play_match(db, 1, (Device(), Device()))
    with db.sessions() as s:
        pending = v2.commit_roll(s, match_id, 1, "normal")
    corrupt(client, pending.roll_id, "server_seed", stored)
    answer = client.get(f"/api/audit/{match_id}")
    assert answer.status_code == 200, answer.text
    entry = answer.json()["rolls"][-1]
    assert (entry["server_seed"], entry["verdict"]) == (None, "pending")
    proof = client.get(f"/api/audit/{match_id}/rolls/{pending.roll_id}/proof")
    for shown in (answer.text, client.get(f"/audit/{match_id}").text, proof.text):
        assert stored not in shown
