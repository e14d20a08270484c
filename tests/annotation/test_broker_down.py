"""The broker is down (issue 35, item 6): the web keeps answering and crowd ratings never depend on it.

Django's settings and this process's Celery app both lead to an address where no Redis listens. A crowd
worker goes from the study link to the completion code over the real pages, and every rating is saved;
the public pages answer; only /healthz says that the broker is unavailable.
"""

from __future__ import annotations

import pytest
from django.test import Client

from annotation.models import Annotator, Rating
from tests.annotation.test_views import GOOD, enter, make_campaign, rate, url
from tests.forgetful_broker import celery_app_on, free_port

pytestmark = pytest.mark.django_db


@pytest.fixture
def broker_down(settings):
    url = f"redis://127.0.0.1:{free_port()}/0"  # free: nothing listens there
    settings.CELERY_BROKER_URL = url
    with celery_app_on(url):
        yield url


def test_a_crowd_worker_rates_to_the_completion_code_while_the_broker_is_down(client, broker_down):
    campaign = make_campaign(regular=3)
    enter(client, campaign)
    for _ in range(3):
        _, response = rate(client, campaign, {**GOOD, "paraphrase_1": "late sleeper"})
        assert response.status_code == 302
    assert client.get(url("rate", campaign)).url == url("done", campaign)
    done = client.get(url("done", campaign))
    assert done.status_code == 200 and "C0DE42" in done.content.decode()
    annotator = Annotator.objects.get(campaign=campaign)
    assert annotator.completed_at is not None
    assert Rating.objects.filter(annotator=annotator, paraphrases__text="late sleeper").count() == 3

    newcomer = enter(Client(), campaign, {"PROLIFIC_PID": "pid-2"})  # the study link and its consent form
    assert newcomer.status_code == 200 and newcomer.request["PATH_INFO"] == url("instructions", campaign)
    for page in ("/", "/releases/"):
        assert client.get(page).status_code == 200, page
    health = client.get("/healthz")
    assert health.status_code == 503
    assert health.json() == {"status": "unavailable", "database": "ok", "broker": "unavailable"}
