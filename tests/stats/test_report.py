"""The dice record report: counts, order tests, CSV reading and the plot, on records whose
answers are known by construction; the published count of
shared/reference/published-figures.md run through the whole report."""

import numpy as np
import pytest
from scipy import stats

from boardgammon.stats.doubles import p_run
from boardgammon.stats.errors import InvalidDiceRecord, InvalidQuery
from boardgammon.stats.plot import plot_report
from boardgammon.stats.record import DiceRecord, parse_time, read_csv
from boardgammon.stats.report import cell_table, dice_report, summary
from boardgammon.stats.significance import p_max_at_least

from .test_significance import ROLLS, published_table


def record_from_table(table: np.ndarray, **columns) -> DiceRecord:
    die1, die2 = np.divmod(np.repeat(np.arange(36), table.ravel()), 6)
    return DiceRecord.from_columns(die1 + 1, die2 + 1, **columns)


def test_published_count_through_the_report():
    report = dice_report(record_from_table(published_table()))
    assert report["rolls"] == ROLLS and report["dice"] == 877_358
    assert report["table"] == published_table().tolist()
    assert report["doubles"]["doubles"] == 73_179
    assert round(100 * report["doubles"]["share"], 2) == 16.68
    assert report["doubles"]["each"]["6-6"] == 12_447
    top = report["max_cell"]
    assert top["outcome"] == "6-6" and round(top["excess_percent"], 2) == 2.15
    assert top["p_look_elsewhere"] == pytest.approx(p_max_at_least(ROLLS, 36, 12_447))
    assert report["chi2_cells"]["df"] == 35 and report["chi2_faces"]["df"] == 5
    assert set(report) >= {"chi2_cells", "chi2_faces", "max_cell", "max_face", "order_tests"}


def test_small_record_by_hand():
    # Match a: 6-6, 6-6, 1-2, 3-3 ; match b: 2-2, 5-4.
    record = DiceRecord.from_columns(
        [6, 6, 2, 1, 3, 5],
        [6, 6, 2, 2, 3, 4],
        match_id=["a", "a", "b", "a", "a", "b"],
        seat=[0, 1, 0, 0, 1, 1],
        entropy_source=["client", "client", "server", "client", "", "server"],
    )
    report = dice_report(record)
    table = np.zeros((6, 6), dtype=int)
    for a, b in [(6, 6), (6, 6), (1, 2), (3, 3), (2, 2), (5, 4)]:
        table[a - 1, b - 1] += 1
    assert report["table"] == table.tolist()
    assert report["doubles"]["doubles"] == 4
    assert [f["count"] for f in report["faces"]] == [1, 3, 2, 1, 1, 4]
    by_match = report["order_tests"]["by_match"]
    assert by_match["sequences"] == 2
    # Followers of a double within a match: 6-6→6-6 (double), 6-6→1-2, 2-2→5-4.
    assert by_match["after_double"]["rolls"] == 3 and by_match["after_double"]["doubles"] == 1
    assert by_match["after_non_double_share"] == 1.0  # 1-2 → 3-3
    assert by_match["longest_run"]["length"] == 2
    exact = 1 - (1 - p_run(4, 2)) * (1 - p_run(2, 2))
    assert by_match["longest_run"]["p_at_least"] == pytest.approx(float(exact))
    # Seat 0 of match a rolled 6-6 then 1-2; seat 1 rolled 6-6 then 3-3: a run of 2.
    by_seat = report["order_tests"]["by_seat"]
    assert by_seat["sequences"] == 4 and by_seat["longest_run"]["length"] == 2
    seats = {row["label"]: row for row in report["order_tests"]["seats"]}
    assert (seats["0"]["rolls"], seats["0"]["doubles"]) == (3, 2)
    assert (seats["1"]["rolls"], seats["1"]["doubles"]) == (3, 2)
    sources = {row["label"]: row["rolls"] for row in report["order_tests"]["entropy_sources"]}
    assert sources == {"client": 3, "server": 2, "unknown": 1}


