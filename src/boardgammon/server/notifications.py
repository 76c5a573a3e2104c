"""What waits for a player (``docs/api.md`` §Notifications): the list
(``GET /api/notifications``) and the player's own WebSocket ``/ws/me``, which tells every page
the player has open, on whichever server process, when it becomes their turn or an invitation
arrives.

Messages for one user travel on the user bus (:func:`.bus.bus_for` with
:data:`.bus.USER_CHANNEL_PREFIX`: in-process, or Redis pub/sub between processes) to the
:class:`UserHub` of every process, which hands them to that user's sockets.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any, Literal

import anyio.from_thread
from fastapi import APIRouter, Depends, Request, WebSocket
from pydantic import BaseModel, Field
from sqlalchemy import select
from sqlalchemy.orm import Session
from starlette.applications import Starlette
from starlette.websockets import WebSocketDisconnect

from boardgammon.server.acting import acting_user
from boardgammon.server.auth import request_token, user_for_token
from boardgammon.server.blocks import kept_apart
from boardgammon.server.db import get_session
from boardgammon.server.errors import responses, ws_error
from boardgammon.server.match_repository import matches_of
from boardgammon.server.match_state import iso
from boardgammon.server.refusals import NotSignedIn
from boardgammon.server.services import services
from boardgammon.server.tables import MatchRow, Seek, User
from boardgammon.server.websocket import refused_url_token

if TYPE_CHECKING:
    from boardgammon.server.runtime import Runtime

router = APIRouter(tags=["notifications"])

URGENT_FRACTION = 0.2
"""A correspondence turn is flagged ``urgent`` when less than this share of its time per move
is left (under 4.8 hours of a 1-day move, 1.4 days of a 7-day one)."""
SEND_QUEUE = 64  # a socket this far behind is closed; the page reconnects and reads the list
NOT_SIGNED_IN = 4401
"""Close code of ``/ws/me`` without a valid session."""


class Notification(BaseModel):
    kind: Literal["turn", "invitation", "rematch"]
    match_id: str | None = Field(default=None, description="turn: the match; rematch: the "
                                                           "finished match it would replay")
    seek_id: str | None = Field(default=None,
                                description="invitation, rematch: the seek (the offer)")
    opponent: str = Field(description="who plays you, or invites you")
    length: int
    variant: str
    deadline: str | None = Field(default=None,
                                 description="turn: when your time runs out (ISO 8601)")
    seconds_left: float | None = Field(default=None,
                                       description="turn: seconds until the deadline")
    urgent: bool = Field(default=False,
                         description="turn: less than a fifth of the move's time left")
    url: str = Field(description="where the page for it is")


class Notifications(BaseModel):
    items: list[Notification] = Field(description="turns (the most urgent first), then "
                                                  "invitations, then rematch offers (oldest first)")
    count: int


class UserHub:
    """This process's ``/ws/me`` sockets, by user: a queue each."""

    def __init__(self) -> None:
        self.queues: dict[int, set[asyncio.Queue]] = {}

    def join(self, user_id: int) -> asyncio.Queue:
        queue: asyncio.Queue = asyncio.Queue(SEND_QUEUE)
        self.queues.setdefault(user_id, set()).add(queue)
        return queue

    def leave(self, user_id: int, queue: asyncio.Queue) -> None:
        queues = self.queues.get(user_id, set())
        queues.discard(queue)
        if not queues:
            self.queues.pop(user_id, None)

    async def deliver(self, key: str, message: dict[str, Any]) -> None:
        """The bus's handler: ``message`` to every socket of user ``key`` here."""
        for queue in list(self.queues.get(int(key), ())):
            with contextlib.suppress(asyncio.QueueFull):  # that page reloads the list anyway
                queue.put_nowait(message)


async def notify(runtime: Runtime, user_id: int, message: dict[str, Any]) -> None:
    """Send ``message`` to every ``/ws/me`` socket of ``user_id``, on every process."""
    await runtime.user_bus.publish(str(user_id), message)


def notify_from_thread(app: Starlette, user_id: int, message: dict[str, Any]) -> None:
    """:func:`notify` from a synchronous route (run in a worker thread by the app)."""
    anyio.from_thread.run(notify, services(app).game, user_id, message)


