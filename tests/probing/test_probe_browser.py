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
    expect(page.locator("table.summary-table:visible")).to_have_count(2)  # one level each; z in a second tab
    expect(page.locator("table.correlation-table:visible")).to_have_count(2)
    expect(page.locator("figure svg.chart")).to_have_count(4)
    expect(page.locator("figure[data-figure=similarity-nc] g.box")).to_have_count(8)  # 4 probes × EN-Nat, EN-Neut
    expect(page.locator("table.per-compound tbody tr")).to_have_count(5)
    assert page.locator("figure svg.chart").first.bounding_box()["width"] > 100
    page.get_by_text("After standardisation (appendix C)").first.click()
    expect(page.locator("table.summary-table[data-view=std]:visible")).to_have_count(1)
    expect(page.locator("table.summary-table[data-view=raw]:visible")).to_have_count(1)  # the other level's

    page.get_by_role("link", name="Human score", exact=True).click()
    page.wait_for_url("**sort=human**")
    first = page.locator("table.per-compound tbody tr").first.locator("th")
    expect(first).to_have_text("guinea pig")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "probe-run-page.png"), full_page=True)


@pytest.mark.usefixtures("transactional_db")
def test_a_running_run_updates_its_progress_and_reloads_when_done(live_server, page):
    from playwright.sync_api import expect

    run = make_run(make_release(), make_model(), status=ProbeRun.Status.RUNNING, shards_done=1, report={})

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

    ProbeRun.objects.filter(pk=run.pk).update(status=ProbeRun.Status.DONE, shards_done=4, report=make_report())
    expect(page.locator("table.summary-table:visible")).to_have_count(2, timeout=10_000)  # reloaded with the report
    expect(page.locator("#probe-run")).to_have_attribute("data-finished", "true")


OVERFLOW = """() => {
  const page = document.documentElement.scrollWidth - document.documentElement.clientWidth;
  const wide = [...document.querySelectorAll('.table-wrap, .charts figure, .charts, .run-card')]
    .filter((e) => e.offsetParent !== null && e.scrollWidth > e.clientWidth + 1)
    .map((e) => `${e.className} ${(e.querySelector('table') || e).className} ${e.scrollWidth}>${e.clientWidth}`);
  return {page, wide};
}"""


def no_overflow(page) -> None:
    """Neither the page nor any visible table or figure is wider than the window, in every tab."""
    assert page.evaluate(OVERFLOW) == {"page": 0, "wide": []}
    for label in page.locator(".tab-labels label").all():
        label.click()
        assert page.evaluate(OVERFLOW) == {"page": 0, "wide": []}, label.inner_text()


@pytest.mark.usefixtures("transactional_db")
def test_report_pages_fit_1280_px_with_their_results_first(live_server, page, monkeypatch):
    from playwright.sync_api import expect

    from probing.report import page as report_page
    from tests.probing.report_factories import make_report

    release = make_release()
    sweep = make_run(release, make_model(), report=make_report(layers=41))
    other = make_run(release, make_model("sentence-transformers-paraphrase-multilingual-mpnet-base-v2"))
    page.set_viewport_size({"width": 1280, "height": 900})
    monkeypatch.setattr(report_page, "PER_PAGE", 8)  # the fixture's 20 rows on three pages

    page.goto(live_server.url + reverse("probe_run", args=[sweep.pk]) + "?level=&condition=")

    # Results first: the first table is on the first screen; the provenance is closed at the end.
    assert page.locator("table.summary-table").first.bounding_box()["y"] < 900
    expect(page.locator("details.provenance")).not_to_have_attribute("open", "")
    expect(page.locator("#layers table.layer-table:visible").first.locator("tbody tr")).to_have_count(41)
    expect(page.locator("#layers figure svg, figure[data-figure^=layers] svg")).to_have_count(2)
    no_overflow(page)
    page.locator("a[rel=next]").click()
    page.wait_for_url("**page=2**")
    no_overflow(page)

    page.goto(live_server.url + reverse("probe_compare") + f"?runs={sweep.pk},{other.pk}")
    expect(page.get_by_role("cell", name="sentence-transformers-paraphrase-multilingual-mpnet-base-v2")).to_be_visible()
    no_overflow(page)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "probe-compare-page.png"), full_page=True)


@pytest.mark.usefixtures("transactional_db")
def test_a_figure_downloads_from_the_page(live_server, page):
    run = make_run(make_release(), make_model())
    page.goto(live_server.url + reverse("probe_run", args=[run.pk]))

    for fmt, start in (("SVG", b"<?xml"), ("PNG", b"\x89PNG"), ("PDF", b"%PDF")):
        with page.expect_download() as download:
            page.locator("figure[data-figure=similarity-nc] .downloads").get_by_text(fmt, exact=True).click()
        path = download.value.path()
        assert download.value.suggested_filename == f"probe-run-{run.pk}-similarity-nc.{fmt.lower()}"
        with open(path, "rb") as handle:
            assert handle.read(8).startswith(start)


@pytest.mark.usefixtures("transactional_db")
def test_a_reader_finds_the_findings_definitions_small_n_marks_and_the_leaderboard(live_server, page):
    from playwright.sync_api import expect

    release, model = make_release(), make_model()
    run = make_run(release, model)
    other = make_run(release, make_model("bert"))

    page.goto(live_server.url + reverse("probe_run", args=[run.pk]))
    findings = page.locator("#findings li")
    expect(findings.first).to_contain_text("closer to its synonym")
    expect(page.locator("#findings")).to_contain_text("too few to say")
    measure = page.locator("table.summary-table:visible abbr.measure", has_text="P_Syn").first
    assert measure.get_attribute("title").startswith("Cosine between the compound")
    expect(page.locator("td.rho.small-n:visible").first).to_contain_text("too few for p")
    page.get_by_role("link", name="What the measures mean").click()
    expect(page.locator("#glossary dt", has_text="Sim_R|Syn")).to_be_visible()

    page.goto(live_server.url + reverse("probe_leaderboard"))
    expect(page.locator("table.leaderboard tbody tr")).to_have_count(2)
    page.locator("select[name=level]").select_option("sentence")
    page.get_by_role("button", name="Show").click()
    page.wait_for_url("**level=sentence**")
    expect(page.locator("table.leaderboard tbody tr")).to_have_count(2)
    page.get_by_role("link", name="P_Rand").click()
    page.wait_for_url("**sort=sim_rand**")
    expect(page.locator("table.leaderboard th[aria-sort=descending]")).to_contain_text("P_Rand")
    page.get_by_label(f"Compare run #{run.pk}").check()
    page.get_by_label(f"Compare run #{other.pk}").check()
    page.get_by_role("button", name="Compare the selected runs").click()
    expect(page.get_by_role("heading", name="Compare probe runs")).to_be_visible()
    expect(page.locator(f"input[name=run][value='{run.pk}']")).to_be_checked()
