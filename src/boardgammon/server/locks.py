"""Every per-match lock of a server process, in one place.

Three kinds, each for its own reason, all kept only while someone holds or waits for them
(weak tables: they grew by one lock per match ever touched, for the life of the process):

- :meth:`MatchLocks.thread`: a re-entrant thread lock around everything that touches a
  match's replayed :class:`~boardgammon.engine.match.Match` (worker threads run the service).
- :meth:`MatchLocks.calls`: an asyncio lock around one service call for a match and the
  publishing of its events, so events leave in commit order.
- :meth:`MatchLocks.delivery`: an asyncio lock around joining a match's WebSocket hub and
  delivering to it, so a connection's states only ever move forward. It is apart from
  ``calls`` because delivery runs inside a publish, which holds ``calls``.
"""

from __future__ import annotations

import asyncio
import threading
import weakref


class MatchLocks:
    """The per-match locks of one process (see the module docstring)."""

    def __init__(self) -> None:
        self._threads: weakref.WeakValueDictionary[str, threading.RLock] = (
            weakref.WeakValueDictionary())
        self._calls: weakref.WeakValueDictionary[str, asyncio.Lock] = (
            weakref.WeakValueDictionary())
        self._deliveries: weakref.WeakValueDictionary[str, asyncio.Lock] = (
            weakref.WeakValueDictionary())
        self._guard = threading.Lock()

    def __len__(self) -> int:
        """How many locks are held or waited for now, of all kinds."""
        return len(self._threads) + len(self._calls) + len(self._deliveries)

    def thread(self, match_id: str) -> threading.RLock:
        """The thread lock of a match (any thread)."""
        with self._guard:
            return self._threads.setdefault(match_id, threading.RLock())

    def calls(self, match_id: str) -> asyncio.Lock:
        """The lock of a match's service calls (the event loop's thread only)."""
        return self._calls.setdefault(match_id, asyncio.Lock())

    def delivery(self, match_id: str) -> asyncio.Lock:
        """The lock of a match's WebSocket deliveries (the event loop's thread only)."""
        return self._deliveries.setdefault(match_id, asyncio.Lock())
