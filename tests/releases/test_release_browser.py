"""A curator creates a release in the browser: the form answers at once, a real worker builds it, publishing asks first."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from releases.models import Release, ReleaseJob
from tests.annotation.test_curator import make_user
from tests.datasets.factories import make_collection, make_dataset

pytestmark = [pytest.mark.browser, pytest.mark.redis]


def sign_in(page, live_server) -> None:
    client = Client()
    client.force_login(make_user("curator"))
    page.context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )


@pytest.mark.django_db(transaction=True)
def test_the_form_queues_the_build_the_job_page_opens_the_release_and_publishing_asks_first(
    live_server, page, celery_worker
):
    make_dataset()
    sign_in(page, live_server)
    with celery_worker():
        page.goto(f"{live_server.url}/releases/")
        page.get_by_label("Version").fill("0.5.0")
        page.get_by_label("English (en)").check()
        page.get_by_label("Publish it next").check()
        page.get_by_role("button", name="Create the release").click()
        page.wait_for_url(re.compile(r"/releases/jobs/\d+/"))
        # The job page polls the worker's progress and, once the release exists, opens the confirmation.
        page.get_by_role("heading", name="Publish 0.5.0?").wait_for(timeout=60_000)
    job = ReleaseJob.objects.get()
    assert (job.status, job.version, job.publish_next) == ("done", "0.5.0", True)
    assert "freezes this release for ever" in page.content()
    assert not Release.objects.get(version="0.5.0").is_published

    page.get_by_role("button", name="Yes, publish 0.5.0").click()
    page.wait_for_url(re.compile(r"/releases/0\.5\.0/"))
    assert Release.objects.get(version="0.5.0").is_published


@pytest.mark.django_db(transaction=True)
def test_a_request_the_build_would_refuse_stays_on_the_form_with_the_reason(live_server, page):
    make_dataset()
    make_collection("other", "Other")
    sign_in(page, live_server)
    page.goto(f"{live_server.url}/releases/")
    page.get_by_label("Version").fill("0.5.0")
    page.get_by_label("English (en)").check()
    page.get_by_label("Collection").select_option("other")
    page.get_by_role("button", name="Create the release").click()

    alert = page.get_by_role("alert")
    alert.wait_for()
    assert alert.inner_text() == "Nothing to release: no compounds in en of collections other"
    assert page.get_by_label("Version").input_value() == "0.5.0"  # the choices stay for a second try
    assert not ReleaseJob.objects.exists()
