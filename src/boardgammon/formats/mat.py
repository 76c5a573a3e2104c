"""Jellyfish ``.mat`` match text, written and read as gnubg does (``import mat``, ``export
match mat``).

Pure: :func:`write_mat` returns a string and :func:`read_mat` takes one; no file I/O here.

The layout follows GNU Backgammon 1.07's own export, the reference for every detail but the
plays' notation (below)::

    ; [Variation "NackGammon"]            optional header comments; Variation only when not
                                          standard ("NackGammon", "HyperGammon (3)")
     5 point match

     Game 1
     Ann : 0                        Bob : 0
      1)                             21: 13/11 24/23
      2) 52: 13/8 24/22              63: 8/5 11/5
      3) 66:                          Doubles => 2
      4)  Takes                      31: 25/22 6/5*
     ...
                                      Wins 2 points

Seat 0 is the left column, seat 1 the right one; reading, the right column is found as gnubg's
importer finds it (a second roll on the line, else the first double space from column 15), so
files with narrower columns than gnubg's read as they do in gnubg. A play is its roll, a colon
and the play in standard notation (``24/18 13/11``, ``bar/22*``, ``6/off``, ``8/5(2)``, one
checker's move through a point written ``24/13``), as the match screen's move list writes it;
gnubg writes single-die steps (``25`` the bar, ``0`` off) and imports either to the same plays
(``tests/formats/test_mat.py``), and both are read here. A dance is the roll alone.
Cube actions are `` Doubles => N``, `` Takes``, `` Drops``, and in money play `` Beavers => N``
(the take that answers a beaver is not written: gnubg leaves it implied by the doubler's next
roll; a match read from a file with a beaver allows beavers, and raccoons are refused);
each game ends with `` Wins N
point(s)`` in the winner's column. The format has no entries for resignations, declined offers,
ties of the opening roll, clocks or flags: a game won by resignation shows only its ``Wins``
line, and an unfinished game (the match in progress, or lost on time) has none. A roll left
unplayed, by a resignation or (``unplayed_roll``) in a match saved mid-turn, is written alone
(``31:``), as gnubg does, and read back as dice rolled (a dance, which is also a roll alone,
has no legal move); a double waiting for its answer is written as it stands, a pending
resignation offer is not (the format has no entry for one: the match's JSON record keeps it).

Money-play rules: gnubg's export writes neither the Jacoby rule nor beavers, and its import
takes both from its own settings (``set jacoby``, ``set beavers``), whatever the file says.
Here ``; [Jacoby "On"]`` and ``; [Beaver "On"]`` header lines carry them (gnubg reads past
them: its import of such a file is the same match), and a file with a ``Beavers`` entry allows
beavers without the header.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import TypeVar

from boardgammon.engine import InvalidRecord, Match, Phase, Variant
from boardgammon.engine.errors import EngineError, quoted
from boardgammon.engine.record import Beavered, Doubled, Dropped, Took

_VARIATION_NAMES = {
    Variant.NACKGAMMON: "NackGammon",
    Variant.HYPERGAMMON: "HyperGammon (3)",
}
_LEFT_WIDTH = 28  # a left-column entry is padded to this width after "NNN) "
_RIGHT_COLUMN = 5 + _LEFT_WIDTH  # where a right-column entry starts


T = TypeVar("T")


class MatFormatError(InvalidRecord):
    """``.mat`` text that cannot be parsed or whose games do not replay under the rules."""


def write_mat(match: Match, comments: dict[str, str] | None = None,
              unplayed_roll: bool = False) -> str:
    """The ``.mat`` text of ``match`` (finished or in progress) laid out as gnubg writes it, its
    plays in standard notation, with trailing spaces removed from every line.

    Args:
        match: the match (money play is written as a 0-point match).
        comments: header lines written as ``; [Key "Value"]``, e.g. ``{"EventDate":
            "2026.11.30"}``; the variant is added for Nackgammon and Hypergammon.
        unplayed_roll: in a match saved mid-turn, write the roll not yet played, alone, as
            gnubg's export does (for a record to play on from: ``play --resume``); without it
            the text ends at the last action done, as the server's move list does.

    Raises:
        MatFormatError: ``match`` was set up from a position
            (:class:`~boardgammon.engine.match.Setup`), which the format cannot express.
    """
    if match.setup is not None:
        raise MatFormatError(
            f"a match set up from a position (Position ID {match.setup.position_id}) has no "
            f".mat form: gnubg's .mat starts every game from the opening position; its JSON "
            f"record replays it")
    header = dict(comments or {})
    if match.variant in _VARIATION_NAMES:
        header.setdefault("Variation", _VARIATION_NAMES[match.variant])
    if match.jacoby:
        header.setdefault("Jacoby", "On")
    if match.beavers:
        header.setdefault("Beaver", "On")
    lines = [f'; [{key} "{value}"]' for key, value in header.items()]
    lines += ["", f" {match.length} point match", ""]

    replay = Match(match.length, match.variant, match.players, jacoby=match.jacoby,
                   beavers=match.beavers)
    entries: list[list[tuple[int, str]]] = [[] for _ in match.games]
    unplayed: dict[int, tuple[int, str]] = {}  # game -> its last roll while not played yet
    score_before = [replay.score]
    for action in match.record:
        if action.kind == "flag" or action.kind == "forfeit" or action.kind == "abort":
            continue
        seat = action.seat
        if action.kind in ("opening", "roll") and action.dice is not None:
            d1, d2 = action.dice
            if action.kind == "opening" and d1 != d2:
                seat, d1, d2 = (0, d1, d2) if d1 > d2 else (1, d2, d1)
            if seat is not None:
                unplayed[action.game] = (seat, f"{d1}{d2}: ")
        if action.kind == "play":
            unplayed.pop(action.game, None)
            assert action.dice is not None and action.play is not None and seat is not None
            legal = replay.play(seat, action.play)
            # The play in standard notation, as the match screen's move list writes it; the
            # trailing space, as in gnubg, keeps an overlong left entry apart from the right
            # column.
            text = f"{legal} " if legal.moves else ""
            entries[action.game].append((seat, f"{action.dice[0]}{action.dice[1]}: {text}"))
        else:
            beavered = replay.game.beavered
            replay.apply(replace(action, t=None))  # the text has no clock
            if isinstance(action, Doubled):
                entries[action.game].append((action.seat, f" Doubles => {action.value}"))
            elif isinstance(action, Beavered):
                entries[action.game].append((action.seat, f" Beavers => {action.value}"))
            elif isinstance(action, Took) and beavered:
                continue  # gnubg leaves the take of a beaver implied
            elif isinstance(action, (Took, Dropped)):
                entries[action.game].append((action.seat, f" {action.kind.capitalize()}s"))
        if len(score_before) < len(replay.games):
            score_before.append(replay.score)
    for index, entry in unplayed.items():
        if index < len(match.results) or unplayed_roll:  # a resignation, or saved mid-turn
            entries[index].append(entry)

    for index, game_entries in enumerate(entries):
        result = match.results[index] if index < len(match.results) else None
        if not game_entries and result is None:
            continue  # the next game, not begun yet
        s0, s1 = score_before[index]
        lines.append(f" Game {index + 1}")
        lines.append(" " + f"{match.players[0]} : {s0}".ljust(31) + f"{match.players[1]} : {s1}")
        lines += _game_lines(game_entries, result.winner if result else None,
                             result.points if result else 0)
        lines.append("")
    return "\n".join(line.rstrip() for line in lines) + "\n"


def pair_columns(entries: list[tuple[int, T]]) -> list[tuple[T | None, T | None]]:
    """The numbered lines of one game: each ``(seat, entry)`` in order, seat 0's entry
    starting a line on the left, seat 1's ending it on the right (the move list of the match
    screen pairs its turns with this too, so it agrees with the export line for line)."""
    lines: list[tuple[T | None, T | None]] = []
    left: list[T] = []  # a line with its left column written, waiting for the right
    for seat, entry in entries:
        if seat == 0:
            if left:
                lines.append((left.pop(), None))
            left.append(entry)
        else:
            lines.append((left.pop() if left else None, entry))
    if left:
        lines.append((left.pop(), None))
    return lines


def _game_lines(entries: list[tuple[int, str]], winner: int | None, points: int) -> list[str]:
    """One game's numbered lines: seat 0's entries on the left, seat 1's on the right; the
    ``Wins`` line in the winner's column (on the last line when its right column is free)."""
    pairs = pair_columns(entries)
    wins = f" Wins {points} point{'s' if points > 1 else ''}" if winner is not None else None
    own_line = wins is not None
    if wins is not None and winner == 1 and pairs and pairs[-1][1] is None:
        pairs[-1] = (pairs[-1][0], wins)
        own_line = False
    lines = [f"{number:3d}) {left or '':<{_LEFT_WIDTH}}{right or ''}"
             for number, (left, right) in enumerate(pairs, start=1)]
    if own_line:
        lines.append((" " * 5 if winner == 0 else " " * _RIGHT_COLUMN) + str(wins))
    return lines


