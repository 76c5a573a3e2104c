"""Server settings, read from the environment.

``BOARDGAMMON_DATABASE_URL``: an SQLAlchemy URL; default SQLite at ``./var/boardgammon.sqlite3``
(relative to the working directory). ``postgresql://…`` URLs use the psycopg 3 driver.
``BOARDGAMMON_ECHO_SOCKET=1`` adds the ``/ws/echo`` WebSocket, the load benchmark's reference
(no production server needs it).
``BOARDGAMMON_ORIGINS``: the site's origins, comma-separated (``https://play.example``); a
browser's WebSocket or cookie-signed state change from any other is refused; default: the
server's own origin (the scheme and ``Host`` of each request).
``BOARDGAMMON_DATABASE_WAIT``: seconds ``boardgammon serve`` waits for the database at start-up,
retrying with back-off, before it exits saying why (default 60).
``BOARDGAMMON_LOG_KEY``: the file of the public log's Ed25519 signing key (PEM, mode 0600),
made at the first start if missing; default ``./var/log-signing-key.pem``. Keep it out of the
database and its backups' reach: whoever holds it can sign tree heads.
``BOARDGAMMON_LOG_HEAD_INTERVAL``: seconds; a request signs a new head of the public log only
if the newest one is at least this old (default 1), so heads are signed at a bounded rate
however many rolls are checked (``docs/fair-dice.md`` §The device's check).
``BOARDGAMMON_TRUSTED_PROXIES``: addresses of the reverse proxies whose ``X-Forwarded-For`` and
``X-Forwarded-Proto`` are believed, comma-separated; default none (the headers are ignored).
``BOARDGAMMON_SWITCH_INTERVAL``: seconds, the interpreter's thread switch interval that
``boardgammon serve`` sets (:func:`sys.setswitchinterval`; default 0.005, Python's own): every
SQLite statement of a write hands the GIL back to the event loop, and waits up to this long to
get it again. Shorter intervals were measured and not adopted (``docs/server.md`` §Threads and
the GIL).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

DEFAULT_DATABASE_URL = "sqlite:///./var/boardgammon.sqlite3"
DEFAULT_LOG_KEY = "./var/log-signing-key.pem"
DEFAULT_LOG_HEAD_INTERVAL = 1.0
DEFAULT_SWITCH_INTERVAL = 0.005


@dataclass(frozen=True)
class Settings:
    """Everything the app factory needs to know about its environment."""

    database_url: str = DEFAULT_DATABASE_URL
    echo_socket: bool = False
    origins: tuple[str, ...] = ()
    trusted_proxies: tuple[str, ...] = ()
    database_wait_s: float = 60.0
    log_key_path: str = DEFAULT_LOG_KEY
    log_head_interval_s: float = DEFAULT_LOG_HEAD_INTERVAL
    switch_interval_s: float = DEFAULT_SWITCH_INTERVAL

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> Settings:
        """Settings from ``BOARDGAMMON_*`` variables, defaults for those unset or empty."""
        return cls(database_url=environ.get("BOARDGAMMON_DATABASE_URL") or DEFAULT_DATABASE_URL,
                   echo_socket=environ.get("BOARDGAMMON_ECHO_SOCKET") == "1",
                   origins=_listed(environ.get("BOARDGAMMON_ORIGINS")),
                   trusted_proxies=_listed(environ.get("BOARDGAMMON_TRUSTED_PROXIES")),
                   database_wait_s=float(environ.get("BOARDGAMMON_DATABASE_WAIT") or 60.0),
                   log_key_path=environ.get("BOARDGAMMON_LOG_KEY") or DEFAULT_LOG_KEY,
                   log_head_interval_s=seconds_setting(environ, "BOARDGAMMON_LOG_HEAD_INTERVAL",
                                                DEFAULT_LOG_HEAD_INTERVAL),
                   switch_interval_s=_switch_interval(environ))


def _switch_interval(environ: Mapping[str, str]) -> float:
    """``BOARDGAMMON_SWITCH_INTERVAL``: seconds, more than 0 and at most 1.

    Raises:
        ValueError: 0, more than a second, or no number (naming the setting).
    """
    name = "BOARDGAMMON_SWITCH_INTERVAL"
    seconds = seconds_setting(environ, name, DEFAULT_SWITCH_INTERVAL)
    if not 0 < seconds <= 1:
        raise ValueError(f"{name}={environ.get(name)!r}: give seconds above 0, at most 1")
    return seconds


def _listed(value: str | None) -> tuple[str, ...]:
    """The items of a comma-separated setting, blanks dropped."""
    return tuple(item.strip() for item in (value or "").split(",") if item.strip())


def seconds_setting(environ: Mapping[str, str], name: str, default: float, low: float = 0.0,
                    high: float | None = None) -> float:
    """A setting of seconds from ``low`` to ``high`` (``None``: any finite number from
    ``low``), ``default`` when unset or empty.

    Raises:
        ValueError: the value is no number, or one outside the range (naming the setting and
            the range).
    """
    value = environ.get(name)
    if not value:
        return default
    try:
        seconds = float(value)
    except ValueError:
        seconds = float("nan")
    if not low <= seconds <= (float("inf") if high is None else high) or seconds == float("inf"):
        wanted = f", {low:g} or more" if high is None else f" from {low:g} to {high:g}"
        raise ValueError(f"{name}={value!r}: give a number of seconds{wanted}")
    return seconds
