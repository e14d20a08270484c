"""The probe run pages: the list and start form, a run's report, its downloads, cancel and resume, the comparison.

Alice is a curator, Bob an annotator; everyone else is an anonymous visitor, who reads runs and
reports as they read the published releases measured. Runs are made directly with hand-made reports.
"""

from __future__ import annotations

import csv
import io
import json
import re
import xml.etree.ElementTree as ET

import pytest
from django.urls import reverse

from probing import tasks
from probing.models import ProbeRun
from tests.building.review_factories import make_annotator, make_curator
from tests.probing.report_factories import make_model, make_release, make_report, make_run

pytestmark = pytest.mark.django_db


@pytest.fixture
def release():
    return make_release()


@pytest.fixture
def model():
    return make_model("minilm")


@pytest.fixture
def done(release, model) -> ProbeRun:
    return make_run(release, model)


@pytest.fixture
def alice_client(client):
    client.force_login(make_curator("alice"))
    return client


@pytest.fixture
def enqueued(monkeypatch) -> list:
    """Shards sent to the workers (recorded, never run: the pages' tests need no worker)."""
    sent = []
    monkeypatch.setattr(tasks, "enqueue_shards", lambda run_id, queue, indices: sent.append((run_id, indices)))
    return sent


def url(name: str, *args) -> str:
    return reverse(name, args=args)


def svgs(page: str) -> list[ET.Element]:
    found = []
    start = page.find("<svg")
    while start >= 0:
        end = page.index("</svg>", start) + len("</svg>")
        found.append(ET.fromstring(page[start:end]))
        start = page.find("<svg", end)
    return found


def test_the_nav_links_to_probing(client):
    assert f'href="{url("probe_runs")}"' in client.get(url("home")).content.decode()


def test_anyone_sees_the_runs_and_the_models_but_not_the_start_form(client, done, model):
    running = make_run(done.release, model, status=ProbeRun.Status.RUNNING, shards_done=1)

    response = client.get(url("probe_runs"))

    assert response.status_code == 200
    assert [run.pk for run in response.context["runs"]] == [running.pk, done.pk]
    page = response.content.decode()
    assert url("probe_run", done.pk) in page
    assert "1.0.0" in page and "minilm" in page and "bundled:minilm" not in page  # sources are for curators
    assert 'value="1"' in page  # the running run's progress bar: one shard of four
    assert 'revision=<code title="abc123">abc123</code>' in page  # the identity the model's latest run loaded
    assert "Start a run" not in page
    assert response.context["form"] is None


def test_an_annotator_cannot_start_a_run(client, release, model, enqueued):
    client.force_login(make_annotator("bob"))

    response = client.post(url("probe_runs"), {"release": "1.0.0", "model": "minilm"})

    assert response.status_code == 403
    assert not ProbeRun.objects.exists()


def test_an_anonymous_post_goes_to_the_login_page(client, release, model, enqueued):
    response = client.post(url("probe_runs"), {"release": "1.0.0", "model": "minilm"})

    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert not ProbeRun.objects.exists()


def test_a_curator_starts_a_run_with_config_overrides(
    alice_client, release, model, enqueued, django_capture_on_commit_callbacks
):
    page = alice_client.get(url("probe_runs")).content.decode()
    assert "Start a run" in page and '<option value="1.0.0"' in page

    with django_capture_on_commit_callbacks(execute=True):
        response = alice_client.post(
            url("probe_runs"),
            {
                "release": "1.0.0",
                "model": "minilm",
                "layers": "-2, -1",
                "include_special_tokens": "yes",
                "batch_size": "8",
                "max_length": "",
            },
        )

    run = ProbeRun.objects.get()
    assert response.status_code == 302 and response["Location"] == url("probe_run", run.pk)
    assert (run.release, run.model, run.created_by.username) == (release, model, "alice")
    assert run.config["layers"] in ([-2, -1], (-2, -1))
    assert run.config["include_special_tokens"] is True
    assert run.config["batch_size"] == 8
    assert run.config["max_length"] == 512  # the default, not overridden
    assert enqueued == [(run.pk, list(range(run.shards_total)))]


