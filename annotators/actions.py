"""Every write of machine annotation: jobs created, shards answered, jobs finished, failed, cancelled, resumed.

A job's shards are blocks of a campaign's regular items; each shard asks every sample (one
``MachineAnnotator`` each) every item it holds that has no answer yet, ``concurrency`` requests at a
time, through the response cache, and writes the answers (``annotation.MachineAnswer``) in one
transaction with the job's counters (``core.shards.complete_shard``): a shard delivered twice, a
resume or a worker killed halfway never asks a question twice or pays for an answer twice.
"""

from __future__ import annotations

import hashlib
import json
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from django.db import connection, connections, transaction

from annotation.curate.study_setup import example_of, item_compound_texts
from annotation.models import Campaign, Item, MachineAnnotator, MachineAnswer
from annotation.reads import item_sentences
from annotators import config, prompts
from annotators.asking import Outcome, ask_item
from annotators.chat import ChatAnnotator
from annotators.local import LocalAnnotator
from annotators.models import AnnotationJob, AnnotationShard, CachedResponse
from annotators.shared_limits import CacheCounter
from core.models import JobStatus
from core.shards import JobDone, claim_or_fail, complete_shard, finish_job, heartbeat, release_shard, resume_job
from probing.embedding.network import RefusedRequest
from probing.embedding.sources import RefusedSource, check_model
from probing.models import EmbeddingModel, load_rules

SHARD_SIZE = 25
MAX_SAMPLES = 20
ANSWERING_KINDS = (EmbeddingModel.Kind.OPENAI_CHAT, EmbeddingModel.Kind.CAUSAL_LM)
SECRET_FREE_OPTIONS = ("model", "base_url", "revision", "name")


class AnnotatorError(ValueError):
    """A job that cannot be made or run as asked; the message says which field and why."""

    def __init__(self, message: str, field: str = "model") -> None:
        super().__init__(message)
        self.field = field


# What this process opened, by the model's registration: a local model is loaded once per worker (a chat
# endpoint's rate limits count in the shared cache: annotators.shared_limits).
_opened: dict[str, object] = {}


def open_annotator(model: EmbeddingModel):
    """The model as something that answers (``ask``), checked against the rules now, opened once per process."""
    rules = load_rules()
    check_model(model.kind, model.resolved_source(), dict(model.options or {}), rules, on_worker=True)
    key = json.dumps(
        [model.pk, model.kind, model.source, model.options, _files_stamp(model)], sort_keys=True, default=str
    )
    if key not in _opened:
        _opened.clear()  # one model at a time: a worker that moves on does not keep the last one's weights
        _opened[key] = _open(model, rules)
    return _opened[key]


