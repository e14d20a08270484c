"""A model's answer to the crowd's questions: the constrained format, parsing, digit distributions (pure: no Django).

The format is one JSON object, ``ANSWER_SCHEMA`` (sent as a JSON schema where the server supports
structured output). ``parse`` accepts exactly that, optionally inside a Markdown code fence or
after a short preamble (the first ``{`` to its matching ``}``), and says why it refuses anything
else: a missing question, a score outside 0-5, a number that is not a whole number, more than three
paraphrases. It never coerces: "4.5", "four" or 7 are invalid answers, not a 4, a 4 or a 5.

Where the backend gives the log-probabilities of the digits at a score's position, ``distribution``
turns them into the probabilities of 0-5 (renormalised over the six digits: the model's belief among
the allowed answers), with the expected value, the mode and the entropy in bits.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from annotation.protocol import MAX_PARAPHRASE_LENGTH, MAX_PARAPHRASES

KEYS = ("head", "modifier", "compound")
DIGITS = tuple(str(d) for d in range(6))
ANSWER_SCHEMA = {
    "type": "object",
    "properties": {
        **{key: {"type": "integer", "minimum": 0, "maximum": 5} for key in KEYS},
        "paraphrases": {"type": "array", "items": {"type": "string"}, "maxItems": MAX_PARAPHRASES},
    },
    "required": [*KEYS, "paraphrases"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class Parsed:
    """Scores by key ("head", "modifier", "compound") and paraphrases, or the reason the answer is invalid."""

    scores: dict[str, int] = field(default_factory=dict)
    paraphrases: list[str] = field(default_factory=list)
    error: str = ""

    @property
    def valid(self) -> bool:
        return not self.error


def json_object(text: str) -> str | None:
    """The first balanced ``{...}`` of the text (strings and escapes respected), or None."""
    start = text.find("{")
    if start < 0:
        return None
    depth, in_string, escaped = 0, False, False
    for index in range(start, len(text)):
        char = text[index]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return text[start : index + 1]
    return None


def parse(text: str) -> Parsed:
    """The answer in ``text``, or why it is not one (``Parsed.error``); see the module's docstring."""
    found = json_object(text or "")
    if found is None:
        return Parsed(error="no JSON object in the answer")
    try:
        data = json.loads(found)
    except json.JSONDecodeError as error:
        return Parsed(error=f"not valid JSON: {error.msg} at character {error.pos}")
    if not isinstance(data, dict):
        return Parsed(error="the answer is not a JSON object")
    scores: dict[str, int] = {}
    for key in KEYS:
        if key not in data:
            return Parsed(error=f"no {key} score")
        value = data[key]
        if isinstance(value, bool) or not isinstance(value, int):
            return Parsed(error=f"{key}: {value!r} is not a whole number from 0 to 5")
        if not 0 <= value <= 5:
            return Parsed(error=f"{key}: {value} is outside the scale 0-5")
        scores[key] = value
    raw = data.get("paraphrases", [])
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list) or not all(isinstance(p, str) for p in raw):
        return Parsed(error="paraphrases: not a list of texts")
    given: list[str] = []
    for text_ in (" ".join(p.split())[:MAX_PARAPHRASE_LENGTH] for p in raw):
        if text_ and text_.casefold() not in {g.casefold() for g in given}:
            given.append(text_)
    if len(given) > MAX_PARAPHRASES:
        return Parsed(error=f"paraphrases: {len(given)} given, at most {MAX_PARAPHRASES}")
    return Parsed(scores=scores, paraphrases=given)


@dataclass(frozen=True)
class AnswerFormat:
    """What an answer must be: the JSON schema sent as ``response_format`` (under ``name``) and the strict parser
    whose result has ``valid`` and ``error``. ``REDDY`` is the crowd's questions'; others ask other things."""

    name: str
    schema: dict
    parse: Callable[[str], object]


REDDY = AnswerFormat("reddy_answer", ANSWER_SCHEMA, parse)


def distribution(logprobs: Mapping[str, float]) -> dict | None:
    """Probabilities of 0-5 from the log-probabilities of the digit tokens (missing digits: probability 0).

    None when no digit is among them. Renormalised over the digits found; ``expected`` is the
    mean of the scale under it, ``mode`` the most probable digit, ``entropy`` in bits (0 when certain,
    log2 6 ≈ 2.585 when uniform).
    """
    values = {
        d: logprobs[d] for d in DIGITS if d in logprobs and logprobs[d] is not None and math.isfinite(logprobs[d])
    }
    if not values:
        return None
    top = max(values.values())
    weights = [math.exp(values[d] - top) if d in values else 0.0 for d in DIGITS]
    total = sum(weights)
    probs = [w / total for w in weights]
    entropy = -sum(p * math.log2(p) for p in probs if p > 0)
    return {
        "probs": [round(p, 6) for p in probs],
        "expected": round(sum(i * p for i, p in enumerate(probs)), 6),
        "mode": max(range(6), key=lambda i: (probs[i], -i)),
        "entropy": round(entropy, 6),
    }


def digit_positions(tokens: list[dict]) -> dict[str, Mapping[str, float]]:
    """From an OpenAI ``logprobs.content`` list of the answer: each score's digit alternatives, by key.

    The answer's text is rebuilt token by token; a score's digit is the first token that starts with
    a digit after ``"key":``. Its ``top_logprobs`` (the token itself included) give the alternatives,
    stripped of spaces (some vocabularies write " 4").
    """
    found: dict[str, Mapping[str, float]] = {}
    text = ""
    for token in tokens:
        piece = str(token.get("token", ""))
        stripped = piece.strip()
        if stripped[:1].isdigit():
            key = next((k for k in KEYS if k not in found and _ends_with_key(text, k)), None)
            if key is not None:
                options: dict[str, float] = {}
                for alternative in token.get("top_logprobs") or []:
                    name = str(alternative.get("token", "")).strip()
                    if name in DIGITS and name not in options:
                        options[name] = float(alternative["logprob"])
                if stripped in DIGITS and stripped not in options:
                    options[stripped] = float(token.get("logprob", 0.0))
                found[key] = options
        text += piece
    return found


def _ends_with_key(text: str, key: str) -> bool:
    """Whether the answer so far ends with ``"key":`` (spaces allowed), i.e. the next token is its value."""
    before = text.rstrip()
    return before.endswith(":") and before[:-1].rstrip().endswith(f'"{key}"')
