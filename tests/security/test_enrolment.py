"""Enrolment is a POST, the consent form's (issue 13, item 9): a link, a prefetch or a cross-site image
that loads /annotate/<slug>/start/ enrols nobody. The crowd link's ids ride on the consent form to
the POST, which needs a CSRF token like every write.
"""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from annotation.models import Annotator, Campaign
from annotation.setup_actions import add_items
from tests.datasets.factories import make_collection, make_compound, make_sentence

PROLIFIC = {"PROLIFIC_PID": "pid-77", "STUDY_ID": "study-1", "SESSION_ID": "sess-2"}
MTURK = {"workerId": "A1B2", "assignmentId": "3X", "hitId": "H9"}


@pytest.fixture
def campaign() -> Campaign:
    collection = make_collection("demo", "Demo")
    campaign = Campaign.objects.create(name="Study", slug="study", collection=collection, language="en", status="open")
    # One item to rate: a campaign with nothing left says "study full" instead of showing the consent form.
    add_items(campaign, [make_sentence(make_compound("night owl", collection=collection))])
    return campaign


def start_url(campaign: Campaign) -> str:
    return reverse("annotation:start", kwargs={"slug": campaign.slug})


@pytest.mark.django_db
@pytest.mark.parametrize("link", [PROLIFIC, MTURK])
def test_opening_a_crowd_link_enrols_nobody_and_carries_its_ids_to_the_consent_form(client, campaign, link):
    page = client.get(start_url(campaign), link)
    assert page.status_code == 200 and Annotator.objects.count() == 0
    html = page.content.decode()
    assert f'action="{start_url(campaign)}"' in html
    for name, value in link.items():
        assert f'<input type="hidden" name="{name}" value="{value}">' in html
    assert not any(key.startswith("annotation:") for key in client.session.keys())


@pytest.mark.django_db
def test_a_page_that_makes_a_signed_in_user_load_the_link_enrols_nobody(client, campaign, django_user_model):
    client.force_login(django_user_model.objects.create_user("rita", password="pw-123456"))
    assert client.get(start_url(campaign)).status_code == 200  # e.g. <img src=".../start/"> on another site
    assert Annotator.objects.count() == 0


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("link", "expected"),
    [(PROLIFIC, ("prolific", "pid-77", "study-1", "sess-2", "")), (MTURK, ("mturk", "A1B2", "H9", "", "3X"))],
)
def test_agreeing_on_the_consent_form_enrols_with_the_links_ids_and_a_forged_post_does_not(campaign, link, expected):
    forged = Client(enforce_csrf_checks=True).post(start_url(campaign), {**link, "agree": "1"})
    assert forged.status_code == 403 and Annotator.objects.count() == 0
    browser = Client(enforce_csrf_checks=True)
    form = browser.get(start_url(campaign), link).content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form).group(1)
    hidden = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)">', form))
    response = browser.post(start_url(campaign), {**hidden, "agree": "1", "csrfmiddlewaretoken": token})
    assert response.status_code == 302 and response.url.endswith("/instructions/")
    annotator = Annotator.objects.get()
    fields = ("platform", "external_id", "study_id", "session_id", "assignment_id")
    assert tuple(getattr(annotator, f) for f in fields) == expected
    assert annotator.consented_at is not None


@pytest.mark.django_db
def test_posting_without_agreeing_enrols_nobody(client, campaign):
    response = client.post(start_url(campaign), PROLIFIC)
    assert response.status_code == 400 and "tick the box" in response.content.decode()
    assert Annotator.objects.count() == 0
