"""Match clocks: a free delay window per move plus a reserve for the whole match.

Rule (Boardgammon's published rules, ``shared/reference/published-figures.md``): each time a
player must act, the first ``delay`` seconds are free (not charged, and unused delay is not
banked: this is a delay, not a Fischer increment); time beyond it comes off the player's
reserve. The reserve for the whole match is ``reserve_per_point × match length`` (a 5-point
match at 120 s per point gives 600 s each). A player whose reserve runs out loses the match.

Time is passed in as float seconds on any monotonic scale (``now``); nothing here reads a clock.

A server that could not serve for a while resumes the clocks with the delay window fresh: the
times it resumed are given as :attr:`Clock.resumes`, and a running period that spans one is
charged as two turns, the first cut at the resumption and the second starting there with a
whole delay.

A roll that waits for the other player's device (v2 dice: the opponent's link,
``docs/fair-dice.md``) is that device's time, not the roller's: :meth:`Clock.hold` stops the
running period where it is and runs the waited-for seat's reserve, without a delay window,
until :meth:`Clock.release`; the running period then goes on where it stood (the delay left at
the hold included). A hold may be charged only from a later time (``charged_from``: after a
server restart, while the devices reconnect, the wait is nobody's): before it, neither seat's
reserve runs.

>>> clock = Clock(PRESETS["rapid"], match_length=5)
>>> clock.reserve
(600.0, 600.0)
>>> clock.start_turn(0, now=100.0)
>>> clock.stop(0, now=130.0)       # 30 s used, the first 12 s free
18.0
>>> clock.reserve[0]
582.0
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from .errors import ClockError


@dataclass(frozen=True)
class TimeControl:
    """A clock setting: ``delay`` free seconds per move, ``reserve_per_point`` seconds of
    reserve per point of match length."""

    name: str
    delay: float
    reserve_per_point: float

    def __post_init__(self) -> None:
        # A NaN or infinite setting (e.g. from a JSON record) would make every flag check
        # meaningless, so only finite numbers are accepted.
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                   for v in (self.delay, self.reserve_per_point)) \
                or self.delay < 0 or self.reserve_per_point <= 0:
            raise ValueError(f"a time control needs delay >= 0 and reserve per point > 0, "
                             f"finite seconds, got {self.delay!r} and "
                             f"{self.reserve_per_point!r}")


PRESETS: dict[str, TimeControl] = {
    tc.name: tc
    for tc in (
        TimeControl("bullet", delay=5.0, reserve_per_point=30.0),
        TimeControl("blitz", delay=8.0, reserve_per_point=60.0),
        TimeControl("rapid", delay=12.0, reserve_per_point=120.0),
        TimeControl("standard", delay=15.0, reserve_per_point=180.0),
        TimeControl("slow", delay=20.0, reserve_per_point=300.0),
    )
}
"""The five presets offered, fastest first; ``rapid`` is 120 s per point."""


class Clock:
    """Both players' clocks for one match.

    Args:
        control: the time control (a :data:`PRESETS` value or your own).
        match_length: points (≥ 1); the reserve is ``control.reserve_per_point × match_length``.

    At most one clock runs at a time (``running``, since ``started_at``). ``resumes``: the
    times (same scale) at which the clocks resumed after the server could not serve, ascending;
    the caller may replace the sequence or extend it in place (empty by default).
    """

    def __init__(self, control: TimeControl, match_length: int) -> None:
        if match_length < 1:
            raise ValueError(f"a clock needs a match of 1 point or more, got {match_length}")
        self.control = control
        self._reserve = [control.reserve_per_point * match_length] * 2
        self.running: int | None = None
        self.started_at: float | None = None
        self.resumes: Sequence[float] = ()
        self.held: tuple[int, float] | None = None
        """(the seat whose device the running seat's roll waits for, since when), or ``None``
        (:meth:`hold`)."""
        self.charged_from: float | None = None
        """During a hold, when the waited-for seat's reserve starts to run if later than the
        hold's start (:meth:`hold`), else ``None``."""
        self._last = float("-inf")

    @property
    def reserve(self) -> tuple[float, float]:
        """Seconds of reserve left per seat as of the last stop (the running period not counted
        yet; see :meth:`remaining`)."""
        return self._reserve[0], self._reserve[1]

    @staticmethod
    def check_number(now: object) -> float:
        """``now`` as a float after checking it is a finite number of seconds (not NaN, not
        infinite: a record's ``Infinity`` would make a wait or a turn nobody's for ever).

        Raises:
            ClockError: otherwise.
        """
        try:
            if isinstance(now, (int, float)) and not isinstance(now, bool) \
                    and math.isfinite(now):
                return float(now)
        except OverflowError:  # an integer past a float's range
            pass
        raise ClockError(f"a time is a number of seconds, got {now!r}"[:200])

    def check_time(self, now: float) -> float:
        """``now`` as a float after checking it is a time no earlier than the last one seen.

        Raises:
            ClockError: not a number, or time went backwards.
        """
        now = self.check_number(now)
        if now < self._last:
            raise ClockError(f"time went backwards: {now} s is before {self._last} s")
        return float(now)

    def charged(self, seat: int, now: float) -> float:
        """Seconds of reserve the running period of ``seat`` would cost if stopped at ``now``
        (0 inside the delay window, 0 if ``seat``'s clock is not running).

        Raises:
            ClockError: ``now`` before the last time this clock saw.
        """
        now = self.check_time(now)
        if self.held is not None:
            waited_for, since = self.held
            if seat == waited_for:
                return max(0.0, now - self._hold_charge_start())
            now = since  # the running period stands still during the hold
        if self.running != seat or self.started_at is None:
            return 0.0
        window, before = self._window(now)
        return before + max(0.0, now - window - self.control.delay)

    def _hold_charge_start(self) -> float:
        """When the hold's charge to the waited-for seat starts (a hold is on)."""
        assert self.held is not None
        since = self.held[1]
        return since if self.charged_from is None else max(since, self.charged_from)

    def _window(self, until: float) -> tuple[float, float]:
        """(start of the running period's current delay window, seconds charged before it)
        taking the resumptions up to ``until`` into account."""
        assert self.started_at is not None
        window, before = self.started_at, 0.0
        for resumed in self.resumes:
            if window < resumed <= until:
                before += max(0.0, resumed - window - self.control.delay)
                window = resumed
        return window, before

    def remaining(self, seat: int, now: float) -> float:
        """Seconds of reserve ``seat`` has left at ``now`` (negative once it has run out)."""
        return self._reserve[seat] - self.charged(seat, now)

    def flagged(self, seat: int, now: float) -> bool:
        """Whether ``seat``'s reserve has run out at ``now`` (used more than all of it)."""
        return self.remaining(seat, now) < 0

    def out_of_time(self, now: float) -> int | None:
        """The seat whose reserve has run out at ``now`` (during a hold, the seat waited for:
        the running one stands still), or ``None``."""
        seat = self.held[0] if self.held is not None else self.running
        return seat if seat is not None and self.flagged(seat, now) else None

    def deadline(self) -> float | None:
        """The time at which the running player's reserve runs out (flags just after), or
        ``None`` when no clock runs. During a hold: when the waited-for seat's runs out."""
        if self.held is not None:
            return self._hold_charge_start() + self._reserve[self.held[0]]
        if self.running is None or self.started_at is None:
            return None
        window, before = self.started_at, 0.0
        for resumed in self.resumes:
            flags = window + self.control.delay + self._reserve[self.running] - before
            if resumed <= window:
                continue
            if flags < resumed:  # the flag fell before this resumption
                return flags
            before += max(0.0, resumed - window - self.control.delay)
            window = resumed
        return window + self.control.delay + self._reserve[self.running] - before

    def delay_left(self, now: float) -> float:
        """Free seconds left in the running player's delay window at ``now`` (0 if none runs).
        During a hold: the seconds until the waited-for seat's reserve runs (0 unless the hold
        has a later ``charged_from``, :meth:`hold`)."""
        now = self.check_time(now)
        if self.held is not None:
            return max(0.0, self._hold_charge_start() - now)
        if self.running is None or self.started_at is None:
            return 0.0
        window, _ = self._window(now)
        return max(0.0, window + self.control.delay - now)

    def start_turn(self, seat: int, now: float) -> None:
        """Start ``seat``'s clock at ``now``, with a fresh delay window.

        Raises:
            ClockError: a clock is already running, a bad seat, or time went backwards.
        """
        now = self.check_time(now)
        if seat not in (0, 1):
            raise ClockError(f"a seat is 0 or 1, got {seat!r}")
        if self.running is not None:
            raise ClockError(f"seat {self.running}'s clock is running; stop it first")
        self.running, self.started_at, self._last = seat, now, now

    def stop(self, seat: int, now: float) -> float:
        """Stop ``seat``'s clock at ``now``; returns the seconds charged to its reserve.

        The reserve may go negative: whether that loses the match is the caller's decision
        (a :class:`~boardgammon.engine.match.Match` checks :meth:`flagged` first).

        Raises:
            ClockError: ``seat``'s clock is not running, or time went backwards.
        """
        if self.held is not None:
            raise ClockError(f"the clock waits for seat {self.held[0]}'s device; release it "
                             "first")
        charged = self.charged(seat, now)
        if self.running != seat:
            raise ClockError(f"seat {seat}'s clock is not running")
        self._reserve[seat] -= charged
        self.running, self.started_at, self._last = None, None, float(now)
        return charged

    @property
    def ticking(self) -> int | None:
        """The seat whose reserve runs now: the seat waited for during a hold, else the
        running one."""
        return self.held[0] if self.held is not None else self.running

    def hold(self, seat: int, now: float, charged_from: float | None = None) -> None:
        """From ``now`` the running seat's roll waits for ``seat``'s device: the running
        period stands still and ``seat``'s reserve runs, with no delay window (the wait is not
        a move of ``seat``'s), until :meth:`release`. ``charged_from``: a later time from which
        ``seat``'s reserve runs (before it, no reserve runs: a server's restart while the
        devices reconnect); ``None`` or a time not after ``now``: from ``now``.

        Raises:
            ClockError: no clock runs, ``seat`` is the running one or not a seat, a hold is
                on already, or time went backwards.
        """
        now = self.check_time(now)
        if self.running is None:
            raise ClockError("no clock runs, so there is no roll to wait for")
        if seat not in (0, 1) or seat == self.running:
            raise ClockError(f"a hold waits for the other seat than the running seat "
                             f"{self.running}, got {seat!r}")
        if self.held is not None:
            raise ClockError(f"the clock waits for seat {self.held[0]}'s device already")
        if charged_from is not None:
            charged_from = self.check_number(charged_from)
        self.held, self._last = (seat, now), now
        self.charged_from = charged_from if charged_from is not None and charged_from > now \
            else None

    def release(self, now: float) -> float:
        """End the hold at ``now``: the seat waited for is charged every second of it (from
        ``charged_from`` if one was given), and the running period goes on where it stood.
        Where the server resumed during the hold (:attr:`resumes`), the running period is cut
        where it stood, as at any resumption: what it cost until the hold is charged now, and
        it goes on from ``now`` with a whole delay; the turns a resumption cut off before the
        hold are charged now too. Returns the seconds charged to the seat waited for.

        Raises:
            ClockError: no hold is on, or time went backwards.
        """
        now = self.check_time(now)
        if self.held is None or self.started_at is None:
            raise ClockError("the clock waits for no device")
        seat, since = self.held
        charged = max(0.0, now - self._hold_charge_start())
        self._reserve[seat] -= charged
        window, before = self._window(since)  # the cuts at resumptions before the hold
        if self.running is not None and any(since <= r <= now for r in self.resumes):
            self._reserve[self.running] -= before + max(0.0, since - window - self.control.delay)
            self.started_at = now
        else:
            # Charge the turns cut off before the hold now; the current one goes on, its start
            # moved by the wait (so that a resumption before the hold stays behind it).
            if self.running is not None:
                self._reserve[self.running] -= before
            self.started_at = window + (now - since)
        self.held, self.charged_from, self._last = None, None, now
        return charged
