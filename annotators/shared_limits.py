"""The rate limits' counts in the Django cache, shared by every worker that reaches the same endpoint.

With ``CACHE_URL`` set (Redis) every worker process on every host adds to the same counts, so an
endpoint's requests and tokens per minute hold for the whole deployment; without it the cache is
this process's memory and the limits are the process's. Redis increments atomically: two workers
adding at once both see the other's request.
"""

from __future__ import annotations

import hashlib

from django.core.cache import caches

KEEP_SECONDS = 180  # a window's counts outlive it by two minutes, then expire


class CacheCounter:
    """A ``limits.Counter`` on the default cache, keyed by the endpoint (its address and model)."""

    def __init__(self, endpoint: str) -> None:
        self.prefix = "annotators:rate:" + hashlib.sha256(endpoint.encode()).hexdigest()[:16]
        self.cache = caches["default"]

    def _keys(self, window: int) -> tuple[str, str]:
        return f"{self.prefix}:{window}:requests", f"{self.prefix}:{window}:tokens"

    def add(self, window: int, requests: int, tokens: int) -> tuple[int, int]:
        totals = []
        for key, amount in zip(self._keys(window), (requests, tokens), strict=True):
            self.cache.add(key, 0, KEEP_SECONDS)
            totals.append(self.cache.incr(key, amount) if amount else int(self.cache.get(key, 0)))
        return totals[0], totals[1]

    def undo(self, window: int, requests: int, tokens: int) -> None:
        for key, amount in zip(self._keys(window), (requests, tokens), strict=True):
            if amount:
                self.cache.decr(key, amount)
