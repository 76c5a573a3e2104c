"""Fan-out of match events to every server process: in-process, or through Redis pub/sub.

A message is ``{"version": n, "events": [...]}`` for one match, published after the change is
committed. :class:`LocalBus` hands it straight to this process's handler; :class:`RedisBus`
publishes it on channel ``boardgammon:match:<match_id>`` and every process (this one
included) receives it through a pattern subscription, so players connected to different
processes behind one load balancer see the same events.

Redis going away loses no action and stops no process: a message that cannot be published is
handed to this process's own handler (its players still see it; the other processes' players
get the match's state with its next event), and the subscription is made again, with back-off,
until Redis is back. The log gets one line when Redis is lost and one when it is back.

The same classes carry messages for one user (``boardgammon:user:<user_id>``, see
:mod:`.notifications`): a bus is made per channel prefix.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

log = logging.getLogger("boardgammon.server.bus")

Handler = Callable[[str, dict[str, Any]], Awaitable[None]]
CHANNEL_PREFIX = "boardgammon:match:"
USER_CHANNEL_PREFIX = "boardgammon:user:"
RETRY_S = (0.25, 2.0)
"""Back-off between tries to subscribe again: from the first, doubling up to the second."""


class LocalBus:
    """Events stay in this process (one server process, no Redis)."""

    def __init__(self) -> None:
        self._handler: Handler | None = None

    async def start(self, handler: Handler) -> None:
        self._handler = handler

    async def publish(self, match_id: str, message: dict[str, Any]) -> None:
        if self._handler is not None:
            await self._handler(match_id, message)

    async def stop(self) -> None:
        self._handler = None


class RedisBus:
    """Events go through Redis pub/sub at ``url`` (``redis://host:port/db``), on the channels
    that start with ``prefix`` (the key after it: a match ID or a user ID)."""

    def __init__(self, url: str, prefix: str = CHANNEL_PREFIX) -> None:
        self.url = url
        self.prefix = prefix
        self._redis: Any = None
        self._task: asyncio.Task | None = None
        self._handler: Handler | None = None
        self._lost = False

    async def start(self, handler: Handler) -> None:
        import redis.asyncio as aioredis

        self._redis = aioredis.from_url(self.url)
        self._handler = handler
        pubsub = await self._subscribe()
        self._task = asyncio.create_task(self._listen(pubsub, handler))

    async def _subscribe(self) -> Any:
        pubsub = self._redis.pubsub()
        await pubsub.psubscribe(f"{self.prefix}*")
        return pubsub

    async def _listen(self, pubsub: Any, handler: Handler) -> None:
        from redis.exceptions import RedisError

        while True:
            try:
                async for message in pubsub.listen():
                    await self._deliver(message, handler)
            except (RedisError, OSError) as exc:
                self._lose(exc)
            with contextlib.suppress(Exception):
                await pubsub.aclose()
            pubsub = await self._resubscribe()

    async def _resubscribe(self) -> Any:
        from redis.exceptions import RedisError

        wait = RETRY_S[0]
        while True:
            await asyncio.sleep(wait)
            try:
                pubsub = await self._subscribe()
            except (RedisError, OSError):
                wait = min(2 * wait, RETRY_S[1])
                continue
            if self._lost:
                self._lost = False
                log.warning("Redis is back: events reach every server process again")
            return pubsub

    def _lose(self, exc: BaseException) -> None:
        if not self._lost:
            self._lost = True
            log.error("Redis unreachable (%s: %s): events reach only this process's players "
                      "until it is back", type(exc).__name__, str(exc)[:200])

    async def _deliver(self, message: dict[str, Any], handler: Handler) -> None:
        if message.get("type") != "pmessage":
            return
        channel = message["channel"]
        channel = channel.decode() if isinstance(channel, bytes) else channel
        try:
            await handler(channel[len(self.prefix):], json.loads(message["data"]))
        except Exception:  # one bad delivery must not stop the subscription
            log.exception("delivering %s failed", channel)

    async def publish(self, match_id: str, message: dict[str, Any]) -> None:
        """Publish to every process; without Redis, to this process's players only."""
        from redis.exceptions import RedisError

        data = json.dumps(message)
        for tries_left in (1, 0):
            try:
                await self._redis.publish(f"{self.prefix}{match_id}", data)
                return
            except (RedisError, OSError) as exc:
                # A pooled connection from before a Redis restart fails once; a fresh one works.
                if tries_left:
                    continue
                self._lose(exc)
        if self._handler is not None:
            await self._handler(match_id, message)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self._redis is not None:
            await self._redis.aclose()


def bus_for(redis_url: str | None, prefix: str = CHANNEL_PREFIX) -> LocalBus | RedisBus:
    """Redis fan-out on the channels under ``prefix`` when ``redis_url`` is set, else
    in-process."""
    return RedisBus(redis_url, prefix) if redis_url else LocalBus()
