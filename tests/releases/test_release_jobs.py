"""The release form hands the build to a worker: checked at once, built once, a failure said on the job page.

Alice is a curator; the dataset is ``make_dataset()`` (English and Portuguese, collection
"default"). ``post_release_form`` posts the form and runs the job as a worker would after the
commit; a plain ``curator_client.post`` leaves the job queued, as it is until a worker takes it.
"""

from __future__ import annotations

import re
import time
from html import unescape

import pytest
from django.urls import reverse

from annotation.models import Campaign
from releases import actions, jobs, tasks
from releases.collect import check_request, collect_snapshot
from releases.models import Release, ReleaseError, ReleaseJob
from tests.datasets.factories import make_collection, make_compound, make_dataset


def make_campaign(slug: str, language: str) -> Campaign:
    collection = make_collection()
    return Campaign.objects.create(slug=slug, name=slug, collection=collection, language=language, level="token")


pytestmark = pytest.mark.django_db


def test_the_form_answers_before_anything_is_built(curator_client, monkeypatch):
    make_dataset()
    sent: list[int] = []
    monkeypatch.setattr(tasks.build_release_task, "delay", sent.append)

    response = curator_client.post(reverse("releases"), {"version": "0.3.0", "languages": ["en"], "title": "Soon"})

    job = ReleaseJob.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("release_job", args=[job.pk])
    assert (job.status, job.version, job.options["languages"], job.options["title"]) == (
        "queued",
        "0.3.0",
        ["en"],
        "Soon",
    )
    assert not Release.objects.exists() and sent == []  # handed to the broker only once the request's data is committed
    page = curator_client.get(response["Location"]).content.decode()
    assert "Release 0.3.0" in page and "being built" in page and "waiting for a Celery worker" in page
    assert 'data-finished="false"' in page and "build_job.js" in page
    polled = curator_client.get(reverse("release_job_json", args=[job.pk])).json()
    assert (polled["status"], polled["finished"], polled["done"], polled["total"]) == ("queued", False, 0, 1)


def test_the_worker_builds_the_release_and_the_job_page_opens_it(curator_client, alice, post_release_form):
    make_dataset()

    response = post_release_form({"version": "0.3.0", "languages": ["en", "pt"], "title": "Built"})

    job = ReleaseJob.objects.get()
    release = Release.objects.get(version="0.3.0")
    assert post_release_form.built == [job.pk]
    assert (job.status, release.status, release.title, release.created_by) == ("done", "draft", "Built", alice)
    assert job.started_at <= job.finished_at
    assert curator_client.get(reverse("release_job_json", args=[job.pk])).json()["finished"] is True
    opened = curator_client.get(response["Location"], follow=True)
    assert opened.redirect_chain == [(reverse("release", args=["0.3.0"]), 302)]
    assert "Release 0.3.0 created as a draft" in opened.content.decode()


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"version": "0.3.0", "languages": ["en"], "collection": "other"}, "no compounds in en of collections other"),
        ({"version": "0.3.0", "languages": ["en"]}, "is in collections default and twin: name the collections"),
        ({"version": "0.3.0", "languages": ["pt"], "campaigns": ["en-token"]}, "is not in the release's languages"),
    ],
)
def test_what_the_build_would_refuse_is_a_form_error_at_once(curator_client, body, message):
    make_dataset()
    make_collection("other", "Other")
    make_compound("eager beaver", collection="twin")
    make_campaign(slug="en-token", language="en")

    response = curator_client.post(reverse("releases"), body)

    alerts = re.findall(r'<p class="error" role="alert">([^<]*)</p>', response.content.decode())
    assert response.status_code == 400 and len(alerts) == 1 and message in unescape(alerts[0])
    assert not ReleaseJob.objects.exists() and not Release.objects.exists()


