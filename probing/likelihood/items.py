"""Multiple-choice items built from a release's minimal pairs (pure: no Django, no torch).

For each sentence with a compound, the model reads the sentence, then a question, and is asked
which reading the compound has there: its gold synonym (NC_Syn), a literal reading (the synonyms
of both words, NC_WordsSyn, else the head alone, NC_Comp) or a frequency-matched random compound
(NC_Rand). The right answer is the synonym. Choices are the replacement phrases of the pairs
(rank 1 of each probe), so an item asks exactly what the minimal pairs contrast.

The order of the choices is balanced: within each language and condition the items cycle through
the three rotations of (syn, literal, rand), so the right answer stands first, second and third
equally often (a model that always picks one position scores a third). Each item records its
order. The template is versioned: a run stores ``TEMPLATE_VERSION`` and the template's text.

Items are scored as lm-evaluation-harness scores ``multiple_choice`` tasks: the log-likelihood of
each continuation (``DELIMITER`` and the choice) after the context, and, for ``acc_mutual_info``,
after an empty context.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from probing.likelihood.choices import ScoredItem, item_metrics
from probing.likelihood.scores import TextScore
from probing.measures.probes import Pair

TEMPLATE_VERSION = 1
# The question after the sentence, per language (English for any other).
TEMPLATES = {
    "en": '{sentence}\nHere, "{compound}" means:',
    "pt": '{sentence}\nAqui, "{compound}" significa:',
}
DELIMITER = " "  # between the context and a choice, as the harness's target_delimiter
KINDS = ("syn", "literal", "rand")


@dataclass(frozen=True)
class ChoiceItem:
    language: str
    compound: str
    condition: str
    sentence_id: str
    context: str
    choices: tuple[str, ...]
    kinds: tuple[str, ...]  # what each choice is, in the order shown ("syn", "literal", "rand")
    literal: str  # which probe gave the literal reading: "words_syn" or "head"

    @property
    def gold(self) -> int:
        return self.kinds.index("syn")

    def continuation(self, index: int) -> str:
        return DELIMITER + self.choices[index]

    def conditional(self) -> list[tuple[str, tuple[int, int]]]:
        """Each choice after the context, with the span of its continuation."""
        found = []
        for index in range(len(self.choices)):
            whole = self.context + self.continuation(index)
            found.append((whole, (len(self.context), len(whole))))
        return found

    def unconditional(self) -> list[tuple[str, tuple[int, int]]]:
        """Each choice after the empty context (``acc_mutual_info``): to be scored after a start token."""
        return [(alone, (0, len(alone))) for alone in (self.continuation(i) for i in range(len(self.choices)))]

    def texts(self) -> list[tuple[str, tuple[int, int]]]:
        """Every text to score with the span whose log-probability is wanted: the conditional ones, then
        the unconditional ones."""
        return self.conditional() + self.unconditional()


def template_of(language: str) -> str:
    return TEMPLATES.get(language, TEMPLATES["en"])


def phrase(pair: Pair) -> str:
    """The replacement's words in the variant sentence (its span), else the whole variant text."""
    span = pair.variant.span
    return pair.variant.text[span[0] : span[1]].strip() if span else ""


def choice_items(pairs: Iterable[Pair]) -> tuple[list[ChoiceItem], int]:
    """The items of the pairs' sentences, and how many sentences lacked a distinct choice of the three."""
    by_sentence: dict[tuple, dict[str, Pair]] = defaultdict(dict)
    order: list[tuple] = []
    for pair in pairs:
        key = (pair.language, pair.compound, pair.condition, pair.sentence_id)
        if key not in by_sentence:
            order.append(key)
        if pair.rank <= 1 and pair.probe not in by_sentence[key]:
            by_sentence[key][pair.probe] = pair
    items, skipped = [], 0
    rotation: dict[tuple[str, str], int] = defaultdict(int)
    for key in order:
        found = by_sentence[key]
        literal_probe = "words_syn" if "words_syn" in found else "head"
        picked = [found.get("syn"), found.get(literal_probe), found.get("rand")]
        phrases = [phrase(p) if p is not None else "" for p in picked]
        original = next(iter(found.values())).original
        if not all(phrases) or len({p.lower() for p in phrases}) < 3 or original.span is None:
            skipped += 1
            continue
        language, compound, condition, sentence_id = key
        turn = rotation[(language, condition)] % len(KINDS)
        rotation[(language, condition)] += 1
        kinds = KINDS[turn:] + KINDS[:turn]
        shown = dict(zip(KINDS, phrases, strict=True))
        context = template_of(language).format(sentence=original.text, compound=compound)
        items.append(
            ChoiceItem(
                language=language,
                compound=compound,
                condition=condition,
                sentence_id=sentence_id,
                context=context,
                choices=tuple(shown[k] for k in kinds),
                kinds=kinds,
                literal=literal_probe,
            )
        )
    return items, skipped


def scored_item(item: ChoiceItem, scores: Mapping[str, TextScore]) -> ScoredItem | None:
    """The item's log-likelihoods from the scored texts; None when a choice's continuation has no score.

    The unconditional ones are left out (no ``acc_mutual_info``) when any is missing: a text scored
    alone without a start token has no log-probability for its first token.
    """
    texts = item.texts()
    n = len(item.choices)
    values = [scores[text].span_logprob(*span) for text, span in texts]
    if any(v is None for v in values[:n]):
        return None
    unconditional = tuple(values[n:]) if all(v is not None for v in values[n:]) else None
    return ScoredItem(item.choices, tuple(values[:n]), item.gold, unconditional)


def item_rows(items: Sequence[ChoiceItem], scores: Mapping[str, TextScore]) -> list[dict]:
    """One row per scored item: its place, the choices in order, the chosen index and each metric (1 or 0)."""
    rows = []
    for item in items:
        scored = scored_item(item, scores)
        if scored is None:
            continue
        rows.append(
            {
                "language": item.language,
                "compound": item.compound,
                "condition": item.condition,
                "sentence_id": item.sentence_id,
                "choices": list(item.choices),
                "kinds": list(item.kinds),
                "gold": item.gold,
                "loglikelihoods": list(scored.loglikelihoods),
                **item_metrics(scored),
            }
        )
    return rows
