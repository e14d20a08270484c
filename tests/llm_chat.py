"""Chat completions written by the test server's tiny causal LM, as vLLM and the OpenAI API answer them.

The prompt is the messages as "role: content" lines, then "assistant:" (``chat_prompt``). Each token the
model chooses costs one plain forward pass over the prompt and the tokens so far, read as a float64
log-softmax over the full vocabulary, independently of the workbench's scorers (tests compare the two).
``temperature`` 0 takes the argmax, otherwise a draw from a ``torch.Generator`` seeded with ``seed``.

With ``response_format`` ``json_schema`` the answer is decoded under constraint, as vLLM's guided decoding
does: the server writes the JSON skeleton (braces, keys, quotes, separators) itself and the model chooses
only the slots, among the tokens the schema allows there: an integer is one digit token between the
property's minimum and maximum; a string is up to ``WORDS_PER_STRING`` letter tokens, ended early when the
model prefers the closing quote; an array of strings goes on while the model prefers "," to "]", up to
``maxItems``. Each chosen token reports the model's own log-probability (not renormalised over the allowed
tokens) and, as ``top_logprobs``, the likeliest of the allowed tokens; a token the server wrote itself
reports 0.0 and no alternatives, since nothing was chosen there.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field

DEFAULT_MAX_TOKENS = 16  # free generation only; a constrained answer runs to its end unless max_tokens is given
WORDS_PER_STRING = 6
DEFAULT_MAX_ITEMS = 3
SPACE_MARKERS = ("▁", "Ġ")  # how SentencePiece-style and byte-level vocabularies write a leading space


class UnsupportedRequest(ValueError):
    """A request this server cannot answer: a schema outside what it can constrain, or no messages (a 400)."""


class OutOfTokens(Exception):
    """``max_tokens`` reached: the answer stops there, as a real server's does (finish_reason "length")."""


def chat_prompt(messages: list[dict]) -> str:
    """The messages as "role: content" lines, then "assistant:", which the answer continues."""
    if not messages:
        raise UnsupportedRequest("messages must be a non-empty list")
    lines = []
    for message in messages:
        content = message.get("content") or ""
        if isinstance(content, list):  # the OpenAI API's content parts
            content = "".join(part.get("text", "") for part in content)
        lines.append(f"{message.get('role', 'user')}: {content}")
    return "\n".join([*lines, "assistant:"])


@dataclass
class Token:
    """One token of the answer: its id, the text it adds to the content, and what the model thought of it."""

    id: int
    text: str
    logprob: float = 0.0
    top: list[tuple[str, float]] = field(default_factory=list)

    def as_openai(self) -> dict:
        def entry(text: str, logprob: float) -> dict:
            return {"token": text, "logprob": logprob, "bytes": list(text.encode())}

        return entry(self.text, self.logprob) | {"top_logprobs": [entry(text, lp) for text, lp in self.top]}


class Vocabulary:
    """What a constrained answer needs to know of a tokenizer: its digit, word and punctuation tokens."""

    def __init__(self, tokenizer) -> None:
        self.tokenizer = tokenizer
        self.pieces = tokenizer.convert_ids_to_tokens(list(range(len(tokenizer))))
        self.word_starts = {i: p[1:] for i, p in enumerate(self.pieces) if p[:1] in SPACE_MARKERS and p[1:].isalpha()}
        self.word_parts = {i: p for i, p in enumerate(self.pieces) if p.isalpha()}

    def single(self, text: str) -> int:
        """The one token that ``text`` reads as."""
        ids = self.tokenizer(text, add_special_tokens=False)["input_ids"]
        if len(ids) != 1:
            raise UnsupportedRequest(f"{text!r} is not one token in this vocabulary: {self.pieces_of(ids)}")
        return ids[0]

    def pieces_of(self, ids: list[int]) -> list[str]:
        return [self.pieces[i] for i in ids]

    def written(self, text: str) -> list[tuple[int, str]]:
        """``text``'s tokens, each with the stretch of ``text`` it stands for (the stretches add up to ``text``)."""
        encoded = self.tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
        starts = [0] + [start for start, _ in encoded["offset_mapping"][1:]] + [len(text)]
        for k in range(1, len(starts)):  # a token read from no text (<unk> after its marker) stands for nothing
            starts[k] = max(starts[k], starts[k - 1])
        return [(i, text[starts[k] : starts[k + 1]]) for k, i in enumerate(encoded["input_ids"])]


