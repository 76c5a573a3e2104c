"""Accounts and sessions (``docs/api.md`` §Authentication).

Passwords are hashed with argon2id (argon2-cffi's defaults, RFC 9106). A session is a random
token of 32 bytes; the database keeps only its SHA-256, so a leaked table opens no session.
Browsers get the token as the ``bg_session`` cookie (HttpOnly, SameSite=Lax, Secure over HTTPS),
API clients send ``Authorization: Bearer <token>``; either works on every route and on the
WebSocket (which also takes the token in its first message, never in the URL).

The server ends a session :data:`SESSION_MAX` after it was opened and :data:`SESSION_IDLE`
after it was last used, whatever the cookie's own age says; each sign-in opens a new session.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from datetime import UTC, datetime, timedelta
from typing import Annotated, cast

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from fastapi import APIRouter, Depends, Request, Response
from pydantic import BaseModel, Field
from sqlalchemy import and_, bindparam, delete, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session
from starlette.requests import HTTPConnection

from boardgammon.server.bodies import (
    MAX_PASSWORD,
    MIN_PASSWORD,
    USERNAME_PATTERN,
    Password,
    RequestBody,
    Username,
)
from boardgammon.server.db import get_session
from boardgammon.server.errors import responses
from boardgammon.server.refusals import ErrorCode, Invalid, NotSignedIn, StateConflict
from boardgammon.server.services import services
from boardgammon.server.tables import AuthToken, User, UTCDateTime

COOKIE = "bg_session"
SESSION_MAX = timedelta(days=90)
"""A session ends this long after it was opened (the cookie's ``Max-Age`` says the same)."""
SESSION_IDLE = timedelta(days=30)
"""A session ends when it has not been used for this long."""
TOUCH_EVERY = timedelta(hours=1)
"""A session's ``last_used_at`` is written at most this often (not one write per request)."""

_hasher = PasswordHasher()
# Verifying against this keeps a login for an unknown name as slow as one with a bad password.
_DUMMY_HASH = _hasher.hash(secrets.token_hex(16))

router = APIRouter(tags=["accounts"])


class Credentials(RequestBody):
    """A new account's name and password (register, upgrade)."""

    username: Username
    password: Password


GivenPassword = Annotated[str, Field(description=(
    f"a password as the user typed it: one that no account can have (over {MAX_PASSWORD} "
    f"characters, under {MIN_PASSWORD}, control characters) is a wrong one"))]
"""A password given to be checked (sign-in, the current one at a change or deletion): any
string. One that breaks the rule of :data:`~.bodies.Password` is refused as a wrong password
(401 ``bad_credentials``), not as malformed input that would say how it breaks the rule."""


GivenName = Annotated[str, Field(max_length=200, description=(
    "a player's name as the user typed it: one that no account can have is a wrong one"))]
"""A name given to sign in: any string up to 200 characters. One that breaks the rule of
:data:`~.bodies.Username` is an unknown name (401 ``bad_credentials``), never quoted back: a
password typed into the name's box by mistake would otherwise come back in the message."""


class SignIn(RequestBody):
    username: GivenName
    password: GivenPassword


class PasswordChange(RequestBody):
    password: GivenPassword
    new_password: Password


class UserOut(BaseModel):
    id: int
    username: str
    guest: bool


class UserAnswer(BaseModel):
    user: UserOut


class SessionAnswer(BaseModel):
    user: UserOut
    token: str


def user_out(user: User) -> UserOut:
    return UserOut(id=user.id, username=user.username, guest=user.guest)


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


_LIVE = and_(AuthToken.created_at > bindparam("opened_after", type_=UTCDateTime()),
             AuthToken.last_used_at > bindparam("used_after", type_=UTCDateTime()))
"""SQL: the session is within both its lifetimes (the bounds from :func:`_bounds`)."""


def _bounds(now: datetime) -> dict[str, datetime]:
    return {"opened_after": now - SESSION_MAX, "used_after": now - SESSION_IDLE}


def user_for_token(session: Session, token: str | None) -> User | None:
    """The user whose session ``token`` is, or ``None`` (no token, unknown, revoked or past a
    lifetime). Marks the session used (at most every :data:`TOUCH_EVERY`; the caller commits)."""
    found = _token_owner(session, token)
    if found is None:
        return None
    if found[1]:
        _touch(session, cast(str, token))  # a session was found by it
    return found[0]


def _token_owner(session: Session, token: str | None) -> tuple[User, bool] | None:
    """The user whose session ``token`` is, and whether the session is due to be marked used;
    ``None`` as in :func:`user_for_token`. Reads only."""
    if not token or len(token) > 200:
        return None
    now = datetime.now(UTC)
    found = session.execute(
        select(User, AuthToken.last_used_at).join(AuthToken, AuthToken.user_id == User.id)
        .where(AuthToken.token_hash == _token_hash(token), _LIVE), _bounds(now)
    ).one_or_none()
    if found is None:
        return None
    user, last_used = found
    return user, last_used < now - TOUCH_EVERY


def _touch(session: Session, token: str) -> None:
    session.execute(update(AuthToken).where(AuthToken.token_hash == _token_hash(token))
                    .values(last_used_at=datetime.now(UTC)))


TOKEN_USER = (select(AuthToken.user_id)
              .where(AuthToken.token_hash == bindparam("token_hash"), _LIVE))
"""SQL: the ID of the user whose session is the token of :func:`token_params` (no row: unknown,
revoked or past a lifetime). A primary-key read, cheap enough to ask again at every action of
an open WebSocket; the match repository asks it inside its first statement of an action
(:class:`.Probe`)."""


def token_params(token: str) -> dict[str, object]:
    """The bind parameters of :data:`TOKEN_USER` for ``token``, now. A token longer than any
    this server issues (over 200 characters) is looked up by a hash no session has."""
    return {"token_hash": _token_hash(token) if len(token) <= 200 else "",
            **_bounds(datetime.now(UTC))}


def token_user_id(session: Session, token: str) -> int | None:
    """The ID of the user whose session ``token`` is, ``None`` if it is unknown, revoked or past
    a lifetime (:data:`TOKEN_USER`)."""
    return session.execute(TOKEN_USER, token_params(token)).scalar_one_or_none()



def request_token(request: HTTPConnection) -> str | None:
    """The session token of a request or WebSocket handshake: the bearer token, else the
    cookie."""
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    return request.cookies.get(COOKIE)


def optional_user(request: Request) -> User | None:
    """FastAPI dependency: the signed-in user or ``None``, read in a session of its own (on
    SQLite without the write lock; marking the session used, when due, takes the write turn
    for a moment), so the user is detached: a route that changes it loads its own copy."""
    db = services(request.app).db
    token = request_token(request)
    with db.read_sessions() as session:
        found = _token_owner(session, token)
    if found is None:
        return None
    if found[1]:
        with db.writing() as session:
            _touch(session, cast(str, token))  # a session was found by it
            session.commit()
    return found[0]


def current_user(user: User | None = Depends(optional_user)) -> User:
    """FastAPI dependency: the signed-in user.

    Raises:
        NotSignedIn: ``not_authenticated``.
    """
    if user is None:
        raise NotSignedIn("sign in first (session cookie or bearer token missing, unknown or "
                          "revoked)")
    return user


def _open_session(session: Session, user: User, request: Request, response: Response) -> str:
    token, now = secrets.token_urlsafe(32), datetime.now(UTC)
    session.add(AuthToken(token_hash=_token_hash(token), user_id=user.id, created_at=now,
                          last_used_at=now))
    session.commit()
    response.set_cookie(COOKIE, token, httponly=True, samesite="lax",
                        secure=request.url.scheme == "https",
                        max_age=int(SESSION_MAX.total_seconds()))
    return token


RESERVED_NAMES = frozenset({
    "admin", "administrator", "root", "system", "support", "moderator", "staff", "official",
    "boardgammon", "gnubg", "computer", "bot", "server", "anonymous", "guest", "spectator",
    "null", "undefined", "none", "nil", "nan", "true", "false", "me", "you"})
"""Names nobody registers (compared in lower case): they would pass for the site, a client's
placeholder or a missing value. Names that start with ``guest-`` are the guests' own."""


def refuse_reserved(username: str) -> None:
    """Refuse a name a new account (or an upgraded guest) may not take.

    Raises:
        Invalid: ``username_reserved`` (422), naming the rule.
    """
    key = username.lower()
    if key in RESERVED_NAMES or key.startswith(("guest-", "guest_")):
        raise Invalid(f"the name {username!r} is reserved (guest-…, admin, null and the like "
                      f"are not given to accounts); choose another", ErrorCode.USERNAME_RESERVED)


def _taken(username: str) -> None:
    raise StateConflict(f"the name {username!r} is taken; choose another",
                        ErrorCode.USERNAME_TAKEN)


@router.post("/api/auth/register", status_code=201, response_model=SessionAnswer,
             responses=responses(409, 429))
def register(body: Credentials, request: Request, response: Response,
             session: Session = Depends(get_session)) -> SessionAnswer:
    """Create an account and sign in (a reserved name, :func:`refuse_reserved`, is refused
    with 422)."""
    refuse_reserved(body.username)
    services(request.app).game.login_limit.hit(f"register:{_client(request)}")
    user = User(username=body.username, username_key=body.username.lower(),
                password_hash=_hasher.hash(body.password), guest=False,
                created_at=datetime.now(UTC))
    session.add(user)
    try:
        session.flush()
    except IntegrityError:
        session.rollback()
        _taken(body.username)
    token = _open_session(session, user, request, response)
    return SessionAnswer(user=user_out(user), token=token)


@router.post("/api/auth/login", response_model=SessionAnswer, responses=responses(401, 429))
def login(body: SignIn, request: Request, response: Response,
          session: Session = Depends(get_session)) -> SessionAnswer:
    """Sign in with a name and password (rate limited per address and name, and per address
    whatever the names)."""
    game = services(request.app).game
    game.address_login_limit.hit(f"login:{_client(request)}")
    game.login_limit.hit(f"login:{_client(request)}:{body.username.lower()}")
    # A name no account can have is not looked up (PostgreSQL refuses a NUL in a string).
    user = session.execute(
        select(User).where(User.username_key == body.username.lower())
    ).scalar_one_or_none() if re.fullmatch(USERNAME_PATTERN, body.username) else None
    # Checked whether or not the name exists: a sign-in takes as long either way.
    if not password_matches(user, body.password) or user is None:
        raise NotSignedIn("unknown name or wrong password", ErrorCode.BAD_CREDENTIALS)
    token = _open_session(session, user, request, response)
    return SessionAnswer(user=user_out(user), token=token)


@router.post("/api/auth/guest", status_code=201, response_model=SessionAnswer,
             responses=responses(429))
def guest(request: Request, response: Response,
          session: Session = Depends(get_session)) -> SessionAnswer:
    """Play as a guest: an account with a generated name (``guest-…``) and no password."""
    services(request.app).game.login_limit.hit(f"guest:{_client(request)}")
    while True:
        name = f"guest-{secrets.token_hex(4)}"
        user = User(username=name, username_key=name, password_hash=None, guest=True,
                    created_at=datetime.now(UTC))
        session.add(user)
        try:
            session.flush()
            break
        except IntegrityError:
            session.rollback()
    token = _open_session(session, user, request, response)
    return SessionAnswer(user=user_out(user), token=token)


@router.post("/api/auth/upgrade", response_model=UserAnswer, responses=responses(401, 409))
def upgrade(body: Credentials, user: User = Depends(current_user),
            session: Session = Depends(get_session)) -> UserAnswer:
    """Turn the signed-in guest into a full account (name and password); matches are kept.

    Refused with 409 ``not_a_guest`` for an account that already has a password."""
    if not user.guest:
        raise StateConflict(f"{user.username} is already a full account", ErrorCode.NOT_A_GUEST)
    refuse_reserved(body.username)
    user = session.get_one(User, user.id)
    user.username, user.username_key = body.username, body.username.lower()
    user.password_hash, user.guest = _hasher.hash(body.password), False
    try:
        session.commit()
    except IntegrityError:
        session.rollback()
        _taken(body.username)
    return UserAnswer(user=user_out(user))


@router.post("/api/auth/password", response_model=SessionAnswer, responses=responses(401, 429))
def change_password(body: PasswordChange, request: Request, response: Response,
                    user: User = Depends(current_user),
                    session: Session = Depends(get_session)) -> SessionAnswer:
    """Change the password: every session of the account is revoked (whoever holds a stolen
    token is signed out, open WebSockets can no longer act) and this client gets a new one.

    Refused with 401 ``bad_credentials`` for a wrong current password (a guest has none: it
    sets one with ``/api/auth/upgrade``), rate limited like sign-ins."""
    services(request.app).game.login_limit.hit(f"password:{_client(request)}:{user.id}")
    if not password_matches(user, body.password):
        raise NotSignedIn("wrong current password", ErrorCode.BAD_CREDENTIALS)
    user = session.get_one(User, user.id)
    user.password_hash = _hasher.hash(body.new_password)
    session.execute(delete(AuthToken).where(AuthToken.user_id == user.id))
    token = _open_session(session, user, request, response)
    return SessionAnswer(user=user_out(user), token=token)


@router.post("/api/auth/logout", status_code=204, responses=responses(401))
def logout(request: Request, user: User = Depends(current_user),
           session: Session = Depends(get_session)) -> Response:
    """Revoke this session's token and clear the cookie."""
    session.execute(delete(AuthToken).where(AuthToken.token_hash ==
                                            _token_hash(request_token(request) or "")))
    session.commit()
    response = Response(status_code=204)
    response.delete_cookie(COOKIE)
    return response


@router.post("/api/auth/logout-all", status_code=204, responses=responses(401))
def logout_all(user: User = Depends(current_user),
               session: Session = Depends(get_session)) -> Response:
    """Sign out everywhere: revoke every session of the signed-in user (open WebSockets can no
    longer act) and clear the cookie."""
    session.execute(delete(AuthToken).where(AuthToken.user_id == user.id))
    session.commit()
    response = Response(status_code=204)
    response.delete_cookie(COOKIE)
    return response


@router.get("/api/me", response_model=UserAnswer, responses=responses(401))
def me(user: User = Depends(current_user)) -> UserAnswer:
    """The signed-in user."""
    return UserAnswer(user=user_out(user))


def password_matches(user: User | None, password: str) -> bool:
    """Whether ``password`` is ``user``'s (never for an account without one: a guest; nor for
    no user, which takes as long as a wrong password, so a sign-in does not tell whether a name
    exists). One longer than :data:`MAX_PASSWORD` is wrong without being hashed: nobody makes
    the server hash megabytes."""
    if len(password) > MAX_PASSWORD:
        return False
    stored = user.password_hash if user is not None else None
    try:
        return _hasher.verify(stored or _DUMMY_HASH, password) and stored is not None
    except (VerificationError, InvalidHashError):
        return False


def client_address(request: Request) -> str:
    """The address a request came from, for rate limits (``unknown`` without one)."""
    return _client(request)


def _client(request: Request) -> str:
    return request.client.host if request.client else "unknown"
