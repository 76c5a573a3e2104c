"""A rematch of a finished match (``docs/api.md`` §Rematch): the same length, variant, mode and
clock with the colours swapped (the old seat 1 is seat 0), once both players agree; the
computer always agrees.

An offer is an invitation seek from the player who asked to the opponent with the match's
settings, made after the match ended (so it is also listed in the opponent's lobby); when the
opponent asks too, that seek is taken and the new match created with the seats swapped.
"""

from __future__ import annotations

import asyncio
import secrets
from datetime import UTC, datetime

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, Field
from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from boardgammon.server import ratings
from boardgammon.server.auth import current_user
from boardgammon.server.blocks import refuse_if_blocked
from boardgammon.server.db import get_session, rowcount
from boardgammon.server.errors import responses
from boardgammon.server.match_state import Seat
from boardgammon.server.notifications import notify
from boardgammon.server.refusals import ErrorCode, NotAllowed, NotFound, StateConflict
from boardgammon.server.services import services
from boardgammon.server.tables import MatchRow, RatedMatch, Seek, User

router = APIRouter(tags=["matches"])


class Rematch(BaseModel):
    offered_by: int | None = Field(
        description="the seat (in the finished match) that asked "
        "for the rematch and waits; null if none"
    )
    match_id: str | None = Field(description="the rematch once both agreed; null before")


def _finished(session: Session, match_id: str, user: User) -> tuple[MatchRow, int]:
    row = session.get(MatchRow, match_id)
    if row is None:
        raise NotFound(f"no match {match_id!r}")
    seat = 0 if row.seat0_id == user.id else 1 if row.seat1_id == user.id else None
    if seat is None:
        raise NotAllowed("only the match's players can ask for a rematch", ErrorCode.NOT_YOUR_MATCH)
    if row.status != "finished":
        raise StateConflict(
            "a rematch is for a finished match; this one is still being played",
            ErrorCode.MATCH_NOT_FINISHED,
        )
    return row, seat


def _offers(session: Session, row: MatchRow) -> list[Seek]:
    """Invitations between the two players with the match's settings since it ended."""
    players = (row.seat0_id, row.seat1_id)
    return list(
        session.execute(
            select(Seek)
            .where(
                Seek.owner_id.in_(players),
                Seek.invite_id.in_(players),
                Seek.length == row.length,
                Seek.variant == row.variant,
                Seek.mode == row.mode,
                Seek.clock.is_(row.clock) if row.clock is None else Seek.clock == row.clock,
                Seek.state.in_(("open", "accepted")),
                Seek.created_at >= row.updated_at,
            )
            .order_by(Seek.created_at)
        ).scalars()
    )


def _rematch_id(session: Session, row: MatchRow) -> str | None:
    """The rematch of ``row`` already made, if any (matches made since migration 0022)."""
    return session.scalar(select(MatchRow.id).where(MatchRow.rematch_of == row.id))


def _answer(row: MatchRow, offers: list[Seek]) -> Rematch:
    for seek in offers:
        if seek.state == "accepted" and seek.match_id:
            return Rematch(offered_by=None, match_id=seek.match_id)
    waiting = next((s for s in offers if s.state == "open"), None)
    return Rematch(
        offered_by=None if waiting is None else 0 if waiting.owner_id == row.seat0_id else 1,
        match_id=None,
    )


def _seat(session: Session, row: MatchRow, seat: int) -> Seat:
    """Who sat in ``seat`` of ``row``, as a new match seats them."""
    if row.bot_seat == seat:
        return Seat(None, f"Computer ({row.bot_level})", row.bot_level)
    user = session.get(User, row.seat0_id if seat == 0 else row.seat1_id)
    if user is None:
        raise NotFound(f"match {row.id!r}: the player of seat {seat} is not found")
    return Seat(user.id, user.username)


