"""The read-only REST API of the working dataset (curators only): shapes, filters, pagination, query counts, schema."""

from __future__ import annotations

import pytest
import yaml
from django.core.management import call_command

from datasets import vocabulary
from tests.datasets.factories import make_compound, make_dataset, make_sentence, make_variant

pytestmark = pytest.mark.django_db


@pytest.fixture
def client(client, alice):
    """The working dataset is for curators only (issue 14): these tests read it as Alice, a curator."""
    client.force_login(alice)
    return client


def results(client, path: str, **params) -> list[dict]:
    response = client.get(path, params)
    assert response.status_code == 200, response.content
    return response.json()["results"]


def ids(client, path: str, **params) -> list[int]:
    return [row["id"] for row in results(client, path, **params)]


def test_api_root_lists_the_endpoints(client):
    body = client.get("/api/", HTTP_ACCEPT="application/json").json()
    assert set(body) == {"compounds", "sentences", "variants", "releases"}


def test_compound_list_shape(client):
    data = make_dataset()
    response = client.get("/api/compounds/")
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"count", "next", "previous", "results"}
    assert body["count"] == 3
    beaver = body["results"][0]
    assert beaver["id"] == data["beaver"].pk
    assert beaver["text"] == "eager beaver"
    assert beaver["collection"] == "default"
    assert beaver["language"] == "en"
    assert beaver["compositionality_class"] == vocabulary.IDIOMATIC
    assert beaver["class_short"] == "NC"
    assert beaver["sentence_count"] == 4
    assert beaver["available_sentence_count"] == 3
    assert sorted(beaver["sentence_ids"]) == sorted(s.pk for s in data["beaver"].sentences.all())
    assert beaver["provenance"] == "en_nctti.csv:7"
    assert "sentences" not in beaver


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"language": "pt"}, ["guarda chuva"]),
        ({"class": vocabulary.COMPOSITIONAL}, ["olive oil"]),
        ({"class": "NC"}, ["eager beaver"]),
        ({"class": "PC", "language": "en"}, []),
        ({"q": "Oil"}, ["olive oil"]),
        ({}, ["eager beaver", "olive oil", "guarda chuva"]),
    ],
)
def test_compound_filters(client, params, expected):
    make_dataset()
    assert [row["text"] for row in results(client, "/api/compounds/", **params)] == expected


def test_collection_filter_on_every_list(client):
    data = make_dataset()
    demo = make_compound("eager beaver", collection="demo")
    sentence = make_sentence(demo, "Olivia is an eager beaver.")
    variant = make_variant(sentence, "enthusiast")
    rows = results(client, "/api/compounds/", collection="demo")
    assert [(row["id"], row["collection"]) for row in rows] == [(demo.pk, "demo")]
    assert ids(client, "/api/compounds/", q="eager") == [data["beaver"].pk, demo.pk]
    rows = results(client, "/api/sentences/", collection="demo")
    assert [(row["id"], row["collection"]) for row in rows] == [(sentence.pk, "demo")]
    rows = results(client, "/api/variants/", collection="demo")
    assert [(row["id"], row["collection"]) for row in rows] == [(variant.pk, "demo")]
    assert len(results(client, "/api/variants/", collection="default")) == 3


def test_compound_filter_unclassified_and_bad_class(client):
    make_dataset()
    make_compound("thing thing", compositionality_class=None)
    assert [row["text"] for row in results(client, "/api/compounds/", **{"class": "none"})] == ["thing thing"]
    response = client.get("/api/compounds/", {"class": "very"})
    assert response.status_code == 400
    assert "class" in response.json()


def test_compound_detail_nests_sentences_and_paraphrases(client):
    data = make_dataset()
    body = client.get(f"/api/compounds/{data['beaver'].pk}/").json()
    assert body["text"] == "eager beaver"
    assert body["gold_synonym"] == "enthusiast"
    assert body["frequency"] == 1234.0
    by_id = {sentence["id"]: sentence for sentence in body["sentences"]}
    first = by_id[data["first"].pk]
    assert first["text"] == "Carol is such an eager beaver that she starts at six."
    assert (first["span_start"], first["span_end"], first["surface"]) == (17, 29, "eager beaver")
    assert first["kind"] == vocabulary.NATURALISTIC and first["slot"] == 1
    second = by_id[data["second"].pk]
    assert second["surface"] == "eager beavers" and second["plural"] is True
    pointer = by_id[data["pointer"].pk]
    assert pointer["available"] is False
    assert pointer["corpus_pointer"] == "ukWaC doc 1234"
    assert pointer["surface"] == "" and pointer["span_start"] is None
    paraphrases = [(p["level"], p["text"], p["frequency"], p["sentence"]) for p in body["paraphrases"]]
    assert paraphrases == [
        ("type", "enthusiast", 3, None),
        ("type", "hard worker", 2, None),
        ("token", "keen person", 1, data["first"].pk),
    ]


def test_compound_detail_404(client):
    assert client.get("/api/compounds/424242/").status_code == 404


def test_sentence_list_and_filters(client):
    data = make_dataset()
    rows = results(client, "/api/sentences/")
    assert len(rows) == 6
    first = next(row for row in rows if row["id"] == data["first"].pk)
    assert first["compound"] == data["beaver"].pk
    assert first["compound_text"] == "eager beaver"
    assert first["collection"] == "default"
    assert first["language"] == "en"
    assert first["surface"] == "eager beaver"
    assert ids(client, "/api/sentences/", available="false") == [data["pointer"].pk]
    assert len(results(client, "/api/sentences/", available="true")) == 5
    portuguese = results(client, "/api/sentences/", language="pt")
    assert [row["compound_text"] for row in portuguese] == ["guarda chuva"]
    assert len(results(client, "/api/sentences/", compound=data["beaver"].pk)) == 4
    neutral = results(client, "/api/sentences/", kind=vocabulary.NEUTRAL_SHORT)
    assert [row["id"] for row in neutral] == [data["neutral"].pk]