def test_the_start_form_rejects_bad_layers_and_drafts(alice_client, release, model, enqueued):
    from releases.actions import create_release

    create_release("2.0.0", ["en"])  # a draft: not offered

    response = alice_client.post(url("probe_runs"), {"release": "1.0.0", "model": "minilm", "layers": "last four"})
    assert response.status_code == 400
    assert "Whole numbers" in response.content.decode()
    response = alice_client.post(url("probe_runs"), {"release": "2.0.0", "model": "minilm"})
    assert response.status_code == 400
    assert not ProbeRun.objects.exists()


def test_a_finished_run_shows_tables_figures_and_provenance(client, done):
    response = client.get(url("probe_run", done.pk))

    assert response.status_code == 200
    page = response.content.decode()
    # Results first, provenance collapsed at the end: release checksum, model identity, config, versions.
    assert page.index('id="summary"') < page.index('id="correlations"') < page.index('id="provenance"')
    assert '<details class="provenance">' in page
    for text in (done.release.checksum, "abc123", "v1.2.3-test", "torch", "2.5.0", "layers", "-4, -3, -2, -1"):
        assert text in page[page.index('id="provenance"') :]
    # Tables 10-13: both levels and conditions; the standardised cosines in a view of their own.
    summary = response.context["summary"]
    assert [t["level"] for t in summary] == ["sentence", "nc"]
    assert summary[1]["groups"] == ["EN-Nat", "EN-Neut"]
    raw, standardised = summary[1]["views"]
    assert (raw["key"], standardised["key"]) == ("raw", "std")
    first = raw["sections"][0]["rows"][0]
    assert first["label"] == "P_Syn" and first["cells"][0]["n"] == 5
    assert float(standardised["sections"][0]["rows"][0]["cells"][0]["mean"]) == pytest.approx(
        float(first["cells"][0]["mean"]) - 0.1, abs=1e-3
    )
    assert "Sim_R|WordsSyn" in page and "A_Syn|Rand" in page
    # Figures: similarity distributions per level, affinity and Sim_R by class, all well-formed.
    figures = svgs(page)
    assert len(figures) == 2 + 2
    assert {"class": "chart box-plot"}.items() <= figures[0].attrib.items()
    # The per-compound table defaults to the NC level and naturalistic sentences, like table 8.
    assert len(response.context["compounds"]["rows"]) == 5
    assert "eager beaver" in page and "Idiomatic" in page
    assert url("probe_run_csv", done.pk, "summary") in page and url("probe_run_report", done.pk) in page


def test_a_report_reads_without_the_paper(client, done):
    page = client.get(url("probe_run", done.pk)).content.decode()

    # Findings first, in words, from the numbers; five compounds are too few for a claim about ρ.
    findings = page[page.index('id="findings"') : page.index('id="summary"')]
    assert "closer to its synonym&#x27;s (P_Syn" in findings
    assert "only 5 compounds have a human score, too few" in findings
    # Every measure defined where it is printed and in the glossary; n beside every mean and ρ.
    assert '<abbr class="measure" title="Cosine between the compound (in its sentence) and its synonym' in page
    glossary = page[page.index('id="glossary"') : page.index('id="downloads"')]
    assert "<dt>Sim_R|Syn</dt>" in glossary and "Benjamini-Hochberg" in glossary
    assert '<span class="p">n 5</span>' in page
    assert page.count("n 5: too few for p") >= 1 and 'class="num rho small-n"' in page
    assert "mean over its sentences of the annotators" in page  # the human score's rule, in the legend
    provenance = page[page.index('id="provenance"') :]
    assert "SHA-256 of the release&#x27;s manifest.json" in provenance


