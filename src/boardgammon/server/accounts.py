"""Deleting an account (``docs/api.md`` §Deleting an account): ``POST /api/auth/delete``.

What stays and what goes, in order:

1. The account, in one transaction: every session revoked, the name replaced by the
   placeholder :data:`~boardgammon.server.tables.DELETED_NAME` (the lower-cased old name stays
   in ``username_key``, so nobody can register it again), the password removed (no sign-in),
   ``deleted_at`` set; its open seeks, invitations and rematch offers, to it or from it,
   withdrawn; its block lists (both ways) and chat mutes removed.
2. Each match it still plays is forfeited (:meth:`MatchService.forfeit`): the opponent wins
   it, broadcast like any ending; a rated one is rated as any other ending (the opponent's
   rating changes as for a win, as a resignation would have made it).
3. Its ratings and rating history are removed (so also from the leaderboard).

Finished matches, their chat, dice records, audit pages and analyses are kept as they are: the
dice record is public and permanent, and the opponents' histories keep their matches; the
deleted player appears there under the placeholder, without a profile.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime

from fastapi import APIRouter, Depends, Request, Response
from pydantic import Field
from sqlalchemy import delete, or_, select, update
from sqlalchemy.orm import Session

from boardgammon.server.acting import acting_user
from boardgammon.server.auth import (
    COOKIE,
    GivenPassword,
    client_address,
    password_matches,
)
from boardgammon.server.bodies import RequestBody
from boardgammon.server.errors import responses
from boardgammon.server.refusals import ErrorCode, NotSignedIn
from boardgammon.server.services import services
from boardgammon.server.tables import (
    DELETED_NAME,
    AuthToken,
    Block,
    ChatMute,
    MatchRow,
    PlayerRating,
    RatingChange,
    Seek,
    User,
)

router = APIRouter(tags=["accounts"])
log = logging.getLogger("boardgammon.server")


class Deletion(RequestBody):
    password: GivenPassword | None = Field(None, description="the current password (a guest "
                                                         "has none: leave it out)")


def _delete_account(request: Request, user_id: int, password: str | None) -> list[str]:
    """Step 1 (see the module); the IDs of the matches the account still plays.

    Raises:
        NotSignedIn: ``bad_credentials``, a wrong or missing password of a full account
            (nothing changed).
    """
    parts = services(request.app)
    parts.game.login_limit.hit(f"delete:{client_address(request)}:{user_id}")
    with parts.db.sessions() as session:
        user = session.get(User, user_id)
        if user is None or user.deleted_at is not None:
            raise NotSignedIn("sign in first (this account no longer exists)")
        if user.password_hash is not None and not password_matches(user, password or ""):
            raise NotSignedIn("wrong password: the account is not deleted",
                              ErrorCode.BAD_CREDENTIALS)
        _withdraw(session, user_id)
        user.username, user.password_hash = DELETED_NAME, None
        user.deleted_at = datetime.now(UTC)
        playing = list(session.scalars(
            select(MatchRow.id).where(MatchRow.status == "active",
                                      or_(MatchRow.seat0_id == user_id,
                                          MatchRow.seat1_id == user_id))
            .order_by(MatchRow.id)))
        session.commit()
    return playing


def _withdraw(session: Session, user_id: int) -> None:
    session.execute(delete(AuthToken).where(AuthToken.user_id == user_id))
    session.execute(update(Seek).where(Seek.state == "open",
                                       or_(Seek.owner_id == user_id, Seek.invite_id == user_id))
                    .values(state="cancelled"))
    session.execute(delete(Block).where(or_(Block.user_id == user_id,
                                            Block.blocked_id == user_id)))
    session.execute(delete(ChatMute).where(ChatMute.user_id == user_id))


def _remove_ratings(request: Request, user_id: int) -> None:
    with services(request.app).db.sessions() as session:
        session.execute(delete(RatingChange).where(RatingChange.user_id == user_id))
        session.execute(delete(PlayerRating).where(PlayerRating.user_id == user_id))
        session.commit()


@router.post("/api/auth/delete", status_code=204, responses=responses(401, 409, 422, 429))
async def delete_account(body: Deletion, request: Request,
                         user: User = Depends(acting_user)) -> Response:
    """Delete the signed-in account for good (the module says what stays and what goes):
    a full account gives its current ``password``, a guest its session alone. Answers 204 and
    clears the cookie; a wrong password is refused with 401 ``bad_credentials`` and changes
    nothing."""
    playing = await asyncio.to_thread(_delete_account, request, user.id, body.password)
    game = services(request.app).game
    for match_id in playing:
        try:
            await game.run(match_id, game.service.forfeit, match_id, user.id)
        except Exception:
            # The account is gone already; one match that cannot be forfeited now (its
            # clock, if any, still ends it) must not keep the others and the ratings.
            log.exception("deleted account %s: match %s was not forfeited", user.id, match_id)
    await asyncio.to_thread(_remove_ratings, request, user.id)
    response = Response(status_code=204)
    response.delete_cookie(COOKIE)
    return response
