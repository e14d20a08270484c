"""A text's scores token by token: what every likelihood scorer returns (pure: no Django, no torch).

The local scorers (``scoring``) and the completions client (``completions``) give a ``TextScore``;
preferences and multiple-choice items read totals and spans from it. Kept free of torch so that
the pages and commands that only describe scores never load it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

CAUSAL, MASKED = "causal_lm", "masked_lm"
# Bump when the same model would give a text other scores (tokens scored, the masked-LM correction):
# cached scores of another format are not reused.
SCORE_FORMAT = 1


class TokenScore(NamedTuple):
    """One token of a text: its string, its character offsets in the text, its log-probability."""

    token: str
    start: int
    end: int
    logprob: float | None  # None for a causal LM's first token when nothing comes before it

    def to_dict(self) -> dict:
        return {"token": self.token, "start": self.start, "end": self.end, "logprob": self.logprob}


@dataclass(frozen=True)
class TextScore:
    """A text's own tokens (special tokens are context, never scored), kept as parallel lists.

    A run scores millions of tokens and needs totals and spans, not one object per token: the
    ``tokens`` are made only when asked for (``score_text``, the tests).
    """

    text: str
    names: Sequence[str]
    offsets: Sequence[tuple[int, int]]
    logprobs: Sequence[float | None]

    @classmethod
    def from_tokens(cls, text: str, tokens: Sequence[TokenScore]) -> TextScore:
        return cls(text, [t.token for t in tokens], [(t.start, t.end) for t in tokens], [t.logprob for t in tokens])

    @cached_property
    def tokens(self) -> tuple[TokenScore, ...]:
        return tuple(
            TokenScore(name, start, end, value)
            for name, (start, end), value in zip(self.names, self.offsets, self.logprobs, strict=True)
        )

    @cached_property
    def total(self) -> float:
        """The sum of the scored tokens' log-probabilities (a first token without context adds nothing)."""
        return sum(v for v in self.logprobs if v is not None)

    @cached_property
    def scored(self) -> int:
        """How many tokens have a log-probability (the denominator of a per-token score)."""
        return sum(v is not None for v in self.logprobs)

    def inside(self, start: int, end: int) -> list[int]:
        """The positions of the tokens that overlap the characters ``[start, end)``."""
        return [i for i, (a, b) in enumerate(self.offsets) if a < end and start < b]

    def span_logprob(self, start: int, end: int) -> float | None:
        """The log-probability of the tokens overlapping ``[start, end)``; None when one has none or none overlaps."""
        values = [self.logprobs[i] for i in self.inside(start, end)]
        if not values or any(v is None for v in values):
            return None
        return sum(values)

    def to_dict(self) -> dict:
        return {"text": self.text, "tokens": [t.to_dict() for t in self.tokens], "total": self.total}
