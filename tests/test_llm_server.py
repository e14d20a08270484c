"""The test server's chat completions are the tiny model's own: checked against a forward pass made here.

A machine annotator is tested against tests/llm_server.py as against vLLM: a constrained JSON answer,
its tokens' log-probabilities, seeds, usage, and the failures a real endpoint can give.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import jsonschema
import openai
import pytest
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

from tests.annotator_model import ANSWER_SCHEMA, tiny_chat_llama
from tests.llm_server import LanguageModelServer

SYSTEM = "You are an annotator of noun compounds. Answer with JSON only."
QUESTION = "Rate how literal the head word is, 0 to 5."
MESSAGES = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": QUESTION}]
PROMPT = f"system: {SYSTEM}\nuser: {QUESTION}\nassistant:"  # the server's documented join
RESPONSE_FORMAT = {"type": "json_schema", "json_schema": {"name": "ratings", "schema": ANSWER_SCHEMA, "strict": True}}
DIGITS = "012345"


@pytest.fixture(scope="module")
def chat_llama(tmp_path_factory):
    return tiny_chat_llama(tmp_path_factory.mktemp("chat-llama"))


@pytest.fixture(scope="module")
def reference(chat_llama):
    """The same model loaded here, to recompute what the server says it computed."""
    return AutoModelForCausalLM.from_pretrained(chat_llama).eval(), AutoTokenizer.from_pretrained(chat_llama)


@pytest.fixture
def serve(chat_llama):
    servers = []

    def start(**modes) -> LanguageModelServer:
        servers.append(LanguageModelServer(chat_llama, **modes).start())
        return servers[-1]

    yield start
    for server in servers:
        server.stop()


def client(server, **options) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.base_url, api_key="x", **options)


def ask(server, messages=MESSAGES, **options):
    options = {"temperature": 0, "response_format": RESPONSE_FORMAT, "logprobs": True, "top_logprobs": 6} | options
    return client(server).chat.completions.create(model="tiny", messages=messages, **options)


def next_logprobs(reference, text: str) -> torch.Tensor:
    """The log-softmax over the vocabulary of the token after ``text`` (with its start token)."""
    model, tokenizer = reference
    with torch.no_grad():
        logits = model(input_ids=torch.tensor([tokenizer(text)["input_ids"]])).logits[0, -1]
    return torch.log_softmax(logits.double(), dim=-1)


def positions(answer) -> list[tuple[int, object]]:
    """Each token of the answer's content with the offset where it starts."""
    found, offset = [], 0
    for token in answer.choices[0].logprobs.content:
        found.append((offset, token))
        offset += len(token.token)
    return found


def test_a_constrained_answer_is_schema_valid_json_whose_ratings_are_the_models_likeliest_digits(serve, reference):
    answer = ask(serve())
    content = answer.choices[0].message.content
    ratings = json.loads(content)
    jsonschema.validate(ratings, ANSWER_SCHEMA)
    assert list(ratings) == ["head", "modifier", "compound", "paraphrases"] and 1 <= len(ratings["paraphrases"]) <= 3
    tokens = answer.choices[0].logprobs.content
    assert "".join(t.token for t in tokens) == content and all(bytes(t.bytes) == t.token.encode() for t in tokens)
    _, tokenizer = reference
    digit_ids = {f" {d}": tokenizer.convert_tokens_to_ids(f"▁{d}") for d in DIGITS}
    chosen = []
    for offset, token in positions(answer):
        if token.token not in digit_ids:
            continue
        expected = next_logprobs(reference, PROMPT + content[:offset])
        by_digit = {text: float(expected[i]) for text, i in digit_ids.items()}
        # The model's own log-probabilities over the whole vocabulary, not renormalised over the six digits.
        assert token.logprob == pytest.approx(by_digit[token.token], abs=1e-6)
        assert [t.token for t in token.top_logprobs] == sorted(by_digit, key=lambda d: -by_digit[d])
        assert [t.logprob for t in token.top_logprobs] == pytest.approx(sorted(by_digit.values(), reverse=True))
        assert sum(2.718281828**t.logprob for t in token.top_logprobs) < 0.5
        chosen.append(token.token)
        # At temperature 0 the model's likeliest digit is the rating: a server ignoring the model fails here.
        assert token.token == max(by_digit, key=by_digit.get)
    assert [int(d) for d in chosen] == [ratings["head"], ratings["modifier"], ratings["compound"]]
    # What the server wrote itself was not chosen: no alternatives and a log-probability of 0.
    skeleton = [t for t in tokens if not t.token.strip().isalnum()]
    assert skeleton[0].token == "{" and all(t.logprob == 0.0 and t.top_logprobs == [] for t in skeleton[:4])


