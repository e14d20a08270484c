"""Under the Content-Security-Policy (issue 13, item 6) the pages still work in a real browser.

Chromium reports every script, style or handler the policy blocks on its console; a curator's and
a crowd worker's pages (those with scripts, styles and figures) must report none.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from building.models import BuildJob
from tests.building.review_factories import make_curator
from tests.security.study_world import make_study_world

pytestmark = pytest.mark.browser


def visit(page, url: str) -> None:
    response = page.goto(url)
    assert "script-src 'self'" in response.headers["content-security-policy"], url
    page.wait_for_load_state("networkidle")


@pytest.mark.usefixtures("transactional_db")
def test_no_page_breaks_the_content_security_policy(live_server, page):
    study = make_study_world()
    release, run, review, campaign = study.release, study.run, study.review, study.campaign
    job = BuildJob.objects.create(
        kind=BuildJob.Kind.COUNT_CORPUS, language="en", status=BuildJob.Status.RUNNING, total=4
    )
    make_curator("carol")

    console: list[str] = []
    page.on("console", lambda message: console.append(f"{page.url}: {message.text}"))

    # A crowd worker: the link, the consent form, the instructions, an item (rate.js).
    base = live_server.url
    visit(page, f"{base}/annotate/study/start/?PROLIFIC_PID=csp-worker&STUDY_ID=s&SESSION_ID=1")
    page.get_by_label("I have read the information above").check()
    page.get_by_role("button", name="I agree").click()
    page.wait_for_url("**/instructions/")
    visit(page, f"{base}/annotate/study/")

    # A curator: review (review.js), a probe report (figures, probe_run.js), a build job, campaigns.
    page.goto(f"{base}/accounts/login/")
    page.get_by_label("Username").fill("carol")
    page.get_by_label("Password").fill("pw")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{base}/")
    for url in [
        "/",
        reverse("compound", args=[review["compound"].pk]),
        reverse("review_compound", args=[review["compound"].pk]),
        reverse("probe_run", args=[run.pk]),
        f"{reverse('probe_compare')}?runs={run.pk}",
        reverse("probe_runs"),
        reverse("probe_leaderboard"),
        reverse("release", args=[release.version]),
        reverse("releases"),
        reverse("build_job", args=[job.pk]),
        reverse("curator:dashboard", args=[campaign.slug]),
        reverse("curator:report", args=[campaign.slug]),
        reverse("language_report", args=["en"]),
    ]:
        visit(page, base + url)
    blocked = [line for line in console if "Content Security Policy" in line]
    assert not blocked, "\n".join(blocked)
