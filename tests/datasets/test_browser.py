"""End to end in a real browser: a curator's home page links to a compound whose occurrence is highlighted."""

from __future__ import annotations

import pytest

from tests.building.review_factories import make_curator
from tests.datasets.factories import make_compound, make_sentence, make_unavailable_sentence, make_variant

# The ``browser`` marker (tests/conftest.py) skips these tests when /usr/bin/chromium is missing, and
# fails them under CI=true; ``chromium_launch_options`` launches Debian's Chromium headless, offline.
pytestmark = pytest.mark.browser


@pytest.mark.usefixtures("transactional_db")
def test_home_to_compound_highlights_the_occurrence(live_server, page):
    compound = make_compound("eager beaver", gold_synonym="enthusiast")
    sentence = make_sentence(
        compound, "Peggy, an <b>eager beavers</b> fan, met the eager beavers.", surface="eager beavers"
    )
    make_variant(sentence, "enthusiasts")
    make_unavailable_sentence(compound)
    make_compound("olive oil")

    make_curator("alice")  # password "pw"
    page.goto(live_server.url + "/accounts/login/?next=/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill("pw")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(live_server.url + "/")
    assert page.title() == "Idiomaticity Workbench"
    page.get_by_role("link", name="eager beaver", exact=True).click()
    page.wait_for_url(f"**/compounds/{compound.pk}/")

    assert page.locator("h1").inner_text().startswith("eager beaver")
    marks = page.locator("mark.nc")
    assert marks.count() == 1
    assert marks.inner_text() == sentence.surface == "eager beavers"
    # The markup-looking text is shown literally, not interpreted.
    assert "<b>eager beavers</b>" in page.locator(f"#sentence-{sentence.pk} .sentence-text").inner_text()
    assert page.locator(f"#sentence-{sentence.pk} b").count() == 0

    assert "not available (corpus pointer)" in page.locator(".sentence.unavailable").inner_text()

    replacement = page.locator("mark.rep")
    assert not replacement.is_visible()
    page.locator("details.variants summary").click()
    assert replacement.is_visible()
    assert replacement.inner_text() == "enthusiasts"


@pytest.mark.browser
@pytest.mark.usefixtures("transactional_db")
def test_a_curator_uploads_a_table_with_a_bad_row_and_sees_it_named(live_server, page, tmp_path):
    from django.test import Client

    from tests.building.review_factories import make_curator

    client = Client()
    client.force_login(make_curator("alice"))
    page.context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )
    table = tmp_path / "mine.csv"
    table.write_text("compound,sentence\nrat race,He left the rat race.\nhot potato,Nobody says it here.\n")
    page.goto(f"{live_server.url}/upload/")
    page.get_by_label("Files").set_input_files(str(table))
    page.get_by_label("Language", exact=True).fill("en")
    page.get_by_role("button", name="Check the files").click()
    page.wait_for_selector("#bad-rows")
    row = page.locator("#bad-rows tbody tr").first.inner_text()
    assert "mine.csv" in row and "3" in row and "the sentence does not contain 'hot potato'" in row
    table.write_text("compound,sentence\nrat race,He left the rat race.\n")
    page.goto(f"{live_server.url}/upload/")
    page.get_by_label("Files").set_input_files(str(table))
    page.get_by_label("Language", exact=True).fill("en")
    page.get_by_role("button", name="Check the files").click()
    page.get_by_role("button", name="Import").click()
    page.wait_for_url("**/?collection=uploads")
    from datasets.models import Compound

    assert Compound.objects.filter(collection__slug="uploads", text="rat race").exists()