def test_runs_do_not_cross_matches():
    record = DiceRecord.from_columns([1, 1, 1, 1], [1, 1, 1, 1], match_id=["a", "a", "b", "b"])
    order = dice_report(record)["order_tests"]["by_match"]
    assert order["longest_run"]["length"] == 2
    assert order["after_double"]["rolls"] == 2  # a→a and b→b, not a→b
    assert order["longest_run"]["p_at_most"] == pytest.approx(1.0)


def test_random_rolls_against_independent_computations():
    rng = np.random.default_rng(11)
    dice = rng.integers(1, 7, size=(2, 50_000))
    record = DiceRecord.from_columns(dice[0], dice[1], match_id=np.arange(50_000) // 40)
    report = dice_report(record)
    table = np.zeros((6, 6), dtype=int)
    np.add.at(table, (dice[0] - 1, dice[1] - 1), 1)
    assert report["table"] == table.tolist() == cell_table(dice[0], dice[1]).tolist()
    doubles = int((dice[0] == dice[1]).sum())
    assert report["doubles"]["doubles"] == doubles
    assert report["doubles"]["p"] == pytest.approx(stats.binomtest(doubles, 50_000, 1 / 6).pvalue)
    faces = np.bincount(dice.ravel(), minlength=7)[1:]
    assert [f["count"] for f in report["faces"]] == faces.tolist()
    assert report["chi2_faces"]["p"] == pytest.approx(stats.chisquare(faces).pvalue)
    assert report["chi2_cells"]["p"] == pytest.approx(stats.chisquare(table.ravel()).pvalue)
    assert report["order_tests"]["by_match"]["sequences"] == 1250
    for face in report["faces"]:
        assert face["ci95"][0] < face["share"] < face["ci95"][1]
    text = " ".join(summary(report))
    assert "50,000 rolls" in text and "cannot show" in text


def test_loaded_die_is_found():
    rng = np.random.default_rng(12)
    die1 = rng.choice(np.arange(1, 7), size=60_000, p=[0.15, 0.15, 0.15, 0.15, 0.15, 0.25])
    die2 = rng.integers(1, 7, size=60_000)
    report = dice_report(DiceRecord.from_columns(die1, die2))
    assert report["chi2_faces"]["p"] < 1e-6
    assert report["max_face"]["face"] == 6 and report["max_face"]["p_look_elsewhere"] < 1e-6


@pytest.mark.parametrize(
    ("columns", "message"),
    [
        ({"die1": [], "die2": []}, "no rolls"),
        ({"die1": [1, 7], "die2": [1, 1]}, "row 2: die1 = 7"),
        ({"die1": [1, 2], "die2": [0, 1]}, "row 1: die2 = 0"),
        ({"die1": [1, 2], "die2": [1]}, "column die2 has 1 rows"),
        ({"die1": [1.5], "die2": [1]}, "die1 must hold integers"),
    ],
)
def test_bad_columns_are_refused(columns, message):
    with pytest.raises(InvalidDiceRecord, match=message):
        DiceRecord.from_columns(**columns)


def _write(tmp_path, text):
    path = tmp_path / "rolls.csv"
    path.write_text(text)
    return path


def test_csv_with_every_column_is_ordered_by_reveal_time(tmp_path):
    path = _write(
        tmp_path,
        "match_id,roll_id,seat,revealed_at,entropy_source,die1,die2,extra\n"
        "m1,r2,1,2026-06-01T10:00:02Z,client,3,3,x\n"
        "m1,r1,0,2026-06-01T10:00:01Z,client,5,5,x\n"
        "m2,r3,0,2026-06-01T09:00:00+00:00,server,1,2,x\n"
        "m1,r4,0,2026-06-01T10:00:03,client,6,1,x\n",
    )
    record = read_csv(path)
    assert record.die1.tolist() == [5, 3, 6, 1]
    assert record.match.tolist() == [0, 0, 0, 1]  # m1 before m2, grouped
    assert record.seat.labels == ("0", "1")
    late = read_csv(path, since=parse_time("2026-06-01T10:00:02Z"))
    assert late.die1.tolist() == [3, 6]
    early = read_csv(path, until=parse_time("2026-06-01T10:00:00Z"))
    assert early.die1.tolist() == [1]


def test_csv_with_dice_only_keeps_file_order(tmp_path):
    record = read_csv(_write(tmp_path, "die1,die2\n4,4\n4,4\n\n2,3\n"))
    assert record.die1.tolist() == [4, 4, 2] and record.seat is None
    assert dice_report(record)["order_tests"]["by_match"]["longest_run"]["length"] == 2


@pytest.mark.parametrize(
    ("text", "kwargs", "message"),
    [
        ("die1,seat\n1,0\n", {}, "missing die2"),
        ("", {}, "found: nothing"),
        ("die1,die2\n1,x\n", {}, "line 2: die2 = 'x' is not a whole number"),
        ("die1,die2\n1,9\n", {}, "line 2: die2 = 9"),
        ("die1,die2\n1\n", {}, "line 2: 1 fields"),
        ("die1,die2\n", {}, "no rolls"),
        ("die1,die2,revealed_at\n1,1,yesterday\n", {}, "not an ISO 8601 time"),
        ("die1,die2\n1,1\n", {"since": parse_time("2026-01-01")}, "no revealed_at column"),
        ("die1,die2,die1\n1,2,3\n", {}, "names die1 more than once"),
    ],
)
def test_bad_csv_is_refused(tmp_path, text, kwargs, message):
    with pytest.raises(InvalidDiceRecord, match=message):
        read_csv(_write(tmp_path, text), **kwargs)


def test_missing_csv_file(tmp_path):
    with pytest.raises(InvalidDiceRecord, match="cannot read"):
        read_csv(tmp_path / "absent.csv")


@pytest.mark.parametrize(("suffix", "magic"), [(".png", b"\x89PNG"), (".svg", b"<?xml")])
def test_plot_files(tmp_path, suffix, magic):
    report = dice_report(record_from_table(published_table()))
    path = plot_report(report, tmp_path / f"dice{suffix}")
    assert path.read_bytes().startswith(magic)


def test_plot_says_its_words_in_the_language_given(tmp_path):
    """The server labels the picture in the page's language (a new user found it English on
    the German and Japanese pages): every word and the grouped counts are the ones given, and
    Japanese text has its glyphs (matplotlib warns of any missing from every font)."""
    import warnings

    from matplotlib import rc_context

    from boardgammon.server.dice_stats import plot_words

    report = dice_report(record_from_table(published_table()))
    with rc_context({"svg.fonttype": "none"}):  # the SVG's text as text, to read it back
        drawn = plot_report(report, tmp_path / "de.svg", plot_words("de")).read_text()
    rolls = f"{report['rolls']:,}".replace(",", ".")
    for said in (f"{rolls} Würfe: Anzahl je geordnetem Ergebnis", "zweiter Würfel",
                 "erster Würfel", "Augenzahl", "% aller Würfel", "Anteil, 95-%-Intervall"):
        assert said in drawn, said
    assert "second die" not in drawn and "first die" not in drawn
    assert "16,70" in drawn and "16.70" not in drawn  # the share axis, German decimals
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "Glyph … missing from font(s)" fails the test
        with rc_context({"svg.fonttype": "none"}):
            drawn = plot_report(report, tmp_path / "ja.svg", plot_words("ja")).read_text()
        plot_report(report, tmp_path / "ja.png", plot_words("ja"))
    assert "2 個目のダイス" in drawn and "全ダイスに占める %" in drawn


def test_plot_refuses_other_formats(tmp_path):
    report = dice_report(record_from_table(published_table()))
    with pytest.raises(InvalidQuery, match=r"\.png or \.svg"):
        plot_report(report, tmp_path / "dice.jpg")
    assert not (tmp_path / "dice.jpg").exists()


def test_summary_counts_one_case_in_the_singular():
    one = dice_report(DiceRecord.from_columns([6, 2], [6, 3], match_id=["a", "a"]))
    assert one["order_tests"]["by_match"]["after_double"]["rolls"] == 1
    text = " ".join(summary(one))
    assert "a double in 0 of 1 case (0.00 %" in text and "times" not in text
    two = dice_report(DiceRecord.from_columns([6, 6, 4], [6, 6, 3], match_id=["a"] * 3))
    assert "a double in 1 of 2 cases (50.00 %" in " ".join(summary(two))
