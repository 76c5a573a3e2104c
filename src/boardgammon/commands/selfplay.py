"""``boardgammon selfplay``: bot against bot, with a summary of the results.

``boardgammon selfplay --white easy --black easy --games 100 --length 5`` plays 100 games (in
5-point matches, a new match starting when one ends; ``--length 0`` is money play), shows a
progress bar, and prints wins, gammons and backgammons per side, points per game and games per
second (``--json`` prints the same as JSON). ``--save DIR`` writes every finished match's record
as JSON (``Match.to_json``) and as a Jellyfish ``.mat`` file that gnubg imports, numbered after
any ``match-NNNN`` records already in ``DIR``; in money play, which is one session without an
end, the session's record (its finished games) under one number, rewritten after every game,
so that Ctrl-C keeps every game finished. Dice come from a ``random.Random`` seeded with
``--seed`` (the OS's entropy when absent); the bots are seeded from it too, so a seed
reproduces a run.

The bots' side of a match is :func:`bot_act`, shared with ``play``: it applies the decision of
:func:`boardgammon.bots.turn.decide`, as the game server does.
"""

from __future__ import annotations

import json
import os
import random
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import typer

from boardgammon.bots import Bot, create, levels
from boardgammon.bots.turn import (
    AcceptResign,
    Beaver,
    DeclineResign,
    Double,
    Drop,
    MakePlay,
    Resign,
    RollDice,
    Take,
    decide,
)
from boardgammon.engine.game import Game, Outcome, Phase
from boardgammon.engine.match import MAX_LENGTH, Match
from boardgammon.formats import write_mat

from .interrupt import held_interrupt

Dice = Callable[[], tuple[int, int]]


def bot_act(match: Match, seat: int, bot: Bot, dice: Dice) -> str:
    """Let ``bot`` at ``seat`` take the one action the match waits for from it
    (:func:`boardgammon.bots.turn.decide`), and say what it did in words (e.g. ``"doubles to
    2"``, ``"plays 8/5 6/5"``).

    Args:
        match: a match whose current game waits for ``seat`` (``match.game.turn == seat``).
        dice: rolls the dice when the bot rolls.

    Raises:
        ValueError: it is not ``seat``'s turn.
    """
    game = match.game
    if game.turn != seat:
        raise ValueError(f"the match waits for seat {game.turn}, not seat {seat}")
    match decide(match, seat, bot):
        case Resign(points):
            match.resign(seat, points)
            return f"offers to resign {Outcome(points).name.lower()}"
        case Double():
            match.double(seat)
            return f"doubles to {game.cube * 2}"
        case RollDice():
            d1, d2 = dice()
            match.roll(seat, d1, d2)
            return f"rolls {d1}-{d2}"
        case MakePlay(play):
            legal = match.play(seat, play)
            return f"plays {legal}" if not legal.is_dance else "cannot move"
        case Take():
            match.take(seat)
            return "takes"
        case Beaver():
            match.beaver(seat)
            return f"beavers: the cube to {game.cube * 2}, offered back"
        case Drop():
            match.drop(seat)
            return "drops"
        case AcceptResign():
            match.accept(seat)
            return "accepts the resignation"
        case DeclineResign():
            match.decline(seat)
            return "declines the resignation"


def opening(match: Match, dice: Dice) -> None:
    """Roll the opening roll of the current game, again after a tie."""
    while match.game.phase is Phase.OPENING:
        d0, d1 = dice()
        match.roll_opening(d0, d1)


@dataclass
class Summary:
    """Results of a self-play run, seat 0 = white, seat 1 = black."""

    white: str
    black: str
    length: int
    games: int = 0
    matches: int = 0
    wins: list[int] = field(default_factory=lambda: [0, 0])
    gammons: list[int] = field(default_factory=lambda: [0, 0])
    backgammons: list[int] = field(default_factory=lambda: [0, 0])
    points: list[int] = field(default_factory=lambda: [0, 0])
    match_wins: list[int] = field(default_factory=lambda: [0, 0])
    seconds: float = 0.0
    interrupted: bool = False

    @property
    def points_per_game(self) -> float:
        """White's net points per game (negative: black won more)."""
        return (self.points[0] - self.points[1]) / self.games if self.games else 0.0

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds else 0.0

    def to_dict(self) -> dict:
        return {**asdict(self), "points_per_game": self.points_per_game,
                "games_per_second": self.games_per_second}

    def text(self) -> str:
        games = f"{self.games} game{'' if self.games == 1 else 's'}"
        if self.length == 0:
            lines = [f"{games}, money play"]
        else:
            matches = f"{self.matches} match{'' if self.matches == 1 else 'es'}"
            lines = [f"{games} ({matches} finished), {self.length}-point matches"]
        for seat, name in ((0, f"white ({self.white})"), (1, f"black ({self.black})")):
            lines.append(f"  {name:<16} wins {self.wins[seat]:>6}  gammons "
                         f"{self.gammons[seat]:>5}  backgammons {self.backgammons[seat]:>4}  "
                         f"points {self.points[seat]:>6}"
                         + (f"  matches {self.match_wins[seat]}" if self.length else ""))
        lines.append(f"  points per game (white): {self.points_per_game:+.3f}")
        lines.append(f"  {self.games_per_second:.2f} games per second")
        return "\n".join(lines)


