"""``boardgammon witness`` with an address it cannot use, or a state file it cannot write, exits
2 (nothing read) with one line saying what is wrong, never 1 ("the server shows two
histories") with a traceback (a new user's reports: ``not-a-url``, ``localhost:8000``,
``http://[::1``; ``--state /nonexistent/dir/x.json``)."""

from __future__ import annotations

import os

import pytest
from typer.testing import CliRunner

from boardgammon.cli import app as cli
from boardgammon.commands import witness as witness_command
from boardgammon.commands.witness import server_id


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


def _no_server(*args, **kwargs):
    raise AssertionError("the server was asked before the state file was checked")


@pytest.mark.parametrize("where", ["no folder", "a file as folder", "read-only folder"])
def test_a_state_file_it_cannot_write_exits_2_before_asking_the_server(
        tmp_path, monkeypatch, where):
    # It ended in a traceback from _save_state (FileNotFoundError for '.x.json.tmp'), exit
    # status 1, after the server had been asked and the head co-signed.
    monkeypatch.setattr(witness_command, "_fetch", _no_server)
    if where == "no folder":
        folder = tmp_path / "nonexistent" / "dir"
        why = f"the folder {folder} does not exist"
    elif where == "a file as folder":
        folder = tmp_path / "file"
        folder.write_text("")
        why = f"{folder} is not a folder"
    else:
        if os.geteuid() == 0:
            pytest.skip("root writes to a read-only folder")
        folder = tmp_path / "locked"
        folder.mkdir(mode=0o500)
        why = f"the folder {folder} is not writable"
    state = folder / "x.json"
    result = CliRunner().invoke(cli, ["witness", "https://play.example", "--state", str(state)])
    assert result.exit_code == 2, (result.output, result.exception)
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.output.splitlines() == [
        f"cannot witness https://play.example: cannot write the state file {state}: {why}"]


@pytest.mark.parametrize(("address", "key"), [
    ("https://play.example", "https://play.example"),
    ("HTTPS://Play.Example:443/", "https://play.example"),
    ("https://user@play.example/?q=1#top", "https://play.example"),
    ("http://play.example:80", "http://play.example"),
    ("http://play.example:8000/bg/", "http://play.example:8000/bg"),
    ("https://play.example:80", "https://play.example:80"),
    ("http://[::1]:8000", "http://[::1]:8000"),
])
def test_a_servers_state_is_kept_under_its_normalised_address(address, key):
    assert server_id(address) == key
