"""A job's settings are checked key by key; rate limits wait exactly as long as the window needs."""

import pytest

from annotators.config import DEFAULTS, resolve, sample_seed
from annotators.limits import RateLimiter
from annotators.shared_limits import CacheCounter


def test_settings_resolve_over_the_defaults_and_refuse_what_is_wrong_naming_it():
    assert resolve() == DEFAULTS
    assert resolve({"temperature": 0.7}, {"seed": 3})["temperature"] == 0.7
    assert sample_seed(resolve({"seed": 3}), 2) == 4
    for bad, message in [
        ({"temprature": 1}, "unknown setting 'temprature'"),
        ({"temperature": 3}, "temperature: 3 is outside 0.0-2.0"),
        ({"seed": 1.5}, "seed: 1.5 is not a whole number"),
        ({"structured": "yes"}, "structured: 'yes' is not true or false"),
        ({"max_attempts": 0}, "max_attempts: 0 is outside 1-10"),
    ]:
        with pytest.raises(ValueError, match=message):
            resolve(bad)


class Clock:
    def __init__(self):
        self.now, self.slept = 0.0, []

    def __call__(self):
        return self.now

    def sleep(self, seconds):
        self.slept.append(seconds)
        self.now += seconds


def test_requests_per_minute_wait_for_the_oldest_to_leave_the_window():
    clock = Clock()
    limiter = RateLimiter(requests_per_minute=2, clock=clock, sleep=clock.sleep)
    limiter.acquire()
    clock.now = 10.0
    limiter.acquire()
    clock.now = 20.0
    limiter.acquire()  # the third within a minute waits until the first is 60 s old
    assert clock.slept == [pytest.approx(40.0)] and clock.now == pytest.approx(60.0)
    assert limiter.waited == pytest.approx(40.0)


def test_tokens_per_minute_wait_until_enough_tokens_have_left_the_window():
    clock = Clock()
    limiter = RateLimiter(tokens_per_minute=1000, clock=clock, sleep=clock.sleep)
    limiter.acquire(600)
    clock.now = 5.0
    limiter.acquire(300)
    clock.now = 6.0
    limiter.acquire(300)  # 1200 > 1000: wait until the first 600 leave (t = 60)
    assert clock.now == pytest.approx(60.0)
    limiter.acquire(100)  # 300 + 300 + 100 fits
    assert clock.now == pytest.approx(60.0)


def test_no_limits_never_wait():
    clock = Clock()
    limiter = RateLimiter(clock=clock, sleep=clock.sleep)
    for _ in range(1000):
        limiter.acquire(10_000)
    assert clock.slept == []


def test_a_request_larger_than_the_token_limit_goes_through_in_an_empty_window():
    clock = Clock()
    limiter = RateLimiter(tokens_per_minute=100, clock=clock, sleep=clock.sleep)
    limiter.acquire(500)
    assert clock.slept == []
    limiter.acquire(10)  # the window is over its limit: the next minute
    assert clock.now == pytest.approx(60.0)


@pytest.mark.django_db
def test_workers_reaching_one_endpoint_share_its_limits_through_the_cache():
    from django.core.cache import caches

    caches["default"].clear()
    clock = Clock()
    one, two = (RateLimiter(3, counter=CacheCounter("http://h/v1 m"), clock=clock, sleep=clock.sleep) for _ in range(2))
    other = RateLimiter(3, counter=CacheCounter("http://h/v1 another-model"), clock=clock, sleep=clock.sleep)
    one.acquire(), two.acquire(), one.acquire()
    for _ in range(3):
        other.acquire()  # another endpoint counts apart
    assert clock.slept == []
    two.acquire()  # the endpoint's fourth request this minute, from the other worker: the next window
    assert clock.slept == [pytest.approx(60.0)]
