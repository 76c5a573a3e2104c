"""The ``boardgammon`` command (typer). Each concern adds its sub-commands here."""

from __future__ import annotations

import sys
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup, TyperOption

from boardgammon.commands import audit as audit_commands
from boardgammon.commands import odds as odds_commands
from boardgammon.commands import stats as stats_commands
from boardgammon.commands.analyze import analyze as analyze_command
from boardgammon.commands.evaluate import eval_command
from boardgammon.commands.play import play as play_command
from boardgammon.commands.plays import plays as plays_command
from boardgammon.commands.rollout import rollout_command
from boardgammon.commands.selfplay import selfplay as selfplay_command
from boardgammon.commands.serve import serve as serve_command
from boardgammon.commands.train import train as train_command
from boardgammon.commands.warm import warm as warm_command
from boardgammon.commands.witness import witness as witness_command

# The top-level module of each optional dependency a command may import: the extra (in
# pyproject.toml) that installs it.
EXTRAS = {"fastapi": "server", "uvicorn": "server", "sqlalchemy": "server", "alembic": "server",
          "pydantic": "server", "argon2": "server", "jinja2": "server", "redis": "server",
          "psycopg": "postgres", "matplotlib": "plots", "cryptography": "server"}


def _plain_flags(params: list[Any]) -> list[Any]:
    """``params`` with no value placeholder beside a plain flag in ``--help``: typer (0.29)
    writes an option's type beside every option, flags too (``--post <bool>``, ``--help
    <bool>``), which reads as if they took a value (``--post true`` is then refused as an extra
    argument); an empty metavar is what it writes instead."""
    for param in params:
        if isinstance(param, TyperOption) and (param.is_flag or param.count) \
                and param.metavar is None:
            param.metavar = ""
    return params


class _Command(TyperCommand):
    """A command whose plain flags show no value placeholder (:func:`_plain_flags`)."""

    def get_params(self, ctx: Any) -> list[Any]:
        return _plain_flags(super().get_params(ctx))


class _Group(TyperGroup):
    """A group whose plain flags show no value placeholder (:func:`_plain_flags`)."""

    def get_params(self, ctx: Any) -> list[Any]:
        return _plain_flags(super().get_params(ctx))


app = typer.Typer(
    name="boardgammon",
    cls=_Group,
    help="Boardgammon: backgammon with exact rules, provably fair dice, bots and analysis.",
    no_args_is_help=True,
    add_completion=False,
)


@app.command()
def version() -> None:
    """Print the installed Boardgammon version."""
    from boardgammon import __version__

    typer.echo(__version__)


app.command(name="train")(train_command)
app.add_typer(odds_commands.app, name="odds")
app.add_typer(stats_commands.app, name="stats")
app.command(name="serve")(serve_command)
app.add_typer(audit_commands.app, name="audit")
app.command(name="selfplay")(selfplay_command)
app.command(name="analyze")(analyze_command)
app.command(name="play")(play_command)
app.command(name="warm")(warm_command)
app.command(name="eval")(eval_command)
app.command(name="rollout")(rollout_command)
app.command(name="witness")(witness_command)
# Unknown "options" are arguments here, so a negative die (-1) reaches the dice check.
app.command(name="plays", context_settings={"ignore_unknown_options": True})(plays_command)


def _tidy_help(group: typer.Typer) -> None:
    """Tidy the ``--help`` of every command of ``group`` (and of its sub-groups): plain flags
    without a value placeholder (:func:`_plain_flags`), and a one-paragraph summary in the
    command lists: typer keeps the docstring's own line breaks there, so a summary wrapped in
    the source came out ragged ("…standard errors, and the cube" and "decision." on lines of
    their own)."""
    import inspect

    for info in group.registered_commands:
        if info.cls in (None, TyperCommand):  # typer's default: None in some versions
            info.cls = _Command
        if info.short_help is None and info.callback is not None:
            first = inspect.cleandoc(info.callback.__doc__ or "").split("\n\n")[0]
            info.short_help = " ".join(first.split())
    for sub in group.registered_groups:
        sub.cls = _Group
        if sub.typer_instance is not None:
            _tidy_help(sub.typer_instance)


_tidy_help(app)


def main() -> None:
    """Entry point of the ``boardgammon`` console script (and ``python -m boardgammon``): a
    command whose optional dependencies are not installed says which extra to install."""
    try:
        app(prog_name="boardgammon")
    except ModuleNotFoundError as exc:
        extra = EXTRAS.get((exc.name or "").partition(".")[0])
        if extra is None:
            raise
        sys.exit(f"boardgammon: this command needs the optional dependencies '{extra}' "
                 f"({exc.name} is not installed): pip install 'boardgammon[{extra}]'")


if __name__ == "__main__":
    main()
