"""``boardgammon play`` driven end to end through a pseudo-terminal, as a person would."""

from __future__ import annotations

import json
import os
import pty
import random
import re
import select
import signal
import subprocess
import sys
import time

import pytest

from boardgammon.bots import create
from boardgammon.commands.play import TerminalGame, render
from boardgammon.engine import Board
from boardgammon.engine.game import Phase
from boardgammon.engine.ids import decode_match_id
from boardgammon.engine.match import Match

PROMPT = re.compile(r"> $")
# The hint's first row: rank, play, depth, the value it ranks by (MWC or equity), chances.
HINT_LINE = re.compile(r"^\s*1\. (.*?)\s+\d\s+(?:\d+\.\d\d%|[+-]\d\.\d{3}) ", re.MULTILINE)


class Terminal:
    """A child process on a pty: read until a prompt, send a line."""

    def __init__(self, args: list[str]) -> None:
        self.master, slave = pty.openpty()
        env = {**os.environ, "COLUMNS": "120", "TERM": "dumb"}
        # Ctrl-C as at a terminal, even where these tests run with SIGINT ignored (a
        # background job), which Python would otherwise keep ignoring.
        self.proc = subprocess.Popen(args, stdin=slave, stdout=slave, stderr=slave, env=env,
                                     close_fds=True,
                                     preexec_fn=lambda: signal.signal(signal.SIGINT,
                                                                      signal.SIG_DFL))
        os.close(slave)
        self.transcript = ""

    def read_until_prompt(self, timeout: float = 60.0) -> str:
        """Output up to the next prompt (``"> "``), or up to the end of the process."""
        out = ""
        deadline = time.monotonic() + timeout
        while not PROMPT.search(out):
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no prompt within {timeout} s; output so far:\n{out}")
            ready, _, _ = select.select([self.master], [], [], min(left, 0.5))
            if not ready:
                if self.proc.poll() is not None:
                    break
                continue
            try:
                chunk = os.read(self.master, 4096).decode()
            except OSError:      # the child has exited and closed the pty
                break
            if not chunk:
                break
            out += chunk.replace("\r\n", "\n")
        self.transcript += out
        return out

    def send(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode())

    def close(self) -> int:
        try:
            return self.proc.wait(timeout=30)
        finally:
            os.close(self.master)


@pytest.mark.slow
def test_a_whole_one_point_match_in_a_pty(tmp_path):
    term = Terminal([sys.executable, "-m", "boardgammon.cli", "play", "--bot", "easy",
                     "--length", "1", "--dice-seed", "7", "--save", str(tmp_path)])
    seen = set()

    def probe(key: str, *lines_and_patterns: str) -> str | None:
        """Once per match: send each line and check the answer matches its pattern."""
        if key in seen:
            return None
        seen.add(key)
        for line, pattern in zip(lines_and_patterns[::2], lines_and_patterns[1::2],
                                 strict=True):
            term.send(line)
            answer = term.read_until_prompt()
            assert re.search(pattern, answer), answer
        return answer

    try:
        out = term.read_until_prompt()
        assert "A 1-point match against the computer (easy)" in out
        # The compiled code is made ready before the first move, with a word first.
        assert out.index("Getting the computer ready…") < out.index("A 1-point match")
        for _ in range(400):
            if term.proc.poll() is not None or re.search(r"wins? the match", out):
                break
            if "Your turn: roll" in out:
                probed = probe("double", "double", r"Not allowed: no doubling in a 1-point match")
                if probed:
                    out = probed
                    continue
                term.send("roll")
            elif "Your play (or hint)" in out:
                probed = probe("illegal",
                               "24/30", r"Illegal play: '24/30': point 30 is not on the board",
                               "6/off 5/off", r"Illegal play: .* is not a legal play of \d-\d")
                if probed:
                    out = probed
                    continue
                term.send("hint")
                out = term.read_until_prompt()
                # Issue 26: the header fits an 80-column terminal.
                header = "Hint by our network at 2-ply, ranked by cubeful match-winning chance:"
                assert header in out and len(header) < 80
                best = HINT_LINE.search(out).group(1)
                term.send(best)
                out = term.read_until_prompt()
                assert f"Your play: {best}" in out
                assert "Enter (or yes) to confirm, undo to take it back" in out
                probed = probe("undo", "undo", r"Taken back; enter your play\.")
                if probed:
                    out = probed
                    continue
                term.send("")
            elif "take or drop" in out:
                term.send("take")
            elif "accept or decline" in out:
                term.send("accept")
            else:
                pytest.fail(f"unexpected prompt:\n{out}")
            out = term.read_until_prompt()
        else:
            pytest.fail("the match did not end within 400 prompts")
        rest = term.read_until_prompt(timeout=10) if term.proc.poll() is None else ""
        code = term.close()
    finally:
        if term.proc.poll() is None:
            term.proc.kill()
    transcript = term.transcript + rest
    assert code == 0, transcript[-3000:]
    assert seen == {"double", "illegal", "undo"}
    # The match's result as gnubg and the result dialog give it: 1-0, even where a gammon or
    # backgammon won it (the game's line says the points: "You win 3 points (backgammon)").
    assert re.search(r"(You win|The computer wins) the match (1-0|0-1)\.", transcript), (
        transcript[-1500:])
    assert re.search(r"(You win|The computer wins) \d+ points? \(", transcript)
    assert "Computer plays" in transcript and "You roll" in transcript
    # The board is drawn from the player's side with pip counts, bar and borne-off checkers.
    assert " 13 14 15 16 17 18" in transcript and " 12 11 10  9  8  7" in transcript
    assert "on the bar: O" in transcript and "borne off" in transcript
    # --save: the finished match's record, which replays to the same result.
    assert f"Saved the match: {tmp_path / 'match-0001.json'} and match-0001.mat" in transcript
    saved = Match.from_json((tmp_path / "match-0001.json").read_text())
    assert saved.is_over and sorted(saved.final_score) == [0, 1] and min(saved.score) == 0
    assert "1 point match" in (tmp_path / "match-0001.mat").read_text()