# Reading ----------------------------------------------------------------------------------------

_COMMENT = re.compile(r'^;\s*\[(\w+)\s+"(.*)"\]\s*$')
_LENGTH = re.compile(r"^\s*(\d+)\s+point match\s*$", re.IGNORECASE)
_GAME = re.compile(r"^\s*Game\s+(\d+)\s*$", re.IGNORECASE)
_SCORE = re.compile(r"^\s*(.*?)\s*:\s*(\d+)\s+(.*?)\s*:\s*(\d+)\s*$")
_NUMBERED = re.compile(r"^\s*(\d+)\)")
_TOKEN = re.compile(
    r"(?P<roll>[1-6][1-6]):"
    r"|(?P<step>(?:\d{1,2}|bar)(?:/(?:\d{1,2}|off)\*?)+(?:\([1-4]\))?)"
    r"|(?P<double>Doubles\s*=>\s*(?P<cube>\d+))"
    r"|(?P<beaver>Beavers\s*=>\s*(?P<beavered>\d+))"
    r"|(?P<take>Takes)|(?P<drop>Drops)"
    r"|(?P<wins>Wins\s+(?P<points>\d+)\s+points?(?:\s+and\s+the\s+match)?)",
    re.IGNORECASE,
)


def _number(text: str) -> int:
    """A count from ``.mat`` text; more than nine digits is no match length, score or cube.

    Raises:
        MatFormatError: too many digits (Python refuses to read numbers of over 4,300 digits,
            and a length of that many points is no match).
    """
    if len(text) > 9:
        raise MatFormatError(f"the number {text[:12]}… is too large")
    return int(text)


