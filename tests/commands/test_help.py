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


# Found by a new user's trial: ``--post <bool>``, ``--jacoby <bool>``, ``--help <bool>`` read as
# if the flags took a value, and ``witness URL --post true`` was refused ("Got unexpected extra
# argument(s) (true)"). typer writes an option's type beside flags too; plain flags now show none.
@pytest.mark.parametrize("path", _commands(), ids=lambda p: " ".join(p) or "boardgammon")
def test_plain_flags_show_no_value_placeholder(path):
    text = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "80"}).output
    assert "<bool>" not in text, text
    assert any(line.startswith("│ --help  ") for line in text.splitlines()), text


def test_flags_and_options_with_values_in_the_witness_and_play_help():
    witness = runner.invoke(app, ["witness", "--help"], env={"COLUMNS": "80"}).output.splitlines()
    assert "│ --post                 Send the co-signature to the server.                  │" \
        in witness
    assert any(line.startswith("│ --state        <path>  ") for line in witness), witness
    play = runner.invoke(app, ["play", "--help"], env={"COLUMNS": "120"}).output.splitlines()
    jacoby = [line for line in play if line.startswith("│ --jacoby ")]
    assert len(jacoby) == 1 and "<" not in jacoby[0].split("Money play")[0], play
    assert any(line.startswith("│ --length ") and "<int" in line for line in play), play
