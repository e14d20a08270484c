"""The annotator's journey through the web pages: entry, consent, training, items, attention checks, end."""

from __future__ import annotations

import re
import uuid
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from annotation.models import Annotator, Assignment, Campaign, Item, Rating
from annotation.setup_actions import add_items
from tests.datasets.factories import make_collection, make_compound, make_sentence

PROLIFIC = {"PROLIFIC_PID": "pid-1", "STUDY_ID": "study-9", "SESSION_ID": "sess-3"}
GOOD = {"head_score": "0", "modifier_score": "4", "compound_score": "1"}


def make_campaign(regular: int = 3, training: int = 0, attention: int = 0, **fields) -> Campaign:
    collection = make_collection("demo", "Demo")
    campaign = Campaign.objects.create(
        name="Study",
        slug=f"study-{uuid.uuid4().hex[:6]}",
        collection=collection,
        language="en",
        completion_code="C0DE42",
        completion_url="https://app.prolific.com/submissions/complete?cc=C0DE42",
        **({"ratings_per_item": 2, "status": Campaign.Status.OPEN} | fields),
    )
    sentences = []
    for i in range(regular + training + attention):
        compound = make_compound(f"night owl{i}", collection=collection, modifier="night", head=f"owl{i}")
        sentences.append(make_sentence(compound, f"My sister, a <b>{compound.text}</b>, reads until 3 am."))
    add_items(campaign, sentences[:regular])
    for item in add_items(campaign, sentences[regular : regular + training], role=Item.Role.TRAINING):
        item.gold_head, item.gold_modifier, item.gold_compound = 0, 4, 1
        item.feedback = "A night owl is a person, not a bird."
        item.save()
    add_items(campaign, sentences[regular + training :], role=Item.Role.ATTENTION)
    return campaign


def url(name: str, campaign: Campaign, **kwargs) -> str:
    return reverse(f"annotation:{name}", kwargs={"slug": campaign.slug, **kwargs})


def enter(client, campaign: Campaign, params=PROLIFIC):
    """Open the study link: the consent form (or, for this session's annotator, the items); agree on it."""
    link = client.get(url("start", campaign), params)
    if link.status_code == 302:
        return client.get(link.url, follow=True)
    assert link.status_code == 200 and "I agree" in link.content.decode()
    response = client.post(url("start", campaign), {**params, "agree": "1"})
    assert response.status_code == 302
    return client.get(response.url, follow=True)


def consent(client, campaign: Campaign):
    response = client.post(url("consent", campaign), {"agree": "1"})
    assert response.status_code == 302 and response.url == url("instructions", campaign)


def current_token(client, campaign: Campaign) -> str:
    response = client.get(url("rate", campaign))
    assert response.status_code == 200, response
    return str(response.context["assignment"].token)


def rate(client, campaign: Campaign, answers=GOOD, **extra):
    token = current_token(client, campaign)
    return token, client.post(url("rate", campaign), {"token": token, **answers, **extra})


