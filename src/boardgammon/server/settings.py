"""Server settings, read from the environment.

``BOARDGAMMON_DATABASE_URL``: an SQLAlchemy URL; default SQLite at ``./var/boardgammon.sqlite3``
(relative to the working directory). ``postgresql://…`` URLs use the psycopg 3 driver.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

DEFAULT_DATABASE_URL = "sqlite:///./var/boardgammon.sqlite3"


@dataclass(frozen=True)
class Settings:
    """Everything the app factory needs to know about its environment."""

    database_url: str = DEFAULT_DATABASE_URL

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> Settings:
        """Settings from ``BOARDGAMMON_*`` variables, defaults for those unset or empty."""
        return cls(database_url=environ.get("BOARDGAMMON_DATABASE_URL") or DEFAULT_DATABASE_URL)
