"""The review page with the public data imported: about a hundred variants a sentence, one page at a time."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.db.models import Count
from django.urls import reverse

from building.models import VariantChange
from building.pages.review import VARIANTS_PER_PAGE
from building.variants.curation import reject_variant, reset_variant
from datasets import vocabulary
from datasets.models import Compound, Variant

pytestmark = pytest.mark.django_db
FIRST_SCREEN_LIMIT = 200 * 1024


@pytest.fixture
def largest(shared_data, alice) -> Compound:
    """NCIMP's English neutral file (96 variants on one sentence of each compound), imported as approved.

    A curator sent 60 variants of the largest compound back to pending and rejected 40: rows with a
    history are the heaviest.
    """
    call_command("import_ncimp", str(shared_data / "ncimp" / "EN"), "--language", "en", stdout=StringIO())
    compound = Compound.objects.annotate(n=Count("sentences__variants")).order_by("-n", "pk").first()
    variants = list(Variant.objects.filter(sentence__compound=compound).order_by("pk"))
    for variant in variants[:60]:
        reset_variant(variant, alice)
    for variant in variants[60:100]:
        reject_variant(variant, alice, "too formal for the pattern")
    return compound


def row_ids(html: str) -> list[int]:
    return [int(pk) for pk in re.findall(r'<li class="review-row[^"]*" id="variant-(\d+)"', html)]


def test_the_first_screen_of_the_largest_compound_is_small_and_takes_few_queries(
    curator_client, largest, django_assert_max_num_queries
):
    variants = Variant.objects.filter(sentence__compound=largest)
    assert variants.count() > 3 * VARIANTS_PER_PAGE  # a real test of paging
    assert VariantChange.objects.filter(variant__sentence__compound=largest).count() == 100

    with django_assert_max_num_queries(10):
        response = curator_client.get(reverse("review_compound", args=[largest.pk]))

    html = response.content.decode()
    assert response.status_code == 200
    assert len(response.content) < FIRST_SCREEN_LIMIT
    assert len(row_ids(html)) == VARIANTS_PER_PAGE
    # Every sentence is listed with its counts, even those whose variants are on later pages.
    for sentence in largest.sentences.annotate(n=Count("variants")):
        assert f"sentence={sentence.pk}" in html
        assert f"of {sentence.n}\n" in html
    assert f"Variants 1–{VARIANTS_PER_PAGE} of {variants.count()}" in html


def test_every_page_of_the_largest_compound_shows_each_variant_once(curator_client, largest):
    url = reverse("review_compound", args=[largest.pk])
    seen: list[int] = []
    page = 1
    while True:
        response = curator_client.get(url, {"page": page})
        seen += row_ids(response.content.decode())
        if not response.context["page"].has_next():
            break
        page += 1
    assert sorted(seen) == sorted(Variant.objects.filter(sentence__compound=largest).values_list("pk", flat=True))
    assert len(seen) == len(set(seen))


def test_the_filters_narrow_the_pages_and_travel_in_next_and_previous(curator_client, largest):
    rejected = Variant.objects.filter(sentence__compound=largest, status=vocabulary.REJECTED)
    url = reverse("review_compound", args=[largest.pk])

    response = curator_client.get(url, {"status": "rejected"})

    assert set(row_ids(response.content.decode())) < set(rejected.values_list("pk", flat=True))
    assert response.context["next_url"] == f"{url}?status=rejected&page=2#first-row"
    second = curator_client.get(url, {"status": "rejected", "page": 2})
    assert set(row_ids(second.content.decode())) <= set(rejected.values_list("pk", flat=True))
    assert second.context["previous_url"] == f"{url}?status=rejected#last-row"
    # Past the last page: the next compound with a rejected variant, none of this compound's pages.
    assert not second.context["page"].has_next()
    assert second.context["next_url"] in ("", second.context["next_compound_url"])
