"""What anonymous visitors and crowd workers learn from probing, read as an outsider would (issue 13, item 7).

Every probing URL an outsider can open (the API, the pages, the JSON, CSV and report downloads,
the comparison) is read for the internals of a run: the model's source path, its API host and
key variable, the worker's host name, who started the run, and the run's error. None may show;
a curator sees them all.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from probing.models import EmbeddingModel, ProbeRun
from probing.report.build import TABLES
from tests.building.review_factories import make_annotator, make_curator
from tests.probing.report_factories import make_release, make_run

pytestmark = pytest.mark.django_db

SOURCE = "/srv/private-models/secret-bert"
BASE_URL = "https://llm-gateway.corp.internal/v1"
KEY_ENV = "CORP_GATEWAY_KEY"
HOST = "gpu-worker-7.corp.internal"
USERNAME = "carol-the-curator"
ERROR = "OSError: [Errno 2] /srv/private-models/secret-bert/config.json: Traceback (most recent call last)"
INTERNALS = (SOURCE, "private-models", BASE_URL, "llm-gateway", KEY_ENV, HOST, USERNAME, "Traceback", "Errno")


@pytest.fixture
def runs() -> list[ProbeRun]:
    release = make_release()
    curator = make_curator(USERNAME)
    local = EmbeddingModel.objects.create(name="secret-bert", kind="transformer", source=SOURCE)
    paid = EmbeddingModel.objects.create(
        name="gateway",
        kind="openai",
        source="text-embedding-3-small",
        options={"base_url": BASE_URL, "api_key_env": KEY_ENV},
    )
    made = []
    for model, status, error in ((local, ProbeRun.Status.FAILED, ERROR), (paid, ProbeRun.Status.DONE, "")):
        run = make_run(release, model, status=status, error=error, created_by=curator)
        run.provenance |= {
            "host": HOST,
            "model_identity": {**run.provenance["model_identity"], "base_url": BASE_URL},
            "workers": [{"host": HOST, "code_version": "v1", "packages": {}, "shards": [0]}],
        }
        run.save()
        made.append(run)
    return made


def outsider_urls(runs: list[ProbeRun]) -> list[str]:
    urls = ["/api/probing/models/", "/api/probing/runs/", reverse("probe_runs")]
    urls += [f"/api/probing/models/{run.model.name}/" for run in runs]
    for run in runs:
        urls += [f"/api/probing/runs/{run.pk}/", f"/api/probing/runs/{run.pk}/progress/"]
        urls += [reverse("probe_run", args=[run.pk]), reverse("probe_run_report", args=[run.pk])]
        urls += [reverse("probe_run_json", args=[run.pk]), reverse("probe_run_json", args=[run.pk]) + "?full=1"]
        urls += [reverse("probe_run_csv", args=[run.pk, table]) for table in TABLES]
    urls.append(reverse("probe_compare") + "?runs=" + ",".join(str(run.pk) for run in runs))
    return urls


def shown(client, url: str) -> list[str]:
    response = client.get(url)
    assert response.status_code == 200, url
    body = response.content.decode()
    return [secret for secret in INTERNALS if secret in body]


# Crowd workers have no account: to these URLs they are anonymous visitors.
@pytest.mark.parametrize("visitor", ["anonymous", "annotator"])
def test_outsiders_see_no_sources_hosts_api_settings_usernames_or_errors(client, runs, visitor):
    if visitor == "annotator":
        client.force_login(make_annotator("bob"))

    leaks = {url: found for url in outsider_urls(runs) if (found := shown(client, url))}

    assert leaks == {}


def test_curators_see_them(client, runs):
    client.force_login(make_curator("alice"))
    failed, done = runs

    assert {SOURCE, USERNAME, "Traceback"} <= set(shown(client, f"/api/probing/runs/{failed.pk}/"))
    assert {BASE_URL, KEY_ENV} <= set(shown(client, f"/api/probing/models/{done.model.name}/"))
    assert {HOST, BASE_URL} <= set(shown(client, reverse("probe_run_report", args=[done.pk])))
    assert {SOURCE, "Errno"} <= set(shown(client, reverse("probe_run", args=[failed.pk])))
    assert {SOURCE, KEY_ENV} <= set(shown(client, reverse("probe_runs")))
