"""The review page says where each replacement came from and the parts of its score."""

import pytest
from django.urls import reverse

from building.pages.review_views import ranking_rows
from datasets import vocabulary
from tests.building.review_factories import make_curator, make_review_compound
from tests.datasets.factories import make_variant

pytestmark = pytest.mark.django_db

RANKED = {
    "modifier": {"word": "eager", "synonym": "keen"},
    "head": {"word": "beaver", "synonym": "worker"},
    "ranking": {
        "modifier": {"source": "lexicon", "parts": {"sense": 2.0, "frequency": 0.4}, "total": 2.4},
        "head": {"source": "crowd", "parts": {"crowd": 1.5, "frequency": 0.3}, "total": 1.8},
        "total": 4.2,
    },
}


def test_the_curator_sees_each_words_source_and_score_parts(client):
    data = make_review_compound()
    make_variant(data["natural"], "keen worker", kind=vocabulary.SYNONYM_BOTH, rank=2, details=RANKED)
    client.force_login(make_curator())
    page = client.get(reverse("review_compound", args=[data["compound"].pk])).content.decode()
    assert "Ranked by score 4.2: keen from the lexicon, worker from the crowd" in page
    assert "head: worker</th><td>crowd</td><td>crowd 1.5 · frequency 0.3</td><td>1.8</td>" in page


def test_a_variant_without_a_stored_ranking_shows_none():
    assert ranking_rows({"modifier": {"synonym": "keen"}}) == []
    rows = ranking_rows(RANKED)
    assert [(r["side"], r["word"], r["source"]) for r in rows] == [
        ("modifier", "keen", "lexicon"),
        ("head", "worker", "crowd"),
    ]
