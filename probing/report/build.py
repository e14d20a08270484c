"""A run's report: computed once when the run finishes, shaped for the JSON, the CSV files and the pages.

``build_report`` pools the shards' raw cosines, fits the rogue-dimension standardiser per level
over the vectors of the whole run (appendix C), and computes the tables of ``probing.measures.metrics`` and
``probing.measures.analysis``. ``run_report`` is what ``probe_report --format json`` prints and what the
report pages read; ``report_csv`` gives one table as CSV, with the provenance in ``#`` lines.
"""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from collections.abc import Iterable

from core.memory import paused_gc
from core.statistics import adjust_bh
from probing.embedding.base import EmbedConfig
from probing.exposure import public_provenance
from probing.measures.analysis import (
    context_correlations,
    context_values,
    correlations,
    layer_report,
    length_correlations,
    summary_table,
)
from probing.measures.metrics import (
    NC,
    ROW_MEASURES,
    ContextSim,
    PairSim,
    compound_values,
    context_cosines,
    fit_standardisers,
    report_entry,
    sentence_values,
    standardised_cosines,
)
from probing.measures.similarity import VectorTable
from probing.models import ProbeRun, ProbeShard, identity_hash
from probing.report.human import HUMAN_RULE, human_comp, human_score_note, with_note
from probing.report.likelihood import LIKELIHOOD_TABLES, SIMILARITY_PREFIX, likelihood_tables
from probing.run.cache import DatabaseVectorCache
from probing.run.engine import CacheKeys, embed_all
from probing.run.loading import model_backend, release_probes
from probing.run.shard_results import stored_context_sims, stored_layer_sims, stored_pair_sims

__all__ = ["build_report", "human_score_note", "report_csv", "run_report", "tables_of"]

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


def build_report(run: ProbeRun, shards: list[ProbeShard], part: str | None = None) -> dict:
    """Every table of a run whose shards are all done (stored as ``run.report``).

    The raw cosines are the ones the shards stored (``probing.run.shard_results``): none is computed
    again. The standardised ones need the whole run's vectors, read once from the cache here.
    ``part``: the key of the shards' results (and of the run's config) that holds the similarity
    measures, when they are a part of another family's run (``"similarity"`` of a likelihood run).
    """
    # Tens of thousands of rows are made here, next to the release's parsed pairs (core.memory).
    with paused_gc():
        return _build_report(run, shards, part)


def _build_report(run: ProbeRun, shards: list[ProbeShard], part: str | None) -> dict:
    probes = release_probes(run.release)
    keys = [tuple(k) for shard in shards for k in shard.compounds]
    results = [shard.result if part is None else shard.result[part] for shard in shards]
    config = EmbedConfig.from_dict(run.config if part is None else run.config[part])
    selected = [(result, *probes.select(shard.compounds)) for result, shard in zip(results, shards, strict=True)]
    raw_sims = stored_pair_sims((result, pairs) for result, pairs, _ in selected)
    context_sims = stored_context_sims((result, context) for result, _, context in selected)
    pair_items = [i for _, pairs, _ in selected for p in pairs for i in (p.original, p.variant)]
    table, reembedded = run_table(run, probes.items(keys), config)
    standardisers = fit_standardisers(pair_items, table)
    pair_sims = with_standardised(raw_sims, table, standardisers)
    context_sims = with_standardised_context(context_sims, table, standardisers.get(NC))
    texts = len(table.items)
    del table  # the run's vectors (and a standardised copy) go before the report's rows are made

    human, sources = human_comp(probes.snapshot)
    sentence_rows = sentence_values(pair_sims)
    compound_rows = compound_values(sentence_rows)
    for row in compound_rows:
        info = human.get((row["language"], row["compound"]), {})
        row["class"], row["human"], row["human_source"] = info.get("class"), info.get("comp"), info.get("comp_source")
    correlation_rows = correlations(compound_rows, human, alpha=ALPHA)
    for row, adjusted in zip(correlation_rows, adjust_bh([r["p"] for r in correlation_rows]), strict=True):
        row["p_adjusted"] = adjusted
        row["significant_bh"] = adjusted is not None and adjusted <= ALPHA
    report = {
        "human_score": with_note({"rule": HUMAN_RULE, "sources": sources}, run.release.version),
        "per_compound": compound_rows,
        "per_sentence": sentence_rows,
        "correlations": correlation_rows,
        "summary": summary_table(compound_rows),
        "length_correlations": length_correlations(sentence_rows, alpha=ALPHA),
        "context": context_values(context_sims),
        "context_correlations": context_correlations(context_sims, human, alpha=ALPHA),
        "standardisation": {
            "levels": {level: z.n for level, z in standardisers.items()},
            # Vectors that had left the cache since their shard ran, embedded again to standardise.
            "reembedded": reembedded,
        },
        "stats": _stats(results, len(pair_sims), texts),
    }
    index, per_layer = stored_layer_sims([(result, pairs) for result, pairs, _ in selected])
    if index:
        report["layers"] = layer_report(index, per_layer, human, alpha=ALPHA)
    return report


