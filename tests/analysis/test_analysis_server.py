"""The server's analysis worker and ``GET /api/matches/{id}/analysis`` (SQLite and
PostgreSQL), with the deterministic evaluator so that the worker's result can be checked
against the library run on the same record."""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.exc import OperationalError

from boardgammon.analysis.analysis import analyse_match
from boardgammon.analysis.report import to_dict
from boardgammon.engine import Match
from boardgammon.server.services import services
from boardgammon.server.tables import MatchAnalysisRow
from tests.helpers.fake import PipEvaluator
from tests.server.gameplay import Player, live_match, make_app, play_out


@pytest.fixture(params=["sqlite", "postgres"])
def url(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path}/boardgammon.sqlite3"
    return request.getfixturevalue("postgres_url")


# The server tests' PostgreSQL fixture (a schema of its own per test), loaded from its file.
_spec = importlib.util.spec_from_file_location(
    "server_conftest", Path(__file__).parents[1] / "server" / "conftest.py")
_server_conftest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_server_conftest)
postgres_url = _server_conftest.postgres_url


def _played_match(client: TestClient) -> tuple[Player, str]:
    """ann and bob registered on ``client`` and a 1-point live match between them played to its
    end (first legal plays): (ann, the match's ID)."""
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    match_id = live_match(ann, bob, length=1)
    play_out({0: ann, 1: bob}, match_id)
    return ann, match_id


def test_finished_match_is_analysed_by_the_worker(url):
    app = make_app(url)
    with TestClient(app) as client:
        ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
        match_id = live_match(ann, bob, length=1)
        r = ann.get(f"/api/matches/{match_id}/analysis")
        assert r.status_code == 409 and r.json()["error"]["code"] == "match_not_finished"
        assert ann.get("/api/matches/mat_nosuchmatch/analysis").status_code == 404
        play_out({0: ann, 1: bob}, match_id)
        assert ann.get(f"/api/matches/{match_id}/analysis").json() == {"status": "pending"}
        worker = services(app).analysis
        worker.evaluator = PipEvaluator()
        worker.deep_plies = None  # the first pass alone: the second has a test of its own
        assert worker.step() == match_id
        assert worker.step() is None  # nothing left to analyse
        body = ann.get(f"/api/matches/{match_id}/analysis").json()
        record = Match.from_dict(ann.get(f"/api/matches/{match_id}/export.json").json())
    expected = to_dict(analyse_match(record, PipEvaluator()), moves=True)
    assert body == {"status": "done", **expected, "deeper": None}  # no second pass here
    assert body["blunders"] == sum(p["skill"]["blunder"] for p in body["players"])
    checker = [d for d in body["moves"] if d["type"] == "checker"]
    assert len(checker) == sum(1 for a in record.record if a.kind == "play")
    assert all(d["position_id"] and d["play"] is not None for d in checker)


def test_an_analysis_of_an_older_version_is_made_again(url):
    """Rows record the analysis version that made them; after new matches, the worker takes
    the outdated ones (analyses stored before a fix or new weights), one claim each."""
    from sqlalchemy import select, update

    from boardgammon.analysis.analysis import ANALYSIS_VERSION
    from boardgammon.server.tables import MatchAnalysisRow

    app = make_app(url)
    with TestClient(app) as client:
        ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
        first = live_match(ann, bob, length=1)
        play_out({0: ann, 1: bob}, first)
        worker = services(app).analysis
        worker.evaluator = PipEvaluator()
        worker.deep_plies = None  # the first pass alone: the second has a test of its own
        assert worker.step() == first and worker.step() is None
        db = services(app).db
        with db.sessions() as s:
            row = s.get(MatchAnalysisRow, first)
            assert (row.status, row.version) == ("done", ANALYSIS_VERSION)
            done = row.result
            s.execute(update(MatchAnalysisRow).where(MatchAnalysisRow.match_id == first)
                      .values(version=ANALYSIS_VERSION - 1, result="{}"))
            s.commit()
        second = live_match(ann, bob, length=1)
        play_out({0: ann, 1: bob}, second)
        assert worker._claim() == second  # new matches first
        worker._analyse(second)
        assert worker._claim() == first  # then the outdated one
        assert ann.get(f"/api/matches/{first}/analysis").json() == {"status": "pending"}
        assert worker._claim() is None  # claimed once
        worker._analyse(first)
        assert worker.step() is None
        with db.sessions() as s:
            rows = s.scalars(select(MatchAnalysisRow)).all()
            assert {(r.match_id, r.status, r.version) for r in rows} == {
                (first, "done", ANALYSIS_VERSION), (second, "done", ANALYSIS_VERSION)}
            assert s.get(MatchAnalysisRow, first).result == done


