"""A crowd worker's whole journey in a real browser, answering with the keyboard only."""

from __future__ import annotations

from pathlib import Path

import pytest

from annotation.models import Annotator, Campaign, Item, Rating
from tests.annotation.test_views import make_campaign
from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.browser
ARTIFACTS = REPO_ROOT / "var" / "test-artifacts"


def answer_with_keys(page, digits: str, paraphrases: list[str]) -> None:
    """Focus the first question, press one digit per question, Tab through paraphrases, Enter."""
    page.wait_for_selector("#rate-form[data-keyboard=on]")  # rate.js has loaded
    page.locator('input[name="head_score"]').first.focus()
    for digit in digits:
        page.keyboard.press(digit)
    for text in paraphrases:
        page.keyboard.press("Tab")
        page.keyboard.type(text)
    page.keyboard.press("Enter")


@pytest.mark.usefixtures("transactional_db")
def test_a_crowd_worker_rates_three_items_with_the_keyboard(live_server, page):
    campaign = make_campaign(regular=3, training=1, training_pass_mark=1.0)
    campaign.completion_url = ""
    campaign.save()

    page.goto(f"{live_server.url}/annotate/{campaign.slug}/start/?PROLIFIC_PID=kb-worker&STUDY_ID=s1&SESSION_ID=x9")
    page.get_by_label("I have read the information above").check()
    page.get_by_role("button", name="I agree").click()
    page.wait_for_url("**/instructions/")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "instructions.png"), full_page=True)
    page.get_by_role("link", name="Start the practice items").click()

    # Training: the gold answers are 0, 4, 1 (tolerance 1).
    assert "Practice" in page.locator(".rate-head").inner_text()
    answer_with_keys(page, "041", [])
    page.wait_for_url("**/training/**")
    assert "Well done" in page.locator("h1").inner_text()
    page.screenshot(path=str(ARTIFACTS / "training-feedback.png"), full_page=True)
    assert "A night owl is a person, not a bird." in page.content()
    page.get_by_role("link", name="Continue").click()

    expected = []
    for number, (digits, paraphrases) in enumerate(
        [("012", ["late sleeper"]), ("345", ["evening person", "insomniac"]), ("500", [])]
    ):
        page.wait_for_selector("#rate-form")
        assert page.locator(".progress-label").inner_text() == f"{number} of 3"
        assert page.locator(".rate-sentence mark.nc").count() == 1
        token = page.locator('input[name="token"]').input_value()
        if number == 1:
            page.wait_for_selector("#rate-form[data-keyboard=on]")
            page.locator('input[name="head_score"]').first.focus()
            page.keyboard.press("3")
            page.keyboard.press("4")
            page.screenshot(path=str(ARTIFACTS / "rating-page.png"), full_page=True)
        answer_with_keys(page, digits, paraphrases)
        page.wait_for_function(
            "token => !document.querySelector(`input[name=token][value='${token}']`)", arg=token, timeout=10_000
        )
        expected.append((token, [int(d) for d in digits], paraphrases))

    page.wait_for_url("**/done/")
    assert page.locator("#completion-code").inner_text() == "C0DE42"
    page.screenshot(path=str(ARTIFACTS / "completion.png"), full_page=True)

    annotator = Annotator.objects.get(campaign=campaign, external_id="kb-worker")
    assert (annotator.platform, annotator.study_id, annotator.session_id) == ("prolific", "s1", "x9")
    assert annotator.training_passed is True and annotator.completed_at is not None
    for token, digits, paraphrases in expected:
        rating = Rating.objects.get(assignment__token=token)
        assert rating.item.role == Item.Role.REGULAR
        assert [rating.head_score, rating.modifier_score, rating.compound_score] == digits
        assert [p.text for p in rating.paraphrases.all()] == paraphrases
    assert Rating.objects.filter(annotator=annotator).count() == 4
    assert Path(ARTIFACTS / "rating-page.png").stat().st_size > 0
    assert Campaign.objects.get(pk=campaign.pk).status == Campaign.Status.OPEN
