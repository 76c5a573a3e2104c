"""A database outage is nobody's time and gets clear answers (issue 21, 1 and 2): with a TCP
proxy in front of PostgreSQL cut, no clock runs out; every request that needs the database is
a 503 ``database_unavailable`` in the API's shape with ``Retry-After``, a new WebSocket gets an
``error`` frame and a close with a reason, an open one an ``error`` frame for its action; the
log gets one line when the outage starts and one when it ends; after the proxy is restored
everything works again."""

from __future__ import annotations

import asyncio
import logging

import pytest
from fastapi.testclient import TestClient
from gameplay import Player, Wall, live_match, make_app
from sqlalchemy.exc import OperationalError
from starlette.websockets import WebSocketDisconnect

from boardgammon.server.outage import RETRY_AFTER_S
from boardgammon.server.services import services
from tests.helpers.tcp_proxy import CuttableProxy


@pytest.fixture
def proxy():
    with CuttableProxy(("127.0.0.1", 5432)) as p:
        yield p


def _down(response) -> None:
    assert response.status_code == 503, response.text
    assert response.json()["error"]["code"] == "database_unavailable"
    assert response.headers["retry-after"] == str(RETRY_AFTER_S)


def test_an_outage_is_a_503_and_two_log_lines(postgres_url, proxy, caplog):
    url = postgres_url.replace("@127.0.0.1:5432/", f"@127.0.0.1:{proxy.port}/")
    assert url != postgres_url
    with TestClient(make_app(url), raise_server_exceptions=False) as client:
        ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
        match_id = live_match(ann, bob)
        with client.websocket_connect(f"/ws/matches/{match_id}", headers=ann.headers) as open_ws:
            assert open_ws.receive_json()["type"] == "state"
            state = ann.state(match_id)
            caplog.set_level(logging.INFO, logger="boardgammon.server.outage")
            proxy.cut()
            _down(ann.get(f"/api/matches/{match_id}"))
            _down(ann.post(
                f"/api/matches/{match_id}/actions",
                {"type": "roll", "action_id": "r1", **ann.roll_action(state)}))
            _down(ann.get("/api/me"))
            # A page's address gets the client, which says so and tries again, not JSON.
            for page in (f"/match/{match_id}", f"/match/{match_id}/analysis", "/join/sek_x"):
                r = client.get(page)
                assert r.status_code == 503 and '<main id="app">' in r.text, (page, r.text)
                assert r.headers["retry-after"] == str(RETRY_AFTER_S)
            _down(client.post("/api/auth/login", json={"username": "ann",
                                                       "password": "correct horse battery"}))
            assert client.get("/api/options").status_code == 200  # no database needed
            open_ws.send_json({"type": "action", "action": {
                "type": "roll", "action_id": "r2", **ann.roll_action(state)}})
            error = open_ws.receive_json()
            assert (error["type"], error["action_id"], error["error"]["code"]) == (
                "error", "r2", "database_unavailable")
            with client.websocket_connect(f"/ws/matches/{match_id}") as new_ws:
                error = new_ws.receive_json()
                assert error["error"]["code"] == "database_unavailable"
                with pytest.raises(WebSocketDisconnect) as closed:
                    new_ws.receive_json()
                assert closed.value.code == 1013
                assert "database" in closed.value.reason
            lines = [r.getMessage() for r in caplog.records
                     if r.name == "boardgammon.server.outage"]
            assert len(lines) == 1 and lines[0].startswith("database outage:"), lines

            proxy.restore()
            assert ann.state(match_id)["pending_roll"] == state["pending_roll"]
            r = ann.post(f"/api/matches/{match_id}/actions",
                         {"type": "roll", "action_id": "r3", **ann.roll_action(state)})
            assert r.status_code == 200, r.text
            lines = [r.getMessage() for r in caplog.records
                     if r.name == "boardgammon.server.outage"]
            assert len(lines) == 2 and lines[1].startswith("database outage over after"), lines
            assert not [r for r in caplog.records if r.exc_info], "no traceback logged"


@pytest.mark.parametrize("language, said", [
    ("en", "cannot reach its database"), ("de", "erreicht seine Datenbank gerade nicht"),
    ("ja", "データベースに接続できません")])
