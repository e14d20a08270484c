import csv
import io
import json
import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from annotation.models import Campaign, FilterPolicy, Rating
from tests.annotation.test_curator import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo():
    call_command("create_demo_campaigns", stdout=StringIO())
    call_command("simulate_ratings", "demo-token", stdout=StringIO())
    return Campaign.objects.get(slug="demo-token")


@pytest.fixture
def curator_client(client):
    client.force_login(make_user("curator"))
    return client


def report_url(campaign: Campaign) -> str:
    return reverse("curator:report", args=[campaign.slug])


def test_campaign_report_is_for_curators_only(client, demo):
    url = report_url(demo)
    response = client.get(url)
    assert response.status_code == 302 and reverse("login") in response["Location"]
    client.force_login(make_user("annotator"))
    assert client.get(url).status_code == 403
    assert client.get(url + "?download=json").status_code == 403


def test_campaign_report_page_renders_charts_and_highlights_removed_annotators(curator_client, demo):
    Campaign.objects.filter(pk=demo.pk).update(status=Campaign.Status.OPEN)
    response = curator_client.get(report_url(demo) + "?policy=rho>=0.2")
    assert response.status_code == 200
    html = response.content.decode()
    assert "<svg" in html and 'class="chart bar-chart"' in html
    assert 'id="agreement"' in html and 'id="reliability"' in html and 'class="removed"' in html
    assert 'id="simulated-note"' in html and "sim-08" in html
    assert 'http-equiv="refresh"' not in html  # open: live, yet it never reloads (report_live.js updates in place)
    assert 'data-live="true" data-poll-seconds="30"' in html and "report_live.js" in html
    assert (
        '<option value="rho&gt;=0.2" selected>rho&gt;=0.2: policy “rho&gt;=0.2”; Spearman ρ against the others at least 0.2'
        in html
    )
    assert response.context["report"]["policy"]["name"] == "rho>=0.2"


def test_a_closed_campaign_does_not_refresh_and_unknown_policies_404(curator_client, demo):
    Campaign.objects.filter(pk=demo.pk).update(status=Campaign.Status.CLOSED)
    html = curator_client.get(report_url(demo)).content.decode()
    assert 'http-equiv="refresh"' not in html and 'data-live="true"' not in html
    assert "The campaign is not open: these figures change no more" in html
    assert curator_client.get(report_url(demo) + "?policy=nope").status_code == 404
    assert curator_client.get(report_url(demo) + "?download=xml").status_code == 404


def test_a_campaign_without_ratings_renders(curator_client, demo):
    response = curator_client.get(reverse("curator:report", args=["demo-type"]))
    assert response.status_code == 200 and b"No ratings yet" in response.content


