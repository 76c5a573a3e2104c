"""The ``boardgammon plays`` contract: text, ``--json`` and ``--batch`` output, and errors."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from boardgammon.cli import app
from boardgammon.engine import Board, Play
from tests.helpers.gnubg_reference import load

runner = CliRunner()
START = "4HPwATDgc/ABMA"
CLOSED = Board.from_points({25: 2, 13: 13}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3})


def run(*args: str, stdin: str | None = None):
    return runner.invoke(app, ["plays", *args], input=stdin)


def test_text_output_lists_every_play_with_its_resulting_position_id():
    result = run(START, "3", "1")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert len(lines) == 16
    assert "8/5 6/5\t4HPwATCwZ/ABMA" in lines
    board = Board.initial()
    for line in lines:
        notation, pid = line.split("\t")
        assert board.play(notation, (3, 1)).position_id == pid  # mover's view, not swapped


def test_json_output():
    result = run(START, "6", "5", "--json")
    assert result.exit_code == 0
    answer = json.loads(result.stdout)
    assert answer["position_id"] == START and answer["dice"] == [6, 5]
    assert [p["notation"] for p in answer["plays"]] == [
        str(p) for p in Board.initial().legal_plays(6, 5)]
    assert {"notation": "24/13", "position_id": "4HPwATDgc/ADIA"} in answer["plays"]


def test_dance_is_one_play_with_empty_notation():
    result = run(CLOSED.position_id, "6", "6")
    assert result.exit_code == 0
    assert result.stdout == f"\t{CLOSED.position_id}\n"
    answer = json.loads(run(CLOSED.position_id, "6", "6", "--json").stdout)
    assert answer["plays"] == [{"notation": "", "position_id": CLOSED.position_id}]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["xyz", "3", "1"], "a Position ID has 14 base64 characters"),
        (["//////////////", "3", "1"], "too many checkers"),
        ([START, "3", "7"], "dice are two whole numbers 1-6"),
        ([START, "0", "1"], "dice are two whole numbers 1-6"),
        ([START, "3"], "usage: boardgammon plays POSITION_ID D1 D2"),
        ([], "usage: boardgammon plays POSITION_ID D1 D2"),
        (["--batch", "/nonexistent/requests.jsonl"], "no such batch file"),
        ([START, "3", "1", "--batch", "-"], "not both"),
        (["AAAAAAAAAAAAAA", "3", "1"], "a finished game (the player on roll has no checker"),
        (["AAAAAgAAAAAAAA", "3", "1"], "a finished game (the opponent has no checker left)"),
    ],
)
def test_bad_input_exits_2_with_a_message_and_no_output(args, message):
    result = run(*args)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert message in result.stderr


def test_batch_answers_each_line_like_the_single_command(tmp_path):
    requests = [(START, [3, 1]), (CLOSED.position_id, [2, 1]), (START, [4, 4])]
    path = tmp_path / "requests.jsonl"
    path.write_text("\n".join(json.dumps({"position_id": p, "dice": d}) for p, d in requests)
                    + "\n\n")
    result = run("--batch", str(path))
    assert result.exit_code == 0
    answers = [json.loads(line) for line in result.stdout.splitlines()]
    singles = [json.loads(run(p, str(d[0]), str(d[1]), "--json").stdout) for p, d in requests]
    assert answers == singles
    assert len(answers[2]["plays"]) == 52


def test_batch_from_standard_input():
    result = run("--batch", "-", stdin=json.dumps({"position_id": START, "dice": [2, 1]}))
    assert result.exit_code == 0
    assert len(json.loads(result.stdout)["plays"]) == 15


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("not json", "line 2: not JSON"),
        ('{"position_id": "4HPwATDgc/ABMA"}', 'line 2: expected {"position_id"'),
        ('{"position_id": "4HPwATDgc/ABMA", "dice": [3, 7]}', "line 2: dice are two"),
        ('{"position_id": "4HPwATDgc/ABMA", "dice": [3, true]}', "line 2: dice are two"),
        ('{"position_id": "4HPwATDgc/ABMA", "dice": "31"}', "line 2: dice are two"),
        ('{"position_id": 12, "dice": [3, 1]}', "line 2: a Position ID is a string"),
        ('{"position_id": "4HPwATDgc/AB", "dice": [3, 1]}', "line 2: a Position ID has 14"),
    ],
)
def test_bad_batch_line_is_reported_by_number_and_the_good_ones_answered(tmp_path, line,
                                                                        message):
    # Issue 26: one bad line aborted the whole batch with no output for the good lines.
    path = tmp_path / "requests.jsonl"
    good = json.dumps({"position_id": START, "dice": [3, 1]})
    path.write_text(good + "\n" + line + "\n" + good.replace("3, 1", "6, 5") + "\n")
    result = run("--batch", str(path))
    assert result.exit_code == 2
    answers = [json.loads(out) for out in result.stdout.splitlines()]
    assert [a["dice"] for a in answers] == [[3, 1], [6, 5]]
    assert len(answers[0]["plays"]) == 16
    assert "error: 1 bad line (the others answered):" in result.stderr
    assert message in result.stderr


def _command() -> list[str]:
    script = Path(sys.executable).with_name("boardgammon")
    if script.exists():
        return [str(script)]
    found = shutil.which("boardgammon")
    return [found] if found else [sys.executable, "-m", "boardgammon.cli"]


def test_batch_as_a_real_process_matches_gnubgs_reference(tmp_path):
    """One process answers 2,000 requests; every play set is gnubg's, every notation valid."""
    rng = random.Random(5)
    reference = load()
    requests = []
    for row in rng.choices(reference, k=2000):
        roll = rng.choice(sorted(row["plays"]))
        requests.append((row, roll))
    path = tmp_path / "requests.jsonl"
    path.write_text("".join(
        json.dumps({"position_id": row["position_id"], "dice": [int(roll[1]), int(roll[0])]})
        + "\n" for row, roll in requests))
    proc = subprocess.run([*_command(), "plays", "--batch", str(path)], capture_output=True,
                          text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(answers) == len(requests)
    for answer, (row, roll) in zip(answers, requests, strict=True):
        assert answer["position_id"] == row["position_id"]
        assert sorted(p["position_id"] for p in answer["plays"]) == row["plays"][roll]
    # Spot-check that the notation of each play reaches its position.
    for answer in answers[:50]:
        board = Board.from_position_id(answer["position_id"])
        for p in answer["plays"]:
            assert board.play(Play.parse(p["notation"]), tuple(answer["dice"])).position_id \
                == p["position_id"]


@pytest.mark.parametrize("dice", [["-1", "5"], ["x", "5"], ["0", "3"], ["3", "7"], ["2.5", "1"]])
def test_a_bad_die_on_the_command_line_is_a_clear_dice_error(dice):
    result = run(START, *dice)
    assert result.exit_code == 2 and result.stdout == ""
    assert "dice are two whole numbers 1-6" in result.stderr
