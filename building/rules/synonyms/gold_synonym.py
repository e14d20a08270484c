"""Which crowd paraphrase becomes a compound's gold synonym, and why (pure: no Django import).

NCIMP's NC_Syn is the annotators' most frequent paraphrase. Counted raw, "terremoto" and
"terremotos" (or "the parking lot" and "parking lots") split one proposal's votes, and most
compounds end in a tie. Here paraphrases are grouped by a key that ignores case, accents, number
and leading articles before counting, and a tie is broken in this order: how often the
paraphrase was proposed for the compound's sentences (token level), then which was proposed
first (the order the paraphrases were recorded: a file's own order).

The last rule is what the NCIMP experts did: it matches their NC_Syn more often than breaking
ties by the more common word (``benchmarks/variant_quality.py --all`` measures it). The
language's frequency of each candidate is still shown to the curator. The pick keeps its reason
and its runners-up.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from annotation.analysis.paraphrases import normalise
from building.rules.grammar.inflection import is_portuguese, singular_word
from datasets.formats.spans import fold

ARTICLES = {
    "en": frozenset({"a", "an", "the"}),
    "pt": frozenset({"o", "a", "os", "as", "um", "uma", "uns", "umas"}),
}
RUNNERS_UP = 4


@dataclass(frozen=True)
class Candidate:
    """One normalised paraphrase with the evidence for it."""

    text: str  # as it will read in the sentence: the group's most proposed form, no leading article
    type_count: int  # proposals for the compound (type level)
    token_count: int  # proposals for its sentences (token level)
    zipf: float  # the language's frequency of ``text`` (log10 per billion; 0 when unknown)
    forms: tuple[str, ...] = ()  # the annotators' forms counted together
    first: int = 0  # where the group's first proposal stands among the type-level ones (0: proposed first)

    def as_dict(self) -> dict:
        return {
            "text": self.text,
            "type": self.type_count,
            "token": self.token_count,
            "zipf": round(self.zipf, 2),
            "forms": list(self.forms),
        }


@dataclass(frozen=True)
class GoldPick:
    """The chosen paraphrase, why it won, and the ones behind it."""

    text: str
    reason: str
    candidates: list[Candidate] = field(default_factory=list)  # the pick first, then its runners-up

    def as_dict(self) -> dict:
        return {"reason": self.reason, "candidates": [c.as_dict() for c in self.candidates]}


def _language(language: str) -> str:
    return "pt" if is_portuguese(language) else "en"


def without_article(text: str, language: str) -> str:
    words = text.split()
    if len(words) > 1 and words[0] in ARTICLES[_language(language)]:
        words = words[1:]
    return " ".join(words)


def paraphrase_key(text: str, language: str) -> str:
    """What two paraphrases share when they are the same proposal: case, accents, number and articles aside."""
    words = without_article(normalise(text), language).split()
    return " ".join(fold(singular_word(word, language)) for word in words)


def zipf(per_million: float) -> float:
    return math.log10(per_million * 1000) if per_million > 0 else 0.0


def _is_singular(form: str, language: str) -> bool:
    words = form.split()
    return words == [singular_word(word, language) for word in words]


def _display(forms: dict[str, int], language: str) -> str:
    # A singular form (the variants pluralise it where the sentence needs), the one proposed
    # most, then the shorter, then alphabetical.
    bare = {without_article(normalise(form), language): 0 for form in forms}
    for form, count in forms.items():
        bare[without_article(normalise(form), language)] += count
    return min(bare, key=lambda form: (not _is_singular(form, language), -bare[form], len(form), form))


def candidates(
    type_level: Iterable[tuple[str, int]],
    token_level: Iterable[tuple[str, int]],
    language: str,
    frequency: Callable[[str], float],
) -> list[Candidate]:
    """Type-level paraphrases (in the order proposed) grouped and ranked: type count, token count, first proposed."""
    groups: dict[str, dict[str, int]] = defaultdict(dict)
    first: dict[str, int] = {}
    for position, (text, count) in enumerate(type_level):
        key = paraphrase_key(text, language)
        if key:
            form = normalise(text)
            groups[key][form] = groups[key].get(form, 0) + count
            first.setdefault(key, position)
    tokens: dict[str, int] = defaultdict(int)
    for text, count in token_level:
        tokens[paraphrase_key(text, language)] += count
    found = []
    for key, forms in groups.items():
        text = _display(forms, language)
        found.append(
            Candidate(
                text, sum(forms.values()), tokens.get(key, 0), zipf(frequency(text)), tuple(sorted(forms)), first[key]
            )
        )
    return sorted(found, key=lambda c: (-c.type_count, -c.token_count, c.first))


def _reason(best: Candidate, tied: list[Candidate]) -> str:
    """Why ``best`` beat ``tied`` (the candidates with as many type-level proposals)."""
    proposals = f"{best.type_count} proposal{'s' if best.type_count != 1 else ''}"
    if len(best.forms) > 1:
        proposals += f" ({', '.join(best.forms)} counted together)"
    if not tied:
        return f"most frequent paraphrase: {proposals}"
    names = ", ".join(c.text for c in tied)
    if all(c.token_count < best.token_count for c in tied):
        return f"tied with {names} at {proposals}; proposed most for the sentences ({best.token_count} token-level)"
    return f"tied with {names} at {proposals}, as often in the sentences; proposed first"


def pick_gold_synonym(
    type_level: Iterable[tuple[str, int]],
    token_level: Iterable[tuple[str, int]],
    language: str,
    frequency: Callable[[str], float],
    blocks: Callable[[str], bool] | None = None,
) -> GoldPick | None:
    """The gold synonym of a compound from its paraphrases (text, frequency), in the order they were
    proposed; None without type-level ones.

    ``blocks``: paraphrases it refuses (the language's offensive words) are never picked, however
    often proposed; the reason names them. None when every paraphrase is refused.
    """
    ranked = candidates(type_level, token_level, language, frequency)
    refused = [c.text for c in ranked if blocks is not None and blocks(c.text)]
    ranked = [c for c in ranked if c.text not in refused]
    if not ranked:
        return None
    best = ranked[0]
    tied = [c for c in ranked[1:] if c.type_count == best.type_count]
    reason = _reason(best, tied)
    if refused:
        reason += f"; left out as offensive: {', '.join(refused)}"
    return GoldPick(best.text, reason, ranked[: 1 + RUNNERS_UP])
