"""A crowd worker's study in Chromium, on a desktop and on a 390 px phone (issue 14).

Back never carries one item's answers to another; throwaway ids cannot make the next person
finish without work; a full study and a screen-out end with the right platform path; the
consent page's time is measured; "I don't know" skips; the phone page has 44 px targets and
does not scroll sideways. No timing is asserted: waits are for states, not for durations.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from annotation.actions import claim_next_item, enter_campaign, submit_rating
from annotation.crowd import rating_views
from annotation.models import Annotator, Assignment, Campaign, Rating, Skip
from annotation.protocol import Answers
from tests.annotation.test_views import make_campaign

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("transactional_db")]

DESKTOP = {"viewport": {"width": 1200, "height": 900}}
# An iPhone 12-14 sized screen, touch only.
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "device_scale_factor": 3}


@pytest.fixture
def browser(chromium_launch_options, monkeypatch):
    """Debian's headless Chromium (Playwright, never ``playwright install``)."""
    from django.db import connections
    from playwright.sync_api import sync_playwright

    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(**chromium_launch_options)
        try:
            yield browser
        finally:
            browser.close()
            connections.close_all()


@pytest.fixture(params=["desktop", "phone"])
def device(request, browser):
    """A page on a desktop-sized window or on a phone."""
    context = browser.new_context(**(DESKTOP if request.param == "desktop" else PHONE))
    yield context.new_page()
    context.close()


@pytest.fixture
def phone(browser):
    context = browser.new_context(**PHONE)
    yield context.new_page()
    context.close()


def agree(page, base: str, campaign: Campaign, pid: str) -> None:
    """Open the study link and agree on the consent form."""
    page.goto(f"{base}/annotate/{campaign.slug}/start/?PROLIFIC_PID={pid}&STUDY_ID=s&SESSION_ID=1")
    page.locator("label.check").click()
    page.get_by_role("button", name="I agree").click()
    page.wait_for_url("**/instructions/")


def start_rating(page, base: str, campaign: Campaign, pid: str) -> None:
    agree(page, base, campaign, pid)
    page.locator("a.button").click()
    page.wait_for_selector("#rate-form[data-blank=on]")


def choose(page, head: str, modifier: str, compound: str) -> None:
    for name, value in (("head_score", head), ("modifier_score", modifier), ("compound_score", compound)):
        page.locator(f"#q-{name} label.scale-option", has_text=value).click()


def checked(page) -> list[str]:
    return page.eval_on_selector_all("#rate-form input:checked", "inputs => inputs.map(i => i.name + '=' + i.value)")


def token(page) -> str:
    return page.locator('input[name="token"]').input_value()


def submit_and_wait(page, button: str = "#submit-rating") -> None:
    before = token(page)
    page.locator(button).click()
    page.wait_for_function(
        "t => { const f = document.querySelector('input[name=token]'); return !f || f.value !== t }", arg=before
    )


def test_back_shows_a_blank_form_and_a_kept_page_cannot_answer_the_next_item(live_server, device):
    campaign = make_campaign(regular=3)
    start_rating(device, live_server.url, campaign, "back-worker")
    first = token(device)
    choose(device, "1", "2", "3")
    submit_and_wait(device)
    second = token(device)

    device.go_back()
    device.wait_for_selector("#rate-form[data-blank=on]")
    assert checked(device) == []  # nothing of the first item's answers is put back
    assert token(device) == second  # the page asks the server: it shows the current item

    # A copy of the first item's page kept in another tab, answered and sent after the fact.
    stale = device.context.new_page()
    stale.goto(device.url)
    stale.wait_for_selector("#rate-form[data-blank=on]")
    stale.evaluate("t => document.querySelector('input[name=token]').value = t", first)
    choose(stale, "5", "5", "5")
    stale.locator("#submit-rating").click()
    stale.wait_for_selector("#messages")
    assert "already answered that item" in stale.locator("#messages").inner_text()
    assert token(stale) == second and checked(stale) == []  # back on the current item, blank
    stale.close()

    assert list(Rating.objects.values_list("assignment__token", "head_score", "modifier_score", "compound_score")) == [
        (Assignment.objects.get(token=first).token, 1, 2, 3)
    ]
    assert not Rating.objects.filter(assignment__token=second).exists()