@pytest.mark.usefixtures("p_for_five_compounds")
def test_numbers_and_headers_read_like_the_papers(client, done):
    page = client.get(url("probe_run", done.pk) + "?level=&condition=").content.decode()
    tables = page[page.index('id="summary"') : page.index('id="downloads"')]

    # No raw dumps: no snake_case keys, Python values or empty lists in what the tables print.
    for raw in ("sim_syn<", "no_overlap", "True", "False", "None", "[]", "nc_out_comp<", "naturalistic<"):
        assert raw not in tables, raw
    # ρ with two decimals and p in scientific notation under it; means with three decimals.
    nc = next(t for t in client.get(url("probe_run", done.pk)).context["correlations"] if t["level"] == "nc")
    cell = nc["views"][0]["sections"][0]["rows"][0]["cells"][0]
    assert cell["text"] == "1.00" and cell["p"] == "0" and cell["mark"] == "strong"  # ρ = 1: p is 0
    shown_p = re.findall(r'<span class="p">p ([^<· ]+)', tables)
    assert shown_p and all(re.fullmatch(r"\d\.\de-\d\d|0", text) for text in shown_p), shown_p
    rhos = re.findall(r'<td class="num rho [a-z-]+" title="[^"]*">(-?[\d.]+)<', tables)
    assert rhos and all(re.fullmatch(r"-?\d\.\d\d", text) for text in rhos), rhos
    assert "Human score" in tables and "Partly compositional" in tables and "Naturalistic" in tables


@pytest.mark.usefixtures("p_for_five_compounds")
def test_only_significant_correlations_show_unless_all_are_asked_for(client, done):
    def random_probe_cells(response) -> list:
        nc = next(t for t in response.context["correlations"] if t["level"] == "nc")
        rand = next(s for s in nc["views"][0]["sections"] if s["measure"] == "sim_rand")
        return rand["rows"][0]["cells"]

    default = client.get(url("probe_run", done.pk))
    shown = client.get(url("probe_run", done.pk) + "?all=1")

    syn = default.context["correlations"][1]["views"][0]["sections"][0]
    assert syn["measure"] == "sim_syn"
    assert syn["rows"][0]["cells"][0]["shown"]  # rho 1 over five compounds
    assert not random_probe_cells(default)[0]["shown"] and random_probe_cells(default)[0]["text"] == "–"
    assert random_probe_cells(shown)[0]["shown"] and random_probe_cells(shown)[0]["mark"] == ""
    assert "Show every ρ" in default.content.decode()
    assert "Show only p ≤ 0.05" in shown.content.decode()
    assert default.context["correlations"][0]["has_bh"]
    # Deciding by the Benjamini-Hochberg q (the factory doubles p) keeps fewer correlations.
    bh = client.get(url("probe_run", done.pk) + "?correction=bh")
    assert 0 < shown_count(bh) < shown_count(default)


def shown_count(response) -> int:
    """How many correlations the page shows in its raw-cosine tables."""
    views = [table["views"][0] for table in response.context["correlations"]]
    return sum(
        bool(cell and cell["shown"]) for v in views for s in v["sections"] for r in s["rows"] for cell in r["cells"]
    )


def test_the_per_compound_table_filters_sorts_and_pages(client, done, monkeypatch):
    base = url("probe_run", done.pk)

    ascending = client.get(base + "?level=sentence&condition=neutral&sort=human")
    descending = client.get(base + "?level=sentence&condition=neutral&sort=-human")
    everything = client.get(base + "?level=&condition=")

    def compounds(response) -> list[str]:
        return [row[0]["text"] for row in response.context["compounds"]["rows"]]

    assert compounds(ascending) == ["guinea pig", "eager beaver", "front man", "brick wall", "olive oil"]
    assert compounds(descending) == list(reversed(compounds(ascending)))
    # Level and sentences are fixed by the filters: no column for them.
    keys = [c["key"] for c in ascending.context["compounds"]["columns"]]
    assert "level" not in keys and "condition" not in keys and "language" not in keys
    assert {"level", "condition"} <= {c["key"] for c in everything.context["compounds"]["columns"]}
    assert len(everything.context["compounds"]["rows"]) == 20
    human = next(c for c in descending.context["compounds"]["columns"] if c["key"] == "human")
    assert human["sorted"] == "descending" and "sort=human" in human["href"]
    from probing.report import page as report_page

    monkeypatch.setattr(report_page, "PER_PAGE", 8)
    second = client.get(base + "?level=&condition=&page=2")
    assert len(second.context["compounds"]["rows"]) == 8 and "Compounds 9–16 of 20" in second.content.decode()
    assert "page=3" in second.context["compounds"]["next"] and "page=1" in second.context["compounds"]["previous"]


