"""Payment reconciliation of a campaign: the decisions page, the platforms' files, the commands, and the
dashboard action that approves and rejects on Prolific (a local server speaking Prolific's API)."""

from __future__ import annotations

import csv
import io
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from annotation.actions import enter_campaign
from annotation.models import Annotator
from tests.annotation.fake_prolific import TOKEN, submission
from tests.annotation.test_curator import make_campaign, make_user, rate_next

pytestmark = pytest.mark.django_db

ANA, SPEEDER, SCREENED, GONE = (f"5f{'0' * 21}{i}" for i in range(1, 5))


def prolific(campaign, pid: str, session: str) -> Annotator:
    return enter_campaign(
        campaign, platform=Annotator.Platform.PROLIFIC, external_id=pid, study_id="study1", session_id=session
    )


def finished(annotator: Annotator) -> None:
    Annotator.objects.filter(pk=annotator.pk).update(completed_at=timezone.now(), status=Annotator.Status.COMPLETED)


@pytest.fixture
def campaign():
    """Prolific: ana finished, a speeder finished, one screened out, one gone; an MTurk worker; a simulated and a local one."""
    campaign = make_campaign(n=6, items=3)
    ana, speeder = prolific(campaign, ANA, "sub1"), prolific(campaign, SPEEDER, "sub2")
    screened, gone = prolific(campaign, SCREENED, "sub3"), prolific(campaign, GONE, "sub4")
    turk = enter_campaign(
        campaign, platform=Annotator.Platform.MTURK, external_id="A1WORKER", study_id="3HIT", assignment_id="3ASSIGN"
    )
    simulated = enter_campaign(campaign, platform=Annotator.Platform.GENERIC, external_id="sim-01")
    Annotator.objects.filter(pk=simulated.pk).update(simulated=True)
    local = enter_campaign(campaign, user=make_user("annotator"))
    for _ in range(3):
        rate_next(ana, seconds=20)
        rate_next(speeder, seconds=0.5)
        rate_next(simulated, seconds=0.1)
        rate_next(local, seconds=0.1)
    rate_next(gone, seconds=20)
    rate_next(turk, seconds=20)
    for annotator in (ana, speeder, turk, simulated, local):
        finished(annotator)
    Annotator.objects.filter(pk=screened.pk).update(training_passed=False, status=Annotator.Status.SCREENED_OUT)
    return campaign


@pytest.fixture
def curator_client(client):
    client.force_login(make_user("curator"))
    return client


def download(client, campaign, name: str) -> str:
    response = client.get(reverse("curator:payment_file", args=[campaign.slug, name]))
    assert response.status_code == 200
    assert response["Content-Disposition"] == f'attachment; filename="{campaign.slug}-{name}"'
    return response.content.decode()


def test_the_payments_page_and_files_give_every_crowd_workers_decision(curator_client, campaign):
    page = curator_client.get(reverse("curator:payments", args=[campaign.slug])).content.decode()
    assert "2 approve · 1 reject · 0 review · 1 screened out · 1 returned" in page
    assert "speeder (median 0.5 s per item &lt; 3 s)" in page and "TOO_QUICKLY" in page

    assert download(curator_client, campaign, "prolific-approve.txt") == f"{ANA}\n"
    prolific_rows = list(csv.DictReader(io.StringIO(download(curator_client, campaign, "prolific.csv"))))
    assert [(r["participant_id"], r["submission_id"], r["status"]) for r in prolific_rows] == [
        (ANA, "sub1", "approve"),
        (SPEEDER, "sub2", "reject"),
        (SCREENED, "sub3", "screened out"),
        (GONE, "sub4", "returned"),
    ]
    mturk = download(curator_client, campaign, "mturk.csv")
    assert mturk.splitlines() == ["HITId,AssignmentId,WorkerId,Approve,Reject", "3HIT,3ASSIGN,A1WORKER,x,"]
    everyone = list(csv.DictReader(io.StringIO(download(curator_client, campaign, "reconciliation.csv"))))
    # Simulated annotators and local accounts are nobody's to pay.
    assert [r["worker_id"] for r in everyone] == [ANA, SPEEDER, SCREENED, GONE, "A1WORKER"]
    assert everyone[3]["reason"] == "did not finish: 1 item rated"
    assert curator_client.get(reverse("curator:payment_file", args=[campaign.slug, "secrets.txt"])).status_code == 404


