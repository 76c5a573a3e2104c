"""``boardgammon --help`` and every command's help fit an 80-column terminal, and the command
lists show each summary as one paragraph (wrapped by the terminal, not by the source)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from boardgammon.cli import app

runner = CliRunner()


def _commands() -> list[list[str]]:
    paths: list[list[str]] = [[]]
    for info in app.registered_commands:
        paths.append([info.name or info.callback.__name__])
    for group in app.registered_groups:
        paths.append([group.name])
        paths += [[group.name, sub.name or sub.callback.__name__]
                  for sub in group.typer_instance.registered_commands]
    return paths


@pytest.mark.parametrize("path", _commands(), ids=lambda p: " ".join(p) or "boardgammon")
def test_help_fits_80_columns(path):
    result = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    wide = [line for line in result.output.splitlines() if len(line) > 80]
    assert not wide, "\n".join(wide)
    assert len(result.output.splitlines()) > 3


def test_command_summaries_are_one_paragraph():
    text = runner.invoke(app, ["--help"], env={"COLUMNS": "80"}).output
    lines = text.splitlines()
    assert "│ rollout   Roll a position out: the outputs and equities with their standard  │" \
        in lines
    assert "│           errors, and the cube decision.                                     │" \
        in lines  # was "errors, and the cube" and "decision." on lines of their own
    assert "│           decision.  " not in text
