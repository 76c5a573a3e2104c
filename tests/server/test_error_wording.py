"""A new user's trial of the API's 422s (2026-12): no message quotes a password, a password no
account can have is a wrong one at sign-in (401), and pydantic's own wording ("value should
have at most 100 items after validation" for a string, "string should match pattern
'^mat_…$'", "input should be a valid integer") reads as the rest of the API's messages do."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from gameplay import PASSWORD, Player, live_match, make_app

from boardgammon.server import auth


@pytest.fixture
def client(sqlite_url):
    with TestClient(make_app(sqlite_url)) as c:
        yield c


def error(response) -> tuple[int, str, str]:
    return (response.status_code, response.json()["error"]["code"],
            response.json()["error"]["message"])


@pytest.mark.parametrize("password", [
    "wrong",  # under the rule's 8 characters: was 422 quoting it
    "a wrong\tpassword",  # a control character: was 422
    "wrong password",
    "x" * (auth.MAX_PASSWORD + 1),
])
def test_a_password_no_account_can_have_is_a_wrong_one_at_sign_in(client, password):
    Player.register(client, "ann")
    r = client.post("/api/auth/login", json={"username": "ann", "password": password})
    assert error(r) == (401, "bad_credentials", "unknown name or wrong password")


@pytest.mark.parametrize("name", ["hunter2 SECRET!!", "a\tb", "a\x00b", "é" * 30, "x" * 200])
def test_a_name_no_account_can_have_is_an_unknown_one_at_sign_in_never_quoted(client, name):
    # A second trial: a password typed into the name's box came back quoted in a 422.
    Player.register(client, "ann")
    r = client.post("/api/auth/login", json={"username": name, "password": PASSWORD})
    assert error(r) == (401, "bad_credentials", "unknown name or wrong password")
    r = client.post("/api/auth/login", json={"username": "x" * 201, "password": PASSWORD})
    assert r.status_code == 422 and "x" * 20 not in r.text
    assert "at most 200 characters" in r.text


def test_a_password_over_the_limit_is_wrong_without_being_hashed(client, monkeypatch):
    Player.register(client, "ann")
    hashed: list[int] = []

    class Counting:
        def verify(self, stored: str, password: str) -> bool:
            hashed.append(len(password))
            return real.verify(stored, password)

    real = auth._hasher
    monkeypatch.setattr(auth, "_hasher", Counting())
    for name in ("ann", "nobody"):
        r = client.post("/api/auth/login",
                        json={"username": name, "password": "x" * (auth.MAX_PASSWORD + 1)})
        assert error(r) == (401, "bad_credentials", "unknown name or wrong password")
    assert hashed == []
    r = client.post("/api/auth/login", json={"username": "nobody", "password": "y" * 1024})
    assert r.status_code == 401
    assert hashed == [1024]  # an unknown name is hashed as a wrong password is


@pytest.mark.parametrize("password,said", [
    ("wrong", "a password needs at least 8 characters"),
    ("w" * 1025, "a password has at most 1024 characters"),
    ("a good\tpassword", "a password holds no control characters (tabs, line breaks and the "
                         "like)"),
    (31337357, "expected a string"),
    (["s3cr3t list"], "expected a string"),
])
def test_a_new_password_is_refused_saying_the_rule_without_quoting_it(client, password, said):
    r = client.post("/api/auth/register", json={"username": "ann", "password": password})
    assert error(r) == (422, "invalid_request", f"body.password: {said}")
    ann = Player.register(client, "ann")
    r = ann.post("/api/auth/password", {"password": PASSWORD, "new_password": password})
    assert error(r) == (422, "invalid_request", f"body.new_password: {said}")


@pytest.mark.parametrize("current", ["short", "z" * 5000, "tab\there and there"])
def test_a_current_password_no_account_can_have_is_a_wrong_one(client, current):
    ann = Player.register(client, "ann")
    r = ann.post("/api/auth/password", {"password": current, "new_password": "a new password"})
    assert error(r) == (401, "bad_credentials", "wrong current password")
    r = ann.post("/api/auth/delete", {"password": current})
    assert error(r) == (401, "bad_credentials", "wrong password: the account is not deleted")


SECRETS = ["s3cr3t", "s3cr3t\tpassword", "s3cr3t" * 200, 31337357, 3.1337357, True,
           ["s3cr3t"], {"s3cr3t": "s3cr3t"}]


def test_no_message_of_any_route_quotes_a_password(client):
    # Every body field whose name holds "password", of every route, with values that break
    # each rule: the message never holds the value (nor a part of it).
    spec = client.get("/openapi.json").json()
    schemas = spec["components"]["schemas"]
    routes = []
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            ref = (op.get("requestBody", {}).get("content", {}).get("application/json", {})
                   .get("schema", {}).get("$ref", ""))
            fields = schemas.get(ref.rsplit("/", 1)[-1], {}).get("properties", {})
            if any("password" in field for field in fields):
                routes.append((method, path, fields))
    assert {path for _, path, _ in routes} == {
        "/api/auth/register", "/api/auth/login", "/api/auth/upgrade", "/api/auth/password",
        "/api/auth/delete"}
    ann = Player.register(client, "ann")
    for method, path, fields in routes:
        for field in (f for f in fields if "password" in f):
            for value in SECRETS:
                body = {"username": "ann", "password": PASSWORD, "new_password": PASSWORD}
                body = {k: v for k, v in body.items() if k in fields} | {field: value}
                r = client.request(method.upper(), path, json=body,
                                   headers={"Authorization": f"Bearer {ann.token}"})
                assert r.status_code in (401, 409, 422), (path, field, value, r.text)
                message = r.json()["error"]["message"]
                assert "s3cr3t" not in message and "1337" not in message, (path, field, r.text)
                assert "true" not in message.lower(), (path, field, r.text)


def test_a_string_too_long_says_characters_not_items(client):
    ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
    match_id = live_match(ann, bob)
    r = ann.post(f"/api/matches/{match_id}/actions", {"type": "double", "action_id": "a" * 101})
    assert error(r) == (422, "invalid_request",
                        "body.action_id: expected at most 100 characters, got 101 characters")


@pytest.mark.parametrize("url,message", [
    ("/api/audit/nonsense",
     'path.match_id: a match ID looks like mat_… (letters and digits), got "nonsense"'),
    # Every route that names a match checks the ID's shape alike (the match routes said 404).
    ("/api/matches/nonsense",
     'path.match_id: a match ID looks like mat_… (letters and digits), got "nonsense"'),
    ("/api/matches/mat_a-b/moves",
     'path.match_id: a match ID looks like mat_… (letters and digits), got "mat_a-b"'),
    ("/api/matches/nonsense/export.json",
     'path.match_id: a match ID looks like mat_… (letters and digits), got "nonsense"'),
    ("/api/matches/nonsense/analysis",
     'path.match_id: a match ID looks like mat_… (letters and digits), got "nonsense"'),
    ("/api/audit/mat_abc/rolls/nonsense/proof",
     'path.roll_id: a roll ID looks like rol_… (letters and digits), got "nonsense"'),
    ("/api/audit/mat_abc/rolls/rol_abc/proof?after=abc",
     'query.after: expected a whole number, got "abc"'),
    ("/api/audit/mat_abc/rolls/rol_abc/proof?after=-5",
     "query.after: expected at least -1, got -5"),
    ("/api/log/witnesses?limit=0", "query.limit: expected at least 1, got 0"),
    ("/api/log/witnesses?key=zz",
     'query.key: expected exactly 64 hex characters (0-9, a-f), got "zz"'),
    ("/api/log/entries?start=1.5", 'query.start: expected a whole number, got "1.5"'),
    (f"/api/log/entries?start={10**30}",
     f"query.start: expected at most {2**62}, got {str(10**30)[:20]}…"),
])
def test_addresses_are_refused_in_the_apis_words(client, url, message):
    assert error(client.get(url)) == (422, "invalid_request", message)


def test_a_body_is_refused_in_the_apis_words(client):
    r = client.post("/api/log/witness", json={"tree_size": "x", "witness_key": "ab",
                                              "signature": "00" * 64})
    assert error(r) == (422, "invalid_request",
                        'body.tree_size: expected a whole number, got "x"; body.witness_key: '
                        'expected exactly 64 hex characters (0-9, a-f), got "ab"')


@pytest.mark.parametrize("body,message", [
    # A new user's: an invalid byte was said to be JSON nested too deeply or a number too long.
    (b'{"tree_size": 1, "witness_key": "\xff"}',
     "the request body is not UTF-8 text: byte 0xff at position 33"),
    (b'{"tree_size": "caf\xc3"}', "the request body is not UTF-8 text: byte 0xc3 at position 18"),
    (b'{"tree_size": ' + b"1" * 5000 + b"}",
     "the request body could not be read as JSON (nested too deeply, or a number too long to "
     "read)"),
])
def test_a_body_python_cannot_read_says_why(client, body, message):
    r = client.post("/api/log/witness", content=body,
                    headers={"Content-Type": "application/json"})
    assert error(r) == (422, "invalid_request", message)