def test_the_export_command_writes_the_same_files(campaign):
    out = StringIO()
    call_command("export_payments", "--campaign", campaign.slug, "--file", "prolific-approve.txt", stdout=out)
    assert out.getvalue() == f"{ANA}\n"


def prolific_submissions() -> list[dict]:
    return [
        submission("sub1", ANA),
        submission("sub2", SPEEDER),
        submission("sub3", SCREENED),
        submission("sub4", GONE, status="RETURNED"),
        submission("sub9", "stranger"),
    ]


def test_the_dashboard_action_previews_then_approves_and_rejects_on_prolific(
    curator_client, campaign, fake_prolific, monkeypatch
):
    monkeypatch.setenv("PROLIFIC_API_TOKEN", TOKEN)
    monkeypatch.setenv("PROLIFIC_API_URL", fake_prolific.api)
    fake_prolific.state.submissions = prolific_submissions()
    url = reverse("curator:prolific", args=[campaign.slug])

    preview = curator_client.post(url, {"studies": "study1", "action": "preview"})
    assert preview.status_code == 200
    assert {r.method for r in fake_prolific.state.received} == {"GET"}
    html = preview.content.decode()
    assert "Study study1: preview" in html and f"APPROVE {ANA} (sub1)" in html and f"REJECT {SPEEDER} (sub2)" in html

    sent = curator_client.post(url, {"studies": "study1", "action": "send"}, follow=True)
    assert "Sent to Prolific: 2 approval(s) and rejection(s); 0 failed." in sent.content.decode()
    posts = [r for r in fake_prolific.state.received if r.method == "POST"]
    assert [(r.path, r.body["action"]) for r in posts] == [
        ("/api/v1/submissions/sub1/transition/", "APPROVE"),
        ("/api/v1/submissions/sub2/transition/", "REJECT"),
    ]
    assert posts[1].body["rejection_category"] == "TOO_QUICKLY" and len(posts[1].body["message"]) >= 100
    assert {r.authorization for r in fake_prolific.state.received} == {f"Token {TOKEN}"}
    statuses = {s["id"]: s["status"] for s in fake_prolific.state.submissions}
    assert statuses == {
        "sub1": "APPROVED",
        "sub2": "REJECTED",
        "sub3": "AWAITING REVIEW",
        "sub4": "RETURNED",
        "sub9": "AWAITING REVIEW",
    }


def test_only_curators_reach_prolific(client, campaign, fake_prolific, monkeypatch):
    monkeypatch.setenv("PROLIFIC_API_TOKEN", TOKEN)
    monkeypatch.setenv("PROLIFIC_API_URL", fake_prolific.api)
    fake_prolific.state.submissions = prolific_submissions()
    client.force_login(make_user("annotator"))
    response = client.post(reverse("curator:prolific", args=[campaign.slug]), {"studies": "study1", "action": "send"})
    assert response.status_code == 403
    assert fake_prolific.state.received == []


def test_without_a_token_the_page_says_what_to_set(curator_client, campaign, monkeypatch):
    monkeypatch.delenv("PROLIFIC_API_TOKEN", raising=False)
    response = curator_client.post(reverse("curator:prolific", args=[campaign.slug]), {"studies": "study1"})
    assert response.status_code == 502
    assert "no Prolific API token: set PROLIFIC_API_TOKEN" in response.content.decode()


def test_the_command_previews_unless_told_to_send_and_a_second_run_sends_nothing(campaign, fake_prolific, monkeypatch):
    monkeypatch.setenv("PROLIFIC_API_TOKEN", TOKEN)
    monkeypatch.setenv("PROLIFIC_API_URL", fake_prolific.api)
    fake_prolific.state.submissions = prolific_submissions()

    out = StringIO()
    call_command("reconcile_prolific", "--campaign", campaign.slug, stdout=out)
    assert "study study1: 2 to send (preview: give --send)" in out.getvalue()
    assert not [r for r in fake_prolific.state.received if r.method == "POST"]

    call_command("reconcile_prolific", "--campaign", campaign.slug, "--send", stdout=StringIO())
    assert len([r for r in fake_prolific.state.received if r.method == "POST"]) == 2
    again = StringIO()
    call_command("reconcile_prolific", "--campaign", campaign.slug, "--send", stdout=again)
    assert "study study1: 0 sent" in again.getvalue() and "approved on Prolific" in again.getvalue()
    assert len([r for r in fake_prolific.state.received if r.method == "POST"]) == 2
