"""Agreement by scale type on the report, its JSON and the dashboard: people only, never machine annotators."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from annotation.models import Campaign, Item, MachineAnnotator, MachineAnswer
from annotation.reports.build import campaign_report
from tests.annotation.test_curator import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo() -> Campaign:
    call_command("create_demo_campaigns", stdout=StringIO())
    call_command("simulate_ratings", "demo-token", stdout=StringIO())
    return Campaign.objects.get(slug="demo-token")


def figures(report: dict) -> dict:
    return {(row["question"], row["measure"]): row["value"] for row in report["by_scale"]["rows"]}


def test_the_report_gives_every_measure_of_every_question(demo):
    rows = figures(campaign_report(demo))
    for question in ("compound_score", "head_score", "modifier_score"):
        for measure in ("alpha_interval", "alpha_ordinal", "icc2_1", "icc2_k", "kappa_quadratic"):
            assert (question, measure) in rows
    assert ("compound_score", "spearman_loo") in rows
    # The demo's simulated panel agrees: ICC(2,k) of the mean rating is above one rating's ICC(2,1).
    assert 0 < rows[("compound_score", "icc2_1")] < rows[("compound_score", "icc2_k")] < 1


def test_machine_answers_never_change_the_people_s_agreement(demo):
    before = figures(campaign_report(demo, save_run=False))
    machine = MachineAnnotator.objects.create(
        campaign=demo, key="m" * 64, label="contrarian", model_name="contrarian", model_kind="openai_chat",
        model_identity={"kind": "openai_chat"}, template_name="reddy-en", template_version=1, template_text="",
        settings={}, sample=1,
    )  # fmt: skip
    for item in Item.objects.filter(campaign=demo, role=Item.Role.REGULAR):
        MachineAnswer.objects.create(
            annotator=machine, item=item, valid=True, compound_score=0, head_score=5, modifier_score=0, raw_text="{}"
        )
    assert figures(campaign_report(demo, save_run=False)) == before


def test_the_dashboard_and_the_report_page_show_the_table(client, demo):
    client.force_login(make_user("curator"))
    dashboard = client.get(reverse("curator:dashboard", args=[demo.slug]))
    html = dashboard.content.decode()
    assert 'id="by-scale"' in html and 'data-measure="icc2_k"' in html and 'id="allocation"' in html
    assert [row["question"] for row in dashboard.context["dashboard"].by_scale] == ["compound_score"] * 6
    report = client.get(reverse("curator:report", args=[demo.slug])).content.decode()
    assert report.count('data-measure="icc2_1"') == 3  # one per question


def test_the_api_report_has_the_table_and_the_allocation(demo):
    from rest_framework.test import APIClient

    api = APIClient()
    api.force_authenticate(make_user("curator"))
    body = api.get(f"/api/annotation/campaigns/{demo.pk}/report/").json()
    measures = {row["measure"] for row in body["by_scale"]["rows"]}
    assert measures == {"alpha_interval", "alpha_ordinal", "icc2_1", "icc2_k", "kappa_quadratic", "spearman_loo"}
    assert all(row["explanation"] and row["reference"] for row in body["by_scale"]["rows"])
    allocation = body["allocation"]
    assert allocation["adaptive"] is False and allocation["items"] == 69 and allocation["fixed_cost"] == 69 * 5
