"""Log-probabilities from an OpenAI-compatible completions server (vLLM, llama.cpp): the prompt echoed with them.

``POST /v1/completions`` with ``echo: true``, ``logprobs: 0`` and ``max_tokens: 0`` returns each
prompt's tokens, their character offsets (``text_offset``) and their log-probabilities
(``token_logprobs``, the first one null: nothing comes before it), as vLLM and llama.cpp's server
serve them. A server that generates a token anyway has it cut off (its offset is past the prompt);
the start token echoed at offset 0 without a log-probability is context, not text, and left out,
as the local scorer leaves special tokens out. A token ends where the next one starts. The host, key and redirect rules are those of the
embeddings client (``probing.embedding.network``): the same ``ApiRules``, the same checked
connection, the same retries after a rate limit or a server error.

A chat-only endpoint cannot give prompt log-probabilities: a server that answers /v1/completions
with 404 or 405, or says the model needs the chat API, is refused with ``ChatOnlyEndpoint``. An
answer without the log-probabilities is an error naming what is missing, never zeros.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from probing.embedding.network import ApiRules, Endpoint
from probing.likelihood.scores import TextScore

KIND = "openai_completions"
MAX_PROMPTS_PER_REQUEST = 32
CHAT_HINTS = ("chat", "messages")


class ChatOnlyEndpoint(ValueError):
    """The server offers chat completions only: no prompt log-probabilities, so no likelihood probes."""


class MalformedAnswer(ValueError):
    """The server answered without what a likelihood probe needs (the echoed tokens and their log-probabilities)."""


class CompletionsScorer(Endpoint):
    """Prompt log-probabilities over HTTP. Options: model, base_url (required), and those of every
    ``Endpoint`` (api_key_env, max_retries, backoff_seconds, timeout)."""

    kind = KIND

    def __init__(
        self, source: str, options: dict, rules: ApiRules | None = None, sleep: Callable[[float], None] = time.sleep
    ) -> None:
        if not options.get("base_url"):
            raise ValueError("an openai_completions model needs options['base_url'], the server's /v1 address")
        super().__init__(str(options["base_url"]), options, rules, sleep)
        self.model = options.get("model") or source

    supports_span = True

    def identity(self) -> dict:
        return {"kind": self.kind, "name": self.model, "base_url": self.base_url, "revision": self.model}

    def score(
        self, texts: Sequence[str], batch_size: int | None = None, start_token: bool = False, **served
    ) -> list[TextScore]:
        """``start_token`` is the server's to give (vLLM adds the model's own): not asked for here. ``served``
        (dtype, device, share_prefixes) are the server's too: it computes as it is served, and caches
        prefixes itself where it can (vLLM); a run's settings refuse dtype and device for this kind."""
        size = min(batch_size or MAX_PROMPTS_PER_REQUEST, MAX_PROMPTS_PER_REQUEST)
        found: list[TextScore] = []
        for start in range(0, len(texts), size):
            found += self._request(list(texts[start : start + size]))
        return found

    def _request(self, prompts: list[str]) -> list[TextScore]:
        import openai

        def request(client):
            return client.completions.create(
                model=self.model, prompt=prompts, echo=True, logprobs=0, max_tokens=0, temperature=0.0
            )

        try:
            response = self.call(request, "completions")
        except openai.APIStatusError as error:
            message = str(getattr(error, "message", "") or error)
            if error.status_code in (404, 405) or any(hint in message.lower() for hint in CHAT_HINTS):
                raise ChatOnlyEndpoint(
                    f"{self.base_url} does not serve /v1/completions for {self.model} ({error.status_code}: "
                    f"{message[:200]}): likelihood probes need the prompt's log-probabilities (echo and logprobs), "
                    "which chat-only endpoints do not give"
                ) from None
            raise
        choices = sorted(response.choices, key=lambda choice: choice.index)
        if len(choices) != len(prompts):
            raise MalformedAnswer(f"asked to score {len(prompts)} prompts, the server answered {len(choices)}")
        return [echoed(prompt, choice) for prompt, choice in zip(prompts, choices, strict=True)]


def echoed(prompt: str, choice) -> TextScore:
    """A prompt's score from its echoed tokens: offsets from ``text_offset``, each token ending where the next starts."""
    logprobs = getattr(choice, "logprobs", None)
    tokens = getattr(logprobs, "tokens", None)
    offsets = getattr(logprobs, "text_offset", None)
    values = getattr(logprobs, "token_logprobs", None)
    if not tokens or offsets is None or values is None:
        raise MalformedAnswer(
            "the server's answer has no logprobs.tokens, text_offset and token_logprobs: ask a server that "
            "echoes the prompt with its log-probabilities (vLLM, llama.cpp)"
        )
    if not len(tokens) == len(offsets) == len(values):
        raise MalformedAnswer("the server's tokens, offsets and log-probabilities differ in number")
    names, spans, found = [], [], []
    for i, (token, start, value) in enumerate(zip(tokens, offsets, values, strict=True)):
        if start >= len(prompt):
            break  # generated after the prompt
        end = min(offsets[i + 1], len(prompt)) if i + 1 < len(offsets) else len(prompt)
        if i == 0 and value is None and end <= start:
            continue  # the start token echoed at the first offset, with no log-probability: context, not text
        # A token that adds no character of its own (the space a Metaspace tokenizer puts before the first
        # word) covers the character it stands before, as the tokenizer's own offsets say.
        end = min(max(end, start + 1), len(prompt))
        names.append(token)
        spans.append((int(start), int(end)))
        found.append(None if value is None else float(value))
    return TextScore(prompt, names, spans, found)
