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