def test_the_worker_analyses_at_0_ply_then_again_at_2_ply(url, monkeypatch):
    """Issue 27: 0-ply at once, then 2-ply replacing it when no match waits; the endpoint
    serves the 0-ply result meanwhile, and the row and the JSON say the depth."""
    from boardgammon.server.tables import MatchAnalysisRow

    monkeypatch.delenv("BOARDGAMMON_ANALYSIS_DEEP_PLIES", raising=False)
    app = make_app(url)
    with TestClient(app) as client:
        ann, match_id = _played_match(client)
        worker = services(app).analysis
        assert (worker.plies, worker.deep_plies) == (0, 2)  # the defaults
        worker.evaluator = evaluator = PipEvaluator()
        assert worker.step() == match_id
        assert set(evaluator.calls) == {0}
        shallow = ann.get(f"/api/matches/{match_id}/analysis").json()
        assert (shallow["status"], shallow["plies"], shallow["deeper"]) == ("done", 0, 2)
        assert shallow["judge"] == "PipEvaluator at 0-ply"
        # The deep pass claims the row once and leaves it done: the 0-ply result is served.
        assert worker._claim() is None
        assert worker._claim_deep() == match_id
        assert worker._claim_deep() is None
        assert ann.get(f"/api/matches/{match_id}/analysis").json() == shallow
        worker._deepen(match_id)
        assert 2 in evaluator.calls
        deep = ann.get(f"/api/matches/{match_id}/analysis").json()
        record = Match.from_dict(ann.get(f"/api/matches/{match_id}/export.json").json())
        assert worker.step() is None  # nothing left at any depth
        with services(app).db.sessions() as s:
            row = s.get(MatchAnalysisRow, match_id)
            assert (row.status, row.plies, row.claimed_t) == ("done", 2, 0.0)
    expected = to_dict(analyse_match(record, PipEvaluator(), 2), moves=True)
    assert deep == {"status": "done", **expected, "deeper": None}  # the last pass
    assert deep["plies"] == 2 and deep["judge"] == "PipEvaluator at 2-ply"
    assert any(b["plies"] == 2 for d in deep["moves"] if d["type"] == "checker"
               for b in d["best"])


def _analysed_at_0_ply(app, client: TestClient):
    """A match played out and analysed by the first pass, the deterministic evaluator judging:
    (ann, its ID, the worker, the analysis served)."""
    ann, match_id = _played_match(client)
    worker = services(app).analysis
    worker.evaluator = PipEvaluator()
    assert worker.step() == match_id
    return ann, match_id, worker, ann.get(f"/api/matches/{match_id}/analysis").json()


def test_a_failed_deep_pass_keeps_the_shallow_result(url):
    app = make_app(url)
    with TestClient(app) as client:
        ann, match_id, worker, shallow = _analysed_at_0_ply(app, client)
        assert shallow["deeper"] == 2
        worker.evaluator.max_plies = 0  # the deep pass now fails (no such depth)
        assert worker.step() == match_id
        # The 0-ply result stays, and no deeper pass is promised any more.
        assert ann.get(f"/api/matches/{match_id}/analysis").json() == {**shallow, "deeper": None}
        assert worker.step() is None
        stale_s, worker.stale_s = worker.stale_s, 0.0  # past an ordinary claim: a failure waits
        assert worker._claim_deep() is None and worker.step() is None
        with services(app).db.sessions() as s:
            row = s.get(MatchAnalysisRow, match_id)
            assert (row.status, row.plies) == ("done", 0)
            assert row.error.startswith("the 2-ply pass failed: ")
            # Claimable once claimed_t <= now - stale_s: a day after the failure.
            assert row.claimed_t + stale_s == pytest.approx(time.time() + worker.deep_retry_s,
                                                            abs=60)
            row.claimed_t -= worker.deep_retry_s + 1  # a day later
            s.commit()
        # Tried again, it passes this time (the model mended): the 2-ply result, no error.
        worker.evaluator.max_plies = 2
        assert worker.step() == match_id
        deep = ann.get(f"/api/matches/{match_id}/analysis").json()
        assert (deep["plies"], deep["deeper"]) == (2, None)
        with services(app).db.sessions() as s:
            assert s.get(MatchAnalysisRow, match_id).error is None


def test_a_deep_pass_cut_by_an_outage_is_tried_again(url, monkeypatch):
    app = make_app(url)
    with TestClient(app) as client:
        ann, match_id, worker, shallow = _analysed_at_0_ply(app, client)
        real = worker._result

        def unreachable(match_id, plies):
            raise OperationalError("SELECT 1", {}, ConnectionRefusedError("refused"))

        monkeypatch.setattr(worker, "_result", unreachable)
        assert worker.step() == match_id
        assert ann.get(f"/api/matches/{match_id}/analysis").json() == shallow  # still deeper: 2
        assert worker.step() is None  # claimed until stale_s
        monkeypatch.setattr(worker, "_result", real)
        worker.stale_s = 0.0
        assert worker.step() == match_id
        deep = ann.get(f"/api/matches/{match_id}/analysis").json()
        assert (deep["plies"], deep["deeper"]) == (2, None)


@pytest.mark.parametrize(("setting", "deep"), [("off", None), ("0", None), ("1", 1)])
def test_the_deep_pass_is_a_setting(url, monkeypatch, setting, deep):
    monkeypatch.setenv("BOARDGAMMON_ANALYSIS_DEEP_PLIES", setting)
    app = make_app(url)
    with TestClient(app) as client:
        worker = services(app).analysis
        assert worker.deep_plies == deep
        if deep is None:
            ann, match_id = _played_match(client)
            worker.evaluator = PipEvaluator()
            assert worker.step() == match_id and worker.step() is None
            body = ann.get(f"/api/matches/{match_id}/analysis").json()
            assert body["plies"] == 0
