"""No secret in any log line: session tokens are cut out of what uvicorn logs.

uvicorn logs each request's path with its query string, on ``uvicorn.access`` (HTTP) and on
``uvicorn.error`` (each WebSocket handshake). WebSockets once signed in with ``?token=``, and a
token copied from such a line signed in; the server now refuses a token in the URL, but a
client that still sends one must not leave it in the log. :func:`install` adds
:class:`RedactTokens` to those loggers.
"""

from __future__ import annotations

import logging
import re

REDACTED = "[redacted]"
_TOKEN_IN_QUERY = re.compile(r"([?&]token=)[^&\s\"']*", re.IGNORECASE)
LOGGERS = ("uvicorn.access", "uvicorn.error")
"""The loggers that print request paths (their records do not propagate a filter)."""


def redact(text: str) -> str:
    """``text`` with the value of every ``token=`` query parameter replaced by ``[redacted]``."""
    return _TOKEN_IN_QUERY.sub(rf"\g<1>{REDACTED}", text)


class RedactTokens(logging.Filter):
    """Redacts tokens in a record's message and arguments (arguments stay a tuple of the same
    length: uvicorn's access formatter unpacks them)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        return True


def install() -> None:
    """Add :class:`RedactTokens` to uvicorn's loggers once (called again, it adds nothing)."""
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactTokens) for f in logger.filters):
            logger.addFilter(RedactTokens())