def read_mat(text: str) -> Match:
    """Rebuild a :class:`Match` from ``.mat`` text by replaying every game under the rules.

    Player names come from the first game's score line (``Player 0``/``Player 1`` when there is
    no game yet), the variant from a ``Variation``
    comment (standard if none). Each game's score line and ``Wins`` line are checked against
    the replay; a game that ends without a bear-off or a drop but with a ``Wins`` line was
    resigned, by the other player, for that many points.

    Raises:
        MatFormatError: unreadable text, or a game that breaks the rules or disagrees with its
            score or ``Wins`` line.
    """
    comments: dict[str, str] = {}
    length: int | None = None
    games: list[dict] = []
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip()
        if not line.strip():
            continue
        if m := _COMMENT.match(line):
            comments[m.group(1)] = m.group(2)
        elif line.lstrip().startswith(";"):
            continue
        elif m := _LENGTH.match(line):
            length = _number(m.group(1))
        elif m := _GAME.match(line):
            games.append({"line": lineno, "score": None, "tokens": []})
        elif games and games[-1]["score"] is None and (m := _SCORE.match(line)):
            games[-1]["score"] = (m.group(1), _number(m.group(2)), m.group(3),
                                  _number(m.group(4)))
        elif games:
            games[-1]["tokens"] += _tokens(line, lineno)
        else:
            raise MatFormatError(f"line {lineno}: unexpected text before the first game: "
                                 f"{quoted(line.strip())}")
    if length is None:
        raise MatFormatError("no 'N point match' line")
    if games and games[0]["score"] is None:
        raise MatFormatError(f"line {games[0]['line']}: the first game has no score line")
    names = (games[0]["score"][0], games[0]["score"][2]) if games else ("Player 0", "Player 1")
    variant = _variant(comments.get("Variation"))
    try:
        beavers = (_switch(comments, "Beaver")
                   or any(kind == "beaver" for game in games for kind, *_ in game["tokens"]))
        match = Match(length, variant, names, jacoby=_switch(comments, "Jacoby"),
                      beavers=beavers)
    except ValueError as exc:
        raise MatFormatError(str(exc)) from exc
    for number, game in enumerate(games, start=1):
        game["number"] = number
        game["last"] = number == len(games)
        _replay_game(match, game)
    return match


def _switch(comments: dict[str, str], key: str) -> bool:
    """Whether the header ``; [key "On"]`` turns a money-play rule on (``Off``, or no such
    line: off).

    Raises:
        MatFormatError: a value other than On or Off.
    """
    value = comments.get(key, "Off")
    if value.lower() not in ("on", "off"):
        raise MatFormatError(f'the header [{key}] says {quoted(value)}: it is "On" or "Off"')
    return value.lower() == "on"


