"""The dice record's statistics: the revealed rolls of both dice protocols read from the database
(:func:`read_database`, what ``boardgammon stats dice-report`` reports on) and, for the public
page ``/dice-record``, that report kept for a day (:class:`ReportCache`) or until an operator
asks for it to be made again (:func:`request_refresh`, ``boardgammon stats refresh-record``).

The server's modules pull in FastAPI and Alembic, and the report scipy: each is imported only
when the database is read or a report is made, so the CLI starts quickly.
"""

from __future__ import annotations

import tempfile
import threading
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from boardgammon.stats.errors import InvalidDiceRecord
from boardgammon.stats.record import DiceRecord

if TYPE_CHECKING:
    from sqlalchemy import ColumnElement, Subquery
    from sqlalchemy.orm import Session

    from boardgammon.server.tables import DiceRoll, DiceRollV2
    from boardgammon.stats.plot import PlotWords

REVEALED = ("revealed", "played")
"""Roll states whose dice are public; committed, requested (v2) and void rolls have none."""


def revealed(roll: type[DiceRoll] | type[DiceRollV2]) -> ColumnElement[bool]:
    """The condition that a row of either dice record (``DiceRoll``, table ``dice_rolls``, or
    ``DiceRollV2``, table ``dice_rolls_v2``) is a revealed roll: its state is one of
    :data:`REVEALED` and it has its dice. A void roll is never revealed and never counts."""
    from sqlalchemy import and_

    return and_(roll.state.in_(REVEALED), roll.die1.is_not(None))


def revealed_rolls(since: datetime | None = None, until: datetime | None = None) -> Subquery:
    """Every revealed roll of both dice protocols (tables ``dice_rolls`` and
    ``dice_rolls_v2``) as one subquery, columns ``match_id``, ``seq``, ``seat``, ``die1``,
    ``die2``, ``entropy_source`` and ``revealed_at``; ``since``/``until`` bound
    ``revealed_at`` to ``[since, until)``.

    Every roll counts, both sides': a v2 record's opening rolls too (one die each, as in the
    v1 record, which does not mark them), under the seat that rolled them (whose device gave
    the roller's entropy), and the computer's rolls. A v2 roll's ``entropy_source`` is its
    ``roller_source``: ``client`` where the roller's device gave its entropy, ``server`` for the
    computer's rolls, as v1's ``entropy_source``."""
    from sqlalchemy import select, union_all

    from boardgammon.server.tables import DiceRoll, DiceRollV2

    parts = []
    for roll, source in ((DiceRoll, DiceRoll.entropy_source),
                         (DiceRollV2, DiceRollV2.roller_source)):
        part = select(
            roll.match_id, roll.seq, roll.seat, roll.die1, roll.die2,
            source.label("entropy_source"), roll.revealed_at,
        ).where(revealed(roll))
        if since is not None:
            part = part.where(roll.revealed_at >= since)
        if until is not None:
            part = part.where(roll.revealed_at < until)
        parts.append(part)
    return union_all(*parts).subquery("revealed_rolls")


def read_database(
    url: str, since: datetime | None = None, until: datetime | None = None
) -> DiceRecord:
    """The revealed rolls of the server's dice record (:func:`revealed_rolls`: both protocols,
    tables ``dice_rolls`` and ``dice_rolls_v2``), in the order of play (match, then ``seq``);
    ``since``/``until`` bound ``revealed_at`` to ``[since, until)``.

    Raises:
        InvalidDiceRecord: a malformed URL or one naming no installed driver, an SQLite file that
            does not exist, a database without the dice record, or no revealed rolls in the
            window.
    """
    # The server's modules pull in FastAPI and Alembic: only import them when the database is read.
    from sqlalchemy import select
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError, SQLAlchemyError

    from boardgammon.server.db import create_db_engine

    try:
        parsed = make_url(url)
    except ArgumentError as error:
        raise InvalidDiceRecord(f"cannot read the dice record: {error}: {url!r}") from None
    # SQLite would create an empty file on connect; a missing record is an error, not a report.
    if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
        if not Path(parsed.database).exists():
            raise InvalidDiceRecord(
                f"no dice record at {parsed.database}; pass --csv FILE or set "
                "BOARDGAMMON_DATABASE_URL"
            )
    rolls = revealed_rolls(since, until)
    query = select(
        rolls.c.match_id, rolls.c.seat, rolls.c.die1, rolls.c.die2, rolls.c.entropy_source
    ).order_by(rolls.c.match_id, rolls.c.seq)
    try:
        engine = create_db_engine(url)
    except (ValueError, ArgumentError) as error:
        # ArgumentError includes NoSuchModuleError: a URL naming no installed database driver.
        raise InvalidDiceRecord(f"cannot read the dice record: {error}") from None
    try:
        with engine.connect() as connection:
            rows = connection.execute(query).all()
    except SQLAlchemyError as error:
        raise InvalidDiceRecord(
            f"cannot read the dice record from {parsed!r}: "
            f"{type(error).__name__}: {getattr(error, 'orig', None) or error}"
        ) from None
    finally:
        engine.dispose()
    if not rows:
        raise InvalidDiceRecord(
            f"no revealed rolls in the dice record at {parsed!r} for this window")
    match_id, seat, die1, die2, source = zip(*rows, strict=True)
    return DiceRecord.from_columns(
        list(die1), list(die2), match_id=match_id, seat=seat, entropy_source=source
    )


