"""Log records as JSON lines, each with the id of the request it belongs to (pure: no Django).

``LOG_FORMAT=json`` (the default with ``DEBUG`` off) makes ``config/settings.py`` send every
record to stdout through ``JsonFormatter``; ``RequestIdFilter`` puts on each record the id that
``core.request_ids.RequestIdMiddleware`` set for the request being served (``None`` outside one).
"""

from __future__ import annotations

import json
import logging
import re
import uuid
from contextvars import ContextVar
from datetime import UTC, datetime

# The id of the request this thread (or task) is serving; None outside a request.
current_request_id: ContextVar[str | None] = ContextVar("current_request_id", default=None)

# A client's id is kept only when it is a short token: it ends up in logs and in a response header.
SAFE_REQUEST_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")


def request_id_from(value: str | None) -> str:
    """``value`` when it is a safe token (at most 64 of A-Z a-z 0-9 . _ -), else a new uuid4 hex."""
    if value and SAFE_REQUEST_ID.fullmatch(value):
        return value
    return uuid.uuid4().hex


class RequestIdFilter(logging.Filter):
    """Adds ``request_id`` to every record: the current request's id, or None."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "request_id", None) is None:
            record.request_id = current_request_id.get()
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per record: time (ISO 8601, UTC), level, logger, message, request_id, exception."""

    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": datetime.fromtimestamp(record.created, tz=UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        request_id = getattr(record, "request_id", None)
        if request_id is not None:
            entry["request_id"] = request_id
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            entry["exception"] = record.exc_text
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        return json.dumps(entry, ensure_ascii=False, default=str)
