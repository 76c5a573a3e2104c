"""The dice record as arrays: the rolls of online matches, in the order they were rolled.

A :class:`DiceRecord` holds one row per revealed roll, grouped by match and in the order of play
within each match, so that "the next roll" and "a run of doubles" are meaningful. It is built
from plain columns (:meth:`DiceRecord.from_columns`) or read from a CSV file (:func:`read_csv`);
the server's database is read by ``boardgammon.commands.stats`` into the same columns, which
keeps this package free of the server.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from .errors import InvalidDiceRecord

REQUIRED = ("die1", "die2")
OPTIONAL = ("match_id", "roll_id", "seat", "revealed_at", "entropy_source")
UNKNOWN = "unknown"
"""Label of a seat or entropy source left empty in the record."""


@dataclass(frozen=True)
class Categories:
    """A categorical column: ``codes[i]`` indexes ``labels`` (labels sorted)."""

    codes: np.ndarray
    labels: tuple[str, ...]

    @classmethod
    def encode(cls, values: Sequence[object] | np.ndarray) -> Categories:
        """Codes and sorted labels of ``values``; None and "" become :data:`UNKNOWN`."""
        if isinstance(values, np.ndarray) and values.dtype.kind in "iu" and len(values):
            low, high = int(values.min()), int(values.max())
            if high - low < 1 << 16:
                # Small integer IDs (seats, flags): a lookup table, no sort and no strings.
                present = np.flatnonzero(np.bincount(values - low))
                lookup = np.zeros(high - low + 1, dtype=np.int64)
                lookup[present] = np.arange(len(present))
                return cls(lookup[values - low], tuple(str(v + low) for v in present))
        text = np.array([UNKNOWN if v is None or v == "" else str(v) for v in values], dtype=object)
        labels, codes = np.unique(text, return_inverse=True)
        return cls(codes.astype(np.int64), tuple(labels))

    def take(self, index: np.ndarray | slice) -> Categories:
        return Categories(self.codes[index], self.labels)


@dataclass(frozen=True)
class DiceRecord:
    """Rolls of two dice in record order (grouped by match, in the order of play within one).

    Attributes:
        die1, die2: ``int8[N]``, faces 1–6 (first die, second die).
        match: ``int64[N]`` key of each roll's match, equal keys contiguous (all 0 when the
            source names no matches).
        seat: who rolled (0/1 on the server), or None when the source does not say.
        entropy_source: ``client``/``server`` per roll, or None when the source does not say.
    """

    die1: np.ndarray
    die2: np.ndarray
    match: np.ndarray
    seat: Categories | None = None
    entropy_source: Categories | None = None

    def __len__(self) -> int:
        return len(self.die1)

    @classmethod
    def from_columns(
        cls,
        die1: Sequence[int] | np.ndarray,
        die2: Sequence[int] | np.ndarray,
        match_id: Sequence[object] | np.ndarray | None = None,
        seat: Sequence[object] | np.ndarray | None = None,
        entropy_source: Sequence[object] | np.ndarray | None = None,
        order: Sequence[float] | np.ndarray | None = None,
    ) -> DiceRecord:
        """Validate and order the columns of a record.

        Rows are grouped by match (stable: the given order is kept within a match), and within
        a match sorted by ``order`` (e.g. reveal times in seconds) when given.

        Raises:
            InvalidDiceRecord: no rolls, columns of different lengths, or a die outside 1–6 (the
                message names the first offending row, counted from 1).
        """
        d1 = np.asarray(die1)
        d2 = np.asarray(die2)
        n = len(d1)
        if n == 0:
            raise InvalidDiceRecord("the dice record has no rolls")
        others = {
            "die2": d2,
            "match_id": match_id,
            "seat": seat,
            "entropy_source": entropy_source,
            "order": order,
        }
        for name, column in others.items():
            if column is not None and len(column) != n:
                raise InvalidDiceRecord(f"column {name} has {len(column)} rows, die1 has {n}")
        for name, column in (("die1", d1), ("die2", d2)):
            if not np.issubdtype(column.dtype, np.integer):
                raise InvalidDiceRecord(f"{name} must hold integers, got dtype {column.dtype}")
            bad = np.flatnonzero((column < 1) | (column > 6))
            if len(bad):
                raise InvalidDiceRecord(
                    f"row {bad[0] + 1}: {name} = {column[bad[0]]}; a die shows 1 to 6"
                )
        if match_id is None:
            match = np.zeros(n, dtype=np.int64)
        elif isinstance(match_id, np.ndarray) and match_id.dtype.kind in "iu":
            match = match_id.astype(np.int64, copy=False)
        else:
            match = Categories.encode(match_id).codes
        index: np.ndarray | slice
        if order is not None:
            index = np.lexsort([np.asarray(order, dtype=float), match])
        elif (match[1:] >= match[:-1]).all():
            index = slice(None)  # already grouped: a server export is ordered by match
        else:
            index = np.argsort(match, kind="stable")
        seat_codes = None if seat is None else Categories.encode(seat).take(index)
        sources = None if entropy_source is None else Categories.encode(entropy_source)
        return cls(
            die1=d1[index].astype(np.int8, copy=False),
            die2=d2[index].astype(np.int8, copy=False),
            match=match[index],
            seat=seat_codes,
            entropy_source=None if sources is None else sources.take(index),
        )


def parse_time(text: str) -> datetime:
    """An ISO 8601 time; a time without an offset is taken as UTC (how the server stores it).

    Raises:
        InvalidDiceRecord: not ISO 8601.
    """
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise InvalidDiceRecord(f"not an ISO 8601 time: {text!r}") from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _dice_column(path: Path, name: str, values: list[str], lines: list[int]) -> np.ndarray:
    """One die column of a CSV as ``int64``; an entry that is not a face 1-6 is an error naming
    its line in the file (``lines[i]`` is the line of ``values[i]``)."""
    try:
        column = np.array(values, dtype=np.int64)
    except (ValueError, OverflowError):
        # Slow path, only to name the line: numpy says neither which entry nor why.
        faces = []
        for at, text in zip(lines, values, strict=True):
            try:
                faces.append(int(text))
            except ValueError:
                raise InvalidDiceRecord(
                    f"{path}, line {at}: {name} = {text!r} is not a whole number"
                ) from None
        column = np.array([face if 1 <= face <= 6 else 0 for face in faces], dtype=np.int64)
    bad = np.flatnonzero((column < 1) | (column > 6))
    if len(bad):
        i = int(bad[0])
        raise InvalidDiceRecord(
            f"{path}, line {lines[i]}: {name} = {values[i]}; a die shows 1 to 6")
    return column


def read_csv(
    path: str | Path, since: datetime | None = None, until: datetime | None = None
) -> DiceRecord:
    """Read a dice record from CSV: a header with at least ``die1,die2``; optional columns
    ``match_id, roll_id, seat, revealed_at, entropy_source`` (others are ignored).

    Rows keep the file's order within each match, or are sorted by ``revealed_at`` when that
    column is present. ``since``/``until`` keep the rolls revealed in ``[since, until)`` and need
    the ``revealed_at`` column.

    Raises:
        InvalidDiceRecord: missing or unreadable file, a file that is not UTF-8 text or not CSV,
            missing columns or one named twice, a row with a die that is not a face 1-6 or a bad
            time (each naming its line in the file), a time window without ``revealed_at``, or
            no rolls left.
    """
    path = Path(path)
    try:
        # utf-8-sig: spreadsheets (Excel) start a CSV export with a byte-order mark.
        handle = path.open(newline="", encoding="utf-8-sig")
    except OSError as exc:
        raise InvalidDiceRecord(f"cannot read {path}: {exc.strerror}") from None
    line = 1
    try:
        with handle:
            reader = csv.reader(handle)
            header = [h.strip() for h in next(reader, [])]
            missing = [c for c in REQUIRED if c not in header]
            if missing:
                raise InvalidDiceRecord(
                    f"{path}: header must name {', '.join(REQUIRED)}; missing "
                    f"{', '.join(missing)} (found: {', '.join(header) or 'nothing'})"
                )
            twice = sorted({c for c in header if c in (*REQUIRED, *OPTIONAL)
                            and header.count(c) > 1})
            if twice:
                raise InvalidDiceRecord(f"{path}: the header names {', '.join(twice)} more than "
                                    "once; which column is meant?")
            wanted = [c for c in (*REQUIRED, *OPTIONAL) if c in header]
            where = [header.index(c) for c in wanted]
            columns: dict[str, list[str]] = {c: [] for c in wanted}
            lines: list[int] = []
            for line, row in enumerate(reader, start=2):
                if not row:
                    continue
                if len(row) < len(header):
                    raise InvalidDiceRecord(
                        f"{path}, line {line}: {len(row)} fields, the header has {len(header)}"
                    )
                lines.append(line)
                for name, i in zip(wanted, where, strict=True):
                    columns[name].append(row[i].strip())
    except UnicodeDecodeError as exc:
        raise InvalidDiceRecord(
            f"{path}: not UTF-8 text (a byte that is not UTF-8 after line {line}: "
            f"{exc.reason}); save the CSV as UTF-8"
        ) from None
    except csv.Error as exc:
        raise InvalidDiceRecord(f"{path}, line {line + 1}: not readable as CSV: {exc}") from None
    except OSError as exc:
        raise InvalidDiceRecord(f"cannot read {path}: {exc.strerror}") from None
    dice = {name: _dice_column(path, name, columns[name], lines) for name in REQUIRED}
    order = None
    keep = None
    if "revealed_at" in columns:
        times = []
        for at, text in zip(lines, columns["revealed_at"], strict=True):
            try:
                times.append(parse_time(text).timestamp())
            except InvalidDiceRecord as exc:
                raise InvalidDiceRecord(f"{path}, line {at}: {exc}") from None
        order = np.array(times)
        keep = np.ones(len(order), dtype=bool)
        if since is not None:
            keep &= order >= since.timestamp()
        if until is not None:
            keep &= order < until.timestamp()
    elif since is not None or until is not None:
        raise InvalidDiceRecord(
            f"{path} has no revealed_at column, so --since/--until cannot apply")

    def column(name: str) -> list[str] | np.ndarray | None:
        if name not in columns:
            return None
        values = np.array(columns[name], dtype=object)
        return values if keep is None else values[keep]

    d1, d2 = dice["die1"], dice["die2"]
    if keep is not None and order is not None:  # set together, from revealed_at
        d1, d2, order = d1[keep], d2[keep], order[keep]
    return DiceRecord.from_columns(
        d1,
        d2,
        match_id=column("match_id"),
        seat=column("seat"),
        entropy_source=column("entropy_source"),
        order=order,
    )