def test_an_outage_on_a_server_page_is_the_site_s_503_page(postgres_url, proxy, language, said):
    """The server-rendered pages that read the database (a match's dice record, a player's
    page, a leaderboard) answer an outage with the site's page in the reader's language, 503
    and ``Retry-After``; data (``/dice-record.json``) and the API keep the JSON refusal."""
    url = postgres_url.replace("@127.0.0.1:5432/", f"@127.0.0.1:{proxy.port}/")
    with TestClient(make_app(url), raise_server_exceptions=False) as client:
        ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
        match_id = live_match(ann, bob)
        pages = (f"/audit/{match_id}", "/player/ann", "/leaderboard/standard")
        for page in pages:  # each reads the database
            assert client.get(page, params={"lang": language}).status_code == 200, page
        proxy.cut()
        for page in pages:
            r = client.get(page, params={"lang": language})
            assert r.status_code == 503, (page, r.text)
            assert r.headers["content-type"].startswith("text/html"), (page, r.text)
            assert r.headers["retry-after"] == str(RETRY_AFTER_S)
            assert said in r.text and '<html lang="' + language in r.text, (page, r.text)
        # HEAD as GET; the language also by Accept-Language; the dice record and /fair?match=.
        r = client.head("/player/ann", params={"lang": language})
        assert (r.status_code, r.headers["retry-after"]) == (503, str(RETRY_AFTER_S))
        assert r.headers["content-type"].startswith("text/html")
        for page in ("/dice-record", f"/fair?match={match_id}"):
            r = client.get(page, headers={"Accept-Language": language})
            assert r.status_code == 503 and said in r.text, (page, r.text)
        _down(client.get(f"/api/audit/{match_id}"))
        _down(client.get("/api/players/ann"))
        for data in ("/dice-record.json", "/dice-record.csv", "/dice-record.png"):
            _down(client.get(data))  # data, read by programs: the message says why
        proxy.restore()
        assert client.get("/player/ann").status_code == 200


def test_start_up_waits_for_the_database_then_says_why_in_one_line(proxy, monkeypatch, capsys):
    import typer
    import uvicorn

    from boardgammon.commands.serve import serve
    from boardgammon.server.db import DatabaseUnreachable, wait_for_database

    proxy.cut()
    url = f"postgresql+psycopg://postgres:secret@127.0.0.1:{proxy.port}/test"
    slept: list[float] = []
    now = [0.0]

    def sleep(s: float) -> None:
        slept.append(s)
        now[0] += s

    with pytest.raises(DatabaseUnreachable, match=r"did not answer within 20 s \(7 attempts\)"):
        wait_for_database(url, 20, sleep=sleep, clock=lambda: now[0])
    assert slept == [0.5, 1.0, 2.0, 4.0, 5.0, 5.0]
    proxy.restore()
    assert wait_for_database(url.replace(":secret", ""), 5) == 1

    proxy.cut()
    monkeypatch.setenv("BOARDGAMMON_DATABASE_URL", url)
    monkeypatch.setenv("BOARDGAMMON_DATABASE_WAIT", "1")
    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: pytest.fail("started without a database"))
    with pytest.raises(typer.Exit):
        serve(host="127.0.0.1", port=8000)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("boardgammon serve: the database at "), err
    assert "secret" not in err


def test_background_work_logs_no_traceback_per_try_during_an_outage(sqlite_url, caplog,
                                                                     monkeypatch):
    with TestClient(make_app(sqlite_url)) as client:
        worker = services(client.app).analysis

        def down():
            raise OperationalError("SELECT 1", None, ConnectionRefusedError("refused"))

        monkeypatch.setattr(worker, "step", down)
        monkeypatch.setattr(worker, "poll_s", 0.01)
        caplog.set_level(logging.INFO)
        with pytest.raises(TimeoutError):
            asyncio.run(asyncio.wait_for(worker.loop(), 0.3))
    assert not [r for r in caplog.records if r.exc_info]


def test_an_outage_is_nobody_s_time(postgres_url, proxy):
    """A 1-point bullet match (5 s delay + 30 s reserve): the player on roll is cut off from
    the database for 45 s, acts a second after it is back, and has not lost on time; the time
    before the cut still counts."""
    url = postgres_url.replace("@127.0.0.1:5432/", f"@127.0.0.1:{proxy.port}/")
    wall = Wall()
    with TestClient(make_app(url, wall), raise_server_exceptions=False) as client:
        game = services(client.app).game
        ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
        match_id = live_match(ann, bob, clock="bullet")
        state = ann.state(match_id)
        assert state["clocks"]["running"] == 0
        wall.advance(20.0)  # counted: 5 s delay and 15 s of the reserve
        client.portal.call(game.tick)
        proxy.cut()
        for _ in range(45):
            wall.advance(1.0)
            with pytest.raises(OperationalError):
                client.portal.call(game.tick)
            _down(ann.post(f"/api/matches/{match_id}/actions",
                           {"type": "roll", "action_id": "r1", **ann.roll_action(state)}))
        proxy.restore()
        wall.advance(1.0)
        r = ann.post(f"/api/matches/{match_id}/actions",
                     {"type": "roll", "action_id": "r1", **ann.roll_action(state)})
        assert r.status_code == 200, r.text
        after = r.json()["state"]
        assert after["phase"] != "match_over"
        reserve = after["clocks"]["reserve"][0]
        assert 14.0 - 1.5 <= reserve <= 15.0, after["clocks"]  # only the time before the cut
