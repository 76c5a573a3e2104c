"""Every error code is documented in docs/api.md, and every kind of refusal has its status."""

from __future__ import annotations

from pathlib import Path

from boardgammon.server import refusals
from boardgammon.server.errors import HTTP_STATUS, http_status
from boardgammon.server.refusals import ErrorCode, Refusal

API = Path(__file__).parents[2] / "docs" / "api.md"


def test_every_code_is_in_the_api_doc():
    text = API.read_text()
    assert [code for code in ErrorCode if f"| `{code.value}` |" not in text] == []


def test_every_kind_of_refusal_has_an_http_status():
    kinds = [k for k in vars(refusals).values()
             if isinstance(k, type) and issubclass(k, Refusal)]
    assert set(kinds) <= set(HTTP_STATUS)
    assert http_status(refusals.NotFound("no match")) == 404
    assert http_status(refusals.RateLimited(1.0, "actions")) == 429
