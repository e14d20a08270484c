"""A model asked for compounds' synonyms: under the endpoint rules, through the response cache, never approved."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from annotators.actions import AnnotatorError
from annotators.asking import RETRY_MESSAGE
from annotators.proposing import propose_synonyms
from annotators.synonym_prompts import PROPOSAL_SCHEMA, parse_proposals
from building.models import ProposedSynonym, SynonymRequest
from building.variants.proposals import proposals_for
from tests.datasets.factories import make_compound, make_sentence

pytestmark = pytest.mark.django_db


@pytest.fixture
def beaver():
    compound = make_compound("eager beaver")
    make_sentence(compound, "Carol is such an eager beaver that she starts at six.")
    return compound


def scripted(words: dict) -> str:
    return json.dumps({"nc": [], "head": [], "modifier": []} | words)


def test_a_chat_endpoint_proposes_synonyms_under_the_schema_and_none_is_approved(beaver, chat_server, chat_model):
    server = chat_server()
    run = propose_synonyms(chat_model(server), [beaver])
    assert run.asked == run.valid == run.sent == len(server.requests) == 1
    body = server.requests[0]["body"]
    assert body["response_format"]["json_schema"] == {"name": "synonym_proposals", "schema": PROPOSAL_SCHEMA, "strict": True}  # fmt: skip
    assert "[[eager beaver]]" in body["messages"][1]["content"] and "logprobs" not in body
    request = SynonymRequest.objects.get()
    assert request.valid and request.template_name == "synonyms-en" and request.template_version == 1
    assert request.model_identity == {"kind": "openai_chat", "name": "tiny-chat", "base_url": server.base_url, "revision": "tiny-chat"}  # fmt: skip
    written = parse_proposals(request.raw_text).words  # what the tiny model wrote, kept unless filtered
    found = proposals_for(beaver.pk)
    assert run.proposals == sum(map(len, found.values())) > 0
    assert all(set(found[side]) <= set(written[side]) for side in found)
    assert set(ProposedSynonym.objects.values_list("status", "source")) == {("proposed", "model")}


def test_asked_again_the_cache_answers_and_no_request_is_sent(beaver, chat_server, chat_model):
    server = chat_server(scripted=[scripted({"nc": ["enthusiast"], "modifier": ["keen"]})])
    model = chat_model(server)
    propose_synonyms(model, [beaver])
    again = propose_synonyms(model, [beaver])
    assert len(server.requests) == 1 and again.sent == 0 and again.cached == 1
    assert proposals_for(beaver.pk) == {"nc": ["enthusiast"], "head": [], "modifier": ["keen"]}
    assert SynonymRequest.objects.count() == 1


def test_a_malformed_answer_is_asked_again_then_recorded_invalid(beaver, chat_server, chat_model):
    server = chat_server(scripted=["Enthusiast, I would say.", '{"nc": "enthusiast", "head": [], "modifier": []}'])
    run = propose_synonyms(chat_model(server), [beaver], settings={"max_attempts": 2})
    assert run.invalid == 1 and len(server.requests) == 2
    retry = server.requests[1]["body"]["messages"]
    assert retry[-2] == {"role": "assistant", "content": "Enthusiast, I would say."}
    assert retry[-1]["content"] == RETRY_MESSAGE.format(error="no JSON object in the answer")
    request = SynonymRequest.objects.get()
    assert not request.valid and request.attempts == 2 and request.error == "nc: not a list of texts"
    assert request.raw_text.startswith('{"nc": "enthusiast"') and not ProposedSynonym.objects.exists()


def test_offensive_words_a_model_proposes_are_never_candidates(beaver, chat_server, chat_model):
    server = chat_server(scripted=[scripted({"nc": ["bastard", "enthusiast"], "head": ["shit"]})])
    run = propose_synonyms(chat_model(server), [beaver])
    assert proposals_for(beaver.pk) == {"nc": ["enthusiast"], "head": [], "modifier": []}
    assert run.filtered == 2 and {f["reason"] for f in SynonymRequest.objects.get().filtered} == {"offensive"}


def test_the_servers_429_is_waited_out(beaver, chat_server, chat_model):
    server = chat_server(failures=[429], scripted=[scripted({"nc": ["enthusiast"]})])
    run = propose_synonyms(chat_model(server), [beaver])
    assert run.valid == 1 and len(server.requests) == 2


def test_a_host_the_administrator_did_not_list_is_never_asked(beaver, chat_server, chat_model, settings):
    server = chat_server()
    model = chat_model(server)
    settings.WORKBENCH_MODEL_API_HOSTS = ["models.example.org"]
    with pytest.raises(AnnotatorError, match="127.0.0.1"):
        propose_synonyms(model, [beaver])
    assert not server.requests and not SynonymRequest.objects.exists()


def test_a_local_causal_lm_proposes_under_the_schema(beaver, local_llama):
    run = propose_synonyms(local_llama, [beaver], settings={"max_attempts": 1})
    request = SynonymRequest.objects.get()
    assert run.sent == 1 and request.valid, request.error
    assert set(json.loads(request.raw_text)) == {"nc", "head", "modifier"}
    assert request.model_identity and not ProposedSynonym.objects.exclude(status="proposed").exists()


def test_the_command_asks_inline_and_says_what_it_kept(beaver, chat_server, chat_model):
    server = chat_server(scripted=[scripted({"head": ["rodent"]})])
    chat_model(server)
    out = StringIO()
    call_command(
        "propose_synonyms", "--model", "served-chat", "--collection", "default", "--language", "en",
        "--compounds", "Eager Beaver", "--inline", stdout=out,
    )  # fmt: skip
    assert "1 compounds asked (1 valid, 0 invalid)" in out.getvalue() and "1 proposals kept" in out.getvalue()
    assert proposals_for(beaver.pk)["head"] == ["rodent"]


def test_without_inline_the_command_sends_the_compounds_to_the_models_queue(
    beaver, chat_server, chat_model, monkeypatch, django_capture_on_commit_callbacks
):
    from annotators import tasks

    server = chat_server(scripted=[scripted({"modifier": ["keen"]})])
    model = chat_model(server)
    sent = []
    monkeypatch.setattr(tasks.propose_synonyms_task, "apply_async", lambda args, queue: sent.append((args, queue)))
    with django_capture_on_commit_callbacks(execute=True):
        call_command("propose_synonyms", "--model", "served-chat", "--collection", "default", "--language", "en", stderr=StringIO())  # fmt: skip
    assert sent == [((model.pk, [beaver.pk], None, {}, None), model.celery_queue)] and not server.requests
    assert tasks.propose_synonyms_task(*sent[0][0])["valid"] == 1  # what the worker runs
    assert proposals_for(beaver.pk)["modifier"] == ["keen"]


def test_the_curator_page_asks_a_model_and_shows_what_it_proposed(client, beaver, chat_server, chat_model, monkeypatch):
    from django.urls import reverse

    from annotators import tasks
    from tests.annotation.test_curator import make_user

    server = chat_server(scripted=[scripted({"nc": ["enthusiast"], "modifier": ["keen"]})])
    model = chat_model(server)
    url = reverse("annotators:proposals")
    assert client.get(url).status_code == 302  # to the login page
    client.force_login(make_user("curator"))
    refused = client.post(url, {"model": model.name, "collection": beaver.collection.slug, "language": "en",
                                "compounds": "grey matter"})  # fmt: skip
    assert refused.status_code == 400 and "grey matter" in refused.context["form"].errors["compounds"][0]
    # The task runs here, as a worker of the model's queue would run it once the request commits.
    monkeypatch.setattr("django.db.transaction.on_commit", lambda callback, *args, **kwargs: callback())
    monkeypatch.setattr(
        tasks.propose_synonyms_task, "apply_async", lambda args, queue: tasks.propose_synonyms_task(*args)
    )
    sent = client.post(url, {"model": model.name, "collection": beaver.collection.slug, "language": "en"})
    assert sent.status_code == 302 and len(server.requests) == 1
    page = client.get(url).content.decode()
    assert "modifier: keen" in page and "compound: enthusiast" in page.lower().replace("the whole ", "")
    assert set(ProposedSynonym.objects.values_list("status", flat=True)) == {"proposed"}