def test_throwaway_ids_cannot_make_the_next_person_finish_without_work(live_server, device, monkeypatch):
    monkeypatch.setattr(rating_views, "WAIT_RETRY_SECONDS", 1)
    campaign = make_campaign(regular=3, reservation_minutes=30)
    Campaign.objects.filter(pk=campaign.pk).update(ratings_per_item=1)
    squatters = device.context.browser.new_context()
    for pid in ("throwaway-1", "throwaway-2", "throwaway-3"):
        squatter = squatters.new_page()
        start_rating(squatter, live_server.url, campaign, pid)  # opens an item, never answers
    squatters.close()

    agree(device, live_server.url, campaign, "real-person")
    device.locator("a.button").click()
    device.wait_for_selector("#waiting")
    assert "/done/" not in device.url
    assert "completion code" not in device.content().lower() and "C0DE42" not in device.content()
    assert device.locator('meta[http-equiv="refresh"]').count() == 1
    real = Annotator.objects.get(external_id="real-person")
    assert real.status == Annotator.Status.ACTIVE and real.completed_at is None

    # The throwaway ids' reservations time out: the waiting page's own retry hands an item over.
    Assignment.objects.filter(annotator__external_id__startswith="throwaway").update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )
    device.wait_for_selector("#rate-form[data-blank=on]", timeout=20_000)
    choose(device, "2", "2", "2")
    submit_and_wait(device)
    assert Rating.objects.filter(annotator__external_id="real-person").count() == 1


def test_a_full_study_says_so_before_consent_and_gives_no_code(live_server, device):
    campaign = make_campaign(regular=1, full_url="https://app.prolific.com/submissions/return-full")
    Campaign.objects.filter(pk=campaign.pk).update(ratings_per_item=1)
    first = enter_campaign(campaign, platform=Annotator.Platform.PROLIFIC, external_id="first")
    submit_rating(first, str(claim_next_item(first).token), Answers(1, 2, 3))

    device.goto(f"{live_server.url}/annotate/{campaign.slug}/start/?PROLIFIC_PID=late&STUDY_ID=s&SESSION_ID=1")
    assert device.locator("h1").inner_text() == "This study is full"
    assert device.get_by_role("button", name="I agree").count() == 0
    assert "C0DE42" not in device.content()
    assert device.locator("#full-return").get_attribute("href") == "https://app.prolific.com/submissions/return-full"
    assert not Annotator.objects.filter(external_id="late").exists()


def test_a_screened_out_worker_gets_the_screen_out_code_and_is_recorded_so(live_server, device):
    campaign = make_campaign(regular=2, training=2, training_pass_mark=1.0, screen_out_code="SCR33N")
    agree(device, live_server.url, campaign, "screened")
    assert "You need at least 2 of 2 right" in device.locator("#practice-rule").inner_text()
    device.locator("a.button").click()
    for answers in (("0", "4", "1"), ("5", "0", "5")):  # the gold is 0, 4, 1 (tolerance 1)
        device.wait_for_selector("#rate-form[data-blank=on]")
        choose(device, *answers)
        device.locator("#submit-rating").click()
        device.wait_for_url("**/training/**")
        device.get_by_role("link", name="Continue").click()
    device.wait_for_url("**/screened-out/")
    assert device.locator("#screen-out-code").inner_text() == "SCR33N"
    link = device.locator("#screen-out-link").get_attribute("href")
    assert link == "https://app.prolific.com/submissions/complete?cc=SCR33N"
    assert "C0DE42" not in device.content()
    annotator = Annotator.objects.get(external_id="screened")
    assert (annotator.status, annotator.completed_at) == (Annotator.Status.SCREENED_OUT, None)


def test_the_consent_page_states_the_measured_time(live_server, device):
    campaign = make_campaign(regular=12, expected_seconds_per_item=10)
    Campaign.objects.filter(pk=campaign.pk).update(ratings_per_item=20)
    for i in range(10):
        annotator = enter_campaign(campaign, platform=Annotator.Platform.PROLIFIC, external_id=f"earlier-{i}")
        assignment = claim_next_item(annotator)
        submit_rating(
            annotator, str(assignment.token), Answers(1, 1, 1), now=assignment.reserved_at + timedelta(seconds=50)
        )
    device.goto(f"{live_server.url}/annotate/{campaign.slug}/start/?PROLIFIC_PID=new&STUDY_ID=s&SESSION_ID=1")
    estimate = device.locator("#time-estimate").inner_text()
    assert "This study takes about 10 minutes: 12 items at about 50 seconds each" in estimate
    assert "median time per item of the people who took part so far" in estimate


