"""``boardgammon stats dice-report``: the statistical report over the dice record;
``boardgammon stats refresh-record``: the public page's report made again now."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import typer

from boardgammon.server.dice_stats import read_database, request_refresh
from boardgammon.server.settings import Settings
from boardgammon.stats.errors import StatsError
from boardgammon.stats.record import parse_time, read_csv

app = typer.Typer(help="Statistics over the dice record.", no_args_is_help=True)

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


@app.command("refresh-record")
def refresh_record_command() -> None:
    """Make the dice record page's report (/dice-record, its CSV, JSON and plot) again now
    instead of when it is a day old: every server process on the database in
    BOARDGAMMON_DATABASE_URL does so at its next request for it."""
    try:
        request_refresh(Settings.from_env().database_url, datetime.now(UTC))
    except StatsError as error:
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(code=2) from None
    typer.echo("The dice record's report will be made again at its next request.")
