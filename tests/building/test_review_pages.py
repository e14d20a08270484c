"""The curation pages: the review queue and a compound's review page, with and without JavaScript."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from django.utils.html import escape

from building.models import VariantChange
from building.variants.curation import approve_variant, reject_variant
from datasets import vocabulary
from datasets.models import Variant
from tests.building.review_factories import AGREEMENT_FLAG, make_annotator, make_curator, make_review_compound
from tests.datasets.factories import make_compound, make_sentence, make_variant

pytestmark = pytest.mark.django_db


def review_url(data, **params) -> str:
    url = reverse("review_compound", args=[data["compound"].pk])
    return url + ("?" + "&".join(f"{k}={val}" for k, val in params.items()) if params else "")


def action_url(variant: Variant, action: str, query: str = "") -> str:
    return reverse("review_variant", kwargs={"pk": variant.pk, "action": action}) + (f"?{query}" if query else "")


def row_ids(response) -> list[int]:
    return [int(pk) for pk in re.findall(r'<li class="review-row[^"]*" id="variant-(\d+)"', response.content.decode())]


def row_html(response, variant: Variant) -> str:
    """The variant's row, up to the next row or the end of its list."""
    after = response.content.decode().split(f'id="variant-{variant.pk}"', 1)[1]
    return re.split(r'<li class="review-row|</ol>\s*</section>', after, maxsplit=1)[0]


# (method, url from the data, POST data); every one must be refused to anyone but a curator.
PAGES = [
    ("get", lambda d: reverse("review_queue"), None),
    ("get", lambda d: review_url(d), None),
    ("post", lambda d: action_url(d["synonym"], "approve"), {}),
    ("post", lambda d: action_url(d["synonym"], "reject"), {}),
    ("post", lambda d: action_url(d["approved"], "reset"), {}),
    ("post", lambda d: action_url(d["synonym"], "edit"), {"marked_text": "Carol is such an [ace] that she starts."}),
    ("post", lambda d: reverse("review_approve_unflagged", args=[d["compound"].pk]), {}),
]


@pytest.mark.parametrize("role", ["anonymous", "annotator", "curator"])
@pytest.mark.parametrize(("method", "url", "body"), PAGES)
def test_only_curators_may_review(client, data, role, method, url, body):
    if role == "annotator":
        client.force_login(make_annotator("bob"))
    elif role == "curator":
        client.force_login(make_curator("alice"))
    response = getattr(client, method)(url(data), body)

    if role == "anonymous":
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("login") + "?next=")
    elif role == "annotator":
        assert response.status_code == 403
    else:
        assert response.status_code == (200 if method == "get" else 302)
    assert VariantChange.objects.exists() == (role == "curator" and method == "post")


def test_the_queue_counts_each_compounds_variants_by_status(curator_client, data):
    make_compound("olive oil")  # no variants: nothing to review

    response = curator_client.get(reverse("review_queue"))

    rows = response.context["page"].object_list
    assert [c.text for c in rows] == ["eager beaver"]
    beaver = rows[0]
    assert (beaver.pending, beaver.flagged, beaver.approved, beaver.edited, beaver.rejected, beaver.total) == (
        5,
        1,
        1,
        0,
        1,
        7,
    )
    assert reverse("review_compound", args=[data["compound"].pk]) in response.content.decode()


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({}, ["eager beaver", "guarda chuva", "night owl"]),
        ({"language": "pt"}, ["guarda chuva"]),
        ({"collection": "demo"}, ["night owl"]),
        ({"pending": "on"}, ["eager beaver", "guarda chuva"]),
        ({"flagged": "on"}, ["eager beaver"]),
    ],
)
def test_the_queue_filters_by_language_collection_pending_and_flagged(curator_client, alice, data, params, expected):
    guarda = make_compound("guarda chuva", language="pt")
    make_variant(make_sentence(guarda, "Erin esqueceu o guarda chuva."), "sombrinha")
    owl = make_review_compound("night owl", collection="demo")
    for name in ("synonym", "flagged", "head", "neutral_synonym", "isolated"):
        approve_variant(owl[name], alice)

    response = curator_client.get(reverse("review_queue"), params)

    assert [c.text for c in response.context["page"].object_list] == expected