def with_standardised(pair_sims: list, table, standardisers: dict) -> list:
    """The PairSims with ``sim_std`` from ``standardisers`` (per level), computed for all pairs at once."""
    out = list(pair_sims)
    for level, z in standardisers.items():
        at_level = [i for i, ps in enumerate(out) if ps.level == level]
        values = standardised_cosines([out[i].pair for i in at_level], table, level, z).tolist()
        for i, value in zip(at_level, values, strict=True):
            ps = out[i]
            out[i] = PairSim(ps.pair, ps.level, ps.sim, None if value != value else value)  # NaN: none
    return out


def with_standardised_context(context_sims: list, table, z) -> list:
    if z is None or not context_sims:
        return context_sims
    values = context_cosines([cs.pair for cs in context_sims], table, z).tolist()
    return [ContextSim(cs.pair, cs.sim, None if v != v else v) for cs, v in zip(context_sims, values, strict=True)]


TABLE_CHUNK = 20_000  # items whose vectors a run's finish reads at once (tens of MB for a wide model)


def run_table(run: ProbeRun, items: list, config: EmbedConfig):
    """The run's vectors of ``items`` as a VectorTable (the combination only), and how many had to be embedded again.

    Read from the cache in bulk; a vector that left it is embedded again with the run's model,
    provided its weights are still the ones the run used.
    """
    identity = run.provenance["model_identity"]
    cache = DatabaseVectorCache(identity_hash(identity), layers=False, layer_dtype=config.sweep_storage, run=run.pk)
    key_of = CacheKeys(identity, config)
    items = list(dict.fromkeys(items))
    missing: list = []

    def chunks():  # the table is filled a chunk at a time: the run's vectors are not held twice
        for start in range(0, len(items), TABLE_CHUNK):
            part = items[start : start + TABLE_CHUNK]
            keys = {item: key_of(item) for item in part}
            found = cache.get_many(list(keys.values()))
            missing.extend(item for item, key in keys.items() if key not in found)
            yield {item: found[key] for item, key in keys.items() if key in found}

    table = VectorTable.from_chunks(items, chunks())
    if missing:
        backend = model_backend(run.model)
        if backend.identity() != identity:
            raise ValueError(f"{len(missing)} vectors left the cache and the model's weights changed since the run")
        fresh = embed_all(backend, missing, config, cache)[0]
        if not table.sentence.shape[1]:  # nothing was cached: the table takes its width from these
            table = VectorTable.from_vectors(fresh, items)
        else:
            table.fill(fresh)
    return table, len(missing)


def _stats(results: list[dict], pairs: int, texts: int) -> dict:
    totals: Counter = Counter()
    for result in results:
        totals.update({k: v for k, v in (result.get("stats") or {}).items() if isinstance(v, int | float)})
    return {**totals, "pair_similarities": pairs, "unique_texts": texts}


