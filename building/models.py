"""What building the minimal pairs records: curators' decisions on variants, corpus frequency tables, and the jobs.

The three models were made by the datasets app and moved here (building/migrations/0001_initial.py);
their tables keep the names ``datasets_variantchange``, ``datasets_frequencytable`` and
``datasets_buildjob`` for good, so their rows stay where they are. ``Variant`` itself stays in
datasets: the importers write variants too, and an app before building cannot import it.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from core.models import FINISHED, JobRecord, JobStatus, Shard
from datasets.models import Variant, language_code_validator


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