def test_a_missing_measure_shows_as_a_dash_and_sorts_last(client, done):
    response = client.get(url("probe_run", done.pk) + "?level=sentence&condition=naturalistic&sort=-sim_comp")

    rows = response.context["compounds"]["rows"]
    keys = [c["key"] for c in response.context["compounds"]["columns"]]
    assert rows[-1][0]["text"] == "eager beaver"
    assert rows[-1][keys.index("sim_comp")]["text"] == "–"


def test_figures_download_as_svg_png_and_pdf(client, done):
    page = client.get(url("probe_run", done.pk))
    keys = [figure["key"] for figure in page.context["figures"]]
    assert keys == ["similarity-sentence", "similarity-nc", "by-class-en-nat", "by-class-en-neut"]
    magic = {"svg": (b"<?xml", "image/svg+xml"), "png": (b"\x89PNG", "image/png"), "pdf": (b"%PDF", "application/pdf")}
    for fmt, (start, content_type) in magic.items():
        response = client.get(url("probe_run_figure", done.pk, "similarity-nc", fmt))
        assert response.status_code == 200 and response["Content-Type"] == content_type
        assert response.content.startswith(start)
        assert f'filename="probe-run-{done.pk}-similarity-nc.{fmt}"' in response["Content-Disposition"]
        assert url("probe_run_figure", done.pk, "similarity-nc", fmt) in page.content.decode()
    svg = client.get(url("probe_run_figure", done.pk, "by-class-en-nat", "svg")).content.decode()
    assert "Affinity or scaled similarity" in svg and "Measure" in svg  # labelled axes
    assert client.get(url("probe_run_figure", done.pk, "layers-nc", "svg")).status_code == 404
    assert client.get(url("probe_run_figure", done.pk, "similarity-nc", "gif")).status_code == 404


def test_a_running_run_shows_its_progress_and_no_tables(client, release, model):
    run = make_run(release, model, status=ProbeRun.Status.RUNNING, shards_done=1, texts_embedded=80, texts_cached=20)

    response = client.get(url("probe_run", run.pk))

    assert response.status_code == 200
    page = response.content.decode()
    assert 'data-finished="false"' in page
    assert url("probe_run_json", run.pk) in page
    assert "Results appear here when the run has finished." in page
    assert response.context["progress"]["texts_done"] == 100
    assert response.context["percent"] == 25
    assert svgs(page) == []
    assert "Cancel the run" not in page  # anonymous


def test_a_failed_run_with_an_empty_report_still_renders(client, release, model):
    run = make_run(
        release, model, status=ProbeRun.Status.FAILED, error="finishing: ValueError: boom", report={}, provenance={}
    )

    page = client.get(url("probe_run", run.pk)).content.decode()

    assert "boom" not in page and "stopped before its report was made" in page  # errors are for curators
    assert "Not recorded yet." in page
    client.force_login(make_curator("alice"))
    assert "boom" in client.get(url("probe_run", run.pk)).content.decode()


def test_the_progress_json_follows_the_run(client, release, model):
    run = make_run(release, model, status=ProbeRun.Status.RUNNING, shards_done=1, eta_seconds=12.5)

    data = client.get(url("probe_run_json", run.pk)).json()

    assert data["run"] == run.pk and data["finished"] is False
    assert (data["status"], data["shards_done"], data["shards_total"], data["eta_seconds"]) == ("running", 1, 4, 12.5)
    ProbeRun.objects.filter(pk=run.pk).update(status=ProbeRun.Status.DONE, shards_done=4)
    assert client.get(url("probe_run_json", run.pk)).json()["finished"] is True
    assert client.get(url("probe_run_json", 999)).status_code == 404


