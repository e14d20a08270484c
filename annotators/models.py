"""Machine-annotation jobs: a model asked a campaign's questions, in shards, with a response cache.

An ``AnnotationJob`` asks one registered model (an ``openai_chat`` endpoint or a local ``causal_lm``)
every regular item of a campaign, ``samples`` times, with one template and one set of settings. Its
shards (``AnnotationShard``, coordinated by ``core.shards``: claims, heartbeats, requeue of a dead
worker's shards, resume) are blocks of items; the answers are ``annotation.MachineAnswer`` rows of
the job's machine annotators (one per sample). ``CachedResponse`` holds every response by the hash
of its request (the model's identity and the exact request), so the same request is never paid
twice: not by a retry, a resume, a second job or another campaign with the same items.
"""

from __future__ import annotations

from django.db import models

from annotation.models import Campaign, MachineAnnotator
from core.models import JobRecord, JobStatus, Shard
from probing.models import EmbeddingModel


class AnnotationJob(JobRecord):
    """One model × template × settings asked every regular item of a campaign, ``samples`` times."""

    Status = JobStatus

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="annotation_jobs")
    model = models.ForeignKey(EmbeddingModel, on_delete=models.PROTECT, related_name="annotation_jobs")
    template_name = models.CharField(max_length=60)
    template_version = models.PositiveSmallIntegerField()
    settings = models.JSONField(default=dict, help_text="The resolved settings (annotators.settings).")
    samples = models.PositiveSmallIntegerField(default=1)
    machine_annotators = models.ManyToManyField(MachineAnnotator, related_name="jobs")
    status = models.CharField(max_length=10, choices=JobStatus.choices, default=JobStatus.QUEUED, db_index=True)
    queue = models.CharField(max_length=50)
    shard_size = models.PositiveIntegerField(default=25, help_text="Items per shard.")
    shards_total = models.PositiveIntegerField(default=0)
    shards_done = models.PositiveIntegerField(default=0)
    items_total = models.PositiveIntegerField(default=0, help_text="Items × samples to answer.")
    answered = models.PositiveIntegerField(default=0, help_text="Answers recorded, valid or not.")
    invalid = models.PositiveIntegerField(default=0, help_text="Answers that did not parse after every attempt.")
    cached = models.PositiveIntegerField(default=0, help_text="Requests answered from the response cache.")
    requests = models.PositiveIntegerField(default=0, help_text="HTTP requests or local generations, retries included.")
    prompt_tokens = models.PositiveBigIntegerField(default=0)
    completion_tokens = models.PositiveBigIntegerField(default=0)
    cost = models.FloatField(default=0.0, help_text="From the model's prices per million tokens (cache hits are free).")
    error = models.TextField(blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"job #{self.pk}: {self.model.name} on {self.campaign.slug}"

    @property
    def progress(self) -> float:
        return self.answered / self.items_total if self.items_total else 0.0


class AnnotationShard(Shard):
    """A block of a job's items, answered by every sample; done once, whatever the deliveries."""

    job = models.ForeignKey(AnnotationJob, on_delete=models.CASCADE, related_name="shards")
    items = models.JSONField(default=list, help_text="Item ids.")

    class Meta:
        ordering = ["job", "index"]
        constraints = [models.UniqueConstraint(fields=["job", "index"], name="annotation_shard_once")]

    def __str__(self) -> str:
        return f"{self.job} shard {self.index}"


class CachedResponse(models.Model):
    """A model's response to one exact request: its text, the digits' log-probabilities and the token counts."""

    key = models.CharField(max_length=64, unique=True, help_text="sha256 of the model's identity and the request.")
    model_name = models.CharField(max_length=200)
    response = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.model_name} {self.key[:12]}"
