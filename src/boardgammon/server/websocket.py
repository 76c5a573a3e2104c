"""The WebSocket ``/ws/matches/{match_id}`` and the hub that sends each connection
the events of its match followed by a fresh ``state`` from its seat (``docs/api.md``
§WebSocket); a v2 roll's request, whose ``roll_requested`` and ``clock`` events say all that
changed (the pending roll's state and the roller's input hash, the clocks), goes out without
the state, which would tell nothing more (one state built and sent per connection spared).

Each connection has its own send queue and writer task, so one slow client delays no one
else, and messages reach a client in the order the match committed them.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, WebSocket
from starlette.websockets import WebSocketDisconnect

from boardgammon.server.actions import (
    ActionMessage,
    AuthMessage,
    action_id_of,
    parse_client_message,
)
from boardgammon.server.auth import request_token, user_for_token
from boardgammon.server.errors import ws_error
from boardgammon.server.locks import MatchLocks
from boardgammon.server.match_service import MatchService
from boardgammon.server.match_state import MatchState
from boardgammon.server.outage import is_outage
from boardgammon.server.outage import refusal as outage_refusal
from boardgammon.server.refusals import Invalid, NotSignedIn, Refusal
from boardgammon.server.services import services

if TYPE_CHECKING:
    from boardgammon.server.runtime import Runtime

log = logging.getLogger("boardgammon.server.websocket")
router = APIRouter(tags=["websocket"])
echo_router = APIRouter(tags=["benchmark"])

SEND_QUEUE = 256  # a client this far behind is dropped; it reconnects and gets the state
TRY_AGAIN_LATER = 1013
"""Close code of a socket the server cannot serve now (too slow a reader, a database outage)."""
POLICY_VIOLATION = 1008
"""Close code of a socket opened against the protocol (a token in the URL)."""
STATE_IN_EVENTS = frozenset({"roll_requested", "clock"})
"""Events that carry the whole change they make to a state: a batch of only these (a v2 roll's
request) goes out without the fresh ``state`` (``docs/api.md`` §WebSocket)."""


@dataclass(eq=False)
class Connection:
    """One WebSocket: who signed it in (``user_id`` and ``token``, ``None`` for a spectator),
    its seat (``None`` for a spectator), its send queue, and how many of the match's revealed
    rolls it has been sent."""

    ws: WebSocket
    seat: int | None
    user_id: int | None = None
    token: str | None = None
    queue: asyncio.Queue = field(default_factory=lambda: asyncio.Queue(SEND_QUEUE))
    rolls_sent: int = 0

    def send(self, message: dict[str, Any]) -> None:
        """Queue ``message``; raises :class:`asyncio.QueueFull` for a client too far behind."""
        self.queue.put_nowait(message)

    def send_state(self, state: MatchState) -> None:
        """Queue a ``state`` whose ``rolls`` holds only the revealed rolls this connection has
        not been sent yet, from index ``rolls_from`` of the record (``docs/api.md``
        §WebSocket): every state repeating the whole record made each action's messages grow
        with the match. Raises :class:`asyncio.QueueFull` as :meth:`send`."""
        rolls = state["rolls"]
        start = self.rolls_sent if self.rolls_sent <= len(rolls) else 0
        self.send({"type": "state", "state": {**state, "rolls_from": start,
                                              "rolls": rolls[start:]}})
        self.rolls_sent = len(rolls)

    async def writer(self) -> None:
        """Send the queued messages in order, as JSON text. One that has no such form (a
        string holding a lone surrogate, which UTF-8 cannot encode) is logged and skipped: the
        writer dying on it left the socket open but deaf, and said nothing."""
        while True:
            message = await self.queue.get()
            try:
                text = json.dumps(message, separators=(",", ":"), ensure_ascii=False)
                text.encode()
            except (TypeError, ValueError):  # UnicodeEncodeError is a ValueError
                log.exception("a %r frame could not be sent on a match socket; skipped",
                              message.get("type"))
                continue
            await self.ws.send_text(text)


class Hub:
    """This process's WebSocket connections, by match.

    Joining and delivering take the match's lock here and read the state inside it, so the
    states a connection receives only ever move forward: its first state cannot be older than
    one already delivered to it, whatever the timing of a join and a broadcast.
    """

    def __init__(self, service: MatchService, locks: MatchLocks) -> None:
        self.service = service
        self.locks = locks
        self.connections: dict[str, set[Connection]] = {}

    async def join(self, match_id: str, ws: WebSocket, user_id: int | None,
                   token: str | None) -> Connection:
        """Register a connection of ``user_id`` (signed in by ``token``; ``None`` for a
        spectator) and queue its first ``state``.

        Raises:
            NotFound: unknown match.
        """
        async with self.locks.delivery(match_id):
            # Registered before the state is read, so that no event committed after that read
            # can miss this connection (delivery waits for this lock, so it comes after the
            # first state; without the lock it would still reach the connection).
            connection = Connection(ws, None, user_id, token)
            self.connections.setdefault(match_id, set()).add(connection)
            try:
                view = await asyncio.to_thread(self.service.view, match_id)
            except BaseException:
                self.leave(match_id, connection)
                raise
            connection.seat = view.info.seat_of(user_id)
            connection.send_state(view.states[connection.seat])
            return connection

    async def sign_in(self, match_id: str, connection: Connection, user_id: int,
                      token: str) -> None:
        """Seat ``connection`` as ``user_id`` (signed in by ``token``) and queue its state
        from that seat, inside the match's lock like :meth:`join`."""
        async with self.locks.delivery(match_id):
            view = await asyncio.to_thread(self.service.view, match_id)
            connection.user_id, connection.token = user_id, token
            connection.seat = view.info.seat_of(user_id)
            connection.send_state(view.states[connection.seat])

    def leave(self, match_id: str, connection: Connection) -> None:
        self.connections.get(match_id, set()).discard(connection)

    async def deliver(self, match_id: str, message: dict[str, Any]) -> None:
        """Send a committed batch of events, then each connection's fresh state; or a
        message beside the match's record (``{"frame": {...}, "seats": [...]}``: a chat line,
        a spectator count) to the connections of those seats (``None``: to everyone)."""
        async with self.locks.delivery(match_id):
            connections = self.connections.get(match_id)
            if not connections:
                return
            if "frame" in message:
                seats = message.get("seats")
                for connection in list(connections):
                    if seats is None or connection.seat in seats:
                        with contextlib.suppress(asyncio.QueueFull):  # it resyncs on reconnect
                            connection.send(message["frame"])
                return
            if all(event["type"] in STATE_IN_EVENTS for event in message["events"]):
                # A v2 roll's request: the events are the whole change (module docstring).
                events = _fold_clocks(message["events"])
                for connection in list(connections):
                    try:
                        for event in events:
                            connection.send(event)
                    except asyncio.QueueFull:
                        await self._drop(connections, connection)
                return
            seats = {connection.seat for connection in connections}
            snapshot = _snapshot(message.get("snapshot"))
            view = self.service.cached_view(match_id, seats, snapshot)
            if view is None:
                view = await asyncio.to_thread(self.service.view, match_id, seats, snapshot)
            # A `clock` event says what the state that follows says (its `clocks`): two frames
            # an action fewer (docs/api.md §WebSocket).
            events = [event for event in message["events"] if event["type"] != "clock"]
            for connection in list(connections):
                try:
                    for event in events:
                        connection.send(event)
                    connection.send_state(view.states[connection.seat])
                except asyncio.QueueFull:
                    await self._drop(connections, connection)

    @staticmethod
    async def _drop(connections: set[Connection], connection: Connection) -> None:
        """Close a connection too far behind (it reconnects and gets the state)."""
        connections.discard(connection)
        with contextlib.suppress(Exception):
            await connection.ws.close(code=TRY_AGAIN_LATER)


