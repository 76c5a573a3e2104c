"""The witnesses' co-signatures cannot be buried (issue #25 review): ``POST /api/log/witness``
is rate limited per address (429 ``rate_limited`` with ``Retry-After``, nothing stored), and
``GET /api/log/witnesses`` filters by a witness's key and pages with ``before`` /
``before_key``, so a flood of junk keys neither hides an honest witness's co-signature from a
reader who asks for it nor from one who pages through them all; a repeat stores nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from boardgammon.dice.transparency import cosigned_bytes
from boardgammon.server.dice_log import LogKey
from tests.server.gameplay import Player, live_match, make_app, step


def grow(client: TestClient, steps: int) -> dict:
    """Play ``steps`` steps of a new match; the newest signed head after them."""
    players = {0: Player.register(client, f"ann{steps}"),
               1: Player.register(client, f"bob{steps}")}
    match_id = live_match(players[0], players[1])
    for _ in range(steps):
        step(players, match_id)
    r = client.get("/api/log/head")
    assert r.status_code == 200, r.text
    return r.json()


def cosign(client: TestClient, key: LogKey, head: dict):
    return client.post("/api/log/witness", json={
        "tree_size": head["tree_size"],
        "witness_key": key.public_key.hex(),
        "signature": key.sign(cosigned_bytes(head)).hex(),
    })


def junk_keys(folder: Path, count: int) -> list[LogKey]:
    return [LogKey.load_or_create(folder / f"junk-{i}.pem") for i in range(count)]


def test_a_flood_of_cosignatures_from_one_address_is_refused_and_stores_nothing(
    sqlite_url, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    app = make_app(sqlite_url, log_head_interval_s=0.0, witness_rate=0.01, witness_burst=3)
    with TestClient(app) as client:
        head = grow(client, 2)
        keys = junk_keys(tmp_path, 4)
        for key in keys[:3]:
            assert cosign(client, key, head).status_code == 201
        refused = cosign(client, keys[3], head)
        assert refused.status_code == 429, refused.text
        error = refused.json()["error"]
        assert error["code"] == "rate_limited"
        # One token at 0.01 per second: 100 s.
        assert error["message"] == "too many co-signatures from this address; try again in 100 s"
        assert refused.headers["Retry-After"] == "100"
        shown = client.get("/api/log/witnesses").json()
        assert sorted(s["witness_key"] for s in shown) == sorted(
            k.public_key.hex() for k in keys[:3])


def test_an_honest_witness_is_found_by_its_key_and_by_paging_under_a_flood(
    database_url, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    with TestClient(make_app(database_url, log_head_interval_s=0.0)) as client:
        honest = LogKey.load_or_create(tmp_path / "honest.pem")
        first = grow(client, 2)
        assert cosign(client, honest, first).status_code == 201
        newest = grow(client, 3)
        assert newest["tree_size"] > first["tree_size"]
        flood = junk_keys(tmp_path, 60)
        for key in flood:
            assert cosign(client, key, newest).status_code == 201
        # Repeats store nothing: still one row per (key, head).
        for _ in range(3):
            assert cosign(client, flood[0], newest).status_code == 201

        page = client.get("/api/log/witnesses").json()
        assert len(page) == 50
        assert honest.public_key.hex() not in {s["witness_key"] for s in page}  # buried

        mine = client.get(f"/api/log/witnesses?key={honest.public_key.hex().upper()}").json()
        assert [(s["tree_size"], s["witness_key"], s["head"]) for s in mine] == [
            (first["tree_size"], honest.public_key.hex(), first)]

        seen: list[tuple[int, str]] = []
        query = "limit=25"
        while True:
            rows = client.get(f"/api/log/witnesses?{query}").json()
            if not rows:
                break
            seen += [(s["tree_size"], s["witness_key"]) for s in rows]
            last = rows[-1]
            query = f"limit=25&before={last['tree_size']}&before_key={last['witness_key']}"
        expected = [(newest["tree_size"], k.public_key.hex()) for k in flood]
        expected.append((first["tree_size"], honest.public_key.hex()))
        assert seen == sorted(expected, reverse=True)  # every one once, in the listing's order

        below = client.get(f"/api/log/witnesses?before={newest['tree_size']}").json()
        assert [s["witness_key"] for s in below] == [honest.public_key.hex()]


@pytest.mark.parametrize(
    ("query", "problem"),
    [
        ("key=abc", "key"),
        (f"before_key={'ab' * 32}", "before_key pages from the row"),
        ("limit=0", "limit"),
        ("limit=501", "limit"),
        (f"before={2**63}", "before"),
    ],
)
def test_a_malformed_listing_request_is_refused(sqlite_url, tmp_path, monkeypatch, query,
                                                problem):
    monkeypatch.chdir(tmp_path)
    with TestClient(make_app(sqlite_url)) as client:
        r = client.get(f"/api/log/witnesses?{query}")
        assert r.status_code == 422, r.text
        assert r.json()["error"]["code"] == "invalid_request"
        assert problem in r.json()["error"]["message"]


def test_one_witness_is_listed_through_its_index_not_by_a_scan(sqlite_url):
    """Migration 0021: SQLite's plan for ``?key=`` reads the index on (witness key, tree size),
    which also gives the newest-first order; going down and up again keeps it."""
    import sqlalchemy as sa
    from alembic import command
    from alembic.config import Config

    from boardgammon.server.db import MIGRATIONS, open_database
    from boardgammon.server.dice_log import cosignatures

    db = open_database(sqlite_url)
    try:
        with db.sessions() as s:
            statements: list[tuple[str, tuple]] = []
            sa.event.listen(db.engine, "before_cursor_execute",
                            lambda *a: statements.append((a[2], a[3])))
            cosignatures(s, key="ab" * 32)
            statement, parameters = statements[-1]
            plan = s.connection().exec_driver_sql("EXPLAIN QUERY PLAN " + statement,
                                                  parameters).all()
        assert any("ix_log_cosignatures_witness" in str(row) for row in plan), plan
        assert not any("SCAN log_cosignatures" in str(row) for row in plan), plan
        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        with db.engine.begin() as connection:
            config.attributes["connection"] = connection
            command.downgrade(config, "0020_first_roll_wait")
        assert "ix_log_cosignatures_witness" not in {
            i["name"] for i in sa.inspect(db.engine).get_indexes("log_cosignatures")}
        with db.engine.begin() as connection:
            config.attributes["connection"] = connection
            command.upgrade(config, "head")
        assert "ix_log_cosignatures_witness" in {
            i["name"] for i in sa.inspect(db.engine).get_indexes("log_cosignatures")}
    finally:
        db.dispose()