def test_render_numbers_points_from_the_players_side():
    match = Match(5, players=("You", "Computer"))
    text = render(Board.initial(), match, "easy")
    lines = text.splitlines()
    assert lines[0].startswith(" Score: you 0, computer (easy) 0 - 5-point match - cube 1")
    assert lines[1].split() == [str(p) for p in range(13, 25)]
    assert lines[-3].split() == [str(p) for p in range(12, 0, -1)]
    # The player's 6-point (bottom right of the home board) holds five O, the 24-point two O
    # and the computer's checkers face them (X on the player's 1, 12, 17 and 19 points).
    bottom_row = lines[-5]
    top_row = lines[3]
    assert bottom_row.split("|")[3].split() == ["O", ".", ".", ".", ".", "X"]
    assert top_row.split("|")[1].split() == ["O", ".", ".", ".", "X", "."]
    assert "You (O): pips 167, borne off 0." in text
    # Issue 26: gnubg's IDs under the board (a 5-point match before the opening roll).
    assert lines[-1] == f" Position ID: 4HPwATDgc/ABMA   Match ID: {match.match_id_gnubg}"
    fields = decode_match_id(match.match_id_gnubg)
    assert (fields.length, fields.score, fields.cube) == (5, (0, 0), 1)


def test_render_counts_tall_stacks_and_the_bar():
    match = Match(3, players=("You", "Computer"))
    board = Board.from_points({6: 9, 25: 2}, {25: 1, 6: 2})
    text = render(board, match, "easy")
    assert "on the bar: O 2  X 1" in text
    assert any(line.split("|")[3].split()[:1] == ["9"] for line in text.splitlines()
               if line.count("|") >= 4)


