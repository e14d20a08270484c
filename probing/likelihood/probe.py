"""A likelihood probe of minimal pairs, from the texts to the tables (no Django: a scorer and the pairs).

``texts_to_score`` lists every unique text the probe needs (each pair's sentence and variant
sentence, each multiple-choice item's continuations with and without its context), so that a
scorer reads each text once however many pairs share it. ``tables`` turns the scores into what a
report shows: sentence and compound preferences, the items with their metrics, and the tables of
``analysis``, with the template the items were asked with. A run's shards will score their texts
(``score_unique``) and its finish will call ``tables`` on every shard's scores.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from probing.likelihood import analysis
from probing.likelihood.items import DELIMITER, TEMPLATE_VERSION, TEMPLATES, ChoiceItem, choice_items, item_rows
from probing.likelihood.preferences import compound_rows, sentence_rows
from probing.likelihood.scores import TextScore
from probing.measures.probes import Pair


def texts_to_score(pairs: Sequence[Pair], items: Sequence[ChoiceItem]) -> list[str]:
    """Every text the probe scores in context, once each, in a stable order (pairs first, then the items')."""
    found = dict.fromkeys(text for pair in pairs for text in (pair.original.text, pair.variant.text))
    found.update(dict.fromkeys(text for item in items for text, _ in item.conditional()))
    return list(found)


def texts_alone(items: Sequence[ChoiceItem]) -> list[str]:
    """The choices after the empty context, scored after a start token (lm-evaluation-harness's rule)."""
    return list(dict.fromkeys(text for item in items for text, _ in item.unconditional()))


def score_unique(
    scorer, texts: Sequence[str], batch_size: int | None = None, start_token: bool = False
) -> dict[str, TextScore]:
    """Each distinct text scored once (``scorer.score``: a local language model or a completions server)."""
    unique = list(dict.fromkeys(texts))
    return dict(zip(unique, scorer.score(unique, batch_size, start_token), strict=True))


def tables(pairs: Sequence[Pair], items: Sequence[ChoiceItem], scores: Mapping[str, TextScore], human: Mapping) -> dict:
    """The probe's rows and tables from the scored texts (a text without a score is an error, never skipped)."""
    missing = [text for text in [*texts_to_score(pairs, items), *texts_alone(items)] if text not in scores]
    if missing:
        raise KeyError(f"{len(missing)} texts were not scored, e.g. {missing[0]!r}")
    sentences = sentence_rows(pairs, scores)
    compounds = compound_rows(sentences)
    answered = item_rows(items, scores)
    return {
        "template": {"version": TEMPLATE_VERSION, "templates": dict(TEMPLATES), "delimiter": DELIMITER},
        "sentences": sentences,
        "compounds": compounds,
        "items": answered,
        "correlations": analysis.correlations(compounds, human),
        "length_correlations": analysis.length_correlations(sentences),
        "accuracy": analysis.accuracy(answered, human),
        "by_class": analysis.by_class(compounds, human),
    }


def probe(pairs: Sequence[Pair], scorer, human: Mapping, batch_size: int | None = None) -> dict:
    """The whole probe in one process: the items, every unique text scored once, the tables."""
    items, skipped = choice_items(pairs)
    texts, alone = texts_to_score(pairs, items), texts_alone(items)
    scores = score_unique(scorer, texts, batch_size) | score_unique(scorer, alone, batch_size, start_token=True)
    return tables(pairs, items, scores, human) | {"texts_scored": len(texts) + len(alone), "items_skipped": skipped}
