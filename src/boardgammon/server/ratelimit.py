"""Token-bucket rate limits per key (a user, or an address and a username), in process memory.

Each server process limits on its own; behind a load balancer with N processes a client gets at
most N times the rate, which still stops password guessing and action floods.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from boardgammon.server.refusals import RateLimited


class RateLimiter:
    """Allow ``burst`` requests at once per key, refilled at ``rate`` per second.

    Args:
        rate: tokens per second (> 0).
        burst: bucket size (≥ 1).
        what: plural noun for the error message, e.g. ``"login attempts"``.
        clock: monotonic seconds (injected in tests).
    """

    MAX_KEYS = 100_000  # forget idle buckets beyond this many keys

    def __init__(self, rate: float, burst: int, what: str,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError(f"a rate limit needs rate > 0 and burst >= 1, got {rate}, {burst}")
        self.rate, self.burst, self.what, self.clock = rate, burst, what, clock
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def hit(self, key: str) -> None:
        """Take one token for ``key``.

        Raises:
            RateLimited: the bucket is empty (``retry_after`` = seconds until a token).
        """
        now = self.clock()
        with self._lock:
            tokens, last = self._buckets.get(key, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - last) * self.rate)
            if tokens < 1.0:
                self._buckets[key] = (tokens, now)
                raise RateLimited((1.0 - tokens) / self.rate, self.what)
            if len(self._buckets) >= self.MAX_KEYS and key not in self._buckets:
                self._buckets.clear()
            self._buckets[key] = (tokens - 1.0, now)