@pytest.mark.parametrize("variant", ["hypergammon", "nackgammon"])
def test_cube_and_resignation_commands_in_process(variant):
    """A scripted player: doubles at the first chance, resigns a backgammon at its next turn,
    takes every double and accepts every resignation; plays the first legal play."""
    rng = random.Random(4)
    lines: list[str] = []
    state = {"doubled": False, "resigned": False}

    def read(prompt: str) -> str:
        lines.append(prompt)
        game = tg.match.game
        if prompt.startswith("Enter (or yes)"):
            return "yes"
        if game.phase is Phase.ROLL:
            # The prompt offers "double" exactly where the rules allow it.
            assert ("double" in prompt) == game.can_double(0), prompt
            if not state["doubled"] and game.can_double(0):
                state["doubled"] = True
                return "double"
            if state["doubled"] and not state["resigned"]:
                state["resigned"] = True
                return "resign backgammon"
            return "roll"
        if game.phase is Phase.PLAY:
            return str(game.legal_plays()[0]) or "roll"
        return {Phase.DOUBLE_OFFERED: "take", Phase.RESIGN_OFFERED: "accept"}[game.phase]

    tg = TerminalGame(create("easy", 5), 3, variant,
                      dice=lambda: (rng.randint(1, 6), rng.randint(1, 6)),
                      read=read, write=lines.append)
    assert tg.run() == 0
    text = "\n".join(lines)
    assert tg.match.is_over
    assert "You double to 2." in text
    assert "Your turn: roll, double, resign, hint > " in lines
    assert "Your turn: roll, resign, hint > " in lines  # after doubling: the computer's cube
    assert re.search(r"Computer (takes|drops)\.", text)
    assert "You offer to resign a backgammon." in text
    # Three points (times the cube) are worth more than anything the bot expects: it accepts.
    assert "Computer accepts the resignation." in text
    assert re.search(r"The computer wins \d+ points \(a resigned backgammon\)", text)
    # The last game's score line and the match's result agree: the winner's score is capped at
    # the length (6 points at cube 2 in a 3-point match make it 3, not 6 then "0-3").
    final = tg.match.final_score
    assert max(final) == 3
    assert f"Score: you {final[0]}, computer {final[1]}." in text
    winner = "You win" if tg.match.winner == 0 else "The computer wins"
    assert lines[-1] == f"{winner} the match 3-{min(final)}."
    if variant == "hypergammon":
        assert "borne off 0" in text and "You (O): pips 69" in text


def test_save_when_the_player_quits_and_analyze_reads_it(tmp_path):
    from typer.testing import CliRunner

    from boardgammon.cli import app

    (tmp_path / "match-0007.json").write_text("{}")  # numbered after what is there
    runner = CliRunner()
    args = ["play", "--bot", "easy", "--length", "3", "--dice-seed", "5", "--save", str(tmp_path)]
    result = runner.invoke(app, args, input="8/3 6/3\nyes\nroll\nquit\nyes\n")
    # Issue 26: quit asks, then exits 0 with a line (it exited 1 without saying why).
    assert result.exit_code == 0, result.output
    assert "You quit the match at 0-0 in a 3-point match." in result.output
    json_path, mat_path = tmp_path / "match-0008.json", tmp_path / "match-0008.mat"
    assert f"Saved the match (unfinished): {json_path} and match-0008.mat" in result.output
    saved = Match.from_json(json_path.read_text())
    assert not saved.is_over and saved.length == 3
    assert any(a.kind == "play" for a in saved.record)
    for path in (json_path, mat_path):
        analysed = runner.invoke(app, ["analyze", str(path), "--json"])
        assert analysed.exit_code == 0, analysed.output
        assert json.loads(analysed.output)["length"] == 3
    # Nothing played: nothing written.
    empty = runner.invoke(app, ["play", "--length", "1", "--dice-seed", "5", "--save",
                                str(tmp_path / "none")], input="quit\nyes\n")
    assert empty.exit_code == 0 and "Nothing was played: no record saved." in empty.output
    assert not list((tmp_path / "none").glob("match-*"))
    # A match resigned at the opening roll is a finished match: saved.
    resigned = runner.invoke(app, ["play", "--length", "1", "--dice-seed", "5", "--save",
                                   str(tmp_path / "resigned")], input="resign\n")
    assert resigned.exit_code == 0, resigned.output
    assert "The computer wins the match 1-0." in resigned.output
    assert Match.from_json((tmp_path / "resigned" / "match-0001.json").read_text()).is_over
    # A --save that cannot be a directory is refused before the match starts.
    (tmp_path / "file").write_text("")
    bad = runner.invoke(app, ["play", "--save", str(tmp_path / "file")], input="quit\n")
    assert bad.exit_code == 2 and "cannot write to" in bad.output
    assert "A 5-point match" not in bad.output


def _scripted(answers: list[str], length: int = 3, seed: int = 5, **kwargs):
    """A TerminalGame reading ``answers`` in turn (EOF after them); returns it, the prompts and
    lines written, and its exit code."""
    rng = random.Random(seed)
    lines: list[str] = []
    queue = list(answers)

    def read(prompt: str) -> str:
        lines.append(prompt)
        if not queue:
            raise EOFError
        return queue.pop(0)

    tg = TerminalGame(create("easy", seed), length, "standard",
                      dice=lambda: (rng.randint(1, 6), rng.randint(1, 6)), read=read,
                      write=lines.append, **kwargs)
    return tg, lines, tg.run()


