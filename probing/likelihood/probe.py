"""A likelihood probe of minimal pairs, from the texts to the tables (no Django: a scorer and the pairs).

``texts_to_score`` lists every unique text the probe needs (each pair's sentence and variant
sentence, each multiple-choice item's continuations with and without its context), so that a
scorer reads each text once however many pairs share it. ``tables`` turns the scores into what a
report shows: sentence and compound preferences, the items with their metrics, and the tables of
``analysis``, with the template the items were asked with. A run's shards score their texts through
the cache and keep their ``rows`` (``probing.run.likelihood``); its finish calls ``analyse`` on every
shard's rows (``probing.report.likelihood``).
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


def template() -> dict:
    """The multiple-choice template as a run stores and its report shows it (versioned)."""
    return {"version": TEMPLATE_VERSION, "templates": dict(TEMPLATES), "delimiter": DELIMITER}


def rows(pairs: Sequence[Pair], items: Sequence[ChoiceItem], scores: Mapping[str, TextScore]) -> dict:
    """The per-sentence, per-compound and per-item rows of some compounds (a shard's: they never span shards)."""
    missing = [text for text in [*texts_to_score(pairs, items), *texts_alone(items)] if text not in scores]
    if missing:
        raise KeyError(f"{len(missing)} texts were not scored, e.g. {missing[0]!r}")
    sentences = sentence_rows(pairs, scores)
    return {"sentences": sentences, "compounds": compound_rows(sentences), "items": item_rows(items, scores)}


def analyse(
    sentences: Sequence[Mapping], compounds: Sequence[Mapping], items: Sequence[Mapping], human: Mapping
) -> dict:
    """The report's tables from every row of a run, against the human scores (``analysis``)."""
    return {
        "correlations": analysis.correlations(compounds, human),
        "length_correlations": analysis.length_correlations(sentences),
        "accuracy": analysis.accuracy(items, human),
        "by_class": analysis.by_class(compounds, human),
    }


def tables(pairs: Sequence[Pair], items: Sequence[ChoiceItem], scores: Mapping[str, TextScore], human: Mapping) -> dict:
    """The probe's rows and tables from the scored texts (a text without a score is an error, never skipped)."""
    found = rows(pairs, items, scores)
    return {"template": template(), **found, **analyse(found["sentences"], found["compounds"], found["items"], human)}


def probe(pairs: Sequence[Pair], scorer, human: Mapping, batch_size: int | None = None) -> dict:
    """The whole probe in one process: the items, every unique text scored once, the tables."""
    items, skipped = choice_items(pairs)
    texts, alone = texts_to_score(pairs, items), texts_alone(items)
    scores = score_unique(scorer, texts, batch_size) | score_unique(scorer, alone, batch_size, start_token=True)
    return tables(pairs, items, scores, human) | {"texts_scored": len(texts) + len(alone), "items_skipped": skipped}