# --- what the JSON, the CSV files and the pages show ------------------------------------------------


def tables_of(run: ProbeRun) -> tuple[str, ...]:
    """The tables a run's report has (its CSV files): a likelihood run's are not a similarity run's."""
    if run.family != ProbeRun.Family.LIKELIHOOD:
        return TABLES
    if (run.config or {}).get("similarity"):  # the similarity measures of the same pass
        return LIKELIHOOD_TABLES + tuple(SIMILARITY_PREFIX + table for table in TABLES)
    return LIKELIHOOD_TABLES


def table_rows(run: ProbeRun, table: str) -> list[dict]:
    """The rows of one of the run's tables (``tables_of``): a likelihood run's similarity tables are in its part."""
    report = run.report or {}
    if run.family == ProbeRun.Family.LIKELIHOOD and table.startswith(SIMILARITY_PREFIX):
        return (report.get("similarity") or {}).get(table.removeprefix(SIMILARITY_PREFIX), [])
    return report.get(table, [])


def run_report(run: ProbeRun) -> dict:
    """The JSON of ``probe_report --format json``: the run, its provenance and every table (empty until done)."""
    report = run.report or {}
    head = {
        "run": run.pk,
        "family": run.family,
        "status": run.status,
        "release": run.release.version,
        "model": run.model.name,
        "created_at": _iso(run.created_at),
        "started_at": _iso(run.started_at),
        "finished_at": _iso(run.finished_at),
        "progress": run.progress(),
        "provenance": run.provenance,
        "human_score": with_note(report.get("human_score"), run.release.version),
    }
    if run.family == ProbeRun.Family.LIKELIHOOD:
        similarity = report.get("similarity")  # the similarity measures of the same pass, shaped as a similarity run's
        return {
            **head,
            **likelihood_tables(report),
            **({"similarity": similarity_tables(similarity)} if similarity else {}),
        }
    return {**head, **similarity_tables(report)}


def similarity_tables(report: dict) -> dict:
    """What a similarity report adds to the run's head in ``run_report``: every table, the per-compound rows shaped."""
    return {
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


def report_csv(run: ProbeRun, table: str, public: bool = False) -> str:
    """One table of the run as CSV (flat rows; lists as JSON), after ``#`` lines with the provenance.

    ``public``: the provenance as visitors who are not curators see it (``probing.exposure``).
    """
    if table not in tables_of(run):
        raise ValueError(f"unknown table {table!r}; choose one of {', '.join(tables_of(run))}")
    rows = table_rows(run, table)
    out = io.StringIO()
    for line in provenance_lines(run, public):
        out.write(f"# {line}\n")
    columns = csv_columns(rows)
    writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: json.dumps(v) if isinstance(v, list | dict) else v for k, v in row.items()})
    return out.getvalue()


def csv_columns(rows: list[dict]) -> list[str]:
    keys = {key for row in rows for key in row}
    ordered = [k for k in (*LEAD_COLUMNS, *ROW_MEASURES) if k in keys]
    return ordered + sorted(keys - set(ordered))


def provenance_lines(run: ProbeRun, public: bool = False) -> Iterable[str]:
    p = public_provenance(run.provenance) if public else run.provenance or {}
    release = p.get("release") or {}
    yield f"probe run {run.pk} ({run.status}): model {run.model.name} on release {release.get('version')}"
    yield f"release checksum (sha256 of manifest.json): {release.get('checksum')}"
    yield f"model identity: {json.dumps(p.get('model_identity'), sort_keys=True)}"
    if quantisation := (p.get("model_identity") or {}).get("quantisation"):
        yield f"the vectors come from a quantised model: {quantisation}"
    yield f"config: {json.dumps(p.get('config'), sort_keys=True)}"
    yield f"code version: {p.get('code_version')}"
    yield f"packages: {json.dumps(p.get('packages'), sort_keys=True)}"


def _iso(value) -> str | None:
    return value.isoformat() if value else None
