"""``boardgammon play``: a match against the computer in the terminal.

``boardgammon play --bot easy --length 5 --variant standard``. You are ``O`` (seat 0), the
computer ``X``; the board is drawn from your side, your home board bottom right, points
numbered as you play them. Commands at the prompt (also listed by ``help``):

* ``roll`` (or Enter), ``double``, ``take``, ``drop``, ``beaver`` (money play with
  ``--beavers``), ``resign [single|gammon|backgammon]``,
  ``accept`` / ``decline`` (a resignation offered by the computer);
* a play in standard notation (``24/18 13/11``, ``bar/22*``, ``6/off``, ``8/5(2)``): it is
  checked, shown, and played only once you confirm it with Enter or ``yes``; ``undo`` takes
  it back to enter another;
* ``hint``: your plays ranked, or the cube decision, by our strongest evaluator (the network at
  2-ply, whatever the computer's level; :mod:`boardgammon.analysis.hint`);
* ``board``, ``help``, ``quit``.

``--position POSITION_ID [--match-id MATCH_ID]`` plays on from any position (gnubg's IDs, as
shown under the board); ``--resume FILE`` from a saved record.

``--save DIR`` writes the match's record when it ends or you quit, as ``match-NNNN.json`` and
``match-NNNN.mat`` numbered after those already there (as ``selfplay --save`` does), so that
``boardgammon analyze`` or gnubg's ``import mat`` can review your play.

Dice come from the operating system's CSPRNG (:mod:`secrets`): games against the computer on
your own device are not part of Boardgammon's online dice record. ``--dice-seed`` (hidden, for
tests) replaces them with a seeded generator.

Why one module of some 550 lines: the terminal game is one conversation (the prompt, its
commands, saving as it goes, resuming, Ctrl-C) over one match; the board's drawing and the
options' checks are most of the rest. The computer's turn is :mod:`boardgammon.bots.turn`.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable
from pathlib import Path

import typer

from boardgammon.analysis.analysis import judge_name
from boardgammon.analysis.hint import HINT_PLIES, CubeHint, PlaysHint, cube_hint, play_hint
from boardgammon.bots import Bot, create, levels
from boardgammon.bots.warm import warm_up
from boardgammon.engine import Board, EngineError, Play
from boardgammon.engine.errors import quoted
from boardgammon.engine.game import Game, Outcome, Phase
from boardgammon.engine.ids import GAME_PLAYING, MatchIdFields, decode_match_id
from boardgammon.engine.match import MAX_LENGTH, Match, Setup

from .selfplay import bot_act, opening, prepare_save, save_match

YOU, BOT = 0, 1
_OUTCOMES = {"single": 1, "gammon": 2, "backgammon": 3, "1": 1, "2": 2, "3": 3}
# What ``hint`` asks, whatever the computer's level (the analysis's judge).
HINT_JUDGE = judge_name(HINT_PLIES)
HELP = f"""Commands:
  roll (or Enter)     roll the dice            double     offer the cube
  24/18 13/11         a play in standard notation (bar/22*, 6/off, 8/5(2)); then Enter to
                      confirm it or undo to take it back
  take / drop         answer the computer's double (beaver: take and redouble at once,
                      keeping the cube, in money play with --beavers)
  resign [single|gammon|backgammon]           accept / decline   answer its resignation
  hint [N]            your best plays (N of them, 5 by default), or the cube decision,
                      by {HINT_JUDGE}
  board  help  quit"""


def _points(n: int) -> str:
    return f"{n} point" if n == 1 else f"{n} points"


def render(board: Board, match: Match, bot_name: str, ids: bool = True) -> str:
    """A text diagram of ``board`` (seat 0's view) with the score, cube, bar, borne-off
    checkers and pip counts, and with ``ids`` the gnubg Position ID and Match ID of the
    match's current state under it (left out for a play not yet confirmed).

    Points are numbered from seat 0's side: 13-24 along the top from left to right, 12-1 along
    the bottom, so that seat 0's home board (1-6) is bottom right. ``O`` are seat 0's checkers,
    ``X`` the computer's; a number under a column counts a stack of more than five.
    """
    a = board.array

    def column(point: int) -> tuple[str, int]:
        mine, theirs = int(a[0, point - 1]), int(a[1, 24 - point])
        return ("O", mine) if mine else ("X", theirs) if theirs else ("", 0)

    def row(points: list[int], level: int) -> str:
        cells = []
        for p in points:
            ch, n = column(p)
            if level == 4 and n > 5:
                cells.append(f"{n:>3}")
            elif n > level:
                cells.append(f"  {ch}")
            else:
                cells.append("  ." if level == 0 else "   ")
        return "|" + "".join(cells[:6]) + " |   |" + "".join(cells[6:]) + " |"

    top = list(range(13, 25))
    bottom = list(range(12, 0, -1))

    def numbers(pts: list[int]) -> str:
        return (" " + "".join(f"{p:>3}" for p in pts[:6]) + "       "
                + "".join(f"{p:>3}" for p in pts[6:]))

    game = match.game
    you_pips, bot_pips = board.pip_counts()
    if game.crawford:
        cube = "Crawford game: no doubling"
    elif not game.cube_enabled:
        cube = "no cube (1-point match)"
    else:
        where = {None: "in the middle", YOU: "yours", BOT: "the computer's"}[game.cube_owner]
        cube = f"cube {game.cube}, {where}"
    length = f"{match.length}-point match" if match.length else "money play"
    lines = [
        f" Score: you {match.score[YOU]}, computer ({bot_name}) {match.score[BOT]}"
        f" - {length} - {cube}",
        numbers(top),
        " +" + "-" * 19 + "+---+" + "-" * 19 + "+",
    ]
    lines += [" " + row(top, level) for level in range(5)]
    lines.append(f" |{'':19}|BAR|{'':19}|   on the bar: O {a[0, 24]}  X {a[1, 24]}")
    lines += [" " + row(bottom, level) for level in range(4, -1, -1)]
    lines.append(" +" + "-" * 19 + "+---+" + "-" * 19 + "+")
    lines.append(numbers(bottom))
    lines.append(f" You (O): pips {you_pips}, borne off {board.borne_off(0)}.   "
                 f"Computer (X): pips {bot_pips}, borne off {board.borne_off(1)}.")
    if ids:
        # gnubg's IDs of the match as it stands (the position from the view of the player on
        # roll), to paste into boardgammon plays or gnubg's "set gnubgid".
        lines.append(f" Position ID: {game.board.position_id}   Match ID: "
                     f"{match.match_id_gnubg}")
    return "\n".join(lines)


def _rolled(game: Game) -> tuple[int, int]:
    """The dice of ``game``, which its phase says are rolled."""
    if game.dice is None:
        raise RuntimeError(f"no dice rolled in the {game.phase.name} phase")
    return game.dice


class TerminalGame:
    """The match loop: reads commands with ``read`` and writes with ``write``.

    Args:
        bot: the computer (seat 1).
        length: match length in points (1 or more), 0 for money play.
        variant: ``standard``, ``nackgammon`` or ``hypergammon``.
        dice: returns a roll; one die each for the opening roll is its first value.
        read: reads one line of input (raises ``EOFError`` at the end).
        write: prints a line.
        match: a match to play on (resumed from a record) instead of a new one of ``length``
            and ``variant``; the player is seat 0.
        jacoby: money play under the Jacoby rule.
        beavers: money play with beavers.
        saved: called with the match after each action (to keep its record on disk).
    """

    def __init__(self, bot: Bot, length: int, variant: str, dice: Callable[[], tuple[int, int]],
                 read: Callable[[str], str] = input, write: Callable[[str], None] = print,
                 match: Match | None = None, jacoby: bool = False,
                 saved: Callable[[Match], None] | None = None, beavers: bool = False):
        self.bot = bot
        self.match = match if match is not None else Match(
            length, variant, players=("You", f"Computer-{bot.name}"), jacoby=jacoby,
            beavers=beavers)
        self.dice = dice
        self.read = read
        self.write = write
        self.saved = saved
        # A resumed game in progress keeps its number.
        self._games_seen = len(self.match.games) - (self.match.game.phase is Phase.OPENING)

    def show(self) -> None:
        self.write(render(self.match.game.board_for(YOU), self.match, self.bot.name))

    def run(self) -> int:
        """Play until the match ends (returns 0), the player quits (returns 0), input ends
        (returns 1) or Ctrl-C (returns 130, as a shell reports an interrupted command)."""
        if self._games_seen and self.match.game.phase is not Phase.OPENING:
            set_up = self.match.setup is not None and self._games_seen == 1
            self.write("Playing on from the position." if set_up
                       else f"Resuming game {self._games_seen}.")
            self.show()
        try:
            while not self.match.is_over:
                self._start_game_if_needed()
                game = self.match.game
                if game.is_over:
                    continue
                if game.turn == BOT:
                    self._bot_turn()
                elif not self._your_turn():
                    self.write(f"You quit the match at {self._score()}.")
                    return 0
                self._save()
        except EOFError:
            self.write("\nBye (end of input).")
            return 1
        except KeyboardInterrupt:
            self.write("\nInterrupted (Ctrl-C).")
            return 130
        self._save()
        winner = "You win" if self.match.winner == YOU else "The computer wins"
        # As the result dialog and the analysis say it: the winner's score capped at the
        # length (a backgammon in a 1-point match wins it 1-0, as gnubg scores it).
        # The winner's score first, as a result is said ("wins the match 3-0").
        final = self.match.final_score
        won, lost = (final[YOU], final[BOT]) if self.match.winner == YOU else (final[BOT],
                                                                                final[YOU])
        self.write(f"{winner} the match {won}-{lost}.")
        return 0

    def _score(self) -> str:
        you, bot = self.match.score
        if self.match.length:
            return f"{you}-{bot} in a {self.match.length}-point match"
        return f"you {_points(you)}, the computer {_points(bot)} (money play)"

    def _standing(self) -> str:
        """Where a resumed or set-up match starts, after what it is: ``at 2-3`` in a match,
        ``with you at 1 point and the computer at 0`` in money play."""
        you, bot = self.match.score
        if self.match.length:
            return f"at {you}-{bot}"
        return f"with you at {_points(you)} and the computer at {bot}"

    def _save(self) -> None:
        if self.saved is not None:
            self.saved(self.match)

    # Turns ------------------------------------------------------------------------------------

    def _start_game_if_needed(self) -> None:
        game = self.match.game
        if game.phase is not Phase.OPENING:
            return
        self._games_seen += 1
        self.write(f"\n=== Game {self._games_seen} ===")
        opening(self.match, self.dice)
        d1, d2 = _rolled(game)
        first = "You" if game.on_roll == YOU else "The computer"
        self.write(f"Opening roll: {first} {'play' if game.on_roll == YOU else 'plays'} "
                   f"first with {d1}-{d2}.")
        if game.on_roll == YOU:
            self.show()

    def _bot_turn(self) -> None:
        game = self.match.game
        was_playing = game.phase is Phase.PLAY
        index = len(self.match.games)
        said = bot_act(self.match, BOT, self.bot, self.dice)
        self.write(f"Computer {said}.")
        self._after_action(index, show=was_playing)

    def _after_action(self, index: int, show: bool) -> None:
        """Report a finished game, or show the board after a play."""
        game = self.match.games[index - 1]
        result = game.result
        if result is not None:
            who = "You win" if result.winner == YOU else "The computer wins"
            how = {"bear_off": result.outcome.name.lower(), "drop": "the dropped double",
                   "resign": f"a resigned {result.outcome.name.lower()}"}[result.reason.value]
            # The score as the match ends it (the winner's capped at the length: a resigned
            # gammon at cube 2 in a 3-point match said "computer 4", then "wins the match 0-3").
            score = self.match.final_score
            self.write(f"{who} {_points(result.points)} "
                       f"({how}). Score: you {score[YOU]}, computer {score[BOT]}.")
        elif show:
            self.show()

    def _your_turn(self) -> bool:
        """Read and carry out one of the player's commands; False to quit."""
        game = self.match.game
        prompts = {
            # "double" only where the rules allow it (not in the Crawford game, a 1-point
            # match, with the cube on the computer's side or at 64).
            Phase.ROLL: (f"Your turn: roll, {'double, ' if game.can_double(YOU) else ''}"
                         f"resign, hint > "),
            Phase.PLAY: f"You rolled {game.dice[0]}-{game.dice[1]}. Your play (or hint) > "
            if game.dice else "",
            Phase.DOUBLE_OFFERED: (
                f"The computer beavers: the cube is {game.cube}, its own, and {game.cube * 2} "
                f"is offered to you: take or drop? > " if game.beavered else
                f"The computer doubles to {game.cube * 2}: take"
                f"{', beaver' if game.can_beaver(YOU) else ''} or drop? > "),
            Phase.RESIGN_OFFERED: (f"The computer resigns a "
                                   f"{game.resignation.outcome.name.lower()} "
                                   f"({_points(int(game.resignation.outcome) * game.cube)}): "
                                   f"accept or decline? > " if game.resignation else ""),
        }
        line = self.read(prompts[game.phase]).strip()
        word, _, rest = line.partition(" ")
        word = word.lower()
        index = len(self.match.games)
        try:
            if word in ("quit", "exit"):
                answer = self.read("Quit the match? yes or no > ").strip().lower()
                if answer in ("y", "yes"):
                    return False
                self.write("Play on.")
                return True
            if word in ("help", "?"):
                self.write(HELP)
            elif word == "board":
                self.show()
            elif word == "hint":
                self._hint(rest.strip())
            elif word in ("roll", "") and game.phase is Phase.ROLL:
                d1, d2 = self.dice()
                self.match.roll(YOU, d1, d2)
                self.write(f"You roll {d1}-{d2}.")
                if game.legal_plays() == [Play()]:
                    self.write("You cannot move.")
                    self.match.play(YOU, "")
            elif word == "double":
                self.match.double(YOU)
                self.write(f"You double to {game.cube * 2}.")
            elif word == "beaver":
                self.match.beaver(YOU)
                self.write(f"You beaver: the cube is {game.cube}, yours, and you redouble to "
                           f"{game.cube * 2}.")
            elif word in ("take", "drop", "accept", "decline"):
                beavered = game.beavered
                getattr(self.match, word)(YOU)
                owner = "the computer's" if beavered else "yours"
                self.write({"take": f"You take: the cube is {game.cube}, {owner}.",
                            "drop": "You drop.", "accept": "You accept.",
                            "decline": "You decline; play on."}[word])
            elif word == "resign":
                self._resign(rest)
            elif word == "undo":
                self.write("Nothing to undo: enter a play, then undo it before confirming.")
            elif word == "roll" and game.phase is Phase.PLAY and game.dice:
                self.write(f"You have already rolled {game.dice[0]}-{game.dice[1]}: enter your "
                           f"play (or hint).")
            elif game.phase is Phase.PLAY and line:
                self._play(line)
            elif game.phase is Phase.PLAY:
                self.write(f"Enter a play in standard notation, e.g. 8/5 6/5 (hint ranks your "
                           f"plays by {HINT_JUDGE}, whatever the computer's level).")
            elif game.phase is Phase.ROLL and "/" in word:
                self.write("Roll first (Enter or roll), then enter your play.")
            else:
                self.write(f"{quoted(line)} is not a command now; type help for the commands.")
        except EngineError as exc:
            self.write(f"Not allowed: {exc}")
        self._after_action(index, show=False)
        return True

    def _play(self, text: str) -> None:
        game = self.match.game
        try:
            legal = game.board.validate(text, _rolled(game))
        except EngineError as exc:
            self.write(f"Illegal play: {exc}")
            return
        if legal.after is None:
            raise RuntimeError(f"the legal play {legal} comes without its position after")
        self.write(f"Your play: {legal}")
        self.write(render(legal.after, self.match, self.bot.name, ids=False))
        while True:
            answer = self.read("Enter (or yes) to confirm, undo to take it back > ")
            answer = answer.strip().lower()
            if answer in ("", "y", "yes", "ok", "confirm"):
                self.match.play(YOU, legal)
                if not self.match.game.is_over:
                    self.show()
                return
            if answer in ("undo", "n", "no"):
                self.write("Taken back; enter your play.")
                return
            if answer == "hint":
                self._hint()
            else:
                self.write(f"{quoted(answer)} is neither a confirmation nor undo: Enter (or yes) "
                           f"plays {legal}, undo takes it back.")

    def _resign(self, rest: str) -> None:
        key = rest.strip().lower() or "single"
        if key not in _OUTCOMES:
            self.write(f"resign what? single, gammon or backgammon, not {quoted(rest.strip())}")
            return
        self.match.resign(YOU, _OUTCOMES[key])
        self.write(f"You offer to resign a {Outcome(_OUTCOMES[key]).name.lower()}.")

    def _hint(self, rows: str = "") -> None:
        """``hint`` and ``hint N`` (the best N plays; 5 by default, as gnubg's ``hint``)."""
        game = self.match.game
        if rows and not (rows.isdecimal() and int(rows) >= 1):
            self.write(f"hint takes a number of plays to show, e.g. hint 10; not {quoted(rows)}.")
            return
        if game.phase is Phase.PLAY:
            self.write("Thinking (our network at 2-ply, whatever the computer's level)...")
            self.write(format_play_hint(play_hint(self.match), int(rows or 5)))
        elif game.phase is Phase.ROLL and not game.cube_enabled:
            self.write("There is no doubling in this game: roll.")
        elif game.phase is Phase.ROLL and not game.can_double(YOU):
            self.write("You cannot double now (the cube is not yours to turn): roll.")
        elif game.phase is Phase.DOUBLE_OFFERED and game.beavered:
            self.write(f"The computer beavered your double: take to play on at {game.cube * 2} "
                       f"(the cube stays the computer's) or drop to lose "
                       f"{_points(game.cube)}. The cube hint covers doubles, not beavers.")
        elif game.phase in (Phase.ROLL, Phase.DOUBLE_OFFERED):
            hint = cube_hint(self.match)
            self.write(format_cube_hint(hint, offered=game.phase is Phase.DOUBLE_OFFERED))
            if game.phase is Phase.DOUBLE_OFFERED and game.can_beaver(YOU) and hint.dt < 0:
                # gnubg's rule in money play with beavers: a take worth more than 0 to the
                # player doubled (double/take below 0 for the doubler) is a beaver.
                self.write(f"  With beavers: beaver. Double, take is {hint.dt:+.3f} for the "
                           f"computer, below 0:\n  the take is in your favour, and a beaver "
                           f"doubles the stake at once.")
        else:
            self.write("No hint here: answer the resignation with accept or decline.")


def _chances(o: tuple[float, ...]) -> str:
    """Outcome chances as percentages: win, gammon, backgammon | lose gammon, backgammon."""
    return (f"{100 * o[0]:5.1f} {100 * o[1]:5.1f} {100 * o[2]:4.1f} | "
            f"{100 * o[3]:5.1f} {100 * o[4]:4.1f}")


def format_play_hint(hint: PlaysHint, rows: int = 5) -> str:
    """The best ``rows`` plays of ``hint``, one line each within 80 columns: the value they rank
    by (MWC in a match, cubeful equity in money play), then the mover's chances in percent."""
    by = "cubeful match-winning chance" if hint.unit == "MWC" else "cubeful equity"
    lines = [f"Hint by {hint.judge}, ranked by {by}:",
             f"    {'play':<22} ply {hint.unit:>7}   win    g   bg | lose g   bg"]
    for i, p in enumerate(hint.plays[:rows], start=1):
        value = f"{100 * p.value:6.2f}%" if hint.unit == "MWC" else f"{p.value:+7.3f}"
        lines.append(f"{i:>2}. {p.play or '(no move)':<22} {p.plies:>3} {value} "
                     f"{_chances(p.outputs)}")
    return "\n".join(lines)


def format_cube_hint(hint: CubeHint, offered: bool) -> str:
    """The cube hint: the three equities for the player on roll (the doubler), the proper
    action and the doubler's chances."""
    who = "the computer, who doubled" if offered else "you, on roll"
    return "\n".join([
        f"Cube hint by {hint.judge} (equities for {who}):",
        f"  no double     {hint.nd:+.3f}",
        f"  double, take  {hint.dt:+.3f}",
        f"  double, drop  {hint.dp:+.3f}",
        f"  Proper action: {hint.action}.",
        "  the doubler's chances in %: win, gammon, backgammon | lose gammon, backgammon",
        f"  {_chances(hint.outputs)}"])


def play(
    bot: str = typer.Option("easy", help=f"Computer level: {', '.join(levels())}."),
    length: int | None = typer.Option(None, min=0, max=MAX_LENGTH, show_default="5", help=(
        "Match length in points; 0 for money play. A record (--resume) and a Match ID keep "
        "their own.")),
    variant: str = typer.Option("standard", help="standard, nackgammon or hypergammon."),
    jacoby: bool = typer.Option(False, "--jacoby", help=(
        "Money play: the Jacoby rule (gammons and backgammons count only once the cube has "
        "been turned).")),
    beavers: bool = typer.Option(False, "--beavers", help=(
        "Money play: beavers (a doubled player may take and at once redouble, keeping the "
        "cube; no raccoons).")),
    dice_seed: int | None = typer.Option(None, hidden=True,
                                         help="Seeded dice instead of the CSPRNG (tests)."),
    save: Path | None = typer.Option(None, help=(
        "Directory for the match's record, kept up to date after every move and written when "
        "it ends, you quit or press Ctrl-C (match-NNNN.json and .mat, for boardgammon analyze "
        "or gnubg).")),
    resume: Path | None = typer.Option(None, help=(
        "Play on from a saved record (JSON or .mat; you are its first player). Saved, as it "
        "goes, as the next match-NNNN in --save DIR, else in the record's own directory.")),
    position: str | None = typer.Option(None, "--position", metavar="POSITION_ID", help=(
        "Play on from this gnubg Position ID (from the view of the player on roll: you, unless "
        "--match-id says otherwise), at the score, cube and length of --match-id, else at 0-0 "
        "with the cube in the middle and --length. Saved as JSON only: gnubg's .mat cannot "
        "start from a set-up position.")),
    match_id: str | None = typer.Option(None, "--match-id", metavar="MATCH_ID", help=(
        "With --position: gnubg's Match ID of the position (length, score, cube, Crawford, "
        "who is on roll - you are its player 0 - and the dice if rolled).")),
) -> None:
    """A match (or money play) against the computer in the terminal."""
    asked_length = length
    length = 5 if length is None else length
    known = levels()
    if bot not in known:
        raise typer.BadParameter(f"unknown bot level {bot!r}; known: {', '.join(known)}")
    if variant not in ("standard", "nackgammon", "hypergammon"):
        raise typer.BadParameter(f"unknown variant {variant!r}; use standard, nackgammon or "
                                 f"hypergammon")
    if jacoby and length:
        raise typer.BadParameter("the Jacoby rule is for money play: add --length 0",
                                 param_hint="--jacoby")
    if beavers and length:
        raise typer.BadParameter("beavers are for money play: add --length 0",
                                 param_hint="--beavers")
    if match_id is not None and position is None:
        raise typer.BadParameter("a Match ID goes with a position: add --position POSITION_ID",
                                 param_hint="--match-id")
    if position is not None and resume is not None:
        raise typer.BadParameter("--resume plays on from a record, --position from a "
                                 "position: give one of them", param_hint="--position")
    if resume is not None:
        resumed: Match | None = _resumed(resume)
    elif position is not None:
        resumed = _set_up(position, match_id, length, variant, jacoby, bot, beavers)
    else:
        resumed = None
    if resumed is not None and asked_length is not None and resumed.length != asked_length:
        source = "the record" if resume is not None else "the Match ID"
        kind = f"a {resumed.length}-point match" if resumed.length else "money play"
        raise typer.BadParameter(f"{source} is {kind}: it plays on at its own length, not "
                                 f"{asked_length}; leave --length out", param_hint="--length")
    if resume is not None and save is None:
        save = resume.parent
    number = 0
    if save is not None:
        try:
            number = prepare_save(save)
        except OSError as exc:
            raise typer.BadParameter(f"cannot write to {save}: {exc.strerror or exc}",
                                     param_hint="--save") from exc
    if dice_seed is None:
        rng: random.Random = secrets.SystemRandom()
        bot_seed = secrets.randbits(63)
    else:
        rng = random.Random(dice_seed)
        bot_seed = dice_seed
    keeper = _Keeper(save, number + 1) if save is not None else None
    game = TerminalGame(create(bot, bot_seed), length, variant,
                        dice=lambda: (rng.randint(1, 6), rng.randint(1, 6)), match=resumed,
                        jacoby=jacoby, saved=keeper, beavers=beavers)
    if keeper is not None:
        keeper.write = game.write
    # Compiled code loads (or, the first time after installing, compiles: up to a minute
    # here) before the first move, with a word, rather than as a silent wait at the computer's
    # first move (a fresh user waited 36 s for hard's).
    game.write("Getting the computer ready…")
    warm_up()
    match = game.match
    if match.length:
        what = f"A {match.length}-point match"
    else:
        rules = [r for r, on in (("Jacoby rule", match.jacoby), ("beavers", match.beavers)) if on]
        what = "Money play" + (f" ({', '.join(rules)})" if rules else "")
    if resume is not None:
        what = f"{what} resumed from {resume} {game._standing()},"
    elif position is not None:
        what = f"{what} from Position ID {position} {game._standing()},"
    game.write(f"{what} against the computer ({bot}). Type help for the commands.")
    code = game.run()
    if keeper is not None:
        keeper.report(match)
        if keeper.failed:
            code = 1
    raise typer.Exit(code)


def _resumed(path: Path) -> Match:
    """The unfinished match recorded in ``path``, for ``--resume``."""
    from .analyze import load_match

    try:
        match = load_match(path)
    except OSError as exc:
        raise typer.BadParameter(f"cannot read {path}: {exc.strerror or exc}",
                                 param_hint="--resume") from exc
    except EngineError as exc:
        raise typer.BadParameter(f"{path} is not a match record that replays: {exc}",
                                 param_hint="--resume") from exc
    if match.is_over:
        raise typer.BadParameter(
            f"{path} is a finished match ({match.score[0]}-{match.score[1]}): nothing to play "
            f"on; start a new one without --resume", param_hint="--resume")
    return match


def _set_up(position: str, match_id: str | None, length: int, variant: str, jacoby: bool,
            bot: str, beavers: bool = False) -> Match:
    """The match of ``play --position`` (and ``--match-id``), seat 0 the player."""
    if match_id is None:
        fields = MatchIdFields(length=length, jacoby=jacoby)
    else:
        try:
            fields = decode_match_id(match_id)
        except EngineError as exc:
            raise typer.BadParameter(str(exc), param_hint="--match-id") from exc
        if fields.game_state != GAME_PLAYING:
            raise typer.BadParameter(f"Match ID {match_id} is of a game not in progress (before "
                                     f"its opening roll or over): no position to play on",
                                     param_hint="--match-id")
        if fields.doubled or fields.resigned:
            what = "a double" if fields.doubled else "a resignation"
            raise typer.BadParameter(f"Match ID {match_id} has {what} waiting for an answer; "
                                     f"give the Match ID of the position before it",
                                     param_hint="--match-id")
    try:
        finished = Board.from_position_id(position).is_game_over()
    except EngineError as exc:
        raise typer.BadParameter(f"cannot play on from {position}: {exc}",
                                 param_hint="--position") from exc
    if finished:
        raise typer.BadParameter(f"{position} is a finished game (a side has borne off every "
                                 f"checker): no position to play on", param_hint="--position")
    setup = Setup(position_id=position, on_roll=fields.on_roll, score=fields.score,
                  cube=fields.cube, cube_owner=fields.cube_owner, crawford=fields.crawford,
                  dice=fields.dice if fields.dice != (0, 0) else None)
    try:
        return Match(fields.length, variant, players=("You", f"Computer-{bot}"),
                     jacoby=fields.jacoby, setup=setup,
                     beavers=beavers)
    except (ValueError, EngineError) as exc:
        hint = "--position" if match_id is None else "--position/--match-id"
        raise typer.BadParameter(f"cannot play on from {position}"
                                 + (f" {match_id}" if match_id else "") + f": {exc}",
                                 param_hint=hint) from exc


class _Keeper:
    """Keeps the match's record on disk as ``match-NNNN.json`` and ``.mat`` in a directory,
    rewritten after every action, so that a closed terminal or Ctrl-C loses nothing."""

    def __init__(self, directory: Path, number: int) -> None:
        self.directory = directory
        self.number = number
        self.write: Callable[[str], None] = print
        self.failed = False
        self.paths: list[Path] = []

    def __call__(self, match: Match) -> None:
        if not _played(match) or self.failed:
            return
        try:
            self.paths = save_match(match, self.directory, self.number)
        except OSError as exc:
            self.failed = True
            self.write(f"Could not save the match in {self.directory}: {exc.strerror or exc}; "
                       f"play goes on unsaved.")

    def report(self, match: Match) -> None:
        """Save a last time and say what was kept."""
        if not _played(match):
            self.write("Nothing was played: no record saved.")
            return
        self(match)
        if self.failed:
            return
        record, *mat = self.paths
        state = "" if match.is_over else " (unfinished)"
        if mat:
            kept = f"{record} and {mat[0].name}; review it with boardgammon analyze {mat[0]}"
        else:
            kept = (f"{record} (no .mat: gnubg's .mat format cannot start from a set-up "
                    f"position); review it with boardgammon analyze {record}")
        self.write(f"Saved the match{state}: {kept}"
                   + ("" if match.is_over else f", or play on with --resume {record}"))


def _played(match: Match) -> bool:
    return any(a.kind not in ("opening", "roll") for a in match.record)
