"""The Prolific API client (annotation/payments/prolific.py) against a local server that speaks the same API."""

from __future__ import annotations

import pytest

from annotation.payments.prolific import DEFAULT_BASE_URL, ProlificClient, ProlificError
from tests.annotation.fake_prolific import TOKEN, submission

REJECTION = {"action": "REJECT", "rejection_category": "TOO_QUICKLY", "message": "Thank you for taking part. " * 5}


def test_it_lists_every_page_of_a_studys_submissions_with_the_token(fake_prolific):
    fake_prolific.state.submissions = [submission(f"s{i}", f"p{i}") for i in range(5)] + [submission("x", "y", "other")]
    client = ProlificClient(TOKEN, fake_prolific.api)

    found = client.submissions("study1")

    assert [s["id"] for s in found] == ["s0", "s1", "s2", "s3", "s4"]
    received = fake_prolific.state.received
    assert [r.path for r in received] == [
        "/api/v1/submissions/?study=study1",
        "/api/v1/submissions/?study=study1&page=2",
        "/api/v1/submissions/?study=study1&page=3",
    ]
    assert {r.authorization for r in received} == {f"Token {TOKEN}"}


def test_it_approves_and_rejects_with_the_documented_bodies(fake_prolific):
    fake_prolific.state.submissions = [submission("s1", "p1"), submission("s2", "p2")]
    client = ProlificClient(TOKEN, fake_prolific.api)

    assert client.transition("s1", {"action": "APPROVE"}) == {"id": "s1", "status": "APPROVED"}
    assert client.transition("s2", REJECTION)["status"] == "REJECTED"

    [approve, reject] = fake_prolific.state.received
    assert (approve.method, approve.path, approve.body) == (
        "POST",
        "/api/v1/submissions/s1/transition/",
        {"action": "APPROVE"},
    )
    assert reject.body == REJECTION and reject.authorization == f"Token {TOKEN}"


def test_prolifics_refusals_are_errors_without_the_token(fake_prolific):
    fake_prolific.state.submissions = [submission("s1", "p1")]
    client = ProlificClient(TOKEN, fake_prolific.api)
    with pytest.raises(ProlificError, match="HTTP 400") as error:
        client.transition("s1", {"action": "REJECT", "rejection_category": "OTHER", "message": "too short"})
    assert TOKEN not in str(error.value)
    with pytest.raises(ProlificError, match="HTTP 401"):
        ProlificClient("wrong", fake_prolific.api).submissions("study1")
    with pytest.raises(ProlificError, match="not a submission id"):
        client.transition("../../studies/x", {"action": "APPROVE"})


def test_a_next_page_on_another_host_is_refused_and_nothing_reaches_it(fake_prolific, elsewhere):
    fake_prolific.state.submissions = [submission(f"s{i}", f"p{i}") for i in range(3)]
    fake_prolific.state.next_link_to = elsewhere.url
    with pytest.raises(ProlificError, match="refusing to send the Prolific token to '127.0.0.1:"):
        ProlificClient(TOKEN, fake_prolific.api).submissions("study1")
    assert elsewhere.state.received == []


def test_a_redirect_is_not_followed(fake_prolific, elsewhere):
    fake_prolific.state.submissions = [submission("s1", "p1")]
    fake_prolific.state.redirect_to = elsewhere.url
    with pytest.raises(ProlificError, match="HTTP 307"):
        ProlificClient(TOKEN, fake_prolific.api).transition("s1", {"action": "APPROVE"})
    assert elsewhere.state.received == []


def test_the_token_goes_over_https_only_except_to_a_loopback_test_server():
    with pytest.raises(ProlificError, match="must be an https:// URL"):
        ProlificClient(TOKEN, "http://api.prolific.com/api/v1/")
    with pytest.raises(ProlificError, match="must be an https:// URL"):
        ProlificClient(TOKEN, "ftp://127.0.0.1/api/v1/")
    assert ProlificClient(TOKEN).base_url == DEFAULT_BASE_URL == "https://api.prolific.com/api/v1/"
    assert TOKEN not in repr(ProlificClient(TOKEN))


def test_the_environment_configures_the_client():
    with pytest.raises(ProlificError, match="set PROLIFIC_API_TOKEN"):
        ProlificClient.from_environment({})
    client = ProlificClient.from_environment({"PROLIFIC_API_TOKEN": TOKEN, "PROLIFIC_API_URL": "http://127.0.0.1:9/v1"})
    assert client.base_url == "http://127.0.0.1:9/v1/"
    assert ProlificClient.from_environment({"PROLIFIC_API_TOKEN": TOKEN}).base_url == DEFAULT_BASE_URL
