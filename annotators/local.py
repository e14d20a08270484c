"""Answers from a local causal language model, decoded under the answer's format (pure: no Django).

A ``causal_lm`` folder (opened by ``probing.likelihood.loading`` under the model folders' rules) is
asked the same messages as a chat server, joined into one prompt (``prompts.as_prompt``; small and
base models have no chat template). It cannot be trusted to write JSON, so the answer is decoded
under the schema, as a server with structured output does: the skeleton is written for it and the
model chooses only what the schema leaves open. Each score is one of the digit tokens 0-5, chosen
from the model's next-token distribution restricted to them (the most likely at temperature 0,
else drawn with the sample's seed), and the log-probabilities of all six are kept (the answer's
distribution); one paraphrase is up to ``PARAPHRASE_TOKENS`` tokens the model generates until it
closes the string. Every step reuses the key-value cache of the steps before it.

``LocalProposer`` asks the same way for a compound's synonyms (``synonym_prompts.PROPOSAL_SCHEMA``): for
each side a list whose strings the model writes as it writes a paraphrase, and after each one the
model's choice between "," (another) and "]" (no more), up to ``MAX_PER_SIDE``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from annotators.answers import DIGITS, KEYS, AnswerFormat
from annotators.chat import Reply
from annotators.prompts import as_prompt
from annotators.synonym_prompts import MAX_PER_SIDE, PROPOSALS, SIDES

PARAPHRASE_TOKENS = 8
STOP_CHARACTERS = ('"', "\\", "\n", "]", "}")


def digit_token_ids(tokenizer) -> dict[str, int]:
    """The one token of each digit 0-5 (ValueError naming a digit the vocabulary has no single token for)."""
    found: dict[str, int] = {}
    for digit in DIGITS:
        ids = tokenizer(digit, add_special_tokens=False)["input_ids"]
        if len(ids) == 1:
            found[digit] = ids[0]
            continue
        vocabulary = tokenizer.get_vocab()
        same = [
            index for token, index in vocabulary.items() if tokenizer.convert_tokens_to_string([token]).strip() == digit
        ]
        if not same:
            raise ValueError(f"the model's vocabulary has no single token for the digit {digit}: it cannot answer 0-5")
        found[digit] = min(same)
    return found


class LocalAnnotator:
    """A local causal LM answering the crowd's questions; ``language_model`` is a ``LanguageModel`` (causal)."""

    kind = "causal_lm"

    def __init__(self, language_model) -> None:
        self.language_model = language_model
        self.model, self.tokenizer = language_model.model, language_model.tokenizer
        self.digit_ids = digit_token_ids(self.tokenizer)
        self.requests = 0

    def identity(self) -> dict:
        return self.language_model.identity()

    def ask(self, messages: Sequence[dict], settings: dict, seed: int) -> Reply:
        import torch

        self.requests += 1
        generator = torch.Generator().manual_seed(int(seed))
        temperature = float(settings["temperature"])
        state = _State(self.model, self.tokenizer, as_prompt(messages))
        answer: dict = {}
        digits: dict[str, dict[str, float]] = {}
        for number, key in enumerate(KEYS):
            state.extend(("{" if number == 0 else ", ") + f'"{key}": ')
            logprobs = state.logprobs()
            options = {d: float(logprobs[i]) for d, i in self.digit_ids.items()}
            digits[key] = options
            chosen = _choose(torch.tensor(list(options.values())), temperature, generator)
            answer[key] = int(DIGITS[chosen])
            state.append_id(self.digit_ids[DIGITS[chosen]])
        state.extend(', "paraphrases": ["')
        paraphrase = _string(state, self.tokenizer, temperature, generator)
        answer["paraphrases"] = [paraphrase] if paraphrase else []
        return Reply(
            text=json.dumps(answer, ensure_ascii=False),
            digits=digits,
            prompt_tokens=state.prompt_tokens,
            completion_tokens=state.length - state.prompt_tokens,
        )


