"""Probe runs with hand-made reports, for the report pages: no model is loaded and nothing is embedded.

``make_report`` writes ``ProbeRun.report`` in the shape ``probing.report.build.build_report`` stores,
with values made up so that the P_Syn similarities follow the human scores (significant) while the
random probe does not.
"""

from __future__ import annotations

from probing.measures.analysis import correlations, length_correlations, summary_table
from probing.measures.metrics import BASE_MEASURES, STD
from probing.models import EmbeddingModel, ProbeRun, config_hash
from tests.probing.probe_factories import COMPOUNDS, make_probe_data, publish

CONDITIONS = ("naturalistic", "neutral")
LEVELS = ("sentence", "nc")
# Not monotonic in the human scores: P_Rand must not correlate.
RANDOM_SIMS = [0.31, 0.12, 0.45, 0.08, 0.27]


def make_release(version: str = "1.0.0"):
    """A published release of the five test compounds (English), with approved variants of every probe."""
    make_probe_data()
    return publish(version)


def make_model(name: str = "minilm", **fields) -> EmbeddingModel:
    """A registered model (the bundled MiniLM, "minilm", is registered by a migration already)."""
    defaults = {"kind": EmbeddingModel.Kind.SENTENCE_TRANSFORMERS, "source": "bundled:minilm", "options": {}}
    return EmbeddingModel.objects.update_or_create(name=name, defaults=defaults | fields)[0]


def compound_rows(shift: float = 0.0, missing: bool = False) -> list[dict]:
    """Flat per-compound rows (``compound_values`` plus class and human) for every compound, condition and level."""
    rows = []
    for i, (text, _, cls, type_score, token_score) in enumerate(COMPOUNDS):
        human = token_score if token_score is not None else type_score
        for condition in CONDITIONS:
            for level in LEVELS:
                base = 0.5 + 0.08 * human + shift + (0.05 if level == "sentence" else 0.0)
                raw = {
                    "sim_syn": base,
                    "sim_comp": 0.7 + 0.01 * i,
                    "sim_words_syn": 0.6 - 0.02 * i,
                    "sim_rand": RANDOM_SIMS[i],
                }
                raw["affinity_syn_words_syn"] = raw["sim_syn"] - raw["sim_words_syn"]
                raw["affinity_syn_rand"] = raw["sim_syn"] - raw["sim_rand"]
                raw["scaled_syn"] = (raw["sim_syn"] - raw["sim_rand"]) / (1 - raw["sim_rand"])
                raw["scaled_words_syn"] = (raw["sim_words_syn"] - raw["sim_rand"]) / (1 - raw["sim_rand"])
                row = {"language": "en", "compound": text, "condition": condition, "level": level}
                row |= {m: raw[m] for m in BASE_MEASURES}
                row |= {m + STD: raw[m] - 0.1 for m in BASE_MEASURES}
                row |= {"n_sentences": 2 if condition == "naturalistic" else 1, "class": cls, "human": human}
                rows.append(row)
    if missing:
        rows[0]["sim_comp"] = None  # a compound without a head-only or modifier-only variant
    return rows


def layers_report(count: int) -> dict:
    """A layer sweep's part of a report (``analysis.layer_report``'s shape) over ``count`` hidden states."""
    from probing.measures.metrics import BASE_MEASURES as MEASURES

    summary, rhos = [], []
    for layer in range(count):
        rows = compound_rows(0.01 * layer)
        human = {(r["language"], r["compound"]): {"comp": r["human"], "class": r["class"]} for r in rows}
        summary += [{"layer": layer, **r} for r in summary_table(rows, measures=MEASURES)]
        rhos += [{"layer": layer, **r} for r in correlations(rows, human, measures=MEASURES)]
    return {"index": list(range(count)), "summary": summary, "correlations": rhos}


def make_report(shift: float = 0.0, layers: int = 0) -> dict:
    rows = compound_rows(shift, missing=True)
    human = {(r["language"], r["compound"]): {"comp": r["human"], "class": r["class"]} for r in rows}
    sentences = [
        {**r, "sentence_id": "naturalistic-1", "length": 9 + k}
        for k, r in enumerate(rows)
        if r["condition"] == "naturalistic" and r["level"] == "sentence"
    ]
    corr = correlations(rows, human)
    for row in corr:
        row["p_adjusted"] = None if row["p"] is None else min(1.0, row["p"] * 2)
    return {
        "per_compound": rows,
        "per_sentence": sentences,
        "correlations": corr,
        "summary": summary_table(rows),
        "length_correlations": length_correlations(sentences),
        "context": [],
        "context_correlations": [],
        **({"layers": layers_report(layers)} if layers else {}),
    }


def provenance(release, model: EmbeddingModel, config: dict) -> dict:
    return {
        "release": {"version": release.version, "checksum": release.checksum, "languages": release.languages},
        "model": {"name": model.name, "kind": model.kind, "source": model.source, "options": model.options},
        "model_identity": {"kind": model.kind, "name": model.name, "revision": "abc123", "dim": 384},
        "config": config,
        "code_version": "v1.2.3-test",
        "packages": {"python": "3.11", "torch": "2.5.0", "numpy": "2.1.0"},
        "workers": [],
    }


def make_run(release, model: EmbeddingModel, status: str = ProbeRun.Status.DONE, report: dict | None = None, **fields):
    """A run in ``status``; a done run gets ``make_report()`` unless ``report`` is given."""
    config = {"layers": [-4, -3, -2, -1], "batch_size": 32, "max_length": 512, "include_special_tokens": False}
    if report is None:
        report = make_report() if status == ProbeRun.Status.DONE else {}
    defaults = {
        "config": config,
        "config_hash": config_hash(config),
        "queue": "probe_cpu",
        "shards_total": 4,
        "shards_done": 4 if status == ProbeRun.Status.DONE else 0,
        "texts_total": 400,
        "texts_embedded": 300 if status == ProbeRun.Status.DONE else 0,
        "texts_cached": 100 if status == ProbeRun.Status.DONE else 0,
        "report": report,
        "provenance": provenance(release, model, config),
    }
    return ProbeRun.objects.create(release=release, model=model, status=status, **(defaults | fields))
