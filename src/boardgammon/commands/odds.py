"""``boardgammon odds doubles`` and ``boardgammon odds kniffel``: exact dice odds."""

from __future__ import annotations

import json
from fractions import Fraction

import typer

from boardgammon.stats.doubles import doubles_odds
from boardgammon.stats.errors import StatsError
from boardgammon.stats.kniffel import kniffel_odds
from boardgammon.stats.output import as_percent, as_value, fraction_text

app = typer.Typer(help="Exact dice odds, as fractions in lowest terms.", no_args_is_help=True)


def _fail(error: StatsError) -> typer.Exit:
    typer.echo(f"error: {error}", err=True)
    return typer.Exit(code=2)


def _table(rows: list[tuple[str, str]]) -> str:
    width = max(len(label) for label, _ in rows)
    return "\n".join(f"{label:<{width}}  {value}" for label, value in rows)


def _pct(x: Fraction) -> str:
    """A probability as a percentage with two decimals, except where two decimals would
    mislead: exactly 0 and 1 say so, a chance too small to show reads in scientific
    notation, and one just short of certain as "> 99.99 %"."""
    if x == 0 or x == 1:
        text = f"{int(x * 100)} %"
    elif (percent := float(x * 100)) < 0.005:
        text = f"{percent:.2e} %"
    elif percent >= 99.995:
        text = "> 99.99 %"
    else:
        text = f"{percent:.2f} %"
    return text.rjust(10)


def _count(n: int, thing: str) -> str:
    """``n`` with ``thing`` in the singular or plural ("1 roll", "25 rolls")."""
    return f"{n} {thing}" if n == 1 else f"{n} {thing}s"


@app.command()
def doubles(
    rolls: int = typer.Option(25, "--rolls", help="Rolls N by each player."),
    margin: int = typer.Option(2, "--margin", help="D in 'at least D more doubles'."),
    games: int = typer.Option(20, "--games", help="G in 'in at least one of G games'."),
    run: int | None = typer.Option(None, "--run", help="Also report a run of K doubles."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """Exact odds of doubles for two fair dice, you and an opponent rolling N times each."""
    try:
        odds = doubles_odds(rolls=rolls, margin=margin, games=games, run=run)
    except StatsError as error:
        raise _fail(error) from None
    probabilities = {
        "p_at_least_one_double": odds.p_at_least_one_double,
        "p_run_of_2": odds.p_run_of_2,
        "p_run_of_3": odds.p_run_of_3,
        "p_opponent_more_by_margin": odds.p_opponent_more_by_margin,
        "p_you_more_by_margin": odds.p_you_more_by_margin,
        "p_opponent_run_of_3_within_games": odds.p_opponent_run_of_3_within_games,
    }
    if odds.p_run_of_k is not None and run is not None:
        probabilities["p_run_of_k"] = odds.p_run_of_k
    if as_json:
        out = {
            "rolls": rolls,
            "margin": margin,
            "games": games,
            "run": run,
            "expected_doubles": as_value(odds.expected_doubles),
        }
        out |= {key: as_percent(value) for key, value in probabilities.items()}
        typer.echo(json.dumps(out, indent=2))
        return
    rows = [
        (
            f"expected doubles in {_count(rolls, 'roll')}",
            f"{float(odds.expected_doubles):6.2f}   ({fraction_text(odds.expected_doubles)})",
        ),
        ("at least one double", _pct(odds.p_at_least_one_double)),
        ("a run of 2 doubles in a row", _pct(odds.p_run_of_2)),
        ("a run of 3 doubles in a row", _pct(odds.p_run_of_3)),
    ]
    # A run of 2 or 3 has its own line already.
    if odds.p_run_of_k is not None and run is not None and run not in (2, 3):
        rows.append((f"a run of {_count(run, 'double')} in a row", _pct(odds.p_run_of_k)))
    rows += [
        (f"opponent rolls ≥ {_count(margin, 'double')} more than you",
         _pct(odds.p_opponent_more_by_margin)),
        (f"you roll ≥ {_count(margin, 'double')} more than the opponent",
         _pct(odds.p_you_more_by_margin)),
        (
            f"opponent rolls 3 doubles in a row in ≥ 1 of {_count(games, 'game')}",
            _pct(odds.p_opponent_run_of_3_within_games),
        ),
    ]
    typer.echo(f"Two fair dice, {_count(rolls, 'roll')} each (exact; --json for the fractions)")
    typer.echo(_table(rows))


@app.command()
def kniffel(
    dice: int = typer.Option(5, "--dice", help="Dice rolled."),
    sides: int = typer.Option(6, "--sides", help="Faces per die."),
    rolls: int = typer.Option(3, "--rolls", help="Most rolls in a turn."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """Exact chance of a Kniffel (Yahtzee) within 1…R rolls: optimal play, always re-rolling,
    and keeping the largest group's face; plus the first-roll table."""
    try:
        odds = kniffel_odds(dice=dice, sides=sides, rolls=rolls)
    except StatsError as error:
        raise _fail(error) from None
    strategies = {
        "optimal": odds.optimal,
        "always_reroll": odds.always_reroll,
        "fixed_target": odds.fixed_target,
    }
    if as_json:
        out: dict = {"dice": dice, "sides": sides, "rolls": rolls}
        for key, values in strategies.items():
            out[key] = [{"rolls": r, **as_percent(p)} for r, p in enumerate(values, start=1)]
        out["first_roll_groups"] = [
            {"largest_group": g.largest_group, "outcomes": g.outcomes, **as_percent(g.p_finish)}
            for g in odds.first_roll_groups
        ]
        typer.echo(json.dumps(out, indent=2))
        return
    rolled = "1 die" if dice == 1 else f"{dice} dice"
    typer.echo(f"{rolled} with {sides} sides: chance of all showing one face (exact)")
    header = "rolls  " + "  ".join(f"{key:>13}" for key in strategies)
    typer.echo(header)
    for r in range(rolls):
        typer.echo(f"{r + 1:>5}  " + "  ".join(f"{_pct(v[r]):>13}" for v in strategies.values()))
    typer.echo(
        f"\nFirst roll ({sides**dice:,} outcomes): largest group, outcomes, "
        f"chance to finish with {rolls - 1} more roll(s), optimal play"
    )
    for g in odds.first_roll_groups:
        typer.echo(f"{g.largest_group:>5}  {g.outcomes:>12,}  {_pct(g.p_finish)}")
