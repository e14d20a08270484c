"""One item asked of one machine annotator: the cache, the bounded re-asks, the parsed outcome (pure: no Django).

``ask_item`` looks each request up in the response cache first (``cache_get`` / ``cache_put``, keyed
by ``request_key``: the model's identity and the exact request), so a request already answered is
never sent again. An answer that does not parse is asked again with the reason (a follow-up
message, as the structured-output libraries do) up to ``max_attempts`` in all; the last raw text
and the reason are kept when it never parses. Where the digits' log-probabilities came back, each
score's distribution is kept (``answers.distribution``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from annotators.answers import REDDY, AnswerFormat, Parsed
from annotators.answers import distribution as digit_distribution
from annotators.chat import Reply

RETRY_MESSAGE = "Your answer could not be read ({error}). Answer again with the JSON object only."


def request_key(
    identity: dict, messages: Sequence[dict], settings: dict, seed: int, answer_format: AnswerFormat = REDDY
) -> str:
    """sha256 of what makes a response: the model's identity, the messages, the settings that shape the answer
    and (other than the crowd's questions') the answer's format."""
    shaping = {k: settings[k] for k in ("temperature", "max_tokens", "structured", "logprobs")}
    payload = {"identity": identity, "messages": list(messages), "seed": seed, **shaping}
    if answer_format is not REDDY:  # the crowd's questions' keys stay what they were
        payload["format"] = [answer_format.name, answer_format.schema]
    return hashlib.sha256(json.dumps(payload, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


@dataclass
class Outcome:
    """What is recorded for an item: scores and paraphrases (valid), or the raw text and the reason (invalid)."""

    valid: bool
    scores: dict[str, int] = field(default_factory=dict)
    paraphrases: list[str] = field(default_factory=list)
    distributions: dict[str, dict] = field(default_factory=dict)
    raw_text: str = ""
    error: str = ""
    attempts: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached: int = 0  # attempts answered from the cache
    sent: int = 0  # attempts sent to the model
    key: str = ""  # the response cache's key of the last answer
    answer: object = None  # what ``answer_format.parse`` made of a valid answer


def ask_item(
    annotator,
    messages: Sequence[dict],
    settings: dict,
    seed: int,
    cache_get: Callable[[str], dict | None],
    cache_put: Callable[[str, dict], None],
    answer_format: AnswerFormat = REDDY,
) -> Outcome:
    """Ask ``annotator`` (``ChatAnnotator`` or ``LocalAnnotator``) until the answer parses or the attempts run out."""
    identity = annotator.identity()
    conversation = list(messages)
    outcome = Outcome(valid=False)
    for attempt in range(1, int(settings["max_attempts"]) + 1):
        key = request_key(identity, conversation, settings, seed, answer_format)
        stored = cache_get(key)
        if stored is not None:
            reply, outcome.cached = Reply.from_dict(stored), outcome.cached + 1
        else:
            asked = (conversation, settings, seed) if answer_format is REDDY else (conversation, settings, seed, answer_format)  # fmt: skip
            reply = annotator.ask(*asked)
            cache_put(key, reply.as_dict())
            outcome.sent += 1
            outcome.prompt_tokens += reply.prompt_tokens
            outcome.completion_tokens += reply.completion_tokens
        outcome.attempts, outcome.raw_text, outcome.key = attempt, reply.text, key
        parsed = answer_format.parse(reply.text)
        if parsed.valid:
            outcome.valid, outcome.error, outcome.answer = True, "", parsed
            if not isinstance(parsed, Parsed):
                return outcome
            outcome.scores, outcome.paraphrases = parsed.scores, parsed.paraphrases
            outcome.distributions = {
                key_: found for key_, logprobs in reply.digits.items() if (found := digit_distribution(logprobs))
            }
            return outcome
        outcome.error = parsed.error
        conversation = [
            *messages,
            {"role": "assistant", "content": reply.text},
            {"role": "user", "content": RETRY_MESSAGE.format(error=parsed.error)},
        ]
    return outcome
