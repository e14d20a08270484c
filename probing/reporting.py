"""A run's report: computed once when the run finishes, shaped for the JSON, the CSV files and the pages.

``build_report`` pools the shards' raw cosines, fits the rogue-dimension standardiser per level
over the vectors of the whole run (appendix C), and computes the tables of ``probing.metrics`` and
``probing.analysis``. ``run_report`` is what ``probe_report --format json`` prints and what the
report pages read; ``report_csv`` gives one table as CSV, with the provenance in ``#`` lines.
"""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from collections.abc import Iterable

from probing.models import ProbeRun, ProbeShard, identity_hash

HUMAN_RULE = "the compound's token_score (mean over its sentences) when present, else its type_score"
TABLES = (
    "per_compound",
    "per_sentence",
    "correlations",
    "summary",
    "length_correlations",
    "context",
    "context_correlations",
)
ALPHA = 0.05
# CSV columns: identity first, then the figures (PostgreSQL's jsonb does not keep key order).
LEAD_COLUMNS = (
    "language",
    "compound",
    "class",
    "human",
    "human_source",
    "condition",
    "level",
    "probe",
    "sentence_id",
    "length",
    "measure",
    "subset",
    "granularity",
    "against",
    "mean",
    "std",
    "rho",
    "p",
    "p_adjusted",
    "n",
    "significant",
    "significant_bh",
    "sim",
    "sim_std",
    "n_sentences",
)


def build_report(run: ProbeRun, shards: list[ProbeShard]) -> dict:
    """Every table of a run whose shards are all done (stored as ``run.report``)."""
    from probing.analysis import (
        benjamini_hochberg,
        context_correlations,
        context_values,
        correlations,
        length_correlations,
        summary_table,
    )
    from probing.loading import release_probes
    from probing.metrics import (
        NC,
        ContextSim,
        PairSim,
        compound_values,
        context_similarities,
        fit_standardisers,
        pair_similarities,
        sentence_values,
    )

    probes = release_probes(run.release)
    keys = [tuple(k) for shard in shards for k in shard.compounds]
    pairs, context = probes.select(keys)
    vectors = run_vectors(run, probes.items(keys))
    standardisers = fit_standardisers((i for p in pairs for i in (p.original, p.variant)), vectors)
    again = {(*_pair_key(s.pair), s.level): s for s in pair_similarities(pairs, vectors, standardisers)}
    by_key = {_pair_key(p): p for p in pairs}
    pair_sims, drift = [], 0.0
    for shard in shards:
        for *key, level, sim in shard.result.get("pairs", []):
            recomputed = again.get((*key, level))
            if recomputed is not None:
                drift = max(drift, abs(recomputed.sim - sim))
            pair_sims.append(PairSim(by_key[tuple(key)], level, sim, recomputed.sim_std if recomputed else None))
    context_again = {_context_key(c.pair): c for c in context_similarities(context, vectors, standardisers.get(NC))}
    context_by_key = {_context_key(c): c for c in context}
    context_sims = []
    for shard in shards:
        for *key, sim in shard.result.get("context", []):
            recomputed = context_again.get(tuple(key))
            context_sims.append(ContextSim(context_by_key[tuple(key)], sim, recomputed.sim_std if recomputed else None))

    human, sources = human_comp(probes.snapshot)
    sentence_rows = sentence_values(pair_sims)
    compound_rows = compound_values(sentence_rows)
    for row in compound_rows:
        info = human.get((row["language"], row["compound"]), {})
        row["class"], row["human"], row["human_source"] = info.get("class"), info.get("comp"), info.get("comp_source")
    correlation_rows = correlations(compound_rows, human, alpha=ALPHA)
    for row, adjusted in zip(correlation_rows, benjamini_hochberg([r["p"] for r in correlation_rows]), strict=True):
        row["p_adjusted"] = adjusted
        row["significant_bh"] = adjusted is not None and adjusted <= ALPHA
    return {
        "human_score": {"rule": HUMAN_RULE, "sources": sources},
        "per_compound": compound_rows,
        "per_sentence": sentence_rows,
        "correlations": correlation_rows,
        "summary": summary_table(compound_rows),
        "length_correlations": length_correlations(sentence_rows, alpha=ALPHA),
        "context": context_values(context_sims),
        "context_correlations": context_correlations(context_sims, human, alpha=ALPHA),
        "standardisation": {
            "levels": {level: z.n for level, z in standardisers.items()},
            "max_raw_difference": drift,  # shards' cosines vs the same vectors read back: 0 unless the cache changed
        },
        "stats": _stats(shards, len(pair_sims), len(vectors)),
    }


