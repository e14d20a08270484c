"""gunicorn's settings, read from the working directory (``gunicorn config.wsgi --bind ...``).

Two processes per core (``WEB_CONCURRENCY`` overrides, as gunicorn itself reads it), four threads
each: a request spends most of its time waiting for PostgreSQL, so a worker serves others meanwhile
(each thread keeps its own persistent database connection: ``DB_CONN_MAX_AGE``).
``preload_app`` imports the project, every view included (``config/wsgi.py``), once in the master
before forking, instead of in each worker's first request.
"""

import multiprocessing
import os

workers = int(os.environ.get("WEB_CONCURRENCY") or 2 * multiprocessing.cpu_count())
worker_class = "gthread"
threads = int(os.environ.get("WEB_THREADS") or 4)
keepalive = 5
preload_app = True
