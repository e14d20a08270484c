"""gunicorn's settings, read from the working directory (``gunicorn config.wsgi --bind ...``).

Workers: ``(2 x CPUs) + 1``, at most ``WEB_CONCURRENCY`` when it is set (the CPUs are those this
process may run on, so a container pinned to two cores of a large host counts two). Four threads
each: a request spends most of its time waiting for PostgreSQL, so a worker serves others meanwhile
(each thread keeps its own persistent database connection, ``DB_CONN_MAX_AGE``: the cap bounds
workers x threads connections under the database's ``max_connections``).
``preload_app`` imports the project, every view included (``config/wsgi.py``), once in the master
before forking, instead of in each worker's first request.
"""

import os


def cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS has no affinity
        return os.cpu_count() or 1


def worker_count() -> int:
    wanted = 2 * cpu_count() + 1
    cap = os.environ.get("WEB_CONCURRENCY", "").strip()
    return max(1, min(wanted, int(cap))) if cap else wanted


workers = worker_count()
worker_class = "gthread"
threads = int(os.environ.get("WEB_THREADS") or 4)
keepalive = 5
preload_app = True
