"""Every yes-or-no field of a request body takes JSON ``true`` or ``false`` only, and every number
field a JSON number only (a rating range posted as ``"1500"`` was taken; a new user's
report: ``{"length": 1, "rated": "yes"}`` or ``"rated": 1`` made a rated seek, and ``muted``
took ``"on"``, ``"off"``, ``"0"``, ``"1"``). The fields are found in the API's own OpenAPI
document, so a boolean added to a body later is covered without touching this test."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from gameplay import make_app
from test_control_characters import World

NOT_BOOLEANS = ["yes", "no", "on", "off", "true", "false", "0", "1", "", 1, 0, 1.0, None, [],
                {}]
"""What pydantic's lax mode takes as a boolean (most of it), and what it does not."""


@pytest.fixture
def world(sqlite_url) -> Iterator[World]:
    with TestClient(make_app(sqlite_url), raise_server_exceptions=False) as client:
        yield World(client)


def _objects(schema: dict, components: dict) -> Iterator[dict]:
    """The object schemas a body of ``schema`` may be (each branch of a union)."""
    if "$ref" in schema:
        schema = components[schema["$ref"].rsplit("/", 1)[1]]
    for branch in schema.get("oneOf", []) + schema.get("anyOf", []):
        yield from _objects(branch, components)
    if "properties" in schema:
        yield schema


def _is_boolean(schema: dict) -> bool:
    return schema.get("type") == "boolean" or any(map(_is_boolean, schema.get("anyOf", [])))


def _tag(schema: dict) -> object:
    """The one value a property allows (a union's discriminator, e.g. an action's type)."""
    return schema["const"] if "const" in schema else schema["enum"][0]


def boolean_fields(openapi: dict) -> list[tuple[str, str, dict, str]]:
    """``(method, path, body, name)`` for every boolean property ``name`` of every request
    body of ``openapi``; ``body`` holds the properties that pick the body's branch of a union
    (``{"type": "roll"}``)."""
    components = openapi["components"]["schemas"]
    found = []
    for path, operations in openapi["paths"].items():
        for method, operation in operations.items():
            content = operation.get("requestBody", {}).get("content", {})
            if "application/json" not in content:
                continue
            for body in _objects(content["application/json"]["schema"], components):
                properties = body["properties"]
                picks = {k: _tag(v) for k, v in properties.items()
                         if "const" in v or len(v.get("enum", [])) == 1}
                found += [(method, path, picks, name) for name, field in properties.items()
                          if _is_boolean(field)]
    return found


def test_every_boolean_field_of_a_request_body_takes_true_or_false_only(world):
    fields = boolean_fields(world.client.app.openapi())
    assert {(path, name) for _, path, _, name in fields} >= {
        ("/api/seeks", "rated"), ("/api/matches/{match_id}/chat/mute", "muted")}
    wrong = []
    for method, path, picks, name in fields:
        url = path.format(match_id=world.match_id, seek_id=world.seek_id)
        for value in NOT_BOOLEANS:
            r = world.client.request(method, url, json={**picks, name: value},
                                     headers=world.ann.headers)
            said = f"{name}: expected true or false, got {json.dumps(value)}"
            if r.status_code != 422 or r.json()["error"]["code"] != "invalid_request" \
                    or said not in r.json()["error"]["message"]:
                wrong.append(f"{method.upper()} {path} {name}={value!r}: {r.status_code} {r.text}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("value", ["yes", 1, "true"])
def test_a_seek_rated_yes_is_refused_and_no_seek_is_made(world, value):
    before = world.ann.get("/api/lobby").json()["mine"]
    r = world.ann.post("/api/seeks", {"length": 1, "rated": value})
    assert r.status_code == 422, r.text
    assert r.json()["error"] == {
        "code": "invalid_request",
        "message": f"body.rated: expected true or false, got {json.dumps(value)}"}
    assert world.ann.get("/api/lobby").json()["mine"] == before


@pytest.mark.parametrize("value", ["on", "yes", "1", 1])
def test_mute_on_is_refused_and_changes_nothing(world, value):
    path = f"/api/matches/{world.match_id}/chat/mute"
    r = world.client.put(path, json={"muted": value}, headers=world.ann.headers)
    assert r.status_code == 422, r.text
    assert r.json()["error"]["message"] == (
        f"body.muted: expected true or false, got {json.dumps(value)}")
    assert world.ann.get(f"/api/matches/{world.match_id}/chat").json()["muted"] is False
    r = world.client.put(path, json={"muted": True}, headers=world.ann.headers)
    assert r.status_code == 200, r.text
    assert r.json()["muted"] is True


NOT_NUMBERS = ["1500", "1e3", "", True, False, [], {}, [1500]]
"""What pydantic's lax mode takes as a number (the strings), and what it does not."""


def _is_number(schema: dict) -> bool:
    return schema.get("type") == "number" or any(map(_is_number, schema.get("anyOf", [])))


def test_every_number_field_of_a_request_body_takes_a_json_number_only(world):
    # A rating range posted as "1500" was taken as 1500.0 (a new user's report).
    components = world.client.app.openapi()["components"]["schemas"]
    fields = []
    for path, operations in world.client.app.openapi()["paths"].items():
        for method, operation in operations.items():
            content = operation.get("requestBody", {}).get("content", {})
            if "application/json" not in content:
                continue
            for body in _objects(content["application/json"]["schema"], components):
                fields += [(method, path, name) for name, field in body["properties"].items()
                           if _is_number(field)]
    assert {(path, name) for _, path, name in fields} >= {
        ("/api/seeks", "min_rating"), ("/api/seeks", "max_rating")}
    wrong = []
    for method, path, name in fields:
        for value in NOT_NUMBERS:
            body = {"length": 1, "rated": True, name: value}
            r = world.client.request(method, path, json=body, headers=world.ann.headers)
            said = f"{name}: expected a number, got {json.dumps(value)}"
            if r.status_code != 422 or said not in r.json()["error"]["message"]:
                wrong.append(f"{method.upper()} {path} {name}={value!r}: {r.status_code} {r.text}")
    assert not wrong, "\n".join(wrong)
    # A JSON number still works, whole or not.
    r = world.client.post("/api/seeks", json={"length": 1, "rated": True, "min_rating": 1400,
                                              "max_rating": 1600.5}, headers=world.ann.headers)
    assert r.status_code == 201, r.text
    assert (r.json()["min_rating"], r.json()["max_rating"]) == (1400, 1600.5)
