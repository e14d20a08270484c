"""The admin: every dataset changelist and change page loads for a superuser."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from datasets.models import ImportRun
from tests.datasets.factories import make_dataset

pytestmark = pytest.mark.django_db

MODELS = ["collection", "importrun", "compound", "sentence", "paraphrase", "variant"]


@pytest.fixture
def admin_client_olivia(client):
    user = get_user_model().objects.create_superuser("olivia", "olivia@example.org", "correct horse battery")
    client.force_login(user)
    return client


@pytest.fixture
def data():
    data = make_dataset()
    data["run"] = ImportRun.objects.create(
        importer="nctti", source_dir="/data/nctti", files=[{"name": "en.csv", "sha256": "ab", "rows": 3}]
    )
    return data


@pytest.mark.parametrize("model", MODELS)
def test_changelist_loads(admin_client_olivia, data, model):
    response = admin_client_olivia.get(reverse(f"admin:datasets_{model}_changelist"))
    assert response.status_code == 200


@pytest.mark.parametrize(
    ("model", "query"),
    [
        ("compound", {"language": "en", "compositionality_class": "idiomatic", "q": "beaver"}),
        ("collection", {"q": "default"}),
        ("sentence", {"compound__language": "en", "kind": "naturalistic", "available__exact": "0"}),
        ("paraphrase", {"level": "token", "q": "keen"}),
        ("variant", {"status": "approved", "origin": "generated", "kind": "head_only", "q": "beaver"}),
    ],
)
def test_changelist_filters_and_search(admin_client_olivia, data, model, query):
    response = admin_client_olivia.get(reverse(f"admin:datasets_{model}_changelist"), query)
    assert response.status_code == 200
    assert response.context["cl"].result_count == 1


@pytest.mark.parametrize(
    ("model", "key"),
    [
        (m, k)
        for m, k in [
            ("compound", "beaver"),
            ("sentence", "first"),
            ("variant", "synonym"),
            ("importrun", "run"),
        ]
    ],
)
def test_change_page_loads(admin_client_olivia, data, model, key):
    response = admin_client_olivia.get(reverse(f"admin:datasets_{model}_change", args=[data[key].pk]))
    assert response.status_code == 200


def test_compound_page_has_sentence_inline(admin_client_olivia, data):
    response = admin_client_olivia.get(reverse("admin:datasets_compound_change", args=[data["beaver"].pk]))
    assert "Carol is such an eager beaver" in response.content.decode()


def test_import_runs_are_read_only(admin_client_olivia, data):
    assert admin_client_olivia.get(reverse("admin:datasets_importrun_add")).status_code == 403
    response = admin_client_olivia.post(
        reverse("admin:datasets_importrun_change", args=[data["run"].pk]), {"importer": "changed"}
    )
    assert response.status_code == 403
    data["run"].refresh_from_db()
    assert data["run"].importer == "nctti"


def test_compound_autocomplete(admin_client_olivia, data):
    response = admin_client_olivia.get(
        reverse("admin:autocomplete"),
        {"app_label": "datasets", "model_name": "sentence", "field_name": "compound", "term": "olive"},
    )
    assert response.status_code == 200
    assert [row["text"] for row in response.json()["results"]] == ["olive oil (en)"]


def test_admin_requires_staff(client, data):
    response = client.get(reverse("admin:datasets_compound_changelist"))
    assert response.status_code == 302