def _first_play(seed: int = 5) -> str:
    """The first legal play of the player's opening roll with dice seed ``seed``."""
    tg, _, _ = _scripted([], seed=seed)
    return str(tg.match.game.legal_plays()[0])


def test_the_confirm_prompt_repeats_on_other_input_and_answers_hint():
    play = _first_play()
    tg, lines, code = _scripted([play, "hint", "maybe", "yes"])
    text = "\n".join(lines)
    # Issue 26: anything but yes/undo threw the play away.
    assert lines.count("Enter (or yes) to confirm, undo to take it back > ") == 3
    assert "Hint by our network at 2-ply, ranked by cubeful match-winning chance:" in text
    assert (f"'maybe' is neither a confirmation nor undo: Enter (or yes) plays {play}, undo "
            f"takes it back.") in lines
    assert any(a.kind == "play" and a.seat == 0 for a in tg.match.record)
    assert code == 1 and "\nBye (end of input)." in lines


def test_quit_asks_and_exits_0_with_a_line():
    tg, lines, code = _scripted(["quit", "no", "quit", "yes"])
    assert lines.count("Quit the match? yes or no > ") == 2
    assert "Play on." in lines
    assert lines[-1] == "You quit the match at 0-0 in a 3-point match."
    assert code == 0


def test_a_resignation_of_one_point_says_point():
    match = Match(3, players=("You", "Computer"))
    match.roll_opening(1, 2)  # the computer (seat 1) plays first
    match.play(1, str(match.game.legal_plays()[0]))
    match.roll(0, 3, 1)
    match.play(0, "8/5 6/5")
    match.resign(1, 1)
    tg, lines, _ = _scripted(["decline"], match=match)
    assert "The computer resigns a single (1 point): accept or decline? > " in lines


def test_money_play_with_the_jacoby_rule(tmp_path):
    from typer.testing import CliRunner

    from boardgammon.cli import app

    runner = CliRunner()
    result = runner.invoke(app, ["play", "--length", "0", "--jacoby", "--dice-seed", "5",
                                 "--save", str(tmp_path)], input="quit\nyes\n")
    assert result.exit_code == 0, result.output
    assert "Money play (Jacoby rule) against the computer (easy)." in result.output
    assert "money play - cube 1, in the middle" in result.output
    refused = runner.invoke(app, ["play", "--length", "5", "--jacoby"])
    assert refused.exit_code == 2
    said = " ".join(re.sub(r"[│╭╮╰╯─]", " ", refused.output).split())  # unboxed, unwrapped
    assert "the Jacoby rule is for money play: add --length 0" in said


def test_resume_plays_on_from_a_saved_record(tmp_path):
    from typer.testing import CliRunner

    from boardgammon.cli import app

    runner = CliRunner()
    first = runner.invoke(app, ["play", "--length", "3", "--dice-seed", "5", "--save",
                                str(tmp_path)], input="8/3 6/3\nyes\nroll\nquit\nyes\n")
    assert first.exit_code == 0, first.output
    saved = tmp_path / "match-0001.json"
    assert f"or play on with --resume {saved}" in first.output
    before = Match.from_json(saved.read_text())
    for path in (saved, tmp_path / "match-0001.mat"):
        again = runner.invoke(app, ["play", "--resume", str(path), "--dice-seed", "6"],
                              input="quit\nyes\n")
        assert again.exit_code == 0, again.output
        assert f"A 3-point match resumed from {path} at 0-0," in again.output
        assert "Resuming game 1." in again.output
    # Resumed records are saved as new numbers beside the old one, which stays as it was.
    assert Match.from_json(saved.read_text()).record == before.record
    resumed = Match.from_json((tmp_path / "match-0002.json").read_text())
    assert resumed.record[:len(before.record)] == before.record
    finished = runner.invoke(app, ["play", "--length", "1", "--dice-seed", "5", "--save",
                                   str(tmp_path / "done")], input="resign\n")
    assert finished.exit_code == 0
    refused = runner.invoke(app, ["play", "--resume",
                                  str(tmp_path / "done" / "match-0001.json")])
    assert refused.exit_code == 2 and "is a finished match (0-1): nothing to play on" in \
        refused.output


