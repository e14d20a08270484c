"""What building the minimal pairs records: curators' decisions on variants, corpus frequency tables, the jobs,
and the synonyms a model proposed (``SynonymRequest``, ``ProposedSynonym``).

The three models were made by the datasets app and moved here (building/migrations/0001_initial.py);
their tables keep the names ``datasets_variantchange``, ``datasets_frequencytable`` and
``datasets_buildjob`` for good, so their rows stay where they are. ``Variant`` itself stays in
datasets: the importers write variants too, and an app before building cannot import it.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from core.models import FINISHED, JobRecord, JobStatus, Shard
from datasets.models import Compound, Variant, language_code_validator


class VariantChange(models.Model):
    """One curator decision on a variant: who, when, and the state before and after."""

    class Action(models.TextChoices):
        APPROVE = "approve", "Approved"
        EDIT = "edit", "Edited"
        REJECT = "reject", "Rejected"
        RESET = "reset", "Back to pending"

    variant = models.ForeignKey(Variant, on_delete=models.CASCADE, related_name="changes")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    at = models.DateTimeField(auto_now_add=True, db_index=True)
    action = models.CharField(max_length=10, choices=Action.choices)
    before = models.JSONField()
    after = models.JSONField()
    note = models.CharField(max_length=300, blank=True)

    class Meta:
        db_table = "datasets_variantchange"  # made by the datasets app: the table kept its name
        ordering = ["-at", "-id"]

    def __str__(self) -> str:
        return f"{self.action} variant {self.variant_id} by {self.user} at {self.at:%Y-%m-%d %H:%M}"


class FrequencyTable(models.Model):
    """Counts of words and compounds from one source (a corpus the user uploaded, or wordfreq)."""

    class Source(models.TextChoices):
        CORPUS = "corpus", "Counted in a corpus"
        WORDFREQ = "wordfreq", "wordfreq (compounds estimated)"

    name = models.CharField(max_length=200)
    language = models.CharField(max_length=8, validators=[language_code_validator], db_index=True)
    source = models.CharField(max_length=10, choices=Source.choices, default=Source.CORPUS)
    corpus_path = models.CharField(max_length=500, blank=True)
    corpus_format = models.CharField(max_length=20, blank=True)
    corpus_bytes = models.BigIntegerField(null=True, blank=True)
    tokens = models.BigIntegerField(default=0, help_text="Tokens counted in the whole corpus.")
    counts = models.JSONField(default=dict, help_text="{word or compound (lower case): count}")
    job = models.ForeignKey("BuildJob", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "datasets_frequencytable"  # made by the datasets app: the table kept its name
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.language}, {self.tokens:,} tokens)"


class BuildJob(JobRecord):
    """A long dataset-building job run by Celery workers (variant generation, corpus counting)."""

    class Kind(models.TextChoices):
        GENERATE_VARIANTS = "generate_variants", "Generate variants"
        COUNT_CORPUS = "count_corpus", "Count a corpus"

    # The states of every sharded job (core.models), so that core.shards can move a job through them.
    Status = JobStatus

    kind = models.CharField(max_length=20, choices=Kind.choices)
    language = models.CharField(max_length=8, blank=True)
    options = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED, db_index=True)
    total = models.PositiveBigIntegerField(default=0, help_text="Units of work (compounds, corpus chunks).")
    done = models.PositiveBigIntegerField(default=0)
    done_parts = models.JSONField(
        default=list, blank=True, help_text="Indices of finished parts (their BuildShard rows are done)."
    )
    message = models.TextField(blank=True)
    result = models.JSONField(default=dict, blank=True)

    class Meta:
        db_table = "datasets_buildjob"  # made by the datasets app: the table kept its name
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} #{self.pk} ({self.status})"

    @property
    def progress(self) -> float:
        return self.done / self.total if self.total else 0.0

    @property
    def is_finished(self) -> bool:
        return self.status in FINISHED


class BuildShard(Shard):
    """One part of a building job: a batch of compounds (generation) or a chunk of the corpus (counting).

    Claimed, beaten for, completed and requeued by ``core.shards``; what the part computes is in
    the job's options (``parts`` and ``batch``, or ``ranges``).
    """

    job = models.ForeignKey(BuildJob, on_delete=models.CASCADE, related_name="shards")

    class Meta:
        ordering = ["job", "index"]
        constraints = [models.UniqueConstraint(fields=["job", "index"], name="build_shard_unique_index")]

    def __str__(self) -> str:
        return f"part {self.index} of build job #{self.job_id} ({self.status})"


class SynonymRequest(models.Model):
    """One model asked for one compound's synonyms with one prompt template: what it answered, or why it was invalid.

    Written by ``building.variants.proposals.record_proposals``; asking again with the same model and
    template replaces the outcome (the response cache makes that free when nothing changed).
    """

    compound = models.ForeignKey(Compound, on_delete=models.CASCADE, related_name="synonym_requests")
    model_name = models.CharField(max_length=200)
    model_identity = models.JSONField(default=dict, help_text="The weights or endpoint that answered.")
    template_name = models.CharField(max_length=60)
    template_version = models.PositiveSmallIntegerField()
    template_text = models.TextField()
    request_settings = models.JSONField(default=dict, help_text="The resolved settings it was asked with.")
    valid = models.BooleanField(default=False)
    error = models.CharField(max_length=300, blank=True, help_text="Why the last answer did not parse.")
    raw_text = models.TextField(blank=True, help_text="The last answer as the model wrote it.")
    attempts = models.PositiveSmallIntegerField(default=0)
    response_key = models.CharField(max_length=64, blank=True, help_text="The response cache's key of the last answer.")
    filtered = models.JSONField(default=list, blank=True, help_text="Proposed words left out, each with the reason.")
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["compound", "model_name", "template_name"]
        constraints = [
            models.UniqueConstraint(
                fields=["compound", "model_name", "template_name", "template_version"], name="synonym_request_once"
            )
        ]

    def __str__(self) -> str:
        return f"{self.model_name} on {self.compound} ({self.template_name} v{self.template_version})"


class ProposedSynonym(models.Model):
    """A word a model proposed for a compound's side; a candidate like the lexicon's, never approved on its own."""

    class Side(models.TextChoices):
        NC = "nc", "The whole compound"
        HEAD = "head", "The head"
        MODIFIER = "modifier", "The modifier"

    class Status(models.TextChoices):
        PROPOSED = "proposed", "Proposed"
        APPROVED = "approved", "Approved by a curator"
        REJECTED = "rejected", "Rejected by a curator"

    SOURCE = "model"

    request = models.ForeignKey(SynonymRequest, on_delete=models.CASCADE, related_name="proposals")
    compound = models.ForeignKey(Compound, on_delete=models.CASCADE, related_name="proposed_synonyms")
    side = models.CharField(max_length=8, choices=Side.choices)
    word = models.CharField(max_length=100)
    rank = models.PositiveSmallIntegerField(help_text="1: the model's first proposal for this side.")
    source = models.CharField(max_length=10, default=SOURCE, editable=False)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PROPOSED, db_index=True)

    class Meta:
        ordering = ["compound", "side", "rank", "pk"]
        constraints = [models.UniqueConstraint(fields=["request", "side", "word"], name="proposed_synonym_once")]

    def __str__(self) -> str:
        return f"{self.word} for the {self.side} of {self.compound_id} ({self.status})"