def _string(state: _State, tokenizer, temperature: float, generator) -> str:
    """Up to ``PARAPHRASE_TOKENS`` tokens the model writes inside a JSON string, until it would close it."""
    words: list[int] = []
    for _ in range(PARAPHRASE_TOKENS):
        token = int(_choose(state.logprobs(), temperature, generator))
        piece = tokenizer.decode([token])
        if token == tokenizer.eos_token_id or any(c in piece for c in STOP_CHARACTERS) or not piece.strip():
            break
        words.append(token)
        state.append_id(token)
    return " ".join(tokenizer.decode(words, skip_special_tokens=True).split())


def _single_token(tokenizer, text: str) -> int | None:
    ids = tokenizer(text, add_special_tokens=False)["input_ids"]
    return ids[0] if len(ids) == 1 else None


class LocalProposer:
    """A local causal LM proposing a compound's synonyms under ``PROPOSAL_SCHEMA``; ``language_model`` as above."""

    kind = "causal_lm"

    def __init__(self, language_model) -> None:
        self.language_model = language_model
        self.model, self.tokenizer = language_model.model, language_model.tokenizer
        self.more, self.end = _single_token(self.tokenizer, ","), _single_token(self.tokenizer, "]")

    def identity(self) -> dict:
        return self.language_model.identity()

    def ask(
        self, messages: Sequence[dict], settings: dict, seed: int, answer_format: AnswerFormat = PROPOSALS
    ) -> Reply:
        import torch

        if answer_format is not PROPOSALS:
            raise ValueError(f"a local proposer answers {PROPOSALS.name}, not {answer_format.name}")
        generator = torch.Generator().manual_seed(int(seed))
        temperature = float(settings["temperature"])
        state = _State(self.model, self.tokenizer, as_prompt(messages))
        answer: dict[str, list[str]] = {}
        for number, side in enumerate(SIDES):
            state.extend(("{" if number == 0 else "], ") + f'"{side}": [')
            answer[side] = []
            while len(answer[side]) < MAX_PER_SIDE:
                state.extend('"')
                word = _string(state, self.tokenizer, temperature, generator)
                state.extend('"')
                if not word:
                    break
                answer[side].append(word)
                if self.more is None or self.end is None:
                    break  # the vocabulary cannot say "another": one word a side
                options = state.logprobs()[[self.more, self.end]]
                if _choose(options, temperature, generator) == 1:
                    break
                state.append_id(self.more)
                state.extend(" ")
        return Reply(
            text=json.dumps(answer, ensure_ascii=False),
            prompt_tokens=state.prompt_tokens,
            completion_tokens=state.length - state.prompt_tokens,
        )


def _choose(logprobs, temperature: float, generator) -> int:
    import torch

    if temperature <= 0:
        return int(torch.argmax(logprobs))
    weights = torch.softmax(logprobs.double() / temperature, dim=-1)
    return int(torch.multinomial(weights, 1, generator=generator))


class _State:
    """The prompt and the answer so far, with the model's key-value cache of everything already read."""

    def __init__(self, model, tokenizer, prompt: str) -> None:
        self.model, self.tokenizer = model, tokenizer
        ids = tokenizer(prompt)["input_ids"]
        self.pending: list[int] = list(ids)
        self.prompt_tokens = self.length = len(ids)
        self.cache = None
        self.last = None

    def extend(self, text: str) -> None:
        ids = self.tokenizer(text, add_special_tokens=False)["input_ids"]
        self.pending += ids
        self.length += len(ids)

    def append_id(self, token: int) -> None:
        self.pending.append(token)
        self.length += 1

    def logprobs(self):
        """The log-softmax (float64, the whole vocabulary) of the next token after everything appended."""
        import torch

        if self.pending:
            with torch.inference_mode():
                out = self.model(input_ids=torch.tensor([self.pending]), past_key_values=self.cache, use_cache=True)
            self.cache, self.last, self.pending = out.past_key_values, out.logits[0, -1], []
        return torch.log_softmax(self.last.double(), dim=-1)
