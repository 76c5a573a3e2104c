"""Who a request acts as, when a browser holds two accounts (``docs/api.md`` §Two accounts in
one browser).

A browser keeps one session cookie: signing in as another account in a second tab replaces it,
and the first tab's next request would act as the second account without knowing. A client
names the account it believes it is signed in as in the header :data:`AS_HEADER`; a request
whose session belongs to someone else is refused (409 ``session_changed``) and changes nothing.
Without the header a request acts as its session's user, as every other route does.
"""

from __future__ import annotations

from fastapi import Depends, Header

from boardgammon.server.auth import current_user
from boardgammon.server.refusals import ErrorCode, StateConflict
from boardgammon.server.tables import User

AS_HEADER = "X-Boardgammon-As"


def acting_user(user: User = Depends(current_user),
                expected: str | None = Header(None, alias=AS_HEADER,
                                              description="the username the client believes "
                                                          "it acts as")) -> User:
    """FastAPI dependency: the signed-in user, who must be the one :data:`AS_HEADER` names
    (compared without case, as names are unique).

    Raises:
        NotSignedIn: ``not_authenticated``; StateConflict: ``session_changed``.
    """
    if expected is not None and expected.lower() != user.username_key:
        raise StateConflict(f"this browser is now signed in as {user.username}, not "
                            f"{expected} (another tab signed in): reload the page",
                            ErrorCode.SESSION_CHANGED)
    return user
