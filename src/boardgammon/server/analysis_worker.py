"""Match analysis on the server: a background worker that analyses every finished match, its
table (``match_analyses`` in :mod:`.tables`, migration ``0003_match_analysis``) and
``GET /api/matches/{match_id}/analysis``.

The worker looks for finished matches without an analysis every ``poll_s`` seconds, claims one
by inserting its ``pending`` row (the primary key makes the claim unique across server
processes), analyses it in a worker thread (:func:`boardgammon.analysis.analysis.analyse_match`
at ``plies``, the neural evaluator) and stores the result as JSON with status ``done`` (or
``failed`` with the reason, so that a record that cannot be analysed is not retried forever).
A claim older than ``stale_s`` whose worker died is taken over. Each row records the
:data:`~boardgammon.analysis.analysis.ANALYSIS_VERSION` that made it (migration
``0006_analysis_version``); once every new match is analysed, the worker analyses matches with
an older version again, one at a time (the endpoint says ``pending`` meanwhile).

**Two passes.** A finished match is analysed at ``plies`` (0: well under a second) at once;
when no match waits for that, the worker analyses the ones done at a shallower depth again at
``deep_plies`` (2 by default: about 10–25 s a 7-point match, docs/server.md) and replaces the
result, so that the deeper analysis reaches every match the worker can afford. Meanwhile the
endpoint keeps serving the shallow result (``plies`` and ``judge`` say which). The deep claim
is the row's ``claimed_t`` (a done row not held by any worker has ``claimed_t`` 0). A deep pass
that fails keeps the shallow result and logs why; its reason goes in the row's ``error`` (the
row stays ``done``, the endpoint's ``deeper`` turns null) and the match is tried again only
after ``deep_retry_s`` (a day): a failure of the model or of the record fails each time, at the
deep pass's cost, while one that passes (a missing file put back, a fixed deploy) heals within
the day. A pass cut by an outage (the database unreachable), or by a worker that died, is tried
again once its claim runs out after ``stale_s``. At once: ``UPDATE match_analyses SET
claimed_t = 0 WHERE status = 'done' AND error IS NOT NULL``.
``BOARDGAMMON_ANALYSIS_DEEP_PLIES`` sets the depth, ``off`` (or a depth not deeper than
``BOARDGAMMON_ANALYSIS_PLIES``) switches the second pass off.

The endpoint's response is documented in ``docs/api.md`` ("Match analysis").
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, FastAPI, Request
from sqlalchemy import and_, or_, select, update
from sqlalchemy.exc import IntegrityError

from boardgammon.server.bodies import MatchId
from boardgammon.server.db import rowcount
from boardgammon.server.errors import responses
from boardgammon.server.match_repository import status_of, unanalysed_ids
from boardgammon.server.outage import is_outage
from boardgammon.server.refusals import ErrorCode, NotFound, StateConflict
from boardgammon.server.services import services
from boardgammon.server.tables import MatchAnalysisRow, MatchRow

log = logging.getLogger("boardgammon.server.analysis")

router = APIRouter(tags=["analysis"])


class AnalysisWorker:
    """Analyses finished matches of ``app`` (its database and match service).

    Args:
        plies: depth of the first analysis (0–2).
        deep_plies: depth of the second pass that replaces it, ``None`` for none.
        poll_s: seconds between looks for new finished matches.
        stale_s: a pending claim older than this is taken over (its worker died).
        deep_retry_s: seconds before a failed deep pass is tried again.
        evaluator: the model (default: the shipped network, loaded on first use).
    """

    def __init__(self, app: FastAPI, plies: int = 0, poll_s: float = 2.0,
                 stale_s: float = 600.0, evaluator: Any = None,
                 deep_plies: int | None = None, deep_retry_s: float = 86400.0) -> None:
        self.app, self.plies, self.poll_s, self.stale_s = app, plies, poll_s, stale_s
        self.evaluator = evaluator
        self.deep_plies = deep_plies if deep_plies is not None and deep_plies > plies else None
        self.deep_retry_s = deep_retry_s

    def _claim(self) -> str | None:
        """Claim one finished match: first one without analysis (a new pending row), else one
        whose claim is stale or whose analysis is of an older version (its row turned pending
        by an update that only one worker can make). Its ID or None."""
        from boardgammon.analysis.analysis import ANALYSIS_VERSION

        db = services(self.app).db
        now = time.time()
        with db.sessions() as s:
            new = unanalysed_ids(s, 5)
            for match_id in new:
                try:
                    s.add(MatchAnalysisRow(match_id=match_id, status="pending",
                                           plies=self.plies, claimed_t=now,
                                           updated_at=datetime.now(UTC),
                                           version=ANALYSIS_VERSION))
                    s.commit()
                    return match_id
                except IntegrityError:  # another worker claimed it first
                    s.rollback()
            redo = s.execute(select(MatchAnalysisRow.match_id, MatchAnalysisRow.claimed_t).where(
                or_(and_(MatchAnalysisRow.status == "pending",
                         MatchAnalysisRow.claimed_t <= now - self.stale_s),
                    and_(MatchAnalysisRow.status != "pending",
                         MatchAnalysisRow.version < ANALYSIS_VERSION)))
                .order_by(MatchAnalysisRow.claimed_t).limit(5)).all()
            for match_id, claimed_t in redo:
                taken = s.execute(update(MatchAnalysisRow).where(
                    MatchAnalysisRow.match_id == match_id,
                    MatchAnalysisRow.claimed_t == claimed_t).values(
                    status="pending", claimed_t=now, plies=self.plies,
                    version=ANALYSIS_VERSION, updated_at=datetime.now(UTC)))
                s.commit()
                if rowcount(taken) == 1:
                    return match_id
        return None

    def _claim_deep(self) -> str | None:
        """Claim one match analysed at a shallower depth than ``deep_plies`` (its row stays
        ``done``, so the endpoint keeps serving it): its ID or None."""
        from boardgammon.analysis.analysis import ANALYSIS_VERSION

        if self.deep_plies is None:
            return None
        now = time.time()
        with services(self.app).db.sessions() as s:
            shallow = s.execute(select(MatchAnalysisRow.match_id, MatchAnalysisRow.claimed_t)
                                .where(MatchAnalysisRow.status == "done",
                                       MatchAnalysisRow.plies < self.deep_plies,
                                       MatchAnalysisRow.version == ANALYSIS_VERSION,
                                       MatchAnalysisRow.claimed_t <= now - self.stale_s)
                                .order_by(MatchAnalysisRow.updated_at).limit(5)).all()
            for match_id, claimed_t in shallow:
                taken = s.execute(update(MatchAnalysisRow).where(
                    MatchAnalysisRow.match_id == match_id,
                    MatchAnalysisRow.claimed_t == claimed_t).values(claimed_t=now))
                s.commit()
                if rowcount(taken) == 1:
                    return match_id
        return None

    def _result(self, match_id: str, plies: int) -> str:
        """The analysis of ``match_id`` at ``plies`` as stored JSON."""
        from boardgammon.analysis.analysis import analyse_match
        from boardgammon.analysis.report import to_dict

        info, match = services(self.app).game.service.match_copy(match_id)
        # The shipped network judges (evaluator None) unless a test gave its own; the seats'
        # levels let the analysis flag a bot judged by its own engine.
        analysis = analyse_match(match, self.evaluator, plies,
                                 engines=(info.seats[0].bot, info.seats[1].bot))
        return json.dumps(to_dict(analysis, moves=True))

    def _analyse(self, match_id: str) -> None:
        status, result, error = "done", None, None
        try:
            result = self._result(match_id, self.plies)
        except Exception as exc:  # any failure is stored, so the match is not retried forever
            log.exception("analysis of %s failed", match_id)
            status, error = "failed", f"{type(exc).__name__}: {exc}"
        self._store(match_id, status=status, result=result, error=error)

    def _deepen(self, match_id: str) -> None:
        """Replace the shallow analysis of ``match_id`` by one at ``deep_plies``."""
        if self.deep_plies is None:
            raise RuntimeError("the worker has no deep pass")
        try:
            result = self._result(match_id, self.deep_plies)
        except Exception as exc:  # the shallow result stays
            log.exception("the %d-ply analysis of %s failed", self.deep_plies, match_id)
            if not is_outage(exc):  # else the claim runs out after stale_s and it is tried again
                self._store(match_id, error=f"the {self.deep_plies}-ply pass failed: "
                                            f"{type(exc).__name__}: {exc}",
                            claimed_t=time.time() + self.deep_retry_s - self.stale_s)
            return
        self._store(match_id, status="done", result=result, error=None, plies=self.deep_plies)

    def _store(self, match_id: str, **values: Any) -> None:
        """Write a finished pass into the row and release the claim (``claimed_t`` 0 unless
        ``values`` set it)."""
        with services(self.app).db.sessions() as s:
            row = s.get(MatchAnalysisRow, match_id)
            if row is None:
                raise RuntimeError(f"the analysis row of match {match_id!r} is gone")
            row.claimed_t = 0.0
            for key, value in values.items():
                setattr(row, key, value)
            row.updated_at = datetime.now(UTC)
            s.commit()

    def step(self) -> str | None:
        """Analyse one finished match (blocking): first one without an analysis of this
        version, else one to analyse again at ``deep_plies``; its ID or None."""
        match_id = self._claim()
        if match_id is not None:
            self._analyse(match_id)
            return match_id
        match_id = self._claim_deep()
        if match_id is not None:
            self._deepen(match_id)
        return match_id

    async def loop(self) -> None:
        """Run :meth:`step` in a thread, forever: at once while there is work, else every
        ``poll_s`` seconds."""
        while True:
            try:
                found = await asyncio.to_thread(self.step)
            except Exception as exc:
                if not is_outage(exc):  # an outage is logged once, by the outage watch
                    log.exception("analysis worker step failed")
                found = None
            if found is None:
                await asyncio.sleep(self.poll_s)


def install(app: FastAPI) -> AnalysisWorker:
    """Add the analysis endpoint to ``app``; returns its worker. The depths come from
    ``BOARDGAMMON_ANALYSIS_PLIES`` (default 0) and ``BOARDGAMMON_ANALYSIS_DEEP_PLIES``
    (default 2; ``off`` for no second pass)."""
    app.include_router(router)
    deep = os.environ.get("BOARDGAMMON_ANALYSIS_DEEP_PLIES", "2").strip().lower()
    return AnalysisWorker(app, plies=int(os.environ.get("BOARDGAMMON_ANALYSIS_PLIES", "0")),
                          deep_plies=None if deep == "off" else int(deep))


@contextlib.asynccontextmanager
async def running(app: FastAPI) -> AsyncIterator[None]:
    """Run the worker's loop while the app runs (not when the game server's background loop is
    off, as in tests, which call :meth:`AnalysisWorker.step`)."""
    parts = services(app)
    task = None
    if parts.game.config.background:
        task = asyncio.create_task(parts.analysis.loop())
    try:
        yield
    finally:
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


@router.get("/api/matches/{match_id}/analysis", responses=responses(404, 409))
def match_analysis(match_id: Annotated[str, MatchId], request: Request) -> dict[str, Any]:
    """The analysis of a finished match: ``{"status": "pending"}`` until the worker is done,
    then ``{"status": "done", ...}`` with the summary and every decision, and ``deeper``: the
    depth of the worker's second pass while it is still to replace this result, else ``None``
    (``docs/api.md``).

    Raises:
        NotFound: ``not_found`` (no such match); StateConflict: ``match_not_finished``, or
            ``match_aborted`` (a first move was not made in time: nothing to analyse).
    """
    parts = services(request.app)
    with parts.db.sessions() as s:
        status = status_of(s, match_id)
        if status is None:
            raise NotFound(f"no match {match_id!r}")
        if status != "finished":
            raise StateConflict("the match is still being played; it is analysed once it is "
                                "over", ErrorCode.MATCH_NOT_FINISHED)
        if s.scalar(select(MatchRow.winner).where(MatchRow.id == match_id)) is None:
            raise StateConflict("the match was aborted (a first move was not made in time): "
                                "there is nothing to analyse", ErrorCode.MATCH_ABORTED)
        row = s.get(MatchAnalysisRow, match_id)
    if row is None or row.status == "pending":
        return {"status": "pending"}
    if row.status == "failed":
        return {"status": "failed", "error": row.error}
    if row.result is None:
        raise RuntimeError(f"the analysis of match {match_id!r} is done but has no result")
    deep = parts.analysis.deep_plies
    return {"status": "done", **json.loads(row.result),
            "deeper": deep if deep is not None and row.plies < deep and row.error is None
            else None}
