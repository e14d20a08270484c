"""Pausing Python's cyclic garbage collector around work that makes many objects and no cycles (pure).

A probe run's worker holds a parsed release (tens of thousands of pairs) for as long as it runs.
Every time the work at hand allocates enough new objects (rows read from the vector cache, report
rows), the collector walks every tracked object, the parsed release included: about a third of
the time of a warm run. The objects made here are freed by reference counting as usual; cycles,
if any, are collected at the next collection after the block.
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
