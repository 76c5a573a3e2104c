"""``boardgammon audit …``: check the dice record of a match."""

from __future__ import annotations

import typer

from boardgammon.dice import verify as dice_verify

app = typer.Typer(help="Check the provably fair dice record of a match.", no_args_is_help=True)


@app.command("verify")
def verify(
    source: str = typer.Argument(
        ..., metavar="FILE_OR_URL", help="Audit JSON file, '-' for stdin, or an http(s) URL."
    ),
    head: str | None = typer.Option(
        None, "--head", help="The chain head published at the end of the match."
    ),
) -> None:
    """Verify every roll and the hash chain of an audit document (GET /api/audit/MATCH_ID).

    Exit status 0: verified.

    Exit status 1: a roll fails; the output names the first and why (e.g. dice mismatch).

    Exit status 2: the document cannot be read, or --head is not 64 hex digits.
    """
    raise typer.Exit(dice_verify.run(source, head, out=typer.echo))