def _ask(
    request: Request, session: Session, match_id: str, user: User
) -> tuple[Rematch, bool, int | None]:
    """Agree to a rematch; returns the answer, whether the computer must be started, and the
    opponent to tell of a new offer (None when no offer was made)."""
    row, seat = _finished(session, match_id, user)
    service = services(request.app).game.service
    new_seats = (_seat(session, row, 1), _seat(session, row, 0))
    if row.bot_seat is not None:
        # Asked again (a second click, two tabs): the one rematch, not a second match.
        existing = _rematch_id(session, row)
        if existing is not None:
            return Rematch(offered_by=None, match_id=existing), False, None
        try:
            new_id = service.create(
                session,
                new_seats,
                row.length,
                row.variant,
                row.mode,
                row.clock,
                row.days,
                bot_seed=secrets.randbelow(2**31),
                rematch_of=row.id,
            )
        except IntegrityError:  # asked at the same moment elsewhere: that one stands
            session.rollback()
            return Rematch(offered_by=None, match_id=_rematch_id(session, row)), False, None
        return Rematch(offered_by=None, match_id=new_id), True, None
    offers = _offers(session, row)
    answer = _answer(row, offers)
    if answer.match_id is not None:
        return answer, False, None
    other = row.seat1_id if seat == 0 else row.seat0_id
    if other is not None:  # a rematch is an invitation: a block refuses it (§Blocks)
        refuse_if_blocked(session, user.id, other, "you cannot ask for a rematch")
    theirs = next((s for s in offers if s.state == "open" and s.owner_id != user.id), None)
    if theirs is None:
        offered_to = None
        if answer.offered_by is None:  # asking twice changes nothing
            offered_to = other
            session.add(
                Seek(
                    id=f"sek_{secrets.token_hex(10)}",
                    owner_id=user.id,
                    length=row.length,
                    variant=row.variant,
                    mode=row.mode,
                    clock=row.clock,
                    days=row.days,
                    invite_id=row.seat1_id if seat == 0 else row.seat0_id,
                    state="open",
                    rated=session.get(RatedMatch, row.id) is not None,
                    created_at=datetime.now(UTC),
                )
            )
            session.commit()
        return Rematch(offered_by=seat, match_id=None), False, offered_to
    taken = rowcount(
        session.execute(
            update(Seek).where(Seek.id == theirs.id, Seek.state == "open").values(state="accepted")
        )
    )
    if taken != 1:
        raise StateConflict("the rematch offer was just withdrawn or taken; ask again")
    new_id = service.create(
        session, new_seats, row.length, row.variant, row.mode, row.clock, row.days,
        rematch_of=row.id,
    )
    session.execute(update(Seek).where(Seek.id == theirs.id).values(match_id=new_id))
    if theirs.rated:  # the rematch of a rated match is rated too
        ratings.mark_rated(session, new_id)
    session.commit()
    return Rematch(offered_by=None, match_id=new_id), False, None


@router.post(
    "/api/matches/{match_id}/rematch",
    response_model=Rematch,
    responses=responses(401, 403, 404, 409),
)
async def ask_rematch(
    match_id: str,
    request: Request,
    user: User = Depends(current_user),
    session: Session = Depends(get_session),
) -> Rematch:
    """Agree to a rematch: against the computer it starts at once; against a player it waits
    (``offered_by`` your seat) until the opponent agrees too, then ``match_id`` is the new
    match, with the colours swapped."""
    answer, bot, offered_to = await asyncio.to_thread(_ask, request, session, match_id, user)
    if bot and answer.match_id is not None:
        services(request.app).game.kick_bot(answer.match_id)
    if offered_to is not None:
        await notify(services(request.app).game, offered_to,
                     {"type": "rematch", "match_id": match_id, "from": user.username})
    return answer


@router.get(
    "/api/matches/{match_id}/rematch",
    response_model=Rematch,
    responses=responses(401, 403, 404, 409),
)
def rematch_state(
    match_id: str, user: User = Depends(current_user), session: Session = Depends(get_session)
) -> Rematch:
    """Whether a rematch was asked for (``offered_by``) or agreed (``match_id``)."""
    row, _seat = _finished(session, match_id, user)
    if row.bot_seat is not None:
        return Rematch(offered_by=None, match_id=_rematch_id(session, row))
    return _answer(row, _offers(session, row))