def _variant(name: str | None) -> Variant:
    """The variant a ``Variation`` comment names (none: standard), as gnubg writes them;
    one not played here (e.g. gnubg's "HyperGammon (1)") is refused rather than read as
    standard backgammon."""
    if name is None:
        return Variant.STANDARD
    known = {v.lower(): k for k, v in _VARIATION_NAMES.items()}
    known.update({"standard": Variant.STANDARD, "backgammon": Variant.STANDARD})
    try:
        return known[name.strip().lower()]
    except KeyError:
        choices = ", ".join(repr(v) for v in _VARIATION_NAMES.values())
        raise MatFormatError(f"Variation {name[:40]!r} is not played here (standard, "
                             f"{choices})") from None


_GAP = re.compile(r" {2,}")


def _split(body: str, matches: list[re.Match]) -> int:
    """Where the right column of a line starts, by gnubg's rule (``import.c``, ``ImportGame``)
    rather than by a fixed column, so that files with narrower columns than gnubg's own are
    read as gnubg reads them: with two rolls on the line, at the second; otherwise at the first
    run of two or more spaces from column 15 on (none: the whole line is the left column)."""
    rolls = [m.start() for m in matches if m.group("roll")]
    if len(rolls) >= 2:
        return rolls[1]
    text = body.rstrip()
    gap = _GAP.search(text, 15)
    return gap.start() if gap else len(text) + 1


def _tokens(line: str, lineno: int) -> list[tuple[str, object, int, int]]:
    """The entries of one line as (kind, value, column, lineno) with column 0 (left, seat 0)
    or 1."""
    body = line
    if m := _NUMBERED.match(line):
        body = " " * m.end() + line[m.end():]
    out: list[tuple[str, object, int, int]] = []
    pos = 0
    matches = list(_TOKEN.finditer(body))
    split = _split(body, matches)
    for m in matches:
        gap = body[pos:m.start()]
        if gap.strip():
            raise MatFormatError(f"line {lineno}: cannot read {quoted(gap.strip())}")
        pos = m.end()
        column = 1 if m.start() >= split else 0
        if m.group("roll"):
            out.append(("roll", (int(m.group("roll")[0]), int(m.group("roll")[1])), column, lineno))
        elif m.group("step"):
            out.append(("step", m.group("step"), column, lineno))
        elif m.group("double"):
            out.append(("double", _number(m.group("cube")), column, lineno))
        elif m.group("beaver"):
            out.append(("beaver", _number(m.group("beavered")), column, lineno))
        elif m.group("take"):
            out.append(("take", None, column, lineno))
        elif m.group("drop"):
            out.append(("drop", None, column, lineno))
        else:
            out.append(("wins", _number(m.group("points")), column, lineno))
    if body[pos:].strip():
        raise MatFormatError(f"line {lineno}: cannot read {quoted(body[pos:].strip())}")
    return out


def _at(game: dict, lineno: int) -> str:
    """Where an entry is, for a message: its own line and its game."""
    return f"line {lineno} (game {game['number']})"


@contextmanager
def _located(game: dict, lineno: int) -> Iterator[None]:
    """The engine's refusals inside as :class:`MatFormatError` naming the entry's line (ours
    pass unchanged: :class:`MatFormatError` is itself an :class:`EngineError`)."""
    try:
        yield
    except MatFormatError:
        raise
    except EngineError as exc:
        raise MatFormatError(f"{_at(game, lineno)}: {exc}") from exc


def _check_column(game: dict, what: str, column: int, seat: int, lineno: int) -> None:
    """Refuse an entry written in the other player's column (a fresh user's file had a play
    moved to the right column: read silently for the player on roll, gnubg warns)."""
    if column != seat:
        side = ("left", "right")
        raise MatFormatError(f"{_at(game, lineno)}: {what} in the {side[column]} column, "
                             f"but it is the {side[seat]} column's player to act")


