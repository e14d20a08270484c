"""A curator reviews a compound's variants in a real browser with the keyboard only."""

from __future__ import annotations

import pytest
from django.urls import reverse

from building.models import VariantChange
from building.pages.review import VARIANTS_PER_PAGE
from datasets import vocabulary
from datasets.models import Variant
from tests.building.review_factories import make_curator, make_review_compound
from tests.conftest import REPO_ROOT
from tests.datasets.factories import make_compound, make_sentence, make_variant

pytestmark = pytest.mark.browser
ARTIFACTS = REPO_ROOT / "var" / "test-artifacts"


def status_of(variant: Variant) -> str:
    return Variant.objects.get(pk=variant.pk).status


@pytest.mark.usefixtures("transactional_db")
def test_a_curator_reviews_a_compound_with_the_keyboard(live_server, page):
    from playwright.sync_api import expect

    make_curator("alice")
    data = make_review_compound()
    review = reverse("review_compound", args=[data["compound"].pk])

    page.goto(live_server.url + review)
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill("pw")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"**{review}")
    page.wait_for_selector("#review[data-keyboard=on]")  # review.js has loaded

    def row(name: str):
        return page.locator(f"#variant-{data[name].pk}")

    def expect_focus_on(name: str) -> None:
        expect(row(name)).to_be_focused()

    # Rows in page order: synonym, isolated synonym, head, modifier (approved), flagged, random (rejected),
    # then the neutral sentence's synonym.
    page.keyboard.press("j")
    expect_focus_on("synonym")
    page.keyboard.press("a")
    expect(row("synonym").locator(".status-badge")).to_have_text("approved")
    expect_focus_on("synonym")
    assert status_of(data["synonym"]) == vocabulary.APPROVED
    assert "approved by alice" in row("synonym").locator(".last-change").inner_text()

    page.keyboard.press("j")
    page.keyboard.press("ArrowDown")
    expect_focus_on("head")
    page.keyboard.press("e")
    edit = row("head").locator("input[name=marked_text]")
    expect(edit).to_be_focused()
    assert edit.input_value() == "Carol is such an [beaver] that she starts at six."
    page.keyboard.press("Control+a")
    page.keyboard.type("Carol is such an [eager one] that she starts at six.")
    page.keyboard.press("Enter")
    expect(row("head").locator(".status-badge")).to_have_text("edited")
    expect(row("head").locator("mark.rep")).to_have_text("eager one")
    expect_focus_on("head")
    head = Variant.objects.get(pk=data["head"].pk)
    assert (head.status, head.replacement, head.decided_by.username) == (vocabulary.EDITED, "eager one", "alice")

    # A bad edit shows its error in the row and changes nothing; Escape gives the row back.
    page.keyboard.press("e")
    page.keyboard.press("Control+a")
    page.keyboard.type("Carol is such an eager one without brackets.")
    page.keyboard.press("Enter")
    expect(row("head").locator(".edit-error")).to_contain_text("exactly one pair of [brackets]")
    assert Variant.objects.get(pk=data["head"].pk).snapshot() == head.snapshot()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "review-page.png"), full_page=True)
    page.keyboard.press("Escape")
    expect_focus_on("head")
    expect(row("head").locator(".edit-error")).to_be_hidden()

    page.keyboard.press("k")
    expect_focus_on("isolated")
    page.keyboard.press("r")
    expect(row("isolated").locator(".status-badge")).to_have_text("rejected")
    assert status_of(data["isolated"]) == vocabulary.REJECTED

    page.keyboard.press("Shift+A")
    expect(page.locator("#review-status")).to_have_text("Approved 1 unflagged pending variant.")
    expect(row("neutral_synonym").locator(".status-badge")).to_have_text("approved")
    expect(page.locator("[data-count=pending]")).to_have_text("1")  # the flagged one
    assert status_of(data["neutral_synonym"]) == vocabulary.APPROVED
    assert status_of(data["flagged"]) == vocabulary.GENERATED  # flagged: left for a curator's eye

    page.keyboard.press("u")  # the focused row (isolated) goes back to pending
    expect(row("isolated").locator(".status-badge")).to_have_text("pending")
    assert status_of(data["isolated"]) == vocabulary.GENERATED

    actions = list(VariantChange.objects.order_by("id").values_list("action", "variant_id", "user__username"))
    assert actions == [
        ("approve", data["synonym"].pk, "alice"),
        ("edit", data["head"].pk, "alice"),
        ("reject", data["isolated"].pk, "alice"),
        ("approve", data["neutral_synonym"].pk, "alice"),
        ("reset", data["isolated"].pk, "alice"),
    ]


