"""A likelihood run's report in a real browser: its tables, its scatter, its template, at 1280 px."""

from __future__ import annotations

import pytest
from django.urls import reverse

from probing.actions import create_probe_run, run_inline
from probing.models import EmbeddingModel, ProbeRun
from probing.run import loading
from tests.probing.probe_factories import likelihood_corpus, make_probe_data, publish
from tests.probing.test_probe_browser import ARTIFACTS, no_overflow
from tests.tiny_models import save_tiny_llama

pytestmark = pytest.mark.browser


def finished_run(tmp_path, config: dict | None = None) -> ProbeRun:
    """A likelihood run of the tiny LLaMA on the probe fixtures' release, computed here."""
    make_probe_data()
    folder = save_tiny_llama(tmp_path / "llama", likelihood_corpus(), causal_lm=True)
    loading._backends.clear()
    model = EmbeddingModel.objects.create(name="tiny-llama", kind="causal_lm", source=str(folder))
    run = run_inline(create_probe_run(publish("1.0.0"), model, config=config))
    assert run.status == ProbeRun.Status.DONE, run.error
    return run


@pytest.mark.usefixtures("transactional_db")
def test_a_likelihood_report_reads_in_the_browser(live_server, page, tmp_path):
    from playwright.sync_api import expect

    run = finished_run(tmp_path)
    page.set_viewport_size({"width": 1280, "height": 900})

    page.goto(live_server.url + reverse("probe_run", args=[run.pk]))

    expect(page.get_by_role("heading", name="Multiple-choice accuracy")).to_be_visible()
    assert page.locator("table.accuracy-table").bounding_box()["y"] < 900  # results first
    expect(page.locator("table.accuracy-table tbody tr")).to_have_count(len(run.report["accuracy"]))
    expect(page.locator("table.correlation-table:visible")).to_have_count(2)  # sentence and NC level
    scatter = page.locator("figure[data-figure=pref-comp-vs-human] svg.chart")
    expect(scatter).to_be_visible()
    expect(scatter.locator("circle")).to_have_count(5 * 2)  # five compounds, naturalistic and neutral
    expect(page.locator("#template code").first).to_contain_text("means:")
    no_overflow(page)
    with page.expect_download() as download:
        page.locator("figure[data-figure=pref-comp-vs-human] a", has_text="PDF").click()
    assert download.value.suggested_filename == f"probe-run-{run.pk}-pref-comp-vs-human.pdf"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "likelihood-run-page.png"), full_page=True)


@pytest.mark.usefixtures("transactional_db")
def test_a_run_of_both_families_shows_its_similarity_part_apart_in_the_browser(live_server, page, tmp_path):
    from playwright.sync_api import expect

    run = finished_run(tmp_path, {"similarity": True})
    page.set_viewport_size({"width": 1280, "height": 900})

    page.goto(live_server.url + reverse("probe_run", args=[run.pk]))

    page.get_by_role("link", name="Similarity", exact=True).click()
    expect(page.get_by_role("heading", name="Similarity: means and standard deviations")).to_be_in_viewport()
    similarity = page.locator("#similarity-correlations table.correlation-table:visible")
    expect(similarity).to_have_count(2)  # sentence and NC level, beside the preferences' own two
    expect(page.locator("#correlations table.correlation-table:visible")).to_have_count(2)
    # Every id and every tab group once: the two correlation sections switch their own tabs.
    assert page.evaluate(
        "[...document.querySelectorAll('[id]')].length === new Set([...document.querySelectorAll('[id]')].map(e => e.id)).size"
    )
    before = page.locator("#correlations .tab-panel:visible").count()
    page.locator("#similarity-correlations .tab-labels label").last.click()
    assert page.locator("#correlations .tab-panel:visible").count() == before
    no_overflow(page)
    page.screenshot(path=str(ARTIFACTS / "both-families-run-page.png"), full_page=True)
