"""A likelihood run's report: its shards' rows pooled, then the tables of ``probing.likelihood.analysis``.

Each shard stored the rows of its compounds (``probing.run.likelihood``); nothing is scored again
here. The tables are those a reader of the papers looks for: the preferences against the human
compositionality scores (Spearman, Benjamini-Hochberg), the multiple-choice accuracy by class and
condition, each preference by class, and the length check. The template the items were asked with
is stored in the report (and in the run's provenance). A likelihood run has no layers: it reads
the model's output distribution, not its hidden states.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from core.memory import paused_gc
from probing.likelihood.probe import analyse, template
from probing.models import ProbeRun, ProbeShard
from probing.report.human import HUMAN_RULE, human_comp, with_note
from probing.run.loading import release_probes

# The report's tables, each a CSV download: rows first, then what is computed over them.
LIKELIHOOD_TABLES = (
    "per_compound",
    "per_sentence",
    "items",
    "correlations",
    "accuracy",
    "by_class",
    "length_correlations",
)
NO_LAYERS = "A likelihood run reads the model's output distribution, not its hidden states: it has no layers."
SHARED_LAYERS = (
    "The likelihood measures read the model's output distribution and have no layers; the similarity measures "
    "pool the hidden states of the same forward pass (the layers of their config)."
)
SIMILARITY_PREFIX = "similarity_"  # a likelihood run's similarity tables, as CSV files: similarity_summary.csv


def layers_note(report: Mapping) -> str:
    return SHARED_LAYERS if report.get("similarity") else NO_LAYERS


def build_likelihood_report(run: ProbeRun, shards: list[ProbeShard]) -> dict:
    """Every table of a likelihood run whose shards are all done (stored as ``run.report``)."""
    with paused_gc():  # tens of thousands of rows, no cycles (core.memory)
        probes = release_probes(run.release)
        human, sources = human_comp(probes.snapshot)
        sentences = [row for shard in shards for row in shard.result.get("sentences", [])]
        compounds = [row for shard in shards for row in shard.result.get("compounds", [])]
        items = [row for shard in shards for row in shard.result.get("items", [])]
        for row in compounds:
            info = human.get((row["language"], row["compound"]), {})
            row["class"], row["human"], row["human_source"] = (
                info.get("class"),
                info.get("comp"),
                info.get("comp_source"),
            )
        stats: Counter = Counter()
        for shard in shards:
            stats.update({k: v for k, v in (shard.result.get("stats") or {}).items() if isinstance(v, int | float)})
        report = {
            "human_score": with_note({"rule": HUMAN_RULE, "sources": sources}, run.release.version),
            "template": template(),
            "per_compound": compounds,
            "per_sentence": sentences,
            "items": items,
            **analyse(sentences, compounds, items, human),
            "layers_note": NO_LAYERS,  # SHARED_LAYERS when the similarity part is added below
            "stats": {
                **stats,
                "items_skipped": sum(shard.result.get("items_skipped", 0) for shard in shards),
                "sentences": len(sentences),
                "compounds": len({(row["language"], row["compound"]) for row in compounds}),
                "item_count": len(items),
            },
        }
    if run.config.get("similarity"):
        from probing.report.build import build_report  # which reads this module's tables

        similarity = build_report(run, shards, part="similarity")
        similarity.pop("human_score")  # the same as the run's
        report["similarity"] = similarity
        report["layers_note"] = SHARED_LAYERS
    return report


def likelihood_tables(report: Mapping) -> dict:
    """What a likelihood run's JSON adds to the run's head (``probing.report.build.run_report``)."""
    return {
        "template": report.get("template"),
        **{table: report.get(table, []) for table in LIKELIHOOD_TABLES},
        "layers_note": layers_note(report),
        "stats": report.get("stats"),
    }