def run_vectors(run: ProbeRun, items: list) -> dict:
    """The vectors of ``items`` under the run's model and config: from the cache, embedding any that left it."""
    from probing.cache import DatabaseVectorCache
    from probing.embedding.base import EmbedConfig
    from probing.engine import cache_key, embed_all
    from probing.loading import model_backend

    identity = run.provenance["model_identity"]
    config = EmbedConfig.from_dict(run.config)
    cache = DatabaseVectorCache(identity_hash(identity))
    keys = {item: cache_key(identity, config, item) for item in items}
    found = cache.get_many(list(keys.values()))
    vectors = {item: found[key] for item, key in keys.items() if key in found}
    if missing := [item for item in items if item not in vectors]:
        backend = model_backend(run.model)
        if backend.identity() != identity:
            raise ValueError(f"{len(missing)} vectors left the cache and the model's weights changed since the run")
        vectors.update(embed_all(backend, missing, config, cache)[0])
    return vectors


def human_comp(snapshot) -> tuple[dict, dict]:
    """The human mapping for correlations, with ``comp`` chosen by HUMAN_RULE, and how often each source served."""
    from probing.analysis import human_scores

    token = human_scores(snapshot, "token")
    human, sources = {}, Counter()
    for key, info in human_scores(snapshot, "type").items():
        if token[key]["comp"] is not None:
            comp, source = token[key]["comp"], "token_score"
        elif info["comp"] is not None:
            comp, source = info["comp"], "type_score"
        else:
            comp, source = None, "missing"
        human[key] = {**info, "comp": comp, "comp_source": source}
        sources[source] += 1
    return human, dict(sources)


def _stats(shards: list[ProbeShard], pairs: int, texts: int) -> dict:
    totals: Counter = Counter()
    for shard in shards:
        totals.update({k: v for k, v in (shard.result.get("stats") or {}).items() if isinstance(v, int | float)})
    return {**totals, "pair_similarities": pairs, "unique_texts": texts}


def _pair_key(pair) -> tuple:
    return (pair.language, pair.compound, pair.condition, pair.sentence_id, pair.probe, pair.rank)


def _context_key(pair) -> tuple:
    return (pair.language, pair.compound, pair.condition, pair.sentence_id, pair.probe)


# --- what the JSON, the CSV files and the pages show ------------------------------------------------


def run_report(run: ProbeRun) -> dict:
    """The JSON of ``probe_report --format json``: the run, its provenance and every table (empty until done)."""
    from probing.metrics import report_entry

    report = run.report or {}
    return {
        "run": run.pk,
        "status": run.status,
        "release": run.release.version,
        "model": run.model.name,
        "created_at": _iso(run.created_at),
        "started_at": _iso(run.started_at),
        "finished_at": _iso(run.finished_at),
        "progress": run.progress(),
        "provenance": run.provenance,
        "human_score": report.get("human_score"),
        "per_compound": [
            {
                **report_entry(row),
                "class": row.get("class"),
                "human": row.get("human"),
                "n_sentences": row.get("n_sentences"),
            }
            for row in report.get("per_compound", [])
        ],
        **{table: report.get(table, []) for table in TABLES if table != "per_compound"},
        "standardisation": report.get("standardisation"),
        "stats": report.get("stats"),
    }


def report_csv(run: ProbeRun, table: str) -> str:
    """One table of the run as CSV (flat rows; lists as JSON), after ``#`` lines with the provenance."""
    if table not in TABLES:
        raise ValueError(f"unknown table {table!r}; choose one of {', '.join(TABLES)}")
    rows = (run.report or {}).get(table, [])
    out = io.StringIO()
    for line in provenance_lines(run):
        out.write(f"# {line}\n")
    columns = csv_columns(rows)
    writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: json.dumps(v) if isinstance(v, list | dict) else v for k, v in row.items()})
    return out.getvalue()


def csv_columns(rows: list[dict]) -> list[str]:
    from probing.metrics import ROW_MEASURES

    keys = {key for row in rows for key in row}
    ordered = [k for k in (*LEAD_COLUMNS, *ROW_MEASURES) if k in keys]
    return ordered + sorted(keys - set(ordered))


def provenance_lines(run: ProbeRun) -> Iterable[str]:
    p = run.provenance or {}
    release = p.get("release") or {}
    yield f"probe run {run.pk} ({run.status}): model {run.model.name} on release {release.get('version')}"
    yield f"release checksum (sha256 of manifest.json): {release.get('checksum')}"
    yield f"model identity: {json.dumps(p.get('model_identity'), sort_keys=True)}"
    yield f"config: {json.dumps(p.get('config'), sort_keys=True)}"
    yield f"code version: {p.get('code_version')}"
    yield f"packages: {json.dumps(p.get('packages'), sort_keys=True)}"


def _iso(value) -> str | None:
    return value.isoformat() if value else None
