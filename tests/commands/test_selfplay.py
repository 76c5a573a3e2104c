"""``boardgammon selfplay``: summaries, reproducibility, and records gnubg imports."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from boardgammon.bots import create
from boardgammon.cli import app
from boardgammon.commands.selfplay import run
from boardgammon.engine.match import Match
from boardgammon.formats import read_mat, write_mat
from tests.helpers.gnubg import run_script

runner = CliRunner()


def test_summary_adds_up_over_whole_matches():
    matches: list[Match] = []
    summary = run(create("easy", 1), create("easy", 2), games=12, length=3,
                  rng=random.Random(5), on_match=matches.append)
    assert summary.games == 12
    assert sum(summary.wins) == 12
    assert summary.matches == len(matches) >= 1
    assert sum(summary.match_wins) == summary.matches
    # Points and outcomes of the finished matches agree with the summary's share of them.
    finished = [r for m in matches for r in m.results]
    assert len(finished) <= 12
    for m in matches:
        assert m.is_over and max(m.score) >= 3
        assert sum(r.points for r in m.results if r.winner == m.winner) == m.score[m.winner]
    assert summary.points_per_game == pytest.approx(
        (summary.points[0] - summary.points[1]) / 12)
    assert summary.games_per_second > 0


@pytest.mark.parametrize("length", [0, 1])
def test_money_and_one_point_sessions(length):
    summary = run(create("easy", 3), create("easy", 4), games=4, length=length,
                  rng=random.Random(6))
    assert summary.games == 4
    if length == 1:
        # No cube and one game per match: every game is a match, worth 1-3 points.
        assert summary.matches == 4
        assert all(1 <= p for p in summary.points if p) and sum(summary.wins) == 4


def test_cli_json_is_reproducible_with_a_seed():
    args = ["selfplay", "--white", "easy", "--black", "easy", "--games", "3", "--length", "3",
            "--seed", "9", "--json"]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    data = json.loads(first.output)
    assert data["games"] == 3 and sum(data["wins"]) == 3
    for key in ("gammons", "backgammons", "points", "points_per_game", "games_per_second"):
        assert key in data
    second = json.loads(runner.invoke(app, args).output)
    for key in ("wins", "gammons", "backgammons", "points", "matches"):
        assert second[key] == data[key]


def test_cli_text_summary():
    result = runner.invoke(app, ["selfplay", "--games", "2", "--seed", "1"])
    assert result.exit_code == 0, result.output
    assert "2 games, money play" in result.output  # no match count in money play
    assert "white (easy)" in result.output and "black (easy)" in result.output
    assert "points per game (white):" in result.output and "games per second" in result.output


def test_cli_text_summary_of_matches_counts_in_singular_and_plural():
    one = runner.invoke(app, ["selfplay", "--games", "1", "--length", "1", "--seed", "1"])
    assert one.exit_code == 0, one.output
    assert "1 game (1 match finished), 1-point matches" in one.output
    two = runner.invoke(app, ["selfplay", "--games", "2", "--length", "1", "--seed", "1"])
    assert "2 games (2 matches finished), 1-point matches" in two.output


def test_cli_refuses_unknown_levels_and_variants():
    result = runner.invoke(app, ["selfplay", "--white", "grandmaster", "--games", "1"])
    assert result.exit_code == 2
    assert "unknown bot level 'grandmaster'" in result.output
    result = runner.invoke(app, ["selfplay", "--variant", "chess", "--games", "1"])
    assert result.exit_code == 2
    assert "unknown variant 'chess'" in result.output


def test_cli_saves_json_and_mat_records(tmp_path):
    result = runner.invoke(app, ["selfplay", "--games", "8", "--length", "3", "--seed", "2",
                                 "--save", str(tmp_path), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["matches"] >= 1
    assert len(data["saved"]) == 2 * data["matches"]
    record = Match.from_json((tmp_path / "match-0001.json").read_text())
    assert record.is_over
    assert (tmp_path / "match-0001.mat").read_text() == write_mat(record)


_IMPORT = r'''
with open("selfplay.mat", "w") as f:
    f.write(os.environ["MAT"])
gnubg.command("import mat selfplay.mat")
m = gnubg.match(analysis=0, boards=0)
emit({"length": m["match-info"]["match-length"],
      "games": [[g["info"]["winner"], g["info"]["points-won"], g["info"]["score-X"],
                 g["info"]["score-O"]] for g in m["games"]]})
'''


@pytest.mark.gnubg
def test_a_selfplay_match_imports_into_gnubg():
    matches: list[Match] = []
    run(create("easy", 11), create("easy", 12), games=20, length=5, rng=random.Random(13),
        on_match=matches.append)
    match = max(matches, key=lambda m: len(m.games))     # the longest match played
    got = run_script(_IMPORT, env={"MAT": write_mat(match)})
    assert got["length"] == 5
    assert len(got["games"]) == len(match.games)
    score = [0, 0]
    for result, (winner, points, score_x, score_o) in zip(match.results, got["games"],
                                                          strict=True):
        assert (score_x, score_o) == tuple(score)
        assert ("XO".index(winner), points) == (result.winner, result.points)
        score[result.winner] += result.points
    assert max(score) >= 5



def test_resigned_gammons_count_as_gammons(monkeypatch):
    # Money play is one long match: its finished games give the exact gammon counts, and with
    # seed 7 some of the easy bots' gammons are resigned ones (they resign lost races).
    from boardgammon.commands import selfplay as sp
    from boardgammon.engine.game import Outcome

    seen: list[Match] = []
    real_opening = sp.opening
    monkeypatch.setattr(sp, "opening", lambda match, dice: (seen.append(match),
                                                             real_opening(match, dice)))
    summary = run(create("easy", 1), create("easy", 2), 60, 0, random.Random(7))
    results = [g.result for g in seen[-1].games if g.is_over]
    assert len(results) == 60
    assert any(r.reason.value == "resign" and r.outcome is not Outcome.SINGLE for r in results)
    for outcome, counted in ((Outcome.GAMMON, summary.gammons),
                             (Outcome.BACKGAMMON, summary.backgammons)):
        assert counted == [sum(r.winner == seat and r.outcome is outcome for r in results)
                           for seat in (0, 1)]


def test_cli_save_to_a_file_or_impossible_directory_is_refused_before_playing(tmp_path):
    # It played games, then crashed with FileExistsError / FileNotFoundError on saving.
    taken = tmp_path / "taken"
    taken.write_text("keep me")
    for target in (taken, taken / "sub"):
        result = runner.invoke(app, ["selfplay", "--games", "1", "--length", "1",
                                     "--seed", "1", "--save", str(target)])
        assert result.exit_code == 2, result.output
        assert "--save" in result.output and "Traceback" not in result.output
        assert "games per second" not in result.output
    assert taken.read_text() == "keep me"


@pytest.fixture
def unwritable(tmp_path):
    """A folder that refuses new files: read-only for a user, immutable (``chattr +i``) for
    root, who may write into read-only folders."""
    import os
    import shutil
    import subprocess

    folder = tmp_path / "locked"
    folder.mkdir()
    if os.geteuid() != 0:
        folder.chmod(0o500)
        yield folder
        folder.chmod(0o700)
        return
    if shutil.which("chattr") is None or subprocess.run(
            ["chattr", "+i", str(folder)], capture_output=True).returncode != 0:
        pytest.skip("running as root where chattr +i is not available: no folder refuses files")
    yield folder
    subprocess.run(["chattr", "-i", str(folder)], check=True)


def test_cli_save_into_a_folder_that_refuses_files_is_refused_before_playing(unwritable):
    # It was accepted, the games played, then a traceback on writing the first record (a
    # fresh user's; the terminal game lost the match the same way).
    result = runner.invoke(app, ["selfplay", "--games", "1", "--length", "1", "--seed", "1",
                                 "--save", str(unwritable)])
    assert result.exit_code == 2, result.output
    assert "cannot save into" in result.output and "games per second" not in result.output
    played = runner.invoke(app, ["play", "--length", "1", "--dice-seed", "5",
                                 "--save", str(unwritable)], input="quit\n")
    assert played.exit_code == 2 and "cannot write to" in played.output
    assert "A 1-point match" not in played.output
    assert list(unwritable.iterdir()) == []


def test_cli_save_twice_into_one_directory_keeps_the_first_records(tmp_path):
    args = ["selfplay", "--games", "2", "--length", "1", "--save", str(tmp_path), "--json"]
    first = json.loads(runner.invoke(app, [*args, "--seed", "1"]).output)
    before = {p: (tmp_path / p).read_text() for p in ("match-0001.json", "match-0002.mat")}
    second = json.loads(runner.invoke(app, [*args, "--seed", "2"]).output)
    assert [Path(p).name for p in first["saved"]] == ["match-0001.json", "match-0001.mat",
                                                      "match-0002.json", "match-0002.mat"]
    assert [Path(p).name for p in second["saved"]] == ["match-0003.json", "match-0003.mat",
                                                       "match-0004.json", "match-0004.mat"]
    assert {p: (tmp_path / p).read_text() for p in before} == before


def test_money_play_saves_the_session(tmp_path):
    """Money play is one session without an end: it is saved under one number with every game
    finished (it was refused: "money play has no finished matches to save"), the Jacoby rule
    kept in both records."""
    target = tmp_path / "records"
    result = runner.invoke(app, ["selfplay", "--games", "3", "--seed", "1", "--jacoby",
                                 "--save", str(target), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [Path(p).name for p in data["saved"]] == ["match-0001.json", "match-0001.mat"]
    record = Match.from_json((target / "match-0001.json").read_text())
    assert record.length == 0 and record.jacoby and len(record.results) == 3
    assert record.score == tuple(data["points"])
    mat = (target / "match-0001.mat").read_text()
    assert mat.startswith('; [Jacoby "On"]\n') and mat.count(" Game ") == 3
    assert read_mat(mat).score == record.score


def test_ctrl_c_in_money_play_keeps_the_games_finished(tmp_path):
    from boardgammon.commands.selfplay import save_match

    played, saved = [], []

    def on_game() -> None:
        played.append(1)
        if len(played) == 2:
            raise KeyboardInterrupt

    def on_match(match: Match) -> None:
        saved[:] = save_match(match, tmp_path, 1)

    summary = run(create("easy", 1), create("easy", 2), games=50, length=0,
                  rng=random.Random(5), on_game=on_game, on_match=on_match)
    assert summary.interrupted and summary.games == 2
    assert len(Match.from_json(saved[0].read_text()).results) == 2


def test_ctrl_c_while_a_game_is_being_saved_keeps_the_summary_and_the_record_alike():
    # Issue 26 review: Ctrl-C landing while the money session was written (a long session
    # takes a while to write) counted the game in the summary (39 games, 94 points) but left
    # the record without it (38 games, 92 points). The real signal, sent from the saving.
    import os
    import signal

    recorded: list[int] = []

    def on_match(match: Match) -> None:
        if len(match.results) == 3:
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C, as the terminal sends it
        recorded.append(len(match.results))

    summary = run(create("easy", 1), create("easy", 2), games=50, length=0,
                  rng=random.Random(5), on_match=on_match)
    assert summary.interrupted and summary.games == 3
    assert recorded == [1, 2, 3]


def test_cli_refuses_match_lengths_beyond_64_points():
    """A 500-point match took 15 GB building its match equity table, a million points ended
    in a RecursionError (found by a fresh user); gnubg stops at 64 too."""
    result = runner.invoke(app, ["selfplay", "--games", "1", "--length", "65"])
    assert result.exit_code == 2 and "less than or equal to 64" in " ".join(
        result.output.replace("│", " ").split())
    result = runner.invoke(app, ["play", "--length", "1000000"])
    assert result.exit_code == 2 and "less than or equal to 64" in " ".join(
        result.output.replace("│", " ").split())


def test_ctrl_c_keeps_the_summary_of_the_finished_games():
    # Issue 26: an interrupted selfplay printed no summary of the games finished.
    played = []

    def on_game() -> None:
        played.append(1)
        if len(played) == 3:
            raise KeyboardInterrupt

    summary = run(create("easy", 1), create("easy", 2), games=50, length=0,
                  rng=random.Random(5), on_game=on_game)
    assert summary.interrupted and summary.games == 3 and sum(summary.wins) == 3


def test_ctrl_c_ends_the_command_with_the_summary_and_130(monkeypatch):
    from boardgammon.commands import selfplay as selfplay_module

    def interrupted(*args, **kwargs):
        summary = selfplay_module.Summary("easy", "easy", 0, games=2, wins=[1, 1], points=[1, 2])
        summary.interrupted = True
        return summary

    monkeypatch.setattr(selfplay_module, "run", interrupted)
    result = runner.invoke(app, ["selfplay", "--games", "10"])
    assert result.exit_code == 130
    assert ("Interrupted (Ctrl-C): the summary of the 2 games finished; the game under way is "
            "dropped.\n2 games, money play") in result.stdout


def test_money_play_with_the_jacoby_rule():
    summary = run(create("easy", 1), create("easy", 2), games=6, length=0,
                  rng=random.Random(5), jacoby=True)
    assert summary.games == 6
    refused = runner.invoke(app, ["selfplay", "--length", "5", "--jacoby"])
    assert refused.exit_code == 2


def test_no_progress_bar_where_the_output_is_no_terminal():
    # Standard error here is the runner's buffer, as a file or a pipe would be: the bar's last
    # state used to stay there and run into the summary's first line.
    result = runner.invoke(app, ["selfplay", "--games", "2", "--seed", "3"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("2 games, money play\n"), result.output
    assert "game/s" not in result.output and "2/2" not in result.output
