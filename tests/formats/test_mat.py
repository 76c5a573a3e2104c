"""The .mat writer and reader: gnubg's own export as ground truth, round trips, gnubg import."""

from __future__ import annotations

import json
import re

import pytest

from boardgammon.engine import Match, Play
from boardgammon.formats import MatFormatError, read_mat, write_mat
from tests.helpers.gnubg import run_script
from tests.helpers.random_match import play_random_match

# The start of a match gnubg 1.07 played against itself and exported (`export match mat`):
# opening won by the right column, a dance (66:), a double and a drop in the left column.
GNUBG_EXPORT = """\
; [EventDate "2026.11.30"]

 5 point match

 Game 1
 gnubg : 0                      root : 0
  1)                             21: 13/11 24/23
  2) 52: 13/8 24/22              63: 8/5 11/5
  3) 53: 8/3 6/3                 62: 13/7 7/5
  4) 42: 8/4 6/4                 41: 13/9 9/8
  5) 31: 22/21 24/21             21: 5/3 6/5
  6) 43: 13/10 10/6              65: 23/18 24/18
  7) 52: 6/1 3/1                 33: 18/15 18/15 13/10 13/10
  8) 51: 6/5 8/3                 52: 3/1 6/1
  9) 65: 13/7 7/2                32: 5/3 6/3
 10) 63: 5/2 8/2                 62: 8/2 3/1
 11) 51: 2/1 21/16               42: 8/4* 4/2
 12) 66:                         22: 15/13 13/11 11/9* 3/1
 13) 54: 25/21                    Doubles => 2
 14)  Drops                       Wins 1 point

 Game 2
 gnubg : 0                      root : 1
  1)                             31: 8/5 6/5
  2) 43: 13/9 24/21              53: 24/21 21/16*
  3) 52: 25/23 13/8               Doubles => 2
  4)  Takes                      31: 16/13 6/5
  5)  Doubles => 4                Drops
      Wins 2 points

"""


def test_reads_gnubgs_export_and_writes_it_back_identically():
    m = read_mat(GNUBG_EXPORT)
    assert m.players == ("gnubg", "root") and m.length == 5
    assert m.score == (2, 1)
    assert [(r.winner, r.points, r.how) for r in m.results] == [(1, 1, "drop"), (0, 2, "drop")]
    dances = [a for a in m.record if a.kind == "play" and a.play == ""]
    assert len(dances) == 1 and dances[0].dice == (6, 6) and dances[0].seat == 0
    ours = write_mat(m, {"EventDate": "2026.11.30"})
    assert _canonical(ours) == _canonical(GNUBG_EXPORT)
    lines = GNUBG_EXPORT.splitlines()
    for fixed in (" gnubg : 0                      root : 1",
                  " 14)  Drops                       Wins 1 point",
                  "  5)  Doubles => 4                Drops",
                  "      Wins 2 points"):
        assert fixed in lines and fixed in ours.splitlines()


def test_resigned_game_is_a_wins_line_alone_and_reads_back_as_a_resignation():
    m = Match(3, players=("Ann", "Bob"))
    m.roll_opening(3, 1)
    m.play(0, "8/5 6/5")
    m.resign(1, 2)
    m.accept(0)
    text = write_mat(m)
    assert text.splitlines()[4:] == [
        " Ann : 0                        Bob : 0",
        "  1) 31: 8/5 6/5",
        "      Wins 2 points",
        "",
    ]
    back = read_mat(text)
    assert back.score == (2, 0) and back.results[0].how == "resign"


def test_a_forfeit_ends_the_file_where_play_stopped():
    # .mat has no line for a forfeit (nor for a flag): the file is the games as played, the
    # last one unfinished, and reads back as that match still running.
    m = Match(3, players=("Ann", "Bob"))
    m.roll_opening(3, 1)
    m.play(0, "8/5 6/5")
    before = write_mat(m)
    m.forfeit(1)
    assert m.winner == 0
    text = write_mat(m)
    assert text == before
    assert text.splitlines()[4:] == [
        " Ann : 0                        Bob : 0",
        "  1) 31: 8/5 6/5",
        "",
    ]
    back = read_mat(text)
    assert (back.score, back.winner, back.forfeited) == ((0, 0), None, None)


