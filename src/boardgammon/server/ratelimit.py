"""Token-bucket rate limits per key (a user, or an address and a username).

:class:`RateLimiter` keeps the buckets in process memory. With Redis (``BOARDGAMMON_REDIS_URL``,
the same server that fans out match events), :class:`SharedRateLimiter` keeps them in Redis, so
that several server processes behind one load balancer share each bucket: a client gets the
rate once, not once per process. If Redis cannot be reached, a process falls back to its own
buckets (logged) rather than refuse everyone or let everyone through.
:func:`limiter_for` picks one.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from boardgammon.server.refusals import RateLimited

log = logging.getLogger("boardgammon.server.ratelimit")
KEY_PREFIX = "boardgammon:rate:"

# One bucket in a Redis hash {tokens, last}, refilled and taken in one atomic step on Redis's own
# clock (so processes whose clocks differ agree). Returns -1 when a token was taken, else the
# seconds until the next one. The hash expires once a full bucket would have refilled.
_TAKE = """
local now = redis.call('TIME')
now = tonumber(now[1]) + tonumber(now[2]) / 1000000
local rate, burst = tonumber(ARGV[1]), tonumber(ARGV[2])
local saved = redis.call('HMGET', KEYS[1], 'tokens', 'last')
local tokens = tonumber(saved[1]) or burst
local last = tonumber(saved[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - last) * rate)
local wait = -1
if tokens < 1 then
  wait = (1 - tokens) / rate
else
  tokens = tokens - 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'last', tostring(now))
redis.call('EXPIRE', KEYS[1], math.ceil(burst / rate) + 1)
return tostring(wait)
"""


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


class SharedRateLimiter:
    """:class:`RateLimiter` with its buckets in Redis at ``url``, shared by every process that
    uses the same Redis and ``what``; falls back to a bucket of this process's own while Redis
    cannot be reached.

    Args:
        rate, burst, what: as for :class:`RateLimiter`.
        url: ``redis://host:port/db``.
        prefix: start of the Redis keys (tests keep theirs apart with it).
    """

    def __init__(self, rate: float, burst: int, what: str, url: str,
                 prefix: str = KEY_PREFIX) -> None:
        import redis

        self.rate, self.burst, self.what = rate, burst, what
        self.local = RateLimiter(rate, burst, what)
        self._prefix = f"{prefix}{what}:"
        self._redis = redis.Redis.from_url(url, socket_timeout=0.5, socket_connect_timeout=0.5)
        self._take = self._redis.register_script(_TAKE)
        self._errors = redis.RedisError

    def hit(self, key: str) -> None:
        """Take one token for ``key``; blocks for a round trip to Redis (call it from a worker
        thread, not the event loop).

        Raises:
            RateLimited: the bucket is empty (``retry_after`` = seconds until a token).
        """
        try:
            wait = float(self._take(keys=[self._prefix + key], args=[self.rate, self.burst]))
        except self._errors as exc:
            log.warning("rate limits on this process only: Redis is unreachable (%s)", exc)
            self.local.hit(key)
            return
        if wait >= 0:
            raise RateLimited(wait, self.what)


def limiter_for(redis_url: str | None, rate: float, burst: int, what: str
                ) -> RateLimiter | SharedRateLimiter:
    """Buckets in Redis when ``redis_url`` is set (shared by the server's processes), else in
    this process.

    Raises:
        ValueError: ``rate`` ≤ 0 or ``burst`` < 1 (as :class:`RateLimiter`).
    """
    if redis_url:
        return SharedRateLimiter(rate, burst, what, redis_url)
    return RateLimiter(rate, burst, what)
