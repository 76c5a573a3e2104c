"""The edge's guards (issue 21, 5-7): a browser's WebSocket or cookie-signed state change from
another site is refused (another port of the same host included), ``X-Forwarded-*`` is
believed only from the configured proxies, and every page carries the security headers, its
scripts all in files."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from gameplay import PASSWORD, Player, Wall
from starlette.websockets import WebSocketDisconnect

from boardgammon.server.app import create_app
from boardgammon.server.runtime import GameConfig
from boardgammon.server.settings import Settings

EVIL = "http://evil.test"
OTHER_PORT = "http://testserver:8081"  # a page on the same host and another port
OWN = "http://testserver"  # TestClient's base URL


def _app(sqlite_url, **settings):
    return create_app(Settings(database_url=sqlite_url, **settings),
                      GameConfig(wall=Wall(), background=False, bot_delay_s=0.0))


@pytest.fixture
def client(sqlite_url):
    with TestClient(_app(sqlite_url)) as c:
        yield c


def _cookie_player(client: TestClient, name: str) -> None:
    """Sign ``name`` in on ``client`` by the cookie alone, as a browser is."""
    r = client.post("/api/auth/register", json={"username": name, "password": PASSWORD})
    assert r.status_code == 201, r.text
    assert client.cookies.get("bg_session")


def test_a_cookie_signed_state_change_from_another_site_is_refused(client, sqlite_url):
    with TestClient(_app(sqlite_url)) as ann_client:
        ann = Player.register(ann_client, "ann")
        seek = ann.post("/api/seeks", {"length": 1}).json()["id"]
    _cookie_player(client, "bob")
    for origin in (EVIL, OTHER_PORT, "null"):
        r = client.post(f"/api/seeks/{seek}/accept", headers={"Origin": origin})
        assert (r.status_code, r.json()["error"]["code"]) == (403, "bad_origin"), origin
    r = client.post(f"/api/seeks/{seek}/accept", headers={"Referer": f"{EVIL}/page"})
    assert r.status_code == 403
    assert client.get("/api/me", headers={"Origin": EVIL}).status_code == 200  # a read
    assert client.get("/api/seeks").json()  # the seek is still open
    r = client.post(f"/api/seeks/{seek}/accept", headers={"Origin": OWN})
    assert r.status_code == 201, r.text


def test_a_bearer_token_or_no_origin_at_all_is_no_browsers_cross_site_request(client):
    ann = Player.register(client, "ann")
    r = client.post("/api/seeks", json={"length": 1}, headers={**ann.headers, "Origin": EVIL})
    assert r.status_code == 201, r.text
    # cookie, no Origin (another seek: the same one again would be a duplicate)
    assert client.post("/api/seeks", json={"length": 3}).status_code == 201


def test_a_websocket_from_another_site_is_refused(client):
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    seek = ann.post("/api/seeks", {"length": 1}).json()["id"]
    match_id = bob.post(f"/api/seeks/{seek}/accept").json()["match_id"]
    for origin in (EVIL, OTHER_PORT):
        with pytest.raises(WebSocketDisconnect) as refused, client.websocket_connect(
                f"/ws/matches/{match_id}", headers={"Origin": origin}):
            pass
        assert refused.value.code == 1008
    with client.websocket_connect(f"/ws/matches/{match_id}", headers={"Origin": OWN}) as ws:
        assert ws.receive_json()["state"]["you"] == 1  # the cookie is bob's, the last signed in


def test_the_site_s_origins_are_a_setting(sqlite_url):
    site = "https://play.example"
    with TestClient(_app(sqlite_url, origins=(site,))) as client:
        _cookie_player(client, "ann")
        assert client.post("/api/seeks", json={"length": 1},
                           headers={"Origin": site}).status_code == 201
        r = client.post("/api/seeks", json={"length": 1}, headers={"Origin": OWN})
        assert r.status_code == 403
    assert Settings.from_env({"BOARDGAMMON_ORIGINS": f" {site}, https://b.example ,"}).origins \
        == (site, "https://b.example")


def _login_spray(client: TestClient, forwarded: bool) -> list[int]:
    """40 wrong passwords for one name, each from a different claimed address."""
    return [client.post("/api/auth/login", json={"username": "ann", "password": "wrong password"},
                        headers={"X-Forwarded-For": f"10.0.{i}.1"} if forwarded else {}
                        ).status_code for i in range(40)]


def test_forwarded_headers_are_believed_only_from_the_configured_proxies(sqlite_url):
    # TestClient's peer address is "testclient".
    config = GameConfig(wall=Wall(), background=False)
    with TestClient(create_app(Settings(database_url=sqlite_url), config)) as client:
        assert 429 in _login_spray(client, forwarded=True)
    with TestClient(create_app(Settings(database_url=sqlite_url,
                                        trusted_proxies=("testclient",)), config)) as client:
        assert 429 not in _login_spray(client, forwarded=True)
        r = client.get("/", headers={"X-Forwarded-Proto": "https", "Origin": "https://testserver"})
        assert "wss://testserver" in r.headers["content-security-policy"]
    assert Settings.from_env({}).trusted_proxies == ()


HEADERS = {"x-content-type-options": "nosniff", "referrer-policy": "same-origin",
           "x-frame-options": "DENY"}


@pytest.mark.parametrize("path", ["/", "/match/mat_x", "/static/app.js", "/api/options",
                                  "/api/matches/nope", "/no/such/page", "/audit/nope",
                                  "/docs", "/openapi.json"])
def test_every_answer_has_the_security_headers(client, path):
    r = client.get(path)
    assert {k: r.headers.get(k) for k in HEADERS} == HEADERS, path
    csp = r.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in csp
    if path != "/docs":
        assert re.search(r"script-src 'self';", csp), csp


class _Scripts(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.inline: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = dict(attrs)
        if tag == "script" and not names.get("src"):
            self.inline.append(f"<script> without src at {self.getpos()}")
        self.inline += [f"{tag} {k}= at {self.getpos()}" for k in names if k.startswith("on")]
        if any(str(v).lower().startswith("javascript:") for v in names.values()):
            self.inline.append(f"javascript: URL in {tag} at {self.getpos()}")


SRC = Path(__file__).resolve().parents[2] / "src" / "boardgammon"


@pytest.mark.parametrize("page", [*sorted((SRC / "web").glob("*.html")),
                                  *sorted((SRC / "server" / "templates").glob("*.html"))],
                         ids=lambda p: p.name)
def test_no_page_has_an_inline_script(page):
    parser = _Scripts()
    parser.feed(page.read_text())
    assert parser.inline == []


def test_serve_leaves_forwarded_headers_to_the_app(monkeypatch, sqlite_url):
    """uvicorn's own default believes X-Forwarded-* from 127.0.0.1 (a local proxy, or anyone
    on the machine): 40 wrong passwords each claiming another address were never throttled."""
    import uvicorn

    from boardgammon.commands.serve import serve

    seen = {}
    monkeypatch.setenv("BOARDGAMMON_DATABASE_URL", sqlite_url)
    monkeypatch.setattr(uvicorn, "run", lambda app, **options: seen.update(options))
    serve(host="127.0.0.1", port=8000)
    assert seen["proxy_headers"] is False


@pytest.mark.parametrize("name", ["guest-deadbeef", "Guest_1234", "null", "undefined", "NULL",
                                  "admin", "Administrator", "boardgammon", "none"])
def test_reserved_names_are_refused_at_registration_and_upgrade(client, name):
    r = client.post("/api/auth/register", json={"username": name, "password": PASSWORD})
    # Its own code, which the client says in the page's language (invalid_request it was not).
    assert (r.status_code, r.json()["error"]["code"]) == (422, "username_reserved")
    assert "is reserved" in r.json()["error"]["message"]
    guest = client.post("/api/auth/guest").json()["token"]
    r = client.post("/api/auth/upgrade", json={"username": name, "password": PASSWORD},
                    headers={"Authorization": f"Bearer {guest}"})
    assert (r.status_code, r.json()["error"]["code"]) == (422, "username_reserved")
    assert client.get("/api/me", headers={"Authorization": f"Bearer {guest}"}
                      ).json()["user"]["guest"] is True


@pytest.mark.parametrize("name", ["guesthouse", "nullius", "admins", "ann"])
def test_names_near_the_reserved_ones_are_fine(client, name):
    r = client.post("/api/auth/register", json={"username": name, "password": PASSWORD})
    assert r.status_code == 201, r.text