def test_resume_from_mat_keeps_the_jacoby_rule_and_the_dice_rolled(tmp_path):
    """A money session under the Jacoby rule quit after rolling: the .mat keeps both (a header
    line and the roll alone, as gnubg writes an unplayed roll), so resuming from it is
    resuming from the JSON record (it lost both before)."""
    from typer.testing import CliRunner

    from boardgammon.cli import app

    runner = CliRunner()
    first = runner.invoke(app, ["play", "--length", "0", "--jacoby", "--dice-seed", "5",
                                "--save", str(tmp_path)],
                          input="8/3 6/3\nyes\nroll\nquit\nyes\n")
    assert first.exit_code == 0, first.output
    before = Match.from_json((tmp_path / "match-0001.json").read_text())
    assert before.jacoby and before.record[-1].kind == "roll"
    mat = tmp_path / "match-0001.mat"
    assert mat.read_text().startswith('; [Jacoby "On"]\n')
    again = runner.invoke(app, ["play", "--resume", str(mat), "--dice-seed", "6"],
                          input="quit\nyes\n")
    assert again.exit_code == 0, again.output
    assert f"Money play (Jacoby rule) resumed from {mat} with you at " in again.output
    d1, d2 = before.record[-1].dice
    assert f"You rolled {d1}-{d2}. Your play (or hint) > " in again.output
    resumed = Match.from_json((tmp_path / "match-0002.json").read_text())
    assert resumed.jacoby
    assert [a.to_dict() for a in resumed.record if a.kind != "opening"] == \
        [a.to_dict() for a in before.record if a.kind != "opening"]


@pytest.mark.slow
def test_ctrl_c_saves_the_record_and_says_so(tmp_path):
    term = Terminal([sys.executable, "-m", "boardgammon.cli", "play", "--bot", "easy",
                     "--length", "5", "--dice-seed", "5", "--save", str(tmp_path)])
    try:
        out = term.read_until_prompt()
        while "Your play (or hint)" not in out:
            term.send("roll")
            out = term.read_until_prompt()
        term.send("hint")
        best = HINT_LINE.search(term.read_until_prompt()).group(1)
        term.send(best)
        term.read_until_prompt()
        term.send("")
        term.read_until_prompt()
        # Saved as it goes: the record is on disk before the end.
        assert (tmp_path / "match-0001.json").exists()
        # The prompt is written just before input() blocks in read(): a signal landing in
        # between would wait for the next line, as no person's Ctrl-C does.
        time.sleep(1.0)
        term.proc.send_signal(signal.SIGINT)
        rest = term.read_until_prompt(timeout=30)
        code = term.close()
    finally:
        if term.proc.poll() is None:
            term.proc.kill()
    assert code == 130, rest
    assert "\nInterrupted (Ctrl-C).\n" in rest
    assert f"Saved the match (unfinished): {tmp_path / 'match-0001.json'}" in rest
    saved = Match.from_json((tmp_path / "match-0001.json").read_text())
    assert any(a.kind == "play" and a.seat == 0 for a in saved.record)