def run(white: Bot, black: Bot, games: int, length: int, rng: random.Random,
        variant: str = "standard", on_game: Callable[[], None] | None = None,
        on_match: Callable[[Match], None] | None = None, jacoby: bool = False,
        beavers: bool = False) -> Summary:
    """Play ``games`` games between two bots; returns the :class:`Summary`, of the games
    finished before Ctrl-C if it comes first (``interrupted`` set).

    Args:
        white, black: the bots of seat 0 and seat 1.
        length: match length (0: money play, one long session).
        rng: the dice.
        on_game: called after every game (progress bars).
        on_match: called with every finished match, and in money play with the session
            after every game (saving records).
        jacoby: money play under the Jacoby rule.
        beavers: money play with beavers (the bots beaver and answer beavers).
    """
    def dice() -> tuple[int, int]:
        return rng.randint(1, 6), rng.randint(1, 6)

    bots = (white, black)
    summary = Summary(white.name, black.name, length)
    start = time.perf_counter()
    match = Match(length, variant, players=(f"white-{white.name}", f"black-{black.name}"),
                  jacoby=jacoby, beavers=beavers)
    try:
        _play_games(match, bots, games, summary, dice, on_game, on_match)
    except KeyboardInterrupt:
        summary.interrupted = True
    summary.seconds = time.perf_counter() - start
    return summary


def _play_games(match: Match, bots: tuple[Bot, Bot], games: int, summary: Summary, dice: Dice,
                on_game: Callable[[], None] | None,
                on_match: Callable[[Match], None] | None) -> None:
    while summary.games < games:
        opening(match, dice)
        game = match.game
        while not game.is_over:
            seat = game.turn
            assert seat is not None  # a game under way waits for a seat
            bot_act(match, seat, bots[seat], dice)
        # Counted and saved as one step: Ctrl-C meanwhile waits until both are done, so that
        # the summary and the record have the same games (it used to land in the saving, a
        # while in a long session, leaving the game counted but not kept).
        with held_interrupt():
            _finish_game(match, game, summary, on_match)
        if on_game:
            on_game()
        if match.is_over:
            match = Match(match.length, match.variant, players=match.players,
                          jacoby=match.jacoby, beavers=match.beavers)


def _finish_game(match: Match, game: Game, summary: Summary,
                 on_match: Callable[[Match], None] | None) -> None:
    """Count ``game``, just finished, in ``summary`` and save the records (see ``run``)."""
    result = game.result
    assert result is not None
    summary.games += 1
    summary.wins[result.winner] += 1
    summary.points[result.winner] += result.points
    # A resigned gammon is a gammon won; a dropped double is always a single.
    if result.outcome is Outcome.GAMMON:
        summary.gammons[result.winner] += 1
    elif result.outcome is Outcome.BACKGAMMON:
        summary.backgammons[result.winner] += 1
    if not match.length and on_match:
        on_match(match)
    if match.is_over:
        assert match.winner is not None
        summary.matches += 1
        summary.match_wins[match.winner] += 1
        if on_match:
            on_match(match)


def prepare_save(directory: Path) -> int:
    """Create ``directory`` if needed, check that a file can be written there, and return the
    highest ``match-NNNN`` number already in it (0 if none), so that a new run numbers its
    records after the ones there, never over them.

    Raises:
        OSError: the directory cannot be created or written to (a file of that name, no
            permission, a read-only or immutable folder).
    """
    directory.mkdir(parents=True, exist_ok=True)
    # Written and removed now, so that a folder refusing files is found before the games
    # are played, not when their records are written (a fresh user lost a match that way).
    with tempfile.NamedTemporaryFile(dir=directory, prefix=".boardgammon-probe-"):
        pass
    numbers = [int(p.stem[6:]) for p in directory.glob("match-*.*")
               if p.stem[6:].isdigit() and p.stem[6:].isascii()]
    return max(numbers, default=0)


