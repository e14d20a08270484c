"""Fixtures of the release tests: the release form's POST, with the job a worker would run built in the test."""

from __future__ import annotations

import pytest
from django.urls import reverse

from releases import tasks


@pytest.fixture
def post_release_form(curator_client, monkeypatch, django_capture_on_commit_callbacks):
    """``post_release_form(body)``: the form's POST, its job built as the worker would once the transaction commits.

    Returns the POST's response; the job page (its Location) then opens the release.
    """
    built: list[int] = []

    def run_now(job_id: int) -> str:
        built.append(job_id)
        return tasks.run_release_job(job_id)

    monkeypatch.setattr(tasks.build_release_task, "delay", run_now)

    def post(body: dict, client=None):
        with django_capture_on_commit_callbacks(execute=True):
            return (client or curator_client).post(reverse("releases"), body)

    post.built = built
    return post
