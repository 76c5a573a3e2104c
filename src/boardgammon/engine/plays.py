"""Plays and standard notation, parsed and printed in one place.

Standard notation lists each checker's journey as ``from/to``, points in the mover's numbering,
``bar`` for the bar and ``off`` for bearing off; ``*`` marks a hit, also on a point a checker only
passes through (``13/7*/5``); ``(n)`` repeats a journey (``8/5(2)``). Examples: ``24/18 13/11``,
``bar/22*``, ``6/off``, ``24/20(2) 13/9(2)``. A dance (no legal play) is the empty play, printed as
the empty string.

Two plays are equal when they move the same checkers the same net distance and hit on the same
points, whatever order or chaining the text used: ``13/10 10/8`` equals ``13/8``. From a given
position that is exactly "the same resulting position".

>>> str(Play.parse("13/11 24/18"))
'24/18 13/11'
>>> Play.parse("13/10 10/8") == Play.parse("13/8")
True
"""

from __future__ import annotations

import re
from collections import Counter
from typing import TYPE_CHECKING, NamedTuple

from .constants import BAR, BAR_INDEX, HOME_POINTS, OFF, POINTS
from .errors import IllegalPlay, InvalidNotation, quoted

if TYPE_CHECKING:
    from .board import Board

_TOKEN = re.compile(r"^(bar|\d{1,2})((?:/(?:off|\d{1,2})\*?)+)(?:\((\d)\))?$", re.IGNORECASE)
_STEP = re.compile(r"/(off|\d{1,2})(\*?)", re.IGNORECASE)


class Move(NamedTuple):
    """One checker's move between two points of the mover's numbering (25 = bar, 0 = off).

    ``hit`` is true when the checker hits a blot where it lands.
    """

    source: int
    dest: int
    hit: bool = False


def _point_text(p: int) -> str:
    return "bar" if p == BAR else "off" if p == OFF else str(p)


class Play:
    """A play: the moves of one turn, with its resulting position when known.

    Args:
        moves: the moves, in any order, single-die steps or longer journeys.
        after: the resulting position (mover's view), set on plays from ``Board.legal_plays``.
    """

    __slots__ = ("moves", "after", "_key")

    def __init__(self, moves: tuple[Move, ...] | list[Move] = (), after: Board | None = None):
        self.moves = tuple(Move(int(m[0]), int(m[1]), bool(m[2]) if len(m) > 2 else False)
                           for m in moves)
        self.after = after
        self._key = _identity(self.moves)

    @property
    def board_after(self) -> Board:
        """The resulting position (mover's view) of a play from ``Board.legal_plays`` or
        ``Board.validate``.

        Raises:
            ValueError: the resulting position is unknown (a play parsed from text and not yet
                validated against a position).
        """
        if self.after is None:
            raise ValueError(f"{self} has no known resulting position: validate it first")
        return self.after

    @classmethod
    def _from_kernel(cls, moves, n: int, after: Board | None) -> Play:
        """A play from the generator's ``int[4, 3]`` move rows (source, dest, hit), the first
        ``n`` of them; valid by construction, so built without the constructor's checks."""
        play = cls.__new__(cls)
        play.moves = tuple([Move(s, d, bool(h)) for s, d, h in moves[:n].tolist()])
        play.after = after
        play._key = _identity(play.moves)
        return play

    @classmethod
    def parse(cls, text: str) -> Play:
        """Parse standard notation: ``24/18 13/11``, ``bar/22*``, ``8/5(2)``, ``13/7*/5``.

        The empty string is the dance. Case and extra spaces are ignored.

        Raises:
            InvalidNotation: a token that is not ``from/to[/to…]`` with points 1–24, ``bar`` as
                a source only, ``off`` as a final destination only, each step moving forward.
        """
        if not isinstance(text, str):
            raise InvalidNotation(f"a play is text such as '24/18 13/11', got {quoted(text)}")
        moves: list[Move] = []
        for token in text.replace(",", " ").split():
            shown = quoted(token)  # a long token is named, not echoed whole
            m = _TOKEN.match(token)
            if not m:
                raise InvalidNotation(
                    f"{shown} is not a move in standard notation (e.g. 24/18, bar/22*, 6/off, "
                    f"8/5(2), 13/7*/5)")
            src = BAR if m.group(1).lower() == "bar" else int(m.group(1))
            if not 1 <= src <= BAR:
                raise InvalidNotation(f"{shown}: point {src} is not on the board (1-24, bar)")
            steps = _STEP.findall(m.group(2))
            count = int(m.group(3) or 1)
            if count < 1 or count > 4:
                raise InvalidNotation(f"{shown}: a move repeats 1-4 times, not {count}")
            path: list[Move] = []
            here = src
            for i, (dest_text, star) in enumerate(steps):
                dest = OFF if dest_text.lower() == "off" else int(dest_text)
                if dest_text.lower() == "off" and i != len(steps) - 1:
                    raise InvalidNotation(f"{shown}: nothing can move on after bearing off")
                if dest != OFF and not 1 <= dest <= POINTS:
                    raise InvalidNotation(f"{shown}: point {dest} is not on the board (1-24)")
                if dest >= here:
                    raise InvalidNotation(f"{shown}: checkers move from higher to lower "
                                          f"points, not {_point_text(here)}/{_point_text(dest)}")
                if star and dest == OFF:
                    raise InvalidNotation(f"{shown}: bearing off cannot hit")
                path.append(Move(here, dest, bool(star)))
                here = dest
            moves.extend(path * count)
        return cls(moves)

    # Queries --------------------------------------------------------------------------------

    @property
    def is_dance(self) -> bool:
        """Whether this is the empty play of a roll with no legal move."""
        return not self.moves

    @property
    def hits(self) -> frozenset[int]:
        """The points (mover's numbering) where this play hits a blot."""
        return self._key[1]

    def _with_hits_on(self, board: Board) -> Play:
        """This play with every landing on an opponent's blot in ``board`` marked as a hit.

        Raises:
            IllegalPlay: a ``*`` on a point where the opponent has no blot.
        """
        theirs = board.array[1]
        moves = []
        for m in self.moves:
            blot = m.dest != OFF and theirs[POINTS - m.dest] == 1
            if m.hit and not blot:
                raise IllegalPlay(f"there is no blot to hit on the {m.dest}-point")
            moves.append(Move(m.source, m.dest, m.hit or blot))
        # A blot is hit once; later landings on the same point are not hits.
        seen: set[int] = set()
        out = []
        for m in sorted(moves, key=lambda m: (-m.source, -m.dest)):
            hit = m.hit and m.dest not in seen
            if hit:
                seen.add(m.dest)
            out.append(Move(m.source, m.dest, hit))
        return Play(out, self.after)

    def _passes_for(self, other: Play) -> bool:
        """Whether ``other`` moves the checkers as this play does, hitting at least where this
        play hits (this play may leave out the points a journey passes)."""
        return self._key[0] == other._key[0] and self._key[1] <= other._key[1]

    # Notation -------------------------------------------------------------------------------

    def notation(self) -> str:
        """Standard notation: journeys sorted from the back, chained through points where the
        checker only passes, hits marked ``*``, repeats written ``(n)``."""
        return _notation(self.moves)

    def __str__(self) -> str:
        return self.notation()

    def __repr__(self) -> str:
        return f"Play.parse({self.notation()!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Play) and self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)


