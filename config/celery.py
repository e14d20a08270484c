"""The Celery application; tasks live in each app's ``tasks.py``."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("workbench")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

from config import worker_watchdog  # noqa: E402,F401  (connects its signals: a stalled worker ends itself)
