"""The Celery task through a real broker and a real worker."""

import os
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from building.tasks import fill_frequencies_task
from datasets.models import Compound

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_fill_frequencies_runs_on_a_worker_through_redis(celery_worker):
    call_command("load_demo", stdout=StringIO())
    with celery_worker():
        result = fill_frequencies_task.delay("demo", "en")
        assert result.get(timeout=30) == 24
        assert fill_frequencies_task.delay("demo", "en").get(timeout=30) == 0  # idempotent
    beaver = Compound.objects.get(key="eager beaver")
    assert beaver.frequency > 0 and beaver.modifier_frequency > beaver.frequency
    assert "independence estimate" in beaver.frequency_source


def test_the_embedded_broker_feeds_a_real_worker_process(tmp_path):
    """The quick start's default: no broker server, a filesystem queue, a separate worker process."""
    env = {**os.environ, "WORKBENCH_VAR_DIR": str(tmp_path), "DEBUG": "true"}
    for name in ("DATABASE_URL", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND"):
        env.pop(name, None)
    manage = [sys.executable, "manage.py"]
    subprocess.run([*manage, "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    subprocess.run([*manage, "load_demo"], cwd=ROOT, env=env, check=True, capture_output=True)
    worker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "--pool",
            "prefork",
            "--concurrency",
            "1",
            "-l",
            "warning",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        code = (
            "import django; django.setup();"
            "from building.tasks import fill_frequencies_task;"
            "print(fill_frequencies_task.delay('demo', 'pt').get(timeout=60))"
        )
        out = subprocess.run(
            [sys.executable, "-c", code],
            cwd=ROOT,
            env={**env, "DJANGO_SETTINGS_MODULE": "config.settings"},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert out.returncode == 0, out.stderr
        assert out.stdout.strip() == "12"
    finally:
        worker.terminate()
        worker.wait(timeout=30)