def save_match(match: Match, directory: Path, number: int) -> list[Path]:
    """Write ``match`` as ``match-NNNN.json`` (the replayable record) and ``match-NNNN.mat``
    (Jellyfish, for gnubg's ``import mat``) in ``directory``; returns the paths written, the
    JSON record first. A match set up from a position has no ``.mat`` form, so only its JSON
    record is written; a roll not yet played is written in both (``play --resume`` plays on
    from either). Each file is replaced whole (written beside it, then renamed), so that a
    record rewritten after every move is never left half written by Ctrl-C or a closed
    terminal."""
    directory.mkdir(parents=True, exist_ok=True)
    base = directory / f"match-{number:04d}"
    texts = [(base.with_suffix(".json"), match.to_json(indent=1))]
    if match.setup is None:
        texts.append((base.with_suffix(".mat"), write_mat(match, unplayed_roll=True)))
    for path, text in texts:
        part = path.with_name(f".{path.name}.part")
        part.write_text(text)
        os.replace(part, path)
    return [path for path, _ in texts]


def selfplay(
    white: str = typer.Option("easy", help="Level of the white bot (seat 0)."),
    black: str = typer.Option("easy", help="Level of the black bot (seat 1)."),
    games: int = typer.Option(100, min=1, help=(
        "Games to play (not matches: with --length they make up matches, and --save keeps the "
        "finished ones).")),
    length: int = typer.Option(0, min=0, max=MAX_LENGTH, help="Match length; 0 for money play."),
    variant: str = typer.Option("standard", help="standard, nackgammon or hypergammon."),
    seed: int | None = typer.Option(None, help="Seed of the dice and bots (reproducible run)."),
    save: Path | None = typer.Option(None, help=(
        "Directory for the records of finished matches (money play: the session's, rewritten "
        "after every game).")),
    jacoby: bool = typer.Option(False, "--jacoby", help=(
        "Money play: the Jacoby rule (gammons and backgammons count only once the cube has "
        "been turned).")),
    beavers: bool = typer.Option(False, "--beavers", help=(
        "Money play: beavers (a doubled player may take and at once redouble, keeping the "
        "cube; no raccoons).")),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
) -> None:
    """Bot against bot: wins, gammons, backgammons, points per game and games per second.
    Ctrl-C stops the run with the summary of the games finished (exit status 130)."""
    from tqdm import tqdm

    known = levels()
    for level in (white, black):
        if level not in known:
            raise typer.BadParameter(f"unknown bot level {level!r}; known: {', '.join(known)}")
    if variant not in ("standard", "nackgammon", "hypergammon"):
        raise typer.BadParameter(f"unknown variant {variant!r}; use standard, nackgammon or "
                                 f"hypergammon")
    if jacoby and length:
        raise typer.BadParameter("the Jacoby rule is for money play (--length 0)",
                                 param_hint="--jacoby")
    if beavers and length:
        raise typer.BadParameter("beavers are for money play (--length 0)",
                                 param_hint="--beavers")
    rng = random.Random(seed)
    white_bot = create(white, rng.getrandbits(63))
    black_bot = create(black, rng.getrandbits(63))
    saved: list[Path] = []
    finished = [0]
    if save is not None:
        # Checked before playing: a bad path used to crash after the games were played.
        try:
            finished[0] = prepare_save(save)
        except OSError as error:
            raise typer.BadParameter(f"cannot save into {str(save)!r}: {error.strerror}",
                                     param_hint="--save") from None

    def on_match(match: Match) -> None:
        if length or not saved:  # a money session keeps its one number
            finished[0] += 1
        if save is not None:
            try:
                paths = save_match(match, save, finished[0])
            except OSError as error:
                typer.echo(f"cannot save match {finished[0]} into {str(save)!r}: "
                           f"{error.strerror or error}; stopped", err=True)
                raise typer.Exit(1) from None
            saved.extend(p for p in paths if p not in saved)

    # No bar where standard error is no terminal (tqdm's None): there, with the output in one
    # file or pipe, the bar's last state ran into the summary's first line.
    with tqdm(total=games, unit="game", disable=True if as_json else None, leave=False) as bar:
        summary = run(white_bot, black_bot, games, length, rng, variant,
                      on_game=lambda: bar.update(1), on_match=on_match, jacoby=jacoby,
                      beavers=beavers)
    if as_json:
        typer.echo(json.dumps({**summary.to_dict(), "saved": [str(p) for p in saved]}))
    else:
        if summary.interrupted:
            done = summary.games
            typer.echo(f"Interrupted (Ctrl-C): the summary of the {done} game"
                       f"{'' if done == 1 else 's'} finished; the game under way is dropped.")
        typer.echo(summary.text())
        for p in saved:
            typer.echo(f"saved {p}")
    if summary.interrupted:
        raise typer.Exit(130)
