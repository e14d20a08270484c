"""typetoken_report on the real NCTTI files, checked against an independent computation."""

import csv
import json
import statistics
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from scipy.stats import spearmanr

pytestmark = pytest.mark.django_db

CLASS = {"NC": "idiomatic", "PC": "partly_compositional", "C": "compositional"}


def expected(shared_data, language):
    """Straight from the TSV: per compound the mean and sample std of MeanS1..3, and CompType."""
    rows = list(csv.DictReader(open(shared_data / "nctti" / f"data_{language}.tsv", encoding="utf-8"), delimiter="\t"))
    table = []
    for row in rows:
        means = [float(row[k].replace(",", ".")) for k in ("MeanS1", "MeanS2", "MeanS3") if row[k]]
        kind = CLASS[row["CompScale"]]
        comp_type = float(row["CompType"]) if row["CompType"] else None
        table.append((row["compound"], kind, comp_type, round(statistics.mean(means), 9), statistics.stdev(means)))
    return table


@pytest.mark.parametrize("language", ["en", "pt"])
def test_the_report_matches_an_independent_computation(shared_data, language):
    call_command("import_nctti", str(shared_data / "nctti"), stdout=StringIO())
    out = StringIO()
    call_command("typetoken_report", "--language", language, "--format", "json", stdout=out)
    report = json.loads(out.getvalue())
    table = expected(shared_data, language)
    assert report["n_compounds"] == len(table) == {"en": 280, "pt": 180}[language]

    pairs = [(token, comp_type) for _, _, comp_type, token, _ in table if comp_type is not None]
    rho, p = spearmanr([a for a, _ in pairs], [b for _, b in pairs])
    assert report["correlations"]["all"]["rho"] == pytest.approx(rho, abs=1e-6)
    assert report["correlations"]["all"]["n"] == len(pairs)  # small fry has no type score
    for kind in CLASS.values():
        rows = [r for r in table if r[1] == kind]
        sub = [(r[3], r[2]) for r in rows if r[2] is not None]
        assert report["correlations"][kind]["rho"] == pytest.approx(
            spearmanr([a for a, _ in sub], [b for _, b in sub]).statistic, abs=1e-6
        )
        means = report["class_means"][kind]
        assert means["compound"]["mean"] == pytest.approx(statistics.mean(r[3] for r in rows), abs=1e-6)
        assert means["compound"]["std"] == pytest.approx(statistics.stdev(r[3] for r in rows), abs=1e-6)
        assert means["head"] is None and means["modifier"] is None  # NCTTI has compound scores only
    share = sum(r[4] < 0.6 for r in table) / len(table)
    assert report["spread"]["share_std_below_0_6"] == pytest.approx(share, abs=1e-6)
    assert {row["compound"] for row in report["spread"]["std_above_1"]} == {r[0] for r in table if r[4] > 1}


def test_the_published_class_means_are_reproduced(shared_data):
    """Garcia et al. 2021 (ACL), table 3 and section 4.4: partly compositional EN mean 2.34; 91.1% PT below 0.6."""
    call_command("import_nctti", str(shared_data / "nctti"), stdout=StringIO())
    reports = {}
    for language in ("en", "pt"):
        out = StringIO()
        call_command("typetoken_report", "--language", language, "--format", "json", stdout=out)
        reports[language] = json.loads(out.getvalue())
    assert reports["en"]["class_means"]["partly_compositional"]["compound"]["mean"] == pytest.approx(2.34, abs=0.005)
    assert reports["pt"]["spread"]["share_std_below_0_6"] == pytest.approx(0.911, abs=0.001)


def test_a_language_without_scores_is_a_clear_error():
    with pytest.raises(CommandError, match="no compounds with token-level scores in language 'xx'"):
        call_command("typetoken_report", "--language", "xx")


def test_the_report_runs_on_collected_ratings_with_head_and_modifier():
    call_command("create_demo_campaigns", stdout=StringIO())
    call_command("simulate_ratings", "demo-token", "demo-type", stdout=StringIO())
    out = StringIO()
    call_command(
        "typetoken_report",
        "--token-campaign",
        "demo-token",
        "--type-campaign",
        "demo-type",
        "--format",
        "json",
        stdout=out,
    )
    report = json.loads(out.getvalue())
    assert report["language"] == "en" and report["n_compounds"] == 24
    assert report["correlations"]["all"]["n"] == 24 and report["correlations"]["all"]["rho"] > 0.5
    for means in report["class_means"].values():
        assert means["head"]["mean"] is not None and means["modifier"]["mean"] is not None
    # Simulated heads are more literal than whole compounds, as in the paper's table 3.
    idiomatic = report["class_means"]["idiomatic"]
    assert idiomatic["head"]["mean"] > idiomatic["compound"]["mean"]


def test_campaign_levels_are_checked():
    call_command("create_demo_campaigns", stdout=StringIO())
    with pytest.raises(CommandError, match="must be token level"):
        call_command("typetoken_report", "--token-campaign", "demo-type", "--type-campaign", "demo-token")
    with pytest.raises(CommandError, match="give --language"):
        call_command("typetoken_report")