def parse_moves(text: str) -> tuple[Move, ...]:
    """The moves of a play written in standard notation (see :meth:`Play.parse`)."""
    return Play.parse(text).moves


def explain_refusal(play: Play, nmoves: int | None, first_die: int | None, best: int,
                    d1: int, d2: int) -> str:
    """The message of an :class:`IllegalPlay`: why ``play`` is not legal for ``d1``-``d2``.

    Args:
        play: the refused play, hits resolved against the position.
        nmoves: moves of the matching incomplete state, or ``None`` when nothing matched.
        first_die: the die a matching one-move state used.
        best: the most dice any legal play uses.
    """
    roll = f"{d1}-{d2}"
    shown = str(play) or "no move"
    if best == 0:
        return f"{roll} has no legal play (a dance): {shown} cannot be played"
    if play.is_dance:
        return f"you can play {roll}: a dance is only for a roll with no legal play"
    if nmoves is not None and nmoves < best:
        if d1 == d2:
            return f"{shown} is incomplete: {best} moves of {d1} can be played with {roll}"
        return f"{shown} is incomplete: both dice can be played with {roll}"
    if nmoves is not None and best == 1 and first_die != max(d1, d2):
        return (f"{shown} plays the {first_die}: only one die of {roll} can be played, and "
                f"it must be the larger ({max(d1, d2)})")
    return f"{shown} is not a legal play of {roll} in this position"


def missing_checkers(play: Play, board) -> str | None:
    """Why ``play`` moves checkers the player does not have (``None`` when it does not): the
    first check of a refusal, before hits are read, so that ``bar/22*`` with nothing on the bar
    says so rather than that no blot stands on the 22-point.

    Args:
        play: the play as written (a checker may move on from where an earlier move put it).
        board: ``int[2, 25]`` position before the play (mover's view, layout of ``Board``).
    """
    leaving = Counter(m.source for m in play.moves)
    leaving.subtract(m.dest for m in play.moves if m.dest != OFF)
    for point in sorted(leaving, reverse=True):
        have, need = int(board[0, point - 1]), leaving[point]
        where = "on the bar" if point == BAR else f"on the {point}-point"
        if have == 0 < need:
            return f"there is no checker of yours {where} to move"
        if have < need:
            return f"it moves {need} checkers from {where[3:]}, where you have {have}"
    return None


