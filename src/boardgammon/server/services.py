"""The app's running parts, typed, in one place (``app.state.services``): routes reach them
through :func:`services` rather than through untyped attributes of ``app.state``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from starlette.applications import Starlette

from boardgammon.server.outage import Outage
from boardgammon.server.proof_cache import ProofCache

if TYPE_CHECKING:
    from boardgammon.server.analysis_worker import AnalysisWorker
    from boardgammon.server.db import Database
    from boardgammon.server.dice_log import LogKey
    from boardgammon.server.runtime import Runtime
    from boardgammon.server.settings import Settings


@dataclass
class Services:
    """The settings, the game server, the analysis worker, the database's outage watch, the
    roll proofs built (:mod:`.proof_cache`) and, once the app has started, the database and
    the public log's signing key."""

    settings: Settings
    game: Runtime
    analysis: AnalysisWorker
    opened: Database | None = None
    outage: Outage = field(default_factory=Outage)
    opened_log_key: LogKey | None = None
    proofs: ProofCache = field(default_factory=ProofCache)

    @property
    def db(self) -> Database:
        """The database (opened and migrated at start-up).

        Raises:
            RuntimeError: the app has not started.
        """
        if self.opened is None:
            raise RuntimeError("the database is opened when the app starts")
        return self.opened

    @property
    def log_key(self) -> LogKey:
        """The public log's signing key (loaded, or made, at start-up).

        Raises:
            RuntimeError: the app has not started.
        """
        if self.opened_log_key is None:
            raise RuntimeError("the log's key is loaded when the app starts")
        return self.opened_log_key


def services(app: Starlette) -> Services:
    """The running parts of ``app`` (made by :func:`boardgammon.server.app.create_app`)."""
    found: Services = app.state.services
    return found