def _replay_game(match: Match, game: dict) -> None:
    """Replay one game's entries on ``match``; every refusal names the line of the entry
    that breaks (an :class:`EngineError` becomes a :class:`MatFormatError` saying where)."""
    if match.is_over:
        raise MatFormatError(f"line {game['line']}: a game after the end of the match")
    if game["score"] is not None and (game["score"][1], game["score"][3]) != match.score:
        raise MatFormatError(f"line {game['line']}: the score line says "
                             f"{game['score'][1]}-{game['score'][3]}, the games before make it "
                             f"{match.score[0]}-{match.score[1]}")
    results_before = len(match.results)
    plays: list[tuple[tuple[int, int], list[str], int]] = []
    wins: tuple[int, int, int] | None = None
    events: list[tuple[str, object, int, int]] = []
    for kind, value, column, lineno in game["tokens"]:
        if kind == "step":
            if not plays or events[-1][0] != "play":
                raise MatFormatError(f"{_at(game, lineno)}: a move {value!r} without a roll")
            plays[-1][1].append(str(value))
        elif kind == "roll":
            plays.append((value, [], column))
            events.append(("play", len(plays) - 1, column, lineno))
        elif kind == "wins":
            wins = (column, int(value), lineno)
        else:
            events.append((kind, value, column, lineno))
    for kind, value, column, lineno in events:
        if len(match.results) > results_before:
            how = {"drop": "by the drop", "resign": "by a resignation",
                   "bear_off": "(borne off)"}[match.results[-1].reason.value]
            raise MatFormatError(f"{_at(game, lineno)}: the game is over {how}, but the "
                                 f"record goes on")
        with _located(game, lineno):
            _replay_event(match, game, events, plays, wins, (kind, value, column, lineno))
    finished = len(match.results) > results_before
    if wins is None:
        if finished:
            raise MatFormatError(f"game at line {game['line']}: ended without a 'Wins' line")
        return
    winner, points, lineno = wins
    if not finished:
        g = match.game
        if points % g.cube or not 1 <= points // g.cube <= 3:
            raise MatFormatError(f"{_at(game, lineno)}: 'Wins {points} point"
                                 f"{'' if points == 1 else 's'}' is no resignation with "
                                 f"the cube at {g.cube}")
        with _located(game, lineno):
            match.resign(1 - winner, points // g.cube)
            match.accept(winner)
    result = match.results[-1]
    if (result.winner, result.points) != (winner, points):
        raise MatFormatError(f"{_at(game, lineno)}: 'Wins {points}' for seat {winner}, "
                             f"but the game gives seat {result.winner} {result.points}")


def _on_roll(match: Match, game: dict, lineno: int) -> int:
    """The seat on roll in the match's game, which a roll, a play or a double needs."""
    seat = match.game.on_roll
    if seat is None:
        raise MatFormatError(f"{_at(game, lineno)}: no player is on roll here")
    return seat


def _replay_event(match: Match, game: dict, events: list, plays: list,
                  wins: tuple[int, int, int] | None, event: tuple[str, object, int, int]) -> None:
    """Apply one roll-and-play, double, take or drop to ``match``."""
    kind, value, column, lineno = event
    g = match.game
    if g.beavered and kind == "play":  # the implied take of a beaver: the doubler rolls on
        assert g.turn is not None  # a beaver waits for the doubler's answer
        match.take(g.turn)
    if kind == "play":
        if not isinstance(value, int):
            raise TypeError(f"a play event holds its index in the plays, got {value!r}")
        dice, steps, column = plays[value]
        if g.phase is Phase.OPENING:
            if dice[0] == dice[1]:
                raise MatFormatError(f"{_at(game, lineno)}: the opening roll cannot be a "
                                     f"double ({dice[0]}{dice[1]})")
            hi, lo = max(dice), min(dice)
            match.roll_opening(*((hi, lo) if column == 0 else (lo, hi)))
        else:
            on_roll = _on_roll(match, game, lineno)
            _check_column(game, "a roll", column, on_roll, lineno)
            match.roll(on_roll, *dice)
        # A roll alone is a dance, or, last before a resignation or last of a match saved
        # mid-turn, dice left unplayed.
        dance = match.game.legal_plays()[0].is_dance
        unplayed = (not steps and (wins is not None or game["last"]) and events[-1] == event
                    and not dance)
        if not steps and not dance and not unplayed:
            raise MatFormatError(f"{_at(game, lineno)}: the roll {dice[0]}{dice[1]} has no play "
                                 f"written, but it can be played (is the file cut short?)")
        if not unplayed:
            match.play(_on_roll(match, game, lineno), " ".join(steps).replace("/0", "/off"))
    elif kind == "double":
        if value != g.cube * 2:
            raise MatFormatError(f"{_at(game, lineno)}: 'Doubles => {value}' with the cube "
                                 f"at {g.cube}")
        on_roll = _on_roll(match, game, lineno)
        _check_column(game, "a double", column, on_roll, lineno)
        match.double(on_roll)
    elif kind == "beaver":
        if value != g.cube * 4:
            raise MatFormatError(f"{_at(game, lineno)}: 'Beavers => {value}' with the cube "
                                 f"at {g.cube} (a beaver turns it to {g.cube * 4})")
        seat = g.turn if g.phase is Phase.DOUBLE_OFFERED else None
        if seat is None:
            raise MatFormatError(f"{_at(game, lineno)}: a beaver with no double to answer")
        _check_column(game, "a beaver", column, seat, lineno)
        match.beaver(seat)
    else:
        # Only the doubled player can answer: a take or drop is read for it in either
        # column, as gnubg does.
        getattr(match, kind)(g.turn)
