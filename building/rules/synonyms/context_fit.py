"""How well a synonym fits the compound's own sentences (pure: no Django import).

Lexical substitution: a synonym that keeps the sentence's meaning is a better replacement
than one that is merely frequent ("agente secreto" → "pai profundo" was frequent, not apt).
Each candidate word is put in place of the compound's word in every sentence the compound
has, and the substituted sentence is compared with the original by an injected
``Similarity`` (the platform's sentence-embedding model on the Django side, a fake in
tests). Every sentence of a compound goes to the model in one call. Without a model the
candidates keep their lexicon order (sense rank, then frequency).

Both sentences of a pair carry the compound in its dictionary form ("trepidação sísmico"
against "abalo sísmico" in the same sentence), so that only the replaced word differs,
not the number or gender the sentence gives it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from datasets.formats.spans import Span, fold

# (original, substituted) sentence pairs → one similarity per pair, higher is closer in meaning.
Similarity = Callable[[Sequence[tuple[str, str]]], list[float]]

# How much is embedded, chosen on the development half (issue 33; docs/building.md "Ranking in context"):
# the best SCORED_PER_SIDE candidates of each side by the score without context (scoring 5 or fewer could
# not change which words make the top 5), in the compound's first CONTEXTS sentences, each cut to WINDOW
# words on either side of the compound. On PT dev, 10 candidates in 1 sentence of ±5 words ranked as well as
# 15 in 3 of ±10 (top-5 objective 0.438 against 0.435) with a quarter of the texts, each half as long.
SCORED_PER_SIDE = 10
CONTEXTS = 1
WINDOW = 5


@dataclass(frozen=True)
class Context:
    """A sentence holding the compound and where the compound is in it."""

    text: str
    span: Span

    def with_compound(self, compound: str) -> str:
        return self.text[: self.span[0]] + compound + self.text[self.span[1] :]


@dataclass(frozen=True)
class ContextFit:
    """Each scored candidate's mean similarity in the compound's sentences, by side and folded word."""

    modifier: dict[str, float] = field(default_factory=dict)
    head: dict[str, float] = field(default_factory=dict)
    model: str = ""

    def score(self, side: str, word: str) -> float | None:
        return (self.modifier if side == "modifier" else self.head).get(fold(word))

    def rank_key(self, side: str, word: str) -> tuple[int, float]:
        """Sorts scored words first, best fit first; unscored ones after, in their given order."""
        value = self.score(side, word)
        return (0, -value) if value is not None else (1, 0.0)


def contexts_of(
    compound: str, sentences: Sequence[tuple[str, Span]], limit: int = CONTEXTS, window: int = WINDOW
) -> list[Context]:
    """The compound's sentences with a usable span, at most ``limit``, each cut to ``window`` words on
    either side of the compound (the words a substitution is judged by; shorter texts embed faster).
    The compound alone when it has no sentence."""
    found = []
    for text, (start, end) in sentences:
        if not text or not 0 <= start < end <= len(text):
            continue
        before, after = text[:start].split(), text[end:].split()
        left = " ".join(before[-window:]) + " " if before[-window:] else ""
        right = " " + " ".join(after[:window]) if after[:window] else ""
        found.append(Context(left + text[start:end] + right, (len(left), len(left) + end - start)))
    return found[:limit] or [Context(compound, (0, len(compound)))]


def context_fit(
    contexts: Sequence[Context],
    compound: str,
    replace: Callable[..., str],
    modifier_words: Sequence[str],
    head_words: Sequence[str],
    similarity: Similarity,
    model: str = "",
    per_side: int = SCORED_PER_SIDE,
) -> ContextFit:
    """Score the first ``per_side`` words of each side; ``replace(modifier=…)`` / ``replace(head=…)`` gives
    the compound with one word replaced (``layout.Layout.replace``)."""
    pairs: list[tuple[str, str]] = []
    owners: list[tuple[str, str]] = []
    for side, words in (("modifier", modifier_words), ("head", head_words)):
        seen: set[str] = set()
        for word in words:
            key = fold(word)
            if key in seen:
                continue
            seen.add(key)
            if len(seen) > per_side:
                break
            replaced = replace(**{side: word})
            for context in contexts:
                pairs.append((context.with_compound(compound), context.with_compound(replaced)))
                owners.append((side, key))
    if not pairs:
        return ContextFit(model=model)
    values = similarity(pairs)
    if len(values) != len(pairs):
        raise ValueError(f"the similarity gave {len(values)} values for {len(pairs)} sentence pairs")
    sums: dict[tuple[str, str], list[float]] = {}
    for owner, value in zip(owners, values, strict=True):
        sums.setdefault(owner, []).append(float(value))
    means = {owner: sum(v) / len(v) for owner, v in sums.items()}
    return ContextFit(
        modifier={key: value for (side, key), value in means.items() if side == "modifier"},
        head={key: value for (side, key), value in means.items() if side == "head"},
        model=model,
    )