@pytest.mark.django_db
def test_the_whole_journey_from_a_prolific_link_to_the_completion_code(client):
    campaign = make_campaign(regular=6, training=2, attention=1, training_pass_mark=0.5)
    page = enter(client, campaign)
    assert page.request["PATH_INFO"] == url("instructions", campaign)
    annotator = Annotator.objects.get(campaign=campaign)
    assert (annotator.platform, annotator.external_id, annotator.study_id, annotator.session_id) == (
        "prolific",
        "pid-1",
        "study-9",
        "sess-3",
    )
    consent(client, campaign)
    instructions = client.get(url("instructions", campaign))
    assert "How literally is a coffee cup a cup?" in instructions.content.decode()

    # Training: one right, one wrong (pass mark 0.5), with feedback after each.
    page = client.get(url("rate", campaign))
    assert page.context["item"].role == Item.Role.TRAINING
    token, response = rate(client, campaign)
    assert response.url == url("feedback", campaign, token=token)
    feedback = client.get(response.url).content.decode()
    assert "Well done" in feedback and "A night owl is a person, not a bird." in feedback
    token, response = rate(client, campaign, {"head_score": "5", "modifier_score": "0", "compound_score": "5"})
    feedback = client.get(response.url).content.decode()
    assert "Not quite" in feedback

    # The rating page: highlighted, escaped compound, the protocol's questions, progress.
    html = client.get(url("rate", campaign)).content.decode()
    annotator.refresh_from_db()
    assert annotator.training_passed is True
    assert '<mark class="nc">night owl' in html and "&lt;b&gt;" in html
    assert re.search(r"How literally is a <strong>night owl(\d)</strong> an owl\1\?", html)
    assert re.search(r"How literal is the use of “night” in <strong>night owl\d</strong>\?", html)
    assert re.search(r"How literal is the whole compound <strong>night owl\d</strong>\?", html)
    assert "0 = not literal at all" in html and "5 = completely literal" in html
    assert "0 of 7" in html and 'name="csrfmiddlewaretoken"' in html  # 6 items and the attention check among them

    roles = []
    while True:
        page = client.get(url("rate", campaign))
        if page.status_code == 302:
            break
        roles.append(page.context["item"].role)
        response = client.post(
            url("rate", campaign),
            {"token": str(page.context["assignment"].token), **GOOD, "paraphrase_1": "late sleeper"},
        )
        assert response.status_code == 302
    # The attention check comes after the fifth regular rating.
    assert roles == ["regular"] * 5 + ["attention", "regular"]
    assert page.url == url("done", campaign)
    done = client.get(page.url).content.decode()
    assert "C0DE42" in done and "https://app.prolific.com/submissions/complete?cc=C0DE42" in done
    annotator.refresh_from_db()
    assert annotator.completed_at is not None
    assert Rating.objects.filter(annotator=annotator, item__role="regular").count() == 6
    assert Rating.objects.filter(annotator=annotator).count() == 9
    assert set(campaign.items.filter(role="regular").values_list("taken", flat=True)) == {1}
    assert Rating.objects.filter(annotator=annotator, paraphrases__text="late sleeper").count() == 7


@pytest.mark.django_db
def test_failing_the_training_ends_politely(client):
    campaign = make_campaign(regular=2, training=2, training_pass_mark=1.0)
    enter(client, campaign)
    consent(client, campaign)
    rate(client, campaign)
    rate(client, campaign, {"head_score": "5", "modifier_score": "0", "compound_score": "5"})
    page = client.get(url("rate", campaign), follow=True)
    assert page.redirect_chain[-1][0] == url("screened_out", campaign)
    assert "Thank you for your time" in page.content.decode()
    assert Annotator.objects.get(campaign=campaign).training_passed is False
    assert not Assignment.objects.filter(item__role="regular").exists()


