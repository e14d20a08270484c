"""A curator attaches a model on the campaign's page or through the API; nobody else can; bad input is a 400 naming the field."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotation.models import MachineAnnotator
from annotators.models import AnnotationJob

pytestmark = pytest.mark.django_db


def test_the_page_starts_a_job_and_lists_it_with_cancel(curator_client, demo_campaign, local_llama, monkeypatch):
    from annotators import tasks

    sent = []
    monkeypatch.setattr(tasks.annotate_shard_task, "apply_async", lambda args, queue: sent.append((args, queue)))
    url = reverse("annotators:campaign", args=[demo_campaign.slug])
    page = curator_client.get(url).content.decode()
    assert 'id="attach-model"' in page and "chat-llama" in page
    data = {"model": "chat-llama", "template": "", "samples": 2, "temperature": 0.5, "seed": 3, "structured": "on"}
    response = curator_client.post(url, data)
    assert response.status_code == 302
    job = AnnotationJob.objects.get()
    assert job.samples == 2 and job.settings["temperature"] == 0.5 and job.settings["logprobs"] is False
    assert job.template_name == "reddy-en" and MachineAnnotator.objects.filter(campaign=demo_campaign).count() == 2
    page = curator_client.get(url).content.decode()
    assert f'id="job-{job.pk}"' in page and "Cancel</button>" in page
    response = curator_client.post(reverse("annotators:job_action", args=[demo_campaign.slug, job.pk, "cancel"]))
    job.refresh_from_db()
    assert response.status_code == 302 and job.status == AnnotationJob.Status.CANCELLED


def test_the_page_refuses_bad_input_with_a_400_naming_the_field(curator_client, demo_campaign, local_llama):
    url = reverse("annotators:campaign", args=[demo_campaign.slug])
    response = curator_client.post(url, {"model": "chat-llama", "samples": 0, "temperature": 0, "seed": 0})
    assert response.status_code == 400 and "samples" in response.context["form"].errors
    response = curator_client.post(url, {"model": "nobody", "samples": 1, "temperature": 0, "seed": 0})
    assert response.status_code == 400 and "model" in response.context["form"].errors
    assert not AnnotationJob.objects.exists()


def test_the_api_starts_lists_and_refuses_naming_the_field(curator_client, demo_campaign, local_llama, monkeypatch):
    from annotators import tasks

    monkeypatch.setattr(tasks.annotate_shard_task, "apply_async", lambda args, queue: None)
    created = curator_client.post(
        "/api/annotators/jobs/",
        {"campaign": demo_campaign.slug, "model": "chat-llama", "samples": 1, "settings": {"seed": 2}},
        content_type="application/json",
    )
    assert created.status_code == 201, created.content
    body = created.json()
    assert body["model"] == "chat-llama" and body["settings"]["seed"] == 2 and body["status"] == "queued"
    assert body["machine_annotators"] == ["chat-llama · reddy-en v1 · t=0 · sample 1"]
    listed = curator_client.get("/api/annotators/jobs/?campaign=demo-token").json()
    assert [row["id"] for row in listed["results"]] == [body["id"]]
    for payload, field in [
        ({"campaign": "nope", "model": "chat-llama"}, "campaign"),
        ({"campaign": demo_campaign.slug, "model": "nope"}, "model"),
        ({"campaign": demo_campaign.slug, "model": "chat-llama", "settings": {"temperature": 5}}, "settings"),
        ({"campaign": demo_campaign.slug, "model": "chat-llama", "template": "reddy-xx"}, "template"),
    ]:
        response = curator_client.post("/api/annotators/jobs/", payload, content_type="application/json")
        assert response.status_code == 400 and field in response.json(), (payload, response.content)
    cancelled = curator_client.post(f"/api/annotators/jobs/{body['id']}/cancel/").json()
    assert cancelled["status"] == "cancelled"


def test_only_curators_see_or_start_machine_annotators(client, demo_campaign, local_llama):
    url = reverse("annotators:campaign", args=[demo_campaign.slug])
    assert client.get(url).status_code in (302, 403)
    assert client.get("/api/annotators/jobs/").status_code in (401, 403)
    response = client.post("/api/annotators/jobs/", {"campaign": demo_campaign.slug, "model": "chat-llama"})
    assert response.status_code in (401, 403) and not AnnotationJob.objects.exists()


def test_the_command_answers_inline_and_prints_the_job(demo_campaign, local_llama, capsys):
    from io import StringIO

    from django.core.management import CommandError, call_command

    out, err = StringIO(), StringIO()
    call_command(
        "annotate_with_model", "--campaign", "demo-token", "--model", "chat-llama", "--inline", stdout=out, stderr=err
    )
    job = AnnotationJob.objects.get()
    assert out.getvalue().strip() == str(job.pk) and job.status == "done"
    assert f"job {job.pk} done: {job.answered} answers (0 invalid)" in err.getvalue()
    with pytest.raises(CommandError, match="--config: unknown setting 'temp'"):
        call_command(
            "annotate_with_model", "--campaign", "demo-token", "--model", "chat-llama", "--config", '{"temp": 1}'
        )
    with pytest.raises(CommandError, match="--model 'gpt'"):
        call_command("annotate_with_model", "--campaign", "demo-token", "--model", "gpt")