@pytest.mark.parametrize(
    "params",
    [{"available": "maybe"}, {"compound": "beaver"}, {"kind": "poetic"}],
    ids=["available", "compound", "kind"],
)
def test_sentence_filters_reject_bad_values(client, params):
    response = client.get("/api/sentences/", params)
    assert response.status_code == 400
    assert set(response.json()) == set(params)


def test_sentence_detail(client):
    data = make_dataset()
    body = client.get(f"/api/sentences/{data['second'].pk}/").json()
    assert body["text"] == "The eager beavers stayed late."
    assert body["surface"] == "eager beavers"


def test_variant_list_shape_and_filters(client):
    data = make_dataset()
    rows = results(client, "/api/variants/")
    assert len(rows) == 3
    synonym = next(row for row in rows if row["id"] == data["synonym"].pk)
    assert synonym["sentence"] == data["first"].pk
    assert synonym["compound"] == data["beaver"].pk
    assert synonym["language"] == "en"
    assert synonym["kind"] == vocabulary.SYNONYM_NC
    assert synonym["kind_label"] == "Synonym of the compound (NC_Syn)"
    assert synonym["text"] == "Carol is such an enthusiast that she starts at six."
    assert synonym["replacement"] == "enthusiast"
    assert synonym["status"] == vocabulary.GENERATED
    assert ids(client, "/api/variants/", status=vocabulary.APPROVED) == [data["head_only"].pk]
    assert ids(client, "/api/variants/", kind=vocabulary.HEAD_ONLY) == [data["head_only"].pk]
    assert len(results(client, "/api/variants/", sentence=data["first"].pk)) == 2
    assert len(results(client, "/api/variants/", compound=data["beaver"].pk)) == 3
    assert len(results(client, "/api/variants/", compound=data["olive"].pk)) == 0
    assert len(results(client, "/api/variants/", language="en")) == 3
    assert results(client, "/api/variants/", language="pt") == []
    assert client.get("/api/variants/", {"status": "lost"}).status_code == 400


def test_limit_offset_pagination(client):
    for number in range(7):
        make_compound(f"word{number} thing")
    body = client.get("/api/compounds/", {"limit": 3, "offset": 3}).json()
    assert body["count"] == 7
    assert [row["text"] for row in body["results"]] == ["word3 thing", "word4 thing", "word5 thing"]
    assert "limit=3" in body["next"] and "offset=6" in body["next"]
    assert "limit=3" in body["previous"]


def test_api_is_read_only(client):
    data = make_dataset()
    assert client.post("/api/compounds/", {"text": "new one", "language": "en"}).status_code == 405
    assert client.delete(f"/api/compounds/{data['beaver'].pk}/").status_code == 405


def build_many(compounds: int = 6) -> None:
    for number in range(compounds):
        compound = make_compound(f"word{number} thing")
        for slot in (1, 2, 3):
            sentence = make_sentence(compound, f"Niaj saw word{number} thing {slot} times.", slot=slot)
            make_variant(sentence, "something")
            make_variant(sentence, "other", kind=vocabulary.HEAD_ONLY)


# A curator's request adds three: the session, the user and the curators group.
SIGNED_IN = 3


@pytest.mark.parametrize(
    ("path", "max_queries"),
    [("/api/compounds/", 3 + SIGNED_IN), ("/api/sentences/", 2 + SIGNED_IN), ("/api/variants/", 2 + SIGNED_IN)],
)
def test_api_lists_do_a_constant_number_of_queries(client, django_assert_max_num_queries, path, max_queries):
    build_many()
    with django_assert_max_num_queries(max_queries):
        response = client.get(path)
    assert response.status_code == 200
    assert len(response.json()["results"]) >= 6


def test_api_compound_detail_query_count(client, django_assert_max_num_queries):
    build_many(1)
    compound_id = client.get("/api/compounds/").json()["results"][0]["id"]
    with django_assert_max_num_queries(3 + SIGNED_IN):
        response = client.get(f"/api/compounds/{compound_id}/")
    assert len(response.json()["sentences"]) == 3


def test_schema_endpoint_serves_openapi_3(client):
    response = client.get("/api/schema/")
    assert response.status_code == 200
    schema = yaml.safe_load(response.content)
    assert schema["openapi"].startswith("3.")
    assert {
        "/api/compounds/",
        "/api/compounds/{id}/",
        "/api/sentences/",
        "/api/sentences/{id}/",
        "/api/variants/",
        "/api/variants/{id}/",
    } <= set(schema["paths"])
    parameters = {p["name"] for p in schema["paths"]["/api/variants/"]["get"]["parameters"]}
    assert {"collection", "language", "compound", "sentence", "kind", "status"} <= parameters
    assert {"limit", "offset"} <= parameters
    parameters = {p["name"] for p in schema["paths"]["/api/compounds/"]["get"]["parameters"]}
    assert {"collection", "language", "class", "q"} <= parameters
    parameters = {p["name"] for p in schema["paths"]["/api/sentences/"]["get"]["parameters"]}
    assert {"collection", "language", "compound", "kind", "available"} <= parameters
    json_schema = client.get("/api/schema/", {"format": "json"}).json()
    assert json_schema["paths"].keys() == schema["paths"].keys()


def test_schema_generation_has_no_warnings(tmp_path):
    target = tmp_path / "schema.yaml"
    call_command("spectacular", "--fail-on-warn", "--file", str(target))
    assert "/api/compounds/{id}/" in yaml.safe_load(target.read_text())["paths"]
