"""A rate-limit refusal names the wait in whole seconds, rounded up, as its Retry-After does."""

import pytest

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
