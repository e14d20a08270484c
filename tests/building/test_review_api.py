"""Curator actions on variants through the REST API: approve, reject, edit, reset and the change list."""

from __future__ import annotations

import pytest
import yaml

from building.models import VariantChange
from datasets import vocabulary
from datasets.models import Variant
from tests.building.review_factories import AGREEMENT_FLAG, make_annotator

pytestmark = pytest.mark.django_db


def post(client, variant: Variant, action: str, body: dict | None = None):
    return client.post(f"/api/variants/{variant.pk}/{action}/", body or {}, content_type="application/json")


ACTIONS = [
    ("approve", "synonym", None),
    ("reject", "synonym", {"note": "too formal"}),
    ("edit", "synonym", {"marked_text": "Carol is such an [ace] that she starts at six."}),
    ("reset", "approved", None),
]


@pytest.mark.parametrize(("action", "name", "body"), ACTIONS)
@pytest.mark.parametrize("role", ["anonymous", "annotator"])
def test_only_curators_may_act_on_variants(client, data, role, action, name, body):
    if role == "annotator":
        client.force_login(make_annotator("bob"))
    before = data[name].snapshot()

    response = post(client, data[name], action, body)

    assert response.status_code == 403
    assert Variant.objects.get(pk=data[name].pk).snapshot() == before
    assert not VariantChange.objects.exists()


@pytest.mark.parametrize("role", ["anonymous", "annotator"])
def test_only_curators_may_read_the_changes(client, data, role):
    if role == "annotator":
        client.force_login(make_annotator("bob"))
    assert client.get(f"/api/variants/{data['synonym'].pk}/changes/").status_code == 403


@pytest.mark.parametrize("role", ["anonymous", "annotator"])
def test_only_curators_may_read_variants(client, data, role):
    # Variants carry the gold synonyms: the answers of the working dataset.
    if role == "annotator":
        client.force_login(make_annotator("bob"))
    assert client.get("/api/variants/").status_code == 403
    assert client.get(f"/api/variants/{data['synonym'].pk}/").status_code == 403


def test_curators_read_variants(curator_client, data):
    assert curator_client.get("/api/variants/").status_code == 200
    assert curator_client.get(f"/api/variants/{data['synonym'].pk}/").status_code == 200


@pytest.mark.parametrize(
    ("action", "name", "body", "status"),
    [
        ("approve", "synonym", None, vocabulary.APPROVED),
        ("reject", "synonym", {"note": "too formal"}, vocabulary.REJECTED),
        ("edit", "synonym", {"marked_text": "Carol is such an [ace] that she starts at six."}, vocabulary.EDITED),
        ("reset", "approved", None, vocabulary.GENERATED),
    ],
)
def test_a_curators_action_answers_with_the_updated_variant(curator_client, alice, data, action, name, body, status):
    response = post(curator_client, data[name], action, body)

    assert response.status_code == 200, response.content
    assert response.json()["id"] == data[name].pk
    assert response.json()["status"] == status
    change = VariantChange.objects.get(variant=data[name])
    assert (change.action, change.user) == (action, alice)


def test_an_edit_by_text_and_span(curator_client, data):
    response = post(curator_client, data["flagged"], "edit", {"text": "Carol is a keen person.", "span": [11, 22]})

    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["text"], body["span_start"], body["span_end"], body["replacement"]) == (
        "Carol is a keen person.",
        11,
        22,
        "keen person",
    )
    assert (body["status"], body["span_source"], body["flags"]) == (vocabulary.EDITED, vocabulary.SPAN_FROM_EDIT, [])
    assert Variant.objects.get(pk=data["flagged"].pk).details["resolved_flags"] == [AGREEMENT_FLAG]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"marked_text": "no brackets"}, "marked_text"),
        ({"marked_text": "empty [] brackets"}, "marked_text"),
        ({"text": "Carol is a keen person.", "span": [11, 99]}, "span"),
        ({"text": "Carol is a keen person.", "span": [11, 11]}, "span"),
        ({"text": "Carol is a keen person.", "span": [11]}, "span"),
        ({"text": "Carol is a keen person."}, "span"),
        ({"text": "Carol is a keen person.", "marked_text": "a [keen] person"}, "non_field_errors"),
        ({}, "non_field_errors"),
    ],
)
def test_a_bad_edit_is_a_400_naming_the_field_and_changes_nothing(curator_client, data, body, field):
    before = data["synonym"].snapshot()

    response = post(curator_client, data["synonym"], "edit", body)

    assert response.status_code == 400
    assert field in response.json()
    assert Variant.objects.get(pk=data["synonym"].pk).snapshot() == before
    assert not VariantChange.objects.exists()


def test_the_changes_list_is_newest_first_with_before_and_after(curator_client, alice, data):
    variant = data["synonym"]
    post(curator_client, variant, "approve")
    post(curator_client, variant, "edit", {"marked_text": "Carol is such an [ace] that she starts at six."})

    response = curator_client.get(f"/api/variants/{variant.pk}/changes/")

    assert response.status_code == 200
    changes = response.json()
    assert [(c["action"], c["user"]) for c in changes] == [("edit", "alice"), ("approve", "alice")]
    assert changes[0]["before"] == {"text": variant.text, "span": [17, 27], "status": vocabulary.APPROVED}
    assert changes[0]["after"] == {
        "text": "Carol is such an ace that she starts at six.",
        "span": [17, 20],
        "status": vocabulary.EDITED,
    }


@pytest.mark.parametrize(("flagged", "expected"), [("true", {"flagged"}), ("false", None)])
def test_the_variant_list_filters_by_flags(curator_client, data, flagged, expected):
    client = curator_client
    rows = client.get("/api/variants/", {"flagged": flagged}).json()["results"]
    ids = {row["id"] for row in rows}
    if expected is None:
        assert ids == {x.pk for name, x in data.items() if name not in {"compound", "natural", "neutral", "flagged"}}
    else:
        assert ids == {data[name].pk for name in expected}
    assert client.get("/api/variants/", {"flagged": "maybe"}).status_code == 400


def test_the_schema_documents_the_curator_actions(client):
    schema = yaml.safe_load(client.get("/api/schema/").content)
    for action in ("approve", "reject", "edit", "reset"):
        assert "post" in schema["paths"][f"/api/variants/{{id}}/{action}/"]
    assert "get" in schema["paths"]["/api/variants/{id}/changes/"]
    parameters = {p["name"] for p in schema["paths"]["/api/variants/"]["get"]["parameters"]}
    assert {"status", "flagged"} <= parameters
