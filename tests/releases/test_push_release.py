"""push_release --to-hub: a published release's hf/ folder reaches a Hub, byte for byte, under the endpoint rules.

The Hub is tests/hub_server.py, on 127.0.0.1: listed in WORKBENCH_HUB_HOSTS where a push should go
through, left out where it should be refused before any request.
"""

from __future__ import annotations

import logging
from io import StringIO

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management import CommandError, call_command

from config.env import env_url
from datasets import vocabulary
from datasets.models import Collection, Compound, Sentence, Variant
from releases import actions
from releases.actions import create_release
from releases.formats.hf import hf_folder
from releases.hub import HubError, push_to_hub
from tests.hub_server import HubServer

pytestmark = pytest.mark.django_db

TOKEN = "hf_write_token_for_tests"
REPO = "idioms-lab/noun-compounds"


@pytest.fixture
def release():
    """Release 1.0.0, published: one English compound with a sentence and an approved variant."""
    return create_release_of_one_compound(publish=True)


@pytest.fixture
def hub(settings, monkeypatch):
    """The local Hub, listed and named as the endpoint, with HF_TOKEN set."""
    with HubServer() as server:
        settings.WORKBENCH_HUB_ENDPOINT = server.endpoint
        settings.WORKBENCH_HUB_HOSTS = ["127.0.0.1"]
        monkeypatch.setenv("HF_TOKEN", TOKEN)
        yield server


def push(*args: str) -> str:
    out = StringIO()
    call_command("push_release", "--release", "1.0.0", "--to-hub", REPO, *args, stdout=out)
    return out.getvalue()


def test_a_push_uploads_exactly_the_hf_folder_with_the_token(release, hub, caplog):
    caplog.set_level(logging.DEBUG)

    out = push()

    expected = hf_folder(release.verified_files())
    assert "README.md" in expected and any(path.endswith(".parquet") for path in expected)
    assert hub.files == {REPO: expected}  # every file, byte for byte, and nothing else
    assert hub.repos == {REPO: False}
    assert [(r["method"], r["path"]) for r in hub.requests] == [
        ("POST", "/api/repos/create"),
        ("POST", "/api/validate-yaml"),
        ("POST", f"/api/datasets/{REPO}/preupload/main"),
        ("POST", f"/api/datasets/{REPO}/commit/main"),
    ]
    assert all(r["headers"]["authorization"] == f"Bearer {TOKEN}" for r in hub.requests)
    assert f"release 1.0.0 → {REPO}: {hub.endpoint}/datasets/{REPO}/commit/" in out
    assert TOKEN not in out + caplog.text


def test_a_private_repository_is_created_once_and_pushed_to_again(release, hub):
    push("--private")
    push("--private")

    assert hub.repos == {REPO: True}
    assert [r["path"] for r in hub.requests].count(f"/api/datasets/{REPO}/commit/main") == 2
    assert hub.files[REPO] == hf_folder(release.verified_files())


def test_an_endpoint_whose_host_is_not_listed_is_refused_before_any_request(release, hub, settings):
    settings.WORKBENCH_HUB_HOSTS = ["huggingface.co"]

    with pytest.raises(CommandError, match=r"host 127\.0\.0\.1 is not one the administrator allows.*HUB_HOSTS"):
        push()

    assert hub.requests == []


def test_without_hf_token_nothing_is_sent(release, hub, monkeypatch):
    monkeypatch.delenv("HF_TOKEN")

    with pytest.raises(CommandError, match="set the environment variable HF_TOKEN"):
        push()

    assert hub.requests == []


def test_a_draft_is_not_pushed(hub):
    draft = create_release_of_one_compound(publish=False)

    with pytest.raises(CommandError, match="release 1.0.0 is a draft: publish it"):
        push()

    assert draft.status == "draft" and hub.requests == []


def test_a_release_made_before_the_hf_folder_is_refused_naming_its_version(hub, monkeypatch):
    build = actions.build_files
    monkeypatch.setattr(
        actions, "build_files", lambda *a, **k: {p: d for p, d in build(*a, **k).items() if p[:3] != "hf/"}
    )
    create_release_of_one_compound(publish=True)

    with pytest.raises(CommandError, match=r"release 1\.0\.0 has no hf/ folder .* make a new version"):
        push()

    assert hub.requests == []


def test_a_repository_name_the_hub_would_refuse_is_refused_before_any_request(release, hub):
    with pytest.raises(CommandError, match="'my lab/idioms!' is not a repository name"):
        call_command("push_release", "--release", "1.0.0", "--to-hub", "my lab/idioms!", stdout=StringIO())

    assert hub.requests == []


def test_a_redirect_is_answered_with_an_error_and_not_followed(release, hub, settings):
    with HubServer() as elsewhere, HubServer(redirect_to=elsewhere.endpoint) as redirecting:
        settings.WORKBENCH_HUB_ENDPOINT = redirecting.endpoint

        with pytest.raises(
            CommandError, match=rf"redirect to {elsewhere.endpoint}/api/repos/create: a push follows no redirect"
        ):
            push()

        assert [r["path"] for r in redirecting.requests] == ["/api/repos/create"]
        assert elsewhere.requests == []


def test_a_listed_name_that_resolves_to_a_private_address_is_refused_when_connecting(release, hub):
    def resolver(host: str, port: int) -> list[str]:
        return ["127.0.0.1"]

    with pytest.raises(HubError, match=r"hub\.example resolves to 127\.0\.0\.1, a loopback.*not listed"):
        push_to_hub(release, REPO, "https://hub.example", TOKEN, hosts=["hub.example"], resolver=resolver)

    assert hub.requests == []


def test_the_endpoint_setting_must_be_an_http_url(monkeypatch):
    assert env_url("WORKBENCH_HUB_ENDPOINT", "https://huggingface.co/") == "https://huggingface.co"
    for bad in ("huggingface.co", "ftp://hub.example", "https://user:secret@hub.example", "https://hub.example:x"):
        monkeypatch.setenv("WORKBENCH_HUB_ENDPOINT", bad)
        with pytest.raises(ImproperlyConfigured, match="WORKBENCH_HUB_ENDPOINT"):
            env_url("WORKBENCH_HUB_ENDPOINT", "https://huggingface.co")


def create_release_of_one_compound(publish: bool):
    compound = Compound.objects.create(
        collection=Collection.named("team"),
        language="en",
        text="gold mine",
        modifier="gold",
        head="mine",
        compositionality_class=vocabulary.PARTLY,
        type_score=2.5,
    )
    text = "The archive was a gold mine for historians."
    start = text.index("gold mine")
    sentence = Sentence.objects.create(compound=compound, slot=1, text=text, span_start=start, span_end=start + 9)
    Variant.objects.create(
        sentence=sentence,
        kind=vocabulary.HEAD_ONLY,
        text=text.replace("gold mine", "mine"),
        span_start=start,
        span_end=start + 4,
        status=vocabulary.APPROVED,
    )
    return create_release("1.0.0", languages=["en"], publish=publish)
