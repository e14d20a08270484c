"""/healthz (issue 35): 200 when the database and the broker answer, else 503 naming what failed."""

from __future__ import annotations

import json

import pytest
from django.db import OperationalError, connection
from django.test import override_settings

CLOSED_BROKER = "redis://:s3cret-password@127.0.0.1:1/0"  # nothing listens on port 1


@pytest.fixture
def broker_up(redis_url):
    with override_settings(CELERY_BROKER_URL=redis_url):
        yield


@pytest.mark.redis
@pytest.mark.django_db
def test_healthz_is_ok_when_the_database_and_the_broker_answer(client, broker_up):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "broker": "ok"}
    assert "no-cache" in response["Cache-Control"] and "Set-Cookie" not in response
    assert "Cookie" not in response.get("Vary", "")


@pytest.mark.django_db
@override_settings(CELERY_BROKER_URL=CLOSED_BROKER)
def test_healthz_names_the_broker_when_it_does_not_answer_and_never_its_url(client):
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json() == {"status": "unavailable", "database": "ok", "broker": "unavailable"}
    assert b"s3cret" not in response.content and b"127.0.0.1" not in response.content


@pytest.mark.django_db
@override_settings(CELERY_BROKER_URL=CLOSED_BROKER)
def test_the_pages_do_not_wait_for_the_broker(client):
    assert client.get("/healthz").status_code == 503
    assert client.get("/").status_code == 200
    assert client.get("/releases/").status_code == 200


@pytest.mark.redis
@pytest.mark.django_db
def test_healthz_names_the_database_when_it_does_not_answer(client, broker_up, monkeypatch):
    def refuse(*args, **kwargs):
        raise OperationalError("could not connect to server: password=s3cret")

    monkeypatch.setattr(connection, "cursor", refuse)
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json() == {"status": "unavailable", "database": "unavailable", "broker": "ok"}
    assert b"s3cret" not in response.content


@pytest.mark.django_db
@override_settings(CELERY_BROKER_URL=CLOSED_BROKER)
def test_healthz_takes_no_post(client):
    assert client.post("/healthz").status_code == 405
    assert json.loads(client.get("/healthz").content)["broker"] == "unavailable"