def test_dont_know_skips_the_item_for_good_and_the_instructions_open_without_losing_answers(live_server, device):
    campaign = make_campaign(regular=2)
    start_rating(device, live_server.url, campaign, "skipper")
    skipped = token(device)
    item = Assignment.objects.get(token=skipped).item_id
    choose(device, "3", "3", "3")
    device.locator("#instructions summary").click()
    assert device.locator("#instructions .instructions-body").is_visible()
    assert device.locator("#instructions").get_attribute("open") is not None
    assert len(checked(device)) == 3  # opening the instructions lost nothing
    assert token(device) == skipped

    submit_and_wait(device, "#skip-item")
    assert "will not be shown that item again" in device.locator("#messages").inner_text()
    skip = Skip.objects.get()
    assert (skip.item_id, skip.reason) == (item, Skip.Reason.UNKNOWN_EXPRESSION)
    assert not Rating.objects.exists()
    assert Assignment.objects.get(token=token(device)).item_id != item
    choose(device, "1", "1", "1")
    device.locator("#submit-rating").click()
    device.wait_for_url("**/done/")
    mine = Assignment.objects.filter(annotator__external_id="skipper", item_id=item)
    assert list(mine.values_list("status", flat=True)) == [Assignment.Status.SKIPPED]  # never handed out again


def test_the_phone_page_has_44_px_targets_and_no_sideways_scrolling(live_server, phone):
    campaign = make_campaign(regular=2, training=1)
    phone.goto(f"{live_server.url}/annotate/{campaign.slug}/start/?PROLIFIC_PID=phone-worker")
    assert phone.evaluate("() => document.documentElement.scrollWidth") <= 390  # the consent page
    assert phone.locator("label.check").bounding_box()["height"] >= 44
    phone.locator("label.check").click()
    phone.get_by_role("button", name="I agree").click()
    phone.wait_for_url("**/instructions/")
    assert phone.evaluate("() => document.documentElement.scrollWidth") <= 390  # instructions, worked examples
    phone.locator("a.button").click()
    phone.wait_for_selector("#rate-form[data-blank=on]")
    phone.locator("#instructions summary").click()  # open, so that its text counts for the width too
    width = phone.evaluate("() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    assert width[0] <= width[1] == 390
    targets = phone.eval_on_selector_all(
        "label.scale-option, #rate-form button, #instructions summary, input[type=text]",
        "els => els.map(e => { const r = e.getBoundingClientRect(); return [e.tagName, r.width, r.height] })",
    )
    assert len(targets) >= 6 * 3 + 1 + 1 + 3
    small = [t for t in targets if t[1] < 44 or t[2] < 44]
    assert not small, small
    assert phone.locator(".rate-actions .hint-keys").is_hidden()
    assert phone.locator(".rate-actions .hint-touch").is_visible()
    # The practice feedback fits the screen too.
    choose(phone, "0", "4", "1")
    phone.locator("#submit-rating").click()
    phone.wait_for_url("**/training/**")
    assert phone.evaluate("() => document.documentElement.scrollWidth") <= 390
    table = phone.locator(".feedback-table").bounding_box()
    assert table["x"] >= 0 and table["x"] + table["width"] <= 390


def test_a_desktop_shows_the_keyboard_hint_and_the_keys_answer(live_server, browser):
    context = browser.new_context(**DESKTOP)
    page = context.new_page()
    campaign = make_campaign(regular=2)
    start_rating(page, live_server.url, campaign, "keys")
    assert page.locator(".rate-actions .hint-keys").is_visible()
    assert page.locator(".rate-actions .hint-touch").is_hidden()
    page.locator('input[name="head_score"]').first.focus()
    for key in "234":
        page.keyboard.press(key)
    assert checked(page) == ["head_score=2", "modifier_score=3", "compound_score=4"]
    page.keyboard.press("Tab")
    page.keyboard.type("night person")
    page.keyboard.press("Enter")
    page.wait_for_function("() => !document.querySelector('input[name=head_score]:checked')")
    rating = Rating.objects.get()
    assert (rating.head_score, rating.modifier_score, rating.compound_score) == (2, 3, 4)
    context.close()
