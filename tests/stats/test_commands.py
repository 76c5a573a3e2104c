"""``boardgammon odds …`` and ``boardgammon stats dice-report``: options, JSON keys of issue 4,
errors, and the report read from a real dice record written by the server's service."""

import json
import re
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from math import gcd

import pytest
from typer.testing import CliRunner

from boardgammon.cli import app
from boardgammon.commands.stats import read_database
from boardgammon.stats.doubles import doubles_odds, p_run
from boardgammon.stats.errors import InvalidDiceRecord

runner = CliRunner()


def run_ok(*args, env=None):
    result = runner.invoke(app, list(args), env=env)
    assert result.exit_code == 0, result.output
    return result.stdout


def lowest_terms(text: str) -> Fraction:
    numerator, denominator = map(int, text.split("/"))
    assert gcd(numerator, denominator) == 1 and denominator > 0
    return Fraction(numerator, denominator)


def test_odds_doubles_json():
    out = json.loads(
        run_ok(
            "odds",
            "doubles",
            "--json",
            "--rolls",
            "30",
            "--margin",
            "3",
            "--games",
            "5",
            "--run",
            "4",
        )
    )
    keys = {
        "expected_doubles",
        "p_at_least_one_double",
        "p_run_of_2",
        "p_run_of_3",
        "p_opponent_more_by_margin",
        "p_opponent_run_of_3_within_games",
    }
    assert keys <= set(out)
    assert out["expected_doubles"] == {"fraction": "5/1", "value": 5.0}
    odds = doubles_odds(rolls=30, margin=3, games=5, run=4)
    for key in keys - {"expected_doubles"}:
        assert lowest_terms(out[key]["fraction"]) == getattr(odds, key)
        assert out[key]["percent"] == pytest.approx(float(getattr(odds, key)) * 100)
    assert lowest_terms(out["p_run_of_k"]["fraction"]) == p_run(30, 4)


def test_odds_doubles_plain_table():
    out = run_ok("odds", "doubles")
    assert "a run of 3 doubles in a row" in out and "8.67 %" in out
    assert "25/6" in out and "83.68 %" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [(["--rolls", "0"], "rolls must be an integer ≥ 1"), (["--run", "0"], "run must be")],
)
def test_odds_doubles_refuses_bad_input(args, message):
    result = runner.invoke(app, ["odds", "doubles", *args])
    assert result.exit_code == 2 and message in result.output


def test_odds_kniffel_json():
    out = json.loads(run_ok("odds", "kniffel", "--json"))
    assert set(out) >= {"optimal", "always_reroll", "fixed_target", "first_roll_groups"}
    assert [row["rolls"] for row in out["optimal"]] == [1, 2, 3]
    assert out["optimal"][0]["fraction"] == "1/1296"  # shared/reference/published-figures.md
    assert out["optimal"][2]["percent"] == pytest.approx(4.60, abs=0.01)
    assert [g["outcomes"] for g in out["first_roll_groups"]] == [720, 5400, 1500, 150, 6]
    assert out["first_roll_groups"][4]["fraction"] == "1/1"
    for row in out["always_reroll"] + out["fixed_target"]:
        lowest_terms(row["fraction"])


def test_odds_kniffel_generalised_and_refused():
    out = json.loads(
        run_ok("odds", "kniffel", "--json", "--dice", "2", "--sides", "4", "--rolls", "2")
    )
    assert out["optimal"][1]["fraction"] == "7/16"  # 1/4 + 3/4 · 1/4
    assert "optimal" in run_ok("odds", "kniffel", "--dice", "3")
    result = runner.invoke(app, ["odds", "kniffel", "--sides", "0"])
    assert result.exit_code == 2 and "sides must be" in result.output


CSV = "match_id,seat,revealed_at,entropy_source,die1,die2\n" + "".join(
    f"m{i // 10},{i % 2},2026-06-01T10:{i // 60:02d}:{i % 60:02d}Z,client,"
    f"{1 + (i * 7) % 6},{1 + (i * 5 + i // 6) % 6}\n"
    for i in range(120)
)


def test_dice_report_csv_json_and_plot(tmp_path):
    path = tmp_path / "rolls.csv"
    path.write_text(CSV)
    plot = tmp_path / "dice.svg"
    out = json.loads(
        run_ok("stats", "dice-report", "--csv", str(path), "--json", "--plot", str(plot))
    )
    assert out["rolls"] == 120 and out["dice"] == 240
    for key in ("chi2_cells", "chi2_faces"):
        assert set(out[key]) == {"statistic", "df", "p", "expected", "approximation_ok"}
    # 120 rolls: 3.3 expected per outcome, under Cochran's 5 (a rough p-value, and the summary
    # says so); 240 dice: 40 per face, fine.
    assert out["chi2_cells"]["expected"] == pytest.approx(120 / 36)
    assert out["chi2_cells"]["approximation_ok"] is False
    assert out["chi2_faces"]["expected"] == 40.0 and out["chi2_faces"]["approximation_ok"] is True
    summary = " ".join(out["summary"])
    assert summary.count("this p-value is rough") == 1
    assert {"max_cell", "max_face", "order_tests", "summary", "table", "faces"} <= set(out)
    assert {"by_match", "by_seat", "seats", "entropy_sources"} <= set(out["order_tests"])
    assert plot.read_text().lstrip().startswith("<?xml")
    late = json.loads(
        run_ok(
            "stats", "dice-report", "--csv", str(path), "--json", "--since", "2026-06-01T10:01:00Z"
        )
    )
    assert late["rolls"] == 60