def test_downloads(curator_client, demo):
    url = report_url(demo)
    data = json.loads(curator_client.get(url + "?download=json&policy=rho>=0.2").content)
    assert data["items"]["policy"] == "rho>=0.2" and data["policy"]["removed"]
    response = curator_client.get(url + "?download=items.csv&policy=rho>=0.2")
    assert response["Content-Type"].startswith("text/csv") and "attachment" in response["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert len(rows) == len(data["items"]["rows"]) and {r["policy"] for r in rows} == {"rho>=0.2"}
    assert {r["question"] for r in rows} == {"compound_score", "head_score", "modifier_score"}
    compounds = list(csv.DictReader(io.StringIO(curator_client.get(url + "?download=compounds.csv").content.decode())))
    assert compounds and {r["policy"] for r in compounds} == {"none"} and compounds[0]["comp_mean"]


def test_the_dashboard_links_to_the_report(curator_client, demo):
    html = curator_client.get(reverse("curator:dashboard", args=[demo.slug])).content.decode()
    assert report_url(demo) in html


def test_language_report_is_for_curators_with_a_scatter_plot(curator_client, demo):
    language = demo.language
    response = curator_client.get(reverse("language_report", args=[language]))
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="correlations"' in html and 'id="class-means"' in html
    assert 'class="chart scatter"' in html and "<circle" in html
    assert curator_client.get(reverse("language_report", args=["xx"])).status_code == 404
    assert reverse("language_report", args=[language]) in curator_client.get(reverse("home")).content.decode()


def test_language_report_shows_no_scores_to_anyone_else(client, demo):
    # Its per-compound scores are the answers crowd workers are asked for.
    url = reverse("language_report", args=[demo.language])
    assert client.get(url).status_code == 302
    client.force_login(make_user("annotator"))
    assert client.get(url).status_code == 403


def test_api_report_and_policies(client, demo):
    url = f"/api/annotation/campaigns/{demo.pk}/report/"
    assert client.get(url).status_code in (401, 403)
    client.force_login(make_user("annotator"))
    assert client.get(url).status_code == 403
    assert client.get("/api/annotation/policies/").status_code == 403
    client.force_login(make_user("curator"))
    data = client.get(url, {"policy": "rho>=0.2"}).json()
    assert data["policy"]["name"] == "rho>=0.2" and data["campaign"]["id"] == demo.pk
    assert set(data) >= {"agreement", "reliability", "items", "compounds", "distributions", "paraphrases"}
    assert client.get(url, {"policy": "nope"}).status_code == 400
    listed = client.get("/api/annotation/policies/").json()
    assert {"none", "rho>=0.2", "rho>=0.4"} <= {p["name"] for p in listed["results"]}
    created = client.post(
        "/api/annotation/policies/", {"name": "strict", "min_rho": 0.5, "min_items": 5}, content_type="application/json"
    )
    assert created.status_code == 201, created.content
    assert created.json()["created_by"] and FilterPolicy.objects.filter(name="strict").exists()
    assert client.get(url, {"policy": "strict"}).json()["policy"]["min_rho"] == 0.5
    duplicate = client.post("/api/annotation/policies/", {"name": "strict"}, content_type="application/json")
    assert duplicate.status_code == 400


def test_the_agreement_table_explains_top_k_and_gives_every_alpha_an_interval_or_a_reason(curator_client, demo):
    response = curator_client.get(report_url(demo))

    html = response.content.decode()
    table = html.split('id="agreement"', 1)[1].split("</table>", 1)[0]
    assert "nan" not in table.lower()
    assert "top 2" in table and "top 3" in table and "Compound score" in table
    assert "compound_score" not in table
    note = html.split('id="agreement-procedures"', 1)[1].split("</p>", 1)[0]
    assert "largest number of items in common" in note and "Garcia" in note and "2021" in note
    for row in response.context["report"]["agreement"]["rows"]:
        has_interval = row["low"] is not None and row["low"] == row["low"]
        assert has_interval or row["interval_note"], row


def test_classes_are_words_and_unclassified_paraphrase_rows_are_explained(curator_client, demo):
    response = curator_client.get(report_url(demo))

    html = response.content.decode()
    compounds = html.split('id="compounds"', 1)[1].split("</table>", 1)[0]
    assert "partly_compositional" not in compounds
    labels = {row["class_label"] for row in response.context["compound_rows"]}
    assert labels and labels <= {"Idiomatic", "Partly compositional", "Compositional", "Unclassified"}
    assert 'id="paraphrase-levels"' in html or "No paraphrases yet." in html
    for row in response.context["report"]["paraphrases"]["rows"]:
        if not row["type"] and not row["token"]:
            assert "Not classified yet" in html


def test_the_score_histograms_have_readable_labels(curator_client, demo):
    import re

    html = curator_client.get(report_url(demo)).content.decode()
    charts = re.findall(r'<svg class="chart bar-chart".*?</svg>', html, flags=re.S)
    assert charts
    sizes = {int(size) for chart in charts for size in re.findall(r'font-size="(\d+)"', chart)}
    assert sizes and min(sizes) >= 12


def test_the_report_says_when_it_was_computed_and_the_policy_in_words(curator_client, demo):
    html = curator_client.get(report_url(demo)).content.decode()

    computed = re.search(r'Computed <time datetime="([^"]+)">([^<]+)</time>', html)
    assert (
        computed
        and "T" in computed.group(1)
        and re.fullmatch(r"\d{1,2} \w{3} \d{4}, \d\d:\d\d:\d\d \w+", computed.group(2))
    )
    assert "(nobody removed)" not in html
    assert (
        '<option value="none" selected>none: no annotator left out</option>' in html
    )  # no policy named: nobody left out
    assert "Policy <strong>none</strong>: no annotator left out." in html
    assert "min rho" not in html


def test_the_stamp_changes_with_a_new_rating_and_with_the_status_only(curator_client, demo):
    url = reverse("curator:report_stamp", args=[demo.slug])
    Campaign.objects.filter(pk=demo.pk).update(status=Campaign.Status.OPEN)
    first = curator_client.get(url).json()
    assert first["live"] is True and curator_client.get(url).json() == first  # nothing happened: the same stamp
    page = curator_client.get(report_url(demo)).content.decode()
    assert f'data-stamp="{first["stamp"]}"' in page

    rating = Rating.objects.filter(item__campaign=demo).order_by("pk").last()
    Rating.objects.filter(pk=rating.pk).delete()
    fewer = curator_client.get(url).json()
    Campaign.objects.filter(pk=demo.pk).update(status=Campaign.Status.PAUSED)
    paused = curator_client.get(url).json()

    assert len({first["stamp"], fewer["stamp"], paused["stamp"]}) == 3
    assert paused["live"] is False


def test_the_stamp_is_for_curators_only(client, demo):
    url = reverse("curator:report_stamp", args=[demo.slug])
    assert client.get(url).status_code == 302
    client.force_login(make_user("annotator"))
    assert client.get(url).status_code == 403


def test_keeping_everyone_is_offered_even_without_the_saved_none_policy(curator_client, demo):
    FilterPolicy.objects.filter(name="none").delete()

    html = curator_client.get(report_url(demo) + "?policy=none").content.decode()

    assert '<option value="none" selected>none: no annotator left out</option>' in html
    assert "Policy <strong>none</strong>: no annotator left out." in html
