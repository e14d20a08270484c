"""A curator sets up an adaptive campaign with a budget and plans the study, in a real browser."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from annotation.models import Campaign
from tests.annotation.test_browser_curator import sign_in
from tests.annotation.test_curator import load_demo

pytestmark = pytest.mark.browser


@pytest.mark.usefixtures("transactional_db")
def test_a_curator_sets_an_adaptive_policy_and_plans_the_study(live_server, page):
    demo = load_demo()
    sign_in(page, live_server)
    page.goto(f"{live_server.url}/curate/new/")
    page.get_by_label("Name").fill("Adaptive idioms")
    page.get_by_label("Collection").select_option(str(demo.pk))
    page.get_by_label("Language").select_option("en")
    page.get_by_label("Ratings per item (N; adaptive: the most)").fill("8")
    page.get_by_label("Allocation").select_option("adaptive")
    page.get_by_label("Adaptive: the fewest ratings per item").fill("3")
    page.get_by_label("Adaptive: stop when the 95% interval is narrower than (points)").fill("1.8")
    page.get_by_label("Budget (money)").fill("45")
    page.get_by_label("Pay per rating").fill("0.15")
    page.get_by_role("button", name="Create campaign and add its items").click()
    page.wait_for_url("**/curate/adaptive-idioms/")
    campaign = Campaign.objects.get(slug="adaptive-idioms")
    assert campaign.adaptive and campaign.rating_budget == 300
    allocation = page.locator("#allocation").inner_text()
    assert "adaptive: 3 to 8 ratings an item" in allocation and "0 of 72 items done" in allocation
    assert "300 ratings" in page.locator("#budget").inner_text()

    call_command("simulate_ratings", campaign.slug, "--leave-room", "5", stdout=StringIO())
    page.get_by_role("link", name="Plan a study from these ratings").click()
    page.wait_for_url("**/curate/adaptive-idioms/planner/")
    assert page.get_by_label("Adaptive").input_value() == "3-8:1.8"  # the campaign's own policy
    page.get_by_label("Simulations").fill("20")
    page.get_by_role("button", name="Simulate").click()
    rows = page.locator("#plan-results tbody tr")
    assert rows.count() == 4  # fixed 3, 5, 10 and the campaign's adaptive design
    assert rows.last.get_attribute("data-design").startswith("adaptive 3-8, width < 1.8, budget 300")
    assert "simulated annotators among them" in page.locator("#plan h2").inner_text()