def test_dice_report_plain(tmp_path):
    path = tmp_path / "rolls.csv"
    path.write_text(CSV)
    out = run_ok("stats", "dice-report", "--csv", str(path))
    assert "chi-square over 36 outcomes" in out and "What this cannot show" in out


def test_dice_report_errors(tmp_path):
    result = runner.invoke(app, ["stats", "dice-report", "--csv", str(tmp_path / "none.csv")])
    assert result.exit_code == 2 and "cannot read" in result.output
    missing = tmp_path / "absent.sqlite3"
    result = runner.invoke(
        app, ["stats", "dice-report"], env={"BOARDGAMMON_DATABASE_URL": f"sqlite:///{missing}"}
    )
    assert result.exit_code == 2 and "no dice record at" in result.output
    assert not missing.exists()
    result = runner.invoke(app, ["stats", "dice-report", "--csv", "x.csv", "--since", "soon"])
    assert result.exit_code == 2 and "not an ISO 8601 time" in result.output


@pytest.fixture
def dice_record_db(tmp_path):
    """A SQLite dice record written through the server's own dice-record service: two matches,
    rolls revealed by the device or the server, played, one left committed and one voided."""
    from boardgammon.dice.ids import new_match_id
    from boardgammon.server import dice_record as service
    from boardgammon.server.db import open_database

    url = f"sqlite:///{tmp_path}/record.sqlite3"
    db = open_database(url)
    start = datetime(2026, 6, 1, 12, tzinfo=UTC)
    expected = []
    try:
        with db.sessions() as session:
            for m in range(2):
                match_id = new_match_id()
                for i in range(6):
                    now = start + timedelta(minutes=10 * m + i)
                    roll = service.commit_roll(session, match_id, i % 2, now=now)
                    if i == 5 and m == 0:
                        service.void_roll(session, roll.roll_id, now=now)
                        continue
                    if i == 5:
                        break  # left committed: no dice yet
                    if i % 3:
                        roll = service.reveal_roll(
                            session, roll.roll_id, roll.commitment, bytes(range(16)), now=now
                        )
                    else:
                        roll = service.auto_reveal_roll(session, roll.roll_id, now=now)
                    service.mark_played(session, roll.roll_id, now=now)
                    expected.append((match_id, i, roll.dice, roll.entropy_source))
    finally:
        db.dispose()
    return url, start, expected


def test_read_database_takes_revealed_rolls_in_order(dice_record_db):
    url, start, expected = dice_record_db
    record = read_database(url)
    expected.sort(key=lambda e: (e[0], e[1]))
    assert list(zip(record.die1.tolist(), record.die2.tolist(), strict=True)) == [
        e[2] for e in expected
    ]
    assert len(record) == 10
    sources = [record.entropy_source.labels[c] for c in record.entropy_source.codes]
    assert sources == [e[3] for e in expected]
    assert record.seat.labels == ("0", "1")
    window = read_database(
        url, since=start + timedelta(minutes=10), until=start + timedelta(minutes=12)
    )
    assert len(window) == 2


def test_dice_report_from_the_database(dice_record_db):
    url, _, expected = dice_record_db
    out = json.loads(
        run_ok("stats", "dice-report", "--json", env={"BOARDGAMMON_DATABASE_URL": url})
    )
    assert out["rolls"] == len(expected) == 10
    assert out["order_tests"]["by_match"]["sequences"] == 2
    with pytest.raises(InvalidDiceRecord, match="no revealed rolls"):
        read_database(url, since=datetime(2030, 1, 1, tzinfo=UTC))


def test_odds_doubles_table_reads_right_at_the_edges():
    """Singular counts, exact 0 %, a chance too small for two decimals in scientific notation
    (p_run(200, 20) is about 4.13e-14, so 4.13e-12 %) and one just short of certain as
    "> 99.99 %"."""
    out = run_ok("odds", "doubles", "--rolls", "1", "--margin", "1", "--games", "1", "--run", "1")
    assert out.splitlines()[0].startswith("Two fair dice, 1 roll each")
    assert "a run of 1 double in a row" in out and "≥ 1 of 1 game " in out
    assert re.search(r"a run of 2 doubles in a row +0 %", out)
    out = run_ok("odds", "doubles", "--rolls", "200", "--run", "20")
    expected = f"{float(p_run(200, 20)) * 100:.2e} %"
    assert re.search(rf"a run of 20 doubles in a row +{re.escape(expected)}", out)
    assert re.search(r"at least one double +> 99\.99 %", out)


def test_stats_refuses_an_empty_time_window(tmp_path):
    path = tmp_path / "rolls.csv"
    path.write_text("die1,die2,revealed_at\n1,2,2026-06-01T00:00:00Z\n")
    result = runner.invoke(app, ["stats", "dice-report", "--csv", str(path),
                                 "--since", "2026-07-01", "--until", "2026-06-01"])
    assert result.exit_code == 2 and result.stdout == ""
    assert "--since (2026-07-01) must be before --until (2026-06-01)" in result.stderr


def test_odds_doubles_run_of_3_is_one_line():
    # Issue 26: --run 3 printed the run-of-3 line twice; --run 4 adds its own line.
    assert run_ok("odds", "doubles", "--run", "3").count("a run of 3 doubles in a row") == 1
    assert "a run of 4 doubles in a row" in run_ok("odds", "doubles", "--run", "4")


def test_odds_kniffel_one_die_is_singular():
    out = run_ok("odds", "kniffel", "--dice", "1")
    assert out.startswith("1 die with 6 sides") and "1 dice" not in out
