"""A v2 roll whose stored time cannot be read (issue #25): the audit JSON, the audit page and
the roll's proof give the row's verdict ``malformed``, never a 500 (SQLAlchemy's SQLite
DateTime reader raised ``ValueError`` on such text inside the routes)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from boardgammon.dice import verify
from boardgammon.server.app import create_app
from boardgammon.server.services import services
from boardgammon.server.settings import Settings
from tests.helpers.dice_v2 import Device, play_match

GARBAGE = "2026-12-03 07:57:23000001"


@pytest.fixture
def client(sqlite_url, tmp_path, monkeypatch) -> Iterator[TestClient]:
    monkeypatch.chdir(tmp_path)  # the log key's default place
    with TestClient(create_app(Settings(database_url=sqlite_url))) as c:
        yield c


@pytest.mark.parametrize("column", ["played_at", "requested_at"])
def test_a_time_that_cannot_be_read_is_malformed_not_a_server_error(client, column):
    db = services(client.app).db
    match_id = play_match(db, 3, (Device(), Device()))
    rolls = client.get(f"/api/audit/{match_id}").json()["rolls"]
    bad = rolls[1]["roll_id"]
    with db.sessions() as s:
        s.execute(text(f"UPDATE dice_rolls_v2 SET {column} = :t WHERE roll_id = :r"),
                  {"t": GARBAGE, "r": bad})
        s.commit()
    answer = client.get(f"/api/audit/{match_id}")
    assert answer.status_code == 200
    body = answer.json()
    assert body["verified"] is False
    assert (body["failure"]["roll_id"], body["failure"]["reason"]) == (bad, verify.MALFORMED)
    assert body["rolls"][1][column] == GARBAGE  # shown as stored
    assert body["rolls"][0]["verdict"] == "ok"
    page = client.get(f"/audit/{match_id}")
    assert page.status_code == 200 and bad in page.text
    proof = client.get(f"/api/audit/{match_id}/rolls/{bad}/proof")
    assert proof.status_code == 200
    assert proof.json()["roll"]["verdict"] == verify.MALFORMED
    program = client.get(f"/api/audit/{match_id}/rolls/{bad}/verify.py")
    assert program.status_code == 404  # a malformed roll has no program, as documented
    later = rolls[2]["roll_id"]  # its proof carries the bad entry before it
    assert client.get(f"/api/audit/{match_id}/rolls/{later}/proof?after=-1").status_code == 200
