"""The ``boardgammon`` command (typer). Each concern adds its sub-commands here."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="boardgammon",
    help="Boardgammon: backgammon with exact rules, provably fair dice, bots and analysis.",
    no_args_is_help=True,
    add_completion=False,
)


@app.command()
def version() -> None:
    """Print the installed Boardgammon version."""
    from boardgammon import __version__

    typer.echo(__version__)


def main() -> None:
    """Entry point of the ``boardgammon`` console script."""
    app()


if __name__ == "__main__":
    main()
