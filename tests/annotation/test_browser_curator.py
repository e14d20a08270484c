"""A curator pauses and closes a campaign in a real browser: each asks for confirmation first."""

from __future__ import annotations

import pytest
from django.test import Client

from annotation.models import Campaign
from tests.annotation.test_curator import make_campaign, make_user

pytestmark = pytest.mark.browser


def sign_in(page, live_server) -> None:
    """The browser gets a curator's session cookie (the login form is tested elsewhere)."""
    client = Client()
    client.force_login(make_user("curator"))
    cookie = client.cookies["sessionid"]
    page.context.add_cookies([{"name": "sessionid", "value": cookie.value, "url": live_server.url}])


@pytest.mark.usefixtures("transactional_db")
def test_pause_and_close_ask_before_they_act(live_server, page):
    campaign = make_campaign(n=2, items=2)
    sign_in(page, live_server)
    page.goto(f"{live_server.url}/curate/{campaign.slug}/")

    page.get_by_role("button", name="Pause").click()
    page.wait_for_url(f"**/curate/{campaign.slug}/status/")
    assert page.locator("h1").inner_text() == "Pause Demo?"
    assert Campaign.objects.get(pk=campaign.pk).status == Campaign.Status.OPEN
    page.get_by_role("link", name="No, keep it open").click()
    page.wait_for_url(f"**/curate/{campaign.slug}/")
    assert Campaign.objects.get(pk=campaign.pk).status == Campaign.Status.OPEN

    page.get_by_role("button", name="Pause").click()
    page.get_by_role("button", name="Yes, pause the campaign").click()
    page.wait_for_url(f"**/curate/{campaign.slug}/")
    assert "Paused" in page.locator("h1").inner_text()
    assert Campaign.objects.get(pk=campaign.pk).status == Campaign.Status.PAUSED

    page.get_by_role("button", name="Close").click()
    assert page.locator("h1").inner_text() == "Close Demo?"
    page.get_by_role("button", name="Yes, close the campaign").click()
    page.wait_for_url(f"**/curate/{campaign.slug}/")
    assert Campaign.objects.get(pk=campaign.pk).status == Campaign.Status.CLOSED


@pytest.mark.usefixtures("transactional_db")
def test_a_curator_copies_the_prolific_link_and_previews_the_study(live_server, page):
    from annotation.models import Annotator, Rating
    from tests.annotation.test_views import make_campaign as make_study

    campaign = make_study(regular=6, attention=1)
    sign_in(page, live_server)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    page.goto(f"{live_server.url}/curate/{campaign.slug}/")
    shown = page.locator("#link-prolific").inner_text()
    assert shown.endswith("?PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}")
    page.locator('button[data-copy="link-prolific"]').click()
    page.wait_for_function("document.querySelector('button[data-copy=link-prolific]').textContent === 'Copied'")
    assert page.evaluate("navigator.clipboard.readText()") == shown

    page.get_by_role("link", name="Preview as a worker").click()
    page.wait_for_url("**/preview/")
    assert "nothing you do here is recorded" in page.locator("#preview-banner").inner_text()
    page.get_by_label("I have read the information above and agree to take part.").check()
    page.get_by_role("button", name="I agree").click()
    page.get_by_role("link", name="Start rating").click()
    for _ in range(6):  # five items and the attention check, answered with the keyboard or not at all
        page.get_by_role("button", name="Submit and next").click()
    assert "6 of 7" in page.locator("#progress-label").inner_text()
    page.get_by_role("button", name="I don't know this expression").click()
    page.wait_for_selector("#preview-end")
    assert Annotator.objects.filter(campaign=campaign).count() == 0 and Rating.objects.count() == 0


@pytest.mark.usefixtures("transactional_db")
def test_a_curator_sets_up_a_campaign_in_sections_and_picks_items_by_search(live_server, page):
    from tests.annotation.test_curator import load_demo

    demo = load_demo()
    sign_in(page, live_server)
    page.goto(f"{live_server.url}/curate/new/")
    legends = page.locator("fieldset.form-section legend").all_inner_texts()
    assert legends == [
        "What is rated",
        "Who rates, and how many",
        "Allocation and budget",
        "Quality",
        "Payment and the ends of the study",
    ]
    page.get_by_label("Name").fill("Grey matter, token level")
    assert page.get_by_label("Slug").input_value() == "grey-matter-token-level"
    page.get_by_label("Items per worker").fill("20")
    assert "Each worker is given up to 20 items" in page.locator("#finish-rule").inner_text()
    page.get_by_label("Collection").select_option(str(demo.pk))
    page.get_by_label("Language").select_option("en")
    page.get_by_label("Items", exact=True).select_option("pick")
    page.get_by_role("button", name="Create campaign and add its items").click()
    page.wait_for_url("**/curate/grey-matter-token-level/items/pick/")
    page.get_by_label("Search", exact=True).fill("night owl")
    page.get_by_role("button", name="Filter").click()
    rows = page.locator("#candidates tbody tr")
    assert rows.count() >= 1 and all("night owl" in text for text in rows.all_inner_texts())
    rows.first.locator("input[type=checkbox]").check()
    page.get_by_role("button", name="Add the chosen items").click()
    page.wait_for_url("**/curate/grey-matter-token-level/")
    assert Campaign.objects.get(slug="grey-matter-token-level").items.count() == 1


@pytest.mark.usefixtures("transactional_db")
def test_an_open_campaigns_report_updates_in_place_and_never_reloads(live_server, page, monkeypatch):
    from io import StringIO

    from django.core.management import call_command

    from annotation.models import Annotator, FilterPolicy, Rating
    from annotation.reports import views as report_views

    monkeypatch.setattr(report_views, "POLL_SECONDS", 1)  # the live server runs in this process
    call_command("create_demo_campaigns", stdout=StringIO())
    call_command("simulate_ratings", "demo-token", stdout=StringIO())
    campaign = Campaign.objects.get(slug="demo-token")
    Campaign.objects.filter(pk=campaign.pk).update(status=Campaign.Status.OPEN)
    # The migration's policy, which a transactional test before this one may have flushed.
    FilterPolicy.objects.get_or_create(name="rho>=0.2", defaults={"min_rho": 0.2, "min_items": 3})
    sign_in(page, live_server)
    page.goto(f"{live_server.url}/curate/{campaign.slug}/report/")
    assert page.locator('meta[http-equiv="refresh"]').count() == 0
    page.evaluate("window.readerMark = 'still the same page'")
    page.select_option("select[name=policy]", "rho>=0.2")  # the reader's unsent choice survives the updates
    rows = page.locator("#reliability tbody tr").count()
    page.locator("#live-checked", has_text="nothing new").wait_for()

    gone = Annotator.objects.filter(campaign=campaign).order_by("pk").last()
    Rating.objects.filter(annotator=gone).delete()
    page.locator("#live-checked", has_text="updated").wait_for()

    assert page.evaluate("window.readerMark") == "still the same page"  # no reload
    updated = page.locator("#report").get_attribute("data-updated-parts").split()
    assert {"computed", "annotators", "agreement"} <= set(updated) and "status" not in updated
    assert page.locator("#reliability tbody tr").count() == rows - 1
    assert page.locator("select[name=policy]").input_value() == "rho>=0.2"

    Campaign.objects.filter(pk=campaign.pk).update(status=Campaign.Status.CLOSED)
    page.locator("#live-checked", has_text="no more updates").wait_for()
    assert "Closed" in page.locator("[data-live-part=status]").inner_text()
    assert page.evaluate("window.readerMark") == "still the same page"
