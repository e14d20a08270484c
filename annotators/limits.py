"""Requests and tokens per minute to one endpoint, counted in windows of a minute (pure: no Django).

``acquire(tokens)`` counts one more request and ``tokens`` more tokens in the current minute's
window; when that passes a limit it takes them back and waits for the next window. A request
larger than the token limit on its own goes through in an empty window rather than never. The
counts live in a ``Counter``: this process's memory (``LocalCounter``), or a store every worker
shares (``annotators.shared_limits.CacheCounter``, on the Django cache: Redis in production), so
that the limits hold for the endpoint whatever the number of workers. The server's own 429s are
handled by the client's retries with backoff.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Protocol

WINDOW = 60


class Counter(Protocol):
    def add(self, window: int, requests: int, tokens: int) -> tuple[int, int]:
        """Add to a window's counts; the window's totals after the addition."""

    def undo(self, window: int, requests: int, tokens: int) -> None:
        """Take back what ``add`` added."""


class LocalCounter:
    """The counts in this process's memory (its threads share them)."""

    def __init__(self) -> None:
        self.counts: dict[int, list[int]] = defaultdict(lambda: [0, 0])
        self.lock = threading.Lock()

    def add(self, window: int, requests: int, tokens: int) -> tuple[int, int]:
        with self.lock:
            for old in [w for w in self.counts if w < window]:
                del self.counts[old]
            counts = self.counts[window]
            counts[0] += requests
            counts[1] += tokens
            return counts[0], counts[1]

    def undo(self, window: int, requests: int, tokens: int) -> None:
        with self.lock:
            counts = self.counts[window]
            counts[0] -= requests
            counts[1] -= tokens


class RateLimiter:
    def __init__(
        self,
        requests_per_minute: float | None = None,
        tokens_per_minute: float | None = None,
        counter: Counter | None = None,
        clock: Callable[[], float] | None = None,
        sleep: Callable[[float], None] | None = None,
    ) -> None:
        self.requests_per_minute = requests_per_minute or None
        self.tokens_per_minute = tokens_per_minute or None
        self.counter = counter or LocalCounter()
        self.clock, self.sleep = clock or time.time, sleep or time.sleep
        self.waited = 0.0  # seconds spent waiting, for the job's accounting

    def acquire(self, tokens: int = 0) -> None:
        """Block until the request fits in a minute's window under both limits, then count it there."""
        if not self.requests_per_minute and not self.tokens_per_minute:
            return
        while True:
            now = self.clock()
            window = int(now // WINDOW)
            requests, used = self.counter.add(window, 1, tokens)
            over_requests = self.requests_per_minute and requests > self.requests_per_minute
            over_tokens = self.tokens_per_minute and used > self.tokens_per_minute and used != tokens
            if not over_requests and not over_tokens:
                return
            self.counter.undo(window, 1, tokens)
            wait = (window + 1) * WINDOW - now
            self.waited += wait
            self.sleep(wait)
