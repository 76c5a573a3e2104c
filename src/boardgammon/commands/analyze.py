"""``boardgammon analyze FILE``: PR, luck and cube errors of a recorded match.

``FILE`` is a Jellyfish ``.mat`` file (as gnubg exports) or a JSON match record
(``Match.to_json``, as ``selfplay --save`` writes); the format is told by the content, not the
name. Prints a per-player summary (with gnubg's verbal rating of each PR and its luck
rating; a progress bar on standard error at a terminal); ``--moves`` adds every decision,
``--json`` prints the same as JSON (:func:`boardgammon.analysis.report.to_dict`), ``--ply N``
searches N plies deeper than the network's static evaluation (0–2). The report names its judge
("our network at N-ply") and warns about a player judged by its own engine: a player named
after a bot level as our own commands name them (``hard``, ``white-hard``, ``Computer-hard``)
is taken to be that level. Exit status 2 for a file that cannot be read or does not replay under
the rules.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

from boardgammon.engine import InvalidRecord, Match


def load_match(path: Path) -> Match:
    """The match recorded in ``path`` (``.mat`` text or a JSON record).

    Raises:
        InvalidRecord (``MatFormatError`` for ``.mat`` text): the file does not parse or replay.
        OSError: the file cannot be read.
    """
    text = path.read_text(encoding="utf-8-sig", errors="replace")  # -sig: a BOM is no text
    if not text.strip():
        raise InvalidRecord("the file is empty")
    if text.lstrip().startswith(("{", "[")):
        return Match.from_json(text)
    try:  # other JSON (null, a number, a string) is no .mat either: say it is not a record
        data = json.loads(text)
    except (ValueError, RecursionError):
        data = text
    if data is not text:
        return Match.from_dict(data)
    from boardgammon.formats import read_mat

    return read_mat(text)


def engine_of(name: str) -> str | None:
    """The bot level a player's name says it is (``hard``, ``white-hard`` as ``selfplay`` names
    players, ``Computer-hard`` as ``play`` does, ``Computer (hard)`` as the server does), else
    ``None``."""
    from boardgammon.bots import levels

    name = name.strip().lower()
    if name.endswith(")") and "(" in name:
        level = name[name.rindex("(") + 1 : -1]
    else:
        level = name.rsplit("-", 1)[-1]
    return level if level in levels() else None


def analyze(
    file: Path = typer.Argument(..., help="a .mat file or a JSON match record"),
    ply: int = typer.Option(0, "--ply", min=0, max=2, help="search depth: 0 (the network), 1, 2"),
    as_json: bool = typer.Option(False, "--json", help="print JSON instead of text"),
    moves: bool = typer.Option(False, "--moves", help="list every decision"),
) -> None:
    """Analyse a match: PR, error rates, blunders, cube errors and luck per player."""
    from boardgammon.analysis.analysis import analyse_match
    from boardgammon.analysis.errors import UnavailableDepth
    from boardgammon.analysis.report import format_text, to_dict

    try:
        match = load_match(file)
    except OSError as exc:
        typer.echo(f"cannot read {file}: {exc.strerror or exc}", err=True)
        raise typer.Exit(2) from None
    except InvalidRecord as exc:
        typer.echo(f"{file} is not a match record that replays: {exc}", err=True)
        raise typer.Exit(2) from None
    from tqdm import tqdm

    # On standard error and only at a terminal (disable=None): a long match at 2-ply takes
    # minutes, and a pipe or a --json reader wants the result alone.
    with tqdm(total=len(match.record), unit="action", desc="Analysing", leave=False,
              disable=True if as_json else None) as bar:
        try:
            analysis = analyse_match(
                match,
                plies=ply,
                progress=lambda done, _total: bar.update(done - bar.n),
                engines=(engine_of(match.players[0]), engine_of(match.players[1])),
            )
        except UnavailableDepth as exc:
            typer.echo(f"--ply: {exc}", err=True)
            raise typer.Exit(2) from None
        except KeyboardInterrupt:
            # Nothing is kept: an analysis is reported whole or not at all.
            typer.echo(f"Interrupted (Ctrl-C) after {bar.n} of {len(match.record)} actions: "
                       f"no report (an analysis is reported whole).", err=True)
            raise typer.Exit(130) from None
    if as_json:
        typer.echo(json.dumps(to_dict(analysis, moves=moves), indent=2))
    else:
        typer.echo(format_text(analysis, moves=moves), nl=False)
