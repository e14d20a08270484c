"""Probe runs: every write about a run, from registering a model to the finished report.

A run is cut into shards of compounds. Each shard is one Celery task (``probing.tasks``) that
embeds the texts it owns (each text of the run is embedded by one shard: ``probing.run.sharding``)
with ``probing.run.engine.embed_all`` and the database cache, and stores the raw cosines of its pairs
at both levels, all computed at once (``probing.run.shard_results``). The shard that completes the run calls ``finish_run``,
which fits the rogue-dimension standardiser over the whole run's vectors (it needs all of them,
so it cannot happen per shard) and computes the report. Shards are idempotent: a shard done is
never recomputed, so a run killed halfway resumes (``resume_run``) with the same numbers.

A language model's run (the likelihood family) goes through the same claims, heartbeats, resume
and finish: its shards score their texts (``probing.run.likelihood``) and its finish computes the
likelihood tables (``probing.report.likelihood``).

Nothing here knows Celery: ``probing.tasks`` creates runs here and enqueues their shards, and its
tasks call ``run_shard`` and ``finish_run``.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable

from django.db import transaction
from django.utils import timezone

from core.memory import paused_gc
from core.shards import (
    JobDone,
    claim_or_fail,
    complete_shard,
    finish_job,
    heartbeat,
    release_shard,
    resume_job,
)
from probing.embedding.base import EmbedConfig
from probing.embedding.network import RefusedRequest
from probing.embedding.sources import RefusedSource
from probing.likelihood.probe import template as likelihood_template
from probing.models import EmbeddingModel, ProbeRun, ProbeShard, config_hash
from probing.report.build import build_report
from probing.report.likelihood import build_likelihood_report
from probing.run.cache import run_memo
from probing.run.likelihood import measure_shard_likelihood, shard_size_of
from probing.run.loading import NEUTRAL_PATTERN, release_probes
from probing.run.provenance import environment, model_origin
from probing.run.sharding import ShardPlan, plan_shards
from probing.run.vectors import ProbeError, measure_shard_vectors
from releases.models import Release

log = logging.getLogger(__name__)

SHARD_SIZE = 50  # compounds per shard: about 1,300 texts, ten seconds on a CPU for MiniLM; per-task costs stay small
PROGRESS_EVERY = 1.0  # seconds between live progress writes of a shard


# --- models -----------------------------------------------------------------------------------


def register_model(
    name: str,
    kind: str,
    source: str,
    options: dict | None = None,
    config: dict | None = None,
    queue: str = EmbeddingModel.Queue.CPU,
    active: bool = True,
    run_on_publish: bool = False,
    notes: str = "",
) -> EmbeddingModel:
    """Register (or update) a model by name after validating kind, options and config; ProbeError if invalid."""
    from django.core.exceptions import ValidationError

    model = EmbeddingModel.objects.filter(name=name).first() or EmbeddingModel(name=name)
    model.kind, model.source, model.queue = kind, source, queue
    model.options, model.config = options or {}, config or {}
    model.active, model.run_on_publish, model.notes = active, run_on_publish, notes
    try:
        model.full_clean(validate_unique=False)
    except ValidationError as error:
        raise ProbeError("; ".join(f"{k}: {' '.join(m)}" for k, m in error.message_dict.items())) from None
    model.save()
    return model


# --- runs -------------------------------------------------------------------------------------


def record_opened_model(model_id: int, opened: dict) -> None:
    """What a worker learnt by opening a model (``probing.embedding.lazy.Recorded``): later runs need not open it."""
    EmbeddingModel.objects.filter(pk=model_id).update(opened=opened)


def create_probe_run(
    release: Release,
    model: EmbeddingModel,
    config: dict | None = None,
    user=None,
    shard_size: int = SHARD_SIZE,
) -> ProbeRun:
    """A run of ``model`` on a published ``release``, cut into shards that nobody has enqueued yet.

    ``probing.tasks.start_probe_run`` creates it and enqueues its shards on the model's queue;
    ``run_inline`` computes them in this process. ``config`` overrides the model's defaults
    (EmbedConfig keys; a language model's likelihood settings). An embedding model's run is of the
    similarity family, a language model's (causal, masked, completions server) of the likelihood
    family. ProbeError for a draft, a bad config or a release without minimal pairs.
    """
    if not release.is_published:
        raise ProbeError(f"release {release.version} is a draft: probe runs are made on published releases only")
    if shard_size < 1:
        raise ProbeError("shard_size must be at least 1 compound")
    if model.answers_only:
        raise ProbeError(
            f"model {model.name} is a chat endpoint ({model.kind}): it answers a campaign's questions as a machine "
            "annotator (annotate_with_model), but gives neither vectors nor text log-probabilities to probe"
        )
    family = ProbeRun.Family.LIKELIHOOD if model.is_language_model else ProbeRun.Family.SIMILARITY
    try:
        resolved = model.run_config(config)
    except (TypeError, ValueError) as error:
        raise ProbeError(f"model {model.name}: {error}") from None
    probes = release_probes(release)
    if not probes.compounds:
        raise ProbeError(
            f"release {release.version} has no minimal pairs to probe: it needs approved variants "
            "(synonym_nc, head_only, modifier_only, synonym_both, random_freq) of its sentences"
        )
    chunks = [probes.compounds[i : i + shard_size] for i in range(0, len(probes.compounds), shard_size)]
    if family == ProbeRun.Family.LIKELIHOOD:
        # Each shard scores what its compounds need; a text two shards share is scored once, through the cache.
        plans = [ShardPlan() for _ in chunks]
        sizes = [shard_size_of(probes, chunk, bool(resolved.get("similarity"))) for chunk in chunks]
    else:
        chunk_items = [probes.items(chunk) for chunk in chunks]
        plans = plan_shards(chunk_items)
        sizes = [len(plan.split(items)[0]) for plan, items in zip(plans, chunk_items, strict=True)]
    probed = {
        "neutral_pattern": NEUTRAL_PATTERN,
        "shard_size": shard_size,
        "compounds": len(probes.compounds),
        "compounds_without_pairs": [list(k) for k in probes.without_pairs],
    }
    if family == ProbeRun.Family.LIKELIHOOD:
        probed["template"] = likelihood_template()
    provenance = {
        "release": {"version": release.version, "checksum": release.checksum, "languages": release.languages},
        "model": {
            "name": model.name,
            "kind": model.kind,
            "source": model.source,
            "options": model.options,
            "queue": model.queue,
            "origin": model_origin(model.source),  # the bundled model's upstream and licence
        },
        "model_identity": None,  # set by the first shard, from the weights a worker loaded
        "family": family,
        "config": resolved,
        "vector_key": _vector_key(family, resolved),
        "probes": probed,
        **environment(),
        "workers": [],
    }
    with transaction.atomic():
        run = ProbeRun.objects.create(
            release=release,
            model=model,
            family=family,
            config=resolved,
            config_hash=config_hash(resolved),
            queue=model.celery_queue,
            shard_size=shard_size,
            shards_total=len(chunks),
            texts_total=sum(sizes),
            provenance=provenance,
            created_by=user if user is not None and user.is_authenticated else None,
        )
        ProbeShard.objects.bulk_create(
            [
                ProbeShard(run=run, index=i, compounds=[list(k) for k in chunk], texts=size, plan=plan.as_dict())
                for i, (chunk, size, plan) in enumerate(zip(chunks, sizes, plans, strict=True))
            ]
        )
    return run


def _vector_key(family: str, resolved: dict) -> dict | None:
    """What changes the run's vectors: a similarity run's config, a likelihood run's similarity part, or None."""
    if family == ProbeRun.Family.SIMILARITY:
        return EmbedConfig.from_dict(resolved).vector_key()
    similarity = resolved.get("similarity")
    return EmbedConfig.from_dict(similarity).vector_key() if similarity else None


def run_shard(run_id: int, index: int) -> bool:
    """Embed one shard's texts and store its raw pair cosines; False when there was nothing to do.

    The shard embeds the texts it owns (``probing.run.sharding``) and reads those an earlier shard owns
    from the cache. Idempotent: a delivery that cannot claim the shard (done, being computed by a
    worker that still beats, or of a finished run: ``core.shards.claim_shard``) does nothing. The
    worker beats while it computes; the shard that completes the run finishes it.
    """
    shard = claim_or_fail(ProbeShard, run_id, index, fail_run)
    if shard is None:
        return False
    run = ProbeRun.objects.select_related("release", "model").get(pk=run_id)
    ProbeShard.objects.filter(pk=shard.pk).update(texts_done=0)
    started = time.monotonic()
    try:
        # The rows read from the cache and the tables made of them form no cycles (core.memory).
        with heartbeat(shard), paused_gc():
            measure = measure_shard_likelihood if run.family == ProbeRun.Family.LIKELIHOOD else measure_shard_vectors
            result, stats = measure(run, shard, _progress(shard.pk))
    except (ProbeError, RefusedSource, RefusedRequest) as error:
        # A model the rules refuse stays refused: the run fails with the reason, no retry.
        fail_run(run_id, f"shard {index}: {error}")
        raise ProbeError(str(error)) from None
    except Exception as error:
        release_shard(shard, f"{type(error).__name__}: {error}")
        raise
    return _record_shard(run_id, shard.pk, result, stats, time.monotonic() - started)


class MixedWeights(ProbeError):
    """A shard computed with other weights than the run's other shards: they cannot be pooled."""


def _record_shard(run_id: int, shard_id: int, result: dict, stats, seconds: float) -> bool:
    """Store a shard's result and add it to the run's progress (``core.shards.complete_shard``); the last one finishes the run."""

    def record(run: ProbeRun, shard: ProbeShard, last: bool) -> None:
        recorded = run.provenance.get("model_identity")
        if recorded and recorded != result["identity"]:
            raise MixedWeights(f"shard {shard.index} was computed with {result['identity']}, the run with {recorded}")
        shard.result, shard.seconds, shard.texts_done = result, seconds, shard.texts
        shard.save(update_fields=["result", "seconds", "texts_done"])
        run.shards_done += 1
        run.texts_embedded += stats.embedded
        run.texts_cached += stats.cached
        run.provenance["model_identity"] = recorded or result["identity"]
        run.eta_seconds = _eta(run, shard.finished_at)
        run.save(update_fields=["shards_done", "texts_embedded", "texts_cached", "provenance", "eta_seconds"])

    try:
        completion = complete_shard(ProbeShard, shard_id, record)
    except MixedWeights as error:
        # Shards computed with different weights cannot be pooled: the run fails rather than mix them.
        ProbeShard.objects.filter(pk=shard_id).update(status=ProbeShard.FAILED, error=str(error))
        fail_run(run_id, str(error))
        return False
    if completion.last:
        finish_run(ProbeRun.objects.get(pk=run_id))
    return completion.recorded


def _eta(run: ProbeRun, now) -> float | None:
    """Seconds left at the pace of the shards finished since the run (last) started."""
    since = run.resumed_at or run.started_at or now
    if run.resumed_at is None and run.started_at is not None:
        done = run.shards_done  # every shard done so far finished after the start: no query needed
    else:
        done = run.shards.filter(status=ProbeShard.DONE, finished_at__gte=since).count()
    left = run.shards_total - run.shards_done
    if not done or not left:
        return 0.0 if not left else None
    return (now - since).total_seconds() / done * left


def _progress(shard_id: int):
    last = [0.0]

    def write(done: int, total: int) -> None:
        if not total:
            return  # nothing to embed: no progress to show
        if time.monotonic() - last[0] >= PROGRESS_EVERY or done >= total:
            last[0] = time.monotonic()
            ProbeShard.objects.filter(pk=shard_id, status=ProbeShard.RUNNING).update(texts_done=done)

    return write


def finish_run(run: ProbeRun) -> bool:
    """Standardise over the run's vectors, compute every table and mark the run done; False if not ready.

    Any error fails the run with its message (resume_run tries again).
    """
    run = ProbeRun.objects.select_related("release", "model").get(pk=run.pk)
    with paused_gc():  # every shard's stored cosines (core.memory)
        shards = list(run.shards.order_by("index"))
    if run.status != ProbeRun.Status.RUNNING or any(s.status != ProbeShard.DONE for s in shards):
        return False
    build = build_likelihood_report if run.family == ProbeRun.Family.LIKELIHOOD else build_report
    try:
        report = build(run, shards)
    except Exception as error:
        fail_run(run.pk, f"finishing: {type(error).__name__}: {error}")
        raise
    finally:
        run_memo.forget(run.pk)
    provenance = {**run.provenance, "workers": _workers(shards)}
    done = ProbeRun.objects.filter(pk=run.pk, status=ProbeRun.Status.RUNNING).update(
        status=ProbeRun.Status.DONE, report=report, provenance=provenance, finished_at=timezone.now(), eta_seconds=0.0
    )
    return bool(done)


def _workers(shards: list[ProbeShard]) -> list[dict]:
    """The distinct environments (host, code, packages) that computed the shards, with their shard indices."""
    found: dict[str, dict] = {}
    for shard in shards:
        worker = shard.result.get("worker") or {}
        entry = found.setdefault(json.dumps(worker, sort_keys=True), {**worker, "shards": []})
        entry["shards"].append(shard.index)
    return list(found.values())


def fail_run(run_id: int, message: str) -> bool:
    """Mark a queued or running run failed with a message (a finished one is left as it is)."""
    return finish_job(ProbeRun, run_id, ProbeRun.Status.FAILED, error=message[:4000], eta_seconds=None)


def cancel_run(run: ProbeRun) -> bool:
    """Stop a queued or running run: its remaining shard tasks exit without work."""
    cancelled = finish_job(ProbeRun, run.pk, ProbeRun.Status.CANCELLED, eta_seconds=None)
    run.refresh_from_db()
    return cancelled


def resume_run(run: ProbeRun) -> list[int]:
    """Put the shards of ``run`` that are not done back to pending (finished shards are never recomputed).

    For a cancelled, failed or stalled run (a worker killed halfway; ``core.shards`` requeues the
    shards of a dead worker by itself, this is for the rest). Returns the shard indices to compute
    again (``probing.tasks.resume_probe_run`` enqueues them, or finishes the run when there are
    none; ``run_inline`` computes them here). ProbeError for a run done.
    """

    def reopen(locked: ProbeRun) -> list[str]:
        locked.error, locked.eta_seconds = "", None
        locked.resumed_at = timezone.now() if locked.started_at else None
        return ["error", "eta_seconds", "resumed_at"]

    try:
        pending = resume_job(ProbeShard, run.pk, reopen)
    except JobDone:
        raise ProbeError(f"probe run #{run.pk} is done: start a new run to measure again") from None
    run.refresh_from_db()
    return pending


def run_inline(run: ProbeRun, on_shard: Callable[[ProbeRun], None] | None = None) -> ProbeRun:
    """Process every unfinished shard of ``run`` in this process (no worker), then finish it.

    A shard that raises fails the run with the reason (a worker would retry; here nobody would).
    ``on_shard`` sees the run's progress after each shard.
    """
    for index in run.shards.exclude(status=ProbeShard.DONE).order_by("index").values_list("index", flat=True):
        try:
            run_shard(run.pk, index)
        except Exception as error:
            fail_run(run.pk, f"shard {index}: {type(error).__name__}: {error}")
        run.refresh_from_db(fields=ProbeRun.PROGRESS_FIELDS)
        if on_shard is not None:
            on_shard(run)
        if run.is_finished:
            break
    run.refresh_from_db()
    if run.status == ProbeRun.Status.RUNNING and run.shards_done >= run.shards_total:
        finish_run(run)
        run.refresh_from_db()
    return run