def test_the_queue_takes_a_constant_number_of_queries(curator_client, django_assert_max_num_queries):
    for number in range(6):
        make_review_compound(f"compound {number}")
    # session, user, groups; collections and languages for the filters; count, page; first pending.
    with django_assert_max_num_queries(9):
        assert curator_client.get(reverse("review_queue")).status_code == 200


def test_the_review_page_highlights_the_compound_and_each_replacement(curator_client, data):
    response = curator_client.get(review_url(data))
    html = response.content.decode()

    assert '<mark class="nc">eager beaver</mark>' in html
    assert 'Carol is such an <mark class="rep">enthusiast</mark> that she starts at six.' in html
    assert html.index(f'id="sentence-{data["natural"].pk}"') < html.index(f'id="sentence-{data["neutral"].pk}"')
    # The flag is shown split into its code and its message.
    code, message = AGREEMENT_FLAG.split(": ", 1)
    assert f"<strong>{code}</strong> {escape(message)}" in html
    assert 'aria-label="Synonyms of both words (NC_WordsSyn), rank 1: pending, 1 flag"' in html
    assert "Keyboard:" in html and "static/js/review.js" in html


def test_the_review_page_takes_a_constant_number_of_queries(curator_client, data, django_assert_max_num_queries):
    for variant in Variant.objects.all():
        approve_variant(variant, make_curator(f"curator-{variant.pk}"))
    # session, user, groups; compound; sentences, their counts; variants, changes; next and previous compounds.
    with django_assert_max_num_queries(10):
        assert curator_client.get(review_url(data)).status_code == 200


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"status": "pending"}, ["synonym", "flagged", "head", "isolated", "neutral_synonym"]),
        ({"status": "approved"}, ["approved"]),
        ({"status": "rejected"}, ["rejected"]),
        ({"flagged": "1"}, ["flagged"]),
        ({"kind": vocabulary.HEAD_ONLY}, ["head"]),
        ({"kind": vocabulary.SYNONYM_NC, "status": "pending"}, ["synonym", "isolated", "neutral_synonym"]),
        ({"status": "lost"}, ["synonym", "isolated", "head", "approved", "flagged", "rejected", "neutral_synonym"]),
    ],
)
def test_the_review_page_filters_variants(curator_client, data, params, expected):
    response = curator_client.get(review_url(data), params)

    shown = {data[name].pk for name in expected}
    assert set(row_ids(response)) == shown


def test_approving_without_javascript_redirects_back_with_the_filters_and_an_anchor(curator_client, alice, data):
    variant = data["synonym"]

    response = curator_client.post(action_url(variant, "approve", "status=pending&kind=synonym_nc&junk=1"))

    assert response.status_code == 302
    assert response["Location"] == review_url(data, status="pending", kind="synonym_nc") + f"#variant-{variant.pk}"
    variant.refresh_from_db()
    assert (variant.status, variant.decided_by) == (vocabulary.APPROVED, alice)


def test_each_row_shows_its_last_change_and_its_history(curator_client, alice, data):
    carol = make_curator("carol")
    approve_variant(data["synonym"], carol)
    reject_variant(data["synonym"], alice, note="too formal")

    row = row_html(curator_client.get(review_url(data)), data["synonym"])

    assert "rejected by alice, " in row and "ago" in row
    assert "History (2)" in row
    assert "Approved</strong> by carol" in row and "Rejected</strong> by alice" in row and "too formal" in row


def test_a_bad_edit_shows_the_error_in_the_page_and_changes_nothing(curator_client, data):
    variant = data["synonym"]
    before = variant.snapshot()

    response = curator_client.post(action_url(variant, "edit"), {"marked_text": "no brackets at all"})

    assert response.status_code == 400
    html = response.content.decode()
    assert "Mark the replacement with exactly one pair of [brackets]" in html
    assert 'value="no brackets at all"' in html  # the curator's text is kept to fix
    variant.refresh_from_db()
    assert variant.snapshot() == before
    assert not VariantChange.objects.exists()


def test_an_edit_saves_the_text_and_span(curator_client, alice, data):
    variant = data["flagged"]

    response = curator_client.post(
        action_url(variant, "edit"), {"marked_text": "Carol is such a [keen person] that she starts at six."}
    )

    assert response.status_code == 302
    variant.refresh_from_db()
    assert (variant.status, variant.replacement, variant.flags) == (vocabulary.EDITED, "keen person", [])