def broken_rule(play: Play, board, after, d1: int, d2: int) -> str | None:
    """The rule an impossible play breaks on its own, for the message of an
    :class:`IllegalPlay`; ``None`` when only the combination of its moves is illegal. Checkers
    the player does not have are refused before (:func:`missing_checkers`).

    Only called on the refusal path, never while generating plays.

    Args:
        play: the refused play, hits resolved against the position.
        board: ``int[2, 25]`` position before the play (mover's view, layout of ``Board``).
        after: ``int[2, 25]`` the mover's checkers after applying the moves unchecked.
        d1, d2: the roll.
    """
    mine, theirs = board[0], board[1]
    if mine[BAR_INDEX] and any(m.source != BAR for m in play.moves) \
            and sum(m.source == BAR for m in play.moves) < mine[BAR_INDEX]:
        return "checkers on the bar must enter before any other move"
    most = 4 if d1 == d2 else 2
    if len(play.moves) > most:
        return f"{len(play.moves)} moves: {d1}-{d2} plays at most {most}"
    steps = [d1 * k for k in range(1, 5)] if d1 == d2 else [d1, d2, d1 + d2]
    for m in play.moves:
        if m.dest != OFF and m.source - m.dest not in steps:
            ways = ", ".join(map(str, steps[:-1])) + f" or {steps[-1]}"
            pips = m.source - m.dest
            return (f"{_point_text(m.source)}/{m.dest} moves {pips} pip{'' if pips == 1 else 's'}"
                    f": {d1}-{d2} moves {ways}")
        held = theirs[POINTS - m.dest] if m.dest != OFF else 0
        if held >= 2:
            return f"the {m.dest}-point is held by the opponent ({held} checkers)"
    if any(m.dest == OFF for m in play.moves) and after[0, HOME_POINTS:].any():
        return "bearing off needs all your checkers in the home board"
    return None


def _identity(moves: tuple[Move, ...]) -> tuple[tuple[tuple[int, int], ...], frozenset[int]]:
    """What makes two plays the same: each point's net change in checkers, and the points hit."""
    delta: dict[int, int] = {}
    for m in moves:
        delta[m.source] = delta.get(m.source, 0) - 1
        delta[m.dest] = delta.get(m.dest, 0) + 1
    return (tuple(sorted((p, n) for p, n in delta.items() if n)),
            frozenset(m.dest for m in moves if m.hit))


_NOTATIONS: dict[tuple[int, ...], str] = {}
_NOTATIONS_KEPT = 1 << 15


def _notation(moves: tuple[Move, ...]) -> str:
    """:meth:`Play.notation` of ``moves``, kept: the same plays recur in every game. Keyed by
    plain integers (one per move) rather than by the moves: a key of :class:`Move` tuples
    would stay tracked by the garbage collector, and every entry would lengthen its full
    collections, which stop a whole server."""
    key = tuple([m[0] << 6 | m[1] << 1 | m[2] for m in moves])
    text = _NOTATIONS.get(key)
    if text is None:
        if len(_NOTATIONS) >= _NOTATIONS_KEPT:
            _NOTATIONS.clear()
        text = _NOTATIONS[key] = _write_notation(moves)
    return text


def journeys(play: Play) -> str:
    """``play`` in standard notation with every point each checker lands on written out
    (``bar/20/14`` where :meth:`Play.notation` writes ``bar/14``): the way to play it when the
    points a player wrote are blocked."""
    return _write_notation(play.moves, passes=True)


def _write_notation(moves: tuple[Move, ...], passes: bool = False) -> str:
    paths: list[list[tuple[int, bool]]] = []
    for m in sorted(moves, key=lambda m: (-m.source, -m.dest)):
        for path in paths:
            if path[-1][0] == m.source and len(path) > 0:
                path.append((m.dest, m.hit))
                break
        else:
            paths.append([(m.source, False), (m.dest, m.hit)])
    texts = []
    for path in paths:
        parts = [_point_text(path[0][0])]
        for i, (p, hit) in enumerate(path[1:], start=1):
            last = i == len(path) - 1
            if hit or last or passes:
                parts.append(_point_text(p) + ("*" if hit else ""))
        texts.append("/".join(parts))
    # The same journey repeated is written once with its count; when the first of them hits
    # on arrival, the hit marks the whole group, as gnubg writes it: 9/7*(4), bar/22*(2).
    hitting = {t[:-1]: t for t in texts if t.endswith("*")}
    texts = [hitting.get(t, t) for t in texts]
    counts = Counter(texts)
    out, done = [], set()
    for t in texts:
        if t in done:
            continue
        done.add(t)
        out.append(t if counts[t] == 1 else f"{t}({counts[t]})")
    return " ".join(out)
