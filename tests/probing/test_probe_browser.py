"""Probe run pages in a real browser: a finished report renders; a running run's progress moves by itself."""

from __future__ import annotations

import pytest
from django.urls import reverse

from probing.models import ProbeRun
from tests.conftest import REPO_ROOT
from tests.probing.report_factories import make_model, make_release, make_run

pytestmark = pytest.mark.browser
ARTIFACTS = REPO_ROOT / "var" / "test-artifacts"


@pytest.mark.usefixtures("transactional_db")
def test_a_finished_run_shows_its_tables_and_figures(live_server, page):
    from playwright.sync_api import expect

    run = make_run(make_release(), make_model())

    page.goto(live_server.url + reverse("probe_run", args=[run.pk]))

    expect(page.get_by_role("heading", name=f"Probe run #{run.pk}")).to_be_visible()
    expect(page.locator("table.summary-table")).to_have_count(2)
    expect(page.locator("table.correlation-table")).to_have_count(2)
    expect(page.locator("figure svg.chart")).to_have_count(4)
    expect(page.locator("figure.distribution[data-level=nc] g.box")).to_have_count(8)  # 4 probes × EN-Nat, EN-Neut
    expect(page.locator("table.per-compound tbody tr")).to_have_count(5)
    assert page.locator("figure svg.chart").first.bounding_box()["width"] > 100

    page.get_by_role("link", name="Human", exact=True).click()
    page.wait_for_url("**sort=human**")
    first = page.locator("table.per-compound tbody tr").first.locator("th")
    expect(first).to_have_text("guinea pig")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "probe-run-page.png"), full_page=True)


@pytest.mark.usefixtures("transactional_db")
def test_a_running_run_updates_its_progress_and_reloads_when_done(live_server, page):
    from playwright.sync_api import expect

    run = make_run(make_release(), make_model(), status=ProbeRun.RUNNING, shards_done=1, report={})

    page.goto(live_server.url + reverse("probe_run", args=[run.pk]))
    progress = page.locator("#probe-run progress")
    expect(progress).to_have_attribute("value", "1")
    expect(page.get_by_text("Results appear here when the run has finished.")).to_be_visible()

    ProbeRun.objects.filter(pk=run.pk).update(shards_done=3, texts_embedded=250, texts_cached=50, eta_seconds=75)
    expect(page.locator('[data-field="shards_done"]')).to_have_text("3", timeout=10_000)
    assert progress.evaluate("bar => bar.value") == 3
    expect(page.locator('[data-field="percent"]')).to_have_text("75 %")
    expect(page.locator('[data-field="eta"]')).to_have_text("1 min 15 s")

    from tests.probing.report_factories import make_report

    ProbeRun.objects.filter(pk=run.pk).update(status=ProbeRun.DONE, shards_done=4, report=make_report())
    expect(page.locator("table.summary-table")).to_have_count(2, timeout=10_000)  # reloaded with the report
    expect(page.locator("#probe-run")).to_have_attribute("data-finished", "true")