class Decoder:
    """One answer being written: the prompt's ids, the tokens so far, and how the model chooses the next one."""

    def __init__(self, model, vocabulary: Vocabulary, lock: threading.Lock, prompt: str, body: dict) -> None:
        import torch

        self.model, self.vocabulary, self.lock = model, vocabulary, lock
        self.prompt_ids = vocabulary.tokenizer(prompt)["input_ids"]
        self.tokens: list[Token] = []
        temperature = body.get("temperature")
        self.temperature = 1.0 if temperature is None else float(temperature)  # the OpenAI API's default
        self.top_k = int(body.get("top_logprobs") or 0) if body.get("logprobs") else 0
        limit = body.get("max_completion_tokens") or body.get("max_tokens")
        self.max_tokens = int(limit) if limit else None
        self.generator = torch.Generator()
        if body.get("seed") is None:
            self.generator.seed()
        else:
            self.generator.manual_seed(int(body["seed"]))

    def ids(self) -> list[int]:
        return self.prompt_ids + [token.id for token in self.tokens]

    def append(self, token: Token) -> Token:
        self.tokens.append(token)
        return token

    def check_room(self) -> None:
        if self.max_tokens is not None and len(self.tokens) >= self.max_tokens:
            raise OutOfTokens

    def next_logprobs(self):
        """The model's float64 log-softmax over the full vocabulary for the next token: one forward pass."""
        import torch

        with self.lock, torch.no_grad():
            logits = self.model(input_ids=torch.tensor([self.ids()])).logits[0, -1]
        return torch.log_softmax(logits.double(), dim=-1)

    def pick(self, logprobs, ids: list[int]) -> int:
        """Among ``ids``, the argmax at temperature 0, else a draw from their renormalised, tempered distribution."""
        import torch

        allowed = logprobs[ids]
        if self.temperature == 0:
            return ids[int(torch.argmax(allowed))]
        weights = torch.softmax(allowed / self.temperature, dim=-1)
        return ids[int(torch.multinomial(weights, 1, generator=self.generator))]

    def write(self, text: str) -> None:
        """The skeleton: tokens the server writes itself, logprob 0.0 and no alternatives."""
        for token_id, stretch in self.vocabulary.written(text):
            self.check_room()
            self.append(Token(token_id, stretch))

    def choose(self, options: dict[int, str]) -> Token:
        """The model's choice among ``options`` (token id -> the text it adds), with its real log-probability."""
        self.check_room()
        logprobs = self.next_logprobs()
        ids = list(options)
        chosen = self.pick(logprobs, ids)
        ranked = sorted(ids, key=lambda i: -float(logprobs[i]))[: self.top_k]
        top = [(options[i], float(logprobs[i])) for i in ranked]
        return self.append(Token(chosen, options[chosen], float(logprobs[chosen]), top))

    def generate(self) -> str:
        """Free generation until the end-of-sequence token or ``max_tokens``: the finish reason."""
        tokenizer = self.vocabulary.tokenizer
        limit = self.max_tokens or DEFAULT_MAX_TOKENS
        while len(self.tokens) < limit:
            logprobs = self.next_logprobs()
            chosen = self.pick(logprobs, list(range(len(logprobs))))
            if chosen == tokenizer.eos_token_id:
                return "stop"
            ranked = [int(i) for i in logprobs.argsort(descending=True)[: self.top_k]]
            top = [(self.continuation(i), float(logprobs[i])) for i in ranked]
            self.append(Token(chosen, self.continuation(chosen), float(logprobs[chosen]), top))
        return "length"

    def continuation(self, token_id: int) -> str:
        """The text ``token_id`` would add to the answer so far, as the tokenizer decodes it."""
        ids = [token.id for token in self.tokens]
        before = self.vocabulary.tokenizer.decode(ids, skip_special_tokens=True)
        return self.vocabulary.tokenizer.decode([*ids, token_id], skip_special_tokens=True)[len(before) :]

    def content(self) -> str:
        return "".join(token.text for token in self.tokens)


