"""Real Celery worker processes for the tests of lost workers, forgetful brokers and separate hosts: this test's
database, a broker, its queues, the solo pool; ``wait_for`` polls until a condition holds."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from django.db import connection

REPO_ROOT = Path(__file__).resolve().parents[2]


def database_url() -> str:
    db = connection.settings_dict
    return f"postgres://{db['USER']}:{db['PASSWORD'] or ''}@{db['HOST']}:{db['PORT'] or 5432}/{db['NAME']}"


def start_worker(
    broker_url: str,
    queue: str,
    model_dir: Path,
    log: Path,
    env: dict[str, str] | None = None,
    *options: str,
    cwd: Path = REPO_ROOT,
) -> subprocess.Popen:
    """A worker process consuming ``queue`` (names separated by commas) from ``broker_url``, with this test's
    database; its output in ``log``. ``cwd``: its working directory (another machine's: the code is found
    through PYTHONPATH, not in it)."""
    environment = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "CELERY_BROKER_URL": broker_url,
        "CELERY_RESULT_BACKEND": broker_url,
        "WORKBENCH_MODEL_DIRS": str(model_dir),
        **(env or {}),
    }
    if cwd != REPO_ROOT:
        environment["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), environment.get("PYTHONPATH")]))
    command = [sys.executable, "-m", "celery", "-A", "config", "worker", "-P", "solo", "-Q", queue]
    command += ["--without-mingle", "--without-gossip", "-l", "warning", *options]
    return subprocess.Popen(command, cwd=cwd, env=environment, stdout=log.open("ab"), stderr=subprocess.STDOUT)


def wait_for(condition, seconds: float, what: str):
    """What ``condition()`` returns once it is truthy; AssertionError naming ``what`` after ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if found := condition():
            return found
        time.sleep(0.02)
    raise AssertionError(f"still waiting for {what} after {seconds} seconds")
