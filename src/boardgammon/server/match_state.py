"""The ``state`` of a match as the API shows it (``docs/api.md`` §A match), built from the rules
engine's :class:`~boardgammon.engine.match.Match` and the dice record. Pure: no database, no
clock reads (service time and its wall-clock equivalent are passed in).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, NotRequired, TypedDict, cast

import numpy as np

from boardgammon.engine.board import Board
from boardgammon.engine.constants import BAR_INDEX, POINTS
from boardgammon.engine.game import Phase
from boardgammon.engine.ids import encode_position_ids
from boardgammon.engine.match import Match
from boardgammon.engine.plays import Play
from boardgammon.engine.record import Played
from boardgammon.server.dice_record import Roll
from boardgammon.server.dice_record_v2 import RollV2, link_steps

AnyRoll = Roll | RollV2
"""A roll of either protocol: a match rolls with the one chosen at its creation
(:attr:`MatchInfo.dice`)."""


@dataclass(frozen=True)
class Seat:
    """Who sits in a seat: a user (``user_id``, ``username``) or the computer (``bot`` level)."""

    user_id: int | None
    username: str
    bot: str | None = None


@dataclass(frozen=True)
class MatchInfo:
    """The fixed facts of a match (what the ``matches`` row holds besides the replayed state)."""

    match_id: str
    seats: tuple[Seat, Seat]
    length: int
    variant: str
    mode: str  # live or correspondence
    clock: str | None  # preset name (live with a clock)
    days: int | None  # correspondence: days per move
    bot_seed: int | None = None
    dice: str = "v1"  # the dice protocol, "v1" or "v2" (docs/fair-dice.md)
    created_at: datetime | None = None  # service wall time, aware UTC
    # v2: the wait for the opponent's link its match leaf states (ms), once its first roll is
    # committed; None for matches that state none (correspondence, v1, from before 0024).
    link_wait_ms: int | None = None

    def seat_of(self, user_id: int | None) -> int | None:
        """The seat of ``user_id`` in this match, ``None`` for anyone else."""
        for seat, who in enumerate(self.seats):
            if user_id is not None and who.user_id == user_id:
                return seat
        return None

    @property
    def bot_seat(self) -> int | None:
        return next((s for s, who in enumerate(self.seats) if who.bot), None)


def stated_link_due(link_due: datetime, link_wait: timedelta,
                    link_wait_ms: int | None) -> datetime:
    """The time (aware UTC) at or before which a v2 roll's request of a match whose leaf
    states the wait ``link_wait_ms`` (:attr:`MatchInfo.link_wait_ms`; ``None``: none) has
    waited for the opponent's link as long as both this process and the match say, given
    ``link_due``, the time at or before which a request waited this process's
    ``link_wait`` (``BOARDGAMMON_LINK_WAIT``; the Unix epoch within the restart grace). The
    server never reveals a roll without the link (``absent``) sooner than its match's leaf
    states (``docs/fair-dice.md`` §The roll's life (v2), step 3): a process restarted with a
    smaller setting waits the stated time, one with a larger setting its own."""
    if link_wait_ms is None:
        return link_due
    more = timedelta(milliseconds=link_wait_ms) - link_wait
    return link_due - more if more > timedelta(0) else link_due


class RollEntry(TypedDict):
    """A revealed roll with everything needed to verify it (``state.rolls[]``): the v1 fields
    (``client_entropy``, ``entropy_source``) or the v2 ones (``kind``, the roller's and the
    opponent's contributions, as in the v2 audit entry)."""

    roll_id: str
    seat: int
    nonce: int
    commitment: str
    server_seed: str | None
    dice: list[int] | None
    client_entropy: NotRequired[str | None]
    entropy_source: NotRequired[str | None]
    kind: NotRequired[str]
    roller_entropy: NotRequired[str | None]
    roller_source: NotRequired[str | None]
    opponent_prev_link: NotRequired[str | None]
    opponent_entropy: NotRequired[str | None]
    opponent_source: NotRequired[str | None]


class GameEntry(TypedDict):
    """How a finished game ended (``state.games[]``); ``how`` is ``flag`` for a flag, ``forfeit``
    when a player whose account was deleted forfeited the match, ``abort`` when a player never
    made a first action (no winner)."""

    game_number: int
    winner: int | None
    points: int
    how: str


class Clocks(TypedDict):
    """The live clock (``state.clocks``): seconds, ``as_of`` in wall seconds.
    ``first_move_left``: while the running seat's first action of the match is waited for, the
    seconds until the match is aborted without it (``Match.first_move_deadline``), else
    ``None``."""

    delay: float
    reserve: list[float]
    running: int | None
    delay_left: float
    first_move_left: float | None
    as_of: float


class LegalPlay(TypedDict):
    notation: str
    moves: list[list[int]]
    position_id: str | None


class LastPlay(TypedDict):
    """The last play of the current game (``state.last_play``): who, the dice, the play in
    standard notation (``""`` for a dance) and its moves ``[from, to, hit]`` in the mover's
    numbering."""

    seat: int
    dice: list[int]
    play: str
    moves: list[list[int]]


class MatchState(TypedDict):
    """A match's ``state`` as the API sends it (``docs/api.md`` §A match); nested objects
    that are only passed through stay plain dicts."""

    version: int
    boot: int | None
    match_id: str
    length: int
    variant: str
    mode: str
    players: list[dict[str, Any]]
    you: int | None
    score: list[int]
    crawford: bool
    post_crawford: bool
    game_number: int
    cube: dict[str, Any]
    turn: int | None
    on_roll: int | None
    phase: str
    dice: list[int] | None
    board: dict[str, list[list[int]]]
    position_id: str
    match_id_gnubg: str
    pip_counts: list[int]
    legal_plays: list[LegalPlay]
    dice_protocol: str
    pending_roll: dict[str, Any] | None
    rolls_from: int
    rolls: list[RollEntry]
    resignation: dict[str, int] | None
    clocks: Clocks | None
    deadline: str | None
    games: list[GameEntry]
    result: dict[str, Any] | None
    last_play: LastPlay | None


def points(board: Board) -> list[int]:
    """Row 0 of ``board`` as the API's 26 counts: ``[0]`` borne off, ``[1..24]`` points,
    ``[25]`` the bar."""
    row = board.array[0]
    return [board.borne_off(0), *(int(n) for n in row[:POINTS]), int(row[BAR_INDEX])]


def roll_json(roll: AnyRoll) -> RollEntry:
    """A revealed roll with everything needed to verify it (the API's ``rolls[]`` entry)."""
    entry: RollEntry = {
        "roll_id": roll.roll_id,
        "seat": roll.seat,
        "nonce": roll.nonce,
        "commitment": roll.commitment,
        "server_seed": roll.server_seed.hex() if roll.server_seed else None,
        "dice": list(roll.dice) if roll.dice else None,
    }
    if isinstance(roll, Roll):
        entry["client_entropy"] = roll.client_entropy.hex() if roll.client_entropy else None
        entry["entropy_source"] = roll.entropy_source
        return entry
    entry["kind"] = roll.kind
    entry["roller_entropy"] = roll.roller_entropy.hex() if roll.roller_entropy else None
    entry["roller_source"] = roll.roller_source
    entry["opponent_prev_link"] = roll.opponent_prev_link
    entry["opponent_entropy"] = roll.opponent_entropy.hex() if roll.opponent_entropy else None
    entry["opponent_source"] = roll.opponent_source
    return entry


def moves_json(play: Play) -> list[list[int]]:
    """A play's moves as ``[from, to, hit]`` (the mover's numbering, 25 the bar, 0 off)."""
    return [[m.source, m.dest, int(m.hit)] for m in play.moves]


def last_play(match: Match) -> LastPlay | None:
    """The last play of the current game (``None`` before its first play)."""
    index = len(match.games) - 1
    for action in reversed(match.record):
        if action.game != index:
            return None
        if isinstance(action, Played):
            # Parsed from the text, which marks the hits: the marks need only where checkers
            # left and landed, and the record keeps no board to replay the play on.
            parsed = Play.parse(action.play) if action.play else Play()
            return {"seat": action.seat, "dice": list(action.dice), "play": action.play,
                    "moves": moves_json(parsed)}
    return None


PENDING_STATES = ("committed", "requested")
"""The states of a roll not yet revealed (``requested``: v2, waiting for the opponent's link)."""


def pending_roll(rolls: Sequence[AnyRoll]) -> AnyRoll | None:
    """The newest roll if it is committed (or, v2, requested) and not yet revealed."""
    return rolls[-1] if rolls and rolls[-1].state in PENDING_STATES else None


def pending_json(rolls: Sequence[AnyRoll]) -> dict[str, Any] | None:
    """``state.pending_roll`` of a match's record (``None`` when no roll is pending): what the
    roller's device needs to roll and, for a v2 roll, what the opponent's device needs to
    reveal its link (``state`` ``requested``: the roller asked, the opponent's link is
    awaited; ``opponent_prev_link``: the link it must hash to, ``None`` when the opponent has
    no chain; ``opponent_link_steps``: in how many SHA-256 steps, that is which link of the
    chain after it is due, :func:`.dice_record_v2.link_steps`; ``roller_entropy_sha256``:
    :func:`roller_entropy_sha256`, ``None`` until requested)."""
    roll = pending_roll(rolls)
    if roll is None:
        return None
    pending: dict[str, Any] = {"roll_id": roll.roll_id, "seat": roll.seat,
                               "nonce": roll.nonce, "commitment": roll.commitment}
    if isinstance(roll, RollV2):
        steps = link_steps([r for r in rolls if isinstance(r, RollV2)])[-1]
        pending.update(kind=roll.kind, state=roll.state,
                       opponent_prev_link=roll.opponent_prev_link, opponent_link_steps=steps,
                       roller_entropy_sha256=roller_entropy_sha256(roll))
    return pending


def roller_entropy_sha256(roll: RollV2) -> str | None:
    """SHA-256 of a requested v2 roll's ``roller_entropy`` (64 hex chars; ``None`` before the
    request): shown to the opponent's device with the request, before it reveals its link, so
    that the roller's input is fixed in a place the server does not control. The device keeps
    it with the link it sends and checks the revealed roll's ``roller_entropy`` against it
    (``docs/fair-dice.md`` §The device's check (web client)): without it a server allied with
    the roller, or the server as the computer's roller, could learn the link first and then
    choose the roller's entropy, and with it the dice."""
    entropy = roll.roller_entropy
    return hashlib.sha256(entropy).hexdigest() if entropy is not None else None


def acting_seat(match: Match, rolls: Sequence[AnyRoll]) -> int | None:
    """The seat the match waits for: the engine's ``turn``, or in the opening phase the seat
    that holds the pending opening roll; ``None`` once the match is over."""
    if match.is_over:
        return None
    if match.game.phase is Phase.OPENING:
        pending = pending_roll(rolls)
        return pending.seat if pending else None
    return match.game.turn


def games_json(match: Match) -> list[GameEntry]:
    """How each finished game ended (``state.games``), a flag, a forfeit or an abort
    included."""
    games: list[GameEntry] = [
        {"game_number": i + 1, "winner": r.winner, "points": r.points, "how": r.how}
        for i, r in enumerate(match.results)]
    if match.flagged is not None or match.forfeited is not None:
        games.append({"game_number": len(match.games), "winner": match.winner, "points": 0,
                      "how": "flag" if match.flagged is not None else "forfeit"})
    if match.aborted is not None:
        games.append({"game_number": len(match.games), "winner": None, "points": 0,
                      "how": "abort"})
    return games


def clocks_json(match: Match, now: float, to_wall: Callable[[float], float]) -> Clocks | None:
    """The live clock at service time ``now``: remaining reserves, the running seat, the delay
    left, ``as_of`` in wall seconds."""
    clock = match.clock
    if clock is None:
        return None
    now = max(now, clock.started_at or now)
    first = match.first_move_deadline()
    return {
        "delay": clock.control.delay,
        "reserve": [max(0.0, clock.remaining(s, now)) for s in (0, 1)],
        "running": clock.ticking,
        "delay_left": clock.delay_left(now),
        "first_move_left": None if first is None else max(0.0, first - now),
        "as_of": to_wall(now),
    }


def state_clocks(info: MatchInfo, match: Match, rolls: Sequence[AnyRoll], now: float,
                 to_wall: Callable[[float], float]) -> Clocks | None:
    """``state.clocks``: a live match's clocks; while a v2 match's first roll waits for the
    players' anchors, none runs (the clock starts again when the roll is committed:
    :meth:`.MatchRepository.start_at_first_roll`)."""
    if info.mode != "live":
        return None
    clocks = clocks_json(match, now, to_wall)
    if (clocks is not None and match.clock is not None and info.dice == "v2" and not rolls
            and not match.record and not match.is_over):
        clocks = Clocks(delay=clocks["delay"], reserve=list(match.clock.reserve),
                        running=None, delay_left=clocks["delay"], first_move_left=None,
                        as_of=clocks["as_of"])
    return clocks


def iso(wall: float) -> str:
    return datetime.fromtimestamp(wall, UTC).isoformat().replace("+00:00", "Z")


# Each dice record entry's step in its life (committed → requested → revealed → played, or
# void from committed or requested): an entry only moves forward, so the sum over the record
# grows with every change of it.
_ROLL_STEP = {"committed": 1, "requested": 2, "revealed": 3, "played": 4, "void": 4}


def state_version(log_version: int, rolls: Sequence[AnyRoll]) -> int:
    """``state.version``: the match log's length plus each dice record entry's step. Both only
    grow, and every change of what a state shows (an action, a roll committed, revealed or
    voided) grows one of them, so of two states of a match the one with the larger version is
    the newer (equal versions differ at most in the clocks' ``as_of``)."""
    return log_version + sum(_ROLL_STEP[r.state] for r in rolls)


def build_state(info: MatchInfo, match: Match, rolls: Sequence[AnyRoll], viewer: int | None,
                now: float, to_wall: Callable[[float], float],
                result_extra: dict[str, Any] | None = None, log_version: int = 0) -> MatchState:
    """The API ``state`` from ``viewer``'s seat (``None``: a spectator, no legal plays).

    Args:
        rolls: the match's dice record in order.
        now: service seconds; ``to_wall`` converts service seconds to Unix seconds.
        result_extra: ``chain_head`` (and any other result fields) once the match is over.
        log_version: the match log's length (``matches.version``), see :func:`state_version`.
    """
    return build_states(info, match, rolls, (viewer,), now, to_wall, result_extra,
                        log_version=log_version)[viewer]


def build_states(info: MatchInfo, match: Match, rolls: Sequence[AnyRoll],
                 viewers: Iterable[int | None], now: float, to_wall: Callable[[float], float],
                 result_extra: dict[str, Any] | None = None,
                 revealed: list[RollEntry] | None = None, log_version: int = 0,
                 boot: int | None = None) -> dict[int | None, MatchState]:
    """:func:`build_state` for each of ``viewers`` (seats, ``None`` for spectators), keyed by
    viewer. The seats' states differ only in ``you`` and ``legal_plays``; everything else is
    built once and shared (treat the states as read-only). ``revealed``: the ``rolls`` entries
    (:func:`roll_json` of each revealed roll, in order) if the caller keeps them already.
    ``boot``: ``state.boot``, the start of the server process whose answers may not be
    durable yet (:attr:`.MatchService.boot`)."""
    common = _common_state(info, match, rolls, now, to_wall, result_extra, revealed,
                           state_version(log_version, rolls), boot)
    return {v: cast(MatchState, {**common, "you": v, "legal_plays": _legal_plays(match, v)})
            for v in set(viewers)}


def _legal_plays(match: Match, viewer: int | None) -> list[LegalPlay]:
    """The legal plays for ``viewer`` if it is to play now, else none."""
    game = match.game
    if viewer is None or viewer != game.turn or game.phase is not Phase.PLAY:
        return []
    plays = game.legal_plays()
    # Each result from the opponent's view (rows swapped), all encoded in one call.
    after = [p.after.array[::-1] for p in plays if p.after is not None]
    ids = iter(encode_position_ids(np.stack(after)) if after else ())
    return [{"notation": str(p), "moves": [[m.source, m.dest] for m in p.moves],
             "position_id": next(ids) if p.after is not None else None}
            for p in plays]


def _common_state(info: MatchInfo, match: Match, rolls: Sequence[AnyRoll], now: float,
                  to_wall: Callable[[float], float], result_extra: dict[str, Any] | None,
                  revealed: list[RollEntry] | None, version: int,
                  boot: int | None = None) -> MatchState:
    game = match.game
    turn = acting_seat(match, rolls)
    deadline = match.deadline()
    result = None
    if match.is_over:
        result = {"winner": match.winner, "aborted": match.aborted,
                  "score": list(match.final_score),
                  "audit_url": f"/audit/{info.match_id}",
                  "analysis_url": f"/match/{info.match_id}/analysis",
                  **(result_extra or {})}
    cube_available = (not match.is_over and game.phase is Phase.ROLL
                      and game.on_roll is not None and game.can_double(game.on_roll))
    return {
        "version": version,
        "boot": boot,
        "match_id": info.match_id,
        "length": info.length,
        "variant": info.variant,
        "mode": info.mode,
        "players": [{"seat": s, "username": who.username, "bot": who.bot}
                    for s, who in enumerate(info.seats)],
        "you": None,
        "score": list(match.score),
        "crawford": match.crawford,
        "post_crawford": match.post_crawford,
        "game_number": len(match.games),
        "cube": {"value": game.cube, "owner": game.cube_owner, "available": cube_available},
        "turn": turn,
        "on_roll": game.on_roll,
        "phase": match.phase,
        "dice": list(game.dice) if game.dice else None,
        "board": {"points": [points(game.board_for(s)) for s in (0, 1)]},
        "position_id": game.board.position_id,
        "match_id_gnubg": match.match_id_gnubg,
        "pip_counts": list(game.board_for(0).pip_counts()),
        "legal_plays": [],
        "dice_protocol": info.dice,
        "pending_roll": pending_json(rolls),
        "rolls_from": 0,
        "rolls": (revealed if revealed is not None
                  else [roll_json(r) for r in rolls if r.server_seed is not None]),
        # Only the offer on the table: a game ended by resignation says so in "games".
        "resignation": ({"seat": offer.seat, "points": int(offer.outcome)}
                        if (offer := game.resignation) is not None
                        and game.phase is Phase.RESIGN_OFFERED else None),
        "clocks": state_clocks(info, match, rolls, now, to_wall),
        "deadline": iso(to_wall(deadline)) if info.mode == "correspondence" and deadline
        else None,
        "games": games_json(match),
        "result": result,
        "last_play": last_play(match),
    }
