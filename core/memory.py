"""Keeping Python's cyclic garbage collector off long-lived, acyclic data (pure).

A probe run's worker holds a parsed release (tens of thousands of pairs) and a loaded model for as
long as it runs. Every time the work at hand allocates enough new objects (rows read from the
vector cache, report rows), the collector walks every tracked object, the parsed release included:
about a third of the time of a warm run, and a single full collection after a release is read
costs half a second. Two tools:

- ``paused_gc``: the collector off around work that makes many objects and no cycles. The objects
  made there are freed by reference counting as usual; cycles, if any, are collected at the next
  collection after the block.
- ``settle``: once a long-lived structure is built (a release's pairs, a model), every object
  tracked now moves to the collector's permanent generation (``gc.freeze``), which no collection
  walks. Reference counting still frees those objects when they are dropped (a release evicted from
  the worker's cache); only a cycle that was already garbage at that moment is never reclaimed.
  No collection runs first: just after ``paused_gc`` the youngest generation holds the whole new
  structure, and collecting it would cost what freezing saves. What is lost is bounded: once per
  release or model a worker loads, the few cycles left over then (none come from the parsing).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_gc() -> Iterator[None]:
    """Run the block with the cyclic collector off; it is on again afterwards if it was on before."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def settle() -> None:
    """Leave every object tracked now out of later collections (``gc.freeze``)."""
    gc.freeze()
