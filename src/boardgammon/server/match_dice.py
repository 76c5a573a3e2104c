"""A match and its dice record kept in step (``docs/fair-dice.md`` for the record itself):
revealing the pending roll into the match, recognising a roll sent again, and moving the
record on after each write (a finished roll marked played, a roll no longer wanted voided, the
next roll committed). Every function works inside the caller's write transaction
(``commit=False``) and updates the cached record (:meth:`CachedMatch.track`).

A match rolls with the protocol chosen at its creation (:attr:`MatchInfo.dice`). With v2 a
roll action is the roller's request (:func:`dice_record_v2.request_roll`); in a live match
whose opponent registered a chain the roll then waits for the opponent's link
(:func:`contribute`, sent by its device without its player doing anything) or for the wait to
end (:func:`reveal_overdue`); otherwise (correspondence, the computer as opponent, no chain)
it is revealed at once without it, and the record says so (``absent`` or ``none``). The
computer's rolls are requested with the server's entropy after its cube decision and wait for
the human's link in the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import TypeGuard

from sqlalchemy import update
from sqlalchemy.orm import Session

from boardgammon.bots.turn import RollDice
from boardgammon.engine.game import Phase
from boardgammon.engine.match import Match
from boardgammon.server import dice_log, dice_record, dice_record_v2
from boardgammon.server.actions import (
    AnchorAction,
    ContributeAction,
    RollAction,
    check_roll_resend,
    entropy_bytes,
    link_bytes,
)
from boardgammon.server.dice_record_v2 import AnchorRegistered, RollV2
from boardgammon.server.match_events import (
    CommitmentEvent,
    Event,
    RollEvent,
    RollRequestedEvent,
    anchor_event,
    commitment_event,
    roll_event,
    roll_requested_event,
)
from boardgammon.server.match_repository import CachedMatch
from boardgammon.server.match_state import (
    AnyRoll,
    MatchInfo,
    pending_roll,
    roll_json,
    stated_link_due,
)
from boardgammon.server.refusals import ErrorCode, Illegal, StateConflict
from boardgammon.server.tables import MatchRow


def reveal(s: Session, cached: CachedMatch, rolls: Sequence[AnyRoll], seat: int,
           action: RollAction | RollDice, now: float, wall: datetime,
           charged_from: float | None = None) -> list[Event]:
    """Reveal the pending roll of ``rolls`` (the match's record) with the roller's entropy, or
    the server's for the computer, and apply it to the match; the ``roll`` event. A v2 roll
    that waits for the opponent's link is only requested: the ``roll_requested`` event.
    ``wall``: the time now as the record stores it; ``charged_from``: where later than
    ``now``, when the opponent's wait starts to be charged (:meth:`Match.await_device`).

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
    if isinstance(action, RollAction) and action.roll_id != pending.roll_id:
        raise Illegal(f"roll {action.roll_id!r} is not the pending roll "
                      f"{pending.roll_id}", ErrorCode.ROLL_MISMATCH)
    entropy = entropy_bytes(action.entropy) if isinstance(action, RollAction) else None
    if isinstance(pending, RollV2):
        return _request(s, cached, pending, action, entropy, now, wall, charged_from)
    if entropy is None:
        roll = cached.track(dice_record.auto_reveal_roll(s, pending.roll_id, commit=False))
    else:
        assert isinstance(action, RollAction)
        roll = cached.track(dice_record.reveal_roll(
            s, pending.roll_id, action.commitment, entropy, commit=False))
    return [apply_roll(cached, roll, now)]


def _request(s: Session, cached: CachedMatch, pending: RollV2, action: RollAction | RollDice,
             entropy: bytes | None, now: float, wall: datetime,
             charged_from: float | None) -> list[Event]:
    shown = action.commitment if isinstance(action, RollAction) else pending.commitment
    roll = cached.track(dice_record_v2.request_roll(s, pending.roll_id, shown, entropy,
                                                    now=wall, commit=False))
    if roll.opponent_prev_link is not None and cached.info.mode == "live":
        if cached.match.clock is not None:
            # The wait for the link is the opponent's time, not the roller's.
            cached.match.await_device(1 - roll.seat, now, charged_from)
        return [requested_event(cached, roll)]
    # No chain to wait for (the computer, a device that registered none), or no one to wait
    # for (a correspondence turn): revealed now, the record says "none" or "absent".
    roll = cached.track(dice_record_v2.reveal_without_opponent(s, roll.roll_id, now=wall,
                                                               commit=False))
    return [apply_roll(cached, roll, now)]


def may_hold(cached: CachedMatch, action: RollAction) -> bool:
    """Whether :func:`request_to_hold` may hold ``action``, judged from ``cached`` alone, before
    any read: ``False`` where it would not (not a live match, a v1 record, a pending roll other
    than this committed one with an opponent's link to wait for). A cache behind the database
    only sends a request the way of every action."""
    return _awaits_link(pending_roll(cached.rolls), cached.info.mode, action)


def _awaits_link(pending: AnyRoll | None, mode: str, action: RollAction) -> TypeGuard[RollV2]:
    """Whether ``pending`` is the committed v2 roll ``action`` asks for, in a live match, with
    an opponent's link to wait for: the first of :func:`request_to_hold`'s conditions."""
    return (mode == "live" and isinstance(pending, RollV2) and pending.state == "committed"
            and pending.opponent_prev_link is not None and action.roll_id == pending.roll_id)


def request_to_hold(cached: CachedMatch, rolls: Sequence[AnyRoll], seat: int,
                    action: RollAction, now: float, wall: datetime,
                    charged_from: float | None = None) -> RollV2 | None:
    """The pending roll as ``seat``'s request ``action`` makes it (``requested`` at ``wall``
    with the roller's entropy), made in memory only, with the match's clock put on the
    opponent's wait, for :meth:`.MatchRepository.hold` to keep unwritten until the link
    comes; ``None`` (nothing changed) unless the request is a first one that waits for a
    link in a live match with nothing else due: a committed v2 roll of ``seat``'s whose
    opponent has a chain, in the roll or opening phase, the match and its clock otherwise
    settled (no wait on, no flag or abort due, no resumption to move the deadline for, every
    revealed roll applied). The caller writes every other request, and refuses a bad one, as before.
    ``charged_from``: as for :func:`reveal`.

    Raises:
        Invalid: ``bad_entropy``.
    """
    pending = pending_roll(rolls)
    m = cached.match
    clock = m.clock
    if (not _awaits_link(pending, cached.info.mode, action) or m.is_over
            or pending.seat != seat or action.commitment != pending.commitment
            or m.game.phase not in (Phase.OPENING, Phase.ROLL)
            or unlogged_roll(m, rolls) is not None):
        return None
    if clock is not None and (clock.held is not None or clock.out_of_time(now) is not None
                              or m.no_show(now) is not None
                              or clock.running != m.waiting_for
                              or (clock.started_at is not None and clock.resumes
                                  and clock.started_at < clock.resumes[-1])):
        return None
    roll = replace(pending, state="requested", roller_entropy=entropy_bytes(action.entropy),
                   roller_source="client", requested_at=wall)
    if clock is not None:
        m.await_device(1 - seat, now, charged_from)  # checked above: it cannot refuse
    return roll


def requested_event(cached: CachedMatch, roll: RollV2) -> RollRequestedEvent:
    """The ``roll_requested`` event of ``roll``, requested in ``cached``'s record, with the
    number of steps its opponent's link is due after ``opponent_prev_link``."""
    steps = dice_record_v2.link_steps([r for r in cached.rolls if isinstance(r, RollV2)])
    return roll_requested_event(roll, steps[roll.seq])


def contribute(s: Session, cached: CachedMatch, rolls: Sequence[AnyRoll], seat: int,
               action: ContributeAction, now: float, wall: datetime) -> list[Event]:
    """The opponent's device reveals its link for the requested v2 roll: the roll revealed
    with it and applied; the ``roll`` event. The same link again, once the roll is revealed
    with it, changes nothing (no events).

    Raises:
        Illegal: ``wrong_phase`` (a v1 match, no roll requested, the roll revealed without
            the link, revealed with another of this seat's links, or voided: the message says
            which), ``roll_mismatch``;
            StateConflict: ``not_your_turn`` (the roller's own seat); Invalid: ``bad_entropy``;
            and the v2 record's refusals (``link_mismatch``).
    """
    link = link_bytes(action.link)
    done = next((r for r in rolls if r.roll_id == action.roll_id), None)
    if isinstance(done, RollV2) and done.opponent_entropy == link and done.seat != seat:
        return []
    pending = pending_roll(rolls)
    if not isinstance(pending, RollV2) or pending.state != "requested":
        raise Illegal(_no_wait_reason(cached, done, seat), ErrorCode.WRONG_PHASE)
    if action.roll_id != pending.roll_id:
        raise Illegal(f"roll {action.roll_id!r} is not the requested roll {pending.roll_id}",
                      ErrorCode.ROLL_MISMATCH)
    if pending.seat == seat:
        raise StateConflict("the link is the opponent's to reveal, not the roller's",
                            ErrorCode.NOT_YOUR_TURN)
    roll = cached.track(dice_record_v2.contribute(s, pending.roll_id, link, now=wall,
                                                  commit=False))
    return [apply_roll(cached, roll, now)]


def _no_wait_reason(cached: CachedMatch, done: AnyRoll | None, seat: int) -> str:
    """Why no roll waits for ``seat``'s link: the match's dice, or what became of the roll the
    link names (``done``), else that nothing is requested."""
    if cached.info.dice != "v2":
        return "this match's dice are v1: its rolls take no link"
    if isinstance(done, RollV2) and done.state in ("revealed", "played") \
            and done.opponent_source != "client":
        if done.opponent_source == "none":
            return (f"roll {done.roll_id} was revealed without a link: no chain of yours was "
                    f"registered for it")
        if cached.info.mode != "live":
            return (f"roll {done.roll_id} was revealed without your link: a correspondence "
                    f"turn does not wait for it")
        return (f"roll {done.roll_id} was revealed without your link: it did not arrive "
                f"within the server's wait for it")
    if isinstance(done, RollV2) and done.state in ("revealed", "played"):
        if done.seat == seat:
            return (f"roll {done.roll_id} is your own, revealed already: its link was your "
                    f"opponent's to send")
        # Revealed with the link this seat sent then (the same link again changes nothing).
        return (f"roll {done.roll_id} is revealed already, with the link you sent for it: a "
                f"roll takes one link")
    if done is not None and done.state == "void":
        return f"roll {done.roll_id} was voided: it takes no link"
    return "no roll is waiting for your link: the roller has not asked to roll"


def reveal_overdue(s: Session, cached: CachedMatch, rolls: Sequence[AnyRoll],
                   link_due: datetime, link_wait: timedelta, wall: datetime) -> None:
    """Reveal, without the opponent's link, a v2 roll whose link has not come (``absent`` in
    the record) and which was requested at or before ``link_due`` (this process's wait,
    ``link_wait``, ago), and no later than its match's stated wait ago
    (:func:`.stated_link_due`); the caller applies it as any revealed roll not yet in the
    match log."""
    pending = pending_roll(rolls)
    due = stated_link_due(link_due, link_wait, cached.info.link_wait_ms)
    if (isinstance(pending, RollV2) and pending.state == "requested"
            and pending.requested_at is not None and pending.requested_at <= due):
        cached.track(dice_record_v2.reveal_without_opponent(s, pending.roll_id, now=wall,
                                                            commit=False))


def awaiting_link(rolls: Sequence[AnyRoll]) -> bool:
    """Whether the match waits for an opponent's link (a v2 roll requested, not revealed)."""
    pending = pending_roll(rolls)
    return pending is not None and pending.state == "requested"


def first_roll_waits(match: Match, rolls: Sequence[AnyRoll]) -> bool:
    """Whether the match's opening roll is not committed yet (a live v2 match waiting for its
    devices' anchors, :func:`advance`): the seat that opens has nothing to roll until it is."""
    return match.game.phase is Phase.OPENING and pending_roll(rolls) is None


def _anchors_ready(s: Session, cached: CachedMatch, link_due: datetime, roller: int) -> bool:
    """Whether a live v2 match may commit its first roll, ``roller``'s: once the devices that
    will be its rolls' opponents registered their anchors, or the wait for them is over.
    Against the computer only the human's device counts, and only when the computer rolls
    first (a rematch, the colours swapped): the human's own first roll takes no link, and its
    device registers long before the computer's first roll is committed."""
    info = cached.info
    if info.mode != "live" or (info.bot_seat is not None and roller != info.bot_seat):
        return True  # no roll waits for a link here, or the one device registers in time
    if info.created_at is not None and info.created_at <= link_due:
        return True
    anchors = dice_record_v2.anchors(s, info.match_id)
    if info.bot_seat is not None:
        return anchors[1 - info.bot_seat] is not None
    return None not in anchors


def register_anchor(s: Session, cached: CachedMatch, seat: int, action: AnchorAction,
                    wall: datetime) -> list[Event]:
    """Register ``seat``'s chain anchor (v2 dice); the ``anchor`` event, none when the same
    anchor is registered already. One anchor per seat and match: a second one (a new device of
    the same player) is refused, and the seat keeps the chain it has.

    A late anchor (``docs/fair-dice.md`` §Checking the anchors (v2)) is taken all the same: a
    roll with ``seat`` as the opponent committed without it and not yet requested is voided
    (no input has left for it) and committed again with the anchor, so it and every later roll
    with ``seat`` as the opponent take the chain's links; the ``commitment`` event of the new
    roll follows the ``anchor`` event. Rolls before it keep ``none``; a roll already requested
    goes on without the chain (its roller's input is out).

    Raises:
        Illegal: ``wrong_phase``: the match rolls with v1 dice; Invalid: ``bad_entropy``;
            StateConflict: ``anchor_registered``: another anchor is registered for the seat.
    """
    anchor = link_bytes(action.anchor)
    if cached.info.dice != "v2":
        raise Illegal("this match rolls with v1 dice: it takes no chain anchor",
                      ErrorCode.WRONG_PHASE)
    registered = dice_record_v2.anchors(s, cached.info.match_id)[seat]
    if registered == anchor.hex():
        return []
    if registered is not None:
        raise AnchorRegistered(f"seat {seat} registered the anchor {registered} for this "
                               "match already; it cannot be changed")
    match_id = cached.info.match_id
    dice_record_v2.register_anchor(s, match_id, seat, anchor, now=wall, commit=False)
    events: list[Event] = [anchor_event(seat, anchor.hex())]
    missed = pending_roll(cached.rolls)
    if isinstance(missed, RollV2) and missed.state == "committed" and missed.seat != seat:
        # Committed without the chain, never requested: voided before any input left for it
        # and committed again, its opponent's link now fixed from the anchor.
        cached.track(dice_record_v2.void_roll(s, missed.roll_id, now=wall, commit=False))
        events.append(commitment_event(cached.track(dice_record_v2.commit_roll(
            s, match_id, missed.seat, missed.kind, now=wall, commit=False))))
    return events


def match_mode(info: MatchInfo) -> str:
    """How a match is played, as its log leaf states it (``docs/fair-dice.md`` §The public log,
    Match leaf): ``computer`` against the computer, else ``live`` or ``correspondence``."""
    return "computer" if info.bot_seat is not None else info.mode


def stated_wait(info: MatchInfo, link_wait: timedelta) -> int | None:
    """The wait for the opponent's link the match's leaf states, in whole milliseconds: this
    process's ``link_wait`` for a live match (against the computer too: its rolls wait for
    the human's link), ``None`` for a correspondence match, whose turns never wait for a link
    (:func:`_request` reveals them at once)."""
    return round(link_wait.total_seconds() * 1000) if info.mode == "live" else None


def unlogged_roll(match: Match, rolls: Sequence[AnyRoll]) -> AnyRoll | None:
    """The first of ``rolls`` (the match's dice record, oldest first) revealed but not yet
    in ``match``'s record of opening rolls and rolls, as when the server stopped between
    revealing a roll and logging it; ``None`` when every revealed roll is applied."""
    revealed = [r for r in rolls if r.server_seed is not None]
    applied = sum(1 for a in match.record if a.kind in ("opening", "roll"))
    return revealed[applied] if len(revealed) > applied else None


def apply_roll(cached: CachedMatch, roll: AnyRoll, now: float) -> RollEvent:
    """Apply a revealed roll to the match (an opening roll or a turn's); the ``roll`` event."""
    m = cached.match
    assert roll.dice is not None
    if m.game.phase is Phase.OPENING:
        m.roll_opening(*roll.dice, now=now)
    else:
        m.roll(roll.seat, *roll.dice, now=now)
    return roll_event(roll)


def rolled_already(rolls: Sequence[AnyRoll], seat: int, action: RollAction) -> bool:
    """A roll action for a roll this seat already revealed, or (v2) requested (e.g. the answer
    was lost and the device sent it again under a new ``action_id``): true for the exact
    resend (same commitment and entropy), which is answered as such.

    Raises:
        StateConflict: ``already_rolled``: the same roll with another commitment or entropy
            (a second roll of dice already rolled).
    """
    roll = next((r for r in rolls if r.roll_id == action.roll_id), None)
    asked = isinstance(roll, RollV2) and roll.roller_entropy is not None
    if roll is None or roll.seat != seat or (roll.server_seed is None and not asked):
        return False
    check_roll_resend(action, roll_json(roll))
    return True


def advance(s: Session, cached: CachedMatch, rolls: Sequence[AnyRoll], void_pending: bool,
            wall: datetime, link_due: datetime,
            link_wait: timedelta) -> list[CommitmentEvent]:
    """Move the record on to where the match is: the last roll marked played once its turn
    is over, a committed roll voided when the game ended (``void_pending``) or another seat
    must roll, the next roll committed when the match waits for one; the ``commitment``
    event, if any. Another process doing the same at the same moment is no error. ``wall``:
    the time now as the record stores it.

    The first roll of a live v2 match between two players waits for both devices' anchors
    (each roll fixes the opponent's link when it is committed), and against the computer, when
    the computer rolls first, for the human's; or until the match is older than ``link_due``:
    then it goes on, and a late anchor takes part from the roll it missed
    (:func:`register_anchor`). The first v2 roll's transaction writes the match's leaf in
    the public log, which states this process's ``link_wait`` where the match waits for links
    (:func:`stated_wait`), and stores that wait with the match: its rolls never go without
    the link sooner (:func:`reveal_overdue`), whatever wait a later process has."""
    m = cached.match
    last = rolls[-1] if rolls else None
    v2 = cached.info.dice == "v2"
    record = dice_record_v2 if v2 else dice_record
    # v2 hashes its times, which must never go back: the service's time, as every other
    # time of the roll. v1 keeps the record's own clock, as it always did.
    at = wall if v2 else None
    events: list[CommitmentEvent] = []
    try:
        if last is not None and last.state == "revealed" and (
                m.is_over or m.game.phase is not Phase.PLAY):
            last = cached.track(record.mark_played(s, last.roll_id, now=at, commit=False))
        need = m.waiting_for if m.game.phase in (Phase.OPENING, Phase.ROLL) else None
        if last is not None and pending_roll([last]) is not None and (
                void_pending or m.is_over or (need is not None and last.seat != need)):
            last = cached.track(record.void_roll(s, last.roll_id, now=at, commit=False))
        if (last is None and v2 and need is not None
                and not _anchors_ready(s, cached, link_due, need)):
            return events
        if need is not None and (last is None or last.state in ("played", "void")):
            match_id = cached.info.match_id
            if v2:
                kind = "opening" if m.game.phase is Phase.OPENING else "normal"
                if last is None:  # the first roll: the log states how the match is played
                    stated = stated_wait(cached.info, link_wait)
                    dice_log.append_match(s, match_id, match_mode(cached.info), wall, stated)
                    if stated is not None:
                        s.execute(update(MatchRow).where(MatchRow.id == match_id)
                                  .values(link_wait_ms=stated))
                        cached.info = replace(cached.info, link_wait_ms=stated)
                events.append(commitment_event(cached.track(
                    dice_record_v2.commit_roll(s, match_id, need, kind, now=wall, commit=False))))
            else:
                events.append(commitment_event(cached.track(
                    dice_record.commit_roll(s, match_id, need, commit=False))))
    except (dice_record.RollPending, dice_record.WrongRollState):
        pass  # another process settled this match at the same moment
    return events
