"""Addresses the routes do not know, or know only partly: the client's own pages are served
at every address the client routes (a reload works), an unknown or malformed match on the audit
page gets the "no such match" page, and unknown paths get the API's error shape under /api/ and
an HTML 404 elsewhere."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from gameplay import Player, live_match, make_app


@pytest.fixture
def client(sqlite_url):
    with TestClient(make_app(sqlite_url)) as c:
        yield c


def test_analysis_page_is_served_for_a_reload(client):
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    match_id = live_match(ann, bob)
    r = client.get(f"/match/{match_id}/analysis")
    assert r.status_code == 200 and '<main id="app">' in r.text
    assert r.headers["content-type"].startswith("text/html")


def test_match_page_of_a_match_is_served_with_200(client):
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    match_id = live_match(ann, bob)
    r = client.get(f"/match/{match_id}")
    assert r.status_code == 200 and '<main id="app">' in r.text


@pytest.mark.parametrize("suffix", ["", "/analysis"])
@pytest.mark.parametrize("match_id", ["garbage", "mat_", "mat_bad-chars", "mat_nonexistent",
                                      "%20", "%ZZ"])
def test_match_page_of_a_malformed_or_unknown_match_is_the_client_with_404(client, match_id,
                                                                            suffix):
    """The client still comes (it says "There is no match …" itself), with the status a
    crawler or link checker reads."""
    r = client.get(f"/match/{match_id}{suffix}")
    assert r.status_code == 404
    assert '<main id="app">' in r.text and r.headers["content-type"].startswith("text/html")


def test_client_pages_answer_head_as_get(client):
    """A link checker may ask with HEAD first (it got 405)."""
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    match_id = live_match(ann, bob)
    for path in ("/", f"/match/{match_id}", f"/match/{match_id}/analysis", "/match/mat_x",
                 "/match/mat_x/analysis", "/join/sek_x"):
        head, get = client.head(path), client.get(path)
        assert head.status_code == get.status_code, path
        assert head.content == b""
    assert client.head("/match/mat_x").status_code == 404


@pytest.mark.parametrize("match_id", ["garbage", "mat_", "mat_bad-chars", "mat_nonexistent"])
def test_audit_page_of_a_malformed_or_unknown_match_is_the_no_such_match_page(client, match_id):
    r = client.get(f"/audit/{match_id}")
    assert r.status_code == 404
    assert r.headers["content-type"].startswith("text/html")
    assert f"There is no match {match_id}." in r.text


def test_audit_page_escapes_the_match_id(client):
    r = client.get("/audit/%3Cb%3Ex")
    assert r.status_code == 404 and "<b>x" not in r.text and "&lt;b&gt;x" in r.text


@pytest.mark.parametrize("method,path,status,code", [
    ("GET", "/api/nothing", 404, "not_found"),
    ("GET", "/api/matches/mat_x/nothing", 404, "not_found"),
    ("POST", "/api/nothing", 404, "not_found"),
    ("DELETE", "/api/options", 405, "method_not_allowed"),
    ("PUT", "/api/lobby", 405, "method_not_allowed"),
])
def test_unknown_api_routes_use_the_api_error_shape(client, method, path, status, code):
    r = client.request(method, path)
    assert r.status_code == status
    body = r.json()
    assert set(body) == {"error"} and body["error"]["code"] == code
    assert path in body["error"]["message"]
    if status == 405:
        assert "GET" in r.headers["allow"]


@pytest.mark.parametrize("path", ["/nothing", "/match/mat_x/nothing", "/static/nothing.js"])
def test_unknown_pages_are_an_html_404(client, path):
    r = client.get(path)
    assert r.status_code == 404
    assert r.headers["content-type"].startswith("text/html")
    assert "Not found" in r.text and 'href="/?lang=en"' in r.text