def rematch_of(session: Session, seek: Seek) -> str | None:
    """The finished match whose rematch the invitation ``seek`` offers: the latest match
    between its two players with its settings that ended before the seek was made (the offers
    ``server/rematch.py`` makes and finds), or None for an invitation that is no rematch."""
    pair = (seek.owner_id, seek.invite_id)
    return session.scalar(
        select(MatchRow.id)
        .where(
            MatchRow.status == "finished",
            MatchRow.seat0_id.in_(pair),
            MatchRow.seat1_id.in_(pair),
            MatchRow.length == seek.length,
            MatchRow.variant == seek.variant,
            MatchRow.mode == seek.mode,
            MatchRow.clock.is_(None) if seek.clock is None else MatchRow.clock == seek.clock,
            MatchRow.updated_at <= seek.created_at,
        )
        .order_by(MatchRow.updated_at.desc())
        .limit(1)
    )


def pending(session: Session, user: User, runtime: Runtime) -> Notifications:
    """What waits for ``user`` now."""
    apart = kept_apart(session, user.id)
    now = runtime.clock.now()
    turns = []
    rows = [r for r in matches_of(session, user.id)
            if r.status == "active" and r.mode == "correspondence"]
    ids = {i for r in rows for i in (r.seat0_id, r.seat1_id) if i is not None}
    names = dict(session.execute(select(User.id, User.username)
                                 .where(User.id.in_(ids))).all()) if ids else {}
    for r in rows:
        seat = 0 if r.seat0_id == user.id else 1
        if r.turn_seat != seat:
            continue
        other = r.seat1_id if seat == 0 else r.seat0_id
        left = None if r.deadline_t is None else max(0.0, r.deadline_t - now)
        allowed = (r.days or 1) * 86400.0
        turns.append(Notification(
            kind="turn", match_id=r.id, opponent=names.get(other, "?") if other else "?",
            length=r.length, variant=r.variant,
            deadline=None if r.deadline_t is None else iso(runtime.clock.to_wall(r.deadline_t)),
            seconds_left=left, urgent=left is not None and left < URGENT_FRACTION * allowed,
            url=f"/match/{r.id}"))
    turns.sort(key=lambda n: n.seconds_left if n.seconds_left is not None else float("inf"))
    invitations = session.execute(
        select(Seek, User.username).join(User, User.id == Seek.owner_id)
        .where(Seek.state == "open", Seek.invite_id == user.id).order_by(Seek.created_at)).all()
    invited, rematches = [], []
    for s, name in invitations:
        if s.owner_id in apart:
            continue
        finished = rematch_of(session, s)
        if finished is None:
            invited.append(Notification(kind="invitation", seek_id=s.id, opponent=name,
                                        length=s.length, variant=s.variant, url=f"/join/{s.id}"))
        else:  # answered on the finished match's page, whose Rematch swaps the colours
            rematches.append(Notification(kind="rematch", match_id=finished, seek_id=s.id,
                                          opponent=name, length=s.length, variant=s.variant,
                                          url=f"/match/{finished}"))
    items = turns + invited + rematches
    return Notifications(items=items, count=len(items))


@router.get("/api/notifications", response_model=Notifications, responses=responses(401, 409))
def notifications(request: Request, user: User = Depends(acting_user),
                  session: Session = Depends(get_session)) -> Notifications:
    """Correspondence matches where it is your turn (with the time left, ``urgent`` when little
    is), open invitations to you, rematch offers."""
    return pending(session, user, services(request.app).game)


@router.websocket("/ws/me")
async def my_socket(ws: WebSocket) -> None:
    """The signed-in player's own events (``docs/api.md`` §Notifications): first
    ``{"type": "hello", "user": {"id", "username"}}``, then ``turn`` and ``invitation``
    frames; ``ping`` is answered ``pong``. Signed in by the ``bg_session`` cookie or an
    ``Authorization: Bearer`` header; without a valid session: an ``error`` frame
    (``not_authenticated``) and close code 4401; a ``?token=`` in the URL is refused as on
    the match socket."""
    runtime = services(ws.app).game
    await ws.accept()
    if await refused_url_token(ws):
        return
    token = request_token(ws)

    def lookup() -> User | None:
        with services(ws.app).db.writing() as session:
            user = user_for_token(session, token)
            session.commit()
            return user

    user = await asyncio.to_thread(lookup)
    if user is None:
        await ws.send_json(ws_error(None, NotSignedIn("sign in to get notifications")))
        await ws.close(code=NOT_SIGNED_IN)
        return
    queue = runtime.users.join(user.id)
    await ws.send_json({"type": "hello", "user": {"id": user.id, "username": user.username}})

    async def write() -> None:
        while True:
            await ws.send_json(await queue.get())

    writer = asyncio.create_task(write())
    try:
        while True:
            frame = await ws.receive()
            if frame["type"] == "websocket.disconnect":
                break
            queue.put_nowait({"type": "pong"})
    except (WebSocketDisconnect, RuntimeError, asyncio.QueueFull):
        pass
    finally:
        runtime.users.leave(user.id, queue)
        writer.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await writer