def test_money_rules_and_a_roll_not_yet_played_come_back():
    """A money session under the Jacoby rule with beavers, saved mid-turn (dice rolled, not
    played): gnubg's export writes neither rule, so ours adds header lines; the unplayed roll
    is written alone, as gnubg writes it, and read back as dice rolled."""
    m = Match(0, players=("Ann", "Bob"), jacoby=True, beavers=True)
    m.roll_opening(3, 1)
    m.play(0, "8/5 6/5")
    m.roll(1, 6, 3)
    text = write_mat(m, unplayed_roll=True)
    assert text.splitlines()[:2] == ['; [Jacoby "On"]', '; [Beaver "On"]']
    assert text.splitlines()[-2:] == ["  1) 31: 8/5 6/5                 63:", ""]
    # By default the text ends at the last action done (the server's move list agrees).
    assert write_mat(m).splitlines()[-2:] == ["  1) 31: 8/5 6/5", ""]
    back = read_mat(text)
    assert back.jacoby and back.beavers
    assert back.game.phase.value == "play" and back.game.dice == (6, 3)
    assert [a.to_dict() for a in back.record] == [a.to_dict() for a in m.record]
    # Without the headers (gnubg's own export), the rules are off; other values are refused.
    plain = read_mat(text.split("\n", 2)[2])
    assert not plain.jacoby and not plain.beavers and plain.game.dice == (6, 3)
    with pytest.raises(MatFormatError, match=r'^the header \[Jacoby\] says \'Yes\': it is '
                                             r'"On" or "Off"$'):
        read_mat(text.replace('"On"', '"Yes"', 1))


_EXPORT_ROLLED = """
gnubg.command("set player 0 human")
gnubg.command("set player 1 human")
gnubg.command("set jacoby on")
gnubg.command("set seed 7")
gnubg.command("new session")
gnubg.command("roll")
gnubg.command("export match mat out.mat")
emit({"text": open("out.mat").read()})
"""


@pytest.mark.gnubg
def test_gnubgs_export_of_a_roll_not_played_reads_as_dice_rolled():
    got = run_script(_EXPORT_ROLLED)
    text = got["text"]
    assert "Jacoby" not in text  # gnubg's .mat has no Jacoby rule, even with it on
    last = text.rstrip().splitlines()[-1]
    assert re.fullmatch(r"\s+1\)\s+\d\d:", last), last  # the roll alone
    back = read_mat(text)
    d1, d2 = (int(c) for c in last.split()[-1].rstrip(":"))
    assert back.game.phase.value == "play" and sorted(back.game.dice) == sorted((d1, d2))


def test_money_play_and_variants_have_headers():
    text = write_mat(Match(3, "nackgammon"))
    assert text.startswith('; [Variation "NackGammon"]\n\n 3 point match\n')
    assert read_mat(text).variant.value == "nackgammon"
    assert "HyperGammon (3)" in write_mat(Match(1, "hypergammon"))
    assert write_mat(Match(0)).startswith("\n 0 point match\n")


@pytest.mark.parametrize("seed", range(12))
def test_round_trip_of_random_matches(seed):
    variant = ("standard", "nackgammon", "hypergammon")[seed % 3]
    m = play_random_match(seed, length=(3, 5, 7, 1)[seed % 4], variant=variant, p_resign=0.03)
    text = write_mat(m)
    back = read_mat(text)
    assert back.score == m.score and back.winner == m.winner
    assert back.results == m.results
    assert [a for a in back.record if a.kind != "opening"] == \
        [a for a in m.record if a.kind not in ("opening", "decline")
         and not (a.kind == "resign" and _declined(m, a))]
    assert write_mat(back) == text


def _declined(m: Match, action) -> bool:
    i = m.record.index(action)
    return m.record[i + 1].kind == "decline"