def test_a_paraphrase_word_has_the_models_log_probability(serve, reference):
    answer = ask(serve())
    content = answer.choices[0].message.content
    start = content.index('"paraphrases": ["') + len('"paraphrases": ["')
    offset, first_word = next((o, t) for o, t in positions(answer) if o == start)
    assert first_word.token.isalpha()
    _, tokenizer = reference
    expected = next_logprobs(reference, PROMPT + content[:offset])
    assert first_word.logprob == pytest.approx(float(expected[tokenizer.convert_tokens_to_ids("▁" + first_word.token)]))
    assert first_word.top_logprobs[0].logprob == pytest.approx(first_word.logprob)
    assert all(t.token.isalpha() for t in first_word.top_logprobs)


def test_usage_counts_the_prompts_and_the_answers_tokens(serve, reference):
    answer = ask(serve())
    _, tokenizer = reference
    assert answer.usage.prompt_tokens == len(tokenizer(PROMPT)["input_ids"])
    assert answer.usage.completion_tokens == len(answer.choices[0].logprobs.content) > 20
    assert answer.usage.total_tokens == answer.usage.prompt_tokens + answer.usage.completion_tokens


def test_a_seed_makes_sampling_reproducible_and_other_seeds_differ(serve):
    server = serve()
    first, again = (ask(server, temperature=1, seed=7) for _ in range(2))
    assert first.choices[0].message.content == again.choices[0].message.content
    assert first.choices[0].logprobs == again.choices[0].logprobs
    others = {ask(server, temperature=1, seed=seed).choices[0].message.content for seed in range(5)}
    assert len(others) > 1
    for content in others:
        jsonschema.validate(json.loads(content), ANSWER_SCHEMA)


def test_free_generation_is_greedy_at_temperature_zero(serve, reference):
    answer = ask(serve(), response_format=None, max_tokens=4, top_logprobs=3)
    tokens = answer.choices[0].logprobs.content
    assert 1 <= len(tokens) == answer.usage.completion_tokens <= 4
    expected = next_logprobs(reference, PROMPT)
    assert tokens[0].logprob == pytest.approx(float(expected.max()))
    assert [t.logprob for t in tokens[0].top_logprobs] == pytest.approx([float(v) for v in expected.topk(3).values])
    assert answer.choices[0].finish_reason == ("length" if len(tokens) == 4 else "stop")


def test_max_tokens_cuts_a_constrained_answer_as_a_real_server_does(serve):
    answer = ask(serve(), max_tokens=5)
    assert answer.choices[0].finish_reason == "length" and answer.usage.completion_tokens == 5
    with pytest.raises(json.JSONDecodeError):
        json.loads(answer.choices[0].message.content)


def test_a_schema_it_cannot_constrain_is_a_bad_request(serve):
    schema = {"type": "object", "properties": {"head": {"type": "integer", "minimum": 0, "maximum": 100}}}
    with pytest.raises(openai.BadRequestError, match="within 0..9"):
        ask(serve(), response_format={"type": "json_schema", "json_schema": {"name": "x", "schema": schema}})


def test_a_rate_limit_says_when_to_retry_and_the_client_retries(serve):
    server = serve(failures=[429, 429], retry_after=0)
    request = urllib.request.Request(f"{server.base_url}/chat/completions", data=b'{"messages": []}', method="POST")
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request)
    assert refused.value.code == 429 and refused.value.headers["Retry-After"] == "0"
    answer = client(server, max_retries=1).chat.completions.create(model="tiny", messages=MESSAGES, max_tokens=2)
    assert answer.choices[0].message.content and len(server.requests) == 3


def test_scripted_contents_are_answered_verbatim_then_the_model_answers(serve):
    scripted = ['{"head": 9, "modifier": ', "Sure! The head is used literally."]
    server = serve(scripted=scripted)
    answers = [ask(server) for _ in range(3)]
    assert [a.choices[0].message.content for a in answers[:2]] == scripted
    assert answers[0].choices[0].logprobs is None
    jsonschema.validate(json.loads(answers[2].choices[0].message.content), ANSWER_SCHEMA)
    assert [r["body"]["messages"] for r in server.requests] == [MESSAGES] * 3


def test_a_slow_server_times_the_client_out(serve):
    server = serve(delay=1.0)
    with pytest.raises(openai.APITimeoutError):
        client(server, timeout=0.2, max_retries=0).chat.completions.create(model="tiny", messages=MESSAGES)
    assert len(server.requests) == 1
