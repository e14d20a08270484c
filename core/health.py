"""Is the site able to serve? The database answers ``SELECT 1`` and the Celery broker a ping.

Each check answers "ok" or a word saying what failed, never the exception's text: a broker or
database URL in an error message would carry its password to whoever asks ``/healthz``. What
failed is logged (the exception's class only) for the operator.
"""

from __future__ import annotations

import logging

import redis
from django.conf import settings
from django.db import connection
from kombu import Connection

logger = logging.getLogger(__name__)

TIMEOUT_SECONDS = 2.0


def database_status() -> str:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as error:  # any failure is an answer, never a 500
        logger.warning("health: the database did not answer (%s)", type(error).__name__)
        return "unavailable"
    return "ok"


def broker_status(url: str, timeout: float = TIMEOUT_SECONDS) -> str:
    try:
        if url.startswith(("redis://", "rediss://")):
            client = redis.Redis.from_url(url, socket_connect_timeout=timeout, socket_timeout=timeout)
            try:
                client.ping()
            finally:
                client.close()
        else:  # AMQP, or the embedded filesystem broker, through Celery's own transport
            options = getattr(settings, "CELERY_BROKER_TRANSPORT_OPTIONS", {})
            with Connection(url, connect_timeout=timeout, transport_options=options) as broker:
                broker.ensure_connection(max_retries=1, timeout=timeout)
    except Exception as error:  # any failure is an answer, never a 500
        logger.warning("health: the broker did not answer (%s)", type(error).__name__)
        return "unavailable"
    return "ok"


def health() -> dict[str, str]:
    """``{"status", "database", "broker"}``: status is "ok" only when both are."""
    checks = {"database": database_status(), "broker": broker_status(settings.CELERY_BROKER_URL)}
    return {"status": "ok" if all(value == "ok" for value in checks.values()) else "unavailable", **checks}