def test_the_full_json_is_the_report_with_its_provenance(client, done):
    full = client.get(url("probe_run_json", done.pk) + "?full=1").json()
    download = client.get(url("probe_run_report", done.pk))

    assert full["run"] == done.pk
    assert full["provenance"]["release"]["checksum"] == done.release.checksum
    entry = full["per_compound"][0]
    assert set(entry["sim"]) == {"syn", "comp", "words_syn", "rand"}
    assert download["Content-Disposition"] == f'attachment; filename="probe-run-{done.pk}.json"'
    assert json.loads(download.content) == full


def test_a_csv_download_starts_with_the_provenance(client, done):
    response = client.get(url("probe_run_csv", done.pk, "summary"))

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert response["Content-Disposition"] == f'attachment; filename="probe-run-{done.pk}-summary.csv"'
    text = response.content.decode()
    comments = [line for line in text.splitlines() if line.startswith("#")]
    assert any(done.release.checksum in line for line in comments)
    assert any("abc123" in line for line in comments) and any("v1.2.3-test" in line for line in comments)
    rows = list(csv.DictReader(io.StringIO("\n".join(line for line in text.splitlines() if not line.startswith("#")))))
    assert set(rows[0]) == {"language", "condition", "level", "measure", "mean", "std", "n"}
    assert len(rows) == len(done.report["summary"])
    assert client.get(url("probe_run_csv", done.pk, "secrets")).status_code == 404


def test_a_curator_cancels_a_running_run_and_resumes_it(alice_client, release, model, enqueued):
    run = make_run(release, model, status=ProbeRun.Status.RUNNING, shards_done=0)
    run.shards.create(index=0, compounds=[["en", "eager beaver"]], texts=10)
    assert "Cancel the run" in alice_client.get(url("probe_run", run.pk)).content.decode()

    response = alice_client.post(url("probe_run_cancel", run.pk))

    assert response.status_code == 302
    run.refresh_from_db()
    assert run.status == ProbeRun.Status.CANCELLED
    assert "Resume the run" in alice_client.get(url("probe_run", run.pk)).content.decode()
    alice_client.post(url("probe_run_resume", run.pk))
    run.refresh_from_db()
    assert run.status == ProbeRun.Status.QUEUED


def test_resuming_a_done_run_says_why_not(alice_client, done):
    response = alice_client.post(url("probe_run_resume", done.pk), follow=True)

    assert "is done" in response.content.decode()
    assert ProbeRun.objects.get(pk=done.pk).status == ProbeRun.Status.DONE


def test_nobody_but_a_curator_cancels(client, release, model):
    run = make_run(release, model, status=ProbeRun.Status.RUNNING)
    client.force_login(make_annotator("bob"))

    assert client.post(url("probe_run_cancel", run.pk)).status_code == 403
    assert client.get(url("probe_run_cancel", run.pk)).status_code == 405
    assert ProbeRun.objects.get(pk=run.pk).status == ProbeRun.Status.RUNNING


def test_the_comparison_shows_runs_side_by_side_with_the_correlogram(client, done, release):
    other = make_run(release, make_model("glove"), report=make_report(shift=0.05))

    response = client.get(url("probe_compare") + f"?runs={done.pk},{other.pk},999")

    assert response.status_code == 200
    assert [run.pk for run in response.context["runs"]] == [done.pk, other.pk]
    assert response.context["missing"] == [999]
    page = response.content.decode()
    assert f"#{done.pk} minilm" in page and f"#{other.pk} glove" in page
    correlograms = response.context["correlograms"]
    assert correlograms["group"] == "EN-Nat"
    assert [f["measure"] for f in correlograms["figures"]][:2] == ["sim_syn", "sim_comp"]
    svg = ET.fromstring(str(correlograms["figures"][0]["svg"]))
    cells = [c for c in svg.iter("{http://www.w3.org/2000/svg}g") if c.get("class") == "cell"]
    assert [c.find("{http://www.w3.org/2000/svg}text").text for c in cells] == ["1.00", "1.00", "1.00", "1.00"]
    assert page.count(done.release.checksum) >= 2  # the provenance of each run
    nc = next(t for t in response.context["summaries"] if t["level"] == "nc")
    assert nc["runs"] == [f"#{done.pk} minilm", f"#{other.pk} glove"]
    syn = nc["sections"][0]["rows"][0]
    assert (syn["measure"], syn["group"]) == ("sim_syn", "EN-Nat")
    assert float(syn["cells"][1]["mean"]) == pytest.approx(float(syn["cells"][0]["mean"]) + 0.05, abs=1e-3)