@pytest.mark.parametrize(("text", "message"), [
    ("no match here", "unexpected text"),
    (" 3 point match\n Game 1\n  1) 31: 8/5 6/5\n", "no score line"),
    (" 3 point match\n Game 1\n A : 0   B : 0\n  1) 33: 24/21 24/21\n", "cannot be a double"),
    (" 3 point match\n Game 1\n A : 0   B : 0\n  1) 31: 8/2\n", r"^line 4 \(game 1\): "),
    (" 3 point match\n Game 1\n A : 0   B : 1\n", "score line"),
    (" 3 point match\n Game 1\n A : 0   B : 0\n  1) 31: 8/5 6/5 hello\n", "cannot read"),
])
def test_bad_text_is_refused_with_the_reason(text, message):
    with pytest.raises(MatFormatError, match=message):
        read_mat(text)


_IMPORT = r'''
out = []
for i, text in enumerate(json.loads(os.environ["TEXTS"])):
    with open("in%d.mat" % i, "w") as f:
        f.write(text)
    gnubg.command("import mat in%d.mat" % i)
    gnubg.command("export match mat out%d.mat" % i)
    m = gnubg.match(analysis=0, boards=0)
    games = []
    for g in m["games"]:
        moves = [[r["action"], r.get("dice"), r.get("move")] for r in g["game"]
                 if r["action"] in ("move", "double", "take", "drop")]
        games.append({"info": g["info"], "moves": moves})
    out.append({"text": open("out%d.mat" % i).read(), "length": m["match-info"]["match-length"],
                "games": games})
emit(out)
'''


def _canonical(text: str, comments: bool = True) -> list[tuple[str, tuple[Play, ...]]]:
    """Each line with its plays taken out as :class:`Play` values, compared as plays (gnubg's
    export writes single-die steps, ``13/10 10/6`` or ``13/9 9/6``, the ones its move
    generator found; ours writes standard notation, ``13/6``, as the match screen's move list
    does): the rest of the line with trailing spaces removed and its gaps (which depend on the
    plays' lengths) made single spaces; comment lines dropped unless ``comments``."""
    out = []
    for line in text.splitlines():
        if line.startswith(";") and not comments:
            continue
        plays: list[Play] = []

        def take(m: re.Match[str], plays: list[Play] = plays) -> str:
            plays.append(Play.parse(m.group(1).replace("/0", "/off")))
            return "[play] "

        line = re.sub(r"(?<=: )((?:(?:\d+|bar)(?:/(?:\d+|off)\*?)+(?:\(\d\))? )+)", take,
                      line + " ")
        indent = len(line) - len(line.lstrip())
        out.append((" " * indent + " ".join(line.split()), tuple(plays)))
    return out


@pytest.mark.gnubg
def test_gnubg_imports_our_mat_with_scores_games_and_moves():
    matches = [play_random_match(seed, length=(3, 5, 7)[seed % 3],
                                 variant=("standard", "nackgammon", "hypergammon")[seed % 3],
                                 p_resign=0.03) for seed in range(4)]
    texts = [write_mat(m) for m in matches]
    # The standard notation gnubg must read: the bar, bearing off, repeats, a hit on the way.
    assert all(part in "".join(texts) for part in ("bar/", "/off", "(2)", "(4)", "*/"))
    got = run_script(_IMPORT, env={"TEXTS": json.dumps(texts)})
    for m, text, g in zip(matches, texts, got, strict=True):
        assert g["length"] == m.length
        assert _canonical(g["text"], comments=False) == _canonical(text, comments=False)
        assert len(g["games"]) == len(m.games)
        score = [0, 0]
        for result, info in zip(m.results, (x["info"] for x in g["games"]), strict=False):
            assert (info["score-X"], info["score-O"]) == tuple(score)
            assert ("XO".index(info["winner"]), info["points-won"]) == \
                (result.winner, result.points)
            score[result.winner] += result.points
        for index, theirs in enumerate(x["moves"] for x in g["games"]):
            ours = [a for a in m.record if a.game == index and a.kind in ("play", "double",
                                                                           "take", "drop")]
            assert len(ours) == len(theirs)
            for a, (kind, dice, move) in zip(ours, theirs, strict=True):
                assert kind == {"play": "move"}.get(a.kind, a.kind)
                if a.kind == "play":
                    assert sorted(dice) == sorted(a.dice)
                    unmarked = [(s.source, s.dest) for s in Play.parse(a.play).moves]
                    assert Play(move or []) == Play(unmarked)


