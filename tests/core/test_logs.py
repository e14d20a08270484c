"""JSON log lines with request ids (issue 35): core/logs.py and core/request_ids.py."""

from __future__ import annotations

import io
import json
import logging
import sys

import pytest
from django.conf import settings
from django.test import override_settings

from core.logs import JsonFormatter, RequestIdFilter, current_request_id, request_id_from


@pytest.fixture
def json_lines():
    """The root logger's records as the production handler writes them (LOGGING's filter and formatter)."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(RequestIdFilter())
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield lambda: [json.loads(line) for line in stream.getvalue().splitlines()]
    finally:
        root.removeHandler(handler)


def test_logging_writes_through_the_request_id_filter_and_the_chosen_format():
    console = settings.LOGGING["handlers"]["console"]
    assert console["filters"] == ["request_id"] and console["formatter"] == settings.LOG_FORMAT
    assert settings.LOGGING["formatters"]["json"]["()"] == "core.logs.JsonFormatter"
    assert settings.MIDDLEWARE[0] == "core.request_ids.RequestIdMiddleware"


def test_a_record_is_one_json_object_with_its_exception():
    try:
        raise ValueError("bad value")
    except ValueError:
        record = logging.getLogger("x.y").makeRecord("x.y", logging.ERROR, __file__, 1, "failed %s", ("it",), None)
        record.exc_info = sys.exc_info()
    token = current_request_id.set("abc-1")
    try:
        RequestIdFilter().filter(record)
    finally:
        current_request_id.reset(token)
    line = JsonFormatter().format(record)
    assert "\n" not in line.split('"exception"')[0]
    entry = json.loads(line)
    assert entry["level"] == "ERROR" and entry["logger"] == "x.y" and entry["message"] == "failed it"
    assert entry["request_id"] == "abc-1"
    assert entry["time"].endswith("+00:00") and "T" in entry["time"]
    assert "ValueError: bad value" in entry["exception"]


@pytest.mark.django_db
@override_settings(CELERY_BROKER_URL="redis://127.0.0.1:1/0")
def test_a_request_logs_under_the_id_the_client_sent(client, json_lines):
    response = client.get("/healthz", HTTP_X_REQUEST_ID="lb-7f3a.2_x")
    assert response["X-Request-ID"] == "lb-7f3a.2_x"
    lines = json_lines()
    broker_lines = [entry for entry in lines if "broker did not answer" in entry["message"]]
    assert broker_lines and all(entry["request_id"] == "lb-7f3a.2_x" for entry in broker_lines)
    # Django logs the 503 itself after the middleware has returned: the line still carries the id
    django_lines = [entry for entry in lines if entry["logger"] == "django.request"]
    assert django_lines and all(entry["request_id"] == "lb-7f3a.2_x" for entry in django_lines)
    assert current_request_id.get() is None  # nothing leaks into the next request


@pytest.mark.django_db
def test_a_request_without_an_id_gets_one(client):
    first, second = client.get("/releases/")["X-Request-ID"], client.get("/releases/")["X-Request-ID"]
    assert len(first) == 32 and int(first, 16) >= 0 and first != second


@pytest.mark.parametrize("unsafe", ["a" * 65, "has space", "line\nbreak", "semi;colon", "ünï", ""])
def test_an_unsafe_id_is_replaced_by_a_new_one(unsafe):
    made = request_id_from(unsafe)
    assert made != unsafe and len(made) == 32


@pytest.mark.django_db
@pytest.mark.parametrize("unsafe", ["a" * 65, "two words", "<script>"])
def test_a_request_with_an_unsafe_id_is_answered_with_a_new_one(client, unsafe):
    response = client.get("/releases/", HTTP_X_REQUEST_ID=unsafe)
    assert response["X-Request-ID"] != unsafe and len(response["X-Request-ID"]) == 32


@pytest.mark.django_db
def test_an_id_with_a_line_break_never_reaches_a_log_line_or_a_header(client, json_lines):
    response = client.get("/healthz", HTTP_X_REQUEST_ID="forged\nline")
    assert len(response["X-Request-ID"]) == 32 and "\n" not in response["X-Request-ID"]
    assert all("forged" not in str(entry.get("request_id")) for entry in json_lines())


def test_a_safe_id_of_64_characters_is_kept():
    assert request_id_from("A" * 64) == "A" * 64
