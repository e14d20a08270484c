import json
from io import StringIO

import pytest
from django.core.management import call_command

from annotation.models import Annotator, Campaign, FilterPolicy, PolicyRun
from annotation.reports.build import apply_policy, campaign_report, compounds_csv, items_csv

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo():
    call_command("create_demo_campaigns", stdout=StringIO())
    call_command("simulate_ratings", "demo-token", stdout=StringIO())
    return Campaign.objects.get(slug="demo-token")


def test_the_default_policies_exist():
    policies = {p.name: p for p in FilterPolicy.objects.all()}
    assert {"none", "rho>=0.2", "rho>=0.4"} <= set(policies)
    assert policies["rho>=0.2"].min_rho == 0.2 and policies["rho>=0.4"].min_rho == 0.4
    assert policies["none"].min_rho is None and policies["none"].min_items == 0


def test_policy_rho_02_removes_the_careless_simulated_annotator(demo):
    policy = FilterPolicy.objects.get(name="rho>=0.2")
    report = campaign_report(demo, policy)
    rows = {row["label"]: row for row in report["reliability"]["rows"]}
    removed = {row["label"] for row in rows.values() if row["removed"]}
    assert "sim-08" in removed
    for label in removed:
        assert rows[label]["rho"] is None or rows[label]["rho"] < 0.2
    for label in set(rows) - removed:
        assert rows[label]["rho"] >= 0.2
    assert report["policy"]["name"] == "rho>=0.2" and report["policy"]["kept"] == len(rows) - len(removed)
    assert report["simulated_included"] and "sim-08" in report["simulated_annotators"]
    run = PolicyRun.objects.get(campaign=demo, policy=policy)
    assert run.kept == report["policy"]["kept"] and {r["label"] for r in run.removed} == removed
    careless = Annotator.objects.get(campaign=demo, external_id="sim-08")
    assert careless.pk in {r["annotator"] for r in report["policy"]["removed"]}
    json.dumps(report)


def test_every_aggregate_says_which_policy(demo):
    report = campaign_report(demo, FilterPolicy.objects.get(name="rho>=0.4"))
    for section in ("reliability", "agreement", "items", "compounds", "mean_median", "distributions", "paraphrases"):
        assert report[section]["policy"] == "rho>=0.4", section
    keys = {(r["question"], r["level"], r["procedure"]) for r in report["agreement"]["rows"]}
    assert len(keys) == 3 * 2 * 3
    full = next(r for r in report["agreement"]["rows"] if r["procedure"] == "full")
    assert full["low"] <= full["alpha"] <= full["high"]
    assert report["items"]["rows"] and report["compounds"]["rows"]
    assert {r["question"] for r in report["mean_median"]["rows"]} == {"compound_score", "head_score", "modifier_score"}


def test_no_policy_keeps_everyone_and_distributions_count_the_ratings(demo):
    report = campaign_report(demo)
    assert report["policy"]["name"] == "none" and report["policy"]["removed"] == []
    total = sum(sum(by_q["compound_score"]) for by_q in report["distributions"]["classes"].values())
    assert total == report["ratings"] == 207
    first = report["items"]["rows"][0]
    assert set(first) >= {"item", "compound_text", "slot", "class", "question", "mean", "median", "std", "n"}
    assert not PolicyRun.objects.exists()


def test_apply_policy_saves_a_run_when_its_outcome_changes(demo):
    policy = FilterPolicy.objects.get(name="rho>=0.2")
    first, second = apply_policy(demo, policy), apply_policy(demo, policy)
    assert first.pk == second.pk  # a refreshing page does not pile up identical runs
    assert all(set(r) >= {"annotator", "reason"} for r in first.removed)
    stricter = FilterPolicy.objects.create(name="everyone out", min_rho=1.01, min_items=1)
    assert apply_policy(demo, stricter).kept == 0
    assert PolicyRun.objects.filter(campaign=demo).count() == 2


def test_csv_downloads_have_a_header_and_the_policy(demo):
    report = campaign_report(demo, FilterPolicy.objects.get(name="none"))
    items = items_csv(report).splitlines()
    assert items[0].startswith("item,compound,compound_text,slot,class,question") and items[0].endswith(",policy")
    assert len(items) == 1 + len(report["items"]["rows"]) and items[1].endswith(",none")
    compounds = compounds_csv(report).splitlines()
    assert compounds[0].startswith("compound,compound_text,class,question,comp_mean")


def test_management_command(demo):
    out = StringIO()
    call_command("campaign_report", "--campaign", "demo-token", "--policy", "rho>=0.2", "--format", "json", stdout=out)
    data = json.loads(out.getvalue())
    assert data["policy"]["name"] == "rho>=0.2" and data["campaign"]["slug"] == "demo-token"
