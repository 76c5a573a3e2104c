"""Fan-out of match events to every server process: in-process, or through Redis pub/sub.

A message is ``{"version": n, "events": [...]}`` for one match, published after the change is
committed. :class:`LocalBus` hands it straight to this process's handler; :class:`RedisBus`
publishes it on channel ``boardgammon:match:<match_id>`` and every process (this one
included) receives it through a pattern subscription, so players connected to different
processes behind one load balancer see the same events.
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
    """Events go through Redis pub/sub at ``url`` (``redis://host:port/db``)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._redis: Any = None
        self._task: asyncio.Task | None = None

    async def start(self, handler: Handler) -> None:
        import redis.asyncio as aioredis

        self._redis = aioredis.from_url(self.url)
        pubsub = self._redis.pubsub()
        await pubsub.psubscribe(f"{CHANNEL_PREFIX}*")
        self._task = asyncio.create_task(self._listen(pubsub, handler))

    async def _listen(self, pubsub: Any, handler: Handler) -> None:
        async for message in pubsub.listen():
            if message.get("type") != "pmessage":
                continue
            channel = message["channel"]
            channel = channel.decode() if isinstance(channel, bytes) else channel
            try:
                await handler(channel[len(CHANNEL_PREFIX):], json.loads(message["data"]))
            except Exception:  # one bad delivery must not stop the subscription
                log.exception("delivering %s failed", channel)

    async def publish(self, match_id: str, message: dict[str, Any]) -> None:
        await self._redis.publish(f"{CHANNEL_PREFIX}{match_id}", json.dumps(message))

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self._redis is not None:
            await self._redis.aclose()


def bus_for(redis_url: str | None) -> LocalBus | RedisBus:
    """Redis fan-out when ``redis_url`` is set, else in-process."""
    return RedisBus(redis_url) if redis_url else LocalBus()
