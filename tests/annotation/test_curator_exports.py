"""Exports of ratings and paraphrases (pages and API) hold exactly the campaign's answers."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.urls import reverse

from annotation.actions import claim_next_item, enter_campaign, skip_item
from annotation.curate import exports
from annotation.models import Annotator, Rating, SuggestedParaphrase
from tests.annotation.test_curator import make_campaign, make_user, rate_next

pytestmark = pytest.mark.django_db


@pytest.fixture
def curator_client(client):
    client.force_login(make_user("curator"))
    return client


@pytest.fixture
def campaigns():
    """A campaign with four ratings (some with paraphrases) and another with one of its own."""
    campaign = make_campaign(n=2, items=2)
    ana = enter_campaign(campaign, platform=Annotator.Platform.PROLIFIC, external_id="ana")
    local = enter_campaign(campaign, user=make_user("annotator"))
    rate_next(ana, head=1, modifier=2, compound=3, paraphrases=["keen person", 'worker; "busy", <b>'])
    rate_next(ana, head=4, modifier=5, compound=0)
    rate_next(local, seconds=25, paraphrases=["enthusiast"])
    rate_next(local)
    other = make_campaign(n=1, items=1)
    rate_next(enter_campaign(other, platform=Annotator.Platform.MTURK, external_id="zed"), paraphrases=["elsewhere"])
    return campaign, other


def content(response) -> str:
    return b"".join(response.streaming_content).decode()


def expected_ratings(campaign) -> dict[int, Rating]:
    return {r.pk: r for r in Rating.objects.filter(item__campaign=campaign).select_related("item", "annotator")}


def check_rating_rows(rows: list[dict], campaign) -> None:
    expected = expected_ratings(campaign)
    assert sorted(int(row["rating_id"]) for row in rows) == sorted(expected)
    for row in rows:
        rating = expected[int(row["rating_id"])]
        assert row["campaign"] == campaign.slug
        assert int(row["item_id"]) == rating.item_id and row["role"] == "regular"
        assert row["compound"] == rating.item.compound.text and row["language"] == "en"
        assert int(row["sentence_id"]) == rating.item.sentence_id
        assert int(row["sentence_slot"]) == rating.item.sentence.slot
        assert int(row["annotator_id"]) == rating.annotator_id
        assert row["platform"] == rating.annotator.platform
        assert row["external_id"] == rating.annotator.external_id
        scores = (int(row["head_score"]), int(row["modifier_score"]), int(row["compound_score"]))
        assert scores == (rating.head_score, rating.modifier_score, rating.compound_score)
        assert float(row["seconds"]) == pytest.approx(rating.seconds)
        assert row["created_at"] == rating.created_at.isoformat()
        assert row["paraphrases"] == ";".join(p.text for p in rating.paraphrases.order_by("position"))


def test_ratings_csv_has_one_row_per_rating(curator_client, campaigns):
    campaign, _ = campaigns
    response = curator_client.get(reverse("curator:export", args=[campaign.slug, "ratings", "csv"]))
    assert response.status_code == 200 and response.streaming
    assert response["Content-Type"].startswith("text/csv")
    assert f'filename="{campaign.slug}-ratings.csv"' in response["Content-Disposition"]
    text = content(response)
    reader = csv.DictReader(io.StringIO(text))
    assert reader.fieldnames == exports.RATING_FIELDS
    rows = list(reader)
    assert len(rows) == 4
    check_rating_rows(rows, campaign)
    assert 'keen person;worker; "busy", <b>' in {row["paraphrases"] for row in rows}


def test_ratings_json_has_one_object_per_rating(curator_client, campaigns):
    campaign, other = campaigns
    response = curator_client.get(reverse("curator:export", args=[campaign.slug, "ratings", "json"]))
    assert response["Content-Type"] == "application/json"
    rows = json.loads(content(response))
    assert len(rows) == 4 and all(list(row) == exports.RATING_FIELDS for row in rows)
    check_rating_rows(rows, campaign)
    rows = json.loads(content(curator_client.get(reverse("curator:export", args=[other.slug, "ratings", "json"]))))
    assert [row["external_id"] for row in rows] == ["zed"] and rows[0]["platform"] == "mturk"


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_paraphrase_export_has_one_row_per_paraphrase(curator_client, campaigns, fmt):
    campaign, _ = campaigns
    response = curator_client.get(reverse("curator:export", args=[campaign.slug, "paraphrases", fmt]))
    text = content(response)
    rows = list(csv.DictReader(io.StringIO(text))) if fmt == "csv" else json.loads(text)
    paraphrases = SuggestedParaphrase.objects.filter(rating__item__campaign=campaign)
    assert sorted((int(r["rating_id"]), int(r["position"]), r["paraphrase"]) for r in rows) == sorted(
        paraphrases.values_list("rating_id", "position", "text")
    )
    assert len(rows) == 3 and all(row["campaign"] == campaign.slug for row in rows)


def test_an_empty_campaign_exports_a_header_or_an_empty_list(curator_client):
    campaign = make_campaign(items=1)
    csv_text = content(curator_client.get(reverse("curator:export", args=[campaign.slug, "ratings", "csv"])))
    assert csv_text.strip() == ",".join(exports.RATING_FIELDS)
    json_text = content(curator_client.get(reverse("curator:export", args=[campaign.slug, "paraphrases", "json"])))
    assert json.loads(json_text) == []


def test_unknown_exports_are_404(curator_client, campaigns):
    campaign, _ = campaigns
    assert curator_client.get(reverse("curator:export", args=[campaign.slug, "ratings", "xlsx"])).status_code == 404
    assert curator_client.get(reverse("curator:export", args=[campaign.slug, "items", "csv"])).status_code == 404


def test_exports_take_a_constant_number_of_queries(campaigns, django_assert_max_num_queries):
    campaign, _ = campaigns
    with django_assert_max_num_queries(2):  # the ratings and one prefetch of their paraphrases
        assert len(list(exports.rating_rows(campaign))) == 4
    with django_assert_max_num_queries(1):
        assert len(list(exports.paraphrase_rows(campaign))) == 3


# The API.


def test_api_campaigns_list_progress(curator_client, campaigns):
    campaign, other = campaigns
    data = curator_client.get(reverse("annotation_api:campaign-list")).json()
    by_slug = {row["slug"]: row for row in data["results"]}
    assert by_slug[campaign.slug]["item_count"] == 2 and by_slug[campaign.slug]["rating_count"] == 4
    assert by_slug[campaign.slug]["progress"] == 1.0
    assert by_slug[other.slug]["progress"] == 1.0 and by_slug[other.slug]["collection"] == "demo"
    detail = curator_client.get(reverse("annotation_api:campaign-detail", args=[campaign.pk])).json()
    assert detail["status"] == "open" and detail["annotator_count"] == 2


def test_api_ratings_filter_by_campaign(curator_client, campaigns):
    campaign, other = campaigns
    url = reverse("annotation_api:rating-list")
    everything = curator_client.get(url).json()
    assert everything["count"] == 5
    for key in (campaign.slug, str(campaign.pk)):
        data = curator_client.get(url, {"campaign": key}).json()
        assert sorted(row["rating_id"] for row in data["results"]) == sorted(expected_ratings(campaign))
        assert list(data["results"][0]) == exports.RATING_FIELDS  # the export's columns, in its order
    [row] = curator_client.get(url, {"campaign": other.slug}).json()["results"]
    assert row["external_id"] == "zed" and row["paraphrases"] == ["elsewhere"] and row["campaign"] == other.slug


@pytest.mark.parametrize(("table", "fmt"), [("ratings", "csv"), ("ratings", "json"), ("paraphrases", "csv")])
def test_api_export(curator_client, campaigns, table, fmt):
    campaign, _ = campaigns
    url = reverse("annotation_api:campaign-export", args=[campaign.pk])
    response = curator_client.get(url, {"table": table, "file": fmt})
    assert response.status_code == 200
    page = curator_client.get(reverse("curator:export", args=[campaign.slug, table, fmt]))
    assert content(response) == content(page)


def test_api_export_rejects_unknown_choices(curator_client, campaigns):
    campaign, _ = campaigns
    url = reverse("annotation_api:campaign-export", args=[campaign.pk])
    assert curator_client.get(url, {"table": "items"}).json() == {
        "table": ["'items' is not one of: ratings, paraphrases, skips, annotators, machine_answers."]
    }
    assert curator_client.get(url, {"file": "xlsx"}).status_code == 400


def test_schema_lists_the_annotation_api(client):
    import yaml

    schema = yaml.safe_load(client.get("/api/schema/").content)
    assert {"/api/annotation/campaigns/", "/api/annotation/ratings/", "/api/annotation/campaigns/{id}/export/"} <= set(
        schema["paths"]
    )


def test_csv_cells_that_a_spreadsheet_would_run_as_formulas_are_defused():
    from annotation.curate.exports import csv_chunks

    text = "".join(
        csv_chunks([{"paraphrase": '=HYPERLINK("http://x")', "n": -1, "ok": "keen person"}], ["paraphrase", "n", "ok"])
    )
    assert text.splitlines()[1] == '"\'=HYPERLINK(""http://x"")",-1,keen person'


def test_skips_are_exported_with_their_reason_and_counted_per_annotator(curator_client):
    campaign = make_campaign(n=1, items=2)
    ana = enter_campaign(campaign, platform="prolific", external_id="ana")
    skipped = claim_next_item(ana)
    assert skip_item(ana, str(skipped.token)).skip is not None
    rate_next(ana)
    rate_next(enter_campaign(campaign, platform="prolific", external_id="bob"))

    response = curator_client.get(reverse("curator:export", args=[campaign.slug, "skips", "csv"]))
    [row] = list(csv.DictReader(io.StringIO(content(response))))
    assert set(row) == set(exports.SKIP_FIELDS)
    assert row["external_id"] == "ana" and int(row["item_id"]) == skipped.item_id
    assert row["compound"] == skipped.item.compound.text and row["reason"] == "unknown_expression"
    annotators = curator_client.get(reverse("curator:export", args=[campaign.slug, "annotators", "json"]))
    assert {row["external_id"]: row["skipped"] for row in json.loads(content(annotators))} == {"ana": 1, "bob": 0}