def _narrow(text: str, width: int) -> str:
    """``text`` laid out with a left column ``width`` characters wide (gnubg's is 28) and two
    spaces before the right one, as other programs and hand-written files do."""
    out = []
    for line in text.splitlines():
        if m := re.match(r"^(\s*\d+\))(.*)$", line):
            rest = line[m.end(1):]
            left, right = rest[:28].strip(), rest[28:].strip()
            line = f"{m.group(1):>4} {left:<{width}}  {right}".rstrip()
        elif line.strip().startswith("Wins") and len(line) - len(line.lstrip()) > 20:
            line = " " * (7 + width) + line.strip()
        out.append(line)
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("width", [11, 14, 20])
def test_narrow_columns_are_read_by_gnubgs_rule(width):
    """The right column is found as gnubg finds it (a second roll, or the first double space
    from column 15 on), not at gnubg's own fixed position: a file with narrower columns gives
    each entry to the same player (a fresh user's file gave every play to the wrong one)."""
    text = write_mat(play_random_match(3, length=5, p_resign=0.03))
    narrow = _narrow(text, width)
    assert narrow != text and "  1)" in narrow
    assert read_mat(narrow).record == read_mat(text).record


def test_a_right_column_opening_in_a_narrow_file():
    narrow = (" 3 point match\n\n Game 1\n A : 0                B : 0\n"
              "  1)                  31: 8/5 6/5\n"
              "  2) 42: 8/4 6/4      51: 13/8 6/5\n")
    plays = [(a.seat, a.dice) for a in read_mat(narrow).record if a.kind == "play"]
    assert plays == [(1, (3, 1)), (0, (4, 2)), (1, (5, 1))]


@pytest.mark.gnubg
def test_gnubg_reads_narrow_columns_as_we_do():
    text = write_mat(play_random_match(3, length=5, p_resign=0.03))
    narrow = [_narrow(text, w) for w in (11, 14)]
    got = run_script(_IMPORT, env={"TEXTS": json.dumps(narrow)})
    for g in got:
        assert read_mat(g["text"]).record == read_mat(text).record


def test_a_play_or_double_in_the_other_players_column_is_refused():
    """A fresh user moved a play to the other column: it was read for the player on roll,
    silently (gnubg warns of an invalid move). A take or drop is the doubled player's in
    either column, as gnubg reads it."""
    head = " 3 point match\n\n Game 1\n A : 0                          B : 0\n"
    opening = "  1) 31: 8/5 6/5                 42: 8/4 6/4\n"
    with pytest.raises(MatFormatError, match="a roll in the right column, but it is the left"):
        read_mat(head + opening + "  2)                               63: 24/18 13/10\n")
    with pytest.raises(MatFormatError, match="a double in the right column"):
        read_mat(head + opening + "  2)                                Doubles => 2\n")
    # A tab is no column gap (gnubg's rule needs two spaces): the double after it is read in
    # the left column and refused, naming its own line.
    with pytest.raises(MatFormatError, match=r"^line 7 \(game 1\): a double in the left"):
        read_mat(head + opening + "  2) 64: 24/18 13/9\n  3)\tDoubles => 2\n")
    take_left = read_mat(head + opening + "  2)  Doubles => 2                 Takes\n")
    take_moved = read_mat(head + opening + "  2)  Doubles => 2\n  3)  Takes\n")
    assert [(a.kind, a.seat) for a in take_moved.record][-2:] == [("double", 0), ("take", 1)]
    assert take_moved.record == take_left.record


def test_an_illegal_entry_names_its_own_line():
    """Not the game's first line: a fresh user's error pointed at line 3 of a long game."""
    text = write_mat(play_random_match(5, length=3))
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("  4)"))
    lines[at] = "  4) 66: 25/19 25/19 25/19 25/19"  # no checker on the bar
    with pytest.raises(MatFormatError, match=rf"^line {at + 1} \(game 1\): "):
        read_mat("\n".join(lines))


_HEAD = " 3 point match\n\n Game 1\n A : 0                          B : 0\n"
_OPENING = "  1) 31: 8/5 6/5                 42: 8/4 6/4\n"


