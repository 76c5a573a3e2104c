"""Games to watch (``docs/api.md`` §Games to watch): the matches being played now, for the
lobby, and how many spectators each has.

Spectators are counted per match as their WebSockets come and go (:class:`Spectators`): in
this process, or in one Redis hash shared by every server process when Redis fans out events,
so that a count is the same whichever process a watcher asks. A change is sent to the
players' connections to the match as a ``spectators`` frame.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field
from sqlalchemy import select

from boardgammon.server.errors import responses
from boardgammon.server.match_state import iso
from boardgammon.server.ratings import ratings_of
from boardgammon.server.services import services
from boardgammon.server.tables import MatchRow, User

router = APIRouter(tags=["watching"])

WATCH_LIMIT = 50
"""Matches the list holds at most (the most recently moved first)."""
SPECTATORS_KEY = "boardgammon:spectators"


class LocalSpectators:
    """Spectator counts of this process's connections."""

    def __init__(self) -> None:
        self._counts: dict[str, int] = {}

    async def change(self, match_id: str, by: int) -> int:
        """Add ``by`` (+1 or -1) to the match's count; the count after it."""
        count = max(0, self._counts.get(match_id, 0) + by)
        if count:
            self._counts[match_id] = count
        else:
            self._counts.pop(match_id, None)
        return count

    async def counts(self, match_ids: Sequence[str]) -> dict[str, int]:
        """Each match's count (0 for none)."""
        return {m: self._counts.get(m, 0) for m in match_ids}

    async def stop(self) -> None:
        self._counts.clear()


class RedisSpectators:
    """Spectator counts in the Redis hash :data:`SPECTATORS_KEY` at ``url``, shared by every
    process (a process that dies with watchers connected leaves its counts behind until
    they would have left: the risk of a shared counter without a lease)."""

    def __init__(self, url: str) -> None:
        import redis.asyncio as aioredis

        self._redis: Any = aioredis.from_url(url)

    async def change(self, match_id: str, by: int) -> int:
        count = int(await self._redis.hincrby(SPECTATORS_KEY, match_id, by))
        if count <= 0:
            await self._redis.hdel(SPECTATORS_KEY, match_id)
        return max(0, count)

    async def counts(self, match_ids: Sequence[str]) -> dict[str, int]:
        if not match_ids:
            return {}
        found = await self._redis.hmget(SPECTATORS_KEY, list(match_ids))
        return {m: max(0, int(n or 0)) for m, n in zip(match_ids, found, strict=True)}

    async def stop(self) -> None:
        await self._redis.aclose()


def spectators_for(redis_url: str | None) -> LocalSpectators | RedisSpectators:
    """Counts in Redis when ``redis_url`` is set (shared by the processes), else here."""
    return RedisSpectators(redis_url) if redis_url else LocalSpectators()


class WatchedPlayer(BaseModel):
    name: str
    rating: float | None = Field(description="the player's rating in the match's variant "
                                             "(1500 before a first rated match); null for a "
                                             "guest or the computer")


class WatchedMatch(BaseModel):
    match_id: str
    players: list[WatchedPlayer] = Field(description="seat 0, seat 1")
    score: list[int]
    length: int = Field(description="points to win; 0 for money play")
    variant: str
    mode: str
    clock: str | None
    spectators: int
    updated_at: str = Field(description="the last action (ISO 8601, UTC)")
    watch_url: str


def _rows(request: Request) -> list[WatchedMatch]:
    with services(request.app).db.read_sessions() as session:
        rows = session.execute(select(MatchRow).where(MatchRow.status == "active")
                               .order_by(MatchRow.updated_at.desc(), MatchRow.id)
                               .limit(WATCH_LIMIT)).scalars().all()
        ids = {i for r in rows for i in (r.seat0_id, r.seat1_id) if i is not None}
        names = dict(session.execute(select(User.id, User.username)
                                     .where(User.id.in_(ids))).all()) if ids else {}
        out = []
        for r in rows:
            ratings = ratings_of(session, (r.seat0_id, r.seat1_id), r.variant)
            players = []
            for seat, user_id in enumerate((r.seat0_id, r.seat1_id)):
                if r.bot_seat == seat or user_id is None:
                    players.append(WatchedPlayer(name=f"Computer ({r.bot_level})", rating=None))
                else:
                    players.append(WatchedPlayer(name=names.get(user_id, "?"),
                                                 rating=ratings.get(user_id)))
            out.append(WatchedMatch(
                match_id=r.id, players=players, score=[r.score0, r.score1], length=r.length,
                variant=r.variant, mode=r.mode, clock=r.clock, spectators=0,
                updated_at=iso(r.updated_at.timestamp()), watch_url=f"/match/{r.id}"))
        return out


@router.get("/api/watch", response_model=list[WatchedMatch], responses=responses(503))
async def watch_list(request: Request) -> list[WatchedMatch]:
    """Matches being played now (not finished), the most recently moved first, at most
    :data:`WATCH_LIMIT`, with their players, score, length and spectator count. Anyone may
    ask: watching needs no account."""
    matches = await asyncio.to_thread(_rows, request)
    counts = await services(request.app).game.spectators.counts([m.match_id for m in matches])
    for m in matches:
        m.spectators = counts[m.match_id]
    return matches
