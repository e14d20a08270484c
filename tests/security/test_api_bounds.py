"""The API cannot be made to send everything at once or to crash on a bad filter (issue 13, item 5).

`?limit=1000000` gets one bounded page, whoever asks; a NUL byte, an id beyond the database's
integers or an unknown choice in a filter is a 400 that names the parameter, never a 500. (Asked
as a curator, who may read every list.)
"""

from __future__ import annotations

import pytest
from django.conf import settings

from datasets import vocabulary
from datasets.models import Variant
from tests.building.review_factories import make_curator
from tests.datasets.factories import make_compound, make_sentence

LIST_ENDPOINTS = [
    "/api/compounds/",
    "/api/sentences/",
    "/api/variants/",
    "/api/releases/",
    "/api/probing/models/",
    "/api/probing/runs/",
    "/api/annotation/campaigns/",
    "/api/annotation/ratings/",
    "/api/annotation/policies/",
]


@pytest.fixture
def curator_client(client):
    client.force_login(make_curator("alice"))
    return client


@pytest.mark.django_db
def test_a_huge_limit_gets_one_bounded_page(curator_client):
    sentence = make_sentence(make_compound("eager beaver"))
    Variant.objects.bulk_create(
        Variant(sentence=sentence, kind=vocabulary.RANDOM, rank=rank, text=f"Alice called Bob an x{rank}.")
        for rank in range(1, settings.API_MAX_PAGE_SIZE + 2)
    )
    page = curator_client.get("/api/variants/", {"limit": 1_000_000}).json()
    assert page["count"] == settings.API_MAX_PAGE_SIZE + 1
    assert len(page["results"]) == settings.API_MAX_PAGE_SIZE
    assert f"limit={settings.API_MAX_PAGE_SIZE}" in page["next"]


@pytest.mark.django_db
@pytest.mark.parametrize("url", LIST_ENDPOINTS)
def test_every_list_endpoint_survives_absurd_pages(curator_client, url):
    for query in ["limit=99999999999999999999", "offset=99999999999999999999", "limit=-5&offset=-1"]:
        response = curator_client.get(f"{url}?{query}")
        assert response.status_code == 200
        assert len(response.json()["results"]) <= settings.API_MAX_PAGE_SIZE


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("url", "parameter"),
    [
        ("/api/compounds/?q=a%00b", "q"),
        ("/api/compounds/?collection=demo%00", "collection"),
        ("/api/sentences/?language=e%00n", "language"),
        ("/api/variants/?collection=%00", "collection"),
        ("/api/probing/runs/?model=mini%00lm", "model"),
        ("/api/probing/runs/?release=1.0.0%00", "release"),
        ("/api/annotation/ratings/?campaign=demo%00", "campaign"),
    ],
)
def test_a_nul_byte_in_a_filter_is_a_400_naming_it(curator_client, url, parameter):
    response = curator_client.get(url)
    assert response.status_code == 400
    assert "NUL" in response.json()[parameter][0]


OUT_OF_RANGE = [
    ("/api/sentences/?compound=99999999999999999999", "compound"),
    ("/api/variants/?sentence=99999999999999999999", "sentence"),
    ("/api/sentences/?compound=%C2%B2", "compound"),  # "²" passes str.isdigit() but not int()
    ("/api/variants/?compound=-1", "compound"),
]
UNKNOWN_CHOICES = [
    ("/api/probing/runs/?status=bogus", "status"),
    ("/api/variants/?status=bogus", "status"),
    ("/api/sentences/?kind=bogus", "kind"),
    ("/api/compounds/?class=bogus", "class"),
    ("/api/sentences/?available=bogus", "available"),
]


@pytest.mark.django_db
def test_an_id_out_of_range_is_a_400_naming_it(curator_client):
    for url, parameter in OUT_OF_RANGE:
        response = curator_client.get(url)
        assert response.status_code == 400, url
        assert "not an id" in response.json()[parameter][0]


@pytest.mark.django_db
def test_an_unknown_choice_is_a_400_naming_it(curator_client):
    for url, parameter in UNKNOWN_CHOICES:
        response = curator_client.get(url)
        assert response.status_code == 400, url
        assert "'bogus'" in response.json()[parameter][0]


@pytest.mark.django_db
def test_an_overlong_filter_is_a_400(curator_client):
    response = curator_client.get("/api/compounds/", {"q": "x" * 10_000})
    assert response.status_code == 400 and "longer than" in response.json()["q"][0]