@pytest.mark.parametrize(("tail", "message"), [
    # A roll alone with a play after it (was "no move is incomplete: both dice can be
    # played"); last in the file it is a roll not yet played, as gnubg writes one.
    ("  2) 63:                          42: 24/20 13/11\n",
     r"^line 6 \(game 1\): the roll 63 has no play written, but it can be "
     r"played \(is the file cut short\?\)$"),
    # Moves after a drop (were read into the game after it: "no blot to hit").
    ("  2)  Doubles => 2                 Drops\n  3) 63: 24/18 13/10\n",
     r"^line 7 \(game 1\): the game is over by the drop, but the record goes on$"),
    ("  2)  Doubles => 2                 Takes\n      Wins 1 point\n",
     r"'Wins 1 point' is no resignation with the cube at 2$"),
])
def test_a_broken_game_is_refused_saying_what_is_wrong(tail, message):
    with pytest.raises(MatFormatError, match=message):
        read_mat(_HEAD + _OPENING + tail)


@pytest.mark.parametrize("name", ["HyperGammon (1)", "HyperGammon (2)", "Foo"])
def test_a_variation_not_played_here_is_refused(name):
    """gnubg writes 1- and 2-checker Hypergammon too; they were read as standard."""
    with pytest.raises(MatFormatError, match=rf"^Variation '{re.escape(name)}' is not played"):
        read_mat(f'; [Variation "{name}"]\n' + _HEAD + _OPENING)
    assert read_mat('; [Variation "Backgammon"]\n' + _HEAD + _OPENING).variant.value == \
        "standard"


def test_unreadable_text_is_quoted_short():
    noise = "\x00\x01binary" * 40
    with pytest.raises(MatFormatError) as info:
        read_mat(noise)
    assert len(str(info.value)) < 100 and str(info.value).endswith("…")


_IMPORT_MONEY = r'''
gnubg.command("set beavers 1")
with open("in.mat", "w") as f:
    f.write(os.environ["TEXT"])
gnubg.command("import mat in.mat")
gnubg.command("export match mat out.mat")
m = gnubg.match(analysis=0, boards=0)
cube = [[r["action"] for r in g["game"] if r["action"] in ("double", "take", "drop")]
        for g in m["games"]]
emit({"text": open("out.mat").read(), "cube": cube,
      "won": [[g["info"]["winner"], g["info"]["points-won"]] for g in m["games"]]})
'''


@pytest.mark.gnubg
def test_gnubg_imports_our_beavers_and_exports_the_same_text():
    """Our money games with beavers, written as ``.mat``, imported by gnubg and exported again:
    the same text (a beaver's take left implied, as gnubg writes it), the same points per
    game; and read back by us, the same record. The seed has seven beavers and no beaver
    dropped: gnubg 1.07's import loses the start of the game after a dropped beaver."""
    m = play_random_match(55, length=0, max_games=6, p_double=0.25, p_take=0.8, p_resign=0.0,
                          beavers=True, p_beaver=0.6)
    assert sum(a.kind == "beaver" for a in m.record) == 7
    text = write_mat(m)
    assert text.count("Beavers => ") == 7
    got = run_script(_IMPORT_MONEY, env={"TEXT": text})
    assert _canonical(got["text"], comments=False) == _canonical(text, comments=False)
    assert [(("XO".index(w)), p) for w, p in got["won"]] == \
        [(r.winner, r.points) for r in m.results]
    back = read_mat(got["text"])
    assert back.beavers and back.score == m.score
    finished = len(m.results)  # .mat has no opening ties, nor the last game's pending double
    assert [a.to_dict() for a in back.record if a.kind != "opening" and a.game < finished] == \
        [a.to_dict() for a in m.record if a.kind != "opening" and a.game < finished]


def test_a_raccoon_in_a_file_is_refused_with_the_line():
    text = (" 0 point match\n\n Game 1\n A : 0                          B : 0\n"
            "  1) 31: 8/5 6/5                  Doubles => 2\n"
            "  2)  Beavers => 4                 Beavers => 8\n")
    with pytest.raises(MatFormatError, match=r"line 6 \(game 1\).*raccoons"):
        read_mat(text)
