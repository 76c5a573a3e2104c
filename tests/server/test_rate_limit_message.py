"""A rate-limit refusal names the wait in whole seconds, rounded up, as its Retry-After does."""

import pytest
from gameplay import REDIS, redis_or_skip

from boardgammon.server.ratelimit import RateLimiter
from boardgammon.server.refusals import RateLimited


@pytest.mark.parametrize(("wait", "seconds"), [(0.04, 1), (1.0, 1), (2.3, 3)])
def test_the_wait_is_whole_seconds_rounded_up(wait, seconds):
    refusal = RateLimited(wait, "actions")
    assert refusal.retry_after_s == seconds
    assert refusal.message == f"too many actions; try again in {seconds} s"


def test_an_empty_bucket_refuses_with_a_wait_of_at_least_a_second():
    now = [0.0]
    limit = RateLimiter(rate=10.0, burst=1, what="actions", clock=lambda: now[0])
    limit.hit("ann")
    with pytest.raises(RateLimited) as refused:
        limit.hit("ann")  # 0.1 s to the next token: was "try again in 0.1 s", then "0.0 s"
    assert refused.value.message.endswith("try again in 1 s")
    now[0] = 0.1
    limit.hit("ann")


def test_processes_with_redis_share_one_bucket():
    """Two limiters on the same Redis (as two server processes) take from one bucket: a burst
    of 3 is 3 in all, not 3 each; in memory each process would have had its own."""
    import secrets

    from boardgammon.server.ratelimit import SharedRateLimiter

    redis_or_skip()
    prefix = f"boardgammon-test:{secrets.token_hex(6)}:"
    first, second = (SharedRateLimiter(0.5, 3, "sign-in attempts", REDIS, prefix)
                     for _ in range(2))
    first.hit("ann"), second.hit("ann"), first.hit("ann")
    for limiter in (first, second):
        with pytest.raises(RateLimited) as refused:
            limiter.hit("ann")
        assert 0 < refused.value.retry_after <= 2.0  # 1 token at 0.5 per second
        assert refused.value.message == "too many sign-in attempts; try again in 2 s"
    second.hit("bob")  # another key, another bucket


def test_a_shared_limiter_without_redis_still_limits_in_its_process():
    from boardgammon.server.ratelimit import SharedRateLimiter

    limiter = SharedRateLimiter(1.0, 2, "actions", "redis://127.0.0.1:9/0")  # nothing there
    limiter.hit("ann"), limiter.hit("ann")
    with pytest.raises(RateLimited):
        limiter.hit("ann")


def test_limiter_for_picks_by_configuration():
    from boardgammon.server.ratelimit import SharedRateLimiter, limiter_for

    assert isinstance(limiter_for(None, 1.0, 1, "actions"), RateLimiter)
    assert isinstance(limiter_for(REDIS, 1.0, 1, "actions"), SharedRateLimiter)
    with pytest.raises(ValueError, match="rate > 0"):
        limiter_for(REDIS, 0.0, 1, "actions")
