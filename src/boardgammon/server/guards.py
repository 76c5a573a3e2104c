"""Guards at the edge, as ASGI middleware: :class:`OriginCheck` (cross-site requests) and
:class:`SecurityHeaders` (what a browser may do with our pages). ``docs/server.md`` §Security
describes both and their settings.
"""

from __future__ import annotations

from collections.abc import Iterable

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from boardgammon.server.auth import COOKIE
from boardgammon.server.errors import error_response
from boardgammon.server.refusals import ErrorCode

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_HTTP_SCHEME = {"ws": "http", "wss": "https", "http": "http", "https": "https"}


def own_origin(scope: Scope) -> str:
    """The origin the request was addressed to: its scheme (``X-Forwarded-Proto`` where a
    trusted proxy set it) and its ``Host``, e.g. ``https://play.example``."""
    host = Headers(scope=scope).get("host", "")
    return f"{_HTTP_SCHEME.get(scope.get('scheme', 'http'), 'http')}://{host}"


class OriginCheck:
    """A browser's request from another site is refused: a WebSocket handshake whose
    ``Origin`` is not allowed (closed before it is accepted: HTTP 403), and a state change
    (any method but GET, HEAD, OPTIONS) authenticated by the session cookie whose ``Origin``
    (else ``Referer``) is not allowed (403 ``bad_origin``). A request with no such header is
    no browser's cross-site request (browsers send ``Origin`` with every cross-origin POST,
    form or script) and passes; a bearer token is never sent by a browser on its own.

    ``origins``: the allowed origins (``scheme://host[:port]``); none: the server's own
    (:func:`own_origin`). The CSRF defence of the client's forms is this check: they post
    JSON with the cookie, and SameSite=Lax does not separate two ports of one host.
    """

    def __init__(self, app: ASGIApp, origins: Iterable[str] = ()) -> None:
        self.app, self.origins = app, frozenset(o.rstrip("/").lower() for o in origins)

    def allowed(self, origin: str, scope: Scope) -> bool:
        """Whether a request from ``origin`` may go on."""
        return origin.rstrip("/").lower() in (self.origins or {own_origin(scope).lower()})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            headers = Headers(scope=scope)
            origin = headers.get("origin") or _origin_of(headers.get("referer"))
            if origin is not None and self._checked(scope, headers) and \
                    not self.allowed(origin, scope):
                if scope["type"] == "websocket":
                    await send({"type": "websocket.close", "code": 1008})
                    return
                response = error_response(403, ErrorCode.BAD_ORIGIN,
                                          f"requests from {origin[:100]} are not accepted: "
                                          f"use the site itself")
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)

    @staticmethod
    def _checked(scope: Scope, headers: Headers) -> bool:
        if scope["type"] == "websocket":
            return True
        cookie_only = COOKIE in headers.get("cookie", "") and \
            not headers.get("authorization", "").lower().startswith("bearer ")
        return scope["method"] not in SAFE_METHODS and cookie_only


def _origin_of(url: str | None) -> str | None:
    """``scheme://host[:port]`` of an absolute URL (a ``Referer``), else ``None``."""
    if not url or "://" not in url:
        return None
    scheme, _, rest = url.partition("://")
    return f"{scheme}://{rest.split('/', 1)[0].split('?', 1)[0]}"


CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
       "img-src 'self' data:; connect-src 'self' {sockets}; object-src 'none'; "
       "base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
"""The pages' Content-Security-Policy: scripts only from files of this site (no inline
script, no handler attribute, no eval); inline styles are allowed (the audit pages carry
theirs); no framing. ``{sockets}``: the WebSocket origins of this host (some browsers do
not count ``ws:`` under ``'self'``)."""
DOCS_CSP = ("default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
            "style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
            "img-src 'self' data: https://fastapi.tiangolo.com; object-src 'none'; "
            "base-uri 'none'; frame-ancestors 'none'")
"""The CSP of FastAPI's own ``/docs`` and ``/redoc`` pages (an inline script and a CDN)."""
DOCS_PATHS = ("/docs", "/redoc")


class SecurityHeaders:
    """Every HTTP answer gets ``X-Content-Type-Options: nosniff``, ``Referrer-Policy:
    same-origin``, ``X-Frame-Options: DENY`` and a Content-Security-Policy (:data:`CSP`;
    :data:`DOCS_CSP` on the API's documentation pages)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        host = Headers(scope=scope).get("host", "")
        if scope["path"].startswith(DOCS_PATHS):
            csp = DOCS_CSP
        else:
            csp = CSP.format(sockets=f"ws://{host} wss://{host}" if host else "")
        added = [(b"x-content-type-options", b"nosniff"),
                 (b"referrer-policy", b"same-origin"), (b"x-frame-options", b"DENY"),
                 (b"content-security-policy", csp.encode("latin-1", "replace"))]

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *added]
            await send(message)

        await self.app(scope, receive, with_headers)