@pytest.mark.parametrize(
    "arguments",
    [
        {"languages": ["en"], "collections": ["nope"]},
        {"languages": ["en"], "policy": "none"},
        {"languages": ["en"], "campaigns": ["nope"]},
        {"languages": ["pt"], "campaigns": ["en-token"]},
        {"languages": ["en"], "campaigns": ["en-token"], "policy": "nope"},
        {"languages": ["en"]},  # the same compound in two collections
        {"languages": ["de"]},
    ],
)
def test_the_quick_check_refuses_exactly_what_collecting_refuses(arguments):
    make_dataset()
    make_compound("eager beaver", collection="twin")
    make_campaign(slug="en-token", language="en")

    with pytest.raises(ReleaseError) as quick:
        check_request(**arguments)
    try:
        snapshot = collect_snapshot(**arguments)
    except ReleaseError as error:
        assert str(error) == str(quick.value)
    else:
        assert not snapshot.compounds  # nothing to release: create_release's own error
        with pytest.raises(ReleaseError, match=str(quick.value)):
            actions.create_release("0.9.0", **arguments)


def test_a_release_refused_by_the_worker_is_explained_on_the_job_page(curator_client, post_release_form, monkeypatch):
    make_dataset()
    real = actions.check_release
    # Another curator takes the version between the form's check and the worker's build.
    monkeypatch.setattr(
        jobs, "check_release", lambda *args, **kwargs: real(*args, **kwargs) or actions.create_release("0.3.0", ["pt"])
    )

    response = post_release_form({"version": "0.3.0", "languages": ["en"]})

    job = ReleaseJob.objects.get()
    assert job.status == "failed" and "release 0.3.0 exists already" in job.message
    assert Release.objects.get(version="0.3.0").languages == ["pt"]  # the other curator's, untouched
    page = curator_client.get(response["Location"]).content.decode()
    assert "The release was not created: release 0.3.0 exists already" in page and 'data-finished="true"' in page
    assert reverse("releases") + "#create" in page


def test_a_build_that_crashes_stores_nothing_and_says_why(post_release_form, monkeypatch):
    make_dataset()

    def broken(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(actions, "build_zip", broken)
    with pytest.raises(RuntimeError):
        post_release_form({"version": "0.3.0", "languages": ["en"]})

    job = ReleaseJob.objects.get()
    assert (job.status, job.message) == ("failed", "RuntimeError: disk full")
    assert not Release.objects.exists()


def test_a_job_delivered_twice_builds_one_release(alice):
    make_dataset()
    job = jobs.create_release_job("0.3.0", {"languages": ["en"]}, user=alice)

    assert jobs.run_release_job(job.pk) == "done"
    assert jobs.run_release_job(job.pk) == "done"
    assert Release.objects.filter(version="0.3.0").count() == 1


def test_a_job_takes_only_the_release_options():
    with pytest.raises(ValueError, match="not a release option: publish"):
        jobs.create_release_job("0.3.0", {"languages": ["en"], "publish": True})


@pytest.mark.parametrize("who", ["anonymous", "annotator"])
def test_only_curators_see_a_release_job(client, who, alice):
    make_dataset()
    job = jobs.create_release_job("0.3.0", {"languages": ["en"]}, user=alice)
    if who == "annotator":
        from tests.building.review_factories import make_annotator

        client.force_login(make_annotator())
    for name in ("release_job", "release_job_json"):
        response = client.get(reverse(name, args=[job.pk]))
        assert response.status_code in (302, 403) and "0.3.0" not in response.content.decode()


@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_builds_the_release_through_redis(celery_worker, alice):
    make_dataset()
    with celery_worker():
        job = tasks.start_release_job("0.4.0", {"languages": ["en", "pt"]}, user=alice)  # autocommit: sent now
        for _ in range(600):
            job.refresh_from_db()
            if job.is_finished:
                break
            time.sleep(0.1)
    assert job.status == "done"
    assert Release.objects.get(version="0.4.0").languages == ["en", "pt"]