def test_play_on_from_a_position_and_match_id(tmp_path):
    from typer.testing import CliRunner

    from boardgammon.cli import app

    runner = CliRunner()
    # The opening position, the computer (player 1) on roll at 2-3 in a 5-point match with a
    # 2-cube that you own: Match ID QQmgACAAGAAE.
    first = runner.invoke(app, ["play", "--position", "4HPwATDgc/ABMA", "--match-id",
                                "QQmgACAAGAAE", "--dice-seed", "3", "--save", str(tmp_path)],
                          input="quit\nyes\n")
    assert first.exit_code == 0, first.output
    assert ("A 5-point match from Position ID 4HPwATDgc/ABMA at 2-3, "
            "against the computer (easy).") in first.output
    assert "Playing on from the position." in first.output
    assert "Score: you 2, computer (easy) 3 - 5-point match - cube 2, yours" in first.output
    assert " Position ID: 4HPwATDgc/ABMA   Match ID: QQmgACAAGAAE" in first.output
    record = tmp_path / "match-0001.json"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["match-0001.json"]
    assert (f"Saved the match (unfinished): {record} (no .mat: gnubg's .mat format cannot "
            f"start from a set-up position)") in first.output
    saved = Match.from_json(record.read_text())
    assert saved.setup is not None and saved.score == (2, 3)
    assert [a.kind for a in saved.record] == ["roll", "play"]  # the computer's turn
    again = runner.invoke(app, ["play", "--resume", str(record), "--dice-seed", "4"],
                          input="quit\nyes\n")
    assert again.exit_code == 0, again.output
    assert f"A 5-point match resumed from {record} at 2-3," in again.output
    resumed = Match.from_json((tmp_path / "match-0002.json").read_text())
    assert resumed.record[:2] == saved.record and resumed.setup == saved.setup
    # Without a Match ID: you on roll at 0-0 with the cube in the middle, --length long.
    money = runner.invoke(app, ["play", "--position", "4HPwATDgc/ABMA", "--length", "0",
                                "--dice-seed", "3"], input="quit\nyes\n")
    assert money.exit_code == 0, money.output
    assert ("Money play from Position ID 4HPwATDgc/ABMA with you at 0 points and the computer "
            "at 0, against the computer (easy).") in money.output
    # A record and a Match ID keep their own length: another --length is refused, not ignored.
    other = runner.invoke(app, ["play", "--resume", str(record), "--length", "7"])
    assert other.exit_code == 2
    assert ("Invalid value for --length: the record is a 5-point match: it plays on at its own "
            "length, not 7; leave --length out") in " ".join(
                re.sub(r"[│╭╮╰╯─]", " ", other.output).split())  # unboxed, unwrapped
    same = runner.invoke(app, ["play", "--resume", str(record), "--length", "5",
                               "--dice-seed", "4"], input="quit\nyes\n")
    assert same.exit_code == 0, same.output
    other = runner.invoke(app, ["play", "--position", "4HPwATDgc/ABMA", "--match-id",
                                "QQmgACAAGAAE", "--length", "0"])
    assert other.exit_code == 2 and "the Match ID is a 5-point match" in other.output


@pytest.mark.parametrize(("args", "message"), [
    (["--position", "bad"], "Invalid value for --position: cannot play on from bad: a "
                            "Position ID has 14 base64 characters, got 'bad'"),
    (["--match-id", "QQmgACAAGAAE"], "Invalid value for --match-id: a Match ID goes with a "
                                     "position: add --position POSITION_ID"),
    (["--position", "4HPwATDgc/ABMA", "--match-id", "MACgAAAAAAAE"],
     "Invalid value for --match-id: Match ID MACgAAAAAAAE is of a game not in progress"),
    (["--position", "AAAAQAAAAAAAAA"], "Invalid value for --position: AAAAQAAAAAAAAA is a "
                                       "finished game"),
    (["--position", "4HPwATDgc/ABMA", "--resume", "x.json"],
     "Invalid value for --position: --resume plays on from a record, --position from a "
     "position: give one of them"),
])
def test_play_position_refusals(args, message):
    from typer.testing import CliRunner

    from boardgammon.cli import app

    refused = CliRunner().invoke(app, ["play", *args])
    assert refused.exit_code == 2, refused.output
    said = " ".join(re.sub(r"[│╭╮╰╯─]", " ", refused.output).split())  # unboxed, unwrapped
    assert message in said


def test_beavers_in_money_play_both_ways():
    from boardgammon.engine.match import Setup

    # A race the player (on roll) has lost: the computer beavers the player's double.
    lost = Board.from_points({13: 15}, {1: 5, 2: 5, 3: 5})
    match = Match(0, beavers=True, setup=Setup(position_id=lost.position_id, on_roll=0))
    tg, lines, _ = _scripted(["double", "hint", "take"], match=match)
    assert "Computer beavers: the cube to 4, offered back." in lines
    assert ("The computer beavered your double: take to play on at 4 (the cube stays the "
            "computer's) or drop to lose 2 points. The cube hint covers doubles, not beavers."
            ) in lines
    assert ("The computer beavers: the cube is 2, its own, and 4 is offered to you: take or "
            "drop? > ") in lines
    assert "You take: the cube is 4, the computer's." in lines
    assert (tg.match.game.cube, tg.match.game.cube_owner) == (4, 1)

    # The computer doubles; the player beavers and the computer answers.
    match = Match(0, beavers=True)
    match.roll_opening(3, 1)
    match.play(0, "8/5 6/5")
    match.double(1)
    tg, lines, _ = _scripted(["hint", "beaver"], match=match)
    # Issue 26 review: the hint answered take or drop only; with beavers it names the beaver
    # where double/take is below 0 for the doubler (gnubg's rule), as here after the opening.
    beaver = next(line for line in lines if line.startswith("  With beavers: beaver."))
    dt = float(re.search(r"Double, take is ([+-][0-9.]+) for the computer", beaver)[1])
    assert dt < 0 and f"  double, take  {dt:+.3f}" in "\n".join(lines)
    assert beaver.endswith("below 0:\n  the take is in your favour, and a beaver doubles the "
                           "stake at once.")
    assert "The computer doubles to 2: take, beaver or drop? > " in lines
    assert "You beaver: the cube is 2, yours, and you redouble to 4." in lines
    answer = next(line for line in lines if line in ("Computer takes.", "Computer drops."))
    game = tg.match.game
    if answer == "Computer takes.":
        assert (game.cube, game.cube_owner) == (4, 0)
    else:
        assert tg.match.results[0].points == 2


