"""``boardgammon witness`` with an address it cannot use exits 2 (nothing read) with one line
saying what is wrong with the address, never 1 ("the server shows two histories") with a
traceback (a new user's report: ``not-a-url``, ``localhost:8000``, ``http://[::1``)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from boardgammon.cli import app as cli


@pytest.mark.parametrize(("address", "said"), [
    ("not-a-url", "must start with http:// or https://"),
    ("localhost:8000", "http://localhost:8000"),
    ("127.0.0.1:8000", "http://127.0.0.1:8000"),
    ("http://[::1", "Invalid IPv6 URL"),
    ("http://", "names no host"),
    ("http://:8000", "names no host"),
    ("http://example.org:99999", "Port out of range"),
    ("ftp://example.org", "must start with http:// or https://"),
    ("file:///etc/passwd", "must start with http:// or https://"),
    ("https://exa mple.org", "space or control character"),
    ("https://example.org/\x00", "space or control character"),
])
def test_an_unusable_address_exits_2_with_one_line_saying_why(tmp_path, address, said):
    state = tmp_path / "witness.json"
    result = CliRunner().invoke(cli, ["witness", address, "--state", str(state)])
    assert result.exit_code == 2, (result.output, result.exception)
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert lines[0].startswith("cannot witness"), lines
    assert said in lines[0], lines
    assert not state.exists()