def write_json(decoder: Decoder, schema: dict) -> None:
    """An object of ``schema``'s properties, in their order: the skeleton written, the values chosen by the model."""
    properties = schema.get("properties") or {}
    if schema.get("type") != "object" or not properties:
        raise UnsupportedRequest("the schema must be an object with properties")
    for n, (name, spec) in enumerate(properties.items()):
        decoder.write(("{" if n == 0 else ", ") + json.dumps(name) + ":")
        kind, items = spec.get("type"), spec.get("items") or {}
        if kind == "integer":
            write_digit(decoder, spec)
        elif kind == "string":
            decoder.write(' "')
            write_words(decoder)
        elif kind == "array" and items.get("type") == "string":
            write_strings(decoder, spec)
        else:
            raise UnsupportedRequest(f"property {name!r}: only integers, strings and arrays of strings are constrained")
    decoder.write("}")


def write_digit(decoder: Decoder, spec: dict) -> None:
    low, high = int(spec.get("minimum", 0)), int(spec.get("maximum", 9))
    if not 0 <= low <= high <= 9:
        raise UnsupportedRequest(f"an integer must lie within 0..9 to be one digit, not {low}..{high}")
    decoder.choose({decoder.vocabulary.single(f" {d}"): f" {d}" for d in range(low, high + 1)})


def write_words(decoder: Decoder) -> None:
    """A string's letters after its opening quote, and its closing quote: at least one word, at most WORDS_PER_STRING tokens."""
    vocabulary = decoder.vocabulary
    decoder.choose(dict(vocabulary.word_starts))  # the first word: its space marker is the quote's
    quote = vocabulary.single('"')
    rest = {i: " " + word for i, word in vocabulary.word_starts.items()} | vocabulary.word_parts | {quote: '"'}
    for _ in range(WORDS_PER_STRING - 1):
        if decoder.choose(rest).id == quote:
            return
    decoder.write('"')


def write_strings(decoder: Decoder, spec: dict) -> None:
    """An array of strings, from minItems (at least 1) to maxItems: after each, the model chooses "," or "]"."""
    least = max(1, int(spec.get("minItems", 1)))
    most = max(least, int(spec.get("maxItems", DEFAULT_MAX_ITEMS)))
    more, end = decoder.vocabulary.single(","), decoder.vocabulary.single("]")
    decoder.write(' ["')
    for n in range(1, most + 1):
        write_words(decoder)
        if n < least:
            decoder.write(', "')
        elif n < most and decoder.choose({more: ",", end: "]"}).id == more:
            decoder.write(' "')
        else:
            if n == most:
                decoder.write("]")
            return


def answer(model, vocabulary: Vocabulary, lock: threading.Lock, body: dict) -> dict:
    """The model's chat answer to ``body``: ``content``, ``finish_reason``, ``logprobs`` (or None) and ``usage``."""
    decoder = Decoder(model, vocabulary, lock, chat_prompt(body.get("messages") or []), body)
    response_format = body.get("response_format") or {}
    if response_format.get("type") == "json_schema":
        try:
            write_json(decoder, (response_format.get("json_schema") or {}).get("schema") or {})
            finish = "stop"
        except OutOfTokens:
            finish = "length"
    else:
        finish = decoder.generate()
    logprobs = {"content": [token.as_openai() for token in decoder.tokens]} if body.get("logprobs") else None
    return {
        "content": decoder.content(),
        "finish_reason": finish,
        "logprobs": logprobs,
        "usage": usage(len(decoder.prompt_ids), len(decoder.tokens)),
    }


def usage(prompt_tokens: int, completion_tokens: int) -> dict:
    return {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
    }