def test_the_correlogram_keeps_full_model_names_and_downloads(client, done, release):
    long_name = "sentence-transformers-paraphrase-multilingual-mpnet-base-v2"
    other = make_run(release, make_model(long_name), report=make_report(shift=0.05))
    query = f"?runs={done.pk},{other.pk}"

    response = client.get(url("probe_compare") + query)

    svg = ET.fromstring(str(response.context["correlograms"]["figures"][0]["svg"]))
    labels = [
        t.text for t in svg.iter("{http://www.w3.org/2000/svg}text") if t.get("class") in ("row-label", "column-label")
    ]
    assert f"#{other.pk} {long_name}" in labels
    # The longest label fits: the row labels' margin holds it at the chart's character width.
    assert float(svg.get("width")) > 6.0 * len(f"#{other.pk} {long_name}")
    for fmt, start in (("svg", b"<?xml"), ("png", b"\x89PNG"), ("pdf", b"%PDF")):
        download = client.get(url("probe_compare_figure", "sim_syn", fmt) + query)
        assert download.status_code == 200 and download.content.startswith(start)
    assert long_name.encode() in client.get(url("probe_compare_figure", "sim_syn", "svg") + query).content
    assert client.get(url("probe_compare_figure", "sim_nothing", "svg") + query).status_code == 404


def test_the_comparison_takes_ticked_runs_and_copes_with_a_running_one(client, done, release, model):
    running = make_run(release, model, status=ProbeRun.Status.RUNNING)

    response = client.get(url("probe_compare") + f"?run={done.pk}&run={running.pk}")

    assert response.status_code == 200
    assert "Needs two runs with results" in response.content.decode()
    assert client.get(url("probe_compare")).status_code == 200


def test_the_leaderboard_ranks_runs_chosen_from_lists_and_links_to_the_comparison(client, release, model):
    weaker = make_report()
    for row in weaker["correlations"]:
        if row["measure"] == "sim_syn" and row["rho"] is not None:
            row["rho"] = row["rho"] - 0.5
    first = make_run(release, model, report=weaker)
    second = make_run(release, make_model("bert"))
    make_run(release, model, status=ProbeRun.Status.RUNNING)

    response = client.get(url("probe_leaderboard"))

    assert response.status_code == 200
    rows = response.context["table"]["rows"]
    assert [row["run"]["id"] for row in rows] == [second.pk, first.pk]
    page = response.content.decode()
    assert '<select name="level">' in page and '<option value="nc" selected>NC level</option>' in page
    assert f'name="run" value="{first.pk}"' in page and url("probe_compare") in page
    # An older run of the same model and config is left out unless every run is asked for.
    newer = make_run(release, model)
    ids = [row["run"]["id"] for row in client.get(url("probe_leaderboard")).context["table"]["rows"]]
    assert first.pk not in ids and newer.pk in ids
    every = client.get(url("probe_leaderboard") + "?every=1&sort=sim_syn&order=asc").context["table"]["rows"]
    assert every[0]["run"]["id"] == first.pk and len(every) == 3
    bad = client.get(url("probe_leaderboard") + "?level=%3Cscript%3E&release=9.9.9&sort=x")
    assert bad.status_code == 200 and bad.context["chosen"]["level"] == "nc"


def test_the_comparison_offers_runs_as_checkboxes(client, done, release, model):
    other = make_run(release, make_model("bert"))

    page = client.get(url("probe_compare") + f"?run={done.pk}").content.decode()

    assert f'<input type="checkbox" name="run" value="{done.pk}" checked>' in page
    assert f'<input type="checkbox" name="run" value="{other.pk}">' in page
    assert 'name="runs"' not in page