@pytest.mark.django_db
def test_errors_keep_what_was_typed(client):
    campaign = make_campaign()
    enter(client, campaign)
    consent(client, campaign)
    token = current_token(client, campaign)
    response = client.post(
        url("rate", campaign),
        {"token": token, "head_score": "2", "modifier_score": "9", "paraphrase_1": "owl <person>", "paraphrase_2": ""},
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert "9 is outside the scale" in html
    assert "Please choose a value from 0 to 5." in html  # compound_score missing
    assert 'name="head_score" value="2" checked' in html
    assert 'value="owl &lt;person&gt;"' in html
    assert str(response.context["assignment"].token) == token
    assert not Rating.objects.exists()


@pytest.mark.django_db
def test_a_double_submit_stores_one_rating_and_moves_on(client):
    campaign = make_campaign()
    enter(client, campaign)
    consent(client, campaign)
    token, first = rate(client, campaign)
    second = client.post(url("rate", campaign), {"token": token, **GOOD})
    assert first.status_code == second.status_code == 302
    assert second.url == url("rate", campaign)
    assert Rating.objects.count() == 1
    assert current_token(client, campaign) != token


@pytest.mark.django_db
def test_the_same_worker_resumes_in_a_new_session(client, django_user_model):
    campaign = make_campaign()
    enter(client, campaign)
    consent(client, campaign)
    token, _ = rate(client, campaign)
    current = current_token(client, campaign)
    code = Annotator.objects.get(campaign=campaign).resume_code
    client.logout()  # a new browser session: the worker id alone does not reopen the study
    link = client.get(url("start", campaign), {"PROLIFIC_PID": "pid-1"})
    assert link.status_code == 409 and "already open in another browser" in link.content.decode()
    page = client.post(
        url("resume", campaign), {"PROLIFIC_PID": "pid-1", "resume_code": f"{code[:4]}-{code[4:]}".lower()}, follow=True
    )
    assert page.status_code == 200 and page.request["PATH_INFO"] == url("rate", campaign)
    assert str(page.context["assignment"].token) == current
    assert "1 of 3" in page.content.decode()
    assert Annotator.objects.filter(campaign=campaign).count() == 1


@pytest.mark.django_db
def test_other_platforms_and_local_accounts(client, django_user_model):
    campaign = make_campaign()
    enter(client, campaign, {"workerId": "A1B2", "assignmentId": "3X", "hitId": "H"})
    enter(client, campaign, {"worker_id": "w-7"})
    assert client.get(url("start", campaign)).status_code == 400  # anonymous, no id
    user = django_user_model.objects.create_user("rita", password="pw-123456")
    client.force_login(user)
    enter(client, campaign, {})
    found = set(Annotator.objects.values_list("platform", "external_id", "assignment_id"))
    assert found == {("mturk", "A1B2", "3X"), ("generic", "w-7", ""), ("local", "", "")}
    assert Annotator.objects.get(platform="local").user == user


@pytest.mark.django_db
@pytest.mark.parametrize(("status", "code", "wording"), [("closed", 410, "has ended"), ("paused", 403, "not open")])
def test_a_campaign_that_is_not_open_says_so(client, status, code, wording):
    campaign = make_campaign()
    enter(client, campaign)
    Campaign.objects.filter(pk=campaign.pk).update(status=status)
    for response in (client.get(url("start", campaign), PROLIFIC), client.get(url("rate", campaign))):
        assert response.status_code == code
        assert wording in response.content.decode()


@pytest.mark.django_db
def test_a_stranger_without_a_session_is_asked_for_the_link(client):
    campaign = make_campaign()
    response = client.get(url("rate", campaign))
    assert response.status_code == 403 and "study link" in response.content.decode()


@pytest.mark.django_db
def test_create_demo_campaigns_is_idempotent():
    out = StringIO()
    call_command("create_demo_campaigns", stdout=out)
    call_command("create_demo_campaigns", stdout=out)
    token = Campaign.objects.get(slug="demo-token")
    kind = Campaign.objects.get(slug="demo-type")
    assert (token.level, token.status, token.ratings_per_item) == ("token", "open", 5)
    assert (kind.level, kind.status, kind.ratings_per_item) == ("type", "open", 5)
    assert token.items.filter(role="training").count() == 2
    assert token.items.filter(role="attention").count() == 1
    assert token.items.count() == 24 * 3
    assert token.items.filter(role="training", gold_head__isnull=False).exclude(feedback="").count() == 2
    assert kind.items.count() == 24
    assert (
        "http://127.0.0.1:8000/annotate/demo-token/start/?PROLIFIC_PID=demo-worker&STUDY_ID=demo&SESSION_ID=1"
        in out.getvalue()
    )


@pytest.mark.django_db
def test_the_completion_code_stays_visible_after_the_campaign_closes(client):
    campaign = make_campaign(regular=1)
    enter(client, campaign)
    consent(client, campaign)
    rate(client, campaign)
    assert client.get(url("rate", campaign)).url == url("done", campaign)
    Campaign.objects.filter(pk=campaign.pk).update(status=Campaign.Status.CLOSED)
    response = client.get(url("done", campaign))
    assert response.status_code == 200 and "C0DE42" in response.content.decode()


@pytest.mark.django_db
def test_a_type_level_item_shows_the_compound_with_its_sentences(client):
    collection = make_collection("demo", "Demo")
    campaign = Campaign.objects.create(
        name="Types",
        slug="types",
        collection=collection,
        language="en",
        level=Campaign.Level.TYPE,
        status=Campaign.Status.OPEN,
    )
    compound = make_compound("eager beaver", collection=collection)
    for text in ("An eager beaver came.", "Two eager beaver fans.", "Not an eager beaver?"):
        make_sentence(compound, text)
    add_items(campaign, [compound])
    enter(client, campaign)
    consent(client, campaign)
    html = client.get(url("rate", campaign)).content.decode()
    assert html.count('<mark class="nc">eager beaver</mark>') == 4  # the compound and its three sentences
    assert "How literally is an <strong>eager beaver</strong> a beaver?" in html