def make_many_variants(text: str, pending: int, approved: int) -> dict:
    """A compound whose sentence has ``pending`` pending and ``approved`` approved random variants, interleaved."""
    compound = make_compound(text)
    sentence = make_sentence(compound, f"We met at the {text} after work.")
    statuses = [vocabulary.GENERATED] * pending + [vocabulary.APPROVED] * approved
    statuses[::2], statuses[1::2] = statuses[: len(statuses[::2])], statuses[len(statuses[::2]) :]
    variants = [
        make_variant(sentence, f"word {rank}", kind=vocabulary.RANDOM_FREQ, rank=rank, status=status)
        for rank, status in enumerate(statuses, start=1)
    ]
    return {"compound": compound, "pending": [v.pk for v in variants if v.status == vocabulary.GENERATED]}


@pytest.mark.usefixtures("transactional_db")
def test_the_pending_filter_survives_next_previous_and_j_k(live_server, page):
    from playwright.sync_api import expect

    make_curator("alice")
    car_park = make_many_variants("car park", pending=VARIANTS_PER_PAGE + 5, approved=30)
    loan_shark = make_many_variants("loan shark", pending=1, approved=40)
    first = reverse("review_compound", args=[car_park["compound"].pk]) + "?status=pending"

    page.goto(live_server.url + first)
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill("pw")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"**{first}")
    page.wait_for_selector("#review[data-keyboard=on]")
    rows = page.locator(".review-row")
    expect(rows).to_have_count(VARIANTS_PER_PAGE)

    page.keyboard.press("k")  # no row yet: the last one of the page
    expect(rows.last).to_be_focused()
    page.keyboard.press("j")  # past the last row: the next page, still pending only
    page.wait_for_url("**?status=pending&page=2#first-row")
    page.wait_for_selector("#review[data-keyboard=on]")
    expect(rows).to_have_count(5)
    expect(rows.first).to_be_focused()
    assert {int(pk) for pk in rows.evaluate_all("rs => rs.map(r => r.dataset.variant)")} <= set(car_park["pending"])

    for _ in range(5):  # down the page and past its end: the next compound with a pending variant
        page.keyboard.press("j")
    loan_shark_url = reverse("review_compound", args=[loan_shark["compound"].pk])
    page.wait_for_url(f"**{loan_shark_url}?status=pending#first-row")
    page.wait_for_selector("#review[data-keyboard=on]")
    expect(rows).to_have_count(1)  # its one pending variant among 41, found with one key press
    expect(page.locator(f"#variant-{loan_shark['pending'][0]}")).to_be_focused()

    page.keyboard.press("k")  # before the first row: back to the previous compound, filter kept
    page.wait_for_url(f"**{first}#first-row")
    page.get_by_role("link", name="Next page →").first.click()
    page.wait_for_url("**?status=pending&page=2#first-row")
    page.get_by_role("link", name="← Previous page").first.click()
    page.wait_for_url(f"**{first}#last-row")
    page.wait_for_selector("#review[data-keyboard=on]")
    expect(rows.last).to_be_focused()
    expect(page.get_by_label("Status")).to_have_value("pending")
