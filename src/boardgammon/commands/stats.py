"""``boardgammon stats dice-report``: the statistical report over the dice record."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import typer

from boardgammon.server.settings import Settings
from boardgammon.stats.errors import InvalidRecord, StatsError
from boardgammon.stats.record import DiceRecord, parse_time, read_csv

app = typer.Typer(help="Statistics over the dice record.", no_args_is_help=True)

REVEALED = ("revealed", "played")
"""Roll states whose dice are public; committed and void rolls have none."""


def read_database(
    url: str, since: datetime | None = None, until: datetime | None = None
) -> DiceRecord:
    """The revealed rolls of the server's dice record (table ``dice_rolls``), in the order of
    play (match, then ``seq``); ``since``/``until`` bound ``revealed_at`` to ``[since, until)``.

    Raises:
        InvalidRecord: a malformed URL or one naming no installed driver, an SQLite file that
            does not exist, a database without the dice record, or no revealed rolls in the
            window.
    """
    # The server's modules pull in FastAPI and Alembic: only import them when the database is read.
    from sqlalchemy import select
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError, SQLAlchemyError

    from boardgammon.server.db import create_db_engine
    from boardgammon.server.tables import DiceRoll

    try:
        parsed = make_url(url)
    except ArgumentError as error:
        raise InvalidRecord(f"cannot read the dice record: {error}: {url!r}") from None
    # SQLite would create an empty file on connect; a missing record is an error, not a report.
    if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
        if not Path(parsed.database).exists():
            raise InvalidRecord(
                f"no dice record at {parsed.database}; pass --csv FILE or set "
                "BOARDGAMMON_DATABASE_URL"
            )
    query = (
        select(
            DiceRoll.match_id, DiceRoll.seat, DiceRoll.die1, DiceRoll.die2, DiceRoll.entropy_source
        )
        .where(DiceRoll.state.in_(REVEALED), DiceRoll.die1.is_not(None))
        .order_by(DiceRoll.match_id, DiceRoll.seq)
    )
    if since is not None:
        query = query.where(DiceRoll.revealed_at >= since)
    if until is not None:
        query = query.where(DiceRoll.revealed_at < until)
    try:
        engine = create_db_engine(url)
    except (ValueError, ArgumentError) as error:
        # ArgumentError includes NoSuchModuleError: a URL naming no installed database driver.
        raise InvalidRecord(f"cannot read the dice record: {error}") from None
    try:
        with engine.connect() as connection:
            rows = connection.execute(query).all()
    except SQLAlchemyError as error:
        raise InvalidRecord(
            f"cannot read the dice record from {parsed!r}: "
            f"{type(error).__name__}: {getattr(error, 'orig', None) or error}"
        ) from None
    finally:
        engine.dispose()
    if not rows:
        raise InvalidRecord(f"no revealed rolls in the dice record at {parsed!r} for this window")
    match_id, seat, die1, die2, source = zip(*rows, strict=True)
    return DiceRecord.from_columns(
        list(die1), list(die2), match_id=match_id, seat=seat, entropy_source=source
    )


def _p(p: float) -> str:
    """A p-value to four decimals, or in scientific notation where that would print 0.0000
    (below double precision's smallest number it is shown as such, not as 0)."""
    if p == 0:
        return "< 1e-308"
    return f"{p:.4f}" if p >= 5e-5 else f"{p:.1e}"


def _render(report: dict) -> str:
    from boardgammon.stats.report import summary

    table = report["table"]
    lines = [
        f"{report['rolls']:,} rolls, {report['dice']:,} dice; "
        f"fair count per ordered outcome {report['expected_per_outcome']:,.1f}",
        "",
        "first die \\ second die" + "".join(f"{f:>9}" for f in range(1, 7)),
    ]
    lines += [f"{r + 1:>22}" + "".join(f"{c:>9,}" for c in row) for r, row in enumerate(table)]
    d = report["doubles"]
    lines += [
        "",
        f"doubles {d['doubles']:,} = {100 * d['share']:.2f} %   "
        + "  ".join(f"{k} {v:,}" for k, v in d["each"].items()),
    ]
    lines.append(
        "faces   "
        + "  ".join(
            f"{f['face']}: {100 * f['share']:.2f} % "
            f"[{100 * f['ci95'][0]:.2f}, {100 * f['ci95'][1]:.2f}]"
            for f in report["faces"]
        )
    )
    for key, name in (("chi2_cells", "36 outcomes"), ("chi2_faces", "6 faces")):
        c = report[key]
        lines.append(
            f"chi-square over {name}: {c['statistic']:.2f}, {c['df']} df, p = {_p(c['p'])}"
            + ("" if c["approximation_ok"] else
               f" (rough: {c['expected']:.1f} expected per cell, under 5)")
        )
    m, f = report["max_cell"], report["max_face"]
    lines.append(
        f"commonest outcome {m['outcome']} ({m['count']:,}, {m['excess_percent']:+.2f} %): "
        f"p = {_p(m['p_look_elsewhere'])} any outcome, {_p(m['p_naive'])} named in advance"
    )
    lines.append(
        f"face furthest from 1/6: {f['face']} ({100 * f['share']:.3f} %): "
        f"p = {_p(f['p_look_elsewhere'])} any face, {_p(f['p_naive'])} named in advance"
    )
    lines += ["", *summary(report)]
    return "\n".join(lines)


@app.command("dice-report")
def dice_report_command(
    csv: Path | None = typer.Option(
        None,
        "--csv",
        help="Read rolls from a CSV file instead "
        "(header with die1,die2; optional match_id, roll_id, seat, "
        "revealed_at, entropy_source).",
    ),
    since: str | None = typer.Option(
        None,
        "--since",
        help="Only rolls revealed at or after this ISO 8601 time (UTC if no offset).",
    ),
    until: str | None = typer.Option(None, "--until", help="Only rolls revealed before this."),
    plot: Path | None = typer.Option(
        None, "--plot", help="Also draw the table and face shares to this .png or .svg file."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the report as one JSON object."),
) -> None:
    """Report on every revealed roll of online matches: table, chi-square, extremes with and
    without look-elsewhere, order tests, and what the figures cannot show. Reads the database
    in BOARDGAMMON_DATABASE_URL (default: SQLite ./var/boardgammon.sqlite3) unless --csv."""
    try:
        start = None if since is None else parse_time(since)
        end = None if until is None else parse_time(until)
        if start is not None and end is not None and start >= end:
            raise StatsError(f"--since ({since}) must be before --until ({until}): the window "
                             "[since, until) is empty")
        # scipy and matplotlib take seconds to import: only this command loads them, not the CLI.
        from boardgammon.stats.report import dice_report, summary

        if csv is not None:
            record = read_csv(csv, since=start, until=end)
        else:
            url = Settings.from_env().database_url
            record = read_database(url, since=start, until=end)
        report = dice_report(record)
        if plot is not None:
            from boardgammon.stats.plot import plot_report

            plot_report(report, plot)
    except StatsError as error:
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(code=2) from None
    if as_json:
        report["summary"] = summary(report)
        typer.echo(json.dumps(report, indent=2))
    else:
        typer.echo(_render(report))
