"""``boardgammon plays --batch`` with a file it cannot read as text: exit 2 and a message naming
the file, never a traceback, and nothing on standard output."""

from __future__ import annotations

import os

import pytest
from typer.testing import CliRunner

from boardgammon.cli import app

runner = CliRunner()


def test_batch_file_that_is_not_utf8_text_exits_2_with_a_message(tmp_path):
    path = tmp_path / "requests.jsonl"
    path.write_bytes(b'\xff\xfe{"position_id": "4HPwATDgc/ABMA", "dice": [3, 1]}\n')
    result = runner.invoke(app, ["plays", "--batch", str(path)])
    assert result.exit_code == 2
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.stdout == ""
    assert f"cannot read batch file {path}: not UTF-8 text" in result.stderr


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_batch_file_without_read_permission_exits_2_with_a_message(tmp_path):
    path = tmp_path / "requests.jsonl"
    path.write_text('{"position_id": "4HPwATDgc/ABMA", "dice": [3, 1]}\n')
    path.chmod(0)
    result = runner.invoke(app, ["plays", "--batch", str(path)])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert f"cannot read batch file {path}" in result.stderr