def _files_stamp(model: EmbeddingModel) -> list:
    """A local model's files by name, size and modification time: changed files open the model again (and its
    new identity is then refused beside the old answers: ``_check_identity``), without hashing gigabytes per shard."""
    folder = Path(model.resolved_source())
    if model.kind != EmbeddingModel.Kind.CAUSAL_LM or not folder.is_dir():
        return []
    return sorted((p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in folder.iterdir() if p.is_file())


def check_answers(model: EmbeddingModel) -> None:
    """AnnotatorError unless ``model`` is of a kind that answers questions."""
    if model.kind not in ANSWERING_KINDS:
        raise AnnotatorError(
            f"model {model.name} is a {model.kind} model: machine annotators are openai_chat endpoints or "
            "causal_lm folders"
        )


def _open(model: EmbeddingModel, rules):
    check_answers(model)
    if model.kind == EmbeddingModel.Kind.OPENAI_CHAT:
        options = dict(model.options or {})
        endpoint = f"{options.get('base_url')} {options.get('model') or model.source}"
        return ChatAnnotator(model.source, options, rules=rules.api, counter=CacheCounter(endpoint))
    return LocalAnnotator(model.load_language_model())


def annotator_key(model: EmbeddingModel, template: prompts.Template, resolved: dict, sample: int) -> str:
    """What makes a machine annotator one: the model as registered, the template, the settings and the sample."""
    registered = {k: v for k, v in (model.options or {}).items() if k in SECRET_FREE_OPTIONS}
    payload = {
        "model": [model.name, model.kind, model.source, registered],
        "template": [template.name, template.version],
        "settings": {k: resolved[k] for k in ("temperature", "seed", "max_tokens", "structured")},
        "sample": sample,
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def create_job(
    campaign: Campaign,
    model: EmbeddingModel,
    template_name: str | None = None,
    samples: int = 1,
    settings: dict | None = None,
    user=None,
    shard_size: int = SHARD_SIZE,
) -> AnnotationJob:
    """A job asking ``model`` every regular item of ``campaign`` ``samples`` times; its shards not yet enqueued."""
    check_answers(model)
    name = template_name or prompts.DEFAULT_TEMPLATE.get(campaign.language.split("-")[0], "reddy-en")
    template = prompts.TEMPLATES.get(name)
    if template is None:
        raise AnnotatorError(f"no template {name!r}: the templates are {', '.join(prompts.TEMPLATES)}", "template")
    if not isinstance(samples, int) or isinstance(samples, bool) or not 1 <= samples <= MAX_SAMPLES:
        raise AnnotatorError(f"samples: {samples!r} is not a whole number from 1 to {MAX_SAMPLES}", "samples")
    try:
        resolved = config.resolve(settings)
    except ValueError as error:
        raise AnnotatorError(str(error), "settings") from None
    items = list(campaign.items.filter(role=Item.Role.REGULAR).order_by("order_key", "pk").values_list("pk", flat=True))
    if not items:
        raise AnnotatorError(f"campaign {campaign.slug} has no regular items to answer", "campaign")
    with transaction.atomic():
        annotators = []
        for sample in range(1, samples + 1):
            annotator, _ = MachineAnnotator.objects.get_or_create(
                campaign=campaign,
                key=annotator_key(model, template, resolved, sample),
                defaults={
                    "label": f"{model.name} · {template.name} v{template.version} · t={resolved['temperature']:g} · sample {sample}",
                    "model_name": model.name,
                    "model_kind": model.kind,
                    "template_name": template.name,
                    "template_version": template.version,
                    "template_text": template.text,
                    "settings": resolved,
                    "sample": sample,
                },
            )
            annotators.append(annotator)
        job = AnnotationJob.objects.create(
            campaign=campaign,
            model=model,
            template_name=template.name,
            template_version=template.version,
            settings=resolved,
            samples=samples,
            queue=model.celery_queue,
            shard_size=shard_size,
            items_total=len(items) * samples,
            created_by=user if getattr(user, "is_authenticated", False) else None,
        )
        job.machine_annotators.set(annotators)
        blocks = [items[i : i + shard_size] for i in range(0, len(items), shard_size)]
        AnnotationShard.objects.bulk_create(
            [AnnotationShard(job=job, index=index, items=block) for index, block in enumerate(blocks)]
        )
        job.shards_total = len(blocks)
        job.save(update_fields=["shards_total"])
    return job


@dataclass
class _Question:
    annotator: MachineAnnotator
    item: Item
    messages: list[dict]


def _questions(job: AnnotationJob, shard: AnnotationShard) -> list[_Question]:
    campaign = job.campaign
    template = prompts.TEMPLATES[job.template_name]
    own = [example_of(row) for row in campaign.worked_examples.all()]
    asked = sorted(item_compound_texts(campaign))
    items = Item.objects.filter(pk__in=shard.items).select_related("compound", "sentence").order_by("order_key", "pk")
    annotators = list(job.machine_annotators.order_by("sample"))
    answered = set(
        MachineAnswer.objects.filter(annotator__in=annotators, item__in=items).values_list("annotator_id", "item_id")
    )
    found = []
    for item in items:
        compound = item.compound
        head, modifier = prompts.words_of(compound.text)
        shown = prompts.ItemText(
            compound.text,
            compound.head or head,
            compound.modifier or modifier,
            tuple(s.text for s in item_sentences(item)),
        )
        chat = prompts.messages(template, shown, campaign.level, own, asked)
        found += [_Question(a, item, chat) for a in annotators if (a.pk, item.pk) not in answered]
    return found


def cache_get(key: str) -> dict | None:
    return CachedResponse.objects.filter(key=key).values_list("response", flat=True).first()


def cache_put(model_name: str):
    def put(key: str, response: dict) -> None:
        # One INSERT; a row another worker wrote first for the same request stays (it is the same answer).
        CachedResponse.objects.bulk_create(
            [CachedResponse(key=key, model_name=model_name, response=response)], ignore_conflicts=True
        )

    return put


def run_shard(job_id: int, index: int, annotator=None) -> bool:
    """Answer one shard's unanswered (item, sample) pairs and record them; False when there was nothing to do.

    Idempotent as probe shards are (``core.shards``); ``annotator`` is the opened model (tests,
    inline runs reuse one), else the job's model is opened here.
    """
    shard = claim_or_fail(AnnotationShard, job_id, index, fail_job)
    if shard is None:
        return False
    job = AnnotationJob.objects.select_related("campaign", "model").get(pk=job_id)
    try:
        with heartbeat(shard):
            annotator = annotator or open_annotator(job.model)
            _check_identity(job, annotator.identity())
            outcomes = _answer(job, shard, annotator)
    except (AnnotatorError, RefusedSource, RefusedRequest) as error:
        fail_job(job_id, f"shard {index}: {error}")
        raise AnnotatorError(str(error)) from None
    except Exception as error:
        release_shard(shard, f"{type(error).__name__}: {error}")
        raise
    return _record(job, shard, outcomes)


def _check_identity(job: AnnotationJob, identity: dict) -> None:
    """Record the model's identity on the job's machine annotators; refuse answers from other weights than theirs."""
    job.machine_annotators.filter(model_identity={}).update(model_identity=identity)
    other = job.machine_annotators.exclude(model_identity=identity).first()
    if other is not None:
        raise AnnotatorError(
            f"{other.label} answered with other weights ({other.model_identity}) than the model has now ({identity}): "
            "its answers cannot be mixed; register the new weights under another name and start a new job"
        )


def _answer(job: AnnotationJob, shard: AnnotationShard, annotator) -> list[tuple[_Question, Outcome]]:
    """Every question of the shard asked, ``concurrency`` at a time over HTTP (one at a time for a local model,
    and inside a transaction, whose rows other threads' connections could not see)."""
    questions = _questions(job, shard)
    put = cache_put(job.model.name)

    def one(question: _Question) -> tuple[_Question, Outcome]:
        seed = config.sample_seed(job.settings, question.annotator.sample)
        return question, ask_item(annotator, question.messages, job.settings, seed, cache_get, put)

    workers = int(job.settings["concurrency"])
    if workers == 1 or isinstance(annotator, LocalAnnotator) or connection.in_atomic_block or len(questions) < 2:
        return [one(q) for q in questions]
    workers = min(workers, len(questions))
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="annotate") as pool:
        outcomes = list(pool.map(one, questions))
        # Each thread closes its own connections: one task per thread, held at the barrier until all have run.
        barrier = threading.Barrier(workers)
        list(pool.map(lambda _: (connections.close_all(), barrier.wait()), range(workers)))
    return outcomes


def _price(model: EmbeddingModel, prompt_tokens: int, completion_tokens: int) -> float:
    options = model.options or {}
    per_prompt = float(options.get("price_per_million_prompt_tokens") or 0.0)
    per_completion = float(options.get("price_per_million_completion_tokens") or 0.0)
    return (prompt_tokens * per_prompt + completion_tokens * per_completion) / 1e6


def _record(job: AnnotationJob, shard: AnnotationShard, outcomes: list[tuple[_Question, Outcome]]) -> bool:
    rows = [
        MachineAnswer(
            annotator=q.annotator,
            item=q.item,
            valid=o.valid,
            head_score=o.scores.get("head"),
            modifier_score=o.scores.get("modifier"),
            compound_score=o.scores.get("compound"),
            distributions=o.distributions,
            paraphrases=o.paraphrases,
            raw_text=o.raw_text[:20000],
            error=o.error[:300],
            attempts=o.attempts,
            prompt_tokens=o.prompt_tokens,
            completion_tokens=o.completion_tokens,
            cached=o.sent == 0,
        )
        for q, o in outcomes
    ]
    prompt_tokens = sum(o.prompt_tokens for _, o in outcomes)
    completion_tokens = sum(o.completion_tokens for _, o in outcomes)

    def record(locked: AnnotationJob, _shard, last: bool) -> None:
        MachineAnswer.objects.bulk_create(rows, ignore_conflicts=True)
        locked.shards_done += 1
        locked.answered += len(rows)
        locked.invalid += sum(not row.valid for row in rows)
        locked.cached += sum(o.cached for _, o in outcomes)
        locked.requests += sum(o.sent for _, o in outcomes)
        locked.prompt_tokens += prompt_tokens
        locked.completion_tokens += completion_tokens
        locked.cost += _price(job.model, prompt_tokens, completion_tokens)
        fields = [
            "shards_done",
            "answered",
            "invalid",
            "cached",
            "requests",
            "prompt_tokens",
            "completion_tokens",
            "cost",
        ]
        locked.save(update_fields=fields)
        if last:
            finish_job(AnnotationJob, locked.pk, JobStatus.DONE)

    return complete_shard(AnnotationShard, shard.pk, record).recorded


def fail_job(job_id: int, message: str) -> bool:
    return finish_job(AnnotationJob, job_id, JobStatus.FAILED, error=message[:4000])


def cancel_job(job: AnnotationJob) -> bool:
    """Stop a queued or running job: its remaining shard tasks exit without work (answers so far are kept)."""
    cancelled = finish_job(AnnotationJob, job.pk, JobStatus.CANCELLED)
    job.refresh_from_db()
    return cancelled


def resume_job_shards(job: AnnotationJob) -> list[int]:
    """Put the shards not done back to pending; the indices to answer again (answers already recorded are kept)."""

    def reopen(locked: AnnotationJob) -> list[str]:
        locked.error = ""
        return ["error"]

    try:
        pending = resume_job(AnnotationShard, job.pk, reopen)
    except JobDone:
        raise AnnotatorError(f"job #{job.pk} is done: start a new job to ask again", "job") from None
    job.refresh_from_db()
    if not pending:
        finish_job(AnnotationJob, job.pk, JobStatus.DONE)
        job.refresh_from_db()
    return pending


def run_inline(job: AnnotationJob, on_shard=None) -> AnnotationJob:
    """Answer every unfinished shard of ``job`` in this process, the model opened once."""
    annotator = None
    for index in job.shards.exclude(status=AnnotationShard.DONE).order_by("index").values_list("index", flat=True):
        try:
            annotator = annotator or open_annotator(job.model)
            run_shard(job.pk, index, annotator)
        except Exception as error:
            fail_job(job.pk, f"shard {index}: {type(error).__name__}: {error}")
        job.refresh_from_db()
        if on_shard is not None:
            on_shard(job)
        if job.is_finished:
            break
    job.refresh_from_db()
    return job