def _fold_clocks(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A request's batch with its ``clock`` event folded into the ``roll_requested`` before it
    (as its ``clocks``): one frame a connection instead of two (``docs/api.md`` §WebSocket)."""
    folded: list[dict[str, Any]] = []
    for event in events:
        if event["type"] == "clock" and folded and folded[-1]["type"] == "roll_requested" \
                and "clocks" not in folded[-1]:
            folded[-1] = {**folded[-1], "clocks": event["clocks"]}
        else:
            folded.append(event)
    return folded


def _snapshot(raw: Any) -> Any:
    """A snapshot back from JSON (lists to tuples), ``None`` if absent or malformed."""
    try:
        version, head = raw
        return int(version), (int(head[0]), str(head[1])) if head is not None else None
    except (TypeError, ValueError, IndexError):
        return None


def _user_id(ws: WebSocket, token: str | None) -> int | None:
    """The user whose session ``token`` is (``None`` if none is valid), the session marked
    used; in a worker thread, in turn with the matches' writes (:meth:`.Database.writing`):
    the sockets of a busy server's players connect while others act."""
    with services(ws.app).db.writing() as session:
        user = user_for_token(session, token)
        session.commit()
        return user.id if user else None


async def refused_url_token(ws: WebSocket) -> bool:
    """Refuse a socket with ``?token=`` in its URL (URLs end up in access logs): an
    ``invalid_request`` error frame, then close 1008. Returns whether it refused."""
    if "token" not in ws.query_params:
        return False
    await ws.send_json(ws_error(None, Invalid(
        "a token in the URL is not accepted (URLs end up in logs): send the cookie, an "
        "Authorization: Bearer header, or a first message {\"type\": \"auth\", "
        "\"token\": …}")))
    await ws.close(code=POLICY_VIOLATION, reason="token in the URL")
    return True


@router.websocket("/ws/matches/{match_id}")
async def match_socket(ws: WebSocket, match_id: str) -> None:
    """Live events of a match (see ``docs/api.md``); signed in by the ``bg_session`` cookie,
    an ``Authorization: Bearer`` header or a first message ``{"type": "auth", "token": …}``;
    anyone else watches as a spectator and cannot act. A ``?token=`` in the URL is refused
    (an error frame, then close 1008): URLs end up in access logs."""
    runtime = services(ws.app).game
    await ws.accept()
    if await refused_url_token(ws):
        return
    token = request_token(ws)
    hub = runtime.hub
    try:
        user_id = await asyncio.to_thread(_user_id, ws, token)
        connection = await hub.join(match_id, ws, user_id, token)
    except Refusal as exc:
        await ws.send_json(ws_error(None, exc))
        await ws.close(code=4404)
        return
    except Exception as exc:
        if not is_outage(exc):
            raise
        await ws.send_json(ws_error(None, outage_refusal()))
        await ws.close(code=TRY_AGAIN_LATER, reason="server problem: database unreachable")
        return
    writer = asyncio.create_task(connection.writer())
    watching = connection.seat is None
    if watching:
        await runtime.spectators_changed(match_id, 1)
    else:
        with contextlib.suppress(Exception):  # a count is not worth refusing a player for
            count = (await runtime.spectators.counts([match_id]))[match_id]
            if count:  # none is what a client assumes
                connection.send({"type": "spectators", "count": count})
    try:
        while True:
            frame = await ws.receive()
            if frame["type"] == "websocket.disconnect":
                break
            text = frame.get("text") if frame.get("text") is not None else frame.get("bytes")
            await _handle(runtime, match_id, connection, text or "")
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        hub.leave(match_id, connection)
        writer.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await writer
        if watching:
            await runtime.spectators_changed(match_id, -1)


@echo_router.websocket("/ws/echo")
async def echo_socket(ws: WebSocket) -> None:
    """Sends every text frame back unchanged: the reference the load benchmark
    (``benchmarks/bench_server.py``) measures match actions against."""
    await ws.accept()
    with contextlib.suppress(WebSocketDisconnect):
        while True:
            await ws.send_text(await ws.receive_text())


async def _handle(runtime: Runtime, match_id: str, connection: Connection,
                  text: str | bytes) -> None:
    try:
        message = parse_client_message(text)
    except Refusal as exc:
        connection.send(ws_error(action_id_of(text), exc))
        return
    if isinstance(message, AuthMessage):
        await _sign_in(runtime, match_id, connection, message.token)
        return
    if not isinstance(message, ActionMessage):
        connection.send({"type": "pong"})
        return
    action = message.action
    user_id = connection.user_id
    try:
        if user_id is None:
            raise NotSignedIn("sign in to act in a match")
        step = await runtime.act(match_id, user_id, action, connection.token)
    except Refusal as exc:
        connection.send(ws_error(action.action_id, exc))
        return
    except Exception as exc:
        if not is_outage(exc):
            raise
        # The socket stays open: the action can be sent again once the database is back.
        connection.send(ws_error(action.action_id, outage_refusal()))
        return
    if step.error is not None:
        connection.send(ws_error(action.action_id, step.error))
        return
    connection.send({"type": "ack", "action_id": action.action_id})
    if step.resent:
        state = await asyncio.to_thread(runtime.service.view_for, match_id, user_id)
        connection.send_state(state)


async def _sign_in(runtime: Runtime, match_id: str, connection: Connection, token: str) -> None:
    """Answer an ``auth`` message: the socket now acts for the token's user, who is sent a
    ``signed_in`` frame and the state from their seat. An unknown, revoked or expired token
    (``not_authenticated``) or a database outage is answered with an ``error`` frame and
    leaves the socket as it was."""
    try:
        user_id = await asyncio.to_thread(_user_id, connection.ws, token)
        if user_id is None:
            raise NotSignedIn("the token is unknown, revoked or expired: sign in again")
        connection.send({"type": "signed_in", "user_id": user_id})
        await runtime.hub.sign_in(match_id, connection, user_id, token)
    except Refusal as exc:
        connection.send(ws_error(None, exc))
    except Exception as exc:
        if not is_outage(exc):
            raise
        connection.send(ws_error(None, outage_refusal()))