def test_beavers_are_refused_outside_money_play_and_without_the_option():
    from typer.testing import CliRunner

    from boardgammon.cli import app

    refused = CliRunner().invoke(app, ["play", "--length", "5", "--beavers"])
    assert refused.exit_code == 2
    said = " ".join(re.sub(r"[│╭╮╰╯─]", " ", refused.output).split())
    assert "beavers are for money play: add --length 0" in said
    match = Match(0)
    match.roll_opening(3, 1)
    match.play(0, "8/5 6/5")
    match.double(1)
    tg, lines, _ = _scripted(["beaver", "take"], match=match)
    assert "The computer doubles to 2: take or drop? > " in lines
    assert any(line.startswith("Not allowed: beavers are not played in this game")
               for line in lines)
    assert tg.match.game.cube == 2


def test_an_empty_play_names_what_hint_really_uses():
    # A new user's trial: Enter with no play said "(hint lists the computer's choices)", but
    # hint ranks plays by the network at 2-ply whatever the computer's level (easy here).
    tg, lines, _ = _scripted([""])
    said = [line for line in lines if line.startswith("Enter a play in standard notation")]
    assert said == ["Enter a play in standard notation, e.g. 8/5 6/5 (hint ranks your plays "
                    "by our network at 2-ply, whatever the computer's level)."]
    assert "computer's choices" not in "\n".join(lines)


def test_hint_n_shows_n_plays_and_refuses_any_other_argument():
    """A fresh user's trial: ``hint 10`` showed five plays and said nothing of the 10."""
    tg, lines, _ = _scripted(["hint 8", "hint x", "hint 0"])
    hints = [line for line in lines if line.startswith("Hint by our network at 2-ply")]
    assert len(hints) == 1
    rows = hints[0].splitlines()[2:]
    assert [r[:3] for r in rows] == [f"{i:>2}." for i in range(1, 9)]
    assert lines.count("hint takes a number of plays to show, e.g. hint 10; not 'x'.") == 1
    assert lines.count("hint takes a number of plays to show, e.g. hint 10; not '0'.") == 1


def test_a_play_before_the_roll_says_roll_first():
    """A fresh user's trial: 24/18 typed before rolling got "'24/18' is not a command now"."""
    play = _first_play()
    tg, lines, _ = _scripted([play, "", "24/18"])
    assert "Roll first (Enter or roll), then enter your play." in lines
    assert tg.match.game.phase is Phase.ROLL and tg.match.game.dice is None


def test_roll_after_the_roll_says_the_dice_are_rolled():
    """A fresh user's trial: roll typed once the dice were rolled got "Illegal play: 'roll' is
    not a move in standard notation"."""
    play = _first_play()
    tg, lines, _ = _scripted([play, "", "", "roll"])
    game = tg.match.game
    assert game.phase is Phase.PLAY and game.dice is not None
    assert lines[-3] == (f"You have already rolled {game.dice[0]}-{game.dice[1]}: enter your "
                         f"play (or hint).")
    assert not any(line.startswith("Illegal play") for line in lines)


def test_long_input_is_named_not_echoed_whole():
    """A fresh user's trial: a 12 KB play came back whole in the refusal. Each refusal quotes
    at most 40 characters of what was typed, whatever was typed."""
    play = _first_play()
    junk = "q" * 12_000
    tg, lines, _ = _scripted([play, "", f"resign {junk}", junk, "", f"13/11 {junk}",
                              f"hint {junk}"])
    said = [line for line in lines if "qqq" in line]
    assert len(said) == 4
    assert all(len(line) < 160 and "q…" in line for line in said), said
    assert tg.match.game.phase is Phase.PLAY  # nothing refused moved the game on
