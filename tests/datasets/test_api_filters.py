"""Every API list filter is a django-filter FilterSet: a bad value is a 400 naming the parameter, the schema lists it.

Issue 15, item 4: the probing API used to answer ``?status=bogus`` with an empty list.
"""

from __future__ import annotations

import pytest
import yaml

from probing.models import ProbeRun
from tests.building.review_factories import make_curator
from tests.datasets.factories import make_compound, make_dataset, make_sentence, make_variant
from tests.probing.report_factories import make_model, make_release, make_run

pytestmark = pytest.mark.django_db

# Each list endpoint with every filter it takes (the pagination's limit and offset aside).
FILTERS = {
    "/api/compounds/": {"collection", "language", "class", "q"},
    "/api/sentences/": {"collection", "language", "compound", "kind", "available"},
    "/api/variants/": {"collection", "language", "compound", "sentence", "kind", "status", "flagged"},
    "/api/probing/runs/": {"status", "model", "release"},
    "/api/annotation/ratings/": {"campaign"},
}
BAD_VALUES = [
    ("/api/probing/runs/", "status", "bogus"),
    ("/api/variants/", "status", "bogus"),
    ("/api/variants/", "kind", "bogus"),
    ("/api/sentences/", "kind", "bogus"),
    ("/api/compounds/", "class", "bogus"),
    ("/api/sentences/", "compound", "beaver"),
    ("/api/variants/", "compound", "1.5"),
    ("/api/variants/", "sentence", "-3"),
    ("/api/sentences/", "available", "maybe"),
    ("/api/variants/", "flagged", "perhaps"),
    ("/api/compounds/", "language", "english"),
    ("/api/sentences/", "language", "EN"),
    ("/api/variants/", "language", "e n"),
    ("/api/probing/runs/", "model", "mini\x00lm"),
    ("/api/annotation/ratings/", "campaign", "x" * 201),
]


@pytest.fixture
def curator_client(client):
    client.force_login(make_curator("carol"))
    return client


@pytest.fixture
def schema(client) -> dict:
    return yaml.safe_load(client.get("/api/schema/").content)


@pytest.mark.parametrize(("url", "parameter", "value"), BAD_VALUES, ids=[f"{u}?{p}" for u, p, _ in BAD_VALUES])
def test_a_bad_filter_value_is_a_400_naming_the_parameter(curator_client, url, parameter, value):
    response = curator_client.get(url, {parameter: value})
    assert response.status_code == 400
    assert list(response.json()) == [parameter]
    assert len(response.json()[parameter]) == 1


def test_each_bad_parameter_gets_its_own_message(curator_client):
    body = curator_client.get("/api/variants/", {"status": "bogus", "kind": "odd", "compound": "x"}).json()
    assert set(body) == {"status", "kind", "compound"}
    assert body["status"] == ["'bogus' is not one of: generated, approved, edited, rejected."]
    assert body["compound"] == [f"'x' is not an id (a whole number from 0 to {2**63 - 1})."]


def test_an_unknown_run_status_is_refused_not_an_empty_list(curator_client):
    run = make_run(make_release(), make_model())
    assert curator_client.get("/api/probing/runs/", {"status": "bogus"}).status_code == 400
    done = curator_client.get("/api/probing/runs/", {"status": ProbeRun.Status.DONE}).json()
    assert [row["id"] for row in done["results"]] == [run.pk]
    assert curator_client.get("/api/probing/runs/", {"status": ProbeRun.Status.FAILED}).json()["count"] == 0


def test_a_well_formed_language_without_compounds_is_an_empty_list(curator_client):
    make_dataset()
    assert curator_client.get("/api/compounds/", {"language": "de"}).json()["count"] == 0
    assert curator_client.get("/api/compounds/", {"language": "pt"}).json()["count"] == 1
    assert curator_client.get("/api/compounds/", {"language": "pt-BR"}).json()["count"] == 0


def test_filters_keep_their_meanings(curator_client):
    beaver = make_compound("eager beaver")
    sentence = make_sentence(beaver)
    flagged = make_variant(sentence, flags=["plural"])
    plain = make_variant(sentence, rank=2)
    other = make_variant(make_sentence(make_compound("guarda chuva", language="pt")))

    def ids(**params) -> list[int]:
        return sorted(row["id"] for row in curator_client.get("/api/variants/", params).json()["results"])

    assert ids(flagged="yes") == [flagged.pk]
    assert ids(flagged="0") == sorted([plain.pk, other.pk])
    assert ids(compound=beaver.pk, language="en") == sorted([flagged.pk, plain.pk])
    assert ids(language="pt", sentence=other.sentence_id) == [other.pk]
    assert ids(compound=beaver.pk, language="pt") == []


def test_a_detail_ignores_the_list_filters(curator_client):
    variant = make_variant(make_sentence(make_compound("eager beaver")))
    assert curator_client.get(f"/api/variants/{variant.pk}/", {"status": "bogus"}).status_code == 200
    assert curator_client.get(f"/api/variants/{variant.pk}/changes/", {"compound": "x"}).status_code == 200


@pytest.mark.parametrize("url", sorted(FILTERS))
def test_the_schema_documents_each_filter(schema, url):
    operation = schema["paths"][url]["get"]
    documented = {p["name"]: p for p in operation["parameters"] if p["in"] == "query"}
    assert set(documented) - {"limit", "offset"} == FILTERS[url]
    assert all(documented[name].get("description") for name in FILTERS[url])
    assert "400" in operation["responses"]


def test_the_schema_gives_each_filter_its_type_and_limits(schema):
    variants = {p["name"]: p["schema"] for p in schema["paths"]["/api/variants/"]["get"]["parameters"]}
    assert variants["status"]["enum"] == ["approved", "edited", "generated", "rejected"]
    assert variants["flagged"] == {"type": "boolean"}
    assert variants["compound"] == {"type": "integer", "minimum": 0, "maximum": 2**63 - 1}
    assert variants["collection"]["maxLength"] == 200
    runs = {p["name"]: p["schema"] for p in schema["paths"]["/api/probing/runs/"]["get"]["parameters"]}
    assert set(runs["status"]["enum"]) == set(ProbeRun.Status.values)


def test_a_detail_action_answering_a_list_documents_no_filters(schema):
    operation = schema["paths"]["/api/variants/{id}/changes/"]["get"]
    assert [p["name"] for p in operation["parameters"]] == ["id"]


def test_the_browsable_api_shows_the_filter_form(curator_client):
    response = curator_client.get("/api/variants/", HTTP_ACCEPT="text/html")
    assert response.status_code == 200
    assert b'name="flagged"' in response.content
