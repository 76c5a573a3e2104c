"""A match and its dice record kept in step (``docs/fair-dice.md`` for the record itself):
revealing the pending roll into the match, recognising a roll sent again, and moving the
record on after each write (a finished roll marked played, a roll no longer wanted voided, the
next roll committed). Every function works inside the caller's write transaction
(``commit=False``) and updates the cached record (:meth:`CachedMatch.track`).
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.orm import Session

from boardgammon.bots.turn import RollDice
from boardgammon.engine.game import Phase
from boardgammon.server import dice_record
from boardgammon.server.actions import RollAction, check_roll_resend, entropy_bytes
from boardgammon.server.dice_record import Roll
from boardgammon.server.match_events import CommitmentEvent, RollEvent, commitment_event, roll_event
from boardgammon.server.match_repository import CachedMatch
from boardgammon.server.match_state import pending_roll, roll_json
from boardgammon.server.refusals import ErrorCode, Illegal, StateConflict


def reveal(s: Session, cached: CachedMatch, rolls: Sequence[Roll], seat: int,
           action: RollAction | RollDice, now: float) -> RollEvent:
    """Reveal the pending roll of ``rolls`` (the match's record) with the roller's entropy, or
    the server's for the computer, and apply it to the match; the ``roll`` event.

    Raises:
        Illegal: ``wrong_phase`` (no roll pending, or not the time to roll),
            ``roll_mismatch``; StateConflict: the pending roll is the other seat's; Invalid:
            ``bad_entropy``; and the dice record's own refusals.
    """
    game = cached.match.game
    pending = pending_roll(rolls)
    if pending is None:
        raise Illegal("no roll is pending: the dice are rolled (play them) or the turn "
                      "has not started", ErrorCode.WRONG_PHASE)
    if pending.seat != seat:
        raise StateConflict(f"the pending roll is seat {pending.seat}'s")
    if game.phase not in (Phase.OPENING, Phase.ROLL):
        raise Illegal(f"cannot roll now: the game is in phase {game.phase.value}",
                      ErrorCode.WRONG_PHASE)
    if isinstance(action, RollDice):
        roll = cached.track(dice_record.auto_reveal_roll(s, pending.roll_id, commit=False))
    else:
        if action.roll_id != pending.roll_id:
            raise Illegal(f"roll {action.roll_id!r} is not the pending roll "
                          f"{pending.roll_id}", ErrorCode.ROLL_MISMATCH)
        entropy = entropy_bytes(action.entropy)
        roll = cached.track(dice_record.reveal_roll(
            s, pending.roll_id, action.commitment, entropy, commit=False))
    return apply_roll(cached, roll, now)


def apply_roll(cached: CachedMatch, roll: Roll, now: float) -> RollEvent:
    """Apply a revealed roll to the match (an opening roll or a turn's); the ``roll`` event."""
    m = cached.match
    assert roll.dice is not None
    if m.game.phase is Phase.OPENING:
        m.roll_opening(*roll.dice, now=now)
    else:
        m.roll(roll.seat, *roll.dice, now=now)
    return roll_event(roll)


def rolled_already(rolls: Sequence[Roll], seat: int, action: RollAction) -> bool:
    """A roll action for a roll this seat already revealed (e.g. the answer was lost and the
    device sent it again under a new ``action_id``): true for the exact resend (same
    commitment and entropy), which is answered as such.

    Raises:
        StateConflict: ``already_rolled``: the same roll with another commitment or entropy
            (a second roll of dice already rolled).
    """
    roll = next((r for r in rolls if r.roll_id == action.roll_id), None)
    if roll is None or roll.seat != seat or roll.server_seed is None:
        return False
    check_roll_resend(action, roll_json(roll))
    return True


def advance(s: Session, cached: CachedMatch, rolls: Sequence[Roll], void_pending: bool
            ) -> list[CommitmentEvent]:
    """Move the record on to where the match is: the last roll marked played once its turn
    is over, a committed roll voided when the game ended (``void_pending``) or another seat
    must roll, the next roll committed when the match waits for one; the ``commitment``
    event, if any. Another process doing the same at the same moment is no error."""
    m = cached.match
    last = rolls[-1] if rolls else None
    events = []
    try:
        if last is not None and last.state == "revealed" and (
                m.is_over or m.game.phase is not Phase.PLAY):
            last = cached.track(dice_record.mark_played(s, last.roll_id, commit=False))
        need = m.waiting_for if m.game.phase in (Phase.OPENING, Phase.ROLL) else None
        if last is not None and last.state == "committed" and (
                void_pending or m.is_over or (need is not None and last.seat != need)):
            last = cached.track(dice_record.void_roll(s, last.roll_id, commit=False))
        if need is not None and (last is None or last.state in ("played", "void")):
            roll = cached.track(dice_record.commit_roll(s, cached.info.match_id, need,
                                                        commit=False))
            events.append(commitment_event(roll))
    except (dice_record.RollPending, dice_record.WrongRollState):
        pass  # another process settled this match at the same moment
    return events
