"""Requests and tokens per minute to one endpoint, shared by a worker's threads (pure: no Django).

A sliding window of the last 60 seconds: ``acquire(tokens)`` waits until one more request, and
``tokens`` more tokens, fit under the limits, then counts them. A request larger than the token
limit on its own waits for an empty window rather than forever. The limits are per worker process
(the docs say how to divide an endpoint's limit among workers); the server's own 429s are handled
by the client's retries with backoff.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable

WINDOW = 60.0


class RateLimiter:
    def __init__(
        self,
        requests_per_minute: float | None = None,
        tokens_per_minute: float | None = None,
        clock: Callable[[], float] | None = None,
        sleep: Callable[[float], None] | None = None,
    ) -> None:
        self.requests_per_minute = requests_per_minute or None
        self.tokens_per_minute = tokens_per_minute or None
        self.clock, self.sleep = clock or time.monotonic, sleep or time.sleep
        self.sent: deque[tuple[float, int]] = deque()
        self.lock = threading.Lock()
        self.waited = 0.0  # seconds spent waiting, for the job's accounting

    def _wait_needed(self, now: float, tokens: int) -> float:
        while self.sent and self.sent[0][0] <= now - WINDOW:
            self.sent.popleft()
        waits = [0.0]
        if self.requests_per_minute and len(self.sent) >= self.requests_per_minute:
            waits.append(self.sent[int(len(self.sent) - self.requests_per_minute)][0] + WINDOW - now)
        if self.tokens_per_minute and self.sent:
            used = sum(count for _, count in self.sent)
            if used + tokens > self.tokens_per_minute:
                # the earliest moment enough old requests have left the window
                freed, at = used, self.sent[-1][0]
                for sent_at, count in self.sent:
                    freed -= count
                    at = sent_at
                    if freed + tokens <= self.tokens_per_minute:
                        break
                waits.append(at + WINDOW - now)
        return max(waits)

    def acquire(self, tokens: int = 0) -> None:
        """Block until the request fits under both limits, then count it."""
        while True:
            with self.lock:
                now = self.clock()
                wait = self._wait_needed(now, tokens)
                if wait <= 0:
                    self.sent.append((now, tokens))
                    return
            self.waited += wait
            self.sleep(wait)
