"""Log-probabilities from an OpenAI-compatible completions server: a local one wrapping the tiny LLaMA.

The server computes them its own way (one forward pass per prompt, tests/llm_server.py); the
client must give what the local scorer gives for the same model, and obey the rules every
model endpoint obeys (hosts, key variables, retries, no chat-only endpoints).
"""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command
from transformers import AutoModelForCausalLM, AutoTokenizer

from probing.actions import ProbeError, register_model
from probing.likelihood.completions import ChatOnlyEndpoint, CompletionsScorer, MalformedAnswer
from probing.likelihood.scoring import causal_scores
from tests.llm_server import LanguageModelServer
from tests.probing.likelihood.conftest import CORPUS

KEY_ENV = "TEST_COMPLETIONS_KEY"


@pytest.fixture
def serve(tiny_llama, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-local")
    servers = []

    def start(**modes) -> LanguageModelServer:
        servers.append(LanguageModelServer(tiny_llama, **modes).start())
        return servers[-1]

    yield start
    for server in servers:
        server.stop()


def scorer(server, **options) -> CompletionsScorer:
    found = CompletionsScorer("tiny-llama", {"base_url": server.base_url, "api_key_env": KEY_ENV, **options})
    found.waits = []
    found.sleep = found.waits.append
    return found


def test_the_servers_log_probabilities_are_the_local_scorers(serve, tiny_llama):
    server = serve()
    remote = scorer(server).score(CORPUS, batch_size=3)
    local = causal_scores(
        AutoModelForCausalLM.from_pretrained(tiny_llama).eval(), AutoTokenizer.from_pretrained(tiny_llama), CORPUS
    )
    for text, theirs, ours in zip(CORPUS, remote, local, strict=True):
        # The echoed <s> left out, as a special token; each token ends where the next starts, as the tokenizer says.
        assert list(theirs.offsets) == list(ours.offsets), text
        assert list(theirs.names) == list(ours.names)
        assert theirs.logprobs == pytest.approx(ours.logprobs, abs=1e-4)
        assert theirs.total == pytest.approx(ours.total, abs=1e-4)
    # Three requests of at most three prompts, each asking for the echoed prompt and nothing generated.
    bodies = [r["body"] for r in server.requests]
    assert [len(b["prompt"]) for b in bodies] == [3, 3, 2]
    assert all(b["echo"] is True and b["max_tokens"] == 0 and b["logprobs"] == 0 for b in bodies)
    assert server.requests[0]["auth"] == "Bearer sk-local"


def test_rate_limits_and_server_errors_are_retried_with_backoff(serve):
    server = serve(failures=[429, 503])
    client = scorer(server, backoff_seconds=0.5)
    [score] = client.score(CORPUS[:1])
    assert score.total < 0 and client.requests == 3 and client.waits == [0.5, 1.0]
    hopeless = scorer(serve(failures=[429] * 5), max_retries=2)
    with pytest.raises(Exception, match="slow down"):
        hopeless.score(CORPUS[:1])
    assert hopeless.requests == 3


def test_an_answer_without_log_probabilities_is_an_error_not_zeros(serve):
    with pytest.raises(MalformedAnswer, match="no logprobs.tokens"):
        scorer(serve(malformed=True)).score(CORPUS[:1])


def test_a_chat_only_endpoint_is_refused_saying_why(serve):
    with pytest.raises(ChatOnlyEndpoint, match="chat-only endpoints do not give"):
        scorer(serve(chat_only=True)).score(CORPUS[:1])


@pytest.mark.django_db
def test_registration_obeys_the_hosts_and_key_variables_the_administrator_lists(serve, settings):
    server = serve()
    options = {"base_url": server.base_url, "api_key_env": KEY_ENV}
    settings.WORKBENCH_MODEL_API_HOSTS, settings.WORKBENCH_MODEL_API_KEY_ENVS = [], [KEY_ENV]
    with pytest.raises(ProbeError, match="127.0.0.1"):
        register_model("local-llm", "openai_completions", "tiny-llama", options=options)
    settings.WORKBENCH_MODEL_API_HOSTS, settings.WORKBENCH_MODEL_API_KEY_ENVS = ["127.0.0.1"], []
    with pytest.raises(ProbeError, match=KEY_ENV):
        register_model("local-llm", "openai_completions", "tiny-llama", options=options)
    with pytest.raises(ProbeError, match="base_url: the /v1 address"):
        register_model("no-url", "openai_completions", "tiny-llama", options={"api_key_env": KEY_ENV})
    assert server.requests == []  # nothing was sent while registering


@pytest.mark.django_db
def test_score_text_reaches_the_server_once_allowed(serve, settings):
    server = serve()
    settings.WORKBENCH_MODEL_API_HOSTS, settings.WORKBENCH_MODEL_API_KEY_ENVS = ["127.0.0.1"], [KEY_ENV]
    register_model(
        "local-llm", "openai_completions", "tiny-llama", options={"base_url": server.base_url, "api_key_env": KEY_ENV}
    )
    out = StringIO()
    call_command("score_text", "--model", "local-llm", "--text", CORPUS[0], "--span", "15:24", stdout=out)
    shown = json.loads(out.getvalue())
    assert shown["identity"] == {
        "kind": "openai_completions",
        "name": "tiny-llama",
        "base_url": server.base_url,
        "revision": "tiny-llama",
    }
    assert shown["span_logprob"] < 0 and len(server.requests) == 1