def test_with_json_an_action_answers_with_the_row_to_swap_in(curator_client, data):
    variant = data["head"]

    response = curator_client.post(action_url(variant, "reject"), HTTP_ACCEPT="application/json")

    assert response.status_code == 200
    body = response.json()
    assert body["status"] == vocabulary.REJECTED
    assert list(body["rows"]) == [str(variant.pk)]
    assert f'id="variant-{variant.pk}"' in body["rows"][str(variant.pk)]
    assert "rejected by alice" in body["rows"][str(variant.pk)]
    assert (body["counts"]["pending"], body["counts"]["rejected"]) == (4, 2)


def test_with_json_a_bad_edit_answers_400_with_the_message(curator_client, data):
    response = curator_client.post(
        action_url(data["synonym"], "edit"), {"marked_text": "an [] here"}, HTTP_ACCEPT="application/json"
    )

    assert response.status_code == 400
    assert "mark nothing" in response.json()["error"]


def test_approve_all_unflagged_keeps_to_the_kind_filter(curator_client, data):
    url = reverse("review_approve_unflagged", args=[data["compound"].pk]) + "?kind=head_only"

    response = curator_client.post(url)

    assert response["Location"] == review_url(data, kind="head_only")
    approved = set(Variant.objects.filter(status=vocabulary.APPROVED).values_list("pk", flat=True))
    assert approved == {data["head"].pk, data["approved"].pk}
    assert VariantChange.objects.count() == 1


def test_with_json_approve_all_unflagged_answers_with_the_rows_the_page_shows_and_audits_each(curator_client, data):
    url = reverse("review_approve_unflagged", args=[data["compound"].pk]) + "?status=pending&page=1"
    shown = [data["synonym"].pk, data["flagged"].pk]

    response = curator_client.post(url, {"shown": shown}, HTTP_ACCEPT="application/json")

    body = response.json()
    assert body["approved"] == 4  # synonym, isolated, head and the neutral synonym; not the flagged one
    assert sorted(body["rows"]) == sorted(str(pk) for pk in shown)
    assert "approved by alice" in body["rows"][str(data["synonym"].pk)]
    assert "status=pending" in body["rows"][str(data["flagged"].pk)]  # its forms come back to this view
    audited = VariantChange.objects.filter(action="approve", user__username="alice")
    assert set(audited.values_list("variant_id", flat=True)) == {
        data[name].pk for name in ("synonym", "isolated", "head", "neutral_synonym")
    }


def test_an_action_without_javascript_comes_back_to_the_same_page_of_variants(curator_client, data):
    variant = data["head"]

    response = curator_client.post(action_url(variant, "approve", "status=pending&page=2"))

    assert response["Location"] == review_url(data, status="pending", page=2) + f"#variant-{variant.pk}"


def test_the_next_compound_link_skips_compounds_without_pending_variants(curator_client, alice, data):
    done = make_review_compound("fire brigade")
    for variant in Variant.objects.filter(sentence__compound=done["compound"], status=vocabulary.GENERATED):
        approve_variant(variant, alice)
    owl = make_review_compound("night owl")

    response = curator_client.get(review_url(data))
    assert response.context["next_compound"] == owl["compound"]
    assert reverse("review_compound", args=[owl["compound"].pk]) in response.content.decode()
    # From the last compound the link starts again from the top.
    assert curator_client.get(review_url(owl)).context["next_compound"] == data["compound"]


def test_the_compound_page_links_curators_to_the_review_page(client, alice, data):
    link = reverse("review_compound", args=[data["compound"].pk])
    page = reverse("compound", args=[data["compound"].pk])
    assert link not in client.get(page).content.decode()
    client.force_login(alice)
    assert link in client.get(page).content.decode()


def test_the_next_compound_button_says_what_the_next_compound_has(curator_client, data):
    owl = make_review_compound("night owl")

    narrowed = curator_client.get(review_url(data, sentence=data["natural"].pk)).content.decode()
    approved = curator_client.get(review_url(data, status="approved")).content.decode()

    assert "Next compound with pending variants: night owl" in narrowed
    assert "Next compound with matching variants: night owl" in approved
    assert reverse("review_compound", args=[owl["compound"].pk]) + "?status=approved#first-row" in approved
