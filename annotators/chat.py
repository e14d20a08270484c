"""Answers from an OpenAI-compatible chat server (pure: no Django).

``ChatAnnotator`` sends an item's messages to ``/v1/chat/completions`` under the rules of every model
endpoint (``probing.embedding.network.Endpoint``: the administrator's hosts and key variables,
no redirects, no proxy variables, retries with backoff on 429, 5xx and dropped connections), with
the answer's JSON schema as ``response_format`` when ``structured`` and the digits'
log-probabilities when ``logprobs``. Options: model, base_url, api_key_env, max_retries,
backoff_seconds, timeout, requests_per_minute, tokens_per_minute (``limits.RateLimiter``, counted in
``counter``: every worker's, when the caller gives a shared one).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from annotators.answers import REDDY, AnswerFormat, digit_positions
from annotators.limits import Counter, RateLimiter
from probing.embedding.network import ApiRules, Endpoint

KIND = "openai_chat"
TOP_LOGPROBS = 6  # the six digits


@dataclass
class Reply:
    """One response: its text, each score's digit log-probabilities (when given) and the token counts."""

    text: str
    digits: dict[str, dict[str, float]] = field(default_factory=dict)
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def as_dict(self) -> dict:
        return {"text": self.text, "digits": self.digits, "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens}  # fmt: skip

    @classmethod
    def from_dict(cls, data: dict) -> Reply:
        return cls(str(data.get("text", "")), dict(data.get("digits") or {}), int(data.get("prompt_tokens", 0)), int(data.get("completion_tokens", 0)))  # fmt: skip


def estimated_tokens(messages: Sequence[dict], max_tokens: int) -> int:
    """What a request may cost before it is sent (about four characters a token, plus the answer's maximum)."""
    return sum(len(str(m.get("content", ""))) for m in messages) // 4 + max_tokens


class ChatAnnotator(Endpoint):
    kind = KIND

    def __init__(
        self,
        source: str,
        options: dict,
        rules: ApiRules | None = None,
        sleep: Callable[[float], None] = time.sleep,
        counter: Counter | None = None,
    ) -> None:
        if not options.get("base_url"):
            raise ValueError("an openai_chat model needs options['base_url'], the server's /v1 address")
        super().__init__(str(options["base_url"]), options, rules, sleep)
        self.model = options.get("model") or source
        rpm, tpm = options.get("requests_per_minute"), options.get("tokens_per_minute")
        self.limiter = RateLimiter(rpm, tpm, counter=counter)

    def identity(self) -> dict:
        return {"kind": self.kind, "name": self.model, "base_url": self.base_url, "revision": self.model}

    def ask(self, messages: Sequence[dict], settings: dict, seed: int, answer_format: AnswerFormat = REDDY) -> Reply:
        """The server's answer to ``messages`` with the job's ``settings`` and this sample's ``seed``; under
        ``answer_format``'s schema when ``structured``."""
        request: dict = {
            "model": self.model,
            "messages": list(messages),
            "temperature": float(settings["temperature"]),
            "seed": seed,
            "max_tokens": int(settings["max_tokens"]),
        }
        if settings.get("structured"):
            request["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": answer_format.name, "schema": answer_format.schema, "strict": True},
            }
        if settings.get("logprobs"):
            request |= {"logprobs": True, "top_logprobs": TOP_LOGPROBS}
        self.limiter.acquire(estimated_tokens(messages, int(settings["max_tokens"])))
        response = self.call(lambda client: client.chat.completions.create(**request), "chat")
        choice = response.choices[0] if response.choices else None
        text = (getattr(getattr(choice, "message", None), "content", None) or "") if choice else ""
        content = getattr(getattr(choice, "logprobs", None), "content", None) or []
        tokens = [
            {
                "token": getattr(t, "token", ""),
                "logprob": getattr(t, "logprob", 0.0),
                "top_logprobs": [
                    {"token": a.token, "logprob": a.logprob} for a in (getattr(t, "top_logprobs", None) or [])
                ],
            }
            for t in content
        ]
        usage = getattr(response, "usage", None)
        return Reply(
            text=text,
            digits={key: dict(values) for key, values in digit_positions(tokens).items()},
            prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
            completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
        )
