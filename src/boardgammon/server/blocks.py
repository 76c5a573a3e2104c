"""Block lists (``docs/api.md`` §Blocks): a player blocks another by name; from then on
neither can invite the other, take the other's seek (nor see it in the lobby), or read the
other's chat. The rule is symmetric so that blocking someone also keeps you from meeting them
by accident; only the one who blocked can lift it."""

from __future__ import annotations

from datetime import UTC, datetime

from fastapi import APIRouter, Depends, Response
from pydantic import BaseModel
from sqlalchemy import and_, delete, or_, select
from sqlalchemy.orm import Session

from boardgammon.server.acting import acting_user
from boardgammon.server.db import get_session, rowcount
from boardgammon.server.errors import responses
from boardgammon.server.refusals import ErrorCode, Invalid, NotAllowed, NotFound
from boardgammon.server.tables import Block, User

router = APIRouter(tags=["blocks"])

MAX_BLOCKS = 500
"""Players one account may block at most (a list is read at every seek and chat line)."""


class BlockList(BaseModel):
    blocked: list[str]


def blocked_between(session: Session, a: int, b: int) -> bool:
    """Whether ``a`` blocked ``b`` or ``b`` blocked ``a``."""
    return session.execute(select(Block.user_id).where(or_(
        and_(Block.user_id == a, Block.blocked_id == b),
        and_(Block.user_id == b, Block.blocked_id == a))).limit(1)).first() is not None


def kept_apart(session: Session, user_id: int) -> set[int]:
    """Everyone ``user_id`` blocked or was blocked by."""
    rows = session.execute(select(Block.user_id, Block.blocked_id).where(
        or_(Block.user_id == user_id, Block.blocked_id == user_id))).all()
    return {b if a == user_id else a for a, b in rows}


def refuse_if_blocked(session: Session, a: int, b: int, what: str) -> None:
    """Refuse ``what`` between ``a`` and ``b`` if either blocked the other.

    Raises:
        NotAllowed: ``blocked`` (403).
    """
    if blocked_between(session, a, b):
        raise NotAllowed(f"{what}: one of you has blocked the other", ErrorCode.BLOCKED)


def _list(session: Session, user: User) -> BlockList:
    names = session.execute(select(User.username).join(Block, Block.blocked_id == User.id)
                            .where(Block.user_id == user.id).order_by(User.username_key))
    return BlockList(blocked=list(names.scalars()))


def _player(session: Session, username: str) -> User:
    found = session.execute(select(User).where(User.username_key == username.lower(),
                                               User.deleted_at.is_(None))
                            ).scalar_one_or_none()
    if found is None:
        raise NotFound(f"no player named {username!r}")
    return found


@router.get("/api/blocks", response_model=BlockList, responses=responses(401, 409))
def block_list(user: User = Depends(acting_user),
               session: Session = Depends(get_session)) -> BlockList:
    """The players you blocked, by name."""
    return _list(session, user)


@router.put("/api/blocks/{username}", response_model=BlockList,
            responses=responses(401, 404, 409, 422))
def block(username: str, user: User = Depends(acting_user),
          session: Session = Depends(get_session)) -> BlockList:
    """Block ``username`` (blocking someone already blocked changes nothing); answers your list.
    Yourself: 422 ``block_self``; past :data:`MAX_BLOCKS`: 422 ``invalid_request``."""
    other = _player(session, username)
    if other.id == user.id:
        raise Invalid("you cannot block yourself", ErrorCode.BLOCK_SELF)
    if session.get(Block, (user.id, other.id)) is None:
        count = len(_list(session, user).blocked)
        if count >= MAX_BLOCKS:
            raise Invalid(f"you have blocked {count} players, the most one account may; "
                          f"unblock someone first")
        session.add(Block(user_id=user.id, blocked_id=other.id, created_at=datetime.now(UTC)))
        session.commit()
    return _list(session, user)


@router.delete("/api/blocks/{username}", status_code=204, responses=responses(401, 404, 409))
def unblock(username: str, user: User = Depends(acting_user),
            session: Session = Depends(get_session)) -> Response:
    """Lift your block of ``username`` (404 if you had not blocked them)."""
    other = _player(session, username)
    gone = session.execute(delete(Block).where(Block.user_id == user.id,
                                               Block.blocked_id == other.id))
    if not rowcount(gone):
        raise NotFound(f"you have not blocked {other.username}")
    session.commit()
    return Response(status_code=204)
