"""Chat in a match between its two players (``docs/api.md`` §Chat).

A line is plain text: at most :data:`MAX_CHARS` characters, no control characters, not blank;
it is stored as written and every client shows it as text (never as HTML). Spectators neither
write nor read it. Lines are kept with the match, rate-limited per player
(``chat_rate``/``chat_burst`` of :class:`~.runtime.GameConfig`, shared between processes
through Redis like the other limits), and reach the players' WebSockets on every server process
through the match's bus as a ``chat`` frame. A player may mute the opponent in one match; a
player who blocked the other (or was blocked) reads none of the other's lines (:mod:`.blocks`).
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, Field, field_validator
from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from boardgammon.server.acting import acting_user
from boardgammon.server.blocks import blocked_between
from boardgammon.server.bodies import Flag, MatchId, RequestBody, control_character
from boardgammon.server.db import get_session
from boardgammon.server.errors import responses
from boardgammon.server.match_state import iso
from boardgammon.server.refusals import NotAllowed, NotFound
from boardgammon.server.services import services
from boardgammon.server.tables import ChatMessage, ChatMute, MatchRow, User

router = APIRouter(tags=["chat"])

MAX_CHARS = 300
"""Characters (Unicode code points) of one chat line at most."""
HISTORY = 200
"""Lines ``GET …/chat`` answers at most (the latest)."""


class ChatIn(RequestBody):
    text: str = Field(description=f"plain text, 1 to {MAX_CHARS} characters, no control "
                                  "characters (no line breaks)")

    @field_validator("text")
    @classmethod
    def _plain_line(cls, value: str) -> str:
        if len(value) > MAX_CHARS:
            raise ValueError(f"a chat line is at most {MAX_CHARS} characters; this one has "
                             f"{len(value)}")
        if (found := control_character(value)) is not None:
            raise ValueError(f"a chat line is one line of plain text: control characters are "
                             f"not allowed (found {found})")
        if not value.strip():
            raise ValueError("a chat line needs some text")
        return value


class ChatLine(BaseModel):
    id: int
    seat: int
    name: str
    text: str = Field(description="as written: show it as text, never as HTML")
    at: str = Field(description="when it was written (ISO 8601, UTC)")


class Chat(BaseModel):
    messages: list[ChatLine] = Field(description="oldest first; the opponent's lines are left "
                                                 "out while muted or blocked")
    muted: bool = Field(description="you muted your opponent in this match")


class MuteIn(RequestBody):
    muted: Flag


def _seat(session: Session, match_id: str, user: User) -> tuple[MatchRow, int]:
    row = session.get(MatchRow, match_id)
    if row is None:
        raise NotFound(f"no match {match_id!r}")
    for seat, user_id in enumerate((row.seat0_id, row.seat1_id)):
        if user_id == user.id and row.bot_seat != seat:
            return row, seat
    raise NotAllowed("only the match's players chat in it; spectators do not")


def _opponent(row: MatchRow, seat: int) -> int | None:
    return row.seat1_id if seat == 0 else row.seat0_id


def _hears(session: Session, row: MatchRow, listener: int | None, speaker: int) -> bool:
    """Whether user ``listener`` reads ``speaker``'s lines in the match ``row``."""
    if listener is None:
        return False
    if listener == speaker:
        return True
    return (session.get(ChatMute, (row.id, listener)) is None
            and not blocked_between(session, listener, speaker))


def _line(message: ChatMessage, name: str) -> ChatLine:
    return ChatLine(id=message.id, seat=message.seat, name=name, text=message.text,
                    at=iso(message.created_at.timestamp()))


@router.get("/api/matches/{match_id}/chat", response_model=Chat,
            responses=responses(401, 403, 404, 409))
def read_chat(match_id: Annotated[str, MatchId], user: User = Depends(acting_user),
              session: Session = Depends(get_session)) -> Chat:
    """The match's chat as you read it (players only)."""
    row, seat = _seat(session, match_id, user)
    other = _opponent(row, seat)
    hear_other = other is not None and _hears(session, row, user.id, other)
    found = session.execute(
        select(ChatMessage, User.username).join(User, User.id == ChatMessage.user_id)
        .where(ChatMessage.match_id == match_id).order_by(ChatMessage.id.desc())
        .limit(HISTORY)).all()
    lines = [_line(m, name) for m, name in reversed(found)
             if m.user_id == user.id or hear_other]
    return Chat(messages=lines, muted=session.get(ChatMute, (match_id, user.id)) is not None)


def _write(request: Request, match_id: str, user: User, text: str
           ) -> tuple[ChatLine, list[int]]:
    with services(request.app).db.sessions() as session:
        row, seat = _seat(session, match_id, user)
        # after the match's own refusals, so that a line refused as not yours costs nothing
        services(request.app).game.chat_limit.hit(f"user:{user.id}")
        message = ChatMessage(match_id=match_id, seat=seat, user_id=user.id, text=text,
                              created_at=datetime.now(UTC))
        session.add(message)
        session.flush()
        other = _opponent(row, seat)
        readers = [seat] + ([1 - seat] if _hears(session, row, other, user.id) else [])
        line = _line(message, user.username)
        session.commit()
    return line, readers


@router.post("/api/matches/{match_id}/chat", status_code=201, response_model=ChatLine,
             responses=responses(401, 403, 404, 409, 422, 429))
async def write_chat(match_id: Annotated[str, MatchId], body: ChatIn, request: Request,
                     user: User = Depends(acting_user)) -> ChatLine:
    """Write a line in the match's chat (players only); it reaches both players' WebSockets
    (yours always; the opponent's unless they muted or blocked you) as a ``chat`` frame."""
    line, readers = await asyncio.to_thread(_write, request, match_id, user, body.text)
    await services(request.app).game.bus.publish(
        match_id, {"frame": {"type": "chat", "message": line.model_dump()}, "seats": readers})
    return line


@router.put("/api/matches/{match_id}/chat/mute", response_model=Chat,
            responses=responses(401, 403, 404, 409, 422))
def mute(match_id: Annotated[str, MatchId], body: MuteIn, user: User = Depends(acting_user),
         session: Session = Depends(get_session)) -> Chat:
    """Mute (``{"muted": true}``) or hear again your opponent's chat in this match; answers
    the chat as you now read it."""
    _seat(session, match_id, user)
    muted = session.get(ChatMute, (match_id, user.id)) is not None
    if body.muted and not muted:
        session.add(ChatMute(match_id=match_id, user_id=user.id))
    elif not body.muted and muted:
        session.execute(delete(ChatMute).where(ChatMute.match_id == match_id,
                                               ChatMute.user_id == user.id))
    session.commit()
    return read_chat(match_id, user, session)