MAX_AGE = timedelta(days=1)
"""The public report is made again at most this often, unless an operator asks."""


def request_refresh(url: str, now: datetime) -> None:
    """Ask every server process on the database at ``url`` to make its dice record report
    again at its next request (the time ``now`` is stored; each process remakes its report
    once per stored value, whatever its own clock says).

    Raises:
        InvalidDiceRecord: a malformed URL, an SQLite file that does not exist, or a database
            that the server has not yet brought to the schema with this request's table.
    """
    from sqlalchemy import delete, insert
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError, SQLAlchemyError

    from boardgammon.server.db import create_db_engine
    from boardgammon.server.tables import DiceReportRequest

    try:
        parsed = make_url(url)
    except ArgumentError as error:
        raise InvalidDiceRecord(f"cannot reach the dice record: {error}: {url!r}") from None
    if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
        if not Path(parsed.database).exists():
            raise InvalidDiceRecord(f"no server database at {parsed.database}; "
                                "set BOARDGAMMON_DATABASE_URL to the server's")
    try:
        engine = create_db_engine(url)
    except (ValueError, ArgumentError) as error:
        raise InvalidDiceRecord(f"cannot reach the dice record: {error}") from None
    try:
        # Delete and insert in one transaction: the same statements on SQLite and PostgreSQL.
        with engine.begin() as connection:
            connection.execute(delete(DiceReportRequest))
            connection.execute(insert(DiceReportRequest).values(id=1, requested_at=now))
    except SQLAlchemyError as error:
        raise InvalidDiceRecord(
            f"cannot ask for a new report in {parsed!r} (has `boardgammon serve` brought it "
            f"to the newest schema?): {type(error).__name__}: "
            f"{getattr(error, 'orig', None) or error}"
        ) from None
    finally:
        engine.dispose()


def requested_refresh(session: Session) -> datetime | None:
    """When an operator last asked for a new report (:func:`request_refresh`), or ``None``."""
    from sqlalchemy import select

    from boardgammon.server.tables import DiceReportRequest

    return session.execute(select(DiceReportRequest.requested_at)).scalar()


@dataclass(frozen=True)
class Snapshot:
    """One report over the record: ``report`` as :func:`boardgammon.stats.dice_report` makes
    it with ``summary`` added (the JSON of ``boardgammon stats dice-report --json``), the
    first and last reveal times it covers, when it was made, and its plot as PNG bytes in each
    language of the site (``plots["de"]``, labelled and numbered as the page around it)."""

    report: dict
    first: datetime | None  # None only for rolls recorded without a reveal time
    last: datetime | None
    made_at: datetime
    plots: dict[str, bytes]
    requested: datetime | None = None  # the operator's request it was made under


def plot_words(language: str) -> PlotWords:
    """The picture's words in ``language`` (a key of :data:`boardgammon.server.i18n.LANGUAGES`):
    the ``record.picture.*`` texts, numbers grouped as the page groups them."""
    from boardgammon.server.i18n import translator
    from boardgammon.server.numerals import NUMERALS
    from boardgammon.stats.plot import PlotWords

    t = translator(language)
    fields = ("cells", "second_die", "first_die", "colour_bar", "faces", "face", "percent",
              "share", "fair")
    return PlotWords(**{f: t(f"record.picture.{f}") for f in fields},
                     number=NUMERALS[language].integer,
                     decimal_mark=NUMERALS[language].decimal_mark)


class ReportCache:
    """The report over every revealed roll in the database at ``url``, made again when older
    than :data:`MAX_AGE` or when an operator has asked since; ``None`` while the record has no
    revealed roll. Safe to share between request threads: one report is made at a time."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._lock = threading.Lock()
        self._snapshot: Snapshot | None = None

    def get(self, now: datetime, requested: datetime | None = None) -> Snapshot | None:
        """The current report, made first if there is none, it is older than a day, or it was
        made under another operator's request than ``requested`` (:func:`requested_refresh`).
        An empty record is read again at every call."""
        with self._lock:
            snapshot = self._snapshot
            if (snapshot is None or now - snapshot.made_at >= MAX_AGE
                    or snapshot.requested != requested):
                self._snapshot = self._make(now, requested)
            return self._snapshot

    def _make(self, now: datetime, requested: datetime | None) -> Snapshot | None:
        from sqlalchemy import func, select

        from boardgammon.server.db import create_db_engine
        from boardgammon.stats.plot import plot_report
        from boardgammon.stats.report import dice_report, summary

        try:
            record = read_database(self.url)
        except InvalidDiceRecord:
            return None
        rolls = revealed_rolls()
        engine = create_db_engine(self.url)
        try:
            with engine.connect() as connection:
                first, last = connection.execute(
                    select(func.min(rolls.c.revealed_at), func.max(rolls.c.revealed_at))
                ).one()
        finally:
            engine.dispose()
        report = dice_report(record)
        report["summary"] = summary(report)
        from boardgammon.server.i18n import LANGUAGES

        plots = {}
        with tempfile.TemporaryDirectory() as folder:
            for language in LANGUAGES:
                path = Path(folder) / f"dice-record-{language}.png"
                plots[language] = plot_report(report, path, plot_words(language)).read_bytes()
        return Snapshot(report, first, last, now, plots, requested)


@cache
def report_cache(url: str) -> ReportCache:
    """The one :class:`ReportCache` of the database at ``url`` in this process."""
    return ReportCache(url)
